"""The tray app's test hook: lets a test (or a support script) in another process see what
the tray shows and answer a confirmation dialog the way a user would, by filling its editor
and clicking its button. Off unless MEMEVO_TRAY_TEST_HOOK=1 was set when the tray started;
reached through the service's `ui_test` operation, and always run on the UI thread."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
from typing import Any

from ..core import envvars
from ..core.errors import InvalidInput

ENV = envvars.TRAY_TEST_HOOK.name


def enabled() -> bool:
    return os.environ.get(ENV) == "1"


def install(host: Any, tray: Any, confirmations: Any, loop: asyncio.AbstractEventLoop) -> None:
    """Route `ui_test` requests (they arrive on the service's worker threads) to the UI thread."""

    def on_request(params: dict[str, Any]) -> dict[str, Any]:
        answer: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()

        def run() -> None:
            try:
                answer.set_result(handle(tray, confirmations, params))
            except Exception as exc:
                answer.set_exception(exc)

        loop.call_soon_threadsafe(run)
        return answer.result(10)

    host.ctx.ui_test = on_request


def handle(tray: Any, confirmations: Any, params: dict[str, Any]) -> dict[str, Any]:
    action = str(params.get("action", "state"))
    if action == "state":
        return state(tray, confirmations)
    if action == "menu":  # what opening the tray menu does, then the panel and each of its views
        tray.refresh_menu()
        for view in ("memories", "settings", "trash"):
            tray.open_panel(view)
        return {"opened": True}
    if action == "loaded":  # what the process has imported (tests/test_tray_resident.py)
        return {"modules": sorted(sys.modules)}
    if action == "answer":
        return answer(confirmations, str(params.get("job", "")), str(params.get("decision", "")), params)
    raise InvalidInput(f"unknown test hook action {action!r}")


def state(tray: Any, confirmations: Any) -> dict[str, Any]:
    dialog = confirmations.current
    shown = None
    if dialog is not None:
        shown = {
            "job": dialog.job.id,
            "visible": bool(dialog.isVisible()),
            "title": dialog.windowTitle(),
            "labels": [label.text() for label in _labels(dialog)],
            "text": dialog.text(),
            "buttons": {name: button.text() for name, button in dialog.buttons.items()},
            "enabled": {name: bool(button.isEnabled()) for name, button in dialog.buttons.items()},
            "geometry": _geometry(dialog),
        }
    return {
        "platform": _platform(),
        "tray_state": tray.state,
        "tooltip": tray.icon.toolTip(),
        "icon": {"visible": bool(tray.icon.isVisible()), "geometry": _rect(tray.icon.geometry())},
        "menu": _menu(tray.menu),
        "dialog": shown,
        "waiting": list(confirmations.waiting),
        "notifications": [{"title": t, "message": m} for t, m in tray.notifier.shown],
        # Where the UI thread used the store (it never should: Store.keep_off records each).
        "store_on_ui_thread": list(tray.host.store.forbidden_uses),
        "busy": _busy(tray, confirmations),
    }


def _busy(tray: Any, confirmations: Any) -> bool:
    """Work is still on a worker (the tray's, the queue's, a panel view's): its answer, shown on
    the UI thread, is still to come."""
    views = tray.panel.views.values() if tray.panel is not None else ()
    workers = [tray.worker, *(v.worker for v in views if hasattr(v, "worker"))]
    return any(w.busy for w in workers) or bool(confirmations is not None and confirmations.busy)


def answer(confirmations: Any, job_id: str, decision: str, params: dict[str, Any]) -> dict[str, Any]:
    """Fill the editor (when a text is given) and click the decision's button: the same path
    a user's click takes."""
    dialog = confirmations.current
    if dialog is None or dialog.job.id != job_id:
        raise InvalidInput(f"no confirmation dialog for {job_id} is on screen")
    button = dialog.buttons.get(decision)
    if button is None:
        raise InvalidInput(f"the dialog offers no {decision!r} (it offers {', '.join(dialog.buttons)})")
    if isinstance(params.get("text"), str):
        dialog.editor.setPlainText(params["text"])
    if not button.isEnabled():
        raise InvalidInput(f"the {decision!r} button is disabled: {dialog.counter.text()}")
    button.click()
    return {"clicked": decision}


def _labels(dialog: Any) -> list[Any]:
    from .qt import QLabel

    return list(dialog.findChildren(QLabel))


def _geometry(dialog: Any) -> list[int]:
    """Where the dialog's frame is on screen: x, y, width, height (a screenshot crops to it)."""
    frame = dialog.frameGeometry()
    return [frame.x(), frame.y(), frame.width(), frame.height()]


def _platform() -> str:
    """The Qt platform plugin the tray runs on ("xcb" on a real X display, "offscreen" in tests)."""
    from .qt import QApplication

    return str(QApplication.platformName())


def _rect(rect: Any) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def _menu(menu: Any) -> dict[str, Any]:
    """The tray menu as shown: open or not, and each entry with where it is on screen (a test
    clicks it there with the X server's pointer)."""
    origin = menu.pos()
    items = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        where = menu.actionGeometry(action).translated(origin)
        items.append({"text": action.text(), "enabled": bool(action.isEnabled()), "geometry": _rect(where)})
    return {"visible": bool(menu.isVisible()), "items": items}
