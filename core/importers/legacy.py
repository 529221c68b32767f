"""`memevo import-legacy`: bring in the Node tool's files from the same data dir.

Ids, confidence (capped at 1), timestamps and deprecated state are kept; `observations` and
`embeddings.jsonl` are ignored (vectors are re-encoded with our model). The Node tool's files
are never changed or deleted, and running the import twice adds nothing the second time.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import config as config_mod
from .. import paths
from ..clock import Clock
from ..errors import InvalidInput
from ..memories import confidence as conf
from ..memories.live import Memory, check_text
from ..memories.row import _insert
from ..memories.text import CATEGORIES
from ..repos import staleness
from ..store.database import Store, one

# Keys of the Node tool's config.json that still mean the same here. Its recall thresholds
# (and the margin) are calibrated for bge-base-zh and do not carry over to our model.
CARRIED_CONFIG_KEYS = (
    "enabled",
    "recallTopK",
    "showRecall",
    "confirm",
    "sideWaitMs",
    "decayDays",
    "sideApiBase",
    "sideApiModel",
    "sideJudge",
)
OLD_MODEL_CONFIG_KEYS = ("recallMinScore", "recallMinScoreProject", "recallMinMargin")
# The Node tool encoded with bge-base-zh; a "model" naming it is the old model, not a choice made here.
NODE_MODELS = ("BAAI/bge-base-zh-v1.5", "Xenova/bge-base-zh-v1.5")
CONFIG_DONE_KEY = "legacy_config_imported"


@dataclass
class ImportReport:
    imported: dict[str, int] = field(default_factory=lambda: {"rule": 0, "project": 0, "trash": 0})
    already_present: int = 0
    invalid_lines: list[str] = field(default_factory=list)
    length_outside_limits: int = 0
    config_keys_taken: list[str] = field(default_factory=list)
    config_keys_dropped: list[str] = field(default_factory=list)
    config_kept: bool = False  # config.json holds memevo's own settings: left exactly as it was
    maintenance_day: str | None = None
    warnings: list[str] = field(default_factory=list)
    found_files: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def legacy_files_present(root: Path | None = None) -> bool:
    root = root or paths.data_dir()
    return any((root / f"{name}.jsonl").exists() for name in (*CATEGORIES, "trash"))


def run(store: Store, clock: Clock) -> ImportReport:
    root = paths.data_dir()
    report = ImportReport()
    records: list[tuple[str, Memory, int | None]] = []
    for source in (*CATEGORIES, "trash"):
        path = root / f"{source}.jsonl"
        if path.exists():
            report.found_files.append(path.name)
            records += _read_records(path, source, clock, report)
    with store.transaction() as con:
        for _source, memory, deleted_ms in records:
            if _id_taken(con, memory.id):
                report.already_present += 1
                continue
            if deleted_ms is None:
                _insert(con, "memories", memory)
                staleness.note(con, memory.id, memory.text)
                report.imported[memory.category] += 1
            else:
                _insert(con, "trash", memory, (deleted_ms, "imported from the Node tool's trash"))
                report.imported["trash"] += 1
            if not _length_ok(memory.text):
                report.length_outside_limits += 1
        report.maintenance_day = _import_maintenance_day(store, con, root)
    _import_config(store, report)
    report.warnings += [f"the Node tool's hooks are still registered in {p}" for p in node_hook_files()]
    return report


def _length_ok(text: str) -> bool:
    try:
        check_text(text)
    except InvalidInput:
        return False
    return True


def _id_taken(con: Any, memory_id: str) -> bool:
    sql = "SELECT 1 FROM memories WHERE id = ? UNION ALL SELECT 1 FROM trash WHERE id = ?"
    return one(con.execute(sql, [memory_id, memory_id])) is not None


def _read_records(
    path: Path, source: str, clock: Clock, report: ImportReport
) -> list[tuple[str, Memory, int | None]]:
    out: list[tuple[str, Memory, int | None]] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            memory, deleted_ms = _parse_record(json.loads(line), source, clock)
        except (ValueError, TypeError, KeyError) as exc:
            report.invalid_lines.append(f"{path.name}:{number}: {exc}")
            continue
        if memory.id in seen:
            continue
        seen.add(memory.id)
        out.append((source, memory, deleted_ms))
    return out


def _parse_record(record: Any, source: str, clock: Clock) -> tuple[Memory, int | None]:
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    memory_id = str(record["id"]).strip()
    text = str(record["text"]).strip()
    if not memory_id or not text:
        raise ValueError("empty id or text")
    category = record.get("category") if record.get("category") in CATEGORIES else None
    if category is None:
        category = source if source in CATEGORIES else "rule"
    raw_conf = record.get("confidence", 0.5)
    if isinstance(raw_conf, bool) or not isinstance(raw_conf, int | float | str):
        raise ValueError("confidence is not a number")
    confidence = conf.clamp_legacy(conf.to_hundredths(raw_conf))
    now = clock.now_ms()
    created = _parse_ms(record.get("createdAt")) or _parse_ms(record.get("lastSeen")) or now
    last_seen = _parse_ms(record.get("lastSeen")) or created
    deprecated = bool(record.get("deprecated", False))
    memory = Memory(memory_id, category, text, confidence, created, last_seen, deprecated, None, 0)
    deleted_ms = None
    if source == "trash":
        deleted_ms = _parse_ms(record.get("deletedAt") or record.get("trashedAt")) or now
    return memory, deleted_ms


def _parse_ms(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return int(value)
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return int(moment.timestamp() * 1000)


def _import_maintenance_day(store: Store, con: Any, root: Path) -> str | None:
    """If the Node tool already decayed today, today's run must not decay a second time."""
    from ..memories.maintenance import STATE_KEY

    day = _latest_day_in(root / "decay-state.json")
    if day is None:
        return None
    ours = store.get_state(STATE_KEY)
    if ours is None or ours < day:
        store.set_state(con, STATE_KEY, day)
    return day


