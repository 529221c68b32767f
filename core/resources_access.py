"""Read files shipped in memevo.resources (works from a wheel, an editable install or a bundle)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def read_text(relative: str) -> str:
    node = resources.files("memevo.resources")
    for part in relative.split("/"):
        node = node.joinpath(part)
    return node.read_text(encoding="utf-8")


def read_json(relative: str) -> Any:
    return json.loads(read_text(relative))
