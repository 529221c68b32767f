"""Whether learning is on, and who proposes: the side judge or the client's own model.

`learning` (config): auto (the side judge when its API is configured, else the client's
model), side, client or off. The Node tool's legacy blocking mode (sideJudge=false, kept by
import-legacy) keeps auto and side off until setup, as it always did; client mode is a choice
made since, so it is not blocked by it.

Who proposes now, or why nobody does, is a code (LearningState.now) with one English wording
here (NOW_WORDS: `memevo service status` says it); the desktop says the same codes through
tr() (desktop/learning_texts.py). The modes and their order: config.LEARNING_MODES.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import config as config_mod
from ..privacy import side_api_key as secrets

AUTO = "auto"
SIDE = "side"
CLIENT = "client"
OFF = "off"
MODES = config_mod.LEARNING_MODES  # auto, side, client, off: the order they are offered in

# Who proposes now (the mode in effect), or why learning is off.
NOW_SIDE, NOW_CLIENT, OFF_CHOSEN, OFF_SIDE_UNSET, OFF_LEGACY = (
    "side",
    "client",
    "off-chosen",
    "off-side-unset",
    "off-legacy",
)
NOW_WORDS = {
    NOW_SIDE: "the side judge proposes memories",
    NOW_CLIENT: "your coding assistant's model proposes memories",
    OFF_CHOSEN: "off (you chose off)",
    OFF_SIDE_UNSET: "off: it is set to the side judge, whose API is not set up (base URL, model and key)",
    # the Node tool's sideJudge=false: configuring the side API (or setup) lifts it
    OFF_LEGACY: "off: set the side API in Settings or run `memevo setup`",
}


def now(mode: str, chosen: str, legacy_blocking: bool) -> str:
    """The code of who proposes now (`mode`, the one in effect) given the `chosen` one."""
    if mode == SIDE:
        return NOW_SIDE
    if mode == CLIENT:
        return NOW_CLIENT
    if chosen == OFF:
        return OFF_CHOSEN
    if chosen == SIDE and not legacy_blocking:
        return OFF_SIDE_UNSET
    return OFF_LEGACY


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
    def now(self) -> str:
        """Who proposes now, or why nobody does: a NOW_WORDS code."""
        return now(self.mode, self.chosen, self.legacy_blocking)

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
