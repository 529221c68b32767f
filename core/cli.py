"""`python -m memevo.core.cli`: the command line's retired name, kept as a forwarder.

Versions before the command line moved to `memevo.cli` wrote this name into users' MCP entries
and autostart entries. Those keep working through this module until a repair (the watchdog's,
or `memevo setup`) rewrites them to `memevo.cli` (installer/entries.py, RETIRED_MCP_MARKERS;
installer/autostart.py reports the old command stale). It is the one import from core up into
the command line, and the import contracts (pyproject.toml) allow it by name.
"""

from __future__ import annotations

from ..cli.main import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
