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
    answer = ask(
        "Before a learned memory is written: 1) ask me in a native dialog  2) write it directly [1]: "
    )
    choices.confirm = answer.strip() not in ("2", "direct", "no", "n")
    print("The side API judges what you say (OpenAI-compatible chat/completions). Type `skip` to skip.")
    base = ask("  base URL (e.g. https://api.openai.com/v1): ").strip()
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


def ask_yes(question: str, default: bool, ask: Ask = input) -> bool:
    answer = ask(f"{question} [{'Y/n' if default else 'y/N'}]: ").strip().lower()
    return default if not answer else answer in ("y", "yes")
