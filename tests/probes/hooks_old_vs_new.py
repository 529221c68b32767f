"""The hooks of a git revision against the working tree's, against one service, alternated.

    python tests/probes/hooks_old_vs_new.py REV [rounds] [runs_per_round]

REV's hooks/ (and core/__init__.py, which they read the version from) are written to a
temporary folder with `git show`; both hooks talk to the same `memevo serve` over bench's 10k
pool. Prints min / median / p95 / max per figure and variant."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memevo.cli.bench import hooks as bench_hooks
from memevo.cli.bench.measure import spread
from memevo.cli.bench.service import bench_service

REPO = Path(__file__).resolve().parents[2]


def checkout_hooks(rev: str, into: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "hooks", "core/__init__.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in listed:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(
            subprocess.run(["git", "show", f"{rev}:{name}"], cwd=REPO, capture_output=True, check=True).stdout
        )
    return into / "hooks" / "memevo_hook.py"


def main() -> None:
    rev = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    python = sys.executable
    samples: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as tmp:
        scripts = {"old": checkout_hooks(rev, Path(tmp)), "new": REPO / "hooks" / "memevo_hook.py"}
        with bench_service(python) as (env, _service, _ready_s):
            payloads = bench_hooks.hook_payloads()
            for script in scripts.values():  # compile both once, warm the service
                for event in ("UserPromptSubmit", "SessionStart"):
                    payload = payloads["prompt" if event == "UserPromptSubmit" else "session_start"]
                    bench_hooks.hook_samples(
                        [python, "-I", "-S", str(script), "claude", event], payload, env, 3
                    )
            for phase in ("quiet", "loaded", "concurrent"):
                for r in range(rounds):
                    for variant in ("old", "new") if r % 2 == 0 else ("new", "old"):
                        hook = [python, "-I", "-S", str(scripts[variant]), "claude"]
                        figures = samples[variant]
                        if phase == "quiet":
                            figures.setdefault("python_start_ms", []).extend(
                                bench_hooks.hook_samples([python, "-I", "-S", "-c", "pass"], b"", env, runs)
                            )
                            figures.setdefault("hook_prompt_ms", []).extend(
                                bench_hooks.hook_samples(
                                    [*hook, "UserPromptSubmit"], payloads["prompt"], env, runs
                                )
                            )
                            figures.setdefault("hook_session_start_ms", []).extend(
                                bench_hooks.hook_samples(
                                    [*hook, "SessionStart"], payloads["session_start"], env, runs
                                )
                            )
                        elif phase == "loaded":
                            with bench_hooks.cpu_load(python):
                                figures.setdefault("hook_prompt_loaded_ms", []).extend(
                                    bench_hooks.hook_samples(
                                        [*hook, "UserPromptSubmit"], payloads["prompt"], env, runs
                                    )
                                )
                        else:
                            figures.setdefault("hook_prompt_concurrent_ms", []).extend(
                                bench_hooks.concurrent_samples(
                                    [*hook, "UserPromptSubmit"], payloads["prompt"], env, max(1, runs // 4)
                                )
                            )
                print(f"{phase} done at {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {v: {k: spread(x) for k, x in figs.items()} for v, figs in samples.items()}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
