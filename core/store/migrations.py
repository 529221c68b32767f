"""Ordered, recorded schema migrations. Append new ones; never edit a released one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]
    # Run after the statements, in the same transaction, when SQL alone cannot convert the data.
    code: Callable[[Any], None] | None = None


def _vectors_as_bytes(con: Any) -> None:
    from . import vector_bytes  # numpy: only for a store that still has FLOAT[] vectors

    vector_bytes.convert_float_lists(con)


_MEMORY_COLUMNS = """
    id VARCHAR PRIMARY KEY,
    category VARCHAR NOT NULL CHECK (category IN ('rule', 'project')),
    text VARCHAR NOT NULL,
    confidence SMALLINT NOT NULL,
    created_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL,
    deprecated BOOLEAN NOT NULL DEFAULT FALSE,
    award_day VARCHAR,
    award_pts SMALLINT NOT NULL DEFAULT 0
"""

# text_sha: a vector is re-encoded only when its memory's text (or the model) changed.
_VECTOR_COLUMNS = """
    memory_id VARCHAR PRIMARY KEY,
    model VARCHAR NOT NULL,
    text_sha VARCHAR NOT NULL,
    vec FLOAT[] NOT NULL
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "memories, trash and state",
        (
            f"CREATE TABLE memories ({_MEMORY_COLUMNS})",
            f"CREATE TABLE trash ({_MEMORY_COLUMNS}, deleted_ms BIGINT NOT NULL, reason VARCHAR NOT NULL)",
            "CREATE TABLE state (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
        ),
    ),
    Migration(
        2,
        "vectors per memory, with the model that made them",
        (
            f"CREATE TABLE vectors ({_VECTOR_COLUMNS})",
            f"CREATE TABLE trash_vectors ({_VECTOR_COLUMNS})",
        ),
    ),
    Migration(
        3,
        "hook heartbeats and the injection log",
        (
            "CREATE TABLE hook_events (client VARCHAR NOT NULL, event VARCHAR NOT NULL, "
            "last_ms BIGINT NOT NULL, count BIGINT NOT NULL, last_service_ms DOUBLE, "
            "PRIMARY KEY (client, event))",
            "CREATE SEQUENCE injection_seq",
            "CREATE TABLE injections (seq BIGINT PRIMARY KEY DEFAULT nextval('injection_seq'), "
            "ts_ms BIGINT NOT NULL, client VARCHAR NOT NULL, session VARCHAR, event VARCHAR NOT NULL, "
            "prompt_id VARCHAR, memory_ids VARCHAR[] NOT NULL, chars INTEGER NOT NULL)",
        ),
    ),
    Migration(
        4,
        "side-judge jobs (keyed by sessionID) and the daily call count",
        (
            "CREATE TABLE side_jobs (id VARCHAR PRIMARY KEY, client VARCHAR NOT NULL, session VARCHAR NOT NULL, "
            "prompt_id VARCHAR, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL, status VARCHAR NOT NULL, "
            "words VARCHAR, proposal VARCHAR, result VARCHAR, error VARCHAR, shown_ms BIGINT, resolved_ms BIGINT)",
            "CREATE TABLE side_calls (day VARCHAR PRIMARY KEY, count INTEGER NOT NULL)",
        ),
    ),
    Migration(
        5,
        "ids of applied write requests, for exactly-once writes across lost connections",
        ("CREATE TABLE applied_requests (id VARCHAR PRIMARY KEY, ts_ms BIGINT NOT NULL, result VARCHAR)",),
    ),
    Migration(
        6,
        "pinned memories: never decayed, never deprecated (a row per pin, kept through the trash)",
        ("CREATE TABLE pins (memory_id VARCHAR PRIMARY KEY, pinned_ms BIGINT NOT NULL)",),
    ),
    Migration(
        7,
        "superseded texts of a memory (replace, merge, restore), with the dates each was valid",
        (
            "CREATE TABLE versions (memory_id VARCHAR NOT NULL, seq INTEGER NOT NULL, text VARCHAR NOT NULL, "
            "valid_from_ms BIGINT NOT NULL, valid_to_ms BIGINT NOT NULL, reason VARCHAR NOT NULL, "
            "PRIMARY KEY (memory_id, seq))",
        ),
    ),
    Migration(
        8,
        "the repository a memory belongs to (no row: global, as every memory before this)",
        ("CREATE TABLE scopes (memory_id VARCHAR PRIMARY KEY, repo VARCHAR NOT NULL)",),
    ),
    Migration(
        9,
        "statements imported from the user's notes (a hash each), so none is imported twice",
        (
            "CREATE TABLE imported_notes (sha VARCHAR PRIMARY KEY, source VARCHAR NOT NULL, ts_ms BIGINT NOT NULL)",
        ),
    ),
    Migration(
        10,
        "recall cues the side model wrote for a memory's text, and their mean vector per model",
        (
            "CREATE TABLE cues (memory_id VARCHAR PRIMARY KEY, text_sha VARCHAR NOT NULL, "
            "cues VARCHAR[] NOT NULL, made_ms BIGINT NOT NULL)",
            "CREATE TABLE cue_vectors (memory_id VARCHAR PRIMARY KEY, model VARCHAR NOT NULL, "
            "cues_sha VARCHAR NOT NULL, vec FLOAT[] NOT NULL)",
        ),
    ),
    Migration(
        11,
        "where each learned change of a memory came from: the client, its session, who proposed "
        "it (the side judge or the client's model) and the user's words",
        (
            "CREATE TABLE origins (memory_id VARCHAR NOT NULL, ts_ms BIGINT NOT NULL, "
            "client VARCHAR NOT NULL, session VARCHAR, proposer VARCHAR NOT NULL, "
            "action VARCHAR NOT NULL, words VARCHAR)",
        ),
    ),
    Migration(
        12,
        "the repository (or folder) a learning job's words were said in, so the confirmation "
        "dialog can say which project a proposal came from (NULL: none known)",
        ("ALTER TABLE side_jobs ADD COLUMN repo VARCHAR",),
    ),
    Migration(
        13,
        "a short excerpt of what each injection answered (the prompt, or the tool call), secrets "
        "redacted (NULL: a session start or a stop, or a row logged before it was kept)",
        ("ALTER TABLE injections ADD COLUMN prompt VARCHAR",),
    ),
    Migration(
        14,
        "the names a memory's text gives (paths, identifiers, hosts) and whether its repository "
        "still has them: when last checked, and since when (and why) the memory is stale; and "
        "why each injection chose what it injected (the gate's scores and signals, as JSON)",
        (
            "CREATE TABLE anchors (memory_id VARCHAR PRIMARY KEY, text_sha VARCHAR NOT NULL, "
            "anchors VARCHAR NOT NULL, checked_ms BIGINT, stale_ms BIGINT, stale_reason VARCHAR)",
            "ALTER TABLE injections ADD COLUMN why VARCHAR",
        ),
    ),
    Migration(
        15,
        "consolidation proposals the user declined, by the key of their members and texts, so "
        "the same cluster is not proposed again until one of its members changes",
        ("CREATE TABLE consolidation_declined (key VARCHAR PRIMARY KEY, declined_ms BIGINT NOT NULL)",),
    ),
    Migration(
        16,
        "a repository is keyed by its normalised remote URL (core/repos/identity.py), no longer its folder: "
        "the folders where each repository lives on this machine (scopes keyed by a folder are "
        "moved to its identity when the store opens)",
        (
            "CREATE TABLE repo_folders (repo VARCHAR NOT NULL, folder VARCHAR NOT NULL, "
            "seen_ms BIGINT NOT NULL, PRIMARY KEY (repo, folder))",
        ),
    ),
    Migration(
        17,
        "a repository's shared facts file (.memevo/facts.md, core/sharing/facts.py): each item's id, the "
        "memory it is here and the text the file had when last read (the base that tells a file "
        "edit from a local one); and each file's last read content hash and problem",
        (
            "CREATE TABLE shared_facts (repo VARCHAR NOT NULL, share_id VARCHAR NOT NULL, "
            "memory_id VARCHAR NOT NULL, file_text VARCHAR NOT NULL, PRIMARY KEY (repo, share_id))",
            "CREATE TABLE shared_files (repo VARCHAR PRIMARY KEY, sha VARCHAR, read_ms BIGINT NOT NULL, "
            "problem VARCHAR)",
        ),
    ),
    Migration(
        18,
        "`memevo sync` (core/sync/records.py): per memory, the content hash of its record as last "
        "committed to the sync work tree and when that state was first exported — the base that "
        "tells which side changed",
        (
            "CREATE TABLE sync_state (memory_id VARCHAR PRIMARY KEY, sha VARCHAR NOT NULL, "
            "changed_ms BIGINT NOT NULL)",
        ),
    ),
    Migration(
        19,
        "vectors (vectors, trash_vectors, cue_vectors) as BLOBs of float32 little-endian bytes "
        "instead of FLOAT[], so the pool loads whole without pyarrow (core/store/vector_bytes.py); "
        "every vector's bits kept",
        (),
        _vectors_as_bytes,
    ),
    Migration(
        20,
        "a repository's facts file is read only once the user trusts its content (core/sharing/facts.py): "
        "the trusted content's hash per repository and folder; each shared fact keyed by the folder "
        "its file was read from too (a repository's identity is only its config's claim: one "
        "folder's file never rewrites another's facts) and whether its text came from a file rather "
        "than from the user; each file's state per folder, with the content waiting for review (and "
        "the content the user declined or stopped trusting, not announced again). "
        "Facts read before are kept under the folder the repository was last seen in; no file is "
        "trusted yet (reading without trust is what this closes)",
        (
            "CREATE TABLE shared_facts_by_folder (repo VARCHAR NOT NULL, folder VARCHAR NOT NULL, "
            "share_id VARCHAR NOT NULL, memory_id VARCHAR NOT NULL, file_text VARCHAR NOT NULL, "
            "from_file BOOLEAN NOT NULL, PRIMARY KEY (repo, folder, share_id))",
            "INSERT INTO shared_facts_by_folder SELECT s.repo, coalesce((SELECT f.folder FROM repo_folders f "
            "WHERE f.repo = s.repo ORDER BY f.seen_ms DESC, f.folder LIMIT 1), s.repo), s.share_id, "
            "s.memory_id, s.file_text, EXISTS (SELECT 1 FROM origins o WHERE o.memory_id = s.memory_id "
            "AND o.client = 'repository') FROM shared_facts s",
            "DROP TABLE shared_facts",
            "ALTER TABLE shared_facts_by_folder RENAME TO shared_facts",
            "DROP TABLE shared_files",
            "CREATE TABLE shared_files (repo VARCHAR NOT NULL, folder VARCHAR NOT NULL, sha VARCHAR, "
            "read_ms BIGINT NOT NULL, problem VARCHAR, waiting VARCHAR, waiting_ms BIGINT, "
            "declined VARCHAR, PRIMARY KEY (repo, folder))",
            "CREATE TABLE shared_trust (repo VARCHAR NOT NULL, folder VARCHAR NOT NULL, sha VARCHAR NOT NULL, "
            "trusted_ms BIGINT NOT NULL, PRIMARY KEY (repo, folder))",
        ),
    ),
)


def latest_version() -> int:
    return MIGRATIONS[-1].version
