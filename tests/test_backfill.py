"""`memevo backfill`: the user's own words in their clients' transcripts (tests/history.py writes
them in Claude Code's, the CodeBuddy Code CLI's and Cursor's formats) become candidates with
their evidence; nothing is kept without the user's yes; what was skipped or kept is not proposed
again, and a re-run reads only what is new."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
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


# -- the side model's wording (core/importers/improve.py) ---------------------------------------------
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _candidate(text: str, repos: list[str] | None = None) -> dict[str, Any]:
    return {
        "text": text,
        "category": "rule",
        "scope": "global",
        "sha": backfill.key_of(text),
        "source": "backfill",
        "evidence": {
            "sessions": 2,
            "first_day": "2026-10-01",
            "last_day": "2026-10-02",
            "repositories": repos or [],
            "clients": ["claude"],
            "words": [text, f"{text} again"],
            "why": ["said in 2 sessions"],
        },
    }


def _asked(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The candidates one request sent."""
    items: list[dict[str, Any]] = json.loads(body["messages"][1]["content"])
    return items


def _reworded(body: dict[str, Any]) -> tuple[str, Any]:
    """A side model that rewords every candidate it is sent."""
    return (
        "json",
        {
            "items": [
                {"id": i["id"], "text": f"Reworded: {i['text'][:80]}", "group": "rule"} for i in _asked(body)
            ]
        },
    )


