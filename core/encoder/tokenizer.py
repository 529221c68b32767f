"""Token ids for the ONNX encoder, the same as the model's tokenizer.json gives, in less memory.

`tokenizers` keeps a Unigram vocabulary in a trie of hash maps: for multilingual-e5-small's
250k pieces that is +282 MB in the process that holds it; a plain dict of the pieces still
held +45-53 MB of Python objects. The pieces are kept here without an object each
(PieceTable: their UTF-8 bytes in one blob, their hashes sorted in one array, ~10 MB), and a
Viterbi pass in Python segments each word (about 60 µs for a short prompt): the normaliser
and the pre-tokeniser are still `tokenizers`' own, built from the same file, so only the
segmentation is ours, and it follows `tokenizers`' Unigram exactly (double-precision scores,
the same tie order, unknown characters scored min-score − 10 and fused into one <unk>). Tests
compare both on the verify sets and on thousands of random and hostile strings; provisioning
compares them again on the model it built and records the result. A tokenizer.json of any
other shape gets `tokenizers` itself.
"""

from __future__ import annotations

import json
import re
from array import array
from pathlib import Path
from typing import Any, Protocol

import numpy as np

# tokenizers' Unigram: an unknown character scores this much below the lowest piece.
UNK_PENALTY = 10.0
# substrings looked up at once: a long text's lookups are made a batch at a time
SPAN_BATCH = 4096


class TokenIds(Protocol):
    kind: str

    def encode(self, text: str) -> list[int]: ...


def load(path: Path, max_length: int, lean: bool = True) -> TokenIds:
    """The lean tokenizer when the file has the shape it reproduces, else `tokenizers`."""
    if lean:
        found = LeanUnigram.from_file(path, max_length)
        if found is not None:
            return found
    return FullTokenizer(path, max_length)


class FullTokenizer:
    """`tokenizers` itself, truncating as sentence-transformers does (right side)."""

    kind = "full"

    def __init__(self, path: Path, max_length: int) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length)

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text).ids)


class PieceTable:
    """piece -> id for a few hundred thousand pieces without a Python object per piece: their
    UTF-8 bytes in one blob, and their `hash()`es (this process's, computed at load) sorted in
    one array beside the ids. A lookup of many strings is one `searchsorted`; a hash that
    matches is confirmed on the piece's bytes, so the ids are exact, not probable."""

    def __init__(self, pieces: list[str]) -> None:
        encoded = [piece.encode("utf-8") for piece in pieces]
        self._blob = b"".join(encoded)
        ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))
        del encoded
        self._offsets = array("q", [0])
        self._offsets.frombytes(ends.tobytes())
        hashes = np.fromiter(map(hash, pieces), dtype=np.int64, count=len(pieces))
        order = np.argsort(hashes, kind="stable")  # equal hashes keep the ids' order
        self._hashes = hashes[order]
        self._ids = order.astype(np.int32)
        self.size = len(pieces)
        # Pieces that share a hash, by the first one's id (where searchsorted lands): a piece
        # listed twice, or two kinds of string with the same stored code units — Python's str
        # hash reads those, so "响" (one 2-byte unit) and "ÍT" (two 1-byte ones) hash alike
        # (about 500 pairs in multilingual-e5-small).
        self._shared: dict[int, list[int]] = {}
        group: list[int] = []
        previous = -2
        for position in np.flatnonzero(self._hashes[1:] == self._hashes[:-1]).tolist():
            if position != previous + 1:  # a run of equal hashes starts here
                group = self._shared.setdefault(int(self._ids[position]), [int(self._ids[position])])
            group.append(int(self._ids[position + 1]))
            previous = position

    def lookup(self, texts: list[str]) -> list[int]:
        """Each text's id, -1 where it is no piece. A piece listed twice has its last id (as a
        dict built in order, and `tokenizers`, give it)."""
        out = [-1] * len(texts)
        if not texts or not self.size:
            return out
        wanted = np.fromiter(map(hash, texts), dtype=np.int64, count=len(texts))
        at = np.searchsorted(self._hashes, wanted)
        np.minimum(at, self.size - 1, out=at)
        hits = np.flatnonzero(self._hashes[at] == wanted)
        blob, offsets, shared = self._blob, self._offsets, self._shared
        for k, piece in zip(hits.tolist(), self._ids[at[hits]].tolist(), strict=True):
            text = texts[k].encode("utf-8")
            if piece not in shared:
                if blob[offsets[piece] : offsets[piece + 1]] == text:
                    out[k] = piece
                continue
            for candidate in reversed(shared[piece]):  # the last id first
                if blob[offsets[candidate] : offsets[candidate + 1]] == text:
                    out[k] = candidate
                    break
        return out


