"""Whether learning is on, and who proposes: the side judge or the client's own model.

`learning` (config): auto (the side judge when its API is configured, else the client's
model), side, client or off. The Node tool's legacy blocking mode (sideJudge=false, kept by
import-legacy) keeps auto and side off until setup, as it always did; client mode is a choice
made since, so it is not blocked by it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import config as config_mod
from ..privacy import side_api_key as secrets

SIDE = "side"
CLIENT = "client"
OFF = "off"


@dataclass(frozen=True)
class LearningState:
    configured: bool  # the side API: base URL, model and key
    legacy_blocking: bool
    chosen: str = "auto"  # the config's `learning`

    @property
    def mode(self) -> str:
        """Who proposes now: "side", "client" or "off"."""
        if self.chosen == OFF:
            return OFF
        if self.chosen == CLIENT:
            return CLIENT
        if self.legacy_blocking:
            return OFF
        if self.chosen == SIDE:
            return SIDE if self.configured else OFF
        return SIDE if self.configured else CLIENT  # auto

    @property
    def active(self) -> bool:
        """Learning happens (either way)."""
        return self.mode != OFF

    @property
    def side(self) -> bool:
        """The side judge analyses each prompt."""
        return self.mode == SIDE


def state(config: config_mod.Config, has_key: bool | None = None) -> LearningState:
    key = secrets.has_api_key() if has_key is None else has_key
    configured = bool(config["sideApiBase"] and config["sideApiModel"] and key)
    return LearningState(configured, config["sideJudge"] is False, str(config["learning"]))
