"""The input filter shared by recall and the side judge.

Pasted code and logs are not the user's words and drag recall toward unrelated memories,
so they are removed first: fenced code blocks, runs of code-like lines, log lines. What is
left must be 6 columns to 500 characters, else there is no recall (and nothing is judged).

Any text can arrive here (a 1 MB paste, 100 KB of spaces), so the work is bounded by
construction, never by the text:
- a prompt is read through a window: its first and last `SCAN_CHARS` characters, at most
  `SCAN_LINES` lines from each end. A longer paste's middle is pasted material and is
  dropped unread (the user's own words come before or after it); only the fence markers
  before the tail are counted, at C speed, to know whether the tail starts inside a fence;
- fenced blocks are removed inside the window (`_FENCE` moves forward only);
- each line is classified on its stripped text by patterns anchored at its start, each
  with one way to match (no nested or overlapping quantifiers), on at most `LINE_HEAD`
  characters: a line costs O(its length) at most.
Redaction (what is sent to the side API) lives in `core/privacy/redaction.py`; the judge's input
reaches it filtered and at most `JUDGE_MAX_CHARS` long.
"""

from __future__ import annotations

import re

from ..memories.text import remove_unsafe, text_width
from ..privacy.redaction import redact_secrets
from ..privacy.values import REDACTED

__all__ = [
    "JUDGE_MAX_CHARS",
    "MAX_INPUT_CHARS",
    "MIN_INPUT_WIDTH",
    "REDACTED",
    "judge_input",
    "recall_input",
    "redact_secrets",
    "scan_lines",
    "strip_code_and_logs",
    "usable",
]

MIN_INPUT_WIDTH = 6
MAX_INPUT_CHARS = 500
SCAN_CHARS = 2_000  # characters read from each end of a long prompt
SCAN_LINES = 100  # lines read from each end
JUDGE_MAX_CHARS = 4 * MAX_INPUT_CHARS  # longer after filtering: not judged (redaction cannot make it fit)
LINE_HEAD = 256  # the prefix of a line the line patterns look at
_MAX_PAIRED_MARKERS = 2_000  # fence markers of both kinds paired one by one before a long tail

# Lazy, but a fence cannot contain its own marker, so each character is passed once.
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
# All patterns below run with .match() on a stripped line (no leading or trailing whitespace).
_LOG_LINE = re.compile(
    r"""(?:
        \d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}           # 2026-11-29 12:00 ...
      | \[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s       # 12:00:01.123 ...
      | \[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]
      | Traceback\ \(most\ recent\ call\ last\)
      | File\ "[^"]+",\ line\ \d                    # Python frames
      | \w+(?:Error|Exception):\s
      | npm\ (?:ERR|WARN)!
      | E\s{2,}\S                                  # pytest failure lines
    )""",
    re.VERBOSE,
)
_STACK_FRAME = re.compile(r"at [\w$.<>]+\(")  # Java / JS stack frames, when the line ends with ")"
_CODE_START = re.compile(
    r"""(?:
        (?:import|from|def|class|return|const|let|var|function|public|private|protected|package|
         func|fn|pub|use|struct|impl|if|elif|else|for|while|switch|case|try|catch|except|
         finally|async|await|export|\#include|\#define|SELECT|INSERT|UPDATE|DELETE|CREATE)\b
      | [\w.\[\]]+\s*(?:=|\+=|-=|:=|=>)\s*\S              # assignment
      | //|/\*|\*/|\#!|</?[a-zA-Z][\w-]*[\s>/]           # comments, shebangs, markup tags
    )""",
    re.VERBOSE,
)
_CLOSING = re.compile(r"[)\]}]+[,;]?")  # fullmatch: a line of closing brackets
_INDENTED = re.compile(r"(?:\t| {4,})\S")
# splitlines() breaks on these; a cut inside a line leaves a partial line at the window's edge
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_LINE_BREAK = re.compile("[" + "".join(sorted(_LINE_BREAKS)) + "]")


def _classify(line: str | None) -> tuple[bool, bool, bool]:
    """(blank, log, code) for one line; the unread middle (None) is pasted material."""
    if line is None:
        return False, True, True
    stripped = line.strip()
    if not stripped:
        return True, False, False
    head = stripped[:LINE_HEAD]
    log = bool(_LOG_LINE.match(head)) or (stripped.endswith(")") and bool(_STACK_FRAME.match(head)))
    code = stripped[-1] in ";{}" or bool(_CODE_START.match(head) or _CLOSING.fullmatch(stripped))
    return False, log, code


