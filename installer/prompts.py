"""The terminal questions of `memevo setup` (the wizard asks the same in Qt). Enter takes the
default; `skip` skips the side API; the key is read without echo."""

from __future__ import annotations

import getpass
from collections.abc import Callable

from .setup_engine import Choices

Ask = Callable[[str], str]


def ask_choices(permission_question: str | None, ask: Ask = input, secret: Ask = getpass.getpass) -> Choices:
    """permission_question: an installed client's question about its permission rule (None: none)."""
    choices = Choices()
    print("memevo setup — Enter takes the default in [brackets].")
    answer = _ask_until(
        ask,
        "Before a learned memory is written: 1) ask me in a native dialog  2) write it directly [1]: ",
        lambda text: None if text in ("", "1", "2", "ask", "direct") else "answer 1 or 2 (Enter: 1)",
    )
    choices.confirm = answer != "2" and answer != "direct"
    print("The side API judges what you say (OpenAI-compatible chat/completions). Type `skip` to skip.")
    base = _ask_until(ask, "  base URL (e.g. https://api.openai.com/v1): ", _url_problem)
    if base and base.lower() != "skip":
        choices.side_base = base
        model = ask("  model: ").strip()
        choices.side_model = model if model and model.lower() != "skip" else None
        key = secret("  API key (not shown; stored in the OS keyring): ").strip()
        choices.side_key = key if key and key.lower() != "skip" else None
    if permission_question:
        answer = ask(permission_question)
        choices.allow_resolve = answer.strip().lower() in ("y", "yes")
    return choices


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
