"""The tray app as a program: the instance lock and the handover from a headless service,
the Qt application and its qasync loop hosting the memory service, and the tray icon
(desktop/tray.py) on top of it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

from ..core.process import display
from ..core.service.host import ServiceHost
from ..core.service.server import AlreadyRunning, InstanceLock, hosted_service, setup_logging
from . import testhook
from .i18n import install_translator, tr
from .tray import Tray


def main(self_test: bool = False, wait_lock_s: float = 0.0) -> int:
    if not display.has_display():
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    from .qt import QApplication

    setup_logging("service")
    lock = InstanceLock()
    try:
        lock.acquire(max(wait_lock_s, 2.0))  # a caller probing the lock holds it for an instant
    except AlreadyRunning as exc:
        if not take_over_headless(lock):
            # Started on demand (a hook, an MCP server) while a tray app runs: nothing to show.
            return 0 if wait_lock_s > 0 else bring_first_to_front(str(exc))
    # Qt aborts the process here when its platform plugin fails (the probe in core/process/display.py
    # runs before, but cannot foresee everything): the record tells starters this display kills
    # the tray app, so they start `memevo serve` instead of a tray app that dies again.
    display.record_tray_start()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    display.tray_came_up()
    QApplication.setQuitOnLastWindowClosed(False)  # static: instance() is typed QCoreApplication
    install_translator(app)
    if not self_test and sys.stdout is not None and sys.stdout.isatty():  # started from a terminal
        print(
            "memevo is running in the system tray (the round M icon): click it for the panel. "
            "It runs until you choose Quit memevo in its menu or close this terminal; started at "
            "login (memevo setup --autostart) it needs no terminal."
        )
    try:
        return int(qasync.run(_run(self_test)))
    finally:
        lock.release()


HANDOVER_WAIT_S = 60.0


def take_over_headless(lock: InstanceLock) -> bool:
    """A headless service (started by a hook, an MCP server or `memevo serve`) holds the store:
    on a desktop the tray app hosts the service, so ask it to finish its requests and hand
    over, then take the lock. Hooks answer from cache meanwhile. False: a tray app (or a
    service that does not answer) holds it."""
    from ..core.service.client import ServiceUnavailable, call

    try:
        status = call("ping", {}, timeout_s=5)
        if status.get("desktop"):
            return False
        call("shutdown", {"handover": True}, timeout_s=10)
    except (ServiceUnavailable, Exception):
        return False
    try:
        lock.acquire(HANDOVER_WAIT_S)
    except AlreadyRunning:
        return False
    return True


def bring_first_to_front(why: str) -> int:
    """A second start: the running tray app shows its panel; a headless service can't."""
    from ..core.service.client import ServiceUnavailable, call

    try:
        answer = call("ui_show", {"view": "panel"}, timeout_s=5)
    except ServiceUnavailable as exc:
        print(f"memevo: {why}, and it does not answer ({exc}).", file=sys.stderr)
        return 3
    if answer.get("shown"):
        print("memevo is already running: its panel is in front now.")
        return 0
    print(f"memevo: {why}; {answer.get('reason', 'it has no window')}.", file=sys.stderr)
    print("Stop it with `memevo service stop` to run the tray app instead.", file=sys.stderr)
    return 3


# The loop's executor (the keyring's checks, the learning worker's start): a few threads made
# when needed. qasync's own starts ten QThreads at its first use, each idle all day.
LOOP_WORKERS = 4
SETTLE_S = 2.0  # after the model is in: what the start left is dropped, then given back


async def _run(self_test: bool) -> int:
    from concurrent.futures import ThreadPoolExecutor

    from . import confirm_texts
    from .confirm import ConfirmQueue, run_queue

    quit_event = asyncio.Event()
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(LOOP_WORKERS, "memevo-tray-loop"))
    async with hosted_service() as (host, server, endpoint):
        host.ctx.desktop = True
        host.ctx.confirm_window = confirm_texts.title()  # the tool's answer names it to the model
        # This thread runs the UI and the service's loop: the store is for the workers. A use
        # from here is logged with its stack (and reported by the test hook).
        host.store.keep_off(threading.current_thread())
        confirmations = ConfirmQueue(host)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, host.ctx.keys.has)  # the keyring may prompt: never on the UI thread
        tray = Tray(host, quit_event, confirmations)
        # The learning worker starts now, off the UI thread: a failure shows on the icon at
        # once (tray_state reads host.ctx.learner.error) instead of at the first prompt.
        learning = loop.run_in_executor(None, _start_learning, host)
        if testhook.enabled():
            testhook.install(host, tray, confirmations, loop)
        # The panel is built when first opened, not ahead of time: built hidden it held its
        # views, their workers' threads, the memories' rows and the keyring's status (which
        # loads secretstorage and cryptography) all day for a user who may never open it.

        def show_ui(view: str) -> None:  # from the service's thread: the panel opens on the UI loop
            loop.call_soon_threadsafe(tray.open_panel, view)

        host.ctx.ui_request = show_ui
        confirmations.resolved.connect(
            lambda job, message: tray.notifier.notify(f"job:{job}", "memevo", message)
        )
        queue_task = asyncio.ensure_future(run_queue(confirmations, quit_event))
        repairs = start_watcher(tray, loop)
        if not self_test and first_run():
            loop.call_later(1.0, tray.open_wizard)
        loader = threading.Thread(target=host.load_engine, name="memevo-model", daemon=True)
        loader.start()
        assert server.stopping is not None
        stop_task = asyncio.ensure_future(server.stopping.wait())
        quit_task = asyncio.ensure_future(quit_event.wait())
        ticks = 0
        trimmed = False
        while not (stop_task.done() or quit_task.done()):
            tray.refresh_icon()
            ticks += 1
            if not trimmed and (host.engine is not None or host.ctx.engine_error):
                trimmed = True
                loop.call_later(SETTLE_S, _trim_heap, server, stop_task, quit_task)
            if ticks % 10 == 0:
                tray.check_side_failures()
                loop.run_in_executor(None, host.ctx.keys.has)  # keeps keys.known() fresh
            if self_test and (host.engine is not None or host.ctx.engine_error):
                break
            await asyncio.wait({stop_task, quit_task}, timeout=1.0)
        host.ctx.ui_request = None
        host.ctx.ui_test = None
        await learning
        if repairs is not None:
            repairs.stop()
        for task in (stop_task, quit_task, queue_task):
            task.cancel()
        if self_test:
            return await _self_test_report(tray, endpoint)
        return 0


