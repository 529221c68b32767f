"""onnxruntime's intra-op pool for the service's encoder: 1 vs 2 threads, spinning on and off,
quiet and beside one busy process per core (requests 20 ms apart, as prompts come).

    python tests/probes/encoder_threads.py
"""

import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort
from memevo.core.encoder import onnx_encoder as oe
from memevo.core.encoder.models import model_folder
from memevo.core.process.runtime import configured_model

folder = model_folder(configured_model())
model = oe.OnnxEncoderModel(folder)
d = oe.graph_dir(folder)
ids = [model.tokenizer.encode("query: 帮我看看支付页新流程的灰度开关叫什么，顺便把 README 更新一下")]


def session(threads, spin):
    o = ort.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    o.log_severity_level = 3
    o.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    return ort.InferenceSession(str(d / oe.GRAPH), o, providers=["CPUExecutionProvider"])


feed = {
    "input_ids": np.array(ids, dtype=np.int64),
    "attention_mask": np.ones((1, len(ids[0])), dtype=np.int64),
}
sessions = {(t, s): session(t, s) for t in (1, 2) for s in (True, False)}


def run(sess, n=150):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        sess.run(["sentence_embedding"], feed)
        out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.02)  # requests arrive apart, as prompts do
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.95)], out[-1]


for s in sessions.values():
    run(s, 20)
for phase in ("quiet", "loaded"):
    busy = []
    if phase == "loaded":
        busy = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)
        ]
        time.sleep(0.5)
    try:
        for rnd in range(2):
            for key, s in sessions.items():
                med, p95, mx = run(s)
                print(
                    f"{phase} round{rnd} threads={key[0]} spin={int(key[1])}: median {med:.1f} p95 {p95:.1f} max {mx:.1f}",
                    flush=True,
                )
    finally:
        for b in busy:
            b.kill()
