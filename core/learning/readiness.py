"""Whether learning (the side judge) is set up: base URL, model and key, and no legacy block."""

from __future__ import annotations

from dataclasses import dataclass

from .. import config as config_mod
from .. import secrets


@dataclass(frozen=True)
class LearningState:
    configured: bool
    legacy_blocking: bool

    @property
    def active(self) -> bool:
        return self.configured and not self.legacy_blocking


def state(config: config_mod.Config, has_key: bool | None = None) -> LearningState:
    key = secrets.has_api_key() if has_key is None else has_key
    configured = bool(config["sideApiBase"] and config["sideApiModel"] and key)
    return LearningState(configured, config["sideJudge"] is False)
