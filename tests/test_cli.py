"""The `memevo` command line, run as a user runs it: a separate process, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from clijson import cli_json
from deadlines import HANG_S


def test_rule_add_then_read_shows_it_at_half(run_cli) -> None:
    added = run_cli("rule", "add", "回答用中文")
    assert added.returncode == 0, added.stderr
    assert "confidence 0.5" in added.stdout
    read = cli_json(run_cli("read", "rule", "--json"))
    assert [(m["text"], m["confidence"], m["deprecated"]) for m in read["memories"]] == [
        ("回答用中文", 0.5, False)
    ]


def test_every_listing_command_prints_one_json_object(run_cli) -> None:
    run_cli("project", "add", "支付页新流程的灰度开关是 pay_v2")
    memory_id = cli_json(run_cli("read", "project", "--json"))["memories"][0]["id"]
    run_cli("delete", memory_id)
    for args in (["list"], ["read", "rule"], ["read", "project"], ["trash"], ["config"]):
        data = cli_json(run_cli(*args, "--json"))
        assert isinstance(data, dict), args
    assert cli_json(run_cli("list", "--json"))["counts"]["project"] == {"live": 0, "deprecated": 0}
    assert cli_json(run_cli("trash", "--json"))["trash"][0]["id"] == memory_id


def test_read_pages_by_fifty(run_cli, data_dir: Path) -> None:
    from memevo.core.clock import FakeClock
    from memevo.core.memories import live as memories
    from memevo.core.store.database import Store

    with Store.open() as store:
        clock = FakeClock()
        for i in range(60):
            memories.create(store, "rule", f"generated rule number {i:02d}", clock)
    first = cli_json(run_cli("read", "rule", "--json"))
    assert (len(first["memories"]), first["total"]) == (50, 60)
    rest = cli_json(run_cli("read", "rule", "--offset", "50", "--json"))
    assert len(rest["memories"]) == 10
    assert len(cli_json(run_cli("read", "rule", "--all", "--json"))["memories"]) == 60
    human = run_cli("read", "rule")
    assert "--offset 50" in human.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rule", "add", "abc"], "6–400"),
        (["restore", "nope"], "no memory with id nope"),
        (["reinforce", "nope"], "no memory with id nope"),
        (["move", "nope", "project"], "no memory with id nope"),
        (["purge", "nope", "--yes"], "no memory with id nope"),
        (["delete", "nope"], "no memory with id nope"),
        (["config", "recallTopK", "0"], "recallTopK must be a whole number from 1 to 20"),
        (["config", "noSuchKey", "1"], "unknown config key"),
    ],
)
def test_errors_exit_non_zero_with_one_line(run_cli, args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_reinforce_reports_the_points_actually_added(run_cli, data_dir: Path) -> None:
    from memevo.core.clock import FakeClock
    from memevo.core.memories import live as memories
    from memevo.core.store.database import Store

    with Store.open() as store:
        memory = memories.create(store, "rule", "written yesterday in fact", FakeClock())  # 2026-01-01
    result = cli_json(run_cli("reinforce", memory.id, "--json"))
    assert result["gained"] == 0.1 and result["memory"]["confidence"] == 0.6
    again = run_cli("reinforce", memory.id)
    assert "+0 (today's award already given)" in again.stdout


def test_move_restore_and_purge(run_cli) -> None:
    memory = cli_json(run_cli("rule", "add", "灰度开关是 pay_new_flow", "--json"))["memory"]
    moved = cli_json(run_cli("move", memory["id"], "project", "--json"))
    assert moved["memory"]["category"] == "project"
    run_cli("delete", memory["id"])
    restored = cli_json(run_cli("restore", memory["id"], "--json"))
    assert restored["memory"]["category"] == "project"
    purged = cli_json(run_cli("purge", memory["id"], "--yes", "--json"))
    assert purged["purged"]["removed_rows"] == 1
    assert cli_json(run_cli("list", "--json"))["counts"]["project"]["live"] == 0
    assert run_cli("restore", memory["id"]).returncode != 0


def test_config_show_set_unset(run_cli, data_dir: Path) -> None:
    assert cli_json(run_cli("config", "recallTopK", "5", "--json")) == {"key": "recallTopK", "value": 5}
    shown = cli_json(run_cli("config", "--json"))
    assert shown["config"]["recallTopK"] == {
        "value": 5,
        "set_by_user": True,
        "default": 3,
        "help": shown["config"]["recallTopK"]["help"],
    }
    assert json.loads((data_dir / "config.json").read_text(encoding="utf-8")) == {"recallTopK": 5}
    run_cli("config", "--unset", "recallTopK")
    assert json.loads((data_dir / "config.json").read_text(encoding="utf-8")) == {}


def test_broken_config_is_reported_but_never_crashes(run_cli, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "config.json").write_text("{oops", encoding="utf-8")
    shown = run_cli("config")
    assert shown.returncode == 0
    assert "not valid JSON" in shown.stderr
    assert "recallTopK" in shown.stdout
    refused = run_cli("config", "recallTopK", "4")
    assert refused.returncode != 0 and "nothing was written" in refused.stderr
    assert (data_dir / "config.json").read_text(encoding="utf-8") == "{oops"
    assert run_cli("rule", "add", "still works with a broken config").returncode == 0


def test_import_legacy_reports_counts(run_cli, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "rule.jsonl").write_text(
        json.dumps({"id": "n1", "text": "回答用中文", "confidence": 0.7}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    first = run_cli("import-legacy")
    assert first.returncode == 0, first.stderr
    assert "imported 1 rule, 0 project, 0 trash; 0 already present" in first.stdout
    second = cli_json(run_cli("import-legacy", "--json"))
    assert second["import"]["already_present"] == 1
    assert cli_json(run_cli("read", "rule", "--json"))["memories"][0]["confidence"] == 0.7


def test_reads_create_nothing_when_nothing_was_ever_written(run_cli, data_dir: Path) -> None:
    assert cli_json(run_cli("list", "--json"))["counts"]["rule"]["live"] == 0
    assert cli_json(run_cli("read", "rule", "--json"))["memories"] == []
    assert not (data_dir / "memevo.duckdb").exists()


MODEL_FREE = [
    ["list"],
    ["read", "rule"],
    ["config"],
    ["trash"],
    ["rule", "add", "no heavy imports here"],
    ["move", "ID", "project"],
    ["restore", "ID"],
    ["purge", "ID", "--yes"],
]


@pytest.mark.parametrize("args", MODEL_FREE, ids=lambda a: a[0])
def test_model_free_commands_import_no_torch_or_qt(args: list[str], data_dir: Path) -> None:
    probe = textwrap.dedent(
        f"""
        import sys
        from memevo.cli.main import main
        main({args!r})
        heavy = [m for m in ("torch", "sentence_transformers", "transformers", "PySide6", "qasync")
                 if m in sys.modules]
        print("HEAVY", heavy)
        """
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=HANG_S)
    assert "HEAVY []" in result.stdout, result.stdout + result.stderr


def test_two_concurrent_writers_both_land(run_cli, data_dir: Path) -> None:
    run_cli("rule", "add", "create the store first")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memevo.cli", "rule", "add", f"concurrent writer number {i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    outcomes = [(p.wait(timeout=HANG_S), *p.communicate()) for p in procs]
    assert all(code == 0 for code, _, _ in outcomes), outcomes
    texts = {m["text"] for m in cli_json(run_cli("read", "rule", "--all", "--json"))["memories"]}
    assert {f"concurrent writer number {i}" for i in range(4)} <= texts


def test_writer_refuses_clearly_when_the_store_stays_busy(run_cli, data_dir: Path) -> None:
    run_cli("rule", "add", "create the store first")
    hold = "import time; from memevo.core.store.database import Store; s = Store.open(); print('locked', flush=True); time.sleep(30)"
    with subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        try:
            result = run_cli("rule", "add", "this one cannot land", env={"MEMEVO_LOCK_WAIT_S": "0.5"})
        finally:
            holder.kill()
            holder.wait()
    assert result.returncode == 3
    assert f"in use by process {holder.pid}" in result.stderr and "nothing was written" in result.stderr
    texts = [m["text"] for m in cli_json(run_cli("read", "rule", "--json"))["memories"]]
    assert texts == ["create the store first"]


def test_version_and_overview(run_cli) -> None:
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("memevo ")
    overview = run_cli("overview")
    assert overview.returncode == 0 and "0 rule" in overview.stdout
    alone = run_cli(env={"DISPLAY": "", "WAYLAND_DISPLAY": ""})  # `memevo` on a terminal with no desktop
    assert alone.returncode == 0 and "0 rule" in alone.stdout and "memevo tray" in alone.stdout
    assert "Next: `memevo setup`" in alone.stdout


def test_pending_lists_nothing_without_a_store_or_service(run_cli) -> None:
    done = run_cli("pending")
    assert done.returncode == 0, done.stderr
    assert "no proposals are waiting" in done.stdout
    as_json = run_cli("pending", "--json")
    assert json.loads(as_json.stdout) == {"pending": []}


def _waiting(proposals: list[tuple[str, str, str, str]]) -> None:
    """Proposals as the learning worker leaves them: (sessionID, client, category, text)."""
    from memevo.core.clock import SystemClock
    from memevo.core.learning import jobs, resolve
    from memevo.core.store.database import Store

    store, now = Store.open(), SystemClock().now_ms()
    try:
        for job_id, client, category, text in proposals:
            assert jobs.create(store, job_id, client, "s1", None, f"记住：{text}", now)
            proposal = {"text": text, "category": category, "action": "create"}
            jobs.update(
                store, job_id, now, status="ready", proposal=proposal | {"options": resolve.options(proposal)}
            )
    finally:
        store.close()


def test_a_waiting_proposal_is_answered_from_the_terminal(run_cli) -> None:
    """Without the tray (or beside it) a proposal was only listed; `memevo pending accept|discard`
    answers it, exactly once, whichever client it came from."""
    _waiting(
        [
            ("a1b2c3d4" + "0" * 24, "cursor", "rule", "提交前先跑一遍单元测试"),
            ("a1b2ffff" + "0" * 24, "claude", "rule", "回答问题时一律使用中文"),
            ("0f0f0f0f" + "0" * 24, "codebuddy", "rule", "发布只在周二和周四下午"),
        ]
    )
    listed = run_cli("pending")
    assert listed.returncode == 0 and "memevo pending accept|discard SESSIONID" in listed.stdout
    ambiguous = run_cli("pending", "accept", "a1b2")
    assert ambiguous.returncode != 0 and "names 2 waiting proposals" in ambiguous.stderr
    accepted = run_cli("pending", "accept", "a1b2c3")
    assert accepted.returncode == 0, accepted.stderr
    assert "归类：rule" in accepted.stdout
    as_fact = run_cli("pending", "accept", "0F0F0F0F", "--as", "create_project", "--json")
    assert json.loads(as_fact.stdout)["memory"]["category"] == "project"
    discarded = run_cli("pending", "discard", "a1b2ff")
    assert discarded.returncode == 0 and "没有写入" in discarded.stdout
    again = run_cli("pending", "accept", "a1b2c3")
    assert again.returncode != 0 and "no waiting proposal" in again.stderr
    assert run_cli("pending", "accept").returncode != 0  # no sessionID: a clear refusal
    rules = [m["text"] for m in cli_json(run_cli("read", "rule", "--json"))["memories"]]
    facts = [m["text"] for m in cli_json(run_cli("read", "project", "--json"))["memories"]]
    assert rules == ["提交前先跑一遍单元测试"] and facts == ["发布只在周二和周四下午"]
    assert json.loads(run_cli("pending", "--json").stdout) == {"pending": []}


def test_output_cut_short_by_the_reader_is_not_an_error(run_cli, data_dir: Path) -> None:
    for i in range(30):
        assert run_cli("rule", "add", f"第 {i} 条：提交前先跑一遍单元测试").returncode == 0
    reader = subprocess.Popen(
        [sys.executable, "-m", "memevo.cli", "read", "rule", "--all"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ,
        bufsize=0,
    )
    assert reader.stdout is not None
    reader.stdout.read(10)  # `| head -c 10`
    reader.stdout.close()
    _, err = reader.communicate(timeout=HANG_S)
    assert b"internal error" not in err and b"Broken pipe" not in err, err


def test_model_service_and_config_print_plain_values(run_cli, provisioned_model) -> None:
    model = run_cli("model")
    assert model.returncode == 0, model.stderr
    assert "True" not in model.stdout and "{'" not in model.stdout
    assert "ready" in model.stdout and "yes" in model.stdout
    assert "lexical_weight 0.4, rule 0.43, project 0.44" in model.stdout  # the hybrid gate recall uses
    assert "rule 0.47, project 0.54" in model.stdout  # the cosine alone's, with recallLexicalWeight 0
    config = run_cli("config").stdout
    assert "recallMinScore         0.43  (the model's calibrated default)" in config
    assert "recallLexicalWeight    0.4  (the model's calibrated default)" in config
    assert "(model default)" not in config
    status = run_cli("service", "status").stdout
    assert "running            no" in status


def test_counts_and_progress_read_as_sentences() -> None:
    import io

    from memevo.cli.main import _counts_text
    from memevo.core.encoder.progress import TerminalBar

    empty = {"rule": {"live": 0, "deprecated": 0}, "project": {"live": 1, "deprecated": 2}}
    assert _counts_text(empty) == "0 rules, 1 project fact (+2 deprecated)"

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = TerminalBar(stream)
    bar.stage("Downloading the offline pack from the package index")
    bar.update(5, 10)
    bar.stage("Encoding known sentences")
    stream.write("memevo 0.1.0\n")  # whatever prints next starts on its own line
    lines = stream.getvalue().split("\n")
    assert lines[0] == "Downloading the offline pack from the package index"
    assert lines[-2] == "memevo 0.1.0" and lines[-3] == "Encoding known sentences"


@pytest.mark.parametrize(
    "words",
    [
        ["serve"],
        ["serve", "--wait-lock", "15"],
        ["serve", "--wait-lock=2.5", "--wait-lock", "1e1"],
        ["tray"],
        ["tray", "--self-test"],
        ["tray", "--wait-lock", "15", "--self-test"],
    ],
)
def test_serve_and_tray_pass_the_parser_with_the_arguments_it_would_give(words: list[str]) -> None:
    """The resident commands' short way (no parser, no other command's module) gives the
    handler and every argument the parser gives for the same words."""
    from memevo.cli.main import build_parser, resident_command

    resident = resident_command(words)
    assert resident is not None
    handler, args = resident
    parsed = build_parser().parse_args(words)
    assert handler is parsed.handler and vars(args) == vars(parsed)


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["service"],
        ["serve", "--help"],
        ["serve", "--wait", "15"],  # the parser's abbreviation
        ["serve", "--wait-lock"],
        ["serve", "--wait-lock", "x"],
        ["serve", "--wait-lock", "-1"],  # a negative number: the parser's rules decide
        ["serve", "--wait-lock="],
        ["serve", "--self-test"],
        ["serve", "--json"],
        ["serve", "extra"],
        ["serve", "--", "--wait-lock"],
        ["tray", "--self-test=1"],
    ],
)
def test_anything_else_goes_to_the_parser(words: list[str]) -> None:
    from memevo.cli.main import resident_command

    assert resident_command(words) is None


def test_a_write_the_service_applied_before_dying_is_reported_not_crashed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """kill -9 between the change's commit and its kept result: the retry finds the id with no
    result. Seen in CI as `internal error: 'memory'`; it must read as done, once."""
    from memevo.core import cli
    from memevo.core.ops import memory_ops as ops
    from memevo.core.service import client
    from memevo.core.store import applied
    from memevo.core.store.database import Store

    with Store.open() as store, store.transaction() as con:
        con.execute("INSERT INTO applied_requests (id, ts_ms) VALUES ('r1', 0)")
    first = ops.call_local(
        "add", {"category": "rule", "text": "回答问题时请一律使用中文", applied.PARAM: "r1"}
    )
    assert first["already_applied"] and "memory" not in first  # nothing written again
    assert json.loads(run_list(data_dir))["counts"]["rule"]["live"] == 0
    monkeypatch.setattr(client, "call_or_local", lambda op, params, **kw: first)
    assert cli.main(["rule", "add", "回答问题时请一律使用中文"]) == 0
    assert "it was not written twice" in capsys.readouterr().out


def run_list(data_dir: Path) -> str:
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", "list", "--json"],
        capture_output=True,
        text=True,
        env=os.environ | {"MEMEVO_HOME": str(data_dir)},
        timeout=HANG_S,
    ).stdout


def test_a_data_dir_that_is_a_file_is_said_before_anything_runs(run_cli, tmp_path: Path) -> None:
    """MEMEVO_HOME naming a file (or a folder below one) used to read as "0 memories" for
    `memevo list` and end in "internal error: Not a directory" for writes."""
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x", encoding="utf-8")
    for home in (a_file, a_file / "below"):
        for args in (("list",), ("rule", "add", "回答问题时请用中文"), ("service", "status")):
            result = run_cli(*args, env={"MEMEVO_HOME": str(home)})
            assert result.returncode == 1, (args, result.stdout)
            assert result.stdout == ""
            assert f"{a_file} is a file, not a folder" in result.stderr
            assert "point MEMEVO_HOME at a folder" in result.stderr and "internal error" not in result.stderr
    assert a_file.read_text(encoding="utf-8") == "x"


def test_here_outside_any_repository_is_refused_at_the_root_and_in_home(run_cli, tmp_path: Path) -> None:
    """`--here` / `scope ID here` from `/` or the home folder (no .git above) used to scope the
    memory to that folder: every session started there, or nowhere the user meant."""
    home = Path(os.environ["HOME"])
    for folder in (Path("/"), home):
        added = run_cli("rule", "add", "提交前先跑一遍测试", "--here", cwd=str(folder))
        assert added.returncode == 1 and "is not a repository" in added.stderr, added.stderr
        assert "nothing changed" in added.stderr
    assert "rule          0 live" in run_cli("list").stdout
    rule = json.loads(run_cli("rule", "add", "提交前先跑一遍测试", "--json").stdout)["memory"]
    moved = run_cli("scope", rule["id"], "here", cwd=str(home))
    assert moved.returncode == 1 and "is not a repository" in moved.stderr
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    moved = run_cli("scope", rule["id"], "here", cwd=str(repo / "src"))
    assert moved.returncode == 0 and f"only in {repo}" in moved.stdout
