"""`memevo-hook`: the small, standard-library-only runner for client hooks in the frozen build.

The main program starts torch-, Qt- and setuptools-aware runtime hooks before any of our
code; a prompt hook must answer in tens of milliseconds (`memevo bench --json`: hook_prompt_ms). This executable shares
the bundle's `_internal/` folder but has its own tiny module archive, and behaves like the
interpreter line that installer/hook_command.py writes:

    memevo-hook -I -S <_internal>/memevo/hooks/memevo_hook.py CLIENT EVENT
    memevo-hook CLIENT EVENT            # the bundled memevo_hook.py

The hook scripts are plain files in _internal/memevo/hooks/ and import only the standard
library; every module they use is imported below so that PyInstaller bundles it. inspect,
pkgutil and runpy are left out on purpose (memevo.spec): with them PyInstaller adds runtime
hooks that cost more per start than the rest of this program's start together. A hook
that one day imports a module missing here fails quietly (exit 0, a line in hooks.log) and
packaging/smoke.sh, which checks recall through this program, fails loudly.
"""

import importlib  # noqa: F401 - hooks/clients/__init__.py
import json  # noqa: F401
import os
import re  # noqa: F401 - hooks/clients/*
import socket  # noqa: F401
import subprocess  # noqa: F401 - hookio.start_service
import sys
import time

PYTHON_FLAGS = {"-I", "-S", "-E", "-s", "-B", "-u", "-O", "-OO", "-q", "-b", "-bb"}


def main(argv):
    bundle = getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(__file__)))
    i = 0
    while i < len(argv) and argv[i] in PYTHON_FLAGS:
        i += 1
    rest = argv[i:]
    if rest and rest[0].endswith(".py"):
        script, args = rest[0], rest[1:]
    else:
        script, args = os.path.join(bundle, "memevo", "hooks", "memevo_hook.py"), rest
    # hookio.start_service runs `<sys.executable> -m memevo.cli serve|tray`: that is the
    # main program, which sits beside this one.
    here = os.path.dirname(os.path.abspath(sys.executable))
    sys.executable = os.path.join(here, "memevo.exe" if os.name == "nt" else "memevo")
    sys.argv = [script, *args]
    try:
        with open(script, "rb") as handle:
            code = compile(handle.read(), script, "exec")
        exec(code, {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__})
    except SystemExit:
        raise
    except BaseException as exc:  # a hook never fails the client's prompt
        _log(f"memevo-hook: {script}: {exc.__class__.__name__}: {exc}")
    return 0


def _log(message):
    try:
        home = os.environ.get("MEMEVO_HOME") or os.path.join(
            os.path.expanduser("~"), ".memory-self-evolution"
        )
        folder = os.path.join(os.path.expanduser(home), "logs")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "hooks.log"), "a", encoding="utf-8") as handle:
            handle.write(time.strftime("%Y-%m-%d %H:%M:%S") + " " + message + "\n")
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
