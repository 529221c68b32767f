"""The input filter shared by recall and the side judge.

Pasted code and logs are not the user's words and drag recall toward unrelated memories,
so they are removed first: fenced code blocks, runs of code-like lines, log lines. What is
left must be 6 columns to 500 characters, else there is no recall (and nothing is judged).
"""

from __future__ import annotations

import re

from ..memories import text_width

MIN_INPUT_WIDTH = 6
MAX_INPUT_CHARS = 500
REDACTED = "[已隐去]"

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_LOG_LINE = re.compile(
    r"""^\s*(
        \d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}           # 2026-11-29 12:00 ...
      | \[?\d{2}:\d{2}:\d{2}([.,]\d+)?\]?\s         # 12:00:01.123 ...
      | \[?(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]
      | Traceback\ \(most\ recent\ call\ last\)
      | File\ ".+",\ line\ \d+
      | at\ [\w$.<>]+\(.*\)\s*$                    # Java / JS stack frames
      | \w+(Error|Exception):\s
      | npm\ (ERR|WARN)!
      | E\s{2,}\S                                  # pytest failure lines
    )""",
    re.VERBOSE,
)
_CODE_LINE = re.compile(
    r"""^\s*(
        (import|from|def|class|return|const|let|var|function|public|private|protected|package|
         func|fn|pub|use|struct|impl|if|elif|else|for|while|switch|case|try|catch|except|
         finally|async|await|export|\#include|\#define|SELECT|INSERT|UPDATE|DELETE|CREATE)\b.*
      | .*[;{}]\s*$                                  # ends like a statement or a block
      | [\w.\[\]]+\s*(=|\+=|-=|:=|=>)\s*\S.*         # assignment
      | (//|/\*|\*/|\#\!|<\/?[a-zA-Z][\w-]*[\s>/]).*  # comments, shebangs, markup tags
      | [)\]}]+[,;]?\s*$                             # closing brackets
    )$""",
    re.VERBOSE,
)
_SECRET = re.compile(
    r"""(
        sk-ant-[A-Za-z0-9_-]{16,}                                        # Anthropic
      | sk-[A-Za-z0-9_-]{16,}                                            # OpenAI and compatibles
      | (ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,} | github_pat_[A-Za-z0-9_]{20,}
      | (AKIA|ASIA)[0-9A-Z]{16}                                          # AWS access key id
      | AIza[0-9A-Za-z_-]{35}                                            # Google API key
      | xox[abprs]-[A-Za-z0-9-]{10,}                                     # Slack
      | eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}   # JWT
      | -----BEGIN[ A-Z]*PRIVATE\ KEY-----[\s\S]*?-----END[ A-Z]*PRIVATE\ KEY-----
      | (?<=[Bb]earer\ )[A-Za-z0-9._~+/-]{16,}=*                         # Authorization: Bearer …
      | (?<=[=:：])[A-Za-z0-9+/_-]{32,}={0,2}                            # long value after = or :
      | (?<=[=:：]\s)[A-Za-z0-9+/_-]{32,}={0,2}
      | (?<![0-9A-Fa-f])[A-Fa-f0-9]{40,}(?![0-9A-Fa-f])(?=\s*$)          # a bare long hex secret
    )""",
    re.VERBOSE,
)
# key=value pairs whose key names a secret: the value goes, whatever it looks like
_SECRET_PAIR = re.compile(
    r"""(?ix)
    (\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|
        aws_secret_access_key|client[_-]?secret)\b\s*[=:：]\s*)
    ("[^"]+"|'[^']+'|\S+)
    """
)
_SECRET_ZH = re.compile(r"((?:密码|口令|密钥|令牌|秘钥)(?:是|为|：|:|=)\s*)(\S+)")


def strip_code_and_logs(text: str) -> str:
    text = _FENCE.sub("\n", text)
    kept: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if _LOG_LINE.match(lines[i]):
            i += 1
            continue
        if _CODE_LINE.match(lines[i]):
            run_end = i
            while run_end < len(lines) and (_CODE_LINE.match(lines[run_end]) or not lines[run_end].strip()):
                run_end += 1
            # One code-like line inside prose may be the user's own words ("x = 1 is wrong");
            # a run of two or more is pasted code.
            code_lines = sum(1 for line in lines[i:run_end] if line.strip())
            if code_lines >= 2:
                i = run_end
                continue
        if _looks_indented_code(lines, i):
            i += 1
            continue
        kept.append(lines[i])
        i += 1
    return re.sub(r"\n\s*\n+", "\n", "\n".join(kept)).strip()


def _looks_indented_code(lines: list[str], i: int) -> bool:
    """Lines indented by a tab or 4+ spaces next to other such lines are a pasted block."""

    def indented(j: int) -> bool:
        return 0 <= j < len(lines) and bool(re.match(r"^(\t| {4,})\S", lines[j]))

    return indented(i) and (indented(i - 1) or indented(i + 1))


def redact_secrets(text: str) -> str:
    """Key-like strings become [已隐去] before anything is sent to the side API."""
    text = _SECRET_PAIR.sub(lambda m: m.group(1) + REDACTED, text)
    text = _SECRET_ZH.sub(lambda m: m.group(1) + REDACTED, text)
    return _SECRET.sub(REDACTED, text)


def usable(text: str) -> bool:
    return text_width(text) >= MIN_INPUT_WIDTH and len(text) <= MAX_INPUT_CHARS


def recall_input(prompt: str) -> str | None:
    """The text recall should see, or None when there should be no recall at all."""
    cleaned = strip_code_and_logs(prompt)
    return cleaned if usable(cleaned) else None


def judge_input(prompt: str) -> str | None:
    """What the side judge may be sent: filtered like recall, then key-like strings hidden."""
    cleaned = redact_secrets(strip_code_and_logs(prompt))
    return cleaned if usable(cleaned) else None
