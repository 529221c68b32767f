"""Wiring for processes that own the store and the encoder (the service, and the CLI's model
commands: rebuild-index, verify, background): provision the configured model, load it,
build the recall engine. All of them get the same encoder: the default model on onnxruntime
once its graph is provisioned, any other model on sentence-transformers."""

from __future__ import annotations

import logging
from pathlib import Path

from .. import config as config_mod
from .. import messages as msg
from ..clock import Clock
from ..encoder.encoder import Encoder
from ..encoder.loading import ModelLoad
from ..encoder.progress import Progress
from ..encoder.provision import provision
from ..messages import Message
from ..recall.engine import RecallEngine
from ..store.database import Store


def configured_model() -> str:
    return str(config_mod.load()["model"])


def provisioned_encoder(progress: Progress | None = None) -> Encoder:
    """The configured model, provisioned (downloaded and converted on a first run), not loaded."""
    model_id = configured_model()
    provisioned = provision(model_id, progress)
    return Encoder(model_id, provisioned.folder)


def load_encoder(progress: Progress | None = None) -> Encoder:
    encoder = provisioned_encoder(progress)
    encoder.load()
    logging.getLogger("memevo.encoder").info("encoder: %s on %s", encoder.model_id, encoder.backend)
    return encoder


def open_engine(
    store: Store,
    progress: Progress | None = None,
    clock: Clock | None = None,
    *,
    loading: ModelLoad | None = None,
    lexical_file: Path | None = None,
) -> RecallEngine:
    """loading: the model already loading (the service starts it before checking the store);
    lexical_file: where the lexical index is kept between starts (the service's)."""
    if loading is None:
        loading = ModelLoad(provisioned_encoder(progress))
    if progress is not None:
        progress.stage(Message(msg.ENCODING_STALE))  # and the pool read meanwhile
    engine = RecallEngine(store, loading.encoder, clock, loading=loading, lexical_file=lexical_file)
    logging.getLogger("memevo.encoder").info(
        "encoder: %s on %s", engine.encoder.model_id, engine.encoder.backend
    )
    return engine
