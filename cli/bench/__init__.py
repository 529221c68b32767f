"""`memevo bench`: the speed budgets, measured over repeated runs (min / median / max).

Every figure comes from a synthetic pool in a temporary MEMEVO_HOME, never the user's.
Recall over 100k and 1M memories runs in child processes so each reports its own RSS.
Each subject is a module of its own: pool, recall, encoder, hooks, service (and the tray),
hostile_text, budgets; measure holds what they share.
"""

from __future__ import annotations

import os
from typing import Any

from . import budgets
from .encoder import encoder_figures
from .hooks import hook_figures
from .hostile_text import filter_figures
from .recall import run_recall_child
from .service import tray_figures


def run(quick: bool = False, progress: Any = None) -> dict[str, Any]:
    """Every figure; progress (core/encoder/progress: stage lines) says what is being measured,
    since a whole run takes minutes (the million and the soak: tens of minutes)."""
    from ...core.encoder.progress import Silent

    say = (progress or Silent()).stage
    runs = 20 if quick else 50
    figures: dict[str, Any] = {"machine": machine()}
    say("bench: the text filters on 1 MB inputs")
    figures |= filter_figures()
    say("bench: recall over 100,000 memories (a store written, then read by a fresh process)")
    r100k = run_recall_child(100_000, runs)
    figures["recall_100k_ms"] = r100k["timing"]
    figures["rss_100k_mb"] = r100k["rss_mb"]
    figures["lexical_100k"] = {k: v for k, v in r100k.items() if k.startswith("lexical_")}
    figures["recall_1m_ms"] = figures["rss_1m_mb"] = None  # --quick skips the million
    if not quick:
        say("bench: recall over 1,000,000 memories (minutes)")
        r1m = run_recall_child(1_000_000, runs)
        figures["recall_1m_ms"] = r1m["timing"]
        figures["rss_1m_mb"] = r1m["rss_mb"]
        figures["index_load_1m_s"] = r1m["index_load_s"]
        figures["lexical_1m"] = {k: v for k, v in r1m.items() if k.startswith("lexical_")}
    say("bench: the encoder (one text, then a rebuild)")
    figures |= encoder_figures(runs, 100 if quick else 1000)
    say("bench: hooks against a service over 10,000 memories (quiet, loaded, eight at once)")
    figures |= hook_figures(runs)
    say("bench: the tray app over 10,000 memories")
    figures |= tray_figures()
    if quick:  # --quick skips the long day too (minutes); tests/test_soak.py runs a shorter one
        figures |= dict.fromkeys(("soak_rss_before_mb", "soak_rss_after_mb", "soak_growth_pct"))
    else:  # the tray over a long day (cli/soak.py): thousands of hooks, hundreds of writes
        from ..soak import soak

        say("bench: a day's soak of the tray, 5,000 prompts and 500 writes (minutes)")
        figures |= soak()
    figures["budgets"] = budgets.report(figures)
    return figures


def machine() -> dict[str, Any]:
    import platform

    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
