"""Language-neutral vectors (core/encoder/background.py): the Chinese-English direction of the
background sentences is taken out of every centred vector, so a prompt in one language meets a
memory written in the other."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from memevo.core import paths
from memevo.core.clock import FakeClock
from memevo.core.encoder import background
from memevo.core.encoder.models import DEFAULT_MODEL, entry_for
from memevo.core.memories import live as memories
from memevo.core.recall.engine import RecallEngine
from memevo.core.store.database import Store

RECALL_SET = Path(__file__).parent / "data" / "recall-set.json"

# (prompt, memory): the same matter in the two languages, each way round
CROSS_LINGUAL = [
    (
        "The hotfix is done. Can you just push it directly to main?",
        "不要直接往 main 分支推送，所有改动都必须走 Merge Request",
    ),
    (
        "Images in the feed keep re-downloading after the app restarts.",
        "ImageLoader 负责 App 内的图片加载与缓存，磁盘缓存上限 200MB",
    ),
    ("这个函数里的 try/except 直接 pass 了", "Every exception handler must log the error with its context"),
]


def _cosine(a: np.ndarray, b: np.ndarray, bg: background.Background) -> float:
    pair = background.center(np.stack([a, b]), bg)
    return float(pair[0] @ pair[1])


def test_centring_takes_the_language_direction_out(encoder) -> None:
    bg = background.ensure(encoder)
    assert entry_for(DEFAULT_MODEL).language_neutral and bg.language is not None
    assert abs(float(np.linalg.norm(bg.language)) - 1.0) < 1e-5
    texts = [t for pair in CROSS_LINGUAL for t in pair]
    centred = background.center(encoder.encode(texts), bg)
    assert np.abs(centred @ bg.language).max() < 1e-5  # nothing is left along it
    assert np.allclose(np.linalg.norm(centred, axis=1), 1.0, atol=1e-5)
    # the shipped direction is what this model computes from the sentences
    computed = background.compute(encoder)
    assert computed.language is not None and float(computed.language @ bg.language) > 0.999
    # a bare array is a mean alone: the centring before this release
    raw = encoder.encode(texts[:2])
    assert np.allclose(background.center(raw, bg.mean), background.center(raw, bg.without_language()))


def test_a_prompt_in_one_language_comes_closer_to_a_memory_in_the_other(encoder) -> None:
    bg = background.ensure(encoder)
    for prompt, memory in CROSS_LINGUAL:
        p, m = encoder.encode([prompt, memory])
        neutral, mean_only = _cosine(p, m, bg), _cosine(p, m, bg.without_language())
        assert neutral > mean_only + 0.03, (prompt, neutral, mean_only)


def test_a_cross_lingual_prompt_recalls_its_fact_only_with_the_direction_out(
    store: Store, encoder, clock: FakeClock
) -> None:
    """From the verify set: an English question about the image cache, the fact written in
    Chinese. Measured: 0.553 language-neutral against the project minimum 0.44; with the mean
    alone (and that release's gate) it ranked first but below the minimum, 0.475 against 0.50."""
    data = json.loads(RECALL_SET.read_text(encoding="utf-8"))
    for item in data["pool"]:
        memories.create(store, item["category"], item["text"], clock)
    prompt = "Images in the feed keep re-downloading after the app restarts. How big is the disk cache supposed to be?"
    fact = "ImageLoader 负责 App 内的图片加载与缓存，磁盘缓存上限 200MB"
    paths.config_path().parent.mkdir(parents=True, exist_ok=True)
    paths.config_path().write_text('{"recallCues": false}', encoding="utf-8")
    engine = RecallEngine(store, encoder, clock)
    assert engine.background.language is not None
    result = engine.recall(prompt, award=False)
    assert [h.text for h in result.projects][:1] == [fact]
    neutral = result.projects[0].score
    engine.background = engine.background.without_language()
    engine.recentre()
    settings = engine.settings()
    rows = engine.signals(prompt, 3, settings, prompt=True)["project"]
    mean_only = next(row.score for row in rows if engine.index.text(row.id) == fact)
    assert neutral >= settings.min_project + 0.08 and mean_only < neutral - 0.05


def test_a_background_from_an_older_release_is_rebuilt_with_the_direction(data_dir: Path, encoder) -> None:
    """`memevo build-background` before this release wrote the mean alone into the data dir: it
    is not current any more, and the next start builds the whole background again."""
    old = background.user_path(encoder.model_id)
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(json.dumps({"model": encoder.model_id, "count": 64, "mean": [0.0] * encoder.dim}))
    bg = background.ensure(encoder)
    assert bg.language is not None and float(np.abs(bg.mean).max()) > 0
    rebuilt = json.loads(old.read_text(encoding="utf-8"))
    assert len(rebuilt["language"]) == encoder.dim and rebuilt["count"] == 64


class _FakeEncoder:
    """A model memevo has no calibration for: its background keeps the mean alone."""

    model_id = "example/other-model"
    dim = 8
    entry = entry_for("example/other-model")

    def encode(self, texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        return rng.normal(size=(len(texts), self.dim)).astype(np.float32)


def test_an_uncalibrated_model_keeps_the_centring_it_had(data_dir: Path) -> None:
    fake = _FakeEncoder()
    assert not fake.entry.language_neutral
    assert (fake.entry.recall_min_rule, fake.entry.recall_min_project) == (0.44, 0.50)
    bg = background.ensure(fake)  # type: ignore[arg-type]
    assert bg.language is None
    stored = background.load(fake.model_id)
    assert stored is not None and stored.language is not None  # built, kept, just not used


def test_sentences_in_one_language_only_are_refused() -> None:
    vectors = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="Chinese and in English"):
        background.language_direction(["a", "b", "c"], vectors)
