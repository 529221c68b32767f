"""The service's commands: serve (headless), tray, service status/stop, injections (the log),
why (one session's receipts), hooks print-config, mcp, and secret (the side API key)."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from .shared import call, emit_json, plain, reply, shown

if TYPE_CHECKING:
    import argparse  # annotations only: `memevo serve` and `memevo tray` run without argparse


def cmd_serve(args: argparse.Namespace) -> int:
    resident_process()
    import asyncio

    from ..core.encoder import loading
    from ..core.service.spawn import lock_held

    if not lock_held():  # else this start steps aside: no model loaded for nothing
        loading.begin_early()  # onnxruntime's session builds while the service is imported
    from ..core.service.server import run_headless, setup_logging

    log_file = setup_logging("service")
    print(f"memevo service: log in {log_file}", flush=True)
    asyncio.run(run_headless(lambda text: print(text, flush=True), wait_lock_s=args.wait_lock))
    _exit_now(0)
    return 0


def cmd_tray(args: argparse.Namespace) -> int:
    resident_process()
    from ..core.process import display
    from ..desktop.app import main as tray_main

    if not display.has_display() and "QT_QPA_PLATFORM" not in os.environ and not args.self_test:
        # Offscreen, its dialogs and icon would be invisible and learned proposals would wait
        # on a dialog nobody sees; headless, they are confirmed in the client's chat.
        return _serve_instead(args, "no display here")
    # Qt aborts the process when its platform plugin cannot load or reach the display: asked
    # first, a desktop that cannot show the tray still gets a working (headless) service.
    desktop = display.probe() if display.has_display() else display.Desktop()
    if desktop.problem:
        display.remember_problem(desktop.problem)
        return _serve_instead(args, f"the tray app cannot start on this desktop: {desktop.problem}")
    if desktop.platform and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = desktop.platform  # the one that works, not Qt's first guess
    _exit_now(int(tray_main(self_test=args.self_test, wait_lock_s=args.wait_lock)))
    return 0


# OpenBLAS reads its thread count once, as numpy loads it.
BLAS_THREADS = "OPENBLAS_NUM_THREADS"


def resident_process() -> None:
    """What the resident process (serve, tray) sets first, before numpy and before any thread
    of its own: one BLAS thread and glibc's arenas (core/process/native_heap.py)."""
    from ..core.process import native_heap

    one_blas_thread()
    native_heap.limit_arenas()


def one_blas_thread() -> None:
    """One BLAS thread in the resident process (core/service/host.py limit_blas_threads says
    why), set before its first import of numpy: the host then needs no threadpoolctl to limit
    it afterwards. A count the user set is kept (the host limits it as before); processes the
    service starts (provisioning, git) inherit the one thread."""
    if "numpy" not in sys.modules:
        os.environ.setdefault(BLAS_THREADS, "1")


HEADLESS_INSTEAD = (
    "running the headless service instead (`memevo serve`): "
    "learned proposals are confirmed in your client's chat or with `memevo pending`"
)


def _serve_instead(args: argparse.Namespace, why: str) -> int:
    print(f"memevo tray: {why}; {HEADLESS_INSTEAD}", file=sys.stderr, flush=True)
    return cmd_serve(args)


def _exit_now(code: int) -> None:
    """The service has closed the store and released its lock; end the process here. A model
    still loading on its thread (a quit during start-up) must not be torn down by the
    interpreter's exit: the inference runtime's C++ threads then abort the process
    ("terminate called without an active exception"), a crash report for a clean quit."""
    import logging

    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


def cmd_service(args: argparse.Namespace) -> int:
    from ..core.service.client import ServiceUnavailable, call
    from ..core.service.server import ping

    if args.action == "stop":
        try:
            call("shutdown", {}, timeout_s=5)
            result: dict[str, Any] = {"stopped": True}
        except ServiceUnavailable:
            silent = _silent_service()
            result = {
                "stopped": False,
                "reason": f"{silent}; it stops once it answers (the request is waiting for it)"
                if silent
                else "no service is running",
            }
    else:
        status = ping()
        silent = _silent_service() if status is None else None
        result = {"running": status is not None} | (status or {})
        if silent:
            result = {"running": False, "not_answering": silent}
        elif status is not None and not status.get("desktop"):
            from ..core.process import display

            if display.has_display() and display.tray_died_here():
                result["tray_app"] = "died on this display before its window came up (logs/service-start.log)"
            elif display.has_display() and (problem := display.remembered_problem()):
                result["tray_app"] = f"cannot start on this desktop: {problem}"  # why it runs headless
    if args.json:
        return emit_json(result)
    for key, value in result.items():
        if key == "learning" and isinstance(value, dict):
            for label, text in learning_lines(value):
                print(f"{label:<18} {text}")
            continue
        print(f"{key.replace('_', ' '):<18} {plain(value)}")
    return 0


