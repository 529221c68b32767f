"""The documentation cannot go stale: the generated references match the code, every relative
link resolves, and every MEMEVO_* variable the code names is in core/envvars.py's table.

A static site's strict build would catch broken links; the docs are plain Markdown (see
docs/README.md, "Why plain Markdown"), so this test does it, with the anchors a forge derives
from headings.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from types import ModuleType

from memevo.core import envvars

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").rglob("*.md"))]
# Where code lives: every MEMEVO_* name found in these is a variable memevo (or its tests and
# build) reads or sets. build/ and caches are copies; the docs only quote the table.
CODE_DIRS = (
    "cli",
    "mcpserver",
    "core",
    "desktop",
    "hooks",
    "installer",
    "packaging",
    "resources",
    "tests",
    ".ci",
)
CODE_SUFFIXES = {".py", ".sh", ".spec", ".toml", ".desktop", ".json", ".cfg", ".ini", ""}
VARIABLE = re.compile(r"MEMEVO_[A-Z_]+")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "packaging" / "gen_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_current() -> None:
    stale = [str(path.relative_to(REPO)) for path in _gen_docs().stale()]
    assert not stale, f"stale generated docs (run python3 packaging/gen_docs.py): {stale}"


def test_the_references_name_every_command_key_and_variable() -> None:
    """The generator walks what it should: a command, key or variable it skipped would leave a
    page that is current and still incomplete."""
    from memevo.cli.main import build_parser
    from memevo.core import config

    docs = REPO / "docs" / "reference"
    cli = (docs / "cli.md").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in commands.choices:
        assert f"## memevo {name}\n" in cli, name
    keys = (docs / "config.md").read_text(encoding="utf-8")
    for key in config.SCHEMA:
        assert f"| `{key.name}` |" in keys, key.name
    variables = (docs / "environment.md").read_text(encoding="utf-8")
    for variable in envvars.VARIABLES:
        assert f"| `{variable.name}` |" in variables, variable.name


# -- links -------------------------------------------------------------------------------------
def slug(heading: str) -> str:
    """The anchor GitHub (and GitLab, Gitea) gives a heading: lower case, punctuation other
    than hyphens and underscores dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _unfenced(text: str) -> str:
    """The text outside fenced code blocks (a `#` line there is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _prose(text: str) -> str:
    """The text outside code blocks and inline code: links there are not links."""
    return re.sub(r"`[^`\n]*`", "", _unfenced(text))


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in _unfenced(path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def test_slugs_are_the_forges() -> None:
    assert slug("The client's own model (client mode)") == "the-clients-own-model-client-mode"
    assert slug("`memevo read`: one group") == "memevo-read-one-group"
    assert slug("2026-12-01: relay hook, batched encodes") == "2026-12-01-relay-hook-batched-encodes"


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (page.parent / file_part).resolve() if file_part else page
            where = f"{page.relative_to(REPO)}: {target}"
            if not resolved.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{where} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_docs_link_every_page() -> None:
    """A page nobody links to is a page nobody finds."""
    linked = set()
    for page in PAGES:
        for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            file_part = target.partition("#")[0]
            if file_part and not re.match(r"[a-z][a-z0-9+.-]*:", target):
                linked.add((page.parent / file_part).resolve())
    orphans = [str(p.relative_to(REPO)) for p in PAGES if p.resolve() not in linked and p.name != "README.md"]
    assert not orphans, orphans


# -- environment variables -----------------------------------------------------------------------
def _code_files() -> list[Path]:
    """Every file of code, its build scripts and its tests, as a clone holds them (what
    .gitignore keeps out, such as build/ and .cache/, are copies or downloads)."""
    ignored = {"__pycache__", "build", "dist", ".cache", ".venv", ".mypy_cache", ".ruff_cache"}
    files = [p for p in REPO.iterdir() if p.is_file() and p.suffix in {".py", ".toml", ".cfg"}]
    for folder in CODE_DIRS:
        files += [
            p
            for p in (REPO / folder).rglob("*")
            if p.is_file() and p.suffix in CODE_SUFFIXES and not ignored & set(p.relative_to(REPO).parts)
        ]
    return [p for p in files if p != REPO / "core" / "envvars.py"]


def test_every_memevo_variable_in_the_code_is_in_the_table() -> None:
    """Hooks are stdlib-only and cannot import the table; the installer, packaging and tests name
    some variables literally. Wherever a MEMEVO_* name appears, the table must hold it; and a
    name in the table that no code names is read by nobody."""
    named: dict[str, str] = {}
    texts = []
    for path in _code_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary resources (models, translations)
        texts.append(text)
        for name in VARIABLE.findall(text):
            named.setdefault(name, str(path.relative_to(REPO)))
    missing = {name: where for name, where in named.items() if name not in envvars.BY_NAME}
    assert not missing, f"add these to core/envvars.py (name: first file naming it): {missing}"
    # A reader through the table names the constant (envvars.HOME), not the variable.
    constants = {v.name: attr for attr, v in vars(envvars).items() if isinstance(v, envvars.EnvVar)}
    used = set(named) | {
        name for name, attr in constants.items() if any(f"envvars.{attr}" in t for t in texts)
    }
    unread = sorted(set(envvars.BY_NAME) - used)
    assert not unread, f"core/envvars.py lists variables no code names: {unread}"


def test_readers_in_the_layers_take_names_from_the_table() -> None:
    """cli/, mcpserver/, core/ and desktop/ can import core/envvars.py, so none reads a MEMEVO_* variable by
    a literal name (hooks/ and the scripts cannot, and are covered by the test above)."""
    literal = re.compile(r"(?:environ\.get\(|environ\[|getenv\()\s*[\"']MEMEVO_")
    offenders = [
        str(path.relative_to(REPO))
        for folder in ("cli", "mcpserver", "core", "desktop")
        for path in (REPO / folder).rglob("*.py")
        if literal.search(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"read these through core/envvars.py: {offenders}"


# -- troubleshooting quotes the real messages ------------------------------------------------------
MESSAGE = re.compile(r"\*\*`` (.+?) ``\*\*|\*\*`([^`]+?)`\*\*")


def _source_strings() -> str:
    """The product's source with adjacent string literals joined and every f-string field read
    as a variable part (…), the way docs/troubleshooting.md writes one."""
    parts = []
    for folder in ("cli", "mcpserver", "core", "desktop", "installer", "hooks"):
        for path in (REPO / folder).rglob("*.py"):
            text = re.sub(r"\"\s*\n\s*(?:\+\s*)?[rbf]*\"", "", path.read_text(encoding="utf-8"))
            parts.append(re.sub(r"\{[^{}\n]*\}", "…", text))
    return "\n".join(parts)


def test_troubleshooting_quotes_messages_the_code_prints() -> None:
    """Each message quoted in bold code is the product's own: every clause of it (split at the
    variable parts, "; " and ": ", where messages are put together) is in the source, so a
    reworded message fails here until the page follows."""
    source = _source_strings()
    page = (REPO / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    quoted = [a or b for a, b in MESSAGE.findall(page)]
    assert len(quoted) >= 15, quoted
    stale = {}
    for message in quoted:
        clauses = [c.strip() for part in message.split("…") for s in part.split("; ") for c in s.split(": ")]
        missing = [c for c in clauses if len(c) >= 12 and c not in source]
        if missing:
            stale[message[:60]] = missing
    assert not stale, f"docs/troubleshooting.md quotes messages the code no longer prints: {stale}"


# -- the hand-written pages beside the references ----------------------------------------------------
def test_the_configuration_page_names_real_keys_with_their_defaults() -> None:
    """docs/configuration.md explains the keys in practice; its keys and literal defaults are the
    schema's (the generated reference has them all; this page must not contradict it)."""
    import json

    from memevo.core import config

    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    wrong = []
    for names, defaults in re.findall(r"^\| (`[^|]+`) \| ([^|]+) \|", page, re.M):
        keys = re.findall(r"`([^`]+)`", names)
        shown = re.findall(r"`([^`]+)`", defaults)
        for i, name in enumerate(keys):
            key = config.BY_NAME.get(name)
            if key is None:
                wrong.append(f"{name}: no such key")
            elif len(shown) == len(keys) and key.default is not None:
                literal = key.default if isinstance(key.default, str) else json.dumps(key.default)
                if shown[i] != literal:
                    wrong.append(f"{name}: the page says {shown[i]}, the schema {literal}")
    assert not wrong, wrong


