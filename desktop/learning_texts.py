"""How the desktop words learning: the modes the user chooses from (config `learning`), who
proposes now (core.learning.readiness), and who proposed a given memory (a job's proposal).

One place, so the tray, the status panel, Settings, the wizard and the confirmation dialog
say the same thing in the same words (each spelled out in tr() for extraction). The modes and
their order are core's (config.LEARNING_MODES); who proposes now is a code of
core.learning.readiness, whose English (NOW_WORDS) the command line says and which is worded
here through tr()."""

from __future__ import annotations

from typing import Any

from ..core.learning import readiness
from .i18n import tr


def mode_label(mode: str) -> str:
    """The short name of a choice of `learning` (a combo item, a radio button)."""
    labels = {
        "auto": tr("Automatic (recommended)"),
        "side": tr("The side judge (your side API)"),
        "client": tr("Your coding assistant's own model"),
        "off": tr("Off"),
    }
    return labels.get(mode, mode)


def confirm_label() -> str:
    """The one name of the `confirm` setting (Settings, the tray's toggle, the wizard's choice):
    a real display showed three ("Confirm before writing", "Ask before remembering", "Ask me in
    a native dialog") for one switch."""
    return tr("Ask before saving a learned memory")


def mode_help(mode: str) -> str:
    """What a choice means, in plain words."""
    texts = {
        "auto": tr(
            "The side judge when its API is set up below; otherwise your coding assistant's own model proposes memories, with nothing to configure."
        ),
        "side": tr(
            "An OpenAI-compatible endpoint you set up reads what you say and proposes memories. Prompts are filtered first: code and logs are removed and key-like strings are hidden."
        ),
        "client": tr(
            "Your coding assistant's own model proposes memories (through memevo's memory_propose tool); nothing to configure."
        ),
        "off": tr("Nothing is learned; memevo still recalls the memories you add by hand."),
    }
    return texts.get(mode, "")


def now_words() -> dict[str, str]:
    """Who proposes now, or why learning is off and what turns it on: readiness.NOW_WORDS's codes."""
    return {
        readiness.NOW_SIDE: tr("the side judge proposes memories"),
        readiness.NOW_CLIENT: tr("your coding assistant's model proposes memories"),
        readiness.OFF_CHOSEN: tr("off (you chose off)"),
        readiness.OFF_SIDE_UNSET: tr(
            "off: it is set to the side judge, whose API is not set up (base URL, model and key)"
        ),
        readiness.OFF_LEGACY: tr("off: set the side API in Settings or run `memevo setup`"),
    }


def effective(state: readiness.LearningState) -> str:
    """Who proposes now, as one phrase (the tray, the status panel, Settings)."""
    return now_words()[state.now]


def proposer(proposal: dict[str, Any], client: str) -> str:
    """Who proposed this memory: the side judge, the named client's own model, or memevo's
    consolidation pass (its near-duplicates and contradictions)."""
    if proposal.get("origin") == "consolidate":
        return tr("memevo's consolidation of your memories")
    if proposal.get("origin") != "client":
        return tr("the side judge")
    from ..installer.clients import DISPLAY_NAMES

    name = DISPLAY_NAMES.get(client)
    if name is None:
        return tr("your coding assistant's own model")
    return tr("{client}'s own model").format(client=name)