def _latest_day_in(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, str) and len(value) >= 10 and _is_day(value[:10]):
            found.append(value[:10])

    walk(data)
    return max(found) if found else None


def _is_day(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def _import_config(store: Store, report: ImportReport) -> None:
    if store.get_state(CONFIG_DONE_KEY):
        return
    path = paths.config_path()
    try:
        raw = config_mod.read_raw(path)
    except ValueError as exc:
        report.warnings.append(f"{exc}; its settings were not imported")
        return
    if raw and _written_by_memevo(raw):
        report.config_kept = True  # memevo's own settings: nothing in it is the Node tool's
    elif raw:
        kept = {k: v for k, v in raw.items() if k in CARRIED_CONFIG_KEYS}
        report.config_keys_taken = sorted(kept)
        report.config_keys_dropped = sorted(set(raw) - set(kept))
        if report.config_keys_dropped:
            backup = path.with_name("config.json.node-backup")
            if not backup.exists():
                backup.write_bytes(path.read_bytes())
            config_mod.replace_raw(kept, path)
    with store.transaction() as con:
        store.set_state(con, CONFIG_DONE_KEY, "1")


def _written_by_memevo(raw: dict[str, Any]) -> bool:
    """The Node tool writes only its own keys; `memevo config`, setup, the panel and the tray
    rewrite the whole file keeping every key in it. So a key of ours the Node tool never had
    (actionRecall, sessionStartChars, serviceIdleMinutes, a model other than bge-base-zh…)
    means memevo wrote this file and the user chose its settings here: all of them stay."""
    node_keys = (*CARRIED_CONFIG_KEYS, *OLD_MODEL_CONFIG_KEYS)
    for name, value in raw.items():
        if name not in config_mod.BY_NAME or name in node_keys:
            continue
        if name == "model" and isinstance(value, str) and value.strip() in NODE_MODELS:
            continue
        return True
    return False


def client_hook_files() -> list[Path]:
    home = Path.home()
    claude = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    codebuddy = Path(os.environ.get("CODEBUDDY_CONFIG_DIR") or home / ".codebuddy")
    return [
        claude / "settings.json",
        home / ".cursor" / "hooks.json",
        codebuddy / "settings.json",
        home / ".workbuddy" / "settings.json",
    ]


def node_hook_files() -> list[str]:
    """Client hook files that still call the Node tool (`memory.mjs hook`)."""
    found = []
    for path in client_hook_files():
        try:
            if "memory.mjs" in path.read_text(encoding="utf-8", errors="replace"):
                found.append(str(path))
        except OSError:
            continue
    return found


def node_key_file() -> Path:
    return paths.data_dir() / "side-secret.json"


def node_api_key() -> str | None:
    """The apiKey in the Node tool's side-secret.json, if any."""
    try:
        data = json.loads(node_key_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = data.get("apiKey") if isinstance(data, dict) else None
    return key.strip() if isinstance(key, str) and key.strip() else None
