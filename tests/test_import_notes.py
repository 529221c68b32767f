"""`memevo import-notes`: the notes a user already keeps (~/.claude/CLAUDE.md, a repository's
AGENTS.md and Cursor rules) split into rules and the repository's facts, imported once, the sources
never changed; in a terminal, asked one by one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from clijson import cli_json
from memevo.core.memories import live as memories
from memevo.core.store.database import Store

NOTES = """# Project guide

Always run `make lint` before pushing.
The staging server is staging.internal.example.com. It restarts nightly.

```bash
rm -rf build
```

- 提交信息一律用英文
- The billing service lives in services/billing
| a | table |
"""


def test_import_notes_splits_proposes_and_never_imports_twice(
    run_cli, isolated_home: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text("- Reply in Chinese, always.\n", encoding="utf-8")
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(NOTES, encoding="utf-8")
    (repo / ".cursor" / "rules").mkdir(parents=True)
    (repo / ".cursor" / "rules" / "style.mdc").write_text(
        "---\ndescription: style\nglobs: '*.py'\n---\nNever use bare except clauses in Python code.\n",
        encoding="utf-8",
    )
    before = {p: p.read_bytes() for p in (repo / "AGENTS.md", home / ".claude" / "CLAUDE.md")}
    listed = cli_json(run_cli("import-notes", "--dry-run", "--json", cwd=repo))["candidates"]
    got = {c["text"]: (c["category"], c["scope"]) for c in listed}
    assert got == {
        "Reply in Chinese, always.": ("rule", "global"),
        "Always run make lint before pushing.": ("rule", "global"),
        "The staging server is staging.internal.example.com.": ("project", str(repo)),
        "It restarts nightly.": ("project", str(repo)),
        "提交信息一律用英文": ("rule", "global"),
        "The billing service lives in services/billing": ("project", str(repo)),
        "Never use bare except clauses in Python code.": ("rule", "global"),
    }
    refused = run_cli("import-notes", cwd=repo, stdin=subprocess.DEVNULL)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    done = cli_json(run_cli("import-notes", "--yes", "--json", cwd=repo))
    assert len(done["imported"]) == 7
    facts = cli_json(run_cli("read", "project", "--json"))["memories"]
    assert {m["scope"] for m in facts} == {str(repo)}
    rule_id = next(m["id"] for m in cli_json(run_cli("read", "rule", "--json"))["memories"])
    run_cli("delete", rule_id)
    again = run_cli("import-notes", "--yes", cwd=repo)
    assert "nothing new to import" in again.stdout  # deleted after import: stays deleted
    assert {p: p.read_bytes() for p in before} == before  # the sources are never changed


def test_import_notes_asks_per_candidate_in_a_terminal(data_dir: Path, tmp_path: Path, monkeypatch) -> None:
    from memevo.cli import main as cli

    repo = tmp_path / "app"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text(
        "- Use pnpm, never npm, in this repository.\n- The API docs are at docs/api.md\n- Deploys run on Fridays only\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(repo)
    answers = iter(["n", "r", "x", "y"])
    monkeypatch.setattr("builtins.input", lambda _prompt: next(answers))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setenv("MEMEVO_NO_SERVICE", "1")
    assert cli.main(["import-notes"]) == 0
    with Store.open() as store:
        rules = [m.text for m in memories.ranked(store, "rule")]
        facts = [(m.text, m.scope) for m in memories.ranked(store, "project")]
    assert rules == ["The API docs are at docs/api.md"]  # r: as a rule, whatever was proposed
    assert facts == [("Deploys run on Fridays only", str(repo))]
