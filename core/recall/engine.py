"""Recall end to end: filter the prompt, encode it, search, gate, award.

The engine belongs to the process that owns the store and the encoder (the service; the
CLI for `verify` and `bench`). Stale vectors are encoded before searching, so a memory
added by any path is recallable from the next prompt.

Hybrid recall: per category, the best `CANDIDATES` memories by centred cosine and the best
by BM25 (lexical.py) are merged; each gets the fused score cosine + w x lexical (less a
prompt's damping: a textbook question, or one close to the generic prompts of generic.py) and
the gate keeps what clears the minimums. The lexical index is kept in step with the vector
index: built by `sync_all`, refreshed by `sync_ids`, from the same pool rows. A tool call
about to run (`recall_action`) is first described in words (actions.py) and then recalled the
same way (never damped).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import config as config_mod
from ..clock import Clock, SystemClock
from ..encoder import background
from ..encoder.encoder import Encoder
from ..encoder.loading import ModelLoad, OnThread
from ..memories import cues as cues_mod
from ..store import vectors
from ..store.database import Store
from . import actions, crossing, generic, lexical_file, sentences, shown
from .concepts import textbook_question
from .gate import GateSettings, gate_category
from .gate_defaults import for_model
from .index import MemoryIndex
from .lexical import LexicalIndex
from .lexical import alone as lexical_alone
from .textfilter import recall_input

log = logging.getLogger("memevo.recall")
CANDIDATES = 20  # per category and signal, merged before fusing
CATEGORIES = ("rule", "project")
# At most this many memories without a current vector are encoded after the pool is loaded
# (in parallel with the model's load) and refreshed; more (a model changed: every memory) are
# encoded first, as the pool is then read whole once.
STALE_WHILE_LOADING = 1024


@dataclass(frozen=True)
class Scored:
    """One candidate with both signals: what the gate sees (`score`) and why."""

    id: str
    score: float
    cosine: float
    lexical: float
    cued: bool = False  # the memory has recall cues: they count in both signals
    damped: float = 0.0  # taken off for the prompt: a textbook question, close to a generic one


def _fused(
    memory_id: str, category: str, cos: float, lex: float, cued: bool, settings: GateSettings, damping: float
) -> Scored:
    """What the gate sees: cosine + weight x lexical, less the prompt's damping and, for a
    memory whose cues counted, its category's cue offset."""
    offset = settings.cue_offset(category) if cued else 0.0
    return Scored(memory_id, cos + settings.lexical_weight * lex - damping - offset, cos, lex, cued, damping)


def _crossed(text: str, settings: GateSettings) -> tuple[float, float] | None:
    """The prompt's share of Chinese and the cross-language bonus, when there is one."""
    return (crossing.chinese_share(text), settings.cross_language) if settings.cross_language else None


def _signals(row: Scored, minimum: float) -> dict[str, Any]:
    return {
        "score": round(row.score, 4),
        "minimum": round(minimum, 4),
        "cosine": round(row.cosine, 4),
        "lexical": round(row.lexical, 4),
        "cued": row.cued,
        "damped": round(row.damped, 4),
    }


@dataclass
class Hit:
    id: str
    category: str
    text: str
    score: float
    # what passed the gate (cosine, lexical, cued, damped, minimum): the injection log keeps it
    # so `memevo why` can say why the memory was injected; not part of the hit as served
    signals: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "category": self.category, "text": self.text, "score": round(self.score, 4)}


@dataclass
class RecallResult:
    rules: list[Hit] = field(default_factory=list)
    projects: list[Hit] = field(default_factory=list)
    skipped: str | None = None  # why there was no recall at all
    awarded: dict[str, int] = field(default_factory=dict)

    @property
    def hits(self) -> list[Hit]:
        return self.rules + self.projects


