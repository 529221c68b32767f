"""Where the workers sat idle: reads the MEMEVO_TEST_PROFILE file a run wrote (tests/conftest.py)
and ranks tests and modules by wall time not spent on a CPU (theirs or their reaped children's).

    MEMEVO_TEST_PROFILE=/tmp/profile.jsonl bash tests/setup-and-test.sh
    python3 tests/profile_report.py /tmp/profile.jsonl [--top 30]

Idle here is wall minus CPU: sleeps, waits on a lock or a socket, a process not reaped (a
daemon's CPU is not counted), and time the CPU spent on something else (a loaded machine).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    rows = [
        json.loads(line) for line in args.profile.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    for row in rows:
        row["cpu"] = row["own"] + row["children"]
        row["idle"] = max(0.0, row["wall"] - row["cpu"])
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    workers: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for row in rows:
        totals = modules[row["test"].split("::", 1)[0]]
        totals[0] += row["wall"]
        totals[1] += row["cpu"]
        totals[2] += row["idle"]
        workers[row["worker"] or "main"][0] += row["wall"]
        workers[row["worker"] or "main"][1] += row["cpu"]
    print(
        f"{len(rows)} tests; wall {sum(r['wall'] for r in rows):.0f} s, CPU {sum(r['cpu'] for r in rows):.0f} s"
    )
    for worker, (wall, cpu) in sorted(workers.items()):
        print(f"  {worker}: wall {wall:.0f} s, CPU {cpu:.0f} s ({100 * cpu / max(wall, 1e-9):.0f}%)")
    print(f"\nmodules by idle (wall / CPU / idle, s), top {args.top}:")
    for module, (wall, cpu, idle) in sorted(modules.items(), key=lambda kv: -kv[1][2])[: args.top]:
        print(f"  {wall:7.1f} {cpu:7.1f} {idle:7.1f}  {module}")
    print(f"\ntests by idle, top {args.top}:")
    for row in sorted(rows, key=lambda r: -r["idle"])[: args.top]:
        print(f"  {row['wall']:7.1f} {row['cpu']:7.1f} {row['idle']:7.1f}  {row['test']}")
    print(f"\ntests by CPU, top {args.top}:")
    for row in sorted(rows, key=lambda r: -r["cpu"])[: args.top]:
        print(f"  {row['wall']:7.1f} {row['cpu']:7.1f} {row['idle']:7.1f}  {row['test']}")


if __name__ == "__main__":
    main()
