"""`memevo bench`: the speed budgets, measured over repeated runs (min / median / max).

Every figure comes from a synthetic pool in a temporary MEMEVO_HOME, never the user's.
Recall over 100k and 1M memories runs in child processes so each reports its own RSS.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import envvars

DIM = 384
HOME_ENV = envvars.HOME.name  # every pool lives in a temporary data dir, never the user's


def timing(samples_ms: list[float]) -> dict[str, float]:
    return {
        "min": round(min(samples_ms), 3),
        "median": round(statistics.median(samples_ms), 3),
        "max": round(max(samples_ms), 3),
    }


def repeat(func: Callable[[], object], runs: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- recall over a synthetic pool (child process) ---------------------------------------------------
PINNED_EVERY = 20  # 5% of the pool pinned
SCOPED_EVERY = 10  # every 10th memory, a project fact (even index), belongs to a repository
REPOS = 8


def synthetic_store(n: int, seed: int = 7, model: str = "bench") -> Any:
    """A store with n memories (half rules) and random unit vectors, written in bulk.

    With a real model id the vectors count as current (text hashes match), so a service
    loads them without re-encoding: its timings then cover a pool of n memories."""
    import pyarrow as pa

    from ..core import bulk, vector_bytes
    from ..core.store import Store
    from ..core.vectors import text_sha

    rng = np.random.default_rng(seed)
    store = Store.open()
    chunk = 100_000
    for start in range(0, n, chunk):
        size = min(chunk, n - start)
        ids = [f"b{start + i:07d}" for i in range(size)]
        texts = synthetic_texts(rng, start, size)
        matrix = rng.standard_normal((size, DIM), dtype=np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        now = int(time.time() * 1000)
        rows = pa.table(
            {
                "id": ids,
                "category": ["rule" if i % 2 else "project" for i in range(size)],
                "text": texts,
                "confidence": pa.array([50] * size, pa.int16()),
                "created_ms": pa.array([now] * size, pa.int64()),
                "last_seen_ms": pa.array([now] * size, pa.int64()),
                "deprecated": [False] * size,
                "award_day": pa.array([None] * size, pa.string()),
                "award_pts": pa.array([0] * size, pa.int16()),
            }
        )
        vecs = pa.table(
            {
                "memory_id": ids,
                "model": [model] * size,
                "text_sha": [text_sha(t) for t in texts],
                # as core/vector_bytes.py stores them
                "vec": pa.array(vector_bytes.blobs(matrix), pa.binary()),
            }
        )
        # As users' pools are: some memories pinned, some project facts of one repository
        # (recall then reads them per prompt for the scope check and the ranking).
        pinned = ids[::PINNED_EVERY]
        scoped = [(ids[i], f"/work/repo-{i % REPOS}") for i in range(0, size, SCOPED_EVERY)]
        bulk.insert(store, rows, vecs, pinned, scoped)
    return store


_HAN = "支付订单用户登录缓存日志测试发布接口配置数据库服务分支提交依赖异常监控告警索引消息队列权限网关灰度开关压测备份迁移前端后端组件样式"
_WORDS = [
    "service",
    "cache",
    "order",
    "payment",
    "deploy",
    "branch",
    "commit",
    "test",
    "config",
    "index",
    "queue",
    "token",
    "gateway",
    "flag",
]


def synthetic_texts(rng: np.random.Generator, start: int, size: int) -> list[str]:
    """Memory-like texts for the lexical index: Chinese words from a small alphabet, English
    words, and an identifier of its own per memory (so postings are realistic, not one list)."""
    pairs = rng.integers(0, len(_HAN), size=(size, 10))
    words = rng.integers(0, len(_WORDS), size=(size, 3))
    out = []
    for i in range(size):
        han = "".join(_HAN[j] for j in pairs[i])
        out.append(
            f"{han[:4]}的{han[4:]} {_WORDS[words[i, 0]]} {_WORDS[words[i, 1]]} svc_{(start + i) % 50_000}_{words[i, 2]}"
        )
    return out


def recall_child(runs: int) -> dict[str, Any]:
    """Load the pool a previous child wrote, as the service does at start, then recall: the
    vector index and, beside it, the lexical (BM25) index, each timed and measured apart."""
    from ..core import vectors
    from ..core.recall.gate import gate_category
    from ..core.recall.index import MemoryIndex
    from ..core.recall.lexical import LexicalIndex
    from ..core.service.host import limit_blas_threads
    from ..core.store import Store

    limit_blas_threads()  # measured as the service runs it
    store = Store.open(read_only=True)
    rss_before = rss_mb()
    started = time.perf_counter()
    index = MemoryIndex(DIM, np.zeros(DIM, dtype=np.float32))
    index.reserve(vectors.count_pool(store, "bench"))
    batches = []
    for batch in vectors.iter_pool(store, "bench"):  # as RecallEngine.sync_all loads it
        index.upsert_pool(batch)
        batches.append((batch.ids, batch.categories, batch.texts, ~batch.deprecated.astype(bool)))
    load_s = time.perf_counter() - started
    rss_vectors = rss_mb()
    started = time.perf_counter()
    lexical = LexicalIndex()
    for ids, categories, texts, live in batches:
        lexical.upsert(ids, categories, texts, live)
    lexical_s = time.perf_counter() - started
    del batches
    rss_lexical = rss_mb()
    rng = np.random.default_rng(1)
    queries = rng.standard_normal((runs + 2, DIM), dtype=np.float32)
    position = iter(range(len(queries)))

    def one_recall() -> None:
        ranked = index.ranked(queries[next(position)], 3)
        for category in ("rule", "project"):
            gate_category(ranked[category], 0.3, 3, -1)

    samples = repeat(one_recall, runs)
    words = iter(range(runs + 2))

    def one_lexical() -> None:  # a prompt that shares common words and one identifier
        scores = lexical.scores(f"支付订单的灰度开关叫什么，svc_{next(words) * 7}_1 的 cache 在哪")
        for category in ("rule", "project"):
            scores.top(category, 20)

    lexical_samples = repeat(one_lexical, runs)
    store.close()
    return {
        "timing": timing(samples),
        "rss_mb": round(rss_mb(), 1),
        "index_load_s": round(load_s, 2),
        "rss_before_mb": round(rss_before, 1),
        "lexical_build_s": round(lexical_s, 2),
        "lexical_rss_mb": round(rss_lexical - rss_vectors, 1),  # peak RSS grown by building it
        "lexical_postings": lexical.posting_count(),
        "lexical_array_mb": round(lexical.nbytes() / 1e6, 1),
        "lexical_terms": len(lexical._postings),
        "lexical_timing": timing(lexical_samples),
    }


def run_recall_child(n: int, runs: int) -> dict[str, Any]:
    """One child writes the synthetic pool, a fresh one loads it and measures (clean RSS)."""
    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        env = os.environ | {HOME_ENV: home}
        output = ""
        for args in (["make", str(n)], ["recall", str(runs)]):
            result = subprocess.run(
                [sys.executable, "-P", "-m", "memevo.app.bench", *args],
                capture_output=True,
                text=True,
                env=env,
                timeout=3600,
            )
            if result.returncode != 0:
                raise RuntimeError(f"recall bench over {n} failed: {result.stderr.strip().splitlines()[-1:]}")
            output = result.stdout
    return dict(json.loads(output))


# -- the encoder --------------------------------------------------------------------------------------
def encoder_figures(runs: int, rebuild_n: int) -> dict[str, Any]:
    from ..core import memories
    from ..core.clock import SystemClock
    from ..core.encoder.loading import ModelLoad
    from ..core.runtime import provisioned_encoder
    from ..core.store import Store

    encoder = provisioned_encoder()
    ModelLoad(encoder).wait()  # on a thread of its own, as the service loads it (its memory as there)
    encode = repeat(lambda: encoder.encode_one("改完代码不要自动 commit"), runs, warmup=3)
    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        previous = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = home
        try:
            with Store.open() as store:
                clock = SystemClock()
                for i in range(rebuild_n):
                    memories.create(
                        store, "project", f"第 {i} 号服务的负责人是 owner{i}，文档在 wiki/svc-{i}", clock
                    )
                from ..core.recall.engine import RecallEngine

                started = time.perf_counter()
                engine = RecallEngine(store, encoder, clock)  # encodes every memory: a rebuild
                rebuild_s = time.perf_counter() - started
                assert len(engine.index) == rebuild_n
                # a chat turn of several sentences: the whole and each sentence (sentences.py)
                settings = engine.settings({})
                chat = repeat(lambda: engine.queries(CHAT_TURN, settings, prompt=True), runs, warmup=2)
                chat_whole = repeat(lambda: encoder.encode_one(CHAT_TURN), runs, warmup=2)
        finally:
            if previous is None:
                os.environ.pop(HOME_ENV, None)
            else:
                os.environ[HOME_ENV] = previous
    return {
        "encode_ms": timing(encode),
        "chat_turn_encode_ms": timing(chat_whole),
        "chat_turn_with_sentences_ms": timing(chat),
        "rebuild_sentences_per_s": round(rebuild_n / rebuild_s, 1),
        "encoder": f"{encoder.backend} ({encoder.model_id})",
        # the loaded model's memory in huge pages (core/native_heap.py): 0 where Linux has none
        "encoder_huge_pages_mb": round(encoder.huge_page_bytes / 2**20),
    }


CHAT_TURN = (
    "早上好！昨天的复盘开到很晚，大家都挺累的。咖啡机又坏了，行政说周五才修。"
    "支付页新流程的灰度开关叫什么来着？我中午想吃点清淡的。"
)


# -- hooks end to end against a warm service -----------------------------------------------------------
HOOK_PROMPT = "支付页新流程要在测试环境打开，开关叫什么来着"
CONCURRENT_HOOKS = 8  # clients fire hooks in parallel (several sessions, a prompt and its tool calls)
LOAD_LIMIT_S = 600.0  # a busy process of the loaded figure ends by itself after this, whatever happens
_BUSY = (
    "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"
)


def spread(samples_ms: list[float]) -> dict[str, float]:
    """min / median / p95 / max: what a user lives is the tail as much as the middle."""
    ordered = sorted(samples_ms)
    p95 = ordered[max(0, -(-len(ordered) * 95 // 100) - 1)]  # nearest rank
    return timing(samples_ms) | {"p95": round(p95, 3)}


def _spawn_ms(command: list[str], stdin: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, env=env, check=False, timeout=60)
    return (time.perf_counter() - started) * 1000


def hook_samples(
    command: list[str], stdin: bytes, env: dict[str, str], runs: int, warmup: int = 2
) -> list[float]:
    """One hook after the other, each timed from spawn to exit (as its client waits for it).
    The first `warmup` are not counted (the day's first session start runs maintenance)."""
    for _ in range(warmup):
        _spawn_ms(command, stdin, env)
    return [_spawn_ms(command, stdin, env) for _ in range(runs)]


def concurrent_samples(
    command: list[str],
    stdin: bytes,
    env: dict[str, str],
    rounds: int,
    width: int = CONCURRENT_HOOKS,
    warmup: int = 1,
) -> list[float]:
    """`width` hooks started at once, `rounds` times (after `warmup` rounds not counted): each
    one's own spawn-to-exit time."""
    import threading

    def one(gate: threading.Barrier, times: list[float]) -> None:
        gate.wait()
        times.append(_spawn_ms(command, stdin, env))  # list.append is atomic

    samples: list[float] = []
    for round_ in range(warmup + rounds):
        gate, times = threading.Barrier(width), list[float]()
        threads = [threading.Thread(target=one, args=(gate, times)) for _ in range(width)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if round_ >= warmup:
            samples += times
    return samples


@contextlib.contextmanager
def cpu_load(python: str, processes: int | None = None, limit_s: float = LOAD_LIMIT_S) -> Any:
    """As many busy processes as cores beside the hooks (a compiler, a test suite): stopped when
    the block ends however it ends (Ctrl-C, an exception), and each ends by itself after
    `limit_s` should this process be killed outright."""
    busy: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(processes or os.cpu_count() or 1):
            busy.append(
                subprocess.Popen(
                    [python, "-I", "-S", "-c", _BUSY, str(limit_s)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        time.sleep(0.3)  # running, not starting
        yield busy
    finally:
        for proc in busy:
            with contextlib.suppress(OSError):
                proc.terminate()
        for proc in busy:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def hook_payloads() -> dict[str, bytes]:
    return {
        "prompt": json.dumps({"session_id": "bench", "prompt_id": "p", "prompt": HOOK_PROMPT}).encode(),
        "session_start": json.dumps({"session_id": "bench", "source": "startup"}).encode(),
    }


def measure_hooks(python: str, script: str, env: dict[str, str], runs: int) -> dict[str, Any]:
    """The hook figures for one hook script against the running service: quiet first, then
    beside the CPU load, then 8 at once (overlapping requests can leave the service slower)."""
    hook = [python, "-I", "-S", script, "claude"]
    payloads = hook_payloads()
    bare = [python, "-I", "-S", "-c", "pass"]
    python_start = spread(hook_samples(bare, b"", env, runs))
    hook_prompt = spread(hook_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, runs))
    session_start = spread(hook_samples([*hook, "SessionStart"], payloads["session_start"], env, runs))
    with cpu_load(python):
        loaded = spread(hook_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, runs))
    concurrent = spread(
        concurrent_samples([*hook, "UserPromptSubmit"], payloads["prompt"], env, max(2, runs // 4))
    )
    return {
        "python_start_ms": python_start,
        "hook_prompt_ms": hook_prompt,
        "hook_session_start_ms": session_start,
        "hook_prompt_loaded_ms": loaded,
        "hook_prompt_concurrent_ms": concurrent,
        "hook_prompt_vs_python_start": round(hook_prompt["median"] / python_start["median"], 2),
        "hook_session_start_vs_python_start": round(session_start["median"] / python_start["median"], 2),
        "hook_prompt_loaded_vs_quiet": round(loaded["median"] / hook_prompt["median"], 2),
        "hook_prompt_concurrent_vs_quiet": round(concurrent["median"] / hook_prompt["median"], 2),
    }


def _proc_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def bench_service(
    python: str, pool: int = 10_000, mode: str = "serve", first: list[float] | None = None
) -> Any:
    """`memevo serve` (or, mode="tray", the tray app offscreen, set up, in a HOME of its own)
    over the benchmark pool in a temporary home, model loaded: yields (env for hooks, the
    process's Popen, seconds to ready); shut down afterwards.

    The measured start is the second: a first one, started and stopped before it, meets the
    pool as the benchmark wrote it (51 memories without vectors to encode, no lexical index
    kept beside the store), which a user's service meets only after memories were written with
    no service running; a service's start at login or after its idle exit meets the store as
    its last run left it. `first` (a list) gets the first start's seconds to ready."""
    from ..core.encoder.models import models_dir
    from ..installer import state

    with tempfile.TemporaryDirectory(prefix="memevo-bench-") as home:
        # the model already provisioned for the caller, not a fresh one in the temporary home
        env = os.environ | {HOME_ENV: home, envvars.MODELS_DIR.name: str(models_dir())}
        if mode == "tray":
            user_home = os.path.join(home, "user")
            os.makedirs(user_home)
            # the tray may write autostart or keyring files: never the user's
            env |= {"HOME": user_home, "QT_QPA_PLATFORM": "offscreen"}
        else:
            env[envvars.HEADLESS.name] = "1"
        saved = os.environ.get(HOME_ENV)
        os.environ[HOME_ENV] = home
        try:
            _bench_pool(pool)
            if mode == "tray":
                state.mark_setup_run()  # no wizard
            settling, first_s = _start_service(python, mode, env)
            _stop_service(settling)
            if first is not None:
                first.append(first_s)
            service, ready_s = _start_service(python, mode, env)
            try:
                yield env, service, ready_s
            finally:
                _stop_service(service)
        finally:
            if saved is None:
                os.environ.pop(HOME_ENV, None)
            else:
                os.environ[HOME_ENV] = saved


def _start_service(python: str, mode: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    from ..core.service import client

    started = time.perf_counter()
    service = subprocess.Popen(
        [python, "-P", "-m", "memevo.core.cli", mode],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return service, _wait_model(client, started)
    except BaseException:
        _stop_service(service)
        raise


def _stop_service(service: subprocess.Popen[bytes]) -> None:
    from ..core.service import client

    with contextlib.suppress(Exception):
        client.call("shutdown", {}, timeout_s=10)
    try:
        service.wait(30)
    except subprocess.TimeoutExpired:
        service.terminate()
        try:
            service.wait(10)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


def hook_figures(runs: int, pool: int = 10_000) -> dict[str, Any]:
    from ..core.service.server import IDLE_TRIM_S
    from ..installer.hook_command import hook_script, interpreter

    python = interpreter()
    first: list[float] = []
    with bench_service(python, pool, first=first) as (env, service, ready_s):
        figures = measure_hooks(python, str(hook_script()), env, runs)
        busy = _proc_rss_mb(service.pid)
        # What stays resident between bursts: the service trims once requests pause
        # (core/service/server.py IDLE_TRIM_S); the figure right after the burst is kept beside it.
        time.sleep(IDLE_TRIM_S + 2)
        figures |= {
            "service_rss_mb": round(_proc_rss_mb(service.pid), 1),
            "service_rss_busy_mb": round(busy, 1),
            "service_ready_s": round(ready_s, 2),
            "service_first_ready_s": round(first[0], 2),
            "hook_pool": pool,
        }
    return figures


def _bench_pool(pool: int) -> None:
    """The hook benchmark's pool: synthetic vectors (current for the default model), 50 rules
    and the one fact the prompt recalls. Call with MEMEVO_HOME set to a temporary home."""
    from ..core import memories
    from ..core.clock import SystemClock
    from ..core.encoder.models import DEFAULT_MODEL

    store = synthetic_store(pool - 50, model=DEFAULT_MODEL)
    for i in range(50):
        memories.create(store, "rule", f"第 {i} 条规则：提交前先运行单元测试并检查格式", SystemClock())
    memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", SystemClock())
    store.close()


def tray_figures(pool: int = 10_000, settle_s: float = 3.0) -> dict[str, Any]:
    """tray_rss_mb: the tray app (`memevo tray`, offscreen) hosting the service with the model
    over the same 10k-memory pool, set up (no wizard), `settle_s` after the model is in."""
    from ..installer.hook_command import interpreter

    with bench_service(interpreter(), pool, mode="tray") as (_env, tray, ready_s):
        time.sleep(settle_s)
        return {"tray_rss_mb": round(_proc_rss_mb(tray.pid), 1), "tray_ready_s": round(ready_s, 2)}


# label -> (figure, statistic, limit). The light encoder's budgets, then the stricter ones of
# "hooks at the interpreter's floor", each reported on its own line.
BUDGETS: dict[str, tuple[str, str | None, float]] = {
    "recall_100k_ms": ("recall_100k_ms", "median", 15),
    "encode_ms": ("encode_ms", "median", 6),
    "hook_prompt_ms": ("hook_prompt_ms", "median", 30),
    "hook_prompt_vs_python_start": ("hook_prompt_vs_python_start", None, 4.5),
    "hook_session_start_ms": ("hook_session_start_ms", "median", 40),
    "service_rss_mb": ("service_rss_mb", None, 250),
    "service_ready_s": ("service_ready_s", None, 1.5),
    "tray_rss_mb": ("tray_rss_mb", None, 300),
    "filter_worst_ms": ("filter_worst_ms", None, 20),
    "soak_growth_pct": ("soak_growth_pct", None, 10),
    "floor: hook_prompt_ms": ("hook_prompt_ms", "median", 20),
    "floor: hook_prompt_vs_python_start": ("hook_prompt_vs_python_start", None, 3),
    "floor: hook_session_start_vs_python_start": ("hook_session_start_vs_python_start", None, 1.6),
    "floor: hook_prompt_loaded_vs_quiet": ("hook_prompt_loaded_vs_quiet", None, 3),
    "floor: hook_prompt_loaded_ms p95": ("hook_prompt_loaded_ms", "p95", 250),
    "floor: hook_prompt_concurrent_vs_quiet": ("hook_prompt_concurrent_vs_quiet", None, 2),
}


def budgets(figures: dict[str, Any]) -> dict[str, Any]:
    """Each budget with the measured value and whether it held (a report, never a test)."""
    out: dict[str, Any] = {}
    for label, (name, statistic, limit) in BUDGETS.items():
        figure = figures.get(name)
        value = figure.get(statistic) if statistic and isinstance(figure, dict) else figure
        if isinstance(value, int | float):
            out[label] = {"limit": limit, "value": value, "ok": value <= limit}
    return out


def _wait_model(client: Any, started: float, timeout_s: float = 300) -> float:
    while time.perf_counter() - started < timeout_s:
        try:
            status: dict[str, Any] = client.call("ping", {}, timeout_s=2)
            if status["model_ready"]:
                return time.perf_counter() - started
            if status["model_error"]:
                raise RuntimeError(status["model_error"])
        except client.ServiceUnavailable:
            pass
        time.sleep(0.05)
    raise RuntimeError("the service did not become ready")


# -- the input filter and redaction against hostile text (no model; budget: 20 ms) -----------------------
def adversarial_inputs(size: int = 1 << 20) -> dict[str, str]:
    """Texts of `size` characters written to make a backtracking pattern or a per-line loop slow."""
    import random

    def fill(unit: str, tail: str = "") -> str:
        return (unit * (size // len(unit) + 1))[: size - len(tail)] + tail

    rng = random.Random(7)
    scripts = "中文混排テストкириллицаعربي🙂 \t\n‮‭0123456789abcXYZ{}();=:@/-_"
    base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return {
        "spaces": fill(" "),
        "spaces_then_word": fill(" ", "x"),
        "mixed_whitespace": fill(" \t\u3000\u00a0\u2003", "x;"),
        "one_huge_line": fill("abc123"),
        "huge_identifier_assignment": fill("a", " = 1"),
        "short_code_lines": fill("x;\n"),
        "short_prose_lines": fill("好的\n"),
        "carriage_returns": fill("a\r"),
        "nested_braces": "{" * (size // 2) + "}" * (size - size // 2),
        "nested_brackets_lines": fill("{[(\n"),
        "unclosed_pem": "-----BEGIN RSA PRIVATE KEY-----\n" + fill("MIIEowIBAAKCAQEA\n")[32:],
        "many_pem_begins": fill("-----BEGIN PRIVATE KEY-----\nabc\n"),
        "pem_pairs": fill("-----BEGIN EC PRIVATE KEY-----\nab\n-----END EC PRIVATE KEY-----\n"),
        "mixed_scripts": "".join(rng.choice(scripts) for _ in range(size)),
        "fence_markers": fill("`"),
        "fence_pairs": fill("```\nx\n```\n"),
        "mixed_fences": fill("```\n~~~\n"),
        "backtick_then_spaces": "`" + fill(" ")[1:],
        "tilde_then_spaces": "~" + fill(" ")[1:],
        "log_lines": fill("2026-11-29 12:00:01 ERROR payment timeout\n"),
        "stack_frames": fill("  at com.example.Pay.run(Pay.java:42)\n"),
        "indented_lines": fill("    x\n"),
        "assignments": fill("password=x "),
        "keyword_runs": fill("passwordtokensecretkey"),
        "zh_keywords": fill("密码是 "),
        "zh_keywords_no_space": fill("密码都都都都"),
        "copulas": fill("token is "),
        "auth_headers": fill("Authorization: Bearer "),
        "url_credentials": fill("https://a:b@"),
        "schemes": fill("a://"),
        "colons": fill("a:"),
        "at_signs": fill("@"),
        "base64_blob": "".join(rng.choice(base64) for _ in range(size)),
        "base64_words": fill("Qm9vb3RzdHJhcFRva2VuMTIz "),
        "token_prefixes": fill("sk-"),
        "jwt_prefixes": fill("eyJ"),
        "code_then_question": fill(
            "const total = items.reduce((a, b) => a + b, 0);\n", "\n这段代码为什么这么慢"
        ),
    }


def filter_figures(runs: int = 3) -> dict[str, Any]:
    """filter_worst_ms: the slowest, over adversarial 1 MB inputs, of the input filter plus
    redaction, on either path that redacts: the side judge's input (judge_input) and the
    assistant's last answer kept for context (strip_code_and_logs, then redact_secrets).
    Each figure is the median of `runs`."""
    from ..core.recall.textfilter import judge_input, redact_secrets, strip_code_and_logs

    def answer(text: str) -> str:
        return redact_secrets(strip_code_and_logs(text))

    # detect-secrets is imported for the first text one of its patterns may match (a JWT's eyJ)
    answer("warm up: password=x, sk-" + "a1" * 12 + " eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln")
    worst, worst_name = 0.0, ""
    for name, text in adversarial_inputs().items():
        for path, func in (("judge", judge_input), ("answer", answer)):
            median = statistics.median(repeat(lambda f=func, t=text: f(t), runs, warmup=1))  # type: ignore[misc]
            if median > worst:
                worst, worst_name = median, f"{name} ({path})"
    return {"filter_worst_ms": round(worst, 2), "filter_worst_input": worst_name}


def run(quick: bool = False, progress: Any = None) -> dict[str, Any]:
    """Every figure; progress (core/encoder/progress: stage lines) says what is being measured,
    since a whole run takes minutes (the million and the soak: tens of minutes)."""
    from ..core.encoder.progress import Silent

    say = (progress or Silent()).stage
    runs = 20 if quick else 50
    figures: dict[str, Any] = {"machine": machine()}
    say("bench: the text filters on 1 MB inputs")
    figures |= filter_figures()
    say("bench: recall over 100,000 memories (a store written, then read by a fresh process)")
    r100k = run_recall_child(100_000, runs)
    figures["recall_100k_ms"] = r100k["timing"]
    figures["rss_100k_mb"] = r100k["rss_mb"]
    figures["lexical_100k"] = {k: v for k, v in r100k.items() if k.startswith("lexical_")}
    figures["recall_1m_ms"] = figures["rss_1m_mb"] = None  # --quick skips the million
    if not quick:
        say("bench: recall over 1,000,000 memories (minutes)")
        r1m = run_recall_child(1_000_000, runs)
        figures["recall_1m_ms"] = r1m["timing"]
        figures["rss_1m_mb"] = r1m["rss_mb"]
        figures["index_load_1m_s"] = r1m["index_load_s"]
        figures["lexical_1m"] = {k: v for k, v in r1m.items() if k.startswith("lexical_")}
    say("bench: the encoder (one text, then a rebuild)")
    figures |= encoder_figures(runs, 100 if quick else 1000)
    say("bench: hooks against a service over 10,000 memories (quiet, loaded, eight at once)")
    figures |= hook_figures(runs)
    say("bench: the tray app over 10,000 memories")
    figures |= tray_figures()
    if quick:  # --quick skips the long day too (minutes); tests/test_soak.py runs a shorter one
        figures |= dict.fromkeys(("soak_rss_before_mb", "soak_rss_after_mb", "soak_growth_pct"))
    else:  # the tray over a long day (app/soak.py): thousands of hooks, hundreds of writes
        from .soak import soak

        say("bench: a day's soak of the tray, 5,000 prompts and 500 writes (minutes)")
        figures |= soak()
    figures["budgets"] = budgets(figures)
    return figures


def machine() -> dict[str, Any]:
    import platform

    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


if __name__ == "__main__":  # children: python -m memevo.app.bench make N | recall RUNS
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        synthetic_store(int(sys.argv[2])).close()
    elif len(sys.argv) == 3 and sys.argv[1] == "recall":
        print(json.dumps(recall_child(int(sys.argv[2]))))
    else:
        raise SystemExit("usage: python -m memevo.app.bench make N | recall RUNS")
