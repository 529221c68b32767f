"""memories.html is rendered off the writer's request, once for a run of changes, and always
ends as the store is (core/service/html_page_work.py)."""

from __future__ import annotations

import threading
import time

from memevo.core.service.html_page_work import PageWriter


class _Page:
    """A render that takes a while and records the state it began from."""

    def __init__(self, took_s: float = 0.05) -> None:
        self.took_s = took_s
        self.state = 0
        self.rendered: list[int] = []
        self.lock = threading.Lock()

    def render(self) -> None:
        with self.lock:
            seen = self.state
        time.sleep(self.took_s)
        self.rendered.append(seen)


def test_a_run_of_changes_is_rendered_once_the_writers_never_wait() -> None:
    page = _Page()
    writer = PageWriter(page.render, quiet_s=0.2, at_most_s=10)
    started = time.monotonic()
    for _ in range(50):
        page.state += 1
        writer.want()
    assert time.monotonic() - started < 0.05  # fifty writes did not wait for a render
    assert writer.flush(5)
    assert page.rendered == [50]  # one render, of the last state


def test_changes_that_go_on_are_rendered_at_least_every_at_most_s() -> None:
    page = _Page(took_s=0.01)
    writer = PageWriter(page.render, quiet_s=0.2, at_most_s=0.3)
    until = time.monotonic() + 1.0
    while time.monotonic() < until:  # never a 0.2 s pause
        page.state += 1
        writer.want()
        time.sleep(0.02)
    assert 2 <= len(page.rendered) <= 5, page.rendered
    writer.close()
    assert page.rendered[-1] == page.state  # the close renders what was left


def test_a_change_during_a_render_gets_a_render_of_its_own() -> None:
    page = _Page(took_s=0.3)
    writer = PageWriter(page.render, quiet_s=0.0, at_most_s=10)
    page.state = 1
    writer.want()
    time.sleep(0.1)  # the render of state 1 is under way
    page.state = 2  # e.g. a purge: the page must not end showing state 1
    writer.want()
    assert writer.flush(5)
    assert page.rendered == [1, 2]


def test_a_failed_render_is_logged_and_the_next_change_renders_again() -> None:
    calls: list[int] = []

    def render() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk full")

    writer = PageWriter(render, quiet_s=0.0, at_most_s=10)
    writer.want()
    assert writer.flush(5)  # the attempt was made; it failed and said so
    writer.want()
    assert writer.flush(5) and len(calls) == 2
    writer.close()
    writer.want()  # after the close: nothing more
    time.sleep(0.1)
    assert len(calls) == 2