@contextmanager
def side_api_answering(answer: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A real local OpenAI-compatible server as the user's side API, answering with `answer`."""
    from fake_openai import FakeOpenAI
    from memevo.core import config as config_mod

    server = FakeOpenAI(answer)
    monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-test-local-only-0000000000")
    monkeypatch.setenv("MEMEVO_SIDE_TIMEOUT_S", "5")
    config_mod.set_key("sideApiBase", server.base)
    config_mod.set_key("sideApiModel", "fake-model")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def side_api(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with side_api_answering(_reworded, monkeypatch) as server:
        yield server


def test_the_side_model_rewords_within_the_cap_and_never_sees_a_secret(
    side_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.importers import improve

    monkeypatch.setattr(improve, "MAX_CALLS", 2)
    found = [_candidate(f"Always run the linter number {n} before pushing") for n in range(25)]
    found[0] = _candidate(f"Deploy with the token {SECRET} from now on", ["github.com/ann/shop"])
    found[0]["evidence"]["words"].append(f"the deploy token is {SECRET}")
    planned = improve.plan(len(found))
    assert (planned.calls, planned.covered) == (2, 20)  # the cap, known before any call
    assert side_api.requests == []
    answers = iter(
        [
            (
                "json",
                {
                    "items": [
                        {"id": 1, "text": "Deploy with the deploy token", "group": "project"},
                        {"id": 2, "text": "a fine text", "group": "preference"},  # not a group
                        {"id": 3, "text": "  ", "group": "rule"},  # empty
                        {"id": 4, "text": "x" * 500, "group": "rule"},  # too long
                        {"id": 5, "text": "use the key [已隐去] always", "group": "rule"},  # a hidden secret
                        {"id": 99, "text": "no such candidate here", "group": "rule"},
                        {"id": 6, "text": "Run the linter before every push", "group": "rule"},
                    ]
                },
            ),
            ("text", "I would rather not answer in JSON"),  # the whole batch stays as it was
        ]
    )
    side_api.script = lambda body: next(answers)
    steps: list[tuple[int, int]] = []
    report = improve.improve(found, planned, lambda done, calls: steps.append((done, calls)))
    assert report == {"calls": 2, "improved": 2, "stopped": None}
    assert len(side_api.requests) == 2 and steps == [(0, 2), (1, 2)]
    sent = json.dumps(side_api.requests, ensure_ascii=False)
    assert SECRET not in sent and "[已隐去]" in sent  # redacted before it left, text and words alike
    assert found[0]["improved"] == {
        "text": "Deploy with the deploy token",
        "category": "project",
        "scope": "github.com/ann/shop",
    }
    assert found[5]["improved"]["text"] == "Run the linter before every push"
    assert [i for i, c in enumerate(found) if "improved" in c] == [0, 5]  # every bad answer: unchanged
    assert all(len(_asked(body)) == 10 for body in side_api.requests)
    # the review shows the improved wording and can go back to the one found
    item = improve.proposed(found[5])
    assert item["text"] == "Run the linter before every push" and item["sha"] == found[5]["sha"]
    assert improve.other_wording(item) and item["text"] == found[5]["text"]
    assert backfill.reworded([improve.proposed(found[5]), found[6]]) == [found[5]["sha"]]


def test_a_failing_side_api_stops_the_pass_and_keeps_the_candidates(side_api: Any) -> None:
    from memevo.core.importers import improve

    found = [_candidate(f"Never force-push to branch number {n}") for n in range(15)]
    side_api.script = [("status", 500)]
    report = improve.improve(found, improve.plan(len(found)))
    assert report["calls"] == 1 and "HTTP 500" in report["stopped"]
    assert not any("improved" in c for c in found)


def test_improve_on_the_command_line_asks_first_and_json_writes_nothing(
    user_home: Path, side_api: Any, run_cli: Any, provisioned_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.importers import improve

    declined = run_cli("backfill", "--json", "--improve", input="n\n")
    assert declined.returncode == 0, declined.stderr
    assert "takes 2 calls to your side API" in declined.stderr and "Go on? [y/N]" in declined.stderr
    assert side_api.requests == []  # the count was shown, the answer was no: nothing sent
    found = json.loads(declined.stdout)["candidates"]
    assert not any("improved" in c for c in found)
    monkeypatch.setattr(improve, "MAX_CALLS", 1)
    result = run_cli("backfill", "--json", "--improve", input="y\n")
    assert result.returncode == 0, result.stderr
    assert "takes 1 call to your side API" in result.stderr
    report = json.loads(result.stdout)  # stdout is the JSON alone: the question went to stderr
    assert len(side_api.requests) == 1 and report["improvement"]["calls"] == 1
    improved = [c for c in report["candidates"] if "improved" in c]
    assert len(improved) == 10 and improved[0]["improved"]["text"] == f"Reworded: {improved[0]['text'][:80]}"
    assert [c["text"] for c in report["candidates"]] == [c["text"] for c in found]  # the found wording stays
    assert not backfill.state_path().exists()  # --json writes nothing, with --improve too
    counts = json.loads(run_cli("list", "--json").stdout)["counts"]
    assert counts["rule"]["live"] == counts["project"]["live"] == 0
    # the call was counted in the day's side API calls, as learning's are: with the limit at 1,
    # the next improvement stops before sending anything
    from memevo.core import config as config_mod

    config_mod.set_key("sideDailyLimit", 1)
    limited = run_cli("backfill", "--json", "--improve", "--yes")
    assert limited.returncode == 0, limited.stderr
    assert len(side_api.requests) == 1 and improve.DAILY_LIMIT in limited.stderr
    assert json.loads(limited.stdout)["improvement"]["calls"] == 0


def test_the_review_keeps_the_improved_wording_and_the_found_one_is_not_proposed_again(
    user_home: Path, side_api: Any, run_cli: Any, provisioned_model: Any
) -> None:
    first = json.loads(run_cli("backfill", "--json").stdout)["candidates"]
    # the first in the side model's words; the second back in the words found (o), then stop
    reviewed = run_cli("backfill", "--review", "--improve", "--yes", input="a\no\na\nq\n")
    assert reviewed.returncode == 0, reviewed.stderr
    assert "Go on?" not in reviewed.stderr and "improved: rule Reworded" in reviewed.stdout
    texts = {m["text"] for m in json.loads(run_cli("read", "rule", "--all", "--json").stdout)["memories"]}
    texts |= {m["text"] for m in json.loads(run_cli("read", "project", "--all", "--json").stdout)["memories"]}
    assert f"Reworded: {first[0]['text'][:80]}" in texts and first[0]["text"] not in texts
    assert first[1]["text"] in texts
    again = {c["sha"] for c in json.loads(run_cli("backfill", "--json").stdout)["candidates"]}
    assert first[0]["sha"] not in again and first[1]["sha"] not in again


def test_without_a_side_api_the_candidates_stand_as_found(
    user_home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)
    result = run_cli("backfill", "--json", "--improve")
    assert result.returncode == 0, result.stderr
    assert "no side API is configured" in result.stderr and "memevo config sideApiBase" in result.stderr
    report = json.loads(result.stdout)
    assert report["candidates"] and not any("improved" in c for c in report["candidates"])
    assert report["improvement"]["calls"] == 0
