"""A repository's `.memevo/facts.md` as a file: reading it safely, parsing it strictly.

The file is text a stranger may have written (a cloned repository), so reading it refuses, with
a message naming the file (and line), anything that is not plainly a short list of facts the
user can review: a repository, `.memevo` folder or file not owned by the user (git's
safe.directory rule: another local user can plant one in a shared folder); a symbolic link as
`.memevo` or as the file (it could point at any file of the user's; opened with O_NOFOLLOW, so
no check-then-open race); anything but a regular file (a FIFO would block the reader); more than
MAX_BYTES; text that is not UTF-8; characters a reviewer cannot see (Unicode format characters:
tag characters, zero-width spaces and joiners, direction marks, the word joiner, a BOM inside
the text) that would ride along unseen into every prompt; more than MAX_ITEMS items; and, per
item, what memevo would not store (controls, bidi overrides, over 400 characters) or a secret.

The format: Markdown, one fact per list item, each ending in `<!-- memevo:ID -->`: a stable id
that survives edits of the text. An item without one is a fact added by hand (its id is derived
from its text until `memevo share` writes one). Anything else outside items — headings, blank
lines, whole-line HTML comments — is kept as it is; a paragraph that is no item, a duplicate id,
or a text memevo would not store is an error naming its line, and nothing is read from the file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInput
from ..memories import live as memories
from ..memories import text as memory_text
from ..privacy import redaction
from ..repos import safegit

FILE = ".memevo/facts.md"
FOLDER, NAME = ".memevo", "facts.md"
MAX_BYTES = 1024 * 1024  # a facts file larger than this is refused (a team's facts are ~KBs)
# A team's shared facts are a short list a person reviews; a file of thousands is no such list
# (and every one of them would be recalled as the repository's word).
MAX_ITEMS = 300
HEADER = (
    "# Project facts (memevo)\n"
    "\n"
    "<!-- Written by `memevo share`, read by every teammate's memevo at session start once they\n"
    "     trust it (`memevo share --review`). One fact per item; keep each item's memevo:ID\n"
    "     comment with it (an item without one is a new fact). Deleting an item retires the\n"
    "     fact for everyone. -->\n"
)
_ID_TAIL = re.compile(r"\s*<!--\s*memevo:([A-Za-z0-9_-]{1,40})\s*-->\s*$")
_ITEM = re.compile(r"^[-*] (.*)$")
_BOM = "\ufeff"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class Item:
    share_id: str
    text: str
    first: int  # 0-based line index of its first line
    last: int  # and of its last (inclusive)
    had_id: bool


@dataclass
class Parsed:
    lines: list[str]
    items: list[Item] = field(default_factory=list)


class FileProblem(InvalidInput):
    """The facts file cannot be read; the message names the file (and line)."""


def path_in(folder: str | Path) -> Path:
    return Path(folder) / FILE


def derived_id(text: str) -> str:
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _invisible(ch: str) -> bool:
    code = ord(ch)
    return code > 0x7F and (unicodedata.category(ch) == "Cf" or 0xE0000 <= code <= 0xE007F)


def check_characters(text: str, where: str = FILE) -> None:
    """Refuse text holding a control or text-direction character (as memories.check_text, but
    on every line, headings and comments too) or one a reviewer cannot see (format
    characters), naming the first one's line and code point. Linear: one search, then one pass
    over the text's distinct characters (a set, built in C) and a search for the first bad one."""
    if memory_text.first_unsafe(text.replace("\r\n", "\n")) is not None:  # rare: then find its line
        for number, line in enumerate(text.split("\n"), 1):
            unsafe = memory_text.first_unsafe(line.removesuffix("\r"))
            if unsafe is not None:
                raise FileProblem(
                    f"{where} line {number}: a control or text-direction character ({unsafe}); "
                    "nothing was read from the file"
                )
    bad = [ch for ch in set(text) if _invisible(ch)]
    if not bad:
        return
    first = min(text.find(ch) for ch in bad)
    ch = text[first]
    name = unicodedata.name(ch, "an unassigned tag character")
    raise FileProblem(
        f"{where} line {text.count(chr(10), 0, first) + 1}: an invisible formatting character "
        f"U+{ord(ch):04X} ({name}); a fact must be text you can see — remove it; "
        "nothing was read from the file"
    )


def parse(text: str, where: str = FILE) -> Parsed:
    """The items of a facts file. Linear in its length."""
    if text.startswith(_BOM):  # an editor's byte order mark: no part of any fact
        text = text[1:]
    check_characters(text, where)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parsed = Parsed(lines)
    seen: dict[str, int] = {}
    in_comment = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if in_comment:
            in_comment = "-->" not in line
            i += 1
            continue
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            i += 1
            continue
        match = _ITEM.match(line)
        if not match:
            raise FileProblem(
                f"{where} line {i + 1}: not a fact item (each fact is a '- ' list item; "
                f"continuation lines are indented): {stripped[:80]!r}; nothing was read from the file"
            )
        if len(parsed.items) == MAX_ITEMS:
            raise FileProblem(
                f"{where} line {i + 1}: more than {MAX_ITEMS} facts; a repository's shared facts are "
                "a short list each teammate reviews — keep the file under that; nothing was read "
                "from the file"
            )
        first = i
        body = [match.group(1)]
        while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
            i += 1
            body.append(lines[i].strip())
        parsed.items.append(_item(body, first, i, seen, where))
        i += 1
    return parsed