def scan_lines(text: str) -> list[str | None]:
    """The lines the filter reads, fenced blocks already out: all of a short text; of a long
    one, its first and last lines (None stands for the unread middle). At most
    2 x SCAN_LINES lines from 2 x SCAN_CHARS characters, whatever the text."""
    if len(text) <= 2 * SCAN_CHARS:
        lines: list[str | None] = list(_FENCE.sub("\n", text).splitlines())
        if len(lines) <= 2 * SCAN_LINES:
            return lines
        return [*lines[:SCAN_LINES], None, *lines[-SCAN_LINES:]]
    # the head: fences pair the same in a prefix as in the whole text
    cleaned = _FENCE.sub("\n", text[:SCAN_CHARS])
    head = cleaned.splitlines()
    if head and cleaned[-1] not in _LINE_BREAKS:
        head.pop()  # the line goes on past the window (a fence cut off by it ends in "\n")
    return [*head[:SCAN_LINES], None, *_tail_lines(text)[-SCAN_LINES:]]


def _tail_lines(text: str) -> list[str]:
    """The last SCAN_CHARS characters' whole lines, fences out. Whether the tail starts inside
    a fence is told by the markers before it: their count when only one kind is used (each
    marker opens or closes), else the pairing itself when there are few; with thousands of
    both kinds before it, the tail is left unread."""
    start = len(text) - SCAN_CHARS
    if text[start - 1] not in _LINE_BREAKS:  # whole lines only
        following = _LINE_BREAK.search(text, start)
        start = following.end() if following else len(text)
    # "`" and "~" are found at memchr speed; "```" is counted only when there is one
    backticks = text.count("```", 0, start) if text.find("`", 0, start) >= 0 else 0
    tildes = text.count("~~~", 0, start) if text.find("~", 0, start) >= 0 else 0
    opened = ""
    if not tildes:
        opened = "```" if backticks % 2 else ""
    elif not backticks:
        opened = "~~~" if tildes % 2 else ""
    elif backticks + tildes <= _MAX_PAIRED_MARKERS:
        opened = _open_fence(text, start)
    else:
        return []
    return _FENCE.sub("\n", opened + text[start:]).splitlines()


def _open_fence(text: str, end: int) -> str:
    """The marker of the fence still open at `end` ("" if none), pairing as `_FENCE` does:
    the first marker opens, the next one of the same kind closes. Linear: each search
    starts where the last one stopped."""
    pos = 0
    following = {"```": text.find("```", 0, end), "~~~": text.find("~~~", 0, end)}
    while True:
        for marker, found in following.items():
            if 0 <= found < pos:
                following[marker] = text.find(marker, pos, end)
        ahead = [(found, marker) for marker, found in following.items() if found >= 0]
        if not ahead:
            return ""
        found, marker = min(ahead)
        close = text.find(marker, found + 3, end)
        if close < 0:
            return marker
        pos = close + 3


def strip_code_and_logs(text: str) -> str:
    lines = scan_lines(text)
    blank, log, code = (
        (list(flags) for flags in zip(*map(_classify, lines), strict=True)) if lines else ([], [], [])
    )
    indented = [line is not None and bool(_INDENTED.match(line)) for line in lines]
    kept: list[str] = []
    i = 0
    while i < len(lines):
        if log[i]:
            i += 1
            continue
        if code[i]:
            run_end = i
            while run_end < len(lines) and (code[run_end] or blank[run_end]):
                run_end += 1
            # One code-like line inside prose may be the user's own words ("x = 1 is wrong");
            # a run of two or more is pasted code (the unread middle counts as pasted code).
            if sum(1 for j in range(i, run_end) if not blank[j]) >= 2:
                i = run_end
                continue
        if indented[i] and ((i > 0 and indented[i - 1]) or (i + 1 < len(lines) and indented[i + 1])):
            i += 1  # lines indented by a tab or 4+ spaces next to other such lines: a pasted block
            continue
        line = lines[i]
        if line is not None and not blank[i]:
            kept.append(line)
        i += 1
    return "\n".join(kept).strip()


def usable(text: str) -> bool:
    return len(text) <= MAX_INPUT_CHARS and text_width(text) >= MIN_INPUT_WIDTH


def recall_input(prompt: str) -> str | None:
    """The text recall should see, or None when there should be no recall at all."""
    cleaned = strip_code_and_logs(prompt)
    return cleaned if usable(cleaned) else None


# A terminal's colour and title sequences pasted with a prompt (ESC [ 31 m, ESC ] 0 ; … BEL):
# dropped whole, so no "[31m" is left behind for the judge to copy into a memory.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")


def judge_input(prompt: str) -> str | None:
    """What the side judge may be sent: filtered like recall, without terminal escapes and
    control or text-direction characters (a memory may not hold them), secrets hidden."""
    cleaned = strip_code_and_logs(remove_unsafe(_ESCAPES.sub("", prompt)))
    if len(cleaned) > JUDGE_MAX_CHARS:
        return None
    cleaned = redact_secrets(cleaned)
    return cleaned if usable(cleaned) else None