class LeanUnigram:
    kind = "lean"

    def __init__(
        self,
        pipeline: Any,
        pieces: list[str],
        scores: array[float],
        unk_id: int,
        specials: dict[str, int],
        template: tuple[list[int], list[int]],
        max_length: int,
    ) -> None:
        self._normalizer = pipeline.normalizer
        self._pre_tokenizer = pipeline.pre_tokenizer
        self._pieces = PieceTable(pieces)
        self._scores = scores
        self._unk_id = unk_id
        self._unk_score = min(scores) - UNK_PENALTY
        # the longest piece starting with each character (by code point, at most 255) bounds
        # the Viterbi's inner loop: one byte per code point up to the highest first character
        firsts = np.fromiter((ord(piece[0]) if piece else 0 for piece in pieces), dtype=np.int64)  # '' adds 0
        lengths = np.minimum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)), 255)
        longest = np.zeros(int(firsts.max(initial=0)) + 1, dtype=np.uint8)
        np.maximum.at(longest, firsts, lengths.astype(np.uint8))
        self._longest = longest.tobytes()
        self._specials = specials
        # special tokens are matched in the raw text, leftmost-longest, before normalising
        alternatives = sorted(specials, key=len, reverse=True)
        self._split = re.compile("(" + "|".join(map(re.escape, alternatives)) + ")") if specials else None
        self._prefix, self._suffix = template
        self._room = max_length - len(self._prefix) - len(self._suffix)

    @classmethod
    def from_file(cls, path: Path, max_length: int) -> LeanUnigram | None:
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return None
        return cls.from_json(data, max_length)

    @classmethod
    def from_json(cls, data: dict[str, Any], max_length: int) -> LeanUnigram | None:
        """None unless every part of the file is one this class reproduces exactly."""
        from tokenizers import Tokenizer

        model = data.get("model")
        if not isinstance(model, dict) or model.get("type") != "Unigram" or model.get("byte_fallback"):
            return None
        vocab, unk_id = model.get("vocab"), model.get("unk_id")
        if not isinstance(vocab, list) or not vocab or not isinstance(unk_id, int):
            return None
        specials: dict[str, int] = {}
        for token in data.get("added_tokens") or []:
            plain = token.get("special") and not any(
                token.get(flag) for flag in ("normalized", "lstrip", "rstrip", "single_word")
            )
            if not plain:
                return None
            specials[str(token["content"])] = int(token["id"])
        template = _template(data.get("post_processor"))
        if template is None or data.get("truncation") or data.get("padding"):
            return None
        # tokenizers' own normaliser and pre-tokeniser, from the same file, on a one-piece model
        shell = {key: value for key, value in data.items() if key != "model"}
        shell |= {"added_tokens": [], "post_processor": None, "decoder": None}
        shell["model"] = {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0]], "byte_fallback": False}
        pipeline = Tokenizer.from_str(json.dumps(shell))
        pieces = [str(piece) for piece, _score in vocab]  # only for building the table
        scores = array("d", (float(score) for _piece, score in vocab))
        return cls(pipeline, pieces, scores, unk_id, specials, template, max_length)

    def encode(self, text: str) -> list[int]:
        words: list[str | int] = []  # a special token's id, or a word to segment
        segments = self._split.split(text) if self._split is not None else [text]
        for segment in segments:
            if not segment:
                continue
            special = self._specials.get(segment)
            if special is not None:
                words.append(special)
                continue
            normalized = self._normalizer.normalize_str(segment) if self._normalizer else segment
            if self._pre_tokenizer is None:
                words.append(normalized)
                continue
            words.extend(word for word, _offsets in self._pre_tokenizer.pre_tokenize_str(normalized))
        ids = self._segment(words)
        return [*self._prefix, *ids[: max(self._room, 0)], *self._suffix]

    def _segment(self, words: list[str | int]) -> list[int]:
        """The words' substrings looked up together (a few thousand at a time, so a long text
        holds no more), then each word's Viterbi."""
        ids: list[int] = []
        batch: list[tuple[str | int, int]] = []  # each word, and how far `asked` covers it
        asked: list[str] = []
        for word in words:
            batch.append((word, self._spans(word, 0, asked) if isinstance(word, str) else 0))
            if len(asked) >= SPAN_BATCH:
                self._run(batch, asked, ids)
                batch, asked = [], []
        self._run(batch, asked, ids)
        return ids

    def _spans(self, word: str, start: int, asked: list[str]) -> int:
        """The substrings the Viterbi asks about from position `start` on, in its order: at
        each position those up to the longest piece its character starts. Stops after the
        position that fills a batch; returns the position it reached."""
        longest, highest = self._longest, len(self._longest)
        ask = asked.append
        size = len(word)
        for i in range(start, size):
            code = ord(word[i])
            for j in range(i + 1, min(i + (longest[code] if code < highest else 0), size) + 1):
                ask(word[i:j])
            if len(asked) >= SPAN_BATCH:
                return i + 1
        return size

    def _run(self, batch: list[tuple[str | int, int]], asked: list[str], out: list[int]) -> None:
        found = self._pieces.lookup(asked)
        at = 0
        for word, covered in batch:
            if isinstance(word, int):
                out.append(word)
            else:
                at = self._viterbi(word, covered, found, at, out)

    def _viterbi(self, word: str, covered: int, found: list[int], at: int, out: list[int]) -> int:
        """tokenizers' Unigram.encode_optimized, over characters instead of bytes: the word's
        pieces appended to `out`. `found[at:]` holds the ids of its substrings (-1: no piece)
        up to position `covered`, where the rest of a long word is looked up. Returns where
        the next word's begin in `found`."""
        size = len(word)
        if not size:
            return at
        best = [0.0] + [float("-inf")] * size
        starts = [0] * (size + 1)
        chosen = [0] * (size + 1)
        scores, longest, highest = self._scores, self._longest, len(self._longest)
        unk_id, unk_score = self._unk_id, self._unk_score
        for i in range(size):
            if i == covered:
                asked: list[str] = []
                covered = self._spans(word, i, asked)
                found, at = self._pieces.lookup(asked), 0
            base = best[i]
            single = False
            code = ord(word[i])
            for j in range(i + 1, min(i + (longest[code] if code < highest else 0), size) + 1):
                piece = found[at]
                at += 1
                if piece < 0:
                    continue
                if j == i + 1:
                    single = True
                score = base + scores[piece]
                if score > best[j]:
                    best[j], starts[j], chosen[j] = score, i, piece
            if not single:
                score = base + unk_score
                if score > best[i + 1]:
                    best[i + 1], starts[i + 1], chosen[i + 1] = score, i, unk_id
        pieces: list[int] = []
        j = size
        while j > 0:
            pieces.append(chosen[j])
            j = starts[j]
        pieces.reverse()
        if unk_id not in pieces:
            out.extend(pieces)
            return at
        previous = -1  # consecutive unknown characters of the word become one <unk>
        for piece in pieces:
            if not (piece == unk_id and previous == unk_id):
                out.append(piece)
            previous = piece
        return at


def _template(processor: Any) -> tuple[list[int], list[int]] | None:
    """The ids around a single sequence: TemplateProcessing or RobertaProcessing."""
    if not isinstance(processor, dict):
        return None
    if processor.get("type") == "RobertaProcessing":
        cls_token, sep_token = processor.get("cls"), processor.get("sep")
        if not (isinstance(cls_token, list) and isinstance(sep_token, list)):
            return None
        return [int(cls_token[1])], [int(sep_token[1])]
    if processor.get("type") != "TemplateProcessing":
        return None
    tokens = processor.get("special_tokens") or {}
    before: list[int] = []
    after: list[int] = []
    seen_sequence = False
    for item in processor.get("single") or []:
        if "Sequence" in item:
            if seen_sequence:
                return None
            seen_sequence = True
            continue
        name = item.get("SpecialToken", {}).get("id")
        ids = tokens.get(name, {}).get("ids")
        if not isinstance(ids, list):
            return None
        (after if seen_sequence else before).extend(int(i) for i in ids)
    return (before, after) if seen_sequence else None
