"""The relay hook's other half: a client's raw hook payload in, the client's raw output out.

(Stub: issue 19 fills it in.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidInput

Dispatch = Callable[[str, dict[str, Any]], dict[str, Any]]


def answer(dispatch: Dispatch, params: dict[str, Any]) -> dict[str, Any]:
    raise InvalidInput("hook.relay is not built yet")
