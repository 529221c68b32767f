"""Token ids for the ONNX encoder, the same as the model's tokenizer.json gives, in less memory.

`tokenizers` keeps a Unigram vocabulary in a trie of hash maps: for multilingual-e5-small's
250k pieces that is hundreds of MB in the process that holds it; a plain dict of the pieces
still holds tens of MB of Python objects. The pieces are kept without an object each (PieceTable, in
`tokenizer_table.py`, with the file it is mapped from), and a Viterbi pass in Python segments
each word (a small part of an encode: `memevo bench --json`, encode_ms): the normaliser and the pre-tokeniser are still
`tokenizers`' own, built from the same file, so only the segmentation is ours, and it follows
`tokenizers`' Unigram exactly (double-precision scores, the same tie order, unknown characters
scored min-score − 10 and fused into one <unk>). Tests compare both on the verify sets and on
thousands of random and hostile strings; provisioning compares them again on the model it
built and records the result. A tokenizer.json of any other shape gets `tokenizers` itself.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import re
import sys
from pathlib import Path
from typing import Any, Protocol

from .tokenizer_table import Vocabulary, map_pack, write_pack

# tokenizers' Unigram: an unknown character scores this much below the lowest piece.
UNK_PENALTY = 10.0
# substrings looked up at once: a long text's lookups are made a batch at a time
SPAN_BATCH = 4096

log = logging.getLogger("memevo.encoder")


class TokenIds(Protocol):
    kind: str

    def encode(self, text: str) -> list[int]: ...


def load(path: Path, max_length: int, lean: bool = True) -> TokenIds:
    """The lean tokenizer when the file has the shape it reproduces, else `tokenizers`. The
    lean one is mapped from its pack beside the file, written first if it is not there."""
    if lean:
        found = LeanUnigram.from_pack(path, max_length)
        if found is not None:
            return found
        built = Vocabulary.from_file(path)
        if built is not None:
            if sys.byteorder == "little":  # the pack's arrays are little-endian, used in place
                try:
                    write_pack(path, built)
                except Exception as exc:  # a read-only folder, a full disk: the table built in memory serves
                    log.info("could not write the tokenizer's table beside %s: %s", path, exc)
                else:
                    mapped = LeanUnigram.from_pack(path, max_length)
                    if mapped is not None:
                        return mapped
            return LeanUnigram(built, max_length)
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


class LeanUnigram:
    kind = "lean"

    def __init__(self, vocab: Vocabulary, max_length: int) -> None:
        from tokenizers import Tokenizer

        pipeline = Tokenizer.from_str(vocab.pipeline)
        self._normalizer = pipeline.normalizer
        self._pre_tokenizer = pipeline.pre_tokenizer
        self._pieces = vocab.table
        self._scores = vocab.scores
        self._unk_id = vocab.unk_id
        self._unk_score = vocab.min_score - UNK_PENALTY
        self._longest = vocab.longest
        self._astral = vocab.astral
        self._specials = vocab.specials
        # special tokens are matched in the raw text, leftmost-longest, before normalising
        alternatives = sorted(self._specials, key=len, reverse=True)
        self._split = re.compile("(" + "|".join(map(re.escape, alternatives)) + ")") if alternatives else None
        self._prefix, self._suffix = vocab.template
        self._room = max_length - len(self._prefix) - len(self._suffix)
        self.mapped = vocab.mapped
        self._region = vocab.region

    def release_pages(self) -> None:
        """Unmap the pack's pages from this process, at rest: they are clean pages of a file
        (the page cache keeps them), and a prompt's lookups fault in most of the pack whatever
        it asks (binary searches across it; large folios), RSS held for nothing between bursts.
        The next prompt maps them again from the page cache (`memevo bench --json`:
        service_rss_mb)."""
        if self._region is not None and hasattr(mmap, "MADV_DONTNEED"):
            with contextlib.suppress(OSError, ValueError):  # closed, or a kernel without it
                self._region.madvise(mmap.MADV_DONTNEED)

    @classmethod
    def from_file(cls, path: Path, max_length: int) -> LeanUnigram | None:
        """Built in memory from tokenizer.json (provisioning compares this with `tokenizers`)."""
        vocab = Vocabulary.from_file(path)
        return cls(vocab, max_length) if vocab is not None else None

    @classmethod
    def from_json(cls, data: dict[str, Any], max_length: int) -> LeanUnigram | None:
        vocab = Vocabulary.from_json(data)
        return cls(vocab, max_length) if vocab is not None else None

    @classmethod
    def from_pack(cls, path: Path, max_length: int) -> LeanUnigram | None:
        """Mapped from the pack beside tokenizer.json; None when there is no usable pack."""
        vocab = map_pack(path)
        return cls(vocab, max_length) if vocab is not None else None

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
        longest, highest, astral = self._longest, len(self._longest), self._astral
        ask = asked.append
        size = len(word)
        for i in range(start, size):
            code = ord(word[i])
            for j in range(
                i + 1, min(i + (longest[code] if code < highest else astral.get(code, 0)), size) + 1
            ):
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
        scores, longest, highest, astral = self._scores, self._longest, len(self._longest), self._astral
        unk_id, unk_score = self._unk_id, self._unk_score
        for i in range(size):
            if i == covered:
                asked: list[str] = []
                covered = self._spans(word, i, asked)
                found, at = self._pieces.lookup(asked), 0
            base = best[i]
            single = False
            code = ord(word[i])
            for j in range(
                i + 1, min(i + (longest[code] if code < highest else astral.get(code, 0)), size) + 1
            ):
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