def _item(body: list[str], first: int, last: int, seen: dict[str, int], where: str) -> Item:
    joined = "\n".join(part.rstrip() for part in body)
    tail = _ID_TAIL.search(joined)
    fact = (joined[: tail.start()] if tail else joined).strip()
    if "<!--" in fact or "-->" in fact:
        raise FileProblem(
            f"{where} line {first + 1}: a malformed memevo id comment; nothing was read from the file"
        )
    if not fact:
        raise FileProblem(f"{where} line {first + 1}: an item with no text; nothing was read from the file")
    try:
        fact = memories.check_text(fact)
    except InvalidInput as exc:
        raise FileProblem(f"{where} line {first + 1}: {exc}; nothing was read from the file") from None
    if redaction.redact_secrets(fact) != fact:
        raise FileProblem(
            f"{where} line {first + 1}: the fact holds what looks like a secret; remove it "
            "from the file (and rotate it); nothing was read from the file"
        )
    share_id = tail.group(1) if tail else derived_id(fact)
    if share_id in seen:
        raise FileProblem(
            f"{where} line {first + 1}: the id {share_id} is also on line {seen[share_id] + 1}; "
            "nothing was read from the file"
        )
    seen[share_id] = first
    return Item(share_id, fact, first, last, tail is not None)


def render_item(share_id: str, text: str) -> list[str]:
    parts = text.split("\n")
    lines = ["- " + parts[0], *("  " + part for part in parts[1:])]
    lines[-1] += f" <!-- memevo:{share_id} -->"
    return lines


# -- on disk ---------------------------------------------------------------------------------


def _not_owned(path: Path) -> FileProblem:
    return FileProblem(
        f"{path} belongs to another user: memevo does not read a facts file another user could "
        "have written (as git's safe.directory rule); nothing was read"
    )


def _link(path: Path) -> FileProblem:
    return FileProblem(
        f"{path} is a symbolic link: memevo reads and writes only a real {FILE} in the repository "
        "(a link could point at any file of yours); replace it with the file itself; nothing was read"
    )


def _owner(folder: Path) -> int:
    """The uid the repository's folder has, once safegit's rule said it is the user's: the
    `.memevo` folder and the file must have it too."""
    if not safegit.owned_by_user(folder):
        raise _not_owned(folder)
    try:
        return os.lstat(folder).st_uid
    except OSError:
        raise _not_owned(folder) from None


def read(folder: str | Path) -> tuple[str, str] | None:
    """(text, sha) of the repository's facts file, None when there is none. Refuses (FileProblem)
    what the module's doc lists; never follows a symbolic link, never blocks on a FIFO."""
    root = Path(folder)
    path = root / FILE
    if not os.path.lexists(root / FOLDER):
        return None
    owner = _owner(root)
    try:
        fd = _open(root / FOLDER, owner)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise _link(path) from None
        raise FileProblem(f"{path}: cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"{path}: not a regular file; nothing was read from it")
        if info.st_uid != owner:
            raise _not_owned(path)
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise FileProblem(f"{path}: larger than {MAX_BYTES // 1024} KB; nothing was read from it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileProblem(f"{FILE} line {line}: not UTF-8 text; nothing was read from the file") from None
    return text, hashlib.sha256(data).hexdigest()


def _open(dot: Path, owner: int) -> int:
    """The file, opened for reading inside the `.memevo` folder (refused when that is a link, no
    folder, or not the user's). Where the platform allows, the folder is opened first and the
    file inside it, both without following a link, so neither can be swapped for a link in
    between; elsewhere (Windows: no O_NOFOLLOW, no dir_fd) each is checked with lstat first."""
    flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
    if not (_DIRECTORY and _NOFOLLOW and os.open in os.supports_dir_fd):
        info = os.lstat(dot)
        if stat.S_ISLNK(info.st_mode):
            raise _link(dot)
        if not stat.S_ISDIR(info.st_mode):
            raise FileProblem(f"{dot}: not a folder; nothing was read")
        if info.st_uid != owner:
            raise _not_owned(dot)
        if os.path.islink(dot / NAME):
            raise _link(dot / NAME)
        return os.open(dot / NAME, flags | getattr(os, "O_BINARY", 0))
    try:
        dir_fd = os.open(dot, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if os.path.islink(dot):
            raise _link(dot) from None
        if exc.errno == errno.ENOTDIR:
            raise FileProblem(f"{dot}: not a folder; nothing was read") from None
        raise FileProblem(f"{dot}: cannot be read ({exc.strerror})") from None
    try:
        if os.fstat(dir_fd).st_uid != owner:
            raise _not_owned(dot)
        return os.open(NAME, flags, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def writable(folder: str | Path) -> Path:
    """Where `share` may write the file: refused when `.memevo` or the file is a symbolic link
    (a write would land wherever it points) or not the user's. Creates `.memevo` if missing."""
    root = Path(folder)
    owner = _owner(root)
    dot = root / FOLDER
    if os.path.islink(dot):
        raise _link(dot)
    if not dot.exists():
        dot.mkdir()
    if os.lstat(dot).st_uid != owner:
        raise _not_owned(dot)
    path = dot / NAME
    if os.path.islink(path):
        raise _link(path)
    if os.path.lexists(path) and os.lstat(path).st_uid != owner:
        raise _not_owned(path)
    return path