def _trim_heap(server: Any, *stopping: asyncio.Future[Any]) -> None:
    """Once the start has settled, what it freed in glibc's heaps goes back to the system, by the
    service's own trim (a checkpoint first: on its executor, the store is off this thread). First
    the source lines PySide6 had read: it looks for "PySide6" in the source of every module imported
    after it (shibokensupport/feature.py, to switch its features per module), and linecache keeps
    each file's lines (the model's and the service's modules: a part of `tray_rss_mb`); they are
    read again only if a traceback is printed."""
    import linecache

    linecache.clearcache()
    if not any(task.done() for task in stopping):
        server.executor.submit(server.heap.trim, server.host)


def _start_learning(host: ServiceHost) -> None:
    """Only once the config names a side API: until then nothing would run on the worker (the
    side judge and the recall cues both need one), and its HTTP client — httpx's transport, which
    imports httpcore, trio and anyio, and an SSL context, a weight in `tray_rss_mb` — stays out of the
    tray. A side API set later starts it at its first use, as in `memevo serve`."""
    from ..core.service.context import side_api_named

    if not side_api_named():
        return
    from ..core.learning.learn import LearningUnavailable

    with contextlib.suppress(LearningUnavailable):  # kept in host.ctx.learner.error: the icon says it
        host.start_learning()


def start_watcher(tray: Tray, loop: asyncio.AbstractEventLoop) -> Any:
    """Keep the clients' registration repaired while the tray app runs (never fatal)."""
    from ..installer.watcher import RegistrationWatcher

    def repaired(client: str, lines: list[str]) -> None:  # the watcher's thread -> the UI loop
        from ..installer import client_state

        after = client_state.read(client)  # the client's files: read here, not on the UI thread
        loop.call_soon_threadsafe(tray.on_repaired, client, lines, after)

    def failed(client: str, why: str) -> None:
        loop.call_soon_threadsafe(tray.on_repair_failed, client, why)

    watcher = RegistrationWatcher(repaired, failed)
    try:
        watcher.start()
    except Exception as exc:  # e.g. the inotify watch limit: say so, keep running
        tray.notifier.notify("watcher", tr("memevo cannot watch the clients' files"), str(exc))
        return None
    return watcher


def first_run() -> bool:
    """No setup has run yet (no install.json): the tray app opens the wizard."""
    from ..installer import state

    return not state.path().exists()


async def _self_test_report(tray: Tray, endpoint: Path) -> int:
    """Open the panel, let it load the memories, and check it shows what the store holds."""
    from ..core.service.client import call

    host = tray.host
    problems = []
    if host.engine is None:
        problems.append(f"the model is not ready: {host.ctx.engine_error}")
    panel = tray.open_panel()
    if panel is None:  # the store is damaged
        print(f"self-test FAILED: {host.ctx.store_error}", file=sys.stderr)
        return 1
    for _ in range(600):  # the memories load on the panel's worker thread
        await asyncio.sleep(0.05)
        if not panel.memories.worker.busy:
            break
    counts = host.handle("counts", {})["counts"]
    shown, total = panel.memories.model.total, sum(n for group in counts.values() for n in group.values())
    if shown != total:
        problems.append(f"the panel shows {shown} memories, the store holds {total}")
    try:
        answer = await asyncio.get_running_loop().run_in_executor(None, lambda: call("ping", {}, timeout_s=5))
        if not answer.get("pid"):
            problems.append("the service answered ping without a pid")
    except Exception as exc:
        problems.append(f"the service does not answer: {exc}")
    print(
        f"self-test: service on {endpoint}; model ready: {host.engine is not None}; panel shows {shown} memories"
    )
    for problem in problems:
        print(f"self-test FAILED: {problem}", file=sys.stderr)
    panel.close()
    return 1 if problems else 0
