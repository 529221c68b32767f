"""`python -m memevo.core.cli`: the stable name of the command line, kept as a forwarder.

Users' client files (MCP entries), autostart entries and services started by hooks name this
module; the command line itself lives in the application layer (memevo.app.cli). This is the
one import from core up into app, and the import contracts (tests/test_layout.py) allow it
by name.
"""

from __future__ import annotations

from ..app.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
