"""How long a test waits for its own process, or its own service's answer, before calling it hung.

These are hang guards, never budgets: with two pytest workers and real processes sharing two
cores a healthy command can take many times its quiet-machine time, so a test fails only when
its process never answers. Speed is measured by `memevo bench` and quoted, never asserted.
"""

from __future__ import annotations

import os

# One knob for a slower machine; the default is far above any healthy run measured here.
HANG_S: float = float(os.environ.get("MEMEVO_TEST_HANG_S", "600"))
# A single request to a running service (the socket client's own timeout).
CALL_S: float = HANG_S / 5
HANG_MS: int = int(HANG_S * 1000)
