"""Commands as anchors: `npm run X` (pnpm, yarn, bun) names a script of the repository's
package.json, `make X` a target of its Makefile, `./scripts/x.sh` a path; in a real git repository a
fact naming them turns stale when they are gone and fresh when they are back; reading is linear and
bounded."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.repos import anchors, staleness
from memevo.core.repos.anchors import Anchor
from memevo.core.store.database import Store
from test_anchors import commit, make_repo

RELEASE = "发布流程：先 npm run build:prod，再 make deploy-staging，最后 ./scripts/release.sh"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            RELEASE,
            [
                Anchor("script", "build:prod"),
                Anchor("target", "deploy-staging"),
                Anchor("path", "scripts/release.sh"),
            ],
        ),
        (
            "run `pnpm run lint` and `yarn run test:unit`",
            [Anchor("script", "lint"), Anchor("script", "test:unit")],
        ),
        ("用make deploy部署", [Anchor("target", "deploy")]),
        ("bash scripts/deploy.sh does it", [Anchor("path", "scripts/deploy.sh")]),
        ("make sure the tests pass; npm install first", []),  # prose, and npm without run
        ("run the build", []),
    ],
)
def test_commands_give_their_script_or_target(text: str, expected: list[Anchor]) -> None:
    assert anchors.extract(text) == expected


def test_makefile_targets_and_package_scripts() -> None:
    makefile = (
        "X := 1\nY ::= 2\nZ = 3\nall: build\n\tgo build -o x: y\nbuild test: all\n.PHONY: all\nz::\n# c: d\n"
    )
    assert anchors.make_targets(makefile) == {"all", "build", "test", "z"}
    assert anchors.make_targets(None) is None
    assert anchors.package_scripts('{"scripts": {"build:prod": "vite build"}}') == {"build:prod"}
    assert anchors.package_scripts('{"name": "x"}') == set()
    assert anchors.package_scripts("{not json") is None  # unknown, never gone


def test_a_release_fact_turns_stale_when_its_commands_are_gone_and_back(
    store: Store, clock: FakeClock, tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "shop",
        {
            "package.json": json.dumps({"scripts": {"build:prod": "vite build"}}),
            "Makefile": "deploy-staging:\n\t./scripts/release.sh staging\n",
            "scripts/release.sh": "#!/bin/sh\n",
        },
    )
    fact = memories.create(store, "project", RELEASE, clock, str(repo))
    assert staleness.check_repo(store, str(repo), clock).stale == []
    names = staleness.state(store, [fact.id])[fact.id]["anchors"]
    assert [(n["kind"], n["found"]) for n in names] == [("script", True), ("target", True), ("path", True)]

    (repo / "package.json").write_text(json.dumps({"scripts": {"build": "vite build"}}))
    (repo / "Makefile").write_text("deploy:\n\t./scripts/ship.sh\n")
    (repo / "scripts/release.sh").rename(repo / "scripts/ship.sh")
    commit(repo, "the release moved")
    clock.advance(days=1)
    assert staleness.check_repo(store, str(repo), clock).stale == [fact.id]
    day = clock.local_day(clock.now_ms())
    assert (
        memories.get(store, fact.id).stale == f"build:prod, deploy-staging (+1) not found in shop since {day}"
    )

    (repo / "Makefile").write_text("deploy-staging: deploy\ndeploy:\n\t./scripts/ship.sh\n")  # one is back
    commit(repo, "the old target again")
    assert staleness.check_repo(store, str(repo), clock).fresh == []  # the others are still gone
    (repo / "package.json").write_text(json.dumps({"scripts": {"build:prod": "vite build"}}))
    (repo / "scripts/ship.sh").rename(repo / "scripts/release.sh")
    commit(repo, "the release as it was")
    assert staleness.check_repo(store, str(repo), clock).fresh == [fact.id]


def test_one_of_them_gone_is_stale_and_named(store: Store, clock: FakeClock, tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "shop",
        {"package.json": json.dumps({"scripts": {"build:prod": "x"}}), "Makefile": "deploy-staging:\n"},
    )
    fact = memories.create(
        store, "project", "上线：npm run build:prod 然后 make deploy-staging", clock, str(repo)
    )
    staleness.check_repo(store, str(repo), clock)
    (repo / "Makefile").write_text("other:\n")
    commit(repo, "target renamed")
    assert staleness.check_repo(store, str(repo), clock).stale == [fact.id]
    reason = memories.get(store, fact.id).stale
    assert reason is not None and reason.startswith("deploy-staging not found") and "build:prod" not in reason


def test_reading_commands_is_linear_and_bounded(tmp_path: Path) -> None:
    started = time.monotonic()
    anchors.extract("npm run " * 100_000)
    anchors.extract("make " * 100_000)
    big = tmp_path / "big"
    big.mkdir()
    (big / "Makefile").write_text("t: x\n" * 2_000_000)  # 10 MB: read to MAX_FILE_BYTES only
    (big / "package.json").write_text('{"scripts": {' + '"a": "b",' * 500_000 + '"z": "y"}}')
    prober = anchors.Prober(str(big), time.monotonic() + 5)
    assert prober.found(Anchor("target", "t")) is True
    assert prober.found(Anchor("script", "z")) is None  # cut at MAX_FILE_BYTES: unreadable, unknown
    assert time.monotonic() - started < 5