def test_the_command_line_overview_names_real_commands() -> None:
    from memevo.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    page = (REPO / "docs" / "command-line.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^memevo ([a-z][a-z-]*)", page, re.M))
    assert named and named <= set(commands.choices), named - set(commands.choices)


# -- files named in prose exist ------------------------------------------------------------------------
PATH_REF = re.compile(
    # shared/: the design notes outside the repository, which a clone does not have
    r"(?<![\w./-])((?:app|core|desktop|hooks|installer|packaging|tests|resources|docs|shared|\.ci)/"
    r"[\w./-]+\.(?:py|md|json|sh|spec|toml|ts|png|txt|mdc|desktop))"
)


def _prose_of_code(path: Path) -> str:
    """A Python file's comments and docstrings: where it tells the reader to look elsewhere."""
    import ast
    import io
    import tokenize

    source = path.read_text(encoding="utf-8")
    comments = [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    tree = ast.parse(source)
    docstrings = [
        ast.get_docstring(node) or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return "\n".join(comments + docstrings)


def test_files_named_in_comments_docstrings_and_docs_exist() -> None:
    """A comment that sends the reader to a file that was renamed or never existed misleads; so
    does a page. (A name with a capitalised placeholder, such as `-LANG.png`, is a pattern.)"""
    texts = {page: page.read_text(encoding="utf-8") for page in PAGES}
    for folder in ("cli", "mcpserver", "core", "desktop", "hooks", "installer", "packaging", "tests"):
        for path in (REPO / folder).rglob("*.py"):
            raw = path.read_text(encoding="utf-8")
            # Only a file naming a missing path anywhere needs its prose told from its strings
            # (test data may name files that do not exist): tokenizing every file is slow.
            if any(not (REPO / ref).exists() for ref in PATH_REF.findall(raw)):
                texts[path] = _prose_of_code(path)
    missing = sorted(
        f"{path.relative_to(REPO)}: {ref}"
        for path, text in texts.items()
        for ref in PATH_REF.findall(text)
        if not re.search(r"[-_][A-Z]{3,}[-_.]", ref) and not (REPO / ref).exists()
    )
    assert not missing, "these name files that do not exist:\n" + "\n".join(missing)


# -- comments and docstrings that stay true ----------------------------------------------------------
PRODUCT_DIRS = ("cli", "mcpserver", "core", "desktop", "installer", "hooks")
# An issue number means nothing to a reader of a clone: the fact it stood for belongs in the text.
ISSUE_REF = re.compile(r"\bissues?\s+#?\d+", re.I)
# A path from the repository's root (or from a folder that used to be there: app/, shared/).
ROOTED_REF = re.compile(
    r"(?<![\w./-])((?:cli|mcpserver|core|desktop|hooks|installer|packaging|tests|resources|docs|extbench"
    r"|app|shared|\.ci)/[\w./-]+\.(?:py|md|json|sh|spec|toml|ts|js|png|txt|mdc|desktop|bin|npy|yml|yaml))\b"
)
# A Markdown document named bare, and an appendix: only a document outside the repository has
# them. The clients' own instruction files are theirs, not documents of ours.
BARE_DOCUMENT = re.compile(r"(?<![\w./-])([\w-]+\.md)\b|\b(Appendix [A-Z])\b")
CLIENTS_FILES = {"CLAUDE.md", "AGENTS.md", "CODEBUDDY.md"}
# Files whose owners have yet to reword them (the change that added this test listed each line);
# empty this as they are fixed (a file here is tolerated whole; a clean one must leave it).
PROSE_ALLOWED = {}


def _prose_offences(text: str, markdown: set[str]) -> list[str]:
    """What a text cites that a clone does not have."""
    found = [match.group(0) for match in ISSUE_REF.finditer(text)]
    found += [
        ref
        for ref in ROOTED_REF.findall(text)
        if not re.search(r"[-_][A-Z]{3,}[-_.]", ref) and not (REPO / ref).exists()
    ]
    found += [
        doc or appendix
        for doc, appendix in BARE_DOCUMENT.findall(text)
        if appendix or (doc not in markdown and doc not in CLIENTS_FILES)
    ]
    return found


def test_comments_cite_nothing_a_clone_lacks() -> None:
    """A comment or docstring in the product names no issue number, no file from the repository's
    root that does not exist and no document outside the repository: the fact stays, the citation
    goes (for a measured figure, name its `memevo bench --json` key: docs/performance.md)."""
    ignored = {"__pycache__", "build", "dist", ".cache", ".venv", ".git"}
    markdown = {p.name for p in REPO.rglob("*.md") if not ignored & set(p.relative_to(REPO).parts)}
    offenders, tolerated = [], []
    for folder in PRODUCT_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            # Only a file whose whole text cites something needs its prose told from its strings.
            if "__pycache__" in path.parts or not _prose_offences(path.read_text(encoding="utf-8"), markdown):
                continue
            where = str(path.relative_to(REPO))
            prose = re.sub(r"\n\s*#\s*", " ", _prose_of_code(path))  # a comment's lines as one text
            found = _prose_offences(prose, markdown)
            (tolerated if where in PROSE_ALLOWED else offenders).extend(f"{where}: {f}" for f in found)
    assert not offenders, "reword these comments or docstrings:\n" + "\n".join(offenders)
    stale = [where for where in PROSE_ALLOWED if not any(t.startswith(f"{where}:") for t in tolerated)]
    assert not stale, f"these are clean now: take them out of PROSE_ALLOWED: {stale}"
