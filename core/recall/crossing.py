"""Prompts and memories in different languages: the gap the model leaves between them.

Taking the language direction out of every vector (encoder/background.py) brings a Chinese
memory and the English prompt that asks for it closer, but not as close as the same two
texts in one language: across languages every cosine still sits lower, the related and the
unrelated alike, so an absolute minimum chosen on same-language pairs lets almost no
cross-lingual pair through even when it ranks first. The gap is a property of the pair, so it
is closed per pair: each memory and each prompt carry their share of Chinese (Han characters
against Latin words, so an identifier in a Chinese sentence keeps it Chinese), and a pair's
cosine gains `bonus x |share(prompt) - share(memory)|` — nothing for two texts of one
language, the whole calibrated bonus for a Chinese memory and an English prompt, and part of
it for mixed texts. No text's language is decided; the bonus is chosen by calibration
(calibration.py, calibrate.py) like the minimums.
"""

from __future__ import annotations

import re

import numpy as np

from .terms import HAN

_WORD = re.compile(r"[A-Za-z]+")
# Enough of a long text to tell its languages apart: the share is bounded work per text.
SAMPLE = 2000


def chinese_share(text: str) -> float:
    """Han characters over Han characters plus Latin words (0: no Chinese, 1: only Chinese);
    a text with neither counts as 0.5, between the two."""
    sample = text[:SAMPLE]
    han = len(HAN.findall(sample))
    words = len(_WORD.findall(sample))
    if han + words == 0:
        return 0.5
    return han / (han + words)


def shares(texts: list[str]) -> np.ndarray:
    return np.asarray([chinese_share(t) for t in texts], dtype=np.float32)


def bonus(query_share: float, memory_shares: np.ndarray, amount: float) -> np.ndarray:
    """What each memory's cosine gains against this prompt."""
    return np.asarray(amount * np.abs(memory_shares - np.float32(query_share)), dtype=np.float32)
