"""Issue 17: pins, budgets, history, scopes, search and import — against real stores and processes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from clijson import cli_json
from memevo.core import config as config_mod
from memevo.core import maintenance, memories, snapshot
from memevo.core.clock import FakeClock
from memevo.core.store import Store


def _run_day(store: Store, clock: FakeClock) -> maintenance.Report | None:
    return maintenance.run_if_due(store, clock, config_mod.load())


# -- pins --------------------------------------------------------------------------------------
def test_a_pinned_memory_never_decays_nor_is_deprecated(store: Store, clock: FakeClock) -> None:
    pinned = memories.create(store, "rule", "always answer in Chinese", clock)
    loose = memories.create(store, "rule", "an idle memory that decays", clock)
    memories.set_pinned(store, pinned.id, True, clock)
    for _ in range(200):
        clock.advance(days=1)
        _run_day(store, clock)
    kept = memories.get(store, pinned.id)
    assert (kept.confidence, kept.deprecated, kept.pinned) == (50, False, True)
    assert memories.get(store, loose.id).deprecated


def test_pinning_revives_a_deprecated_memory_and_awards_still_raise_it(
    store: Store, clock: FakeClock
) -> None:
    m = memories.create(store, "project", "the staging host is stage.example.com", clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 30, deprecated = TRUE WHERE id = ?", [m.id])
    assert not memories.set_pinned(store, m.id, True, clock).deprecated
    clock.advance(days=1)
    _run_day(store, clock)  # the low-confidence sweep leaves a pinned memory alone
    assert not memories.get(store, m.id).deprecated
    _, gained = memories.reinforce(store, m.id, clock)
    assert gained == 10 and memories.get(store, m.id).confidence == 40
    clock.advance(days=1)
    assert memories.award_recall(store, [m.id], clock) == {m.id: 5}
    memories.set_pinned(store, m.id, False, clock)
    with store.transaction() as con:
        con.execute("UPDATE memories SET confidence = 30 WHERE id = ?", [m.id])
    clock.advance(days=1)
    _run_day(store, clock)
    assert memories.get(store, m.id).deprecated  # unpinned: the usual rules again


def test_pin_survives_the_trash_and_purge_removes_it(store: Store, clock: FakeClock) -> None:
    from memevo.core import purge

    m = memories.create(store, "rule", "keep this one pinned", clock)
    memories.set_pinned(store, m.id, True, clock)
    memories.delete(store, [m.id], clock)
    assert memories.trash_list(store)[0].memory.pinned
    assert memories.restore(store, m.id).pinned
    purge.purge(store, m.id)
    assert store.query("SELECT count(*) FROM pins")[0][0] == 0


def test_pin_and_unpin_from_the_command_line(run_cli, data_dir: Path) -> None:
    added = cli_json(run_cli("rule", "add", "commit messages in English", "--json"))["memory"]
    assert added["pinned"] is False
    pinned = cli_json(run_cli("pin", added["id"], "--json"))["memory"]
    assert pinned["pinned"] is True
    listing = run_cli("read", "rule")
    assert "[pinned]" in listing.stdout
    assert cli_json(run_cli("read", "rule", "--json"))["memories"][0]["pinned"] is True
    with Store.open() as store:
        assert "已置顶" in snapshot.render(store)
    assert cli_json(run_cli("unpin", added["id"], "--json"))["memory"]["pinned"] is False
    missing = run_cli("pin", "nope")
    assert missing.returncode != 0 and "no memory with id nope" in missing.stderr


# -- injection budget ----------------------------------------------------------------------------
def test_recall_block_fits_its_budget_most_confident_first() -> None:
    from memevo.core.service import texts

    hits = [(f"id{i}", "rule" if i % 2 else "project", f"memory number {i} " + "x" * 300) for i in range(6)]
    kept, left_out = texts.fit_recall(hits, 1600)
    assert [i for i, _, _ in kept] == ["id0", "id1", "id2", "id3"] and left_out == 2
    block = texts.recall_block(
        [t for _, c, t in kept if c == "rule"], [t for _, c, t in kept if c != "rule"], left_out
    )
    assert len(block) <= 1600 and block.endswith(texts.recall_cut_note(2))
    assert texts.fit_recall(hits[:1], 1600) == (hits[:1], 0)


def test_session_start_text_is_stable_and_within_budget(store: Store, clock: FakeClock) -> None:
    from memevo.core.service import caches

    for i in range(40):
        memories.create(store, "rule", f"rule {i:02d}: " + "keep the code tidy and small " * 3, clock)
        clock.advance(minutes=1)
    low = memories.create(store, "rule", "the pinned rule that always comes first", clock)
    memories.set_pinned(store, low.id, True, clock)
    config = config_mod.load()
    first, ids = caches.session_start_text(store, config, False, "claude", 10_000)
    assert len(first) <= 2400 and "因篇幅未列出" in first and ids[0] == low.id
    clock.advance(days=3)
    memories.award_recall(store, [], clock)
    again, _ = caches.session_start_text(store, config, False, "claude", 9_000)
    assert again == first  # nothing in it depends on the time or the client's own cap
    with store.transaction() as con:  # a recall touching last_seen does not reorder ties
        con.execute("UPDATE memories SET last_seen_ms = last_seen_ms + 1000 WHERE id <> ?", [low.id])
    assert caches.session_start_text(store, config, False, "claude", 10_000)[0] == first


# -- history -------------------------------------------------------------------------------------
def test_replace_and_merge_keep_the_old_text_with_its_dates(store: Store, clock: FakeClock) -> None:
    m = memories.create(store, "project", "the test server is test1.example.com", clock)
    other = memories.create(store, "project", "the test server listens on 8080", clock)
    created = clock.now_ms()
    clock.advance(days=2)
    memories.replace_text(store, m.id, "the test server is test2.example.com", clock)
    replaced_at = clock.now_ms()
    clock.advance(days=1)
    memories.merge_manual(store, m.id, other.id, "the test server is test2.example.com:8080", clock)
    memories.replace_learned(store, m.id, "the test server is test3.example.com:8080", clock)
    current, versions = memories.history(store, m.id)
    assert current is not None and current.text == "the test server is test3.example.com:8080"
    assert [v.seq for v in versions] == [3, 2, 1]
    assert versions[-1].text == "the test server is test1.example.com"
    assert (versions[-1].valid_from_ms, versions[-1].valid_to_ms) == (created, replaced_at)
    assert versions[-2].valid_from_ms == replaced_at
    restored = memories.restore_version(store, m.id, 1, clock)
    assert restored.text == "the test server is test1.example.com"
    assert memories.history(store, m.id)[1][0].text == "the test server is test3.example.com:8080"


def test_history_and_restore_version_from_the_command_line_and_purge_removes_them(
    run_cli, data_dir: Path
) -> None:
    old, new = "deploy with the blue pipeline", "deploy with the green pipeline"
    memory = cli_json(run_cli("rule", "add", old, "--json"))["memory"]
    from memevo.core import ops

    ops.call_local("replace", {"id": memory["id"], "text": new})
    shown = cli_json(run_cli("history", memory["id"], "--json"))
    assert [v["text"] for v in shown["versions"]] == [old] and shown["memory"]["text"] == new
    assert "v1" in run_cli("history", memory["id"]).stdout
    back = cli_json(run_cli("restore-version", memory["id"], "1", "--json"))["memory"]
    assert back["text"] == old
    assert run_cli("restore-version", memory["id"], "9").returncode != 0
    assert run_cli("maintenance", "--force").returncode == 0  # a daily backup now holds both texts
    assert list((data_dir / "backups").rglob("*"))
    cli_json(run_cli("purge", memory["id"], "--yes", "--json"))
    for path in data_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert old.encode() not in data and new.encode() not in data, path


# -- import-notes --------------------------------------------------------------------------------
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
    from memevo.app import cli

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
