"""The lean tokenizer's compact piece table: the same ids as `tokenizers` on every verify set's
texts, actions and cues and on hostile text, and a fraction of the dict's memory."""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memevo.cli.bench.hostile_text import adversarial_inputs
from memevo.core.encoder import onnx_encoder, tokenizer_table
from memevo.core.encoder import tokenizer as tokenizer_mod

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def tokenizer_file(provisioned_model: Any) -> Path:
    return onnx_encoder.graph_dir(provisioned_model.folder) / onnx_encoder.TOKENIZER


@pytest.fixture(scope="module")
def both(tokenizer_file: Path) -> tuple[Any, Any]:
    lean = tokenizer_mod.load(tokenizer_file, 512)
    assert lean.kind == "lean" and lean.mapped  # every test below runs on the mapped pack
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


def _resident_kb(lean: Any) -> int:
    """This tokenizer's pack mapping's resident pages (/proc/self/smaps): other tokenizers in the
    process (a test's encoder) map the same file at other addresses."""
    start = np.frombuffer(lean._region, dtype=np.uint8).ctypes.data
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text(encoding="ascii", errors="replace").splitlines():
        head = line.split(" ", 1)[0]
        if "-" in head and all(c in "0123456789abcdef-" for c in head):
            inside = int(head.split("-")[0], 16) == start
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="Linux's /proc")
def test_at_rest_the_packs_pages_are_let_go_and_mapped_again(tokenizer_file: Path, both: Any) -> None:
    lean, _ = both
    texts = verify_set_texts()[:50]
    before = [lean.encode(text) for text in texts]
    assert _resident_kb(lean) > 1024  # lookups fault in much of the pack
    lean.release_pages()
    assert _resident_kb(lean) == 0
    assert [lean.encode(text) for text in texts] == before  # mapped again from the file
    assert _resident_kb(lean) > 0


def test_a_piece_listed_twice_has_its_last_id_and_equal_keys_do_not_match() -> None:
    """ "plumless" and "buckeroo" have the same CRC-32: each is told apart on its bytes."""
    table = tokenizer_table.PieceTable.build(["a", "响", "b", "a", "ÍT", "", "plumless", "\ud800"])
    assert table.lookup(["a", "响", "ÍT", "b", "c", "", "ab", "plumless", "buckeroo", "\ud800"]) == [
        3, 1, 4, 2, -1, 5, -1, 6, -1, 7,
    ]  # fmt: skip
    table = tokenizer_table.PieceTable.build(["buckeroo", "x", "plumless"])
    assert table.lookup(["plumless", "buckeroo", "plumles"]) == [2, 0, -1]


def test_the_built_table_and_the_mapped_pack_give_the_same_ids(tokenizer_file: Path, both: Any) -> None:
    built = tokenizer_mod.LeanUnigram.from_file(tokenizer_file, 512)
    assert built is not None and not built.mapped
    lean, _full = both
    texts = verify_set_texts()[:400] + hostile_texts()[:400]
    assert [t[:40] for t in texts if built.encode(t) != lean.encode(t)] == []


def _folder_copy(tokenizer_file: Path, target: Path) -> Path:
    target.mkdir()
    copy = target / tokenizer_file.name
    copy.write_bytes(tokenizer_file.read_bytes())
    return copy


def test_a_folder_without_the_pack_gets_it_once_then_maps_it(tokenizer_file: Path, tmp_path: Path) -> None:
    """A model folder provisioned before the pack existed: its first load writes it."""
    path = _folder_copy(tokenizer_file, tmp_path / "onnx")
    pack = path.with_name(tokenizer_table.PACK)
    first = tokenizer_mod.load(path, 512)
    assert pack.is_file() and first.kind == "lean" and first.mapped
    written = pack.stat().st_mtime_ns
    second = tokenizer_mod.load(path, 512)
    assert second.mapped and pack.stat().st_mtime_ns == written  # mapped, not written again
    texts = verify_set_texts()[:200]
    full = tokenizer_mod.FullTokenizer(path, 512)
    assert [t for t in texts if second.encode(t) != full.encode(t)] == []


@pytest.mark.parametrize(
    "damage", ["another_source", "flipped_byte", "truncated", "older_format", "huge_header", "not_a_pack"]
)
def test_a_stale_or_damaged_pack_is_built_again(
    tokenizer_file: Path, tmp_path: Path, damage: str, both: tuple[Any, Any]
) -> None:
    path = _folder_copy(tokenizer_file, tmp_path / "onnx")
    pack = path.with_name(tokenizer_table.PACK)
    good = tokenizer_file.with_name(tokenizer_table.PACK).read_bytes()  # the pack `both` mapped
    pack.write_bytes(good)
    assert tokenizer_mod.LeanUnigram.from_pack(path, 512) is not None  # good as it was copied
    if damage == "another_source":  # the same tokenizer written out again: other bytes, other digest
        path.write_text(json.dumps(json.loads(path.read_bytes()), indent=1), encoding="utf-8")
    elif damage == "flipped_byte":
        pack.write_bytes(good[:-100] + bytes([good[-100] ^ 1]) + good[-99:])
    elif damage == "truncated":
        pack.write_bytes(good[: len(good) // 2])
    elif damage == "older_format":
        current = f'"format": {tokenizer_table.PACK_FORMAT}'.encode()
        assert current in good
        pack.write_bytes(good.replace(current, b'"format": 1', 1))  # the first format (no astral table)
    elif damage == "huge_header":  # its length field says 2**64 - 1 bytes
        magic = len(tokenizer_table.PACK_MAGIC)
        pack.write_bytes(good[:magic] + b"\xff" * 8 + good[magic + 8 :])
    else:
        pack.write_bytes(b"garbage")
    assert tokenizer_mod.LeanUnigram.from_pack(path, 512) is None  # never used as it is
    again = tokenizer_mod.load(path, 512)
    assert again.mapped and tokenizer_mod.LeanUnigram.from_pack(path, 512) is not None
    full = both[1]  # `tokenizers` on the same tokenizer (another_source only re-indents it)
    texts = verify_set_texts()[:100] + hostile_texts()[:100]
    assert [t[:40] for t in texts if again.encode(t) != full.encode(t)] == []


def test_where_the_pack_cannot_be_written_the_table_is_built_in_memory(
    tokenizer_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core import atomic

    def refuse(path: Path, data: bytes, mode: int | None = None) -> None:
        raise PermissionError(13, "read-only", str(path))

    monkeypatch.setattr(atomic, "write_bytes", refuse)
    path = _folder_copy(tokenizer_file, tmp_path / "onnx")
    lean = tokenizer_mod.load(path, 512)
    assert lean.kind == "lean" and not lean.mapped
    assert not path.with_name(tokenizer_table.PACK).exists()
    full = tokenizer_mod.FullTokenizer(path, 512)
    assert [t for t in verify_set_texts()[:100] if lean.encode(t) != full.encode(t)] == []


def test_the_pieces_take_a_fraction_of_a_dict(tokenizer_file: Path) -> None:
    """Python memory the loaded tokenizer keeps: a dict of the 250k pieces kept ~45 MB, the
    table built in memory ~11 MB; mapped from its pack, the table is no Python memory."""
    gc.collect()
    tracemalloc.start()
    try:
        lean = tokenizer_mod.load(tokenizer_file, 512)
        gc.collect()
        kept_mb = tracemalloc.get_traced_memory()[0] / 2**20
    finally:
        tracemalloc.stop()
    assert lean.kind == "lean" and lean.mapped
    assert kept_mb < 2, f"the lean tokenizer keeps {kept_mb:.1f} MB"
