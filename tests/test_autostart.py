"""Login autostart entries (installer/autostart.py) for Linux, macOS and Windows, all on one OS."""

from __future__ import annotations

import configparser
import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memevo.installer import autostart, hook_command
from memevo.installer.autostart import AutostartNotOurs

PLATFORMS = ["linux", "darwin", "win32"]
COMMENT_EN = "Start memevo, long-term memory for AI coding clients, at login"
COMMENT_ZH = "登录时启动 memevo（AI 编程助手的长期记忆）"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The conftest gives a temp HOME; these would still point at real folders.
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    # the default data folder, as most users have it (nothing here writes to it); a moved one
    # is tested on its own below
    monkeypatch.delenv("MEMEVO_HOME", raising=False)


def use_interpreter(monkeypatch: pytest.MonkeyPatch, path: Path | str) -> str:
    monkeypatch.setattr(hook_command, "interpreter", lambda: str(path))
    return str(path)


@pytest.fixture
def interp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A POSIX interpreter and a Windows one (with pythonw.exe beside it), both under a space."""
    posix = tmp_path / "My Python" / "bin" / "python3"
    win_dir = tmp_path / "My Python" / "Scripts"
    win_dir.mkdir(parents=True)
    (win_dir / "python.exe").write_bytes(b"")
    (win_dir / "pythonw.exe").write_bytes(b"")
    use_interpreter(monkeypatch, posix)
    return {
        "posix": str(posix),
        "python.exe": str(win_dir / "python.exe"),
        "pythonw.exe": str(win_dir / "pythonw.exe"),
    }


def select(monkeypatch: pytest.MonkeyPatch, interp: dict[str, str], platform: str) -> None:
    use_interpreter(monkeypatch, interp["python.exe"] if platform == "win32" else interp["posix"])


def foreign_bytes(platform: str) -> bytes:
    if platform == "linux":
        return b"[Desktop Entry]\nType=Application\nName=my memevo\nExec=memevo tray\n"
    if platform == "darwin":
        return plistlib.dumps({"Label": "dev.memevo.tray", "ProgramArguments": ["/usr/local/bin/memevo"]})
    return b'@echo off\r\nstart "" memevo tray\r\n'


# ---------------------------------------------------------------------------- paths


def test_entry_paths_derive_from_home_and_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    assert autostart.entry_path("linux") == home / ".config" / "autostart" / "memevo.desktop"
    assert autostart.entry_path("darwin") == home / "Library" / "LaunchAgents" / "dev.memevo.tray.plist"
    startup = Path("Microsoft", "Windows", "Start Menu", "Programs", "Startup", "memevo.cmd")
    assert autostart.entry_path("win32") == home / "AppData" / "Roaming" / startup

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert autostart.entry_path("linux") == tmp_path / "xdg" / "autostart" / "memevo.desktop"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # invalid per the XDG spec: ignored
    assert autostart.entry_path("linux") == home / ".config" / "autostart" / "memevo.desktop"
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    assert autostart.entry_path("win32") == tmp_path / "roaming" / startup

    monkeypatch.setattr(sys, "platform", "linux")
    assert autostart.entry_path() == autostart.entry_path("linux")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert autostart.entry_path() == autostart.entry_path("darwin")
    with pytest.raises(ValueError, match="unknown platform"):
        autostart.entry_path("beos")


def test_xdg_config_home_is_honoured_by_enable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, interp: dict[str, str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = autostart.enable("linux")
    assert path == tmp_path / "xdg" / "autostart" / "memevo.desktop"
    assert path.is_file()
    assert not (Path(os.environ["HOME"]) / ".config").exists()
    assert autostart.status("linux")["path"] == str(path)


# ---------------------------------------------------------------------------- launch command


def test_launch_command_uses_the_real_interpreter(interp: dict[str, str]) -> None:
    assert autostart.launch_command() == [interp["posix"], "-P", "-m", "memevo.cli", "tray"]


def test_launch_command_frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exe = str(tmp_path / "memevo" / "memevo.exe")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", exe)
    assert autostart.launch_command() == [exe, "tray"]
    autostart.enable("win32")  # no pythonw substitution for the bundled program
    text = autostart.entry_path("win32").read_text(encoding="utf-8")
    assert text.splitlines()[-1] == f'start "" "{exe}" tray'
    assert autostart.status("win32") == {
        "enabled": True,
        "path": str(autostart.entry_path("win32")),
        "ours": True,
        "stale": False,
    }


# ---------------------------------------------------------------------------- exact contents


def expected_content(platform: str, interp: dict[str, str]) -> bytes:
    if platform == "linux":
        text = (
            "[Desktop Entry]\n"
            "Type=Application\n"
            "Name=memevo\n"
            f"Comment={COMMENT_EN}\n"
            f"Comment[zh_CN]={COMMENT_ZH}\n"
            f'Exec="{interp["posix"]}" -P -m memevo.cli tray\n'
            "Icon=memevo\n"
            "Terminal=false\n"
            "NoDisplay=false\n"
            "X-GNOME-Autostart-enabled=true\n"
            "X-Memevo-Owned=true\n"
        )
        return text.encode("utf-8")
    if platform == "win32":
        return (
            f'@echo off\r\nrem memevo-owned\r\nstart "" "{interp["pythonw.exe"]}" -P -m memevo.cli tray\r\n'
        ).encode()
    raise AssertionError(platform)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_enable_writes_the_exact_entry(
    monkeypatch: pytest.MonkeyPatch, interp: dict[str, str], platform: str
) -> None:
    select(monkeypatch, interp, platform)
    path = autostart.enable(platform)
    assert path == autostart.entry_path(platform)
    data = path.read_bytes()
    if platform == "darwin":
        assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
        assert plistlib.loads(data) == {
            "Label": "dev.memevo.tray",
            "ProgramArguments": [interp["posix"], "-P", "-m", "memevo.cli", "tray"],
            "RunAtLoad": True,
            "KeepAlive": False,
            "ProcessType": "Interactive",
            "MemevoOwned": True,
        }
    else:
        assert data == expected_content(platform, interp)
    assert data == autostart.render(platform)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_enable_twice_writes_identical_bytes_mode_0644(
    monkeypatch: pytest.MonkeyPatch, interp: dict[str, str], platform: str
) -> None:
    select(monkeypatch, interp, platform)
    old_umask = os.umask(0o077)  # the mode is explicit, not whatever the umask leaves
    try:
        first = autostart.enable(platform).read_bytes()
        path = autostart.enable(platform)
    finally:
        os.umask(old_umask)
    assert path.read_bytes() == first
    assert path.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp files left


def test_windows_falls_back_to_python_exe_without_pythonw(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "Python311"
    folder.mkdir()
    (folder / "python.exe").write_bytes(b"")
    exe = use_interpreter(monkeypatch, folder / "python.exe")
    autostart.enable("win32")
    lines = autostart.entry_path("win32").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == f'start "" "{exe}" -P -m memevo.cli tray'
    # pythonw appears later (e.g. a repaired install): the entry is now stale
    (folder / "pythonw.exe").write_bytes(b"")
    assert autostart.status("win32")["stale"] is True
    autostart.enable("win32")
    assert autostart.status("win32")["stale"] is False


def test_windows_versioned_interpreter_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "python3.11.exe").write_bytes(b"")
    (tmp_path / "pythonw3.11.exe").write_bytes(b"")
    use_interpreter(monkeypatch, tmp_path / "python3.11.exe")
    autostart.enable("win32")
    text = autostart.entry_path("win32").read_text(encoding="utf-8")
    assert f'"{tmp_path / "pythonw3.11.exe"}"' in text


def test_windows_non_ascii_and_percent_in_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path / "张三 100%"
    folder.mkdir()
    (folder / "python.exe").write_bytes(b"")
    use_interpreter(monkeypatch, folder / "python.exe")
    autostart.enable("win32")
    text = autostart.entry_path("win32").read_bytes().decode("utf-8")
    assert text == (
        "@echo off\r\n"
        "rem memevo-owned\r\n"
        "chcp 65001 >nul\r\n"
        f'start "" "{tmp_path}/张三 100%%/python.exe" -P -m memevo.cli tray\r\n'
    )
    assert autostart.status("win32")["stale"] is False  # %% reads back as %


# ---------------------------------------------------------------------------- lifecycle


@pytest.mark.parametrize("platform", PLATFORMS)
def test_status_stale_disable_lifecycle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, interp: dict[str, str], platform: str
) -> None:
    select(monkeypatch, interp, platform)
    path = autostart.entry_path(platform)
    absent = {"enabled": False, "path": str(path), "ours": False, "stale": False}
    assert autostart.status(platform) == absent

    autostart.enable(platform)
    assert autostart.status(platform) == {"enabled": True, "path": str(path), "ours": True, "stale": False}

    # the interpreter moved (new venv, Python upgrade): the entry points at the old one
    moved = tmp_path / "elsewhere" / ("python.exe" if platform == "win32" else "python3")
    use_interpreter(monkeypatch, moved)
    assert autostart.status(platform) == {"enabled": True, "path": str(path), "ours": True, "stale": True}
    autostart.enable(platform)  # what setup --repair does
    assert autostart.status(platform)["stale"] is False
    assert str(moved) in path.read_text(encoding="utf-8")

    assert autostart.disable(platform) is True
    assert not path.exists()
    assert autostart.disable(platform) is False
    assert autostart.status(platform) == absent


@pytest.mark.parametrize("platform", PLATFORMS)
def test_foreign_entry_survives(
    monkeypatch: pytest.MonkeyPatch, interp: dict[str, str], platform: str
) -> None:
    select(monkeypatch, interp, platform)
    path = autostart.entry_path(platform)
    path.parent.mkdir(parents=True)
    path.write_bytes(foreign_bytes(platform))

    with pytest.raises(AutostartNotOurs, match="not written by memevo") as caught:
        autostart.disable(platform)
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    assert path.read_bytes() == foreign_bytes(platform)

    with pytest.raises(AutostartNotOurs):
        autostart.enable(platform)
    assert path.read_bytes() == foreign_bytes(platform)
    assert autostart.status(platform) == {"enabled": True, "path": str(path), "ours": False, "stale": False}

    autostart.enable(platform, force=True)  # only when asked explicitly
    assert autostart.status(platform)["ours"] is True
    assert autostart.disable(platform) is True


@pytest.mark.parametrize("platform", PLATFORMS)
def test_damaged_foreign_entry_survives(
    monkeypatch: pytest.MonkeyPatch, interp: dict[str, str], platform: str
) -> None:
    select(monkeypatch, interp, platform)
    path = autostart.entry_path(platform)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe not a valid entry \x00")
    with pytest.raises(AutostartNotOurs):
        autostart.disable(platform)
    assert path.exists()
    assert autostart.status(platform)["ours"] is False


def test_linux_entry_switched_off_by_the_desktop(interp: dict[str, str]) -> None:
    path = autostart.enable("linux")
    path.write_text(path.read_text(encoding="utf-8") + "Hidden=true\n", encoding="utf-8")
    assert autostart.status("linux") == {"enabled": False, "path": str(path), "ours": True, "stale": False}


def test_darwin_entry_disabled_key(interp: dict[str, str]) -> None:
    path = autostart.enable("darwin")
    agent = plistlib.loads(path.read_bytes())
    path.write_bytes(plistlib.dumps({**agent, "Disabled": True}))
    assert autostart.status("darwin")["enabled"] is False
    assert autostart.status("darwin")["ours"] is True


# ---------------------------------------------------------------------------- Linux Exec quoting


def test_exec_value_follows_the_desktop_entry_spec() -> None:
    assert autostart.exec_value(["/usr/bin/python3", "-m", "memevo.cli", "tray"]) == (
        "/usr/bin/python3 -m memevo.cli tray"
    )
    assert autostart.exec_value(["/opt/my py/python"]) == '"/opt/my py/python"'
    # inside quotes: \" \` \$ \\ ; then the string escape doubles every backslash
    assert autostart.exec_value(['/a"b']) == '"/a\\\\"b"'
    assert autostart.exec_value(["/a$b"]) == '"/a\\\\$b"'
    assert autostart.exec_value(["/a\\b"]) == '"/a\\\\\\\\b"'  # four backslashes, as the spec says
    assert autostart.exec_value(["/a%b"]) == "/a%%b"
    assert autostart.exec_value([""]) == '""'


NASTY = [
    "/opt/My Python/bin/python3",
    "/opt/py$HOME`id`/python3",
    '/opt/say "hi"/python3',
    "/opt/back\\slash/python3",
    "/opt/100%/python3",
    "/opt/张三/python3",
    "/opt/it's (here) #1; a|b & c > d < e ~ * ?/python3",
]


@pytest.mark.parametrize("interpreter", NASTY)
def test_linux_exec_round_trips(monkeypatch: pytest.MonkeyPatch, interpreter: str) -> None:
    use_interpreter(monkeypatch, interpreter)
    path = autostart.enable("linux")
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    entry = parser["Desktop Entry"]
    assert entry["X-Memevo-Owned"] == "true"
    assert entry["Comment[zh_CN]"] == COMMENT_ZH
    assert autostart.parse_exec(entry["Exec"]) == [interpreter, "-P", "-m", "memevo.cli", "tray"]
    assert autostart.status("linux")["stale"] is False

    validator = shutil.which("desktop-file-validate")
    if validator is not None:  # only this check depends on desktop-file-utils
        result = subprocess.run([validator, str(path)], capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "error" not in (result.stdout + result.stderr).lower()


def test_parse_exec_rejects_what_we_never_write() -> None:
    with pytest.raises(ValueError, match="unterminated"):
        autostart.parse_exec('"/opt/py')
    with pytest.raises(ValueError, match="field code"):
        autostart.parse_exec("/usr/bin/app %U")


# ---------------------------------------------------------------------------- a moved data folder


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_moved_data_folder_is_carried_into_the_login_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, interp: dict[str, str], platform: str
) -> None:
    """Issue 31, item 15: with MEMEVO_HOME set, the tray app started at login opened the default
    folder (an empty store): the entry now sets MEMEVO_HOME for it, and an entry written before
    the folder moved reads as stale, so setup --repair rewrites it."""
    select(monkeypatch, interp, platform)
    autostart.enable(platform)  # written with the default folder
    moved = tmp_path / "我的 memevo 100%"
    monkeypatch.setenv("MEMEVO_HOME", str(moved))
    assert autostart.status(platform)["stale"] is True
    path = autostart.enable(platform)
    assert autostart.status(platform)["stale"] is False
    data = path.read_bytes()
    if platform == "linux":
        exec_line = next(line for line in data.decode().splitlines() if line.startswith("Exec="))
        assert autostart.parse_exec(exec_line[5:]) == [
            "env",
            f"MEMEVO_HOME={moved}",
            interp["posix"],
            "-P",
            "-m",
            "memevo.cli",
            "tray",
        ]
    elif platform == "darwin":
        assert plistlib.loads(data)["EnvironmentVariables"] == {"MEMEVO_HOME": str(moved)}
    else:
        lines = data.decode("utf-8").split("\r\n")
        assert lines[2] == "chcp 65001 >nul"  # before the non-ASCII folder name
        assert lines[3] == f'set "MEMEVO_HOME={str(moved).replace("%", "%%")}"'
    monkeypatch.delenv("MEMEVO_HOME")  # moved back: stale again, rewritten without it
    assert autostart.status(platform)["stale"] is True
    autostart.enable(platform)
    assert b"MEMEVO_HOME" not in autostart.entry_path(platform).read_bytes()
