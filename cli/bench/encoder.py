"""The encoder: one text, a chat turn with its sentences, and a rebuild of a store's vectors."""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

from .measure import repeat, timing
from .pool import HOME_ENV


def encoder_figures(runs: int, rebuild_n: int) -> dict[str, Any]:
    from ...core.clock import SystemClock
    from ...core.encoder.loading import ModelLoad
    from ...core.memories import live as memories
    from ...core.process.runtime import provisioned_encoder
    from ...core.store.database import Store

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
                from ...core.recall.engine import RecallEngine

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
        # the loaded model's memory in huge pages (core/process/native_heap.py): 0 where Linux has none
        "encoder_huge_pages_mb": round(encoder.huge_page_bytes / 2**20),
    }


CHAT_TURN = (
    "早上好！昨天的复盘开到很晚，大家都挺累的。咖啡机又坏了，行政说周五才修。"
    "支付页新流程的灰度开关叫什么来着？我中午想吃点清淡的。"
)
