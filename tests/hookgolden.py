"""The hook goldens (tests/golden/hooks/, beside the install goldens in tests/golden/install/).

- `<client>.json`: the cases of one client's adapter, each an event, the `stdin` the client
  sends (its payload as the client's hook documentation gives it), the `request` the hook
  must send the service (these keys with these values; others may be there too) and the `stdout`
  it must print when the service answers with reply.json (null: nothing at all). `why` says what
  a case is there for, where that is not plain.
- `reply.json`: what the fake service answers every case with.
- `transcript-<client>.jsonl`: a client's session transcript as it writes one, whose end the Stop
  hook reads the previous answer from.

Regenerate the `request` values and the `stdout` of every case with UPDATE_GOLDEN=1 (as the
install goldens: `UPDATE_GOLDEN=1 python3 -m pytest tests/test_hook_golden.py -k adapter_golden`)
and read the diff line by line; the stdin payloads, the reply and the transcripts are inputs,
written by hand.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "golden" / "hooks"
CLIENTS = ("claude", "cursor", "codebuddy", "workbuddy")
UPDATE = bool(os.environ.get("UPDATE_GOLDEN"))


def _read(name: str) -> Any:
    return json.loads((GOLDEN / name).read_text(encoding="utf-8"))


def _write(name: str, data: Any) -> None:
    (GOLDEN / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _rows(client: str) -> list[dict[str, Any]]:
    lines = (GOLDEN / f"transcript-{client}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


REPLY: dict[str, Any] = _read("reply.json")
CTX: str = REPLY["context"]
# (client, event, stdin payload, expected request keys, expected stdout or None), client by client
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any] | None]] = [
    (client, case["event"], case["stdin"], case["request"], case["stdout"])
    for client in CLIENTS
    for case in _read(f"{client}.json")
]
# WorkBuddy's UserPromptSubmit `prompt`: every user message of the session joined (workbuddy.json)
WORKBUDDY_JOINED: str = next(
    p["prompt"] for c, _, p, _, _ in CASES if c == "workbuddy" and p.get("session_id") == "wb-2"
)
CLAUDE_ROWS = _rows("claude")
CURSOR_ROWS = _rows("cursor")
CODEBUDDY_ROWS = _rows("codebuddy")  # the CodeBuddy CLI's transcript (the WorkBuddy case reads it too)


def record(
    client: str, event: str, stdin: dict[str, Any], request: dict[str, Any], stdout: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """UPDATE_GOLDEN=1: write what the hook sent and printed into the case with this stdin; the
    case as the file now has it."""
    cases = _read(f"{client}.json")
    case = next(c for c in cases if c["event"] == event and c["stdin"] == stdin)
    case["request"], case["stdout"] = request, stdout
    _write(f"{client}.json", cases)
    case = next(c for c in _read(f"{client}.json") if c["event"] == event and c["stdin"] == stdin)
    return case["request"], case["stdout"]


def write_transcript(path: Path, rows: list[dict[str, Any]], padding: int = 0) -> str:
    """A transcript file of these rows, one JSON line each, after `padding` bytes of a sparse
    hole (reading it whole would take seconds and gigabytes); its path."""
    with path.open("wb") as handle:
        if padding:
            handle.truncate(padding)
            handle.seek(padding)
            handle.write(b"\n")
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False).encode() + b"\n")
    return str(path)
