"""Wiring for processes that own the store and the encoder (the service, and the CLI's model
commands: rebuild-index, verify, background): provision the configured model, load it,
build the recall engine. All of them get the same encoder: the default model on onnxruntime
once its graph is provisioned, any other model on sentence-transformers."""

from __future__ import annotations

import logging

from . import config as config_mod
from .clock import Clock
from .encoder.encoder import Encoder
from .encoder.progress import Progress
from .encoder.provision import provision
from .recall.engine import RecallEngine
from .store import Store


def configured_model() -> str:
    return str(config_mod.load()["model"])


def load_encoder(progress: Progress | None = None) -> Encoder:
    model_id = configured_model()
    provisioned = provision(model_id, progress)
    encoder = Encoder(model_id, provisioned.folder)
    encoder.load()
    logging.getLogger("memevo.encoder").info("encoder: %s on %s", model_id, encoder.backend)
    return encoder


def open_engine(store: Store, progress: Progress | None = None, clock: Clock | None = None) -> RecallEngine:
    encoder = load_encoder(progress)
    if progress is not None:
        progress.stage("Encoding memories that have no current vector")
    return RecallEngine(store, encoder, clock)
