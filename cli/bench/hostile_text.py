"""The input filter and redaction against hostile text (no model): the adversarial inputs and
the slowest of them."""

from __future__ import annotations

import statistics
from typing import Any

from .measure import repeat


def adversarial_inputs(size: int = 1 << 20) -> dict[str, str]:
    """Texts of `size` characters written to make a backtracking pattern or a per-line loop slow."""
    import random

    def fill(unit: str, tail: str = "") -> str:
        return (unit * (size // len(unit) + 1))[: size - len(tail)] + tail

    rng = random.Random(7)
    scripts = "中文混排テストкириллицаعربي🙂 \t\n‮‭0123456789abcXYZ{}();=:@/-_"
    base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return {
        "spaces": fill(" "),
        "spaces_then_word": fill(" ", "x"),
        "mixed_whitespace": fill(" \t\u3000\u00a0\u2003", "x;"),
        "one_huge_line": fill("abc123"),
        "huge_identifier_assignment": fill("a", " = 1"),
        "short_code_lines": fill("x;\n"),
        "short_prose_lines": fill("好的\n"),
        "carriage_returns": fill("a\r"),
        "nested_braces": "{" * (size // 2) + "}" * (size - size // 2),
        "nested_brackets_lines": fill("{[(\n"),
        "unclosed_pem": "-----BEGIN RSA PRIVATE KEY-----\n" + fill("MIIEowIBAAKCAQEA\n")[32:],
        "many_pem_begins": fill("-----BEGIN PRIVATE KEY-----\nabc\n"),
        "pem_pairs": fill("-----BEGIN EC PRIVATE KEY-----\nab\n-----END EC PRIVATE KEY-----\n"),
        "mixed_scripts": "".join(rng.choice(scripts) for _ in range(size)),
        "fence_markers": fill("`"),
        "fence_pairs": fill("```\nx\n```\n"),
        "mixed_fences": fill("```\n~~~\n"),
        "backtick_then_spaces": "`" + fill(" ")[1:],
        "tilde_then_spaces": "~" + fill(" ")[1:],
        "log_lines": fill("2026-11-29 12:00:01 ERROR payment timeout\n"),
        "stack_frames": fill("  at com.example.Pay.run(Pay.java:42)\n"),
        "indented_lines": fill("    x\n"),
        "assignments": fill("password=x "),
        "keyword_runs": fill("passwordtokensecretkey"),
        "zh_keywords": fill("密码是 "),
        "zh_keywords_no_space": fill("密码都都都都"),
        "copulas": fill("token is "),
        "auth_headers": fill("Authorization: Bearer "),
        "url_credentials": fill("https://a:b@"),
        "schemes": fill("a://"),
        "colons": fill("a:"),
        "at_signs": fill("@"),
        "base64_blob": "".join(rng.choice(base64) for _ in range(size)),
        "base64_words": fill("Qm9vb3RzdHJhcFRva2VuMTIz "),
        "token_prefixes": fill("sk-"),
        "jwt_prefixes": fill("eyJ"),
        "code_then_question": fill(
            "const total = items.reduce((a, b) => a + b, 0);\n", "\n这段代码为什么这么慢"
        ),
    }


def filter_figures(runs: int = 3) -> dict[str, Any]:
    """filter_worst_ms: the slowest, over adversarial 1 MB inputs, of the input filter plus
    redaction, on either path that redacts: the side judge's input (judge_input) and the
    assistant's last answer kept for context (strip_code_and_logs, then redact_secrets).
    Each figure is the median of `runs`."""
    from ...core.recall.textfilter import judge_input, redact_secrets, strip_code_and_logs

    def answer(text: str) -> str:
        return redact_secrets(strip_code_and_logs(text))

    # detect-secrets is imported for the first text one of its patterns may match (a JWT's eyJ)
    answer("warm up: password=x, sk-" + "a1" * 12 + " eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln")
    worst, worst_name = 0.0, ""
    for name, text in adversarial_inputs().items():
        for path, func in (("judge", judge_input), ("answer", answer)):
            median = statistics.median(repeat(lambda f=func, t=text: f(t), runs, warmup=1))  # type: ignore[misc]
            if median > worst:
                worst, worst_name = median, f"{name} ({path})"
    return {"filter_worst_ms": round(worst, 2), "filter_worst_input": worst_name}