class RecallEngine:
    """lexical_file: where the lexical index is kept between starts (lexical_file.py); None
    (tests, `verify`, `bench`): built from the pool every time, nothing written."""

    def __init__(
        self,
        store: Store,
        encoder: Encoder,
        clock: Clock | None = None,
        *,
        loading: ModelLoad | None = None,
        lexical_file: Path | None = None,
    ) -> None:
        self.store = store
        self.encoder = encoder
        self.clock = clock or SystemClock()
        self.lexical_file = lexical_file
        self._lexical_changes = 0  # documents indexed since the file was last written (or read)
        self._saving = threading.Lock()
        self.cue_lexical = LexicalIndex()  # one document per cued memory: its cues
        self.cued: frozenset[str] = frozenset()
        loading = loading or ModelLoad(encoder)  # onnxruntime builds its session without the GIL
        known = background.known(encoder)
        pending = vectors.stale(self.store, encoder.model_id)
        if known is not None and len(pending) <= STALE_WHILE_LOADING:
            # the pool and the lexical index while the model loads; the few memories without a
            # current vector are encoded and refreshed once it is in
            self.background = known
            self.index = MemoryIndex(len(known.mean), known)
            cued = cues_mod.stale_vectors(self.store, encoder.model_id)
            encoding = OnThread("memevo-encode-stale", lambda: self._encode_once_loaded(loading))
            self._build(first=True)
            encoding.wait()  # encoded beside the build (onnxruntime runs without the GIL)
            self.generic = self._closeness()
            if pending or cued:  # their rows, as the store holds them now
                self.sync_ids(list(dict.fromkeys([i for i, _ in pending] + [i for i, _ in cued])))
        else:  # a new model (its background built with it), or a pool to re-encode first
            loading.wait()
            self.background = background.ensure(encoder)
            self.index = MemoryIndex(encoder.dim, self.background)
            self.generic = self._closeness()
            self.encode_stale()
            self._build(first=True)
        if self._lexical_changes and self.lexical_file is not None:
            threading.Thread(target=self.save_lexical, name="memevo-lexical-save", daemon=True).start()

    def _encode_once_loaded(self, loading: ModelLoad) -> None:
        loading.wait()
        self.encode_stale()

    def _closeness(self) -> generic.Closeness:
        """The generic prompts' vectors, for a model whose gate damps them (shipped for the
        default model; built once into the data dir for another calibrated one)."""
        hybrid = for_model(self.encoder.model_id)
        if hybrid is None or hybrid.generic_weight <= 0:
            return generic.Closeness.empty(self.encoder.dim, self.background)
        return generic.Closeness.of_model(self.encoder, self.background)

    def recentre(self) -> None:
        """After the background mean changed: every centred vector again."""
        self.generic = self._closeness()
        self.sync_all()

    # -- keeping the index in sync with the store --------------------------------------------------
    def encode_stale(self, batch: int = 256) -> int:
        pending = vectors.stale(self.store, self.encoder.model_id)
        for start in range(0, len(pending), batch):
            chunk = pending[start : start + batch]
            vectors.save(self.store, self.encoder.model_id, chunk, self.encoder.encode([t for _, t in chunk]))
        return len(pending) + self._encode_stale_cues(batch)

    def _encode_stale_cues(self, batch: int) -> int:
        """Each cued memory's cues, encoded and averaged into one vector (stored per model)."""
        pending = cues_mod.stale_vectors(self.store, self.encoder.model_id)
        per_chunk = max(1, batch // cues_mod.MAX_CUES)
        for start in range(0, len(pending), per_chunk):
            chunk = pending[start : start + per_chunk]
            encoded = self.encoder.encode([cue for _, cues in chunk for cue in cues])
            means, at = [], 0
            for _, cues in chunk:
                means.append(cues_mod.mean_vector(encoded[at : at + len(cues)]))
                at += len(cues)
            cues_mod.save_vectors(self.store, self.encoder.model_id, chunk, np.stack(means))
        return len(pending)

    def sync_all(self) -> None:
        self.encode_stale()
        self._build(first=False)

    def _build(self, *, first: bool) -> None:
        """Both indexes from the pool (vectors current or not: encode first to have them all).
        At the start the lexical index is the file's caught up with the pool when there is one."""
        index = MemoryIndex(self.index.dim, self.background)
        index.reserve(vectors.count_pool(self.store, self.encoder.model_id) + 1024)
        ids: list[str] = []
        categories: list[str] = []
        texts: list[str] = []
        live: list[np.ndarray] = []
        for batch in vectors.iter_pool(self.store, self.encoder.model_id):
            index.upsert_pool(batch)
            ids += batch.ids
            categories += batch.categories
            texts += batch.texts
            live.append(~batch.deprecated.astype(bool))
        flags = np.concatenate(live) if live else np.zeros(0, dtype=bool)
        kept = lexical_file.load(self.lexical_file) if first and self.lexical_file is not None else None
        if kept is not None:
            self._lexical_changes += kept.catch_up(ids, categories, texts, flags)
            lexical = kept
        else:
            built = LexicalIndex(max(1024, len(ids) + 1024))
            built.upsert(ids, categories, texts, flags)
            # held as a restored index is (its postings flat, lexical.py): a day's maintenance
            # rebuilds it here, and the built form holds several times the objects (`service_rss_mb`)
            lexical = LexicalIndex.restore(built.snapshot())
            del built
            self._lexical_changes += max(1, len(ids))  # the file, if any, is not this index
        cued = cues_mod.current(self.store, self.encoder.model_id)
        cue_lexical = LexicalIndex()
        self._add_cues(index, cue_lexical, cued)
        self.index, self.lexical, self.cue_lexical = index, lexical, cue_lexical
        self.cued = frozenset(cued)

    def save_lexical(self) -> None:
        """Write the lexical index beside the store when it changed since it was read or last
        written (after a start that indexed memories, and when the service closes)."""
        if self.lexical_file is None:
            return
        with self._saving:
            changes = self._lexical_changes
            if not changes:
                return
            try:
                lexical_file.save(self.lexical, self.lexical_file)
            except Exception:  # a full disk, a read-only data dir: the next start indexes again
                log.warning("could not keep the lexical index at %s", self.lexical_file, exc_info=True)
                return
            self._lexical_changes -= changes

    def sync_ids(self, ids: list[str]) -> None:
        """After a change to these memories: re-encode what is stale and refresh their rows."""
        self.encode_stale()
        self._lexical_changes += len(ids)
        pool = vectors.load_pool_for(self.store, self.encoder.model_id, ids)
        present = set(pool.ids)
        absent = [i for i in ids if i not in present]
        self.index.remove(absent)
        self.index.upsert_pool(pool)
        self.lexical.remove(absent)
        self.lexical.upsert(pool.ids, pool.categories, pool.texts, ~pool.deprecated.astype(bool))
        cued = cues_mod.current(self.store, self.encoder.model_id, ids)
        self.cue_lexical.remove(ids)
        self.index.set_cues({i: None for i in ids})
        self._add_cues(self.index, self.cue_lexical, cued)
        self.cued = (self.cued - set(ids)) | set(cued)

    @staticmethod
    def _add_cues(index: MemoryIndex, cue_lexical: LexicalIndex, cued: dict[str, cues_mod.Cued]) -> None:
        """Cues of memories in the index (live ones only count in the lexical index)."""
        present = [i for i in cued if index.category_of(i) is not None]
        index.set_cues({i: cued[i].vector for i in present})
        cue_lexical.upsert(
            present,
            [index.category_of(i) or "rule" for i in present],
            ["\n".join(cued[i].cues) for i in present],
            [index.is_live(i) for i in present],
        )

    # -- recall --------------------------------------------------------------------------------------
    def settings(self, config: dict[str, Any] | None = None) -> GateSettings:
        """config: the values the caller already read for this request (read here otherwise)."""
        return GateSettings.from_config(
            config if config is not None else config_mod.load().values, self.encoder.entry
        )

    def ranked(self, text: str, limit: int) -> dict[str, list[tuple[str, float]]]:
        """Cosine only (the panel's search, the side judge's nearest memories)."""
        return self.index.ranked(self.encoder.encode_one(text), limit)

    def nearest(self, text: str, limit: int) -> list[tuple[str, float]]:
        """The `limit` closest memories of both groups together, closest first (cosine only):
        what a learned statement is compared with (the side judge's decide, memory_propose)."""
        ranked = self.ranked(text, limit)
        return sorted(ranked["rule"] + ranked["project"], key=lambda pair: -pair[1])[:limit]

    def damping(self, text: str, centred: np.ndarray, settings: GateSettings) -> float:
        """What a user's prompt loses from every fused score: the textbook-question damping
        ("what is X", 「X 和 Y 的区别」), and its closeness to the generic prompts past the
        calibrated start (generic.py). Tool calls are never damped."""
        damped = settings.question_damping if settings.question_damping and textbook_question(text) else 0.0
        if settings.generic_weight > 0:
            damped += generic.damping(
                self.generic.of(centred), settings.generic_from, settings.generic_weight
            )
        return damped

    def queries(self, text: str, settings: GateSettings, *, prompt: bool) -> tuple[np.ndarray, np.ndarray]:
        """The text's centred vector, and what the index is searched with: that vector, or for
        a user's prompt of several sentences it and each sentence's, as rows (sentences.py)."""
        parts = sentences.split(text) if prompt and settings.sentences else []
        if not parts:
            centred = self.index.centre_query(self.encoder.encode_one(text))
            return centred, centred
        # the whole prompt alone and its sentences together: a batch is padded to its longest
        # text, and the sentences are of a length
        whole = self.encoder.encode_one(text)
        rows = self.index.centre_queries(np.vstack([whole, self.encoder.encode(parts)]))
        return rows[0], rows

    def signals(
        self, text: str, limit: int, settings: GateSettings, *, prompt: bool = False
    ) -> dict[str, list[Scored]]:
        """Per category, the best `limit` candidates by fused score, best first. `prompt`: the
        text is a user's prompt (damped as one), not a tool call's description."""
        centred, queries = self.queries(text, settings, prompt=prompt)
        cued = self.cued if settings.use_cues else frozenset()
        crossed = _crossed(text, settings)
        semantic = self.index.ranked_centred(
            queries, max(limit, CANDIDATES), cues=bool(cued), crossed=crossed
        )
        weight = settings.lexical_weight
        lexical = self.lexical.scores(text) if weight > 0 else None
        cue_lexical = self.cue_lexical.scores(text) if weight > 0 and cued else None
        damping = self.damping(text, centred, settings) if prompt else 0.0
        out: dict[str, list[Scored]] = {}
        for category in CATEGORIES:
            cosine = dict(semantic[category])
            extra: list[str] = []
            for signal in (lexical, cue_lexical):
                if signal is not None:
                    extra += [i for i, _ in signal.top(category, CANDIDATES) if i not in cosine]
            if extra:
                cosine.update(
                    self.index.scores_of(
                        queries, list(dict.fromkeys(extra)), cues=bool(cued), crossed=crossed
                    )
                )
            ids = list(cosine)
            words = lexical.of_many(ids) if lexical is not None else [0.0] * len(ids)
            by_cues = cue_lexical.of_many(ids) if cue_lexical is not None else words
            rows = []
            for memory_id, lex, cue_lex in zip(ids, words, by_cues, strict=True):
                has_cues = memory_id in cued
                lex = max(lex, cue_lex) if has_cues else lex
                rows.append(_fused(memory_id, category, cosine[memory_id], lex, has_cues, settings, damping))
            rows.sort(key=lambda row: -row.score)
            out[category] = rows[:limit]
        return out

    def alone(
        self, text: str, memory_id: str, settings: GateSettings, *, prompt: bool = False
    ) -> Scored | None:
        """The memory's fused score as the only memory of a pool (its lexical score too):
        `memevo verify`'s one-memory figure."""
        memory_text = self.index.text(memory_id)
        if memory_text is None:
            return None
        cued = settings.use_cues and memory_id in self.cued
        centred, queries = self.queries(text, settings, prompt=prompt)
        cos = self.index.scores_of(queries, [memory_id], cues=cued, crossed=_crossed(text, settings)).get(
            memory_id
        )
        if cos is None:
            return None
        lex = 0.0
        if settings.lexical_weight > 0:
            lex = lexical_alone(text, memory_text)
            if cued:
                lex = max(lex, lexical_alone(text, "\n".join(self.cue_texts(memory_id))))
        category = self.index.category_of(memory_id) or "rule"
        damping = self.damping(text, centred, settings) if prompt else 0.0
        return _fused(memory_id, category, cos, lex, cued, settings, damping)

    def cue_texts(self, memory_id: str) -> list[str]:
        return (
            [c for c in self.cue_lexical.text_of(memory_id).split("\n") if c]
            if memory_id in self.cued
            else []
        )

    def gate(self, ranked: dict[str, list[Scored]], settings: GateSettings) -> dict[str, list[Scored]]:
        kept: dict[str, list[Scored]] = {}
        for category in CATEGORIES:
            by_id = {row.id: row for row in ranked[category]}
            pairs = gate_category(
                [(row.id, row.score) for row in ranked[category]],
                settings.minimum(category),
                settings.top_k,
                settings.margin,
            )
            kept[category] = [by_id[i] for i, _ in pairs]
        return kept

    def recall(
        self, prompt: str, *, award: bool = True, settings: GateSettings | None = None
    ) -> RecallResult:
        text = recall_input(prompt)
        if text is None:
            return RecallResult(skipped="input outside 6–500 characters after removing code and logs")
        return self._recall_text(text, award, settings, prompt=True)

    def recall_action(
        self, tool: str, tool_input: Any, *, award: bool = True, settings: GateSettings | None = None
    ) -> RecallResult:
        """The rules (and facts) that govern a tool call about to run."""
        described = actions.describe(tool, tool_input)
        if described is None or not described.kinds:
            return RecallResult(skipped="no kind of action that rules are about")
        return self._recall_text(described.text, award, settings, prompt=False)

    def _recall_text(
        self, text: str, award: bool, settings: GateSettings | None, *, prompt: bool
    ) -> RecallResult:
        settings = settings or self.settings()
        ranked = self.signals(text, max(settings.top_k, 2), settings, prompt=prompt)
        kept = self.gate(ranked, settings)
        result = RecallResult()
        for category, rows in kept.items():
            minimum = settings.minimum(category)
            hits = [
                Hit(row.id, category, self.index.text(row.id) or "", row.score, _signals(row, minimum))
                for row in rows
            ]
            setattr(result, "rules" if category == "rule" else "projects", hits)
        if award and result.hits:  # everything the gate passed is shown (shown.py: the one award path)
            result.awarded = shown.award(self.store, self.clock, [h.id for h in result.hits]) or {}
        return result
