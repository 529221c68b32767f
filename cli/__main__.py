"""`python -m memevo.cli`: the command line, as client files, autostart entries and the
service a hook starts name it (the `memevo` script is the same `main`)."""

from __future__ import annotations

from .main import main

raise SystemExit(main())
