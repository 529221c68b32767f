"""The speed budgets `memevo bench` reports against (packaging/gen_docs.py writes them into
docs/performance.md)."""

from __future__ import annotations

from typing import Any

# label -> (figure, statistic, limit). The light encoder's budgets, then the stricter ones of
# "hooks at the interpreter's floor", each reported on its own line.
BUDGETS: dict[str, tuple[str, str | None, float]] = {
    "recall_100k_ms": ("recall_100k_ms", "median", 15),
    "encode_ms": ("encode_ms", "median", 6),
    "hook_prompt_ms": ("hook_prompt_ms", "median", 30),
    "hook_prompt_vs_python_start": ("hook_prompt_vs_python_start", None, 4.5),
    "hook_session_start_ms": ("hook_session_start_ms", "median", 40),
    "service_rss_mb": ("service_rss_mb", None, 250),
    "service_ready_s": ("service_ready_s", None, 1.5),
    "tray_rss_mb": ("tray_rss_mb", None, 300),
    "filter_worst_ms": ("filter_worst_ms", None, 20),
    "soak_growth_pct": ("soak_growth_pct", None, 10),
    "floor: hook_prompt_ms": ("hook_prompt_ms", "median", 20),
    "floor: hook_prompt_vs_python_start": ("hook_prompt_vs_python_start", None, 3),
    "floor: hook_session_start_vs_python_start": ("hook_session_start_vs_python_start", None, 1.6),
    "floor: hook_prompt_loaded_vs_quiet": ("hook_prompt_loaded_vs_quiet", None, 3),
    "floor: hook_prompt_loaded_ms p95": ("hook_prompt_loaded_ms", "p95", 250),
    "floor: hook_prompt_concurrent_vs_quiet": ("hook_prompt_concurrent_vs_quiet", None, 2),
}


def report(figures: dict[str, Any]) -> dict[str, Any]:
    """Each budget with the measured value and whether it held (a report, never a test)."""
    out: dict[str, Any] = {}
    for label, (name, statistic, limit) in BUDGETS.items():
        figure = figures.get(name)
        value = figure.get(statistic) if statistic and isinstance(figure, dict) else figure
        if isinstance(value, int | float):
            out[label] = {"limit": limit, "value": value, "ok": value <= limit}
    return out
