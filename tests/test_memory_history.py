"""A memory's history: replace and merge keep the old text with its dates and restore-version brings
one back, in the store and through `memevo history` / `restore-version`; purge leaves no version
behind, not even in the daily backups."""

from __future__ import annotations

from pathlib import Path

from clijson import cli_json
from memevo.core.clock import FakeClock
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.store.database import Store


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
    current, versions = memory_history.history(store, m.id)
    assert current is not None and current.text == "the test server is test3.example.com:8080"
    assert [v.seq for v in versions] == [3, 2, 1]
    assert versions[-1].text == "the test server is test1.example.com"
    assert (versions[-1].valid_from_ms, versions[-1].valid_to_ms) == (created, replaced_at)
    assert versions[-2].valid_from_ms == replaced_at
    restored = memory_history.restore_version(store, m.id, 1, clock)
    assert restored.text == "the test server is test1.example.com"
    assert memory_history.history(store, m.id)[1][0].text == "the test server is test3.example.com:8080"


def test_history_and_restore_version_from_the_command_line_and_purge_removes_them(
    run_cli, data_dir: Path
) -> None:
    old, new = "deploy with the blue pipeline", "deploy with the green pipeline"
    memory = cli_json(run_cli("rule", "add", old, "--json"))["memory"]
    from memevo.core.ops import memory_ops as ops

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
