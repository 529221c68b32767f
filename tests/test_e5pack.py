"""The offline pack's 4-bit weights, dequantized a chunk at a time, are the values of the
format's formula: (nibble - 8) × the block's f16 scale, rounded once to float16."""

from __future__ import annotations

import numpy as np
import pytest
from memevo.core.encoder import e5pack


def _packed(rng: np.random.Generator, blocks: int) -> tuple[bytes, np.ndarray]:
    """Blocks in the pack's layout (an f16 scale, then 16 bytes: weight j low, j+16 high) and
    the values the formula gives, computed one block and one weight at a time."""
    scales = rng.uniform(-0.2, 0.2, blocks).astype("<f2")
    weights = rng.integers(0, 16, (blocks, e5pack.BLOCK), dtype=np.uint8)
    raw = bytearray()
    for block in range(blocks):
        raw += scales[block].tobytes()
        raw += bytes(int(weights[block, j]) | int(weights[block, j + 16]) << 4 for j in range(16))
    expected = np.array(
        [
            np.float16(float(int(weights[b, j]) - 8) * float(scales[b]))
            for b in range(blocks)
            for j in range(e5pack.BLOCK)
        ],
        dtype=np.float16,
    )
    return bytes(raw), expected


@pytest.mark.parametrize("blocks", [1, 7, 64])
def test_4_bit_blocks_across_chunk_edges_are_the_formula(
    blocks: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(e5pack, "CHUNK_BLOCKS", 3)  # chunks that end inside the tensor, and one short
    data, expected = _packed(np.random.default_rng(blocks), blocks)
    entry = e5pack.TensorEntry("l0.q.w", 1, blocks * e5pack.BLOCK, 0)
    values = e5pack.dequantize(b"\0" * 5 + data, e5pack.TensorEntry(entry.name, 1, entry.count, 5))
    assert values.dtype == np.float16 and values.shape == (blocks * e5pack.BLOCK,)
    assert values.tobytes() == expected.tobytes()


def test_raw_tensors_stay_float32_and_unknown_dtypes_are_refused() -> None:
    floats = np.arange(6, dtype="<f4")
    values = e5pack.dequantize(b"\0" * 4 + floats.tobytes(), e5pack.TensorEntry("emb.ln.w", 0, 6, 4))
    assert values.dtype == np.float32 and values.tolist() == floats.tolist()
    with pytest.raises(ValueError, match="unknown dtype 2"):
        e5pack.dequantize(floats.tobytes(), e5pack.TensorEntry("x", 2, 6, 0))