def learning_lines(learning: dict[str, Any]) -> list[tuple[str, str]]:
    """The status's learning dict as a person reads it: who proposes now in the words the
    desktop uses (core.learning.readiness.NOW_WORDS), after the chosen mode when it differs
    ("auto → client: …", "side → off: …"), then the proposals and side API calls against
    their caps."""
    from ..core.learning import readiness

    if "error" in learning:
        return [("learning", f"unknown: {learning['error']}")]
    mode, chosen = str(learning.get("mode")), str(learning.get("chosen") or learning.get("mode"))
    # Off under auto is the Node tool's block; under side the status does not say whether it is
    # that or a side API not set up: the latter, by far the likelier.
    words = readiness.NOW_WORDS.get(readiness.now(mode, chosen, chosen == readiness.AUTO), mode)
    if mode == readiness.OFF:  # the words say "off" themselves
        said = words if chosen == mode else f"{chosen} → {words}"
    else:
        said = f"{mode}: {words}" if chosen == mode else f"{chosen} → {mode}: {words}"
    lines = [("learning", said)]
    if "proposals_today" in learning:
        lines.append(
            (
                "proposals today",
                f"{learning['proposals_today']} of {learning.get('proposals_per_day')} a day"
                f" (at most {learning.get('proposals_per_session')} per session)",
            )
        )
    if "side_calls_today" in learning:
        lines.append(
            ("side API calls", f"{learning['side_calls_today']} of {learning.get('side_daily_limit')} today")
        )
    return lines


def _silent_service() -> str | None:
    """A service that holds the instance lock but does not answer (stopped with SIGSTOP, or
    stuck): said as such, with its pid, rather than "no service is running"."""
    from ..core.service import protocol, spawn

    if not spawn.lock_held():
        return None
    pid = protocol.recorded_pid()
    if pid is None:
        return "a memevo service holds the store but does not answer (still starting, stopped or stuck)"
    return (
        f"the memevo service (pid {pid}) holds the store but does not answer: it may be stopped "
        f"(`kill -CONT {pid}`) or stuck (`kill {pid}`; the next command starts a new one)"
    )


# Why an injection shows no prompt: said plainly rather than left blank.
NO_PROMPT = {
    "session_start": "(none: a session start has no prompt)",
    "stop": "(none: the end of a turn has no prompt)",
}
NOT_KEPT = "(not kept: logged before memevo kept prompts, or removed when a memory was purged)"


def prompt_text(injection: dict[str, Any]) -> str:
    """What an injection answered, as a terminal shows it."""
    asked = injection.get("prompt")
    if asked is not None:
        return f"“{shown(asked)}”"
    return NO_PROMPT.get(str(injection.get("event")), NOT_KEPT)


def cmd_injections(args: argparse.Namespace) -> int:
    """The injection log, newest first: what each hook injected, and what it answered."""

    def say(result: dict[str, Any]) -> None:
        if not result["injections"]:
            print("nothing has been injected yet" + (f" into {args.client}" if args.client else ""))
        texts = result["texts"]
        for i in result["injections"]:
            session = f"  session {shown(i['session'])}" if i["session"] else ""
            print(
                f"{i['ts'][:19].replace('T', ' ')}  {i['client']}  {i['event']}{session}  {i['chars']} chars"
            )
            print(f"  answered: {prompt_text(i)}")
            for memory_id in i["memory_ids"]:
                text = texts.get(memory_id)
                print(f"  #{memory_id} {shown(text) if text is not None else '(deleted since)'}")

    return reply(args, call("hook_activity", limit=args.limit, client=args.client), say)


