"""Anchors: the names in a memory's text that its repository can confirm or deny.

A project fact such as "the gray-release switch is pay_new_flow_v2" or "payments live in
src/pay/" names things the code holds. Those names are picked out when the memory is written
(core/repos/staleness.py keeps them) and looked up in the memory's repository later:

* a path ("src/pay/", "core/store/database.py") exists under the repository's folder;
* a file name ("store.py") is a tracked file somewhere in it (`git ls-files`);
* an identifier (snake_case, camelCase, a dotted name) or a flag ("--dry-run") occurs in a
  tracked file (`git grep -F -q`: tracked files only, stops at the first match, no output);
* a host ("api.pay.internal", the host of a URL) occurs in a tracked configuration file.

* a command's script or target: `npm run build:prod` (also pnpm, yarn, bun) is a script of the
  repository's package.json, `make deploy-staging` a target of its Makefile; a script run by
  its path (`./scripts/release.sh`, `bash scripts/deploy.sh`) is a path like any other.

Other commands and plain words are not anchors: nothing in a repository says whether they hold.

Extraction is one pass of a single-character-class regex over a bounded prefix of the text
(linear, no backtracking on hostile text), at most MAX_ANCHORS kept. Every probe runs with the
time left of the caller's deadline; one that runs out answers "unknown" (None), never "gone".
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from . import safegit

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
    kind: str  # path, file, ident, flag, host, script (package.json), target (Makefile)
    value: str


RUNNERS = frozenset(["npm", "pnpm", "yarn", "bun"])  # `<runner> run <script>`
# "make sure", "make it" …: prose, not a target (a target never found is no evidence, but it
# would take one of the MAX_ANCHORS places)
NOT_TARGETS = frozenset(["sure", "it", "a", "an", "the", "this", "that", "them", "sense", "use", "certain"])
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:\-/]*")  # a script's or a target's name
MAX_FILE_BYTES = 1_000_000  # a package.json or Makefile read at most this far


def extract(text: str) -> list[Anchor]:
    """The checkable names in a text, in order of appearance, each once, at most MAX_ANCHORS.
    One pass over the tokens; the two before each one say whether it is a command's script or
    target (`npm run X`, `make X`)."""
    found: dict[Anchor, None] = {}
    before = ("", "")
    for match in _TOKEN.finditer(text[:MAX_SCAN_CHARS]):
        token = match.group()
        if len(token) > MAX_TOKEN:
            before = ("", "")
            continue
        anchor = _command(before, token) or _classify(token)
        before = (before[1], token.lower())
        if anchor is not None:
            found.setdefault(anchor)
            if len(found) >= MAX_ANCHORS:
                break
    return list(found)


def _command(before: tuple[str, str], raw: str) -> Anchor | None:
    token = raw.rstrip(_TRAILING)
    if not _NAME.fullmatch(token):
        return None
    if before[1] == "run" and before[0] in RUNNERS:
        return Anchor("script", token)
    if before[1] == "make" and "/" not in token and token.lower() not in NOT_TARGETS:
        return Anchor("target", token)
    return None


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
        # Another user's folder is not looked into at all (core/repos/safegit.py): its `.git` could
        # be planted to run code, its files could be links chosen to probe ours.
        self.owned = safegit.owned_by_user(self.root)
        self.git = self.owned and (self.root / ".git").exists()
        self.timed_out = False
        self._known: dict[Anchor, bool | None] = {}
        self._scripts: set[str] | None = None  # package.json's, read once
        self._targets: set[str] | None = None  # the Makefile's, read once
        self._drivers: list[tuple[str, str]] | None = None  # its config's drivers, listed once

    def found(self, anchor: Anchor) -> bool | None:
        if anchor not in self._known:
            self._known[anchor] = self._probe(anchor)
        return self._known[anchor]

    def _probe(self, anchor: Anchor) -> bool | None:
        if not self.owned:
            return None
        if anchor.kind == "path":
            return self._exists(anchor.value)
        if anchor.kind == "script":
            if self._scripts is None:
                self._scripts = package_scripts(self._read("package.json"))
            return anchor.value in self._scripts if self._scripts is not None else None
        if anchor.kind == "target":
            if self._targets is None:
                made = [self._read(name) for name in ("GNUmakefile", "makefile", "Makefile")]
                self._targets = make_targets(next((m for m in made if m is not None), None))
            return anchor.value in self._targets if self._targets is not None else None
        if not self.git:
            return None
        if anchor.kind == "file":
            # "**/" also matches no folder at all: a file at the top level counts
            return self._git(["ls-files", "--error-unmatch", "--", f":(glob)**/{anchor.value}"])
        # safegit.run adds --no-textconv: no textconv driver the repository names can run
        args = ["grep", "-q", "-F", "-I", "--no-color", "-e", anchor.value]
        if anchor.kind == "host":
            args += ["--", *CONFIG_GLOBS]
        return self._git(args)

    def _read(self, name: str) -> str | None:
        """A file at the repository's top, its first MAX_FILE_BYTES; None: absent or unreadable."""
        path = self.root / name
        try:
            if not path.is_file() or not path.resolve().is_relative_to(self.root.resolve()):
                return None
            with path.open("rb") as handle:
                return handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
        except OSError:
            return None

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
        try:
            # hardened: the repository is text a stranger may have written, and its config can
            # name programs (a lazy fetch's transport, fsmonitor, a textconv driver …)
            # capture=False: -q and --error-unmatch, the exit code is the answer
            if args[0] not in safegit.NO_DRIVERS and self._drivers is None:
                self._drivers = safegit.drivers(self.root, left)  # once per repository and check
                if self._drivers is None:
                    return None  # its config cannot be listed: as safegit.run would answer
                left = max(self.deadline - time.monotonic(), 0.001)
            done = safegit.run(
                self.root, args, timeout=left, network=False, capture=False, known_drivers=self._drivers
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
        return None  # a git error (a missing object git may not fetch, …): unknown, never gone


def package_scripts(text: str | None) -> set[str] | None:
    """The script names of a package.json; None: no package.json, or one that cannot be read
    (then a script is "unknown", never "gone"); an empty set: it has no scripts."""
    import json

    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return {str(k) for k in scripts} if isinstance(scripts, dict) else set()


def make_targets(text: str | None) -> set[str] | None:
    """The targets a Makefile defines: each rule line's names before its colon (`a b: deps`,
    `x::`), not variable assignments (`X := 1`, `X ::= 1`) nor recipe lines. One pass, line by
    line (str.partition: linear). None: no Makefile."""
    if text is None:
        return None
    targets: set[str] = set()
    for line in text.splitlines():
        if not line or line[0] in "\t #":
            continue
        head, colon, rest = line.partition(":")
        if not colon or rest.startswith("=") or rest.startswith(":=") or "=" in head:
            continue
        targets.update(name for name in head.split() if _NAME.fullmatch(name))
    return targets
