"""The terms of the lexical signal (lexical.py): what a text is cut into before BM25.

- identifiers, paths and hosts stay whole (`git.internal.com/platform/auth-service`), and
  their parts count too (`auth`, `service`; camelCase `ImageLoader` gives `image`, `loader`);
- English words are lower-cased and lightly stemmed (`commits`, `committed` → `commit`), common
  words dropped;
- Chinese is cut at function characters (的, 了, 是, 我, 这 …) and each piece gives its
  character bigrams (a lone character between them is too vague to count): no dictionary, no model, the same
  terms on every machine; a few generic bigrams (可以, 怎么, 直接 …) are dropped;
- the concept terms of concepts.py are added (「提交」 and `commit` share one).

The stop lists are data (`resources/lexical-stop-words.json`); the lexical index file is tied
to them and to this code (lexical_file.rules_version).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from .. import resources_access
from .concepts import concept_terms

STOP_LISTS = "lexical-stop-words.json"
# a Chinese character (CJK unified ideographs, extension A, compatibility ideographs); also
# crossing.py's, which weighs a text's Chinese against its Latin words
HAN_CLASS = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
HAN = re.compile(HAN_CLASS)
_TOKEN = re.compile(
    r"[A-Za-z0-9_]+(?:[.\-/:@+#][A-Za-z0-9_]+)*"  # words, identifiers, paths, hosts, versions
    rf"|{HAN_CLASS}+"  # a run of Chinese characters
)
_PARTS = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOPS = resources_access.read_json(STOP_LISTS)
# Characters that carry grammar rather than topic: a Chinese run is cut at each of them.
_FUNCTION_CHARS = frozenset(str(_STOPS["function_chars"]))
_STOP_BIGRAMS = frozenset(str(w) for w in _STOPS["stop_bigrams"])
_STOP_WORDS = frozenset(str(w) for w in _STOPS["stop_words"])


def _stem(word: str) -> str:
    """A light English stemmer: plural, -ing, -ed, doubled final consonant, final e."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("es", ""), ("s", ""), ("ing", ""), ("ed", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                continue
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: len(word) - len(suffix)] + keep
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouslz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _word_terms(token: str) -> list[str]:
    """An identifier or word: whole (lower-cased), and its parts when it has several."""
    whole = token.lower()
    parts = [p for chunk in _PARTS.findall(token) for p in _CAMEL.findall(chunk)]
    if len(parts) <= 1:
        if whole in _STOP_WORDS or (len(whole) < 2 and not whole.isdigit()):
            return []
        return [_stem(whole)]
    out = [whole]
    for part in parts:
        lowered = part.lower()
        if len(lowered) >= 2 and lowered not in _STOP_WORDS:
            out.append(_stem(lowered))
    return out


def _han_terms(run: str) -> list[str]:
    out: list[str] = []
    piece: list[str] = []
    for char in [*run, "的"]:  # a trailing function character flushes the last piece
        if char not in _FUNCTION_CHARS:
            piece.append(char)
            continue
        for first, second in itertools.pairwise(piece):
            bigram = first + second
            if bigram not in _STOP_BIGRAMS:
                out.append(bigram)
        piece = []
    return out


def terms(text: str) -> list[str]:
    """The lexical terms of a text, in order, with repeats."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        out.extend(_han_terms(token) if HAN.match(token) else _word_terms(token))
    return out + concept_terms(text)
