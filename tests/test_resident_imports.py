"""The resident service loads only what it serves with: a real `memevo serve` that has answered a
prompt maps no library of the modules it leaves to other commands, and the service's own start, run
in a fresh process, imports none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service import client
from memevo.core.store.database import Store
from memevo.installer import state

# What the resident process never needs: torch and sentence-transformers (other models, run by
# the CLI's model commands), the graph's builder (onnx, safetensors: provisioning), the
# keyring and what it loads and httpx (only once a side API is named or called), detect-secrets
# and RE2 (only for a text one of their patterns may match), Qt (the tray), the MCP server.
NOT_RESIDENT = (
    "torch",
    "sentence_transformers",
    "transformers",
    "onnx",
    "safetensors",
    "keyring",
    "secretstorage",
    "cryptography",
    "PySide6",
    "mcp",
    "pandas",
    "httpx",
    "detect_secrets",
    "re2",
    "requests",
    "pyarrow",  # the vectors come as bytes (core/store/vector_bytes.py); bench and bulk loads use it
)
# Their native libraries, as /proc/PID/maps shows them in the running service.
NOT_MAPPED = (
    "libtorch",
    "/torch/",
    "/onnx/onnx_cpp2py_export",
    "/safetensors/",
    "/cryptography/",
    "/PySide6/",
    "/re2/_re2",
    "/charset_normalizer/",  # requests', for detect-secrets
    "/pyarrow/",  # libarrow and its Python bindings, ~30 MB
)
# What the command line holds and the running service does not: the other
# commands' modules and the installer chain they import (setup_commands: getpass, shlex,
# termios), and threadpoolctl (the service starts numpy's OpenBLAS with one thread instead).
# argparse is not among them: the graph builder's module (core/encoder/onnx_provision.py), which
# provisioning imports, still imports it at module level.
NOT_IN_SERVE = (
    "memevo.cli.import_commands",
    "memevo.cli.memory_commands",
    "memevo.cli.model_commands",
    "memevo.cli.setup_commands",
    "memevo.cli.share_commands",
    "memevo.installer",
    "getpass",
    "threadpoolctl",
)
# What it does serve with: without these the check would pass for a service that loaded nothing.
RESIDENT = ("duckdb", "numpy", "onnxruntime", "tokenizers")

START = """
import json, logging, sys
from memevo.core.service.host import ServiceHost
from memevo.core.service.server import setup_logging
from memevo.core.store.database import Store
setup_logging("service")  # its file's filter, as `memevo serve` has it
host = ServiceHost(Store.open())
host.ctx.refresh_caches()
host.load_engine()
assert host.engine is not None, host.ctx.engine_error
result = host.engine.recall("改完代码先不要提交，等我确认")
logging.getLogger("memevo.service").info("recalled %d for %s", len(result.hits), "改完代码先不要提交")
host.close()
print(json.dumps({"modules": sorted(m.split(".")[0] for m in sys.modules), "hits": len(result.hits)}))
"""


def _pool() -> None:
    store = Store.open()
    clock = FakeClock()
    memories.create(store, "rule", "改完代码不要自动 commit，等我确认后再提交", clock)
    memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", clock)
    store.close()


def test_the_service_start_imports_none_of_the_heavy_modules(data_dir: Path, provisioned_model: Any) -> None:
    _pool()
    done = subprocess.run([sys.executable, "-P", "-c", START], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    modules = set(seen["modules"])
    assert seen["hits"] >= 1
    assert [m for m in RESIDENT if m not in modules] == []
    assert [m for m in NOT_RESIDENT if m in modules] == []


def _extra_arenas(pid: int, maps: str) -> int:
    """glibc's extra arenas in a running process: its heaps in /proc/PID/maps are anonymous,
    aligned to and spanning 64 MB (HEAP_MAX_SIZE), the used part read-write and the rest
    reserved (---p); each begins with its arena's address (heap_info.ar_ptr), read from
    /proc/PID/mem. An arena that outgrew one heap (the model's weights are kept in heaps,
    core/process/native_heap.py) has several. Unlimited, a service that answered eight prompts at once
    had six arenas."""
    rows = []
    for line in maps.splitlines():
        fields = line.split()
        start, end = (int(x, 16) for x in fields[0].split("-"))
        rows.append((start, end, fields[1], len(fields) > 5))
    heap, arenas = 64 << 20, set()
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
        for i, (start, end, perms, named) in enumerate(rows):
            if named or start % heap or not perms.startswith("rw"):
                continue
            if (
                i + 1 < len(rows)
                and rows[i + 1][0] == end
                and rows[i + 1][2].startswith("---")
                and not rows[i + 1][3]
            ):
                end = rows[i + 1][1]
            if end - start == heap:
                memory.seek(start)
                arenas.add(int.from_bytes(memory.read(8), sys.byteorder))
    return len(arenas)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")
def test_a_running_service_imports_and_maps_nothing_it_does_not_serve_with(
    data_dir: Path, provisioned_model: Any, tmp_path: Path
) -> None:
    """`memevo serve` as hooks start it (`-P -m memevo.cli serve --wait-lock 15`), its every
    import listed by -X importtime: a prompt answered, then neither the command line's other
    modules nor a library it leaves to other commands is in the process."""
    _pool()
    env = os.environ | {"MEMEVO_HOME": str(data_dir), "PYTHONPROFILEIMPORTTIME": "1"}
    env.pop("OPENBLAS_NUM_THREADS", None)  # a count set outside would bring threadpoolctl back
    imports = tmp_path / "importtime.txt"
    with (
        imports.open("w", encoding="utf-8") as stderr,
        subprocess.Popen(
            [sys.executable, "-P", "-m", "memevo.cli", "serve", "--wait-lock", "15"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        ) as proc,
    ):
        try:
            servicerun.wait_for(data_dir)
            answer = client.call(
                "hook_prompt", {"prompt": "支付页新流程的开关叫什么", "session_id": "imports"}, timeout_s=60
            )
            assert "pay_new_flow_v2" in json.dumps(answer, ensure_ascii=False)
            with ThreadPoolExecutor(8) as pool:  # eight at once: request threads, the encoder's batch
                asked = {"prompt": "支付页新流程的开关叫什么", "session_id": "imports"}
                assert all(pool.map(lambda _: client.call("hook_prompt", asked, timeout_s=60), range(8)))
            maps = Path(f"/proc/{proc.pid}/maps").read_text(encoding="utf-8")
            extra_arenas = _extra_arenas(proc.pid, maps)
        finally:
            servicerun.stop(data_dir, proc)
    imported = {
        line.rpartition("|")[2].strip()
        for line in imports.read_text(encoding="utf-8").splitlines()
        if line.startswith("import time:")
    }
    assert [lib for lib in NOT_MAPPED if lib in maps] == []
    assert "onnxruntime" in maps and "duckdb" in maps
    assert extra_arenas <= 1  # two arenas: the main one and one more (core/process/native_heap.py)
    assert sorted(m for m in imported if m in NOT_IN_SERVE or m.startswith("memevo.installer.")) == []
    assert {"memevo.cli.service_commands", "memevo.core.service.server", "onnxruntime"} <= imported


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")
def test_a_running_tray_maps_no_library_the_service_does_not_need_but_qt(
    data_dir: Path, provisioned_model: Any
) -> None:
    _pool()
    state.mark_setup_run()  # no wizard
    with servicerun.offscreen_tray(data_dir) as tray:
        maps = Path(f"/proc/{tray.pid}/maps").read_text(encoding="utf-8")
    assert [lib for lib in NOT_MAPPED if lib in maps and lib != "/PySide6/"] == []
    assert "/PySide6/" in maps and "onnxruntime" in maps and "duckdb" in maps
