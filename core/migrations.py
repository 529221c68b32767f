"""Ordered, recorded schema migrations. Append new ones; never edit a released one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


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
)


def latest_version() -> int:
    return MIGRATIONS[-1].version
