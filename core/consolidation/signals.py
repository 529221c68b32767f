"""What two memories' texts say beside their vectors: how many words they share, and whether
they give different values for the same thing.

A contradiction is two statements of one frame with a different value in it: 「回答用中文」 and
「回答用英文」 (a language), "port 8080" and "port 9090" (a number), `pay_new_flow_v2` and
`pay_new_flow_v3` (a name), "tabs" and "spaces" or 打开 and 关闭 (a choice between known
alternatives), or the same rule said and negated (「不要自动 commit」 and 「自动 commit」).
Each text is scanned once with single-class regular expressions (linear, no backtracking) and
its terms come from the recall's own lexical tokenizer (core/recall/lexical.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..recall.terms import terms

MAX_CHARS = 1000  # memories hold at most 400 characters; anything longer is cut here

# Names and numbers: one character class repeated (linear).
_ASCII = re.compile(r"[A-Za-z0-9_.\-/@:]+")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*")
_HAN_NUMBER = re.compile(r"[一二两三四五六七八九十百千]+(?=[个次人天秒条位名台种遍])")
_HAN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

# Alternatives of one choice: a text naming one and another naming another disagree.
_CHOICES: dict[str, tuple[str, ...]] = {
    "language": ("中文", "英文", "日文", "韩文", "chinese", "english", "japanese", "korean"),
    "indent": ("tab", "tabs", "space", "spaces", "空格", "制表符"),
    "switch": ("enabled", "enable", "disabled", "disable", "打开", "开启", "启用", "关闭", "禁用"),
    "always": ("always", "never", "总是", "始终", "从不"),
    "level": ("debug", "info", "warning", "warn", "error"),
    "package": ("npm", "pnpm", "yarn", "bun"),
}
# Words that mean the same alternative.
_SAME = {
    "tabs": "tab",
    "spaces": "space",
    "空格": "space",
    "制表符": "tab",
    "enabled": "on",
    "enable": "on",
    "打开": "on",
    "开启": "on",
    "启用": "on",
    "disabled": "off",
    "disable": "off",
    "关闭": "off",
    "禁用": "off",
    "中文": "chinese",
    "英文": "english",
    "日文": "japanese",
    "韩文": "korean",
    "总是": "always",
    "始终": "always",
    "从不": "never",
    "warn": "warning",
}
_HAN_CHOICES = tuple(
    sorted((w for ws in _CHOICES.values() for w in ws if not w.isascii()), key=len, reverse=True)
)
_KIND_OF = {word: kind for kind, words in _CHOICES.items() for word in words}
# A rule said the other way round: 「不要自动 commit」 against 「自动 commit」.
_NEGATIONS_HAN = ("不要", "不用", "不需要", "无需", "不必", "不能", "不得", "禁止", "别", "勿")
_NEGATIONS_EN = frozenset(["not", "never", "don't", "dont", "doesn't", "no", "without"])
_WORD = re.compile(r"[A-Za-z']+")


@dataclass(frozen=True)
class Reading:
    """One text as the pair signals need it: its terms, its values (kind -> values), whether
    it is negated, and its frame (the terms left once values and negations are taken out)."""

    terms: frozenset[str]
    values: dict[str, frozenset[str]]
    negated: bool
    frame: frozenset[str]


def read(text: str) -> Reading:
    text = text[:MAX_CHARS]
    values: dict[str, set[str]] = {}
    blanked = list(text)

    def blank(start: int, end: int) -> None:
        for at in range(start, end):
            blanked[at] = " "

    for match in _ASCII.finditer(text):
        token = match.group(0).strip(".:/-")
        low = token.lower()
        kind = _KIND_OF.get(low)
        if kind is not None:
            values.setdefault(kind, set()).add(_SAME.get(low, low))
        elif _NUMBER.fullmatch(token):
            values.setdefault("number", set()).add(token)
        elif any(ch.isdigit() for ch in token) or any(ch in "_./@" for ch in token):
            values.setdefault("name", set()).add(low)
        else:
            continue
        blank(match.start(), match.end())
    for match in _HAN_NUMBER.finditer(text):
        word = match.group(0)
        values.setdefault("number", set()).add(str(_HAN_DIGITS.get(word, word)))
        blank(match.start(), match.end())
    joined = "".join(blanked)
    for word in _HAN_CHOICES:  # a handful of fixed words: each find is linear
        start = joined.find(word)
        while start >= 0:
            values.setdefault(_KIND_OF[word], set()).add(_SAME.get(word, word))
            blank(start, start + len(word))
            joined = "".join(blanked)
            start = joined.find(word, start + len(word))
    negated = any(word in text for word in _NEGATIONS_HAN) or any(
        w.lower() in _NEGATIONS_EN for w in _WORD.findall(text)
    )
    for word in _NEGATIONS_HAN:
        joined = joined.replace(word, " ")
    frame_words = " ".join(w for w in joined.split() if w.lower() not in _NEGATIONS_EN)
    return Reading(
        frozenset(terms(text)),
        {kind: frozenset(found) for kind, found in values.items()},
        negated,
        frozenset(terms(frame_words)),
    )


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class PairSignals:
    lexical: float  # the share of terms the two texts have in common (Jaccard)
    frame: float  # the same, values and negations left out
    conflict: str | None  # what differs: a value's kind ("number", "language" …) or "negation"


def compare(a: Reading, b: Reading) -> PairSignals:
    """A conflict: for one kind of value, each text has one the other lacks (a substitution,
    not an addition), or one text negates what the other says."""
    conflict = None
    for kind in sorted(a.values.keys() & b.values.keys()):
        if a.values[kind] - b.values[kind] and b.values[kind] - a.values[kind]:
            conflict = kind
            break
    if conflict is None and a.negated != b.negated:
        conflict = "negation"
    return PairSignals(jaccard(a.terms, b.terms), jaccard(a.frame, b.frame), conflict)
