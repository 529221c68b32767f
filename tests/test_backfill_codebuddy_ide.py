"""`memevo backfill` reads the CodeBuddy IDE's and its plugin's conversation folders
(core/importers/codebuddy_ide.py; tests/history.py writes them as the IDE does): only the user's
words, without the IDE's wrapping; files that are not what their place says are skipped and the
rest still counts; nothing is followed out of the store; the workspace, known by its folder's
md5, names the repository when another client's session ran there."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import history
import pytest
from memevo.core.importers import codebuddy_ide, transcripts

PREFERENCE = "提交信息一律用英文写。"


@pytest.fixture
def home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
    return Path(os.environ["HOME"])


def _ide(home: Path) -> list[transcripts.Prompt]:
    prompts, _ = transcripts.read_all(home)
    return [p for p in prompts if p.client == "codebuddy"]


def test_only_the_users_words_are_read_without_the_ides_wrapping(home: Path) -> None:
    said = ["Never put emojis in your replies.", "以后回答都用中文。\n第二行也是我说的"]
    folder = history.write_codebuddy_ide(home, "/work/proj", "s1", "2026-10-05", said)
    prompts = _ide(home)
    assert [p.text for p in prompts] == said  # the assistant's messages and the tool result: not read
    assert {(p.session, p.day, p.cwd) for p in prompts} == {(folder.name, "2026-10-05", None)}
    files = transcripts.session_files(home)
    assert files == [("codebuddy", folder)]
    assert transcripts.signature(folder) != ""


def test_the_ides_blocks_are_dropped_and_its_own_continuations_are_not_the_users() -> None:
    clean = codebuddy_ide.clean
    assert clean("<user_info>a</user_info>\n<user_query>\nhi there\n</user_query>") == "hi there"
    assert clean("<user_query>one</user_query> and <user_query>two</user_query>") == "one\ntwo"
    assert clean("<system_reminder>x</system_reminder>typed <user_info_x>kept</user_info_x>") == (
        "typed <user_info_x>kept</user_info_x>"
    )
    assert clean("mine\n<additional_data>\n<currently_opened_file>f") == "mine"  # unclosed: to the end
    assert clean("<project_context>only the IDE's</project_context>") == ""


def test_a_question_answer_and_memevos_own_words_are_not_taken(home: Path) -> None:
    from memevo.hooks.clients.base import CONFIRM_MARKER

    not_typed = [
        "<question_answer>Yes</question_answer>",  # the IDE's echo of an answer picked
        "Stop hook: 以后回答都用中文",
        "/compact",
        f"{CONFIRM_MARKER} remember that replies are in Chinese?",
    ]
    history.write_codebuddy_ide(home, "/work/proj", "s1", "2026-10-05", [*not_typed, "my own words here"])
    assert [p.text for p in _ide(home)] == ["my own words here"]


def _message(folder: Path, ident: str, record: Any, role: str = "user") -> None:
    index = json.loads((folder / "index.json").read_text())
    index["messages"].append({"id": ident, "role": role, "type": "normal"})
    (folder / "index.json").write_text(json.dumps(index))
    body = record if isinstance(record, str) else json.dumps(record)
    (folder / "messages" / f"{ident}.json").write_text(body)


def test_malformed_files_are_skipped_and_the_rest_still_counts(home: Path) -> None:
    folder = history.write_codebuddy_ide(home, "/work/proj", "s1", "2026-10-05", ["the first words I typed"])
    _message(folder, "notjson", "{not json")
    _message(folder, "inner", {"role": "user", "message": "{not json either"})
    _message(folder, "list", ["a", "list"])
    _message(
        folder, "assistant", {"role": "assistant", "message": json.dumps({"content": "said as the user"})}
    )
    _message(folder, "liar", {"role": "assistant", "message": json.dumps({"content": "the index said user"})})
    _message(folder, "missing", {"role": "user"})
    (folder / "messages" / "missing.json").unlink()
    big = "x" * (codebuddy_ide.MAX_MESSAGE_BYTES + 10)
    _message(folder, "big", {"role": "user", "message": json.dumps({"content": big})})
    index = json.loads((folder / "index.json").read_text())
    index["messages"] += [{"id": "../../escape", "role": "user"}, "no dict", {"role": "user"}]
    (folder / "index.json").write_text(json.dumps(index))
    _message(folder, "last", {"role": "user", "message": json.dumps({"content": "and the last words typed"})})
    broken = history.write_codebuddy_ide(home, "/work/proj", "s2", "2026-10-06", ["lost with its index"])
    (broken / "index.json").write_text('{"messages": [')
    (broken.parent / "index.json").write_text("[]")  # the workspace's index too: days from the files
    noon = time.mktime((2026, 11, 20, 12, 0, 0, 0, 0, -1))
    os.utime(folder / "index.json", (noon, noon))
    prompts = _ide(home)
    assert [p.text for p in prompts] == ["the first words I typed", "and the last words typed"]
    assert {p.day for p in prompts} == {"2026-11-20"}  # no createdAt to read: the index file's day


def test_nothing_is_followed_out_of_the_store(home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    stray = history.write_codebuddy_ide(
        outside, "/work/proj", "s9", "2026-10-05", ["private words elsewhere"]
    )
    folder = history.write_codebuddy_ide(home, "/work/proj", "s1", "2026-10-05", ["my words in the store"])
    (folder.parent / "linked").symlink_to(stray)  # a conversation that is a link
    workspaces = folder.parent.parent
    (workspaces / hashlib.md5(b"/elsewhere").hexdigest()).symlink_to(stray.parent)  # a workspace
    (history.ide_data(home) / "linked-account").symlink_to(history.ide_data(outside) / "a1b2c3d4e5f6")
    _message(folder, "leak", "{}")
    (folder / "messages" / "leak.json").unlink()
    private = [f for f in (stray / "messages").iterdir() if "private words" in f.read_text()]
    (folder / "messages" / "leak.json").symlink_to(private[0])
    public = history.ide_data(home) / "Public"  # the login state: never entered
    history.write_codebuddy_ide(home, "/work/proj", "s3", "2026-10-05", ["never read"], data=public)
    assert [p.text for p in _ide(home)] == ["my words in the store"]
    assert transcripts.session_files(home) == [("codebuddy", folder)]


def test_the_workspace_md5_names_the_repository(home: Path) -> None:
    repos = history.make_repos(home)
    shop, blog = repos["shop"], repos["blog"]
    history.write_claude(home, shop / "src", "claude-1", "2026-10-01", ["fix the test in src"])
    history.write_codebuddy(home, blog, "cli-1", "2026-10-01", ["look at the blog"])
    history.write_codebuddy_ide(home, shop, "ide-shop", "2026-10-02", ["words said in the shop"])
    history.write_codebuddy_ide(
        home, blog, "ide-blog", "2026-10-02", ["words said in the blog"], client="VSCode"
    )
    history.write_codebuddy_ide(
        home, home / "code" / "other", "ide-x", "2026-10-02", ["words said elsewhere"]
    )
    prompts, files = transcripts.read_all(home)
    where = {p.text: p.cwd for p in prompts}
    assert where["words said in the shop"] == str(shop)  # the repository holding Claude's subfolder
    assert where["words said in the blog"] == str(blog)  # the plugin's history, the CLI's folder
    assert where["words said elsewhere"] is None  # no session ran there: no repository
    assert transcripts.repo_of(where["words said in the shop"]) == "github.com/ann/shop"
    # a re-run that reads only the new conversation still knows the folders of the sessions skipped
    history.write_codebuddy_ide(home, shop, "ide-shop-2", "2026-10-03", ["new words in the shop"])
    again, _ = transcripts.read_all(home, skip=files)
    assert [(p.text, p.cwd) for p in again] == [("new words in the shop", str(shop))]


def test_a_folder_only_memevo_knows_names_the_ide_workspace(home: Path, host: Any) -> None:
    """No other transcript ran in it, but memevo has seen the repository there (a hook's
    session, a command): the `repo_folders` operation gives it, and the IDE's session has it."""
    from memevo.core.repos import identity

    infra = history.make_repos(home)["infra"]
    history.write_codebuddy_ide(home, infra, "ide-infra", "2026-10-02", ["words said in infra"])
    with host.store.transaction() as con:
        identity.remember(con, "github.com/ann/infra", str(infra))
    known = host.handle("repo_folders", {})["folders"]
    assert known == [str(infra)]
    alone, _ = transcripts.read_all(home)
    assert [(p.text, p.cwd) for p in alone] == [("words said in infra", None)]
    helped, _ = transcripts.read_all(home, known=known)
    assert [(p.text, p.cwd) for p in helped] == [("words said in infra", str(infra))]
    assert transcripts.repo_of(str(infra)) == "github.com/ann/infra"


