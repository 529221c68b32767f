"""Anchors: the names in a memory's text that its repository can confirm or deny.

A project fact such as "the gray-release switch is pay_new_flow_v2" or "payments live in
src/pay/" names things the code holds. Those names are picked out when the memory is written
(core/staleness.py keeps them) and looked up in the memory's repository later:

* a path ("src/pay/", "core/store.py") exists under the repository's folder;
* a file name ("store.py") is a tracked file somewhere in it (`git ls-files`);
* an identifier (snake_case, camelCase, a dotted name) or a flag ("--dry-run") occurs in a
  tracked file (`git grep -F -q`: tracked files only, stops at the first match, no output);
* a host ("api.pay.internal", the host of a URL) occurs in a tracked configuration file.

Commands and plain words are not anchors: nothing in a repository says whether they still hold.

Extraction is one pass of a single-character-class regex over a bounded prefix of the text
(linear, no backtracking on hostile text), at most MAX_ANCHORS kept. Every probe runs with the
time left of the caller's deadline; one that runs out answers "unknown" (None), never "gone".
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

MAX_SCAN_CHARS = 4000  # memories hold at most 400 characters; imported text is cut here
MAX_ANCHORS = 12
MAX_TOKEN = 160  # a longer run of name characters is no name anyone would check
PROBE_MAX_S = 2.0  # one git call at most this long, however much of the budget is left

# One character class, repeated: finditer is linear in the text whatever it holds.
_TOKEN = re.compile(r"[A-Za-z0-9_.\-/~:@+]+")
_SNAKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_FLAG = re.compile(r"--[a-z0-9][a-z0-9-]+")
_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+")
_PATH_PART = re.compile(r"[A-Za-z0-9_.@+-]+")
# A dotted name ending in one of these is a host; ending in a file extension, a file.
_TLDS = frozenset(
    [
        "com",
        "net",
        "org",
        "io",
        "dev",
        "app",
        "ai",
        "co",
        "cn",
        "uk",
        "de",
        "jp",
        "internal",
        "local",
        "lan",
        "corp",
        "svc",
        "cluster",
        "cloud",
        "site",
        "tech",
    ]
)
_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "js",
        "jsx",
        "ts",
        "tsx",
        "mjs",
        "cjs",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "rb",
        "php",
        "swift",
        "m",
        "mm",
        "scala",
        "sh",
        "bash",
        "zsh",
        "ps1",
        "sql",
        "json",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "md",
        "rst",
        "txt",
        "html",
        "css",
        "scss",
        "vue",
        "svelte",
        "proto",
        "gradle",
        "lock",
        "xml",
        "csv",
        "tf",
        "hcl",
        "dockerfile",
        "mk",
    ]
)
# Where a host is looked for: configuration, not prose or code.
CONFIG_GLOBS = (
    "*.yml", "*.yaml", "*.json", "*.toml", "*.ini", "*.cfg", "*.conf", "*.properties", "*.env",
    ".env*", "*.tf", "*.hcl", "*.xml", "Dockerfile*", "docker-compose*", "*.config", "*.service",
)  # fmt: skip
_TRAILING = ".,;:!?)]}>'\"`"


@dataclass(frozen=True)
class Anchor:
    kind: str  # path, file, ident, flag, host
    value: str


def extract(text: str) -> list[Anchor]:
    """The checkable names in a text, in order of appearance, each once, at most MAX_ANCHORS."""
    found: dict[Anchor, None] = {}
    for match in _TOKEN.finditer(text[:MAX_SCAN_CHARS]):
        token = match.group()
        if len(token) > MAX_TOKEN:
            continue
        anchor = _classify(token)
        if anchor is not None:
            found.setdefault(anchor)
            if len(found) >= MAX_ANCHORS:
                break
    return list(found)


def _classify(raw: str) -> Anchor | None:
    if raw.startswith(("http://", "https://")):
        host = (urlsplit(raw.rstrip(_TRAILING)).hostname or "").lower()
        return Anchor("host", host) if "." in host and _HOST.fullmatch(host) else None
    token = raw.rstrip(_TRAILING).lstrip("(")
    if _FLAG.fullmatch(token):
        return Anchor("flag", token)
    if "/" in token:
        return _path(token)
    if ":" in token:  # host:port; anything else with a colon (a time, a URN) is no name
        head, _, port = token.partition(":")
        return Anchor("host", head.lower()) if port.isdigit() and _is_host(head.lower()) else None
    if token.startswith(("-", "~", "@", "+")):
        return None
    if _is_host(token):
        return Anchor("host", token)
    last = token.rsplit(".", 1)[-1].lower() if "." in token else ""
    if last in _EXTENSIONS and _PATH_PART.fullmatch(token):
        return Anchor("file", token)
    if _DOTTED.fullmatch(token) or (
        len(token) >= 4
        and (("_" in token.strip("_") and _SNAKE.fullmatch(token)) or _CAMEL.fullmatch(token))
        and any(ch.isalpha() for ch in token)
    ):
        return Anchor("ident", token)
    return None


def _is_host(token: str) -> bool:
    return bool(_HOST.fullmatch(token)) and token.rsplit(".", 1)[-1] in _TLDS


def _path(token: str) -> Anchor | None:
    """A relative path inside the repository ("./scripts/x.sh", "src/pay/"). Absolute and home
    paths name the machine, not the repository; ".." leaves it."""
    path = token[2:] if token.startswith("./") else token
    path = path.rstrip("/")
    if not path or path.startswith(("/", "~")) or "//" in path:
        return None
    parts = path.split("/")
    if any(p in ("", ".", "..") or not _PATH_PART.fullmatch(p) for p in parts):
        return None
    if not any(ch.isalpha() for ch in path):  # 1/2, 2026/12/01
        return None
    return Anchor("path", path)


# -- probing a repository ----------------------------------------------------------------------
class Prober:
    """Looks anchors up in one repository until `deadline` (time.monotonic()); remembers each
    answer, so memories sharing a name cost one lookup. None: not known (out of time, no git,
    a git error), which never counts as gone."""

    def __init__(self, repo: str, deadline: float) -> None:
        self.root = Path(repo)
        self.deadline = deadline
        self.git = (self.root / ".git").exists()
        self.timed_out = False
        self._known: dict[Anchor, bool | None] = {}

    def found(self, anchor: Anchor) -> bool | None:
        if anchor not in self._known:
            self._known[anchor] = self._probe(anchor)
        return self._known[anchor]

    def _probe(self, anchor: Anchor) -> bool | None:
        if anchor.kind == "path":
            return self._exists(anchor.value)
        if not self.git:
            return None
        if anchor.kind == "file":
            # "**/" also matches no folder at all: a file at the top level counts
            return self._git(["ls-files", "--error-unmatch", "--", f":(glob)**/{anchor.value}"])
        args = ["grep", "-q", "-F", "-I", "--no-color", "-e", anchor.value]
        if anchor.kind == "host":
            args += ["--", *CONFIG_GLOBS]
        return self._git(args)

    def _exists(self, relative: str) -> bool | None:
        try:
            target = (self.root / relative).resolve()
            if not target.is_relative_to(self.root.resolve()):  # a symlink leading out
                return None
            return target.exists()
        except (OSError, RuntimeError):
            return None

    def _git(self, args: list[str]) -> bool | None:
        left = min(self.deadline - time.monotonic(), PROBE_MAX_S)
        if left <= 0:
            self.timed_out = True
            return None
        env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        try:
            done = subprocess.run(
                # no fsmonitor: a repository's own config could name a program to run
                [
                    "git",
                    "-C",
                    str(self.root),
                    "-c",
                    "core.fsmonitor=false",
                    "-c",
                    "core.quotepath=off",
                    *args,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # -q and --error-unmatch: the exit code is the answer
                stderr=subprocess.DEVNULL,
                timeout=left,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            self.timed_out = True
            return None
        except OSError:  # no git on this machine
            self.git = False
            return None
        if done.returncode == 0:
            return True
        if done.returncode == 1:  # grep: no match; ls-files --error-unmatch: not tracked
            return False
        return None
