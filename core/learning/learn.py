"""The side path in the service: one background analysis per prompt, never blocking a hook.

judge -> (if worth remembering) compare with the 3 nearest live memories -> decide ->
a proposal that waits for the user (confirm on) or is applied at once (confirm off).
Failures (timeouts, HTTP errors, 429, garbage, the daily limit) write nothing; the reason
is kept on the job and logged.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from .. import config as config_mod
from .. import envvars
from ..errors import InvalidInput
from ..memories import cues, scopes
from ..memories import live as memories
from ..memories import text as memory_text
from ..privacy import side_api_key as secrets
from ..process import aioloop
from ..recall.textfilter import judge_input
from . import cue_writer, jobs, judge, resolve, sessionid

if TYPE_CHECKING:
    import httpx

    from ..clock import Clock
    from ..recall.engine import RecallEngine
    from ..store.database import Store

log = logging.getLogger("memevo.side")


class LearningUnavailable(Exception):
    """The background worker that runs the learning analyses could not be started."""


class LearningHost(Protocol):
    """What the learning worker needs from the service it runs in, and nothing more."""

    @property
    def store(self) -> Store: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def engine(self) -> RecallEngine | None: ...

    def after_learning(self, result: dict[str, Any]) -> None:
        """A proposal was applied: indexes and texts follow the changed memories."""

    def after_cues(self, ids: list[str]) -> None:
        """Recall cues were written for these memories: the recall indexes take them in."""


START_TIMEOUT_S = 10.0
CUE_BATCH = 16  # memories read per pass; cues are still written one call at a time


class LearningRunner:
    """Its own thread and event loop, so side jobs run the same under `serve` and the tray.

    The loop comes from `aioloop.new_private_loop()`, never from the installed policy: under
    the tray app that policy is qasync's, whose loops cannot run off the main thread (every
    analysis was silently dropped). Construction proves the loop runs by creating the HTTP
    client on it, and raises LearningUnavailable when it does not."""

    def __init__(self, host: LearningHost) -> None:
        self.host = host
        self.loop = aioloop.new_private_loop()
        self.thread = threading.Thread(target=self._run_loop, name="memevo-side", daemon=True)
        self.thread.start()
        self.futures: dict[str, Future[None]] = {}
        self.cue_error: str | None = None  # the last reason cues could not be written
        # Why the last analysis could not ask the side API (HTTP 401, unreachable, the daily
        # limit …), cleared by the next one that could: the job alone kept it, and a user
        # without the tray never saw why nothing was learned.
        self.side_error: str | None = None
        self._cue_lock = threading.Lock()
        self._cue_future: Future[None] | None = None
        self._cues_again = False
        first = _new_client()
        try:
            self.client: httpx.AsyncClient = asyncio.run_coroutine_threadsafe(first, self.loop).result(
                START_TIMEOUT_S
            )
        except Exception as exc:
            first.close()  # never started: the loop did not run
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(1)
            if not self.thread.is_alive():
                self.loop.close()
            raise LearningUnavailable(
                f"the learning worker did not start: {exc or type(exc).__name__}"
            ) from exc

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        except Exception:  # seen in the log; the next start() finds the loop dead and says so
            log.exception("the learning worker's event loop stopped")

    def start(
        self, ask: dict[str, Any], prompt: str, context: str | None = None, lesson: str | None = None
    ) -> str | None:
        """Create the job (exclusively) and schedule its analysis. Returns the sessionID.
        lesson: the assistant's last answer of a finished turn (the Stop hook's): the job asks
        what the turn taught, and its proposal always waits for the user."""
        store, clock = self.host.store, self.host.clock
        words = judge_input(prompt)
        if words is None:
            return None
        try:
            job_id = sessionid.session_id(
                ask["client"],
                ask.get("session") or "",
                f"lesson:{ask.get('prompt_id') or ''}" if lesson is not None else ask.get("prompt_id"),
                prompt if lesson is None else f"{prompt}\x1f{lesson}",
            )
        except ValueError as exc:
            log.warning("%s: no side analysis: %s", ask["client"], exc)  # fail closed
            return None
        if not self.thread.is_alive() or self.loop.is_closed():
            raise LearningUnavailable("the learning worker has stopped; restart memevo")
        repo = scopes.repo_of(ask.get("cwd"))
        if not jobs.create(
            store, job_id, ask["client"], ask["session"], ask.get("prompt_id"), words, clock.now_ms(), repo
        ):
            return job_id  # a retried hook: the analysis already started once
        self.futures[job_id] = asyncio.run_coroutine_threadsafe(
            self.analyse(job_id, words, context, repo, lesson), self.loop
        )
        return job_id

    async def analyse(
        self, job_id: str, words: str, context: str | None, repo: str | None = None, lesson: str | None = None
    ) -> None:
        store, clock = self.host.store, self.host.clock
        try:
            config = config_mod.load()
            endpoint = configured_endpoint(config)
            repo_name = scopes.name(repo) if repo else None
            asked = (
                judge.judge(self.client, endpoint, words, context, repo_name)
                if lesson is None
                else judge.lesson(self.client, endpoint, words, lesson, repo_name)
            )
            verdict = await self._call(config, asked)
            self.side_error = None
            if not verdict.remember:
                jobs.update(store, job_id, clock.now_ms(), status="nothing")
                return
            verdict = judge.Verdict(
                verdict.remember, memory_text.remove_unsafe(verdict.text), verdict.category, verdict.scope
            )
            memories.check_text(verdict.text)
            nearest = self._nearest(verdict.text)
            decision = judge.Decision("create", None, None)
            if nearest:
                decision = await self._call(
                    config, judge.decide(self.client, endpoint, verdict.text, nearest)
                )
            proposal = _proposal(verdict, decision, dict(nearest))
            if repo and verdict.category == "project" and verdict.scope != "global":
                proposal["scope"] = repo  # a fact of this repository: recalled only here
            # a lesson is the work's, not the user's words: the user always says yes first
            if config["confirm"] or lesson is not None or _rewrites_pinned(store, proposal):
                jobs.update(store, job_id, clock.now_ms(), status="ready", proposal=proposal)
                return
            job = jobs.get(store, job_id)
            origin = resolve.origin_of(job) if job else None
            result = resolve.apply(store, clock, proposal, resolve.default_decision(proposal), origin=origin)
            jobs.update(store, job_id, clock.now_ms(), status="applied", proposal=proposal, result=result)
            self.host.after_learning(result)
        except (
            InvalidInput
        ) as exc:  # the decision itself was refused (text out of range): shown, not only logged
            jobs.update(store, job_id, clock.now_ms(), status="refused", error=str(exc))
            log.warning("side job %s refused: %s", job_id[:8], exc)
        except judge.JudgeError as exc:
            jobs.update(store, job_id, clock.now_ms(), status="failed", error=str(exc))
            self.side_error = str(exc)
            log.warning("side job %s: %s", job_id[:8], exc)
        except Exception as exc:
            jobs.update(store, job_id, clock.now_ms(), status="failed", error=f"internal: {exc}")
            log.exception("side job %s failed", job_id[:8])

    async def _call(self, config: config_mod.Config, call: Any) -> Any:
        day = self.host.clock.local_day(self.host.clock.now_ms())
        if not jobs.count_call(self.host.store, day, int(config["sideDailyLimit"])):
            call.close()
            raise judge.JudgeError(f"the daily limit of {config['sideDailyLimit']} side API calls is reached")
        return await call

    def _nearest(self, text: str) -> list[tuple[str, str]]:
        engine = self.host.engine
        if engine is None:
            return []
        return [(memory_id, engine.index.text(memory_id) or "") for memory_id, _ in engine.nearest(text, 3)]

    # -- recall cues (core/memories/cues.py) -----------------------------------------------------------------
    def want_cues(self) -> None:
        """Memories may lack cues (new, changed, or from before cues): write them in the
        background, one side call at a time; a pass already running looks again after."""
        with self._cue_lock:
            self._cues_again = True
            if self._cue_future is None or self._cue_future.done():
                self._cue_future = asyncio.run_coroutine_threadsafe(self._write_cues(), self.loop)

    def wait_cues(self, timeout_s: float) -> None:
        future = self._cue_future
        if future is not None:
            future.result(timeout_s)

    async def _write_cues(self) -> None:
        try:
            while True:
                with self._cue_lock:
                    if not self._cues_again:
                        self._cue_future = None  # a want_cues from now on starts a new pass
                        return
                    self._cues_again = False
                if not await self._cue_pass():
                    with self._cue_lock:
                        self._cue_future = None  # waits for the next change or start
                    return
        except Exception as exc:
            self.cue_error = f"internal: {exc}"
            log.exception("recall cues failed")

    async def _cue_pass(self) -> bool:
        """Write cues until none are missing; False when they must wait (off, paused, not configured,
        the side API failing, or half of today's calls used: learning keeps the other half)."""
        store, clock = self.host.store, self.host.clock
        while True:
            config = config_mod.load()
            if not config["recallCues"] or not config["enabled"]:  # off, or memevo paused
                self.cue_error = None
                return False
            todo = cues.wanted(store, CUE_BATCH)
            if not todo:
                return True
            for memory_id, category, text in todo:
                day = clock.local_day(clock.now_ms())
                if jobs.calls_today(store, day) >= int(config["sideDailyLimit"]) // 2:
                    self.cue_error = "half of today's side API calls are used; the rest wait for tomorrow"
                    log.info("recall cues: %s", self.cue_error)
                    return False
                try:
                    endpoint = configured_endpoint(config)
                    written = await self._call(
                        config, cue_writer.write(self.client, endpoint, text, category)
                    )
                except judge.JudgeError as exc:  # the endpoint is failing: the next change or start retries
                    log.warning("recall cues for %s: %s", memory_id[:8], exc)
                    self.cue_error = str(exc)
                    return False
                self.cue_error = None
                if cues.save(store, memory_id, text, written, clock.now_ms()):
                    self.host.after_cues([memory_id])

    def wait(self, job_id: str, timeout_s: float) -> None:
        future = self.futures.get(job_id)
        if future is not None:
            future.result(timeout_s)

    def close(self) -> None:
        if self.thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.client.aclose(), self.loop).result(5)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


