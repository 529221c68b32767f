"""The terminal questions of `memevo setup` (the wizard asks the same in Qt). Enter takes the
default; `skip` skips the side API; the key is read without echo.

Order: how memevo learns (the config's `learning`), then — when something is learned — the
confirmation mode, then the side API (only for auto and side; optional either way), then a
client's permission rule."""

from __future__ import annotations

import getpass
from collections.abc import Callable

from ..core.config import LEARNING_MODES
from ..core.learning import readiness
from .setup_engine import Choices

Ask = Callable[[str], str]

# What each learning mode means, as the question words it (one or more lines). The modes and
# their order are core's (config.LEARNING_MODES), numbered in that order; Enter takes the first.
MODE_WORDS: dict[str, str] = {
    readiness.AUTO: "your coding assistant's own model proposes memories (nothing extra to configure);\n"
    "a side API is used instead if you configure one below",
    readiness.SIDE: "only a side API you configure below (without one, nothing is learned)",
    readiness.CLIENT: "only your coding assistant's own model (no side API)",
    readiness.OFF: "nothing new is learned (what you have is still recalled)",
}


def ask_choices(permission_question: str | None, ask: Ask = input, secret: Ask = getpass.getpass) -> Choices:
    """permission_question: an installed client's question about its permission rule (None: none)."""
    choices = Choices()
    print("memevo setup — Enter takes the default in [brackets].")
    choices.learning = ask_learning(ask)
    if choices.learning != readiness.OFF:
        answer = _ask_until(
            ask,
            "Before a learned memory is written: 1) ask me in a native dialog  2) write it directly [1]: ",
            lambda text: None if text in ("", "1", "2", "ask", "direct") else "answer 1 or 2 (Enter: 1)",
        )
        choices.confirm = answer != "2" and answer != "direct"
    if choices.learning in (readiness.AUTO, readiness.SIDE):
        _ask_side_api(choices, choices.learning, ask, secret)
    if permission_question:
        answer = ask(permission_question)
        choices.allow_resolve = answer.strip().lower() in ("y", "yes")
    return choices


def ask_learning(ask: Ask = input) -> str:
    """The learning mode: a number or a mode's name; Enter (or too many wrong answers) is auto."""
    print("How should memevo learn what you tell your assistant?")
    for number, mode in enumerate(LEARNING_MODES, 1):
        head = f"  {number}) {mode} — "
        first, *more = MODE_WORDS[mode].split("\n")
        print(head + first)
        for line in more:
            print(" " * len(head) + line)
    answer = _ask_until(ask, f"Learning [1 {LEARNING_MODES[0]}]: ", _learning_problem)
    return _learning_mode(answer.lower()) or LEARNING_MODES[0]


def _learning_problem(answer: str) -> str | None:
    if answer == "" or _learning_mode(answer):
        return None
    numbers = [str(n) for n in range(1, len(LEARNING_MODES) + 1)]
    return (
        f"answer {', '.join(numbers[:-1])} or {numbers[-1]}, or {', '.join(LEARNING_MODES)}"
        f" (Enter: {LEARNING_MODES[0]})"
    )


def _learning_mode(answer: str) -> str | None:
    if answer in LEARNING_MODES:
        return answer
    if answer.isdigit() and 1 <= int(answer) <= len(LEARNING_MODES):
        return LEARNING_MODES[int(answer) - 1]
    return None


def _ask_side_api(choices: Choices, learning: str, ask: Ask, secret: Ask) -> None:
    if learning == readiness.SIDE:
        print(
            "The side API judges what you say (OpenAI-compatible chat/completions); without it nothing"
            " is learned. Type `skip` to skip."
        )
    else:
        print(
            "Optional: a side API (OpenAI-compatible chat/completions) judges what you say instead of"
            " your assistant's model. Type `skip` to skip."
        )
    base = _ask_until(ask, "  base URL (e.g. https://api.openai.com/v1): ", _url_problem)
    if not base or base.lower() == "skip":
        if learning == readiness.SIDE:
            print(
                "  No side API: nothing is learned until you configure one (`memevo setup` again, or"
                " `memevo config sideApiBase URL`, `memevo config sideApiModel NAME`, `memevo secret set`)."
            )
        return
    choices.side_base = base
    model = ask("  model: ").strip()
    choices.side_model = model if model and model.lower() != "skip" else None
    key = secret("  API key (not shown; stored in the OS keyring): ").strip()
    choices.side_key = key if key and key.lower() != "skip" else None


ATTEMPTS = 5  # then the default: a script answering garbage forever still finishes


def _ask_until(ask: Ask, question: str, problem: Callable[[str], str | None]) -> str:
    """The answer once it is acceptable (asked again, saying why, when it is not)."""
    for _ in range(ATTEMPTS):
        answer = ask(question).strip()
        why = problem(answer.lower())
        if why is None:
            return answer
        print(f"  {why}")
    return ""


def _url_problem(answer: str) -> str | None:
    if answer in ("", "skip"):
        return None
    from ..core.config import BY_NAME

    try:
        BY_NAME["sideApiBase"].validate(answer)
    except ValueError as exc:
        return f"the base URL {exc} (or `skip`)"
    return None


def ask_yes(question: str, default: bool, ask: Ask = input) -> bool:
    answer = ask(f"{question} [{'Y/n' if default else 'y/N'}]: ").strip().lower()
    return default if not answer else answer in ("y", "yes")