def test_the_data_folder_on_each_system(home: Path) -> None:
    def roots(platform: str, environ: dict[str, str] | None = None) -> list[Path]:
        return codebuddy_ide.data_roots(home, environ or {}, platform)

    data = Path("CodeBuddyExtension") / "Data"
    assert roots("darwin") == [home / "Library" / "Application Support" / data]
    assert roots("win32", {"LOCALAPPDATA": "/L", "APPDATA": "/R"}) == [Path("/L") / data, Path("/R") / data]
    assert roots("win32") == [home / "AppData" / "Local" / data, home / "AppData" / "Roaming" / data]
    assert roots("linux") == [
        home / ".local" / "share" / data,
        home / ".config" / data,
        home / ".codebuddy" / data,
    ]
    assert roots("linux", {"XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"})[1:3] == [
        Path("/d") / data,
        Path("/c") / data,
    ]
    # ~/.codebuddy holds the CLI's files: only this layout is read there
    history.write_codebuddy_ide(
        home, "/w", "s1", "2026-10-05", ["under the CLI's folder"], data=home / ".codebuddy" / data
    )
    loose = home / ".codebuddy" / "history" / hashlib.md5(b"/w").hexdigest()
    (loose / "c1" / "messages").mkdir(parents=True)
    (loose / "c1" / "index.json").write_text(json.dumps({"messages": [{"id": "m", "role": "user"}]}))
    (loose / "c1" / "messages" / "m.json").write_text(
        json.dumps({"role": "user", "message": json.dumps({"content": "in a loose history"})})
    )
    assert sorted(p.text for p in _ide(home)) == ["in a loose history", "under the CLI's folder"]


def test_a_preference_said_in_the_ide_and_claude_code_is_proposed_with_both_clients(
    home: Path, data_dir: Path, run_cli: Any, provisioned_model: Any
) -> None:
    shop = history.make_repos(home)["shop"]
    history.write_codebuddy_ide(home, shop, "ide-1", "2026-10-02", ["帮我看一下这个报错", PREFERENCE])
    history.write_codebuddy_ide(home, shop, "ide-2", "2026-10-09", ["以后提交信息一律用英文写。"])
    history.write_claude(
        home, shop, "claude-1", "2026-10-12", ["记住，提交信息一律用英文写。", "fix the test"]
    )
    result = run_cli("backfill", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["sessions"] == 3
    found = [c for c in report["candidates"] if "英文" in c["text"]]
    assert len(found) == 1, [c["text"] for c in report["candidates"]]
    evidence = found[0]["evidence"]
    assert evidence["sessions"] == 3 and evidence["clients"] == ["claude", "codebuddy"]
    assert evidence["repositories"] == ["github.com/ann/shop"]
    assert (evidence["first_day"], evidence["last_day"]) == ("2026-10-02", "2026-10-12")
    assert not any("<user_query>" in w or "user_info" in w for w in evidence["words"])
