"""The learning worker's slot in the service: started once, its failure kept and shown."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..learning.learn import LearningHost, LearningRunner

log = logging.getLogger("memevo.service")
ANSWERS_KEPT = 256


class Learner:
    def __init__(self, host: LearningHost) -> None:
        self._host = host
        self.runner: LearningRunner | None = None
        self.error: str | None = None  # the worker could not start: shown, never silent
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, str], str] = {}

    def start(self) -> None:
        """Start the worker now (the tray app does, so a failure shows at once rather than at
        the first prompt). A failure is kept in `error` for the icon and status."""
        from ..learning.learn import LearningRunner, LearningUnavailable

        with self._lock:
            if self.runner is not None:
                return
            try:
                self.runner = LearningRunner(self._host)
                self.error = None
            except LearningUnavailable as exc:
                self.error = str(exc)
                log.error("learning is unavailable: %s", exc)
                raise

    def learn(self, ask: dict[str, Any], prompt: str, context: str | None = None) -> str | None:
        """Start the background analysis of the user's words; returns its sessionID."""
        from ..learning.learn import LearningUnavailable

        self.start()
        assert self.runner is not None
        try:
            return self.runner.start(ask, prompt, context)
        except LearningUnavailable as exc:
            self.error = str(exc)
            log.error("learning is unavailable: %s", exc)
            raise

    def want_cues(self) -> None:
        """After a change (and once the model is ready): memories without recall cues get them
        from the side model in the background — only when learning is configured."""
        from .. import config as config_mod
        from ..learning.learn import LearningUnavailable

        try:
            config = config_mod.load()
            wanted = config["recallCues"] and config["enabled"]  # paused: nothing leaves the machine
            if not (wanted and config["sideApiBase"] and config["sideApiModel"]):
                return
            self.start()
            assert self.runner is not None
            self.runner.want_cues()
        except LearningUnavailable:
            return  # kept in `error` and shown
        except Exception:  # a write or the model's start must never fail for want of cues
            log.warning("could not start writing recall cues", exc_info=True)

    @property
    def cue_error(self) -> str | None:
        return self.runner.cue_error if self.runner is not None else None

    @property
    def side_error(self) -> str | None:
        """Why the last analysis could not ask the side API (None once one could)."""
        return self.runner.side_error if self.runner is not None else None

    def remember_answer(self, client: str, session: str | None, text: Any, enabled: bool) -> None:
        """sideContext: keep the last assistant message of each session (memory only, redacted)."""
        if not enabled or not session or not isinstance(text, str) or not text.strip():
            return
        from ..recall.textfilter import redact_secrets, strip_code_and_logs

        self._answers[(client, session)] = redact_secrets(strip_code_and_logs(text))[-2000:]
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.pop(next(iter(self._answers)))

    def previous_answer(self, client: str, session: Any) -> str | None:
        return self._answers.get((client, str(session))) if session else None

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