async def _new_client() -> httpx.AsyncClient:
    """Made on the worker's own loop: proof that the loop runs, and the client's home. httpx (memory
    and start time: `service_rss_mb`, `service_ready_s`) is imported here: the service imports this
    module at start for the names it catches, and only a configured side API starts the worker."""
    import httpx

    return httpx.AsyncClient()


def configured_endpoint(config: config_mod.Config) -> judge.Endpoint:
    """The side API as configured (the key from the keyring); JudgeError when it is not."""
    key = secrets.get_api_key()
    if not (config["sideApiBase"] and config["sideApiModel"] and key):
        raise judge.JudgeError("learning is not configured (sideApiBase, sideApiModel and the API key)")
    timeout = float(envvars.SIDE_TIMEOUT_S.get() or 30)
    return judge.Endpoint(str(config["sideApiBase"]), str(config["sideApiModel"]), key, timeout)


def _proposal(verdict: judge.Verdict, decision: judge.Decision, nearest: dict[str, str]) -> dict[str, Any]:
    proposal: dict[str, Any] = {"text": verdict.text, "category": verdict.category, "action": decision.action}
    if decision.action != "create" and decision.target:
        proposal["target"] = decision.target
        proposal["target_text"] = nearest.get(decision.target, "")
        if decision.action == "merge":
            proposal["merged_text"] = memories.check_text(memory_text.remove_unsafe(decision.text or ""))
        if decision.action == "replace":
            proposal["replace_text"] = memories.check_text(memory_text.remove_unsafe(decision.text or ""))
    proposal["options"] = resolve.options(proposal)
    return proposal


def _rewrites_pinned(store: Store, proposal: dict[str, Any]) -> bool:
    """A merge or replace of a memory the user pinned: its text changes only when the user
    says so, so it waits for them even with confirmation off (the side judge reads only the
    user's words, but may misread them)."""
    target = proposal.get("target")
    if proposal.get("action") not in ("merge", "replace") or not isinstance(target, str):
        return False
    found = memories.find(store, [target])
    return target in found and found[target].pinned
