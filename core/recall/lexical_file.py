"""The lexical index kept on disk beside the store, so a start loads it instead of indexing
every memory again (in Python, a large part of a start: `memevo bench --json`, service_ready_s).

The file is a cache and never the truth. It holds the documents' ids and texts with their
postings (lexical.Snapshot), and a start uses it only as a base: the engine then makes it hold
exactly the store's pool (`LexicalIndex.catch_up`: memories written while the service was
down, or since the file was written, are indexed again; others dropped), so a stale file costs
a start only the memories that differ, and can never give a wrong score. A file that cannot be
read (damaged: a digest over its arrays is checked; cut short; not ours) or that was written
by other term rules (the sources of lexical.py and concepts.py and the Unicode tables are part
of its version) is ignored, and the index built from the pool as before.

Written atomically, user-only (0600), off the request path: after a start that had to index
memories, and when the service closes with changes since (engine.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import sys
import unicodedata
from functools import cache
from pathlib import Path

import numpy as np

from .. import atomic
from .lexical import LexicalIndex
from .lexical_saved import Snapshot

log = logging.getLogger("memevo.recall")
FORMAT = 1
FILE_NAME = "lexical-index.npz"


def path_beside(store_path: Path) -> Path:
    return store_path.with_name(FILE_NAME)


@cache
def rules_version() -> str:
    """What a term depends on: the code that cuts terms and names concepts, the stop lists, the
    Unicode tables (NFKC) and the file format. Another release, another version: its files are
    not read."""
    from .. import resources_access
    from . import concepts, lexical, terms

    digest = hashlib.sha256(f"{FORMAT}\0{unicodedata.unidata_version}\0{sys.version_info[:2]}".encode())
    for module in (lexical, concepts, terms):
        digest.update(b"\0" + Path(str(module.__file__)).read_bytes())
    digest.update(b"\0" + resources_access.read_text(terms.STOP_LISTS).encode())
    return digest.hexdigest()[:24]


def _strings(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one UTF-8 blob and each one's end, in characters of the decoded text."""
    blob = np.frombuffer("".join(values).encode("utf-8"), dtype=np.uint8)
    ends = np.cumsum(np.fromiter(map(len, values), dtype=np.int64, count=len(values)))
    return blob, ends


def _unstrings(blob: np.ndarray, ends: np.ndarray) -> list[str]:
    text = blob.tobytes().decode("utf-8")
    if len(ends) and (int(ends[-1]) != len(text) or int(ends[0]) < 0 or np.any(np.diff(ends) < 0)):
        raise ValueError("string ends out of order")
    bounds = ends.tolist()
    return [text[a:b] for a, b in zip([0, *bounds[:-1]], bounds, strict=True)]


def _digest(arrays: dict[str, np.ndarray]) -> str:
    """Over every array's name, type and bytes: numpy's zip does not check what it reads."""
    digest = hashlib.blake2b(digest_size=16)
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}\0{array.dtype.str}\0{array.shape}\0".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def encode(snap: Snapshot) -> bytes:
    ids, id_ends = _strings(snap.ids)
    texts, text_ends = _strings(snap.texts)
    terms, term_chars = _strings(snap.terms)
    arrays = {
        "ids": ids,
        "id_ends": id_ends,
        "texts": texts,
        "text_ends": text_ends,
        "terms": terms,
        "term_chars": term_chars,
        "term_end": snap.term_end.astype(np.int64),
        "docs": snap.docs.astype(np.uint32),
        "tfs": snap.tfs.astype(np.uint16),
        "length": snap.length.astype(np.float32),
        "category": snap.category.astype(np.int8),
        "live": snap.live.astype(bool),
    }
    meta = {"format": FORMAT, "rules": rules_version(), "digest": _digest(arrays)}
    out = io.BytesIO()
    np.savez(out, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)  # type: ignore[arg-type]
    return out.getvalue()


def decode(data: np.lib.npyio.NpzFile) -> Snapshot | None:
    """The snapshot in an opened file, or None when it is another version's; ValueError (or
    another exception of numpy's and zipfile's) when it is damaged."""
    meta = json.loads(data["meta"].tobytes().decode())
    if not isinstance(meta, dict) or (meta.get("format"), meta.get("rules")) != (FORMAT, rules_version()):
        return None
    arrays = {name: data[name] for name in data.files if name != "meta"}
    if _digest(arrays) != meta.get("digest"):
        raise ValueError("its contents are not what was written")
    snap = Snapshot(
        ids=_unstrings(arrays["ids"], arrays["id_ends"]),
        texts=_unstrings(arrays["texts"], arrays["text_ends"]),
        length=np.asarray(arrays["length"], dtype=np.float32),
        category=np.asarray(arrays["category"], dtype=np.int8),
        live=np.asarray(arrays["live"], dtype=bool),
        terms=_unstrings(arrays["terms"], arrays["term_chars"]),
        term_end=np.asarray(arrays["term_end"], dtype=np.int64),
        docs=np.asarray(arrays["docs"], dtype=np.uint32),
        tfs=np.asarray(arrays["tfs"], dtype=np.uint16),
    )
    _check(snap)
    return snap


def _check(snap: Snapshot) -> None:
    """Shapes and bounds that restore() relies on (a CRC says the bytes are as written; this
    says they were written whole and by this format)."""
    n = len(snap.ids)
    if not (len(snap.texts) == len(snap.length) == len(snap.category) == len(snap.live) == n):
        raise ValueError("document arrays of different lengths")
    if len(set(snap.ids)) != n:
        raise ValueError("an id twice")
    if len(snap.term_end) != len(snap.terms) or len(set(snap.terms)) != len(snap.terms):
        raise ValueError("terms and their postings disagree")
    if len(snap.docs) != len(snap.tfs) or (len(snap.term_end) and int(snap.term_end[-1]) != len(snap.docs)):
        raise ValueError("postings cut short")
    if len(snap.term_end) and (np.any(np.diff(snap.term_end) <= 0) or int(snap.term_end[0]) <= 0):
        raise ValueError("a term without postings")
    if len(snap.docs) and int(snap.docs.max()) >= n:
        raise ValueError("a posting of no document")
    if np.any((snap.category != 0) & (snap.category != 1)):
        raise ValueError("an unknown category")


def load(path: Path) -> LexicalIndex | None:
    """The index kept at `path`, or None (absent, damaged, another version's: built again)."""
    try:
        with path.open("rb") as file, np.load(file, allow_pickle=False) as data:  # closed if not a zip
            snap = decode(data)
    except FileNotFoundError:
        return None
    except Exception as exc:
        log.info(
            "lexical index at %s not used (%s: %s); indexing the memories", path, type(exc).__name__, exc
        )
        return None
    if snap is None:
        log.info("lexical index at %s is from other term rules; indexing the memories", path)
        return None
    return LexicalIndex.restore(snap)


def save(index: LexicalIndex, path: Path) -> None:
    atomic.write_bytes(path, encode(index.snapshot()), mode=0o600)
