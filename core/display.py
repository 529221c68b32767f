"""Whether this session has a desktop: the tray app and its native dialogs need one."""

from __future__ import annotations

import os
import sys


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
