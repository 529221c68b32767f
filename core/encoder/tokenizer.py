"""Token ids for the ONNX encoder, the same as the model's tokenizer.json gives, in less memory.

`tokenizers` keeps a Unigram vocabulary in a trie of hash maps: for multilingual-e5-small's
250k pieces that is +282 MB in the process that holds it. The same ids come from a plain
dict of pieces and a Viterbi pass in Python (+71 MB, about 60 µs for a short prompt, 0.5 ms
for 200 characters): the normaliser and the pre-tokeniser are still `tokenizers`' own,
built from the same file, so only the segmentation is ours, and it follows `tokenizers`'
Unigram exactly (double-precision scores, the same tie order, unknown characters scored
min-score − 10 and fused into one <unk>). A test compares both on the verify set and on
thousands of random mixed-script strings; provisioning compares them again on the model it
built and records the result. A tokenizer.json of any other shape gets `tokenizers` itself.
"""

from __future__ import annotations

import json
import re
from array import array
from pathlib import Path
from typing import Any, Protocol

# tokenizers' Unigram: an unknown character scores this much below the lowest piece.
UNK_PENALTY = 10.0


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


class LeanUnigram:
    kind = "lean"

    def __init__(
        self,
        pipeline: Any,
        pieces: dict[str, int],
        scores: array[float],
        unk_id: int,
        specials: dict[str, int],
        template: tuple[list[int], list[int]],
        max_length: int,
    ) -> None:
        self._normalizer = pipeline.normalizer
        self._pre_tokenizer = pipeline.pre_tokenizer
        self._pieces = pieces
        self._scores = scores
        self._unk_id = unk_id
        self._unk_score = min(scores) - UNK_PENALTY
        # the longest piece starting with each character bounds the Viterbi's inner loop
        longest: dict[str, int] = {}
        for piece in pieces:
            if piece and len(piece) > longest.get(piece[0], 0):
                longest[piece[0]] = len(piece)
        self._longest = longest
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
        # Fresh copies of the pieces: the parsed JSON's strings sit between its lists and
        # floats, and once those are freed the half-empty memory pages stay with the process
        # (tens of MB more resident; the service's memory: `service_rss_mb`, docs/performance.md).
        pieces = {(str(piece) + "\0")[:-1]: i for i, (piece, _score) in enumerate(vocab)}
        scores = array("d", (float(score) for _piece, score in vocab))
        return cls(pipeline, pieces, scores, unk_id, specials, template, max_length)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        segments = self._split.split(text) if self._split is not None else [text]
        for segment in segments:
            if not segment:
                continue
            special = self._specials.get(segment)
            if special is not None:
                ids.append(special)
                continue
            normalized = self._normalizer.normalize_str(segment) if self._normalizer else segment
            if self._pre_tokenizer is None:
                ids.extend(self._viterbi(normalized))
                continue
            for word, _offsets in self._pre_tokenizer.pre_tokenize_str(normalized):
                ids.extend(self._viterbi(word))
        return [*self._prefix, *ids[: max(self._room, 0)], *self._suffix]

    def _viterbi(self, word: str) -> list[int]:
        """tokenizers' Unigram.encode_optimized, over characters instead of bytes."""
        size = len(word)
        if not size:
            return []
        best = [0.0] + [float("-inf")] * size
        starts = [0] * (size + 1)
        chosen = [0] * (size + 1)
        pieces, scores, longest = self._pieces.get, self._scores, self._longest.get
        unk_id, unk_score = self._unk_id, self._unk_score
        for i in range(size):
            base = best[i]
            single = False
            end = min(i + longest(word[i], 0), size)
            for j in range(i + 1, end + 1):
                piece = pieces(word[i:j])
                if piece is None:
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
        out: list[int] = []
        j = size
        while j > 0:
            out.append(chosen[j])
            j = starts[j]
        out.reverse()
        if unk_id not in out:
            return out
        fused: list[int] = []  # consecutive unknown characters become one <unk>
        for piece in out:
            if not (piece == unk_id and fused and fused[-1] == unk_id):
                fused.append(piece)
        return fused


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
