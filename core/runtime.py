"""Wiring for processes that own the store and the encoder (the CLI's model commands now;
the service later): provision the configured model, load it, build the recall engine."""

from __future__ import annotations

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
    return encoder


def open_engine(store: Store, progress: Progress | None = None, clock: Clock | None = None) -> RecallEngine:
    encoder = load_encoder(progress)
    if progress is not None:
        progress.stage("Encoding memories that have no current vector")
    return RecallEngine(store, encoder, clock)
