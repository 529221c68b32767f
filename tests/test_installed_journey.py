"""README command 1, verbatim, in a fresh venv, then a new user's first steps with that copy.

A fresh virtual environment, a fresh HOME and MEMEVO_HOME, no display: the README's first
set-up command (read from README.md, so the two cannot drift) installs memevo as a wheel
(never editable) and runs `memevo`, which provisions the model the way a user's first run
does (no shared MEMEVO_MODELS_DIR) and says what is next. Then, with that installed copy:
`rule add`, `read rule --json`, `setup --only claude` into the fake home, and the SessionStart
and UserPromptSubmit commands setup registered, run as Claude Code runs them. Then, while the
service those hooks started runs, the security issue's attacks against that copy
(tests/installed_attacks.py, docs/security.md): a repository's git config, a stranger's facts
file, a sync remote's `..` tree, and a model confirming its own proposal or changing settings
and memories over MCP.

pip's cache is the repo's .cache/pip (or the machine's dev cache), so a rerun downloads nothing again (on this machine
pip reads local indexes, which it does not cache). torch is the README's pin (the CPU build
here); the test refuses a command without a pin and checks that no CUDA package came along.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import installed_attacks
import pytest
from deadlines import HANG_S

REPO = Path(__file__).resolve().parents[1]
RULE = "回答问题都用中文"
PROMPT = "你回答问题的时候用哪种语言？"  # related to RULE: recall brings the rule back
# Environment that belongs to the test run or to a desktop, not to a user's plain terminal.
DROPPED_PREFIXES = ("MEMEVO_", "MEMORY_", "QT_", "PYTEST_", "CLAUDE_", "CODEBUDDY_", "CURSOR_")
DROPPED = {"DISPLAY", "WAYLAND_DISPLAY", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}
DROPPED |= {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"}
# A terminal with no desktop has no session bus: the journey never reaches the suite's test
# keyring (a daemon it started once found that keyring locked for the tests after it).
DROPPED |= {"DBUS_SESSION_BUS_ADDRESS"}


def readme_set_up_commands() -> list[str]:
    """The commands of the README's "Set up" code block, comments left out."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "README's Set up section has no ```bash block"
    return [
        line.strip()
        for line in block.group(1).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_readme_set_up_is_two_commands_and_ci_runs_the_second() -> None:
    commands = readme_set_up_commands()
    assert len(commands) == 2, commands
    assert re.search(r"\btorch==\S+", commands[0]), (
        "command 1 must pin torch (a bare one can be a CUDA build)"
    )
    assert commands[1] in (REPO / ".ci" / "run").read_text(encoding="utf-8")


# -- running things as a user ------------------------------------------------------------------
def _tail(text: str | bytes | None, limit: int = 6000) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    return text if len(text) <= limit else "…" + text[-limit:]


def in_terminal(command: str, env: dict[str, str], cwd: Path, timeout: float) -> tuple[int, str]:
    """`bash -c COMMAND` on a pseudo-terminal, as typed at a prompt: (exit code, everything shown)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        ["bash", "-c", command],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    quiet_since: float | None = None
    try:
        while True:
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                chunks.append(f"\n[killed: still running after {timeout:.0f} s]".encode())
                break
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every process that had the terminal closed it
                    break
                if not data:
                    break
                chunks.append(data)
                quiet_since = None
            elif proc.poll() is not None:
                # the command ended; something it started may hold the terminal open
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since > 2:
                    break
    finally:
        os.close(master)
    return proc.wait(), b"".join(chunks).decode("utf-8", "replace")


def run_step(
    name: str, argv: list[str], env: dict[str, str], cwd: Path, stdin: str = "", timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """One step; the test fails here, with the step's output, if it fails."""
    try:
        result = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"{name}: still running after {timeout} s\n--- stdout\n{_tail(exc.stdout)}\n--- stderr\n{_tail(exc.stderr)}"
        )
    assert result.returncode == 0, (
        f"{name} exited {result.returncode}\n--- stdout\n{_tail(result.stdout)}\n--- stderr\n{_tail(result.stderr)}"
    )
    return result


def user_env(venv: Path, home: Path, data: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in DROPPED and not key.startswith(DROPPED_PREFIXES)
    }
    env |= {
        "HOME": str(home),
        "MEMEVO_HOME": str(data),
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        # the project's pip cache (the machine's dev cache, shared by clones, when set): a rerun
        # downloads nothing (pip's config, find-links and constraints on this machine still
        # apply, as they do for a user of it)
        "PIP_CACHE_DIR": str(Path(os.environ.get("MEMEVO_DEV_CACHE") or REPO / ".cache") / "pip"),
        # pip byte-compiles every file it installs (torch, transformers, PySide6: thousands);
        # what the journey checks does not depend on it, and Python compiles what it imports.
        # PIP_COMPILE=0, not PIP_NO_COMPILE=1: pip reads a store_false option's environment
        # value as the option's dest (`compile`), so PIP_NO_COMPILE=1 turned compiling *on*
        # (pip 23.2: 72 s of CPU installing, 40 s without compiling).
        "PIP_COMPILE": "0",
    }
    env.setdefault("TERM", "xterm")
    return env


def registered_command(settings: dict[str, Any], event: str) -> tuple[str, float]:
    ours = [
        hook
        for group in settings.get("hooks", {}).get(event, [])
        for hook in group.get("hooks", [])
        if "memevo_hook.py" in hook.get("command", "")
    ]
    assert len(ours) == 1, f"expected one memevo {event} hook, found {ours}"
    return ours[0]["command"], float(ours[0].get("timeout", 60))


def run_hook(
    name: str,
    command: str,
    timeout: float,
    payload: dict[str, Any],
    env: dict[str, str],
    cwd: Path,
    data: Path,
) -> tuple[str, float]:
    """Exactly as Claude Code runs a command hook: `sh -c COMMAND`, the event as JSON on stdin,
    killed at the registered timeout. Returns the injected context and the seconds it took."""
    started = time.monotonic()
    try:
        result = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(payload, ensure_ascii=False),
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(
            f"{name}: no answer within its {timeout:g} s timeout; hooks.log:\n{_log(data, 'hooks.log')}"
        )
    took = time.monotonic() - started
    shown = (
        f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}\n--- hooks.log\n{_log(data, 'hooks.log')}"
    )
    assert result.returncode == 0, f"{name} exited {result.returncode}\n{shown}"
    try:
        context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        pytest.fail(f"{name} injected nothing (or not Claude's JSON) in {took:.1f} s\n{shown}")
    assert RULE in context, f"{name}: the rule is not in what it injected ({took:.1f} s)\n{shown}"
    return context, took


def _log(data: Path, name: str) -> str:
    path = data / "logs" / name
    return _tail(path.read_text(encoding="utf-8", errors="replace")) if path.exists() else f"(no {name})"


def wait_for_model(env: dict[str, str], cwd: Path, data: Path, timeout: float = 180) -> float:
    """Seconds until the service the first hook started answers with its model loaded (until
    then a prompt gets no recall, by design). Polls `memevo service status --json`."""
    started = time.monotonic()
    seen = ""
    while time.monotonic() - started < timeout:
        result = subprocess.run(
            ["memevo", "service", "status", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=HANG_S,
        )
        seen = result.stdout + result.stderr
        if result.returncode == 0:
            status = json.loads(result.stdout)
            assert not status.get("model_error"), f"the service could not load the model: {status}"
            if status.get("running") and status.get("model_ready"):
                return time.monotonic() - started
        time.sleep(1)
    pytest.fail(
        f"no service with a loaded model {timeout:g} s after the first hook; last status: {seen}\n"
        f"--- service-start.log\n{_log(data, 'service-start.log')}\n--- hooks.log\n{_log(data, 'hooks.log')}\n"
        f"--- service.log\n{_log(data, 'service.log')}"
    )


# -- the journey -------------------------------------------------------------------------------
@pytest.mark.slow
def test_readme_command_1_in_a_fresh_venv_then_a_user_s_first_session(tmp_path: Path, data_dir: Path) -> None:
    command = readme_set_up_commands()[0]
    pin = re.search(r"\btorch==(\S+)", command)
    assert pin, f"README command 1 does not pin torch; pip could pull a multi-GB CUDA build: {command}"
    home = Path(os.environ["HOME"])  # the fresh temp home conftest.py gives every test
    venv = tmp_path / "venv"
    work = tmp_path / "work"  # where the user runs commands after installing
    work.mkdir()
    env = user_env(venv, home, data_dir)
    timings: dict[str, float] = {}

    started = time.monotonic()
    run_step("python3 -m venv", [sys.executable, "-m", "venv", str(venv)], env, tmp_path)
    timings["venv"] = time.monotonic() - started
    assert shutil.which("python3", path=env["PATH"]) == str(venv / "bin" / "python3")

    # 1. README command 1, as typed in a terminal with no desktop, from the clone; as in a fresh
    # clone, no build/ from an earlier build (setuptools would ship files deleted since)
    shutil.rmtree(REPO / "build", ignore_errors=True)
    started = time.monotonic()
    rc, shown = in_terminal(command, env, REPO, timeout=1800)
    timings["readme_command_1"] = time.monotonic() - started
    print(f"\nREADME command 1 ({command}): {timings['readme_command_1']:.1f} s, exit {rc}")
    assert rc == 0, f"README command 1 exited {rc}:\n{_tail(shown)}"
    assert "memevo setup" in shown, f"`memevo` did not say what is next:\n{_tail(shown)}"

    # the memevo on PATH is the venv's installed copy, with every subpackage, no CUDA torch
    assert shutil.which("memevo", path=env["PATH"]) == str(venv / "bin" / "memevo")
    probe = (
        "import importlib.metadata as m, json, sysconfig\n"
        "import memevo.core, memevo.core.encoder, memevo.core.recall, memevo.core.service\n"
        "import memevo.core.learning, memevo.hooks.clients, memevo.installer, memevo.desktop\n"
        "print(json.dumps({'core': memevo.core.__file__, 'site': sysconfig.get_paths()['purelib'],\n"
        "  'torch': m.version('torch'), 'direct_url': m.distribution('memory-self-evolution').read_text('direct_url.json'),\n"
        "  'nvidia': sorted(d.metadata['Name'] for d in m.distributions() if d.metadata['Name'].lower().startswith('nvidia'))}))"
    )
    installed = json.loads(
        run_step("the installed copy", [str(venv / "bin" / "python"), "-c", probe], env, work).stdout
    )
    site = Path(installed["site"])
    assert site.is_relative_to(venv), installed
    assert Path(installed["core"]).is_relative_to(site), (
        f"memevo is not the venv's installed copy: {installed}"
    )
    assert '"editable": true' not in (installed["direct_url"] or ""), installed
    assert installed["torch"].split("+")[0] == pin.group(1) and not installed["nvidia"], installed

    # the model was provisioned into the user's data dir, as on a user's first run
    model = json.loads(run_step("memevo model --json", ["memevo", "model", "--json"], env, work).stdout)
    assert model["ready"] and Path(model["folder"]).is_relative_to(data_dir), model

    # 2. a rule by hand, and it reads back
    run_step("memevo rule add", ["memevo", "rule", "add", RULE], env, work)
    read = json.loads(
        run_step("memevo read rule --json", ["memevo", "read", "rule", "--json"], env, work).stdout
    )
    assert RULE in [m["text"] for m in read["memories"]], read

    # 3. setup for Claude Code (installed: ~/.claude exists; no `claude` binary is fine)
    (home / ".claude").mkdir()
    setup = run_step(
        "memevo setup --only claude", ["memevo", "setup", "--only", "claude"], env, work, timeout=HANG_S
    )
    if shutil.which("claude", path=env["PATH"]) is None:
        assert "claude mcp add" in setup.stdout + setup.stderr, setup.stdout + setup.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    session_start, session_timeout = registered_command(settings, "SessionStart")
    prompt_submit, prompt_timeout = registered_command(settings, "UserPromptSubmit")
    for registered in (session_start, prompt_submit):
        assert str(venv / "bin" / "python") in registered and str(site / "memevo" / "hooks") in registered, (
            registered
        )

    # 4. a session starts, then the user asks something the rule is about
    try:
        _, timings["session_start_hook"] = run_hook(
            "SessionStart",
            session_start,
            session_timeout,
            {
                "session_id": "journey-1",
                "transcript_path": str(home / "journey-1.jsonl"),
                "cwd": str(work),
                "hook_event_name": "SessionStart",
                "source": "startup",
            },
            env,
            work,
            data_dir,
        )
        timings["model_loaded"] = wait_for_model(env, work, data_dir)
        _, timings["prompt_hook"] = run_hook(
            "UserPromptSubmit",
            prompt_submit,
            prompt_timeout,
            {
                "session_id": "journey-1",
                "prompt_id": "journey-p1",
                "transcript_path": str(home / "journey-1.jsonl"),
                "cwd": str(work),
                "permission_mode": "default",
                "hook_event_name": "UserPromptSubmit",
                "prompt": PROMPT,
            },
            env,
            work,
            data_dir,
        )

        # 5. the attacks, against the installed copy, while its service runs
        installed_attacks.run_all(
            installed_attacks.Installed(
                env=env,
                home=home,
                data=data_dir,
                python=venv / "bin" / "python",
                root=tmp_path,
                skipped=(venv,),
                attacks=tmp_path / "attacks",
                session_start=(session_start, session_timeout),
                prompt_submit=(prompt_submit, prompt_timeout),
                rule=RULE,
            ),
            timings,
        )
    finally:
        subprocess.run(["memevo", "service", "stop"], env=env, cwd=work, capture_output=True, timeout=HANG_S)
    print("timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
    shutil.rmtree(venv, ignore_errors=True)  # ~2 GB; kept when a step failed, to look into
