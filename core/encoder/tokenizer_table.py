"""The lean tokenizer's table: its pieces, their scores and what bounds its Viterbi, built from
tokenizer.json and kept in the file beside it (`tokenizer-lean.bin`, mapped read-only).

The pieces are kept here without a Python object each (PieceTable: their UTF-8 bytes in one
blob, the CRC-32s of those bytes sorted in one array beside their ids, their scores);
why, and the segmentation that runs on this table, are in `tokenizer.py`.

The table is built from tokenizer.json once and written beside it (PACK, `tokenizer-lean.bin`);
later loads map that file read-only, so only the pages prompts touch are resident, and none of
tokenizer.json's JSON is parsed again. A pack that is missing, damaged, of another
format or of another tokenizer.json (its SHA-256 is in the pack) is built again; where it
cannot be written, the table built in memory serves as before.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import sys
import zlib
from array import array
from pathlib import Path
from typing import Any

import numpy as np

# the table built from tokenizer.json, beside it: a header, then its arrays, mapped read-only
PACK = "tokenizer-lean.bin"
PACK_MAGIC = b"memevo-lean-tokenizer\n"
PACK_FORMAT = 2  # 2: the first-character table stops at the BMP, astral ones in the header
BMP = 0x10000
_ALIGN = 64


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate is no piece, and no error


class PieceTable:
    """piece -> id for a few hundred thousand pieces without a Python object per piece: their
    UTF-8 bytes in one blob (`offsets`: where each starts, and the end), the CRC-32 of each
    piece's bytes sorted in one array beside the ids. A lookup of many strings is one
    `searchsorted`; a key that matches is confirmed on the piece's bytes, so the ids are exact,
    not probable. The arrays are built here or are views of the mapped pack; `shared` lists
    the pieces that share a key, by the first one's id (where searchsorted lands): a piece
    listed twice, or two whose CRC-32s are equal ("plumless" and "buckeroo")."""

    def __init__(
        self, keys: np.ndarray, ids: np.ndarray, blob: Any, offsets: Any, shared: dict[int, list[int]]
    ) -> None:
        self._keys, self._ids, self._blob, self._offsets, self._shared = keys, ids, blob, offsets, shared
        self.size = len(keys)

    @classmethod
    def build(cls, pieces: list[str]) -> PieceTable:
        encoded = [_utf8(piece) for piece in pieces]
        blob = b"".join(encoded)
        ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))
        offsets = array("q", [0])
        offsets.frombytes(ends.tobytes())
        keys = np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(encoded))
        del encoded
        order = np.argsort(keys, kind="stable")  # equal keys keep the ids' order
        keys, ids = keys[order], order.astype(np.int32)
        shared: dict[int, list[int]] = {}
        group: list[int] = []
        previous = -2
        for position in np.flatnonzero(keys[1:] == keys[:-1]).tolist():
            if position != previous + 1:  # a run of equal keys starts here
                group = shared.setdefault(int(ids[position]), [int(ids[position])])
            group.append(int(ids[position + 1]))
            previous = position
        return cls(keys, ids, blob, offsets, shared)

    def lookup(self, texts: list[str]) -> list[int]:
        """Each text's id, -1 where it is no piece. A piece listed twice has its last id (as a
        dict built in order, and `tokenizers`, give it)."""
        out = [-1] * len(texts)
        if not texts or not self.size:
            return out
        encoded = [text.encode("utf-8", "surrogatepass") for text in texts]  # as _utf8, inline
        wanted = np.fromiter(map(zlib.crc32, encoded), dtype=np.uint32, count=len(encoded))
        at = np.searchsorted(self._keys, wanted)
        np.minimum(at, self.size - 1, out=at)
        hits = np.flatnonzero(self._keys[at] == wanted)
        blob, offsets, shared = self._blob, self._offsets, self._shared
        for k, piece in zip(hits.tolist(), self._ids[at[hits]].tolist(), strict=True):
            text = encoded[k]
            if piece not in shared:
                if blob[offsets[piece] : offsets[piece + 1]] == text:
                    out[k] = piece
                continue
            for candidate in reversed(shared[piece]):  # the last id first
                if blob[offsets[candidate] : offsets[candidate + 1]] == text:
                    out[k] = candidate
                    break
        return out


class Vocabulary:
    """What the lean tokenizer runs on, built from tokenizer.json or mapped from its pack."""

    def __init__(
        self,
        pipeline: str,
        table: PieceTable,
        scores: Any,
        longest: Any,
        astral: dict[int, int],
        unk_id: int,
        min_score: float,
        specials: dict[str, int],
        template: tuple[list[int], list[int]],
    ) -> None:
        self.pipeline = pipeline  # tokenizers' normaliser and pre-tokeniser, as JSON
        self.table, self.scores, self.longest, self.astral = table, scores, longest, astral
        self.unk_id, self.min_score = unk_id, min_score
        self.specials, self.template = specials, template
        self.source_sha256 = ""
        self.mapped = False  # True: its arrays are views of the pack, mapped read-only
        self.region: mmap.mmap | None = None  # that mapping

    @classmethod
    def from_file(cls, path: Path) -> Vocabulary | None:
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
        except (OSError, ValueError):
            return None
        found = cls.from_json(data)
        if found is not None:
            found.source_sha256 = hashlib.sha256(raw).hexdigest()
        return found

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Vocabulary | None:
        """None unless every part of the file is one the lean tokenizer reproduces exactly."""
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
        pieces = [str(piece) for piece, _score in vocab]  # only for building the table
        scores = array("d", (float(score) for _piece, score in vocab))
        # the longest piece starting with each character (by code point, at most 255) bounds
        # the Viterbi's inner loop: one byte per code point up to the highest first character
        # in the BMP, and a dict for the few hundred astral ones (a byte each to U+10FFFF: 1 MB)
        firsts = np.fromiter((ord(piece[0]) if piece else 0 for piece in pieces), dtype=np.int64)  # '' adds 0
        lengths = np.minimum(np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)), 255)
        bmp = firsts < BMP
        longest = np.zeros(int(firsts[bmp].max(initial=0)) + 1, dtype=np.uint8)
        np.maximum.at(longest, firsts[bmp], lengths[bmp].astype(np.uint8))
        astral: dict[int, int] = {}
        for code, length in zip(firsts[~bmp].tolist(), lengths[~bmp].tolist(), strict=True):
            astral[code] = max(astral.get(code, 0), length)
        table = PieceTable.build(pieces)
        return cls(
            json.dumps(shell),
            table,
            scores,
            longest.tobytes(),
            astral,
            unk_id,
            min(scores),
            specials,
            template,
        )


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


def write_pack(path: Path, vocab: Vocabulary) -> None:
    """The vocabulary's table beside tokenizer.json (atomically): a JSON header, then each
    array little-endian at a 64-byte boundary; the header holds the source's and the arrays'
    SHA-256, so a pack of another file, or a damaged one, is never used."""
    from .. import atomic

    table = vocab.table
    arrays = {
        "keys": np.asarray(table._keys, dtype="<u4"),
        "ids": np.asarray(table._ids, dtype="<i4"),
        "offsets": np.asarray(table._offsets, dtype="<u4"),
        "blob": np.frombuffer(bytes(table._blob), dtype=np.uint8),
        "scores": np.asarray(vocab.scores, dtype="<f8"),
        "longest": np.frombuffer(bytes(vocab.longest), dtype=np.uint8),
    }
    if int(np.asarray(table._offsets)[-1]) >= 2**32:
        raise OSError("the pieces' bytes do not fit the pack's offsets")
    body = bytearray()
    sections: dict[str, list[Any]] = {}
    for name, values in arrays.items():
        body += bytes(-len(body) % _ALIGN)
        sections[name] = [len(body), values.dtype.str, int(values.size)]
        body += values.tobytes()
    header = {
        "format": PACK_FORMAT,
        "source_sha256": vocab.source_sha256,
        "body_sha256": hashlib.sha256(body).hexdigest(),
        "pipeline": vocab.pipeline,
        "unk_id": vocab.unk_id,
        "min_score": vocab.min_score,
        "specials": vocab.specials,
        "template": list(vocab.template),
        "shared": [[first, ids] for first, ids in table._shared.items()],
        "astral": sorted(vocab.astral.items()),
        "sections": sections,
    }
    head = json.dumps(header).encode("utf-8")
    start = len(PACK_MAGIC) + 8 + len(head)
    head += b" " * (-start % _ALIGN)  # the body starts at a 64-byte boundary
    atomic.write_bytes(path.with_name(PACK), PACK_MAGIC + len(head).to_bytes(8, "little") + head + body)


def _read_pack(path: Path) -> tuple[dict[str, Any], int] | None:
    """The pack's header and where its body starts, if it is whole and of this tokenizer.json.
    Both files are read (for their digests), not mapped: the page cache holds them, not us."""
    pack = path.with_name(PACK)
    try:
        with pack.open("rb") as file:
            if file.read(len(PACK_MAGIC)) != PACK_MAGIC:
                return None
            size = int.from_bytes(file.read(8), "little")
            if size > os.fstat(file.fileno()).st_size:  # a damaged length: never read (or allocate) it
                return None
            header = json.loads(file.read(size))
            body = hashlib.file_digest(file, "sha256").hexdigest()
        with path.open("rb") as source_file:
            source = hashlib.file_digest(source_file, "sha256").hexdigest()
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or header.get("format") != PACK_FORMAT:
        return None
    if header.get("source_sha256") != source or header.get("body_sha256") != body:
        return None
    return header, len(PACK_MAGIC) + 8 + size


def map_pack(path: Path) -> Vocabulary | None:
    if sys.byteorder != "little":
        return None
    found = _read_pack(path)
    if found is None:
        return None
    header, start = found
    try:
        with path.with_name(PACK).open("rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mapped, "madvise"):  # no read-around: a lookup touches a page, not its neighbours
            mapped.madvise(mmap.MADV_RANDOM)
        view = memoryview(mapped)
        parts: dict[str, Any] = {}
        for name, (offset, dtype, count) in header["sections"].items():
            width = np.dtype(dtype).itemsize
            part = view[start + offset : start + offset + count * width]
            if len(part) != count * width:
                return None
            parts[name] = part
        keys = np.frombuffer(parts["keys"], dtype="<u4")
        ids = np.frombuffer(parts["ids"], dtype="<i4")
        shared = {int(first): [int(i) for i in ids_] for first, ids_ in header["shared"]}
        table = PieceTable(keys, ids, parts["blob"], parts["offsets"].cast("I"), shared)
        before, after = header["template"]
        vocab = Vocabulary(
            str(header["pipeline"]),
            table,
            parts["scores"].cast("d"),
            parts["longest"],
            {int(code): int(length) for code, length in header["astral"]},
            int(header["unk_id"]),
            float(header["min_score"]),
            {str(k): int(v) for k, v in header["specials"].items()},
            ([int(i) for i in before], [int(i) for i in after]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    vocab.mapped, vocab.region = True, mapped
    return vocab
