"""Refresh the Qt translation files: extract every `tr("…")` in desktop/ into
resources/i18n/memevo_zh_CN.ts (existing translations are kept), then compile the .qm.

    python packaging/translations.py            # update .ts and .qm
    python packaging/translations.py --check    # exit 1 if a string is untranslated or the .qm is stale
    python packaging/translations.py --check --walk   # also walk every window in zh_CN for English

--check covers the strings in the code; what the UI shows at run time (the setup engine's log,
core's reasons, Qt's own buttons and dialogs, names) is walked by tests/test_chinese_ui.py,
which --walk runs (offscreen): it fails on any English left in a window.

Translate new strings in the .ts (Qt Linguist, or by hand: fill <translation>)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "resources" / "i18n" / "memevo_zh_CN.ts"
QM = TS.with_suffix(".qm")


def _tool(name: str) -> str:
    found = shutil.which(f"pyside6-{name}")
    if found is None:
        sys.exit(f"pyside6-{name} is not on PATH: install pyside6-essentials")
    return found


def sources() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "desktop").glob("*.py"))


def lupdate(ts: Path) -> None:
    cmd = [_tool("lupdate"), "-no-obsolete", "-locations", "none", *sources(), "-ts", str(ts)]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)


def lrelease(ts: Path, qm: Path) -> None:
    subprocess.run([_tool("lrelease"), str(ts), "-qm", str(qm)], check=True, capture_output=True)


def untranslated(ts: Path) -> list[str]:
    missing = []
    for message in ET.parse(ts).getroot().iter("message"):
        translation = message.find("translation")
        if (
            translation is None
            or translation.get("type") == "unfinished"
            or not (translation.text or "").strip()
        ):
            missing.append(message.findtext("source") or "")
    return missing


def check() -> list[str]:
    """Problems: strings in the code missing from the .ts or untranslated, or a stale .qm."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / TS.name
        shutil.copy(TS, fresh)
        lupdate(fresh)
        problems = [f"untranslated: {text!r}" for text in untranslated(fresh)]
        compiled = Path(tmp) / QM.name
        lrelease(TS, compiled)
        if not QM.exists() or compiled.read_bytes() != QM.read_bytes():
            problems.append(f"{QM.name} is stale: run python packaging/translations.py")
    return problems


def walk() -> int:
    """Every window as a Chinese user meets it, read for English (tests/test_chinese_ui.py)."""
    import os

    env = os.environ | {"QT_QPA_PLATFORM": "offscreen", "MEMEVO_LANG": "zh_CN"}
    test = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_chinese_ui.py"]
    return subprocess.run([sys.executable, *test], cwd=ROOT, env=env).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--walk", action="store_true", help="with --check: walk every window in zh_CN")
    args = parser.parse_args()
    if args.check:
        problems = check()
        print("\n".join(problems) or "translations are complete and compiled")
        if args.walk and not problems:
            return walk()
        return 1 if problems else 0
    lupdate(TS)
    lrelease(TS, QM)
    missing = untranslated(TS)
    print(f"{TS.relative_to(ROOT)}: {len(missing)} untranslated")
    for text in missing:
        print(f"  {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
