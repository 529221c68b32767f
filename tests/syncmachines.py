"""A machine of a person's for `memevo sync` tests: its own data dir, the CLI run in process on
it (no service), its memories read back as sync records. The sync test modules share it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from clirun import in_process
from memevo.core.store.database import Store
from memevo.core.sync import records as syncstore


class Machine:
    def __init__(self, home: Path, remote: Path | None = None) -> None:
        self.home, self.remote = home, remote
        home.mkdir(parents=True)
        self.env = {"MEMEVO_HOME": str(home), "MEMEVO_NO_SERVICE": "1"}
        self.tree = home / "sync"

    def memevo(
        self, *args: str, ok: bool = False, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`memevo ARGS` on this machine; ok: it must succeed. Never an internal error."""
        done = in_process(*args, env=self.env, cwd=cwd or self.home.parent)
        assert "internal error" not in done.stderr, done.stderr
        if ok:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, *args: str, ok: bool = True) -> dict[str, Any]:
        done = self.memevo(*args, "--json", ok=ok)
        return dict(json.loads(done.stdout))

    def add(self, category: str, text: str) -> str:
        return str(self.json(category, "add", text)["memory"]["id"])

    def state(self) -> dict[str, dict[str, Any]]:
        """Every memory as its record: what must be the same on every machine."""
        with Store.open(self.home / "memevo.duckdb", read_only=True) as store:
            return syncstore.export_all(store)[0]

    def texts(self) -> list[str]:
        return sorted(m["text"] for m in self.state().values() if not m["trashed"])
