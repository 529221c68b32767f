"""A prompt's sentences, each scored beside the whole prompt.

One vector for a prompt of several sentences is the mean of what they say: a chat turn that
greets, tells what happened and asks a question sits near none of the memories any one
sentence is about, so long conversational prompts scored far below short ones about the
same memory. Recall therefore also encodes each sentence of a prompt (at most
`MAX_SENTENCES`, each at least `MIN_WIDTH` columns wide) and a memory's cosine is the best of
the whole prompt's and its sentences'. A prompt of one sentence costs nothing more. The
cut is at sentence ends in either language and at line breaks; it is linear in the prompt,
which recall has already cut to at most 500 characters.
"""

from __future__ import annotations

import re

from ..memories.text import text_width

MAX_SENTENCES = 6
MIN_WIDTH = 6  # as the prompt itself (textfilter.MIN_INPUT_WIDTH): shorter says too little
# after a Chinese or full-width stop, or a Latin one followed by a space; and at line breaks
_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.!?;])\s+|\n+")


def split(text: str) -> list[str]:
    """The prompt's sentences worth a vector of their own; [] when it has fewer than two."""
    found = [part.strip() for part in _END.split(text)]
    kept = [part for part in found if part and text_width(part) >= MIN_WIDTH]
    if len(kept) < 2:
        return []
    if len(kept) > MAX_SENTENCES:  # a long chat: how it opens and what it ends asking
        half = MAX_SENTENCES // 2
        kept = kept[:half] + kept[-half:]
    return kept
