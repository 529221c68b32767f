"""The lean tokenizer's compact piece table: the same ids as `tokenizers` on every verify set's
texts, actions and cues and on hostile text, and a fraction of the dict's memory."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from memevo.app.bench import adversarial_inputs
from memevo.core.encoder import onnx_encoder
from memevo.core.encoder import tokenizer as tokenizer_mod

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def tokenizer_file(provisioned_model: Any) -> Path:
    return onnx_encoder.graph_dir(provisioned_model.folder) / onnx_encoder.TOKENIZER


@pytest.fixture(scope="module")
def both(tokenizer_file: Path) -> tuple[Any, Any]:
    lean = tokenizer_mod.load(tokenizer_file, 512)
    assert lean.kind == "lean"
    return lean, tokenizer_mod.FullTokenizer(tokenizer_file, 512)


def verify_set_texts() -> list[str]:
    """Every text of the four verify sets: memories, prompts, tool calls and cues."""
    texts: list[str] = []
    for path in sorted(DATA.glob("recall*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        texts += [item["text"] for item in data.get("pool", [])]
        texts += [case["prompt"] for case in data.get("cases", [])]
        texts += [json.dumps(action, ensure_ascii=False) for action in data.get("actions", [])]
        for memory, cues in (data.get("cues") or {}).items():
            texts += [memory, *cues]
    assert len(texts) > 1500
    return texts


def hostile_texts() -> list[str]:
    """Long words past a lookup batch, runs of unknown and astral characters, strings whose
    stored code units equal a piece's in another width ("ÍT" against "响"), special-token
    look-alikes, and the bench's adversarial inputs cut to 6,000 characters."""
    rng = random.Random(33)
    alphabet = [chr(c) for c in range(32, 0x250)] + [chr(c) for c in range(0x4E00, 0x4E80)]
    alphabet += ["\U0001f600", "\U0010fffd", "\U000f0000", "\u200b", "\ufeff", "\u0301", "▁", "<s>", "</s>"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))) for _ in range(1500)]
    texts += ["哈" * 9000, "a" * 9000, "ÍT" * 3000, "响" * 3000, "\U0010fffd" * 50, "<unk>" * 30]
    texts += ["ÍT" * n + "响" * n for n in (1, 2, 7)]  # the same stored code units
    texts += [text[:6000] for text in adversarial_inputs(6000).values()]
    return texts


def test_the_same_ids_as_tokenizers_on_the_verify_sets(both: tuple[Any, Any]) -> None:
    lean, full = both
    texts = verify_set_texts()
    texts += ["query: " + text for text in texts] + ["passage: " + text for text in texts]
    assert [t for t in texts if lean.encode(t) != full.encode(t)] == []


def test_the_same_ids_as_tokenizers_on_hostile_text(both: tuple[Any, Any]) -> None:
    lean, full = both
    assert [t[:40] for t in hostile_texts() if lean.encode(t) != full.encode(t)] == []


def test_the_same_ids_when_every_word_crosses_a_lookup_batch(
    both: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 7 lookups: words split between batches, and within a word, everywhere."""
    lean, full = both
    monkeypatch.setattr(tokenizer_mod, "SPAN_BATCH", 7)
    texts = verify_set_texts()[:300] + hostile_texts()[:300]
    assert [t[:40] for t in texts if lean.encode(t) != full.encode(t)] == []


def test_a_piece_listed_twice_has_its_last_id_and_equal_code_units_do_not_match() -> None:
    table = tokenizer_mod.PieceTable(["a", "响", "b", "a", "ÍT", ""])
    assert table.lookup(["a", "响", "ÍT", "b", "c", "", "ab"]) == [3, 1, 4, 2, -1, 5, -1]


def test_the_pieces_take_a_fraction_of_a_dict(tokenizer_file: Path) -> None:
    """Python memory the loaded tokenizer keeps: a dict of the 250k pieces kept ~45 MB."""
    gc.collect()
    tracemalloc.start()
    try:
        lean = tokenizer_mod.load(tokenizer_file, 512)
        gc.collect()
        kept_mb = tracemalloc.get_traced_memory()[0] / 2**20
    finally:
        tracemalloc.stop()
    assert lean.kind == "lean"
    assert kept_mb < 15, f"the lean tokenizer keeps {kept_mb:.1f} MB"
