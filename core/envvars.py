"""Every environment variable memevo reads, in one table (as uv's `EnvVars` is for uv).

Readers in app/, core/ and desktop/ take the name from here (`envvars.HOME.name`,
`envvars.HOME.get()`), so a variable cannot be read under a name the table does not hold.
The stdlib-only hooks cannot import memevo, and the installer, the packaging and test scripts
name some variables literally too: tests/test_docs.py finds every `MEMEVO_*` name anywhere in
the code and fails when one is missing here. docs/reference/environment.md is generated from
this table (packaging/gen_docs.py).

Standard library only, and nothing of memevo: anything may import it, early and cheaply.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# Who a variable is for; the reference groups them in this order.
USER = "user"  # a setting a user may need
DIAGNOSTIC = "diagnostic"  # comparisons, bug reports, timing
DEVELOPMENT = "development"  # the test suite, the packaging build, the test hooks


@dataclass(frozen=True)
class EnvVar:
    name: str
    audience: str
    default: str  # what applies when it is unset, in words
    doc: str
    read_by: str  # the modules that read it (for the reference, and for whoever changes it)

    def get(self) -> str | None:
        """The value, or None when unset."""
        return os.environ.get(self.name)

    def is_set_to(self, value: str) -> bool:
        return os.environ.get(self.name) == value


HOME = EnvVar(
    "MEMEVO_HOME",
    USER,
    "`~/.memory-self-evolution`",
    "The data dir: the store, config.json, the model, backups, logs, the socket. Moves all of "
    "memevo's state; setup carries it into the start-at-login entry.",
    "core/paths.py, hooks/hookio.py, hooks/relay.py, installer/autostart.py, packaging/hook_entry.py",
)
MODELS_DIR = EnvVar(
    "MEMEVO_MODELS_DIR",
    USER,
    "`$MEMEVO_HOME/models`",
    "Where provisioned embedding models are kept; lets several data dirs (or the tests) share "
    "one copy. `memevo uninstall` leaves a shared folder alone.",
    "core/encoder/models.py, installer/uninstall.py",
)
SIDE_API_KEY = EnvVar(
    "MEMEVO_SIDE_API_KEY",
    USER,
    "unset: the key is read from the OS keyring, else from the user-only key file",
    "The side API key, used instead of the stored one when set. Where no OS keyring works, the "
    "key file (`memevo secret set --file`) also reaches a tray app started at login, which does "
    "not see a terminal's variables. memevo never writes this variable's value anywhere.",
    "core/privacy/side_api_key.py",
)
LANG = EnvVar(
    "MEMEVO_LANG",
    USER,
    "the system locale",
    "The UI language: `en` or `zh` (`zh_CN`). The tray, panel, wizard, dialogs and notifications follow it.",
    "desktop/i18n.py",
)
HEADLESS = EnvVar(
    "MEMEVO_HEADLESS",
    USER,
    "unset: the tray app on a desktop",
    "`1`: whatever starts a service on demand (a hook, an MCP server, a command) starts "
    "`memevo serve`, never the tray app, even on a desktop.",
    "core/service/spawn.py, hooks/hookio.py",
)
CLAUDE_BIN = EnvVar(
    "MEMEVO_CLAUDE_BIN",
    USER,
    "`claude` on PATH, then the desktop app's bundled one",
    "The `claude` binary setup uses for `claude mcp add` / `remove` (the Node tool's "
    "`MEMORY_CLAUDE_BIN` is honoured too).",
    "installer/clients/claude.py",
)
LOCK_WAIT_S = EnvVar(
    "MEMEVO_LOCK_WAIT_S",
    USER,
    "30",
    "Seconds a command that opens the store itself (no service running) waits for another "
    "writer before refusing with the holder's PID.",
    "core/store/database.py",
)
SERVICE_WAIT_S = EnvVar(
    "MEMEVO_SERVICE_WAIT_S",
    USER,
    "60",
    "Seconds a command waits for a service that is starting or lost its connection mid-write "
    "before saying it cannot know whether the write happened.",
    "core/service/client.py",
)
SERVICE_IDLE_MINUTES = EnvVar(
    "MEMEVO_SERVICE_IDLE_MINUTES",
    USER,
    "the `serviceIdleMinutes` setting (30)",
    "Minutes without requests after which a headless service started on demand exits; `0` "
    "never. Overrides the setting. The tray app's service never idles out.",
    "core/service/idle.py",
)
SIDE_TIMEOUT_S = EnvVar(
    "MEMEVO_SIDE_TIMEOUT_S",
    USER,
    "30",
    "Seconds one side API call may take before it counts as failed.",
    "core/learning/learn.py",
)
TRANSPORT = EnvVar(
    "MEMEVO_TRANSPORT",
    DIAGNOSTIC,
    "a Unix socket (loopback TCP on Windows)",
    "`tcp`: the service and its callers use loopback TCP with a token in a user-only file, as "
    "on Windows (how that path is tested on Linux).",
    "core/service/protocol.py, hooks/hookio.py, hooks/relay.py",
)
ENCODER = EnvVar(
    "MEMEVO_ENCODER",
    DIAGNOSTIC,
    "onnxruntime for the default model",
    "`sentence-transformers`: run the default model the old way, with torch (for comparisons).",
    "core/encoder/encoder.py",
)
HUGE_PAGES = EnvVar(
    "MEMEVO_HUGE_PAGES",
    DIAGNOSTIC,
    "on where Linux offers them (transparent huge pages, 6.1 or later)",
    "`0`: leave the loaded model's weights in ordinary 4 KB pages (for comparisons).",
    "core/process/native_heap.py",
)
MCP_FASTPATH = EnvVar(
    "MEMEVO_MCP_FASTPATH",
    DIAGNOSTIC,
    "on",
    "`0`: the MCP server no longer answers `initialize` and `tools/list` from its kept answers "
    "while the MCP SDK loads.",
    "mcpserver/fastpath.py",
)
NO_SERVICE = EnvVar(
    "MEMEVO_NO_SERVICE",
    DIAGNOSTIC,
    "unset: commands go through a running service",
    "`1`: a command opens the store itself and never talks to a service.",
    "core/service/client.py, cli/shared.py",
)
HOOK_TIMING = EnvVar(
    "MEMEVO_HOOK_TIMING",
    DIAGNOSTIC,
    "unset",
    "Any value: each hook logs how long it took to `logs/hooks.log`.",
    "hooks/relay.py",
)
BUILD_OVERRIDE = EnvVar(
    "MEMEVO_BUILD_OVERRIDE",
    DEVELOPMENT,
    "the installed version",
    "The build a service reports, so a test can run a service that believes it is an older "
    "release (the upgrade-in-place path).",
    "core/service/protocol.py",
)
TRAY_TEST_HOOK = EnvVar(
    "MEMEVO_TRAY_TEST_HOOK",
    DEVELOPMENT,
    "off",
    "`1` when the tray starts: the service's `ui_test` operation may open its menu and press its "
    "buttons (the real-display tests, the screenshots).",
    "desktop/testhook.py, core/service/routes.py",
)
STAGE = EnvVar(
    "MEMEVO_STAGE",
    DEVELOPMENT,
    "`packaging/build/src`",
    "The staged source tree packaging/memevo.spec builds from (set by packaging/build.sh).",
    "packaging/memevo.spec, packaging/build.sh",
)
DEV_CACHE = EnvVar(
    "MEMEVO_DEV_CACHE",
    DEVELOPMENT,
    "`/var/tmp/memevo-dev-cache-UID` under tests/setup-and-test.sh",
    'The machine\'s cache shared by every clone (mypy, the provisioned model, pip, npm); `""` '
    "keeps everything in the clone's `.cache/`.",
    "tests/setup-and-test.sh, tests/conftest.py, tests/linkedtree.py",
)
TEST_WORKERS = EnvVar(
    "MEMEVO_TEST_WORKERS",
    DEVELOPMENT,
    "2",
    "pytest-xdist workers for the full suite; `0` runs everything in one process.",
    "tests/setup-and-test.sh",
)
TEST_PIN = EnvVar(
    "MEMEVO_TEST_PIN",
    DEVELOPMENT,
    "on",
    "`0`: the test workers are not pinned to a CPU each.",
    "tests/conftest.py",
)
TEST_PROFILE = EnvVar(
    "MEMEVO_TEST_PROFILE",
    DEVELOPMENT,
    "unset: nothing recorded",
    "A file the test run appends one JSON line a test to (wall time, its CPU and its children's); "
    "tests/profile_report.py ranks where the workers sat idle.",
    "tests/conftest.py, tests/profile_report.py",
)
TEST_KEYRING = EnvVar(
    "MEMEVO_TEST_KEYRING",
    DEVELOPMENT,
    "unset: no test reaches a keyring",
    "Set by tests/setup-and-test.sh when its private test keyring is unlocked: the tests "
    "marked `keyring` may use it.",
    "tests/setup-and-test.sh, tests/conftest.py",
)
TEST_HANG_S = EnvVar(
    "MEMEVO_TEST_HANG_S",
    DEVELOPMENT,
    "600",
    "Seconds a test gives a process of its own before calling it hung (tests/deadlines.py).",
    "tests/deadlines.py",
)

VARIABLES: tuple[EnvVar, ...] = (
    HOME,
    MODELS_DIR,
    SIDE_API_KEY,
    LANG,
    HEADLESS,
    CLAUDE_BIN,
    LOCK_WAIT_S,
    SERVICE_WAIT_S,
    SERVICE_IDLE_MINUTES,
    SIDE_TIMEOUT_S,
    TRANSPORT,
    ENCODER,
    HUGE_PAGES,
    MCP_FASTPATH,
    NO_SERVICE,
    HOOK_TIMING,
    BUILD_OVERRIDE,
    TRAY_TEST_HOOK,
    STAGE,
    DEV_CACHE,
    TEST_WORKERS,
    TEST_PIN,
    TEST_PROFILE,
    TEST_KEYRING,
    TEST_HANG_S,
)
BY_NAME: dict[str, EnvVar] = {variable.name: variable for variable in VARIABLES}

# Other programs' variables memevo honours: name -> what memevo does with it. Not memevo's to
# define, so only listed (the reference shows them after memevo's own).
OTHERS: dict[str, str] = {
    "HF_ENDPOINT": "the Hugging Face hub mirror model provisioning tries (core/encoder/provision.py)",
    "HF_HUB_OFFLINE": "`1`: provisioning skips the hub and goes to the offline pack",
    "CLAUDE_CONFIG_DIR": "where Claude Code keeps its settings (setup registers there)",
    "CODEBUDDY_CONFIG_DIR": "where CodeBuddy keeps its settings (setup registers there)",
    "CODEBUDDY_PROJECT_DIR": "the project of a CodeBuddy session whose payload names none",
    "CURSOR_VERSION": "set inside Cursor: the Claude Code hook stays silent, so a prompt is injected once",
    "CURSOR_TRANSCRIPT_PATH": "Cursor's transcript, read at Stop for the answer that ended the turn",
    "MEMORY_CLAUDE_BIN": "the Node tool's name for MEMEVO_CLAUDE_BIN, still honoured",
    "DISPLAY, WAYLAND_DISPLAY, QT_QPA_PLATFORM": "whether there is a desktop: the tray app, or the headless service",
}
