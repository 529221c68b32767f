#!/usr/bin/env python3
"""Cut the small test slice (tests/data/public-slice/) from converted MADial-Bench files.

Only MIT-licensed parts: MADial-Bench memories and dialogues, MemoryBank unrelated prompts
(items whose "source" starts with "memorybank"); never LoCoMo (no license) or PrefEval
(CC BY-NC). Deterministic: related items are taken in file order while the union of their
expected memories stays within --memories, the pool is filled up to --memories with the next
memories in file order, and the first --unrelated MemoryBank prompts are kept. The form is
unchanged; the name gets "-slice".

Usage: python3 make_slice.py --out ../tests/data/public-slice data/madial-zh-lisa.json …
Standard library only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

LICENSE = "MADial-Bench: MIT; MemoryBank: MIT"


def cut(data: dict, memories: int, related: int, unrelated: int) -> dict:
    order = [m["id"] for m in data["memories"]]
    chosen: set[str] = set()
    kept_related = []
    for item in data["related"]:
        if len(kept_related) == related:
            break
        wanted = chosen | set(item["expect"])
        if len(wanted) <= memories:
            chosen = wanted
            kept_related.append(item)
    for memory_id in order:
        if len(chosen) >= memories:
            break
        chosen.add(memory_id)
    source = data["source"].split(" and snap-research/locomo")[0]  # LoCoMo's prompts are left out
    return {
        "name": f"{data['name']}-slice",
        "source": source,
        "license": LICENSE,
        "memories": [m for m in data["memories"] if m["id"] in chosen],
        "related": kept_related,
        "unrelated": [u for u in data["unrelated"] if str(u.get("source", "")).startswith("memorybank")][
            :unrelated
        ],
        "unrelated_excluded": [],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--memories", type=int, default=12)
    ap.add_argument("--related", type=int, default=10)
    ap.add_argument("--unrelated", type=int, default=10)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.files:
        data = json.loads(Path(name).read_text(encoding="utf-8"))
        if not data["name"].startswith("madial"):
            raise SystemExit(f"{name}: only MADial-Bench files (MIT) may be cut into the repository")
        sliced = cut(data, args.memories, args.related, args.unrelated)
        target = out / f"{sliced['name']}.json"
        target.write_text(json.dumps(sliced, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(
            f"{target}: {len(sliced['memories'])} memories, {len(sliced['related'])} related, "
            f"{len(sliced['unrelated'])} unrelated"
        )


if __name__ == "__main__":
    main()