def cmd_why(args: argparse.Namespace) -> int:
    """Receipts for one session: each injection, what it answered, and why each memory was in it."""

    def memory_line(m: dict[str, Any]) -> str:
        text = shown(m["text"]) if m["text"] is not None else "(purged since)"
        where = "" if m["where"] == "live" else f"  [{m['where']}]"
        return f"#{m['id']} {text}{where}"

    def say(result: dict[str, Any]) -> None:
        print(f"session {shown(result['session'])}")
        if not result["injections"]:
            print("  nothing was injected")
        for i in result["injections"]:
            print(f"{i['ts'][:19].replace('T', ' ')}  {i['client']}  {i['event']}  {i['chars']} chars")
            print(f"  answered: {prompt_text(i)}")
            for m in i["memories"]:
                print(f"  {memory_line(m)}")
                print(f"    why: {_why_line(i['event'], m, i['receipt'])}")
                stale = (m.get("anchors") or {}).get("stale")
                if stale:
                    print(f"    stale: {shown(stale)}")
            for m in i["left_out"]:
                print(f"  passed the gate, left out for room: {memory_line(m)}")
            if i.get("other_repositories"):
                print(f"  {i['other_repositories']} other repositories' memories matched and were left out")
        for m in result["learned"]:
            print(
                f"learned {m['ts'][:19].replace('T', ' ')}: {m['action']} by {m['proposer']}  {memory_line(m)}"
            )

    return reply(args, call("why", session=args.session), say)


def _why_line(event: str, memory: dict[str, Any], has_receipt: bool) -> str:
    signals = memory.get("why")
    if signals:
        cued = ", with its cues" if signals.get("cued") else ""
        damped = f", damped {signals['damped']}" if signals.get("damped") else ""
        stale = "; it was stale then" if signals.get("stale") else ""
        return (
            f"score {signals['score']} >= minimum {signals['minimum']} "
            f"(cosine {signals['cosine']}, lexical {signals['lexical']}{cued}{damped}){stale}"
        )
    if event == "session_start":
        return "a rule listed at session start (pinned first, then by confidence)"
    return "logged before memevo kept receipts" if not has_receipt else "not recorded"


def cmd_print_config(args: argparse.Namespace) -> int:
    from ..installer.clients import snippet

    print(json.dumps(snippet(args.client), ensure_ascii=False, indent=2))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcpserver.server import main as mcp_main

    return mcp_main(args.client)


def cmd_secret(args: argparse.Namespace) -> int:
    """The key never comes from an argument (it would land in shell history and `ps`)."""
    from ..core.errors import InvalidInput
    from ..core.privacy import side_api_key as secrets

    if args.file and args.action != "set":
        raise InvalidInput("--file goes with `memevo secret set` only")
    if args.action == "set":
        if sys.stdin.isatty():
            import getpass

            value = getpass.getpass("side API key (input hidden): ")
        else:
            value = sys.stdin.readline()
        try:
            where = secrets.set_api_key(value, to_file=args.file)
        except secrets.KeyringUnavailable as exc:
            raise InvalidInput(str(exc)) from exc
        except ValueError as exc:
            raise InvalidInput(f"{exc}; nothing stored") from exc
        result: dict[str, Any] = {"stored": True, "where": where}
        if args.file:
            result["note"] = FILE_NOTE
    elif args.action == "move-to-keyring":
        try:
            backend = secrets.move_to_keyring()
        except (secrets.KeyringUnavailable, ValueError) as exc:
            raise InvalidInput(f"{exc}; nothing moved") from exc
        result = {"moved": True, "where": f"keyring ({backend})"}
    elif args.action == "clear":
        result = {"cleared": secrets.clear_api_key()}
    else:
        status = secrets.status()
        result = {
            "set": status.present,
            "where": status.source,
            "keyring": status.keyring_backend,
            "problem": status.keyring_problem,
            "file": status.file,
        }
        if status.source == "file":
            result["note"] = FILE_NOTE
    if args.action != "status":
        _tell_the_service()
    if args.json:
        return emit_json(result)
    for key, value in result.items():
        print(f"{key:<10} {plain(value)}")
    return 0


FILE_NOTE = (
    "the key is in a file only your account can read; it is not encrypted (anyone with your "
    "account, or root, can read it). `memevo secret move-to-keyring` moves it once a keyring works"
)


def _tell_the_service() -> None:
    """A running service notices the key at once (learning, recall cues). With none running, the
    hooks' fallback texts (which say whether learning is configured) are rewritten here, as
    every command that runs without a service does; nothing is started for this."""
    from ..core.errors import MemevoError
    from ..core.service import client, fallback_texts

    try:
        client.call("secret_changed", {}, timeout_s=5)
    except client.ServiceUnavailable:  # a lost reply too: a service holding the store is left alone
        fallback_texts.write_without_service()
    except MemevoError:  # an older service without the operation: it asks the keyring within 30 s
        pass
