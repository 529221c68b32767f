"""memory_search: look memories up by meaning, ranked, with ids, confidence and scope.

One function for every surface (MCP `memory_search`, `memevo search`, the panel's search by
meaning): no gate and never an award, so the model can find what the per-prompt gate did not
inject. The engine is asked through `scored` alone, so hybrid (meaning + words) scoring can
replace the cosine there without touching the callers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import InvalidInput
from ..store.database import Store
from . import confidence as conf
from . import live as memories
from . import text as memory_text

MAX_LIMIT = 200
MAX_QUERY = 2000


def scored(engine: Any, text: str, limit: int) -> list[tuple[float, str, str]]:
    """(score, id, category), best first, over both groups: recall's own hybrid ranking
    (meaning, words and cues, engine.signals) with nothing taken off — no damping, as a search
    is not a prompt, and no cue offset, which only moves cued memories to one minimum — and
    no gate. Cosine alone where recall is configured to use it (lexical weight 0)."""
    settings = engine.settings()
    if settings.lexical_weight <= 0:
        ranked = engine.ranked(text, limit)
        return sorted(((s, i, c) for c, found in ranked.items() for i, s in found), reverse=True)
    plain = dataclasses.replace(settings, cue_offset_rule=0.0, cue_offset_project=0.0)
    signals = engine.signals(text, limit, plain, prompt=False)
    return sorted(((row.score, row.id, c) for c, rows in signals.items() for row in rows), reverse=True)


def search(
    engine: Any, store: Store, query: str, category: str | None = None, limit: int = 10
) -> dict[str, Any]:
    text = str(query or "").strip()
    if not text:
        raise InvalidInput("search text is empty")
    if len(text) > MAX_QUERY:
        raise InvalidInput(f"search text is longer than {MAX_QUERY} characters")
    cat = memory_text.check_category(category) if category else None
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}"[:200])
    pairs = [p for p in scored(engine, text, limit) if cat is None or p[2] == cat][:limit]
    found = memories.find(store, [i for _, i, _ in pairs])
    hits = []
    for score, memory_id, category_of in pairs:
        memory = found.get(memory_id)
        if memory is None or memory.deprecated:  # gone since the index was built
            continue
        hits.append(
            {
                "id": memory_id,
                "category": category_of,
                "text": memory.text,
                "confidence": conf.as_float(memory.confidence),
                "pinned": memory.pinned,
                "scope": memory.scope or "global",
                "score": round(score, 4),
            }
        )
    return {"query": text, "hits": hits}
