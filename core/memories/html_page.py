"""memories.html: a self-contained page for people to check their memories.

No network assets; mode 600; every memory text escaped (it is user content). Regenerated
on change or on demand. The Node tool's old memories.md is deleted when a new page is written.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

from .. import atomic, paths
from ..clock import iso
from ..store.database import Store
from . import confidence as conf
from .live import ranked
from .text import CATEGORIES

_STYLE = """
body{font:14px/1.5 -apple-system,"Segoe UI","Noto Sans CJK SC","Droid Sans Fallback",sans-serif;margin:2em;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:2em}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.c{white-space:nowrap;font-variant-numeric:tabular-nums}
tr.dep td{color:#999}tr.dep td.t{text-decoration:line-through}.id{font-family:monospace;color:#555}
"""
TITLES = {"rule": "规则与偏好（rule）", "project": "项目事实（project）"}


def path() -> Path:
    return paths.data_dir() / "memories.html"


def render(store: Store | None) -> str:
    return "".join(render_pieces(store))


def render_pieces(store: Store | None) -> Iterator[str]:
    """The page a row at a time: written as it is made, no more than one row's text is held.
    Made whole, the rows' strings (each over Python's small-object size once it holds Chinese)
    were all alive together in malloc's heaps, among the request threads' own allocations;
    freed, they left a render's worth of pages that malloc_trim could not give back, and a
    render follows every run of writes (`memevo bench --json`: soak_growth_pct)."""
    yield (
        '<!doctype html><html lang="zh"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>memory-self-evolution 的记忆</title><style>{_STYLE}</style></head><body>"
        "<h1>memory-self-evolution 的记忆</h1>"
    )
    for category in CATEGORIES:
        rows = ranked(store, category, limit=None) if store else []
        yield (
            f"<h2>{TITLES[category]} · {len(rows)}</h2><table><thead><tr><th>id</th><th>正文</th>"
            "<th>置信度</th><th>最近使用</th><th>状态</th></tr></thead><tbody>"
        )
        for m in rows:
            yield (
                f'<tr class="{"dep" if m.deprecated else ""}"><td class="id">{html.escape(m.id)}</td>'
                f'<td class="t">{html.escape(m.text)}</td><td class="c">{conf.as_decimal_text(m.confidence)}</td>'
                f'<td class="c">{html.escape(iso(m.last_seen_ms)[:16].replace("T", " "))}</td>'
                f'<td class="c">{_status(m.pinned, m.deprecated)}{_stale(m.stale)}</td></tr>'
            )
        yield "</tbody></table>"
    yield "</body></html>\n"


def _status(pinned: bool, deprecated: bool) -> str:
    return "、".join(word for word, on in (("已置顶", pinned), ("已废弃", deprecated)) if on)


def _stale(reason: str | None) -> str:
    """Its repository no longer has what it names: said with the reason, on its own line."""
    return f"<br>可能已过时：{html.escape(reason)}" if reason else ""


def write(store: Store | None) -> Path:
    target = path()
    atomic.write_chunks(target, (piece.encode("utf-8") for piece in render_pieces(store)), mode=0o600)
    (paths.data_dir() / "memories.md").unlink(missing_ok=True)
    return target
