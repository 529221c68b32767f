"""`memevo backfill`: the user's own words in their clients' transcripts (tests/history.py writes
them in Claude Code's, the CodeBuddy Code CLI's and Cursor's formats) become candidates with
their evidence; nothing is kept without the user's yes; what was skipped or kept is not proposed
again, and a re-run reads only what is new."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import history
import pytest
from memevo.core.importers import backfill, transcripts


@pytest.fixture
def user_home(isolated_home: Path) -> Path:
    home = Path(os.environ["HOME"])
    history.realistic(home, history.make_repos(home))
    return home


def _found(candidates: list[dict[str, Any]], *needles: str) -> bool:
    return any(all(n.lower() in c["text"].lower() for n in needles) for c in candidates)


KNOWN_BY = history.KNOWN_BY


def test_only_the_users_own_typing_is_read(user_home: Path) -> None:
    prompts, files = transcripts.read_all(user_home)
    assert len(files) == 36 and {p.client for p in prompts} == {"claude", "codebuddy", "cursor"}
    texts = [p.text for p in prompts]
    assert history.ASSISTANT not in texts  # the assistant's words, and tool results that repeat them
    assert not any(
        t.startswith(("<command-name>", "<local-command", "Stop hook:", "<user_query>")) for t in texts
    )
    assert not any("<timestamp>" in t for t in texts)  # Cursor's words without its wrapping
    sidechain = [p for p in prompts if p.client == "claude" and p.text == "以后回答都用中文。"]
    assert len(sidechain) <= history.PREFERENCES[0][1].count(
        "以后回答都用中文。"
    )  # the subagent's row is not read
    shop = [p for p in prompts if p.client == "claude" and p.cwd and p.cwd.endswith("shop")]
    assert shop and transcripts.repo_of(shop[0].cwd) == "github.com/ann/shop"


def test_a_store_that_leads_outside_itself_is_not_followed(isolated_home: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    outside = tmp_path / "elsewhere" / "private.jsonl"
    outside.parent.mkdir()
    outside.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "以后都用中文回答"}}) + "\n"
    )
    folder = home / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").symlink_to(outside)
    assert transcripts.session_files(home) == []


def test_candidates_carry_evidence_and_nothing_is_written(
    user_home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any
) -> None:
    result = run_cli("backfill", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    found = report["candidates"]
    assert report["sessions"] == 36
    kept = [names for names in KNOWN_BY if _found(found, *names)]
    assert len(kept) >= 7, [c["text"] for c in found]  # the figure itself: docs and the notes
    assert _found(found, "pay_new_flow_v2")
    fact = next(c for c in found if "pay_new_flow_v2" in c["text"])
    assert fact["category"] == "project" and fact["scope"] == "github.com/ann/shop"
    noise = [
        c for c in found if not any(_found([c], *names) for names in [*KNOWN_BY, ("pay_new",), ("staging",)])
    ]
    assert len(noise) <= 2, [c["text"] for c in noise]  # one-off tasks said again are not proposed
    for c in found:
        assert (
            c["evidence"]["words"]
            and c["evidence"]["why"]
            and c["evidence"]["first_day"] <= c["evidence"]["last_day"]
        )
        assert "ghp_" not in json.dumps(c) and "[已隐去]" not in c["text"]
    assert not backfill.state_path().exists()  # --json writes nothing
    counts = json.loads(run_cli("list", "--json").stdout)["counts"]
    assert counts["rule"]["live"] == counts["project"]["live"] == 0  # nothing kept without a yes


def test_review_keeps_only_what_the_user_accepts_and_skipped_ones_never_come_back(
    user_home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any
) -> None:
    first = json.loads(run_cli("backfill", "--json").stdout)["candidates"]
    # accept the first, regroup and accept the second, skip the third, then stop
    answers = "a\ng\na\ns\nq\n"
    reviewed = run_cli("backfill", "--review", input=answers)
    assert reviewed.returncode == 0, reviewed.stderr
    assert "kept 2" in reviewed.stdout and "skipped 1" in reviewed.stdout
    texts = {
        m["text"]
        for category in ("rule", "project")
        for m in json.loads(run_cli("read", category, "--all", "--json").stdout)["memories"]
    }
    assert first[0]["text"] in texts and first[1]["text"] in texts and first[2]["text"] not in texts
    again = json.loads(run_cli("backfill", "--json").stdout)["candidates"]
    shown_again = {c["text"] for c in again}
    assert first[0]["text"] not in shown_again and first[1]["text"] not in shown_again  # kept: memories now
    assert first[2]["text"] not in shown_again  # skipped: never again
    assert first[3]["text"] in shown_again  # not answered (the user stopped): proposed again


def test_after_a_whole_review_a_rerun_reads_only_what_is_new(
    user_home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any
) -> None:
    found = json.loads(run_cli("backfill", "--json").stdout)["candidates"]
    assert run_cli("backfill", "--review", input="s\n" * len(found)).returncode == 0
    nothing = run_cli("backfill")
    assert "nothing new" in nothing.stdout
    repo = user_home / "code" / "blog"
    history.write_claude(
        user_home, repo, "new-session", "2026-12-01", ["以后日志里不要打印用户的手机号。", "fix this test"]
    )
    history.write_claude(user_home, repo, "new-session-2", "2026-12-02", ["记住：日志里不要打印用户的手机号"])
    fresh = json.loads(run_cli("backfill", "--json").stdout)
    assert fresh["sessions"] == 2 and _found(fresh["candidates"], "手机号")


def test_a_repository_memevo_is_off_in_is_not_read(
    user_home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any
) -> None:
    assert run_cli("off", "github.com/ann/shop").returncode == 0
    found = json.loads(run_cli("backfill", "--json").stdout)["candidates"]
    assert not _found(found, "pay_new_flow_v2") and not any(
        "github.com/ann/shop" in c["evidence"]["repositories"] for c in found
    )
    assert _found(found, "pnpm")  # what was said elsewhere still is
