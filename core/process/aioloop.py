"""Event loops for background threads, independent of the policy the process installed.

Under the tray app qasync installs its own event-loop policy: `asyncio.new_event_loop()` and
`asyncio.run()` then make a Qt event loop, which may only run on the main thread. A worker
thread that asks for a loop that way gets one that never runs its callbacks ("QApplication::exec:
Must be called from the main thread"), and whatever it was meant to do silently never happens.
Every loop memevo runs off the main thread comes from here instead.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def new_private_loop() -> asyncio.AbstractEventLoop:
    """A plain asyncio loop of the platform's own kind, whatever policy is installed."""
    if sys.platform == "win32":  # pragma: no cover - Windows only
        return asyncio.ProactorEventLoop()
    return asyncio.SelectorEventLoop()


def run_private(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run()` for a worker thread: the same, on a loop from `new_private_loop()`."""
    with asyncio.Runner(loop_factory=new_private_loop) as runner:
        return runner.run(coro)
