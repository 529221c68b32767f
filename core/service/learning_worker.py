"""The learning worker's slot in the service: started once, its failure kept and shown."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..learning.learn import LearningHost, LearningRunner

log = logging.getLogger("memevo.service")
ANSWERS_KEPT = 256
PROMPTS_KEPT = 20  # per session: what a proposal's quoted words are looked for in
PROMPT_CHARS = 8000
SESSION_FRESH_S = 1800.0  # a proposal belongs to a session whose user spoke this recently


def prompts_of_session(said: dict[tuple[str, str], list[str]], key: tuple[str, str]) -> list[str]:
    """The session's list, moved to the end (most recently used last)."""
    found = said.pop(key, [])
    said[key] = found
    return found


def _trim(kept: dict[Any, Any], size: int) -> None:
    while len(kept) > size:
        kept.pop(next(iter(kept)))


@dataclass(frozen=True)
class Chat:
    """The chat a proposal from a client's MCP server belongs to. `session`: that chat, only
    when it is certain — its question may be asked there and answered by its user's next
    prompt; None: not known, so the proposal is answered outside the chat. `sessions`: the
    chats its quoted words may come from (the one, or this client's recent ones here)."""

    session: str | None
    sessions: tuple[str, ...] = ()


class Learner:
    def __init__(self, host: LearningHost) -> None:
        self._host = host
        self.runner: LearningRunner | None = None
        self.error: str | None = None  # the worker could not start: shown, never silent
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, str], str] = {}
        self._said: dict[tuple[str, str], list[str]] = {}  # (client, session) -> recent prompts
        # (client, session) -> (repository, when its user last spoke), most recent last
        self._recent: dict[tuple[str, str], tuple[str | None, float]] = {}
        # (client, session) -> {job id: user prompts to let pass first}: the questions put to the
        # user in that chat whose reply is awaited. In memory only: after a restart the chat's
        # reply is not read as an answer, and `memevo pending` (or the dialog) answers instead.
        self._asking: dict[tuple[str, str], dict[str, int]] = {}
        self._spoke: dict[tuple[str, str], bool] = {}  # chats whose user has sent a prompt

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

    def learn(
        self, ask: dict[str, Any], prompt: str, context: str | None = None, lesson: str | None = None
    ) -> str | None:
        """Start the background analysis of the user's words (with `lesson`, the assistant's
        last answer: what the finished turn taught); returns its sessionID."""
        from ..learning.learn import LearningUnavailable

        self.start()
        assert self.runner is not None
        try:
            return self.runner.start(ask, prompt, context, lesson)
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

    def note_prompt(self, client: str, session: str | None, repo: str | None, prompt: str) -> None:
        """Client mode: the user's latest words per client and repository (memory only), so a
        proposal from that client's MCP server is tied to its session and its quoted words can
        be checked against what the user really said."""
        if not session:
            return
        from ..recall.textfilter import redact_secrets

        kept = redact_secrets(prompt[-PROMPT_CHARS:])
        with self._lock:
            said = prompts_of_session(self._said, (client, session))
            said.append(kept)
            del said[:-PROMPTS_KEPT]
            self._recent.pop((client, session), None)
            self._recent[(client, session)] = (repo, time.monotonic())
            _trim(self._recent, ANSWERS_KEPT)
            _trim(self._said, ANSWERS_KEPT)

    def chat_of(self, client: str, repo: str | None, named: str | None = None) -> Chat:
        """The chat a proposal from this client's MCP server (started in `repo`) comes from,
        only when that is unambiguous: a question tied to the wrong chat would be answered by
        a "1" its user typed for something else.

        named: the session the client gave its MCP server (Claude Code's
        CLAUDE_CODE_SESSION_ID): that chat when its user spoke within SESSION_FRESH_S, else
        none (another chat is never guessed in its place). Without one: the one chat of this
        client whose user spoke within SESSION_FRESH_S in this repository (or, with none
        here, anywhere); with two or more the chat is not known."""
        now = time.monotonic()
        with self._lock:
            fresh = [
                (session, where)
                for (who, session), (where, when) in reversed(self._recent.items())
                if who == client and now - when <= SESSION_FRESH_S
            ]
        if named:
            known = any(session == named for session, _ in fresh)
            return Chat(named, (named,)) if known else Chat(None)
        here = [session for session, where in fresh if where == repo] or [s for s, _ in fresh]
        if len(here) == 1:
            return Chat(here[0], (here[0],))
        return Chat(None, tuple(here))

    def user_said(self, client: str, sessions: Iterable[str], words: str) -> bool:
        """Whether `words` (normalised, at least QUOTE_MIN meaningful characters) occur in one
        of these sessions' recent prompts: a quote the user never typed (an injected
        instruction's), or a scrap too short to mean anything, is held for confirmation."""
        from ..learning.propose import QUOTE_MIN, normalised

        wanted = normalised(words)
        if len(wanted) < QUOTE_MIN:
            return False
        with self._lock:
            said = [p for session in sessions for p in self._said.get((client, session), [])]
        return any(wanted in normalised(p) for p in said)

    # -- in-chat questions: only the user's own next reply answers one --------------------------------
    def asked(self, client: str, session: str | None, job_id: str, let_pass: int = 0) -> None:
        """A question was put to the user in this chat; its answer is the user's next prompt
        (after `let_pass` prompts: a question handed over at a session start is asked by the
        model only once the user has spoken — unless the user already has, as when a client
        sends the first prompt's hook before the session start's)."""
        if not session:
            return
        with self._lock:
            if self._spoke.get((client, session)):
                let_pass = 0
            waiting = self._asking.pop((client, session), {})
            waiting[job_id] = let_pass
            self._asking[(client, session)] = waiting
            _trim(self._asking, ANSWERS_KEPT)

    def ask_first(self, client: str, session: str | None, job_id: str) -> bool:
        """Mark `job_id` as asked in this chat unless another question already waits there for
        the user's reply (one at a time); check and mark at once, so concurrent proposals
        cannot both be asked. False: it waits its turn."""
        if not session:
            return False
        with self._lock:
            if self._asking.get((client, session)):
                return False
            self._asking[(client, session)] = {job_id: 0}
            _trim(self._asking, ANSWERS_KEPT)
            return True

    def forget_asked(self, client: str, session: str | None, job_id: str) -> None:
        """A question marked but never asked (its proposal was not queued after all)."""
        with self._lock:
            waiting = self._asking.get((client, str(session)))
            if waiting is not None:
                waiting.pop(job_id, None)
                if not waiting:
                    del self._asking[(client, str(session))]

    def asker(self, client: str, session: str | None, let_pass: int = 0) -> Callable[[str], None]:
        """`asked` for this chat, as the functions that put questions to the user take it."""
        return lambda job_id: self.asked(client, session, job_id, let_pass)

    def asking(self, client: str, session: str | None) -> bool:
        """A question of this chat still waits for the user's reply (no other is asked now)."""
        with self._lock:
            return bool(session) and bool(self._asking.get((client, str(session))))

    def reply_to(self, client: str, session: str | None) -> list[str]:
        """The user's prompt has come: the questions it may answer. Their wait ends with it,
        answered or not (a later reply is never read as an answer to them)."""
        if not session:
            return []
        with self._lock:
            self._spoke.pop((client, session), None)
            self._spoke[(client, session)] = True
            _trim(self._spoke, ANSWERS_KEPT)
            waiting = self._asking.pop((client, session), None)
            if not waiting:
                return []
            later = {job_id: left - 1 for job_id, left in waiting.items() if left > 0}
            if later:
                self._asking[(client, session)] = later
            return [job_id for job_id, left in waiting.items() if left == 0]

    def last_said(self, client: str, session: str | None) -> str | None:
        """The user's last prompt in this session (kept, redacted, while the session is recent)."""
        if not session:
            return None
        with self._lock:
            said = self._said.get((client, session))
            return said[-1] if said else None

    def previous_answer(self, client: str, session: Any) -> str | None:
        return self._answers.get((client, str(session))) if session else None

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
