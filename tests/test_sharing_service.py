"""A repository's shared facts reach a second data dir through the repository's file and are
recalled there: real git, a teammate's `memevo share`, and the other teammate's running `memevo
serve` reading .memevo/facts.md when a session starts in their own clone (another folder, the same
remote) once they trust its content — then the hook's recall injects the fact there, under the
repository's own heading (not as the user's words), and not in another repository. A change pulled
mid-session waits for the user's review, and is recalled once trusted."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import servicerun
from clirun import in_process
from deadlines import HANG_S
from gitrepo import bare_remote, git
from hookrun import run_hook
from memevo.core.service import texts
from memevo.core.sharing import facts as sharing

pytestmark = pytest.mark.usefixtures("provisioned_model")

FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"
PROMPT = "支付页新流程要在测试环境打开，开关叫什么来着"


def _context(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def test_a_shared_fact_is_recalled_in_the_teammates_clone(tmp_path: Path, data_dir: Path) -> None:
    remote = bare_remote(tmp_path)
    alice, bob = tmp_path / "alice" / "shop", tmp_path / "bob" / "work" / "shop"
    for clone in (alice, bob):
        clone.parent.mkdir(parents=True)
        git(tmp_path, "clone", "-q", str(remote), str(clone))
    other = tmp_path / "bob" / "other"
    other.mkdir()
    git(other, "init", "-q")

    alice_env = {"MEMEVO_HOME": str(tmp_path / "alice" / "home"), "MEMEVO_NO_SERVICE": "1"}
    assert in_process("project", "add", FACT, "--here", env=alice_env, cwd=alice).returncode == 0
    assert in_process("share", "--all", env=alice_env, cwd=alice).returncode == 0
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "share the flag")
    git(alice, "push", "-q", "origin", "HEAD")
    git(bob, "pull", "-q", "origin", "main")
    assert (bob / sharing.FILE).is_file()

    bob_home = tmp_path / "bob" / "home"
    bob_home.mkdir()
    with servicerun.service(bob_home):
        env = {"MEMEVO_HOME": str(bob_home)}

        def recalled(cwd: Path, prompt_id: str) -> str:
            payload = {"session_id": "b", "prompt_id": prompt_id, "prompt": PROMPT, "cwd": str(cwd)}
            return _context(
                run_hook("claude", "UserPromptSubmit", json.dumps(payload, ensure_ascii=False), env)
            )

        def share(*args: str) -> subprocess.CompletedProcess[str]:
            done = in_process("share", *args, env=env, cwd=bob)
            assert done.returncode == 0, done.stderr
            return done

        def until(check: Callable[[], bool]) -> None:
            deadline = time.monotonic() + HANG_S
            while not check() and time.monotonic() < deadline:
                time.sleep(0.2)
            assert check()

        assert FACT not in recalled(bob, "before")  # nothing read before a session starts there
        start = {"session_id": "b", "source": "startup", "cwd": str(bob / "src")}
        _context(run_hook("claude", "SessionStart", json.dumps(start), env))
        # a teammate's file: read only once Bob trusts it; until then it waits for his review
        until(lambda: bool(json.loads(share("--json").stdout)["waiting_review"]))
        # the chat hears of it once (a user with no tray too), never its untrusted facts
        heard: list[str] = []

        def told() -> bool:  # asked again once true (until's last check): no more prompts then
            if not any("memevo share --review" in seen for seen in heard):
                heard.append(recalled(bob, f"untrusted-{len(heard)}"))
            return "memevo share --review" in heard[-1]

        until(told)
        assert not any(FACT in seen for seen in heard)
        assert "memevo share --review" not in recalled(bob, "told-again")
        review = share("--review").stdout  # not a terminal: printed, with how to trust it
        assert FACT in review and "memevo share --trust" in review
        share("--trust")
        n = 0

        def prompt(tag: str) -> str:
            nonlocal n
            n += 1
            return recalled(bob, f"{tag}-{n}")

        until(lambda: FACT in prompt("after"))
        seen = prompt("after")
        # the repository's words, under a heading that says so; not among the user's facts
        assert f"{texts.SHARED_TITLE}\n- {FACT}" in seen and "【项目事实】" not in seen
        assert FACT not in recalled(other, "other")  # another repository's sessions do not get it

        # Mid-session the teammate changes the fact and bob pulls: the next prompts stat the
        # file; the change waits for Bob's review (the old text is recalled meanwhile), and is
        # recalled once he trusts it
        changed = FACT.replace("pay_new_flow_v2", "pay_new_flow_v3")
        facts = alice / sharing.FILE
        facts.write_text(facts.read_text(encoding="utf-8").replace(FACT, changed), encoding="utf-8")
        git(alice, "commit", "-q", "-am", "the flag was renamed")
        git(alice, "push", "-q", "origin", "HEAD")
        git(bob, "pull", "-q", "origin", "main")
        recalled(bob, "stat")  # the prompt stats the file after its answer
        until(lambda: bool(json.loads(share("--json").stdout)["waiting_review"]))
        seen = prompt("waiting")
        assert FACT in seen and changed not in seen
        review = share("--review").stdout
        assert f"- {FACT}" in review and f"+ {changed}" in review
        share("--trust")
        until(lambda: changed in prompt("pulled"))
        seen = prompt("pulled")
        assert changed in seen and FACT not in seen


def test_a_trusted_file_pulled_while_no_service_ran_is_seen_when_the_service_comes_up(
    tmp_path: Path, data_dir: Path
) -> None:
    """The session start that starts the service is answered from the cache and never reaches
    it: a trusted repository's file that a pull changed while no service ran is looked at when
    the service's model is up — with no session, prompt or command in that repository — so the
    change is waiting for the user's review (the tray says so) before they work there."""
    import os

    from memevo.core.service import client

    shop = tmp_path / "shop"
    shop.mkdir()
    git(shop, "init", "-q")
    (shop / ".memevo").mkdir()
    facts = shop / sharing.FILE
    facts.write_text(
        "# Project facts\n\n- 部署前先跑 make check-release <!-- memevo:a1 -->\n", encoding="utf-8"
    )
    assert in_process("share", "--trust", env={"MEMEVO_NO_SERVICE": "1"}, cwd=shop).returncode == 0
    facts.write_text(facts.read_text(encoding="utf-8") + f"- {FACT} <!-- memevo:a2 -->\n", encoding="utf-8")

    def waiting() -> list[str]:
        previous = os.environ.get("MEMEVO_HOME")
        os.environ["MEMEVO_HOME"] = str(data_dir)
        try:
            return [w["folder"] for w in client.call("share_waiting", {}, timeout_s=5)["waiting"]]
        finally:
            if previous is None:
                os.environ.pop("MEMEVO_HOME", None)
            else:
                os.environ["MEMEVO_HOME"] = previous

    with servicerun.service(data_dir):
        deadline = time.monotonic() + HANG_S
        while str(shop) not in waiting() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert waiting() == [str(shop)]
