"""What a `memevo … --json` command printed, parsed: the one helper the CLI tests share."""

from __future__ import annotations

import json
import subprocess
from typing import Any


def cli_json(result: subprocess.CompletedProcess[str]) -> Any:
    """The command's stdout as JSON. A command that failed, or printed something that is not
    JSON, fails the test with the command line, its exit code and everything it printed."""
    said = f"{result.args!r} exited {result.returncode}\nstderr:\n{result.stderr}\nstdout:\n{result.stdout}"
    assert result.returncode == 0, said
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as error:
        raise AssertionError(f"not JSON ({error}): {said}") from None
