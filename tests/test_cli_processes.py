"""Every command group once in a real process, as a terminal runs it.

The other CLI tests run `main()` in the test's process (tests/clirun.py); this one keeps the
process boundary honest for each group: the `python -m memevo.cli` entry, exit codes, the
JSON on a real stdout, the files a fresh interpreter creates (user-only). The groups that need
a running service or the model are run in real processes by
tests/test_processes.py::test_every_command_works_with_the_service_running.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

FACT = "支付页新流程的灰度开关是 pay_v2_gray"


def test_each_command_group_in_its_own_process(
    run_cli_process: Callable[..., CompletedProcess[str]], data_dir: Path, tmp_path: Path
) -> None:
    def ok(*args: str, **kwargs: Any) -> Any:
        done = run_cli_process(*args, **kwargs)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return json.loads(done.stdout) if "--json" in args else done.stdout

    assert ok("--version").startswith("memevo ")
    memory = ok("project", "add", FACT, "--json")["memory"]
    ident = memory["id"]
    assert ok("rule", "add", "改完代码不要自动 commit", "--json")["memory"]["category"] == "rule"
    assert ok("list", "--json")  # counts of both groups
    assert [m["text"] for m in ok("read", "project", "--json")["memories"]] == [FACT]
    ok("reinforce", ident, "--json")
    ok("pin", ident, "--json")
    ok("unpin", ident, "--json")
    ok("scope", ident, "here", "--json", cwd=tmp_path)
    ok("history", ident, "--json")
    ok("move", ident, "rule", "--json")
    assert FACT in [m["text"] for m in ok("read", "rule", "--json")["memories"]]
    ok("delete", ident, "--json")
    assert FACT in json.dumps(ok("trash", "--json"), ensure_ascii=False)
    ok("restore", ident, "--json")
    ok("pending", "--json")
    ok("config", "--json")
    ok("service", "status", "--json")
    ok("secret", "status", "--json")
    ok("hooks", "--help")
    ok("setup", "--help")
    ok("uninstall", "--help")
    ok("mcp", "--help")
    ok("bench", "--help")
    store = data_dir / "memevo.duckdb"
    assert store.exists() and stat.S_IMODE(store.stat().st_mode) & 0o077 == 0

    wrong = run_cli_process("read", "nothing")
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr and wrong.stdout == ""
