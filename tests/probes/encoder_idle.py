"""The encode after the machine idled: 0, 5, 20, 50 and 200 ms between requests, through the
service's encode lane with BLAS at one thread (as in the service).

    python tests/probes/encoder_idle.py
"""

import statistics
import time

from memevo.core.encoder.encoder import Encoder
from memevo.core.encoder.models import model_folder
from memevo.core.process.runtime import configured_model
from memevo.core.service.host import limit_blas_threads

limit_blas_threads()
mid = configured_model()
enc = Encoder(mid, model_folder(mid))
enc.load()
p = "帮我看看支付页新流程的灰度开关叫什么"
for _ in range(20):
    enc.encode_one(p)
for pause in (0, 0.005, 0.02, 0.05, 0.2):
    out = []
    for _ in range(40):
        if pause:
            time.sleep(pause)
        t = time.perf_counter()
        enc.encode_one(p)
        out.append((time.perf_counter() - t) * 1000)
    print(f"pause {pause * 1000:.0f} ms: encode median {statistics.median(out):.2f}")
m = enc._model
for pause in (0, 0.05):
    out = []
    for _ in range(40):
        if pause:
            time.sleep(pause)
        t = time.perf_counter()
        m.encode_one("query: " + p)
        out.append((time.perf_counter() - t) * 1000)
    print(f"direct (no lane) pause {pause * 1000:.0f} ms: median {statistics.median(out):.2f}")
