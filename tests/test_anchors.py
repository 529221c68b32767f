"""Anchors and stale memories against real git repositories in temporary folders: the names a memory
gives are noted on every write, looked up in its repository (a path, a tracked identifier, a host in
the configuration), and a memory whose names are all gone turns stale with its reason, and fresh
again when they come back; never a memory without names, never a global one, never past the time
bound."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from gitrepo import commit, git, make_repo
from memevo.core import config
from memevo.core.clock import FakeClock
from memevo.core.memories import history as memory_history
from memevo.core.memories import live as memories
from memevo.core.memories import maintenance, purge
from memevo.core.memories import trash as memory_trash
from memevo.core.repos import anchors, safegit, staleness
from memevo.core.repos import identity as repos
from memevo.core.repos.anchors import Anchor
from memevo.core.store.database import Store

FLAG_FACT = "支付页新流程的灰度开关是 pay_new_flow_v2"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "shop",
        {
            "src/pay/flags.py": "pay_new_flow_v2 = True\n",
            "deploy/config.yaml": "api: https://api.pay.internal/v1\n",
            "README.md": "a shop\n",
        },
    )


def stale_of(store: Store, memory_id: str) -> str | None:
    return memories.get(store, memory_id).stale


# -- extraction ----------------------------------------------------------------------------------
def test_extraction_picks_names_and_leaves_words() -> None:
    got = anchors.extract(
        "payments live in src/pay/ (see core/store/database.py), flag --dry-run, recallChars and config.load; "
        "host https://api.pay.example.com/v1 and db.internal:5432; store.py; 1/2 at 10:30 in ~/x /usr/bin"
    )
    assert got == [
        Anchor("path", "src/pay"),
        Anchor("path", "core/store/database.py"),
        Anchor("flag", "--dry-run"),
        Anchor("ident", "recallChars"),
        Anchor("ident", "config.load"),
        Anchor("host", "api.pay.example.com"),
        Anchor("host", "db.internal"),
        Anchor("file", "store.py"),
    ]
    assert anchors.extract("回答问题时请一律使用中文") == []
    assert anchors.extract("Always answer in English, keep it short") == []
    assert anchors.extract(FLAG_FACT) == [Anchor("ident", "pay_new_flow_v2")]


def test_extraction_is_linear_and_bounded_on_hostile_text() -> None:
    """Long runs of name characters, separators and near-misses: one pass, bounded output."""
    hostile = [
        "a" * 1_000_000 + "_" + "-" * 200_000 + "/" * 200_000,
        " x_y_z" * 300_000,
        "a." * 500_000 + "com",
        "http://" + "a" * 500_000,
        "../" * 300_000,
    ]
    for text in hostile:
        started = time.perf_counter()
        found = anchors.extract(text)
        assert time.perf_counter() - started < 0.5
        assert len(found) <= anchors.MAX_ANCHORS


# -- noting on write ---------------------------------------------------------------------------------
def test_every_write_notes_the_names(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    noted = staleness.state(store, [memory.id])[memory.id]
    assert [n["value"] for n in noted["anchors"]] == ["pay_new_flow_v2"]
    assert noted["checked_ms"] is None  # looked up later, never in the write
    memories.replace_text(store, memory.id, "payments live in src/pay/ now", clock)
    assert [n["value"] for n in staleness.state(store, [memory.id])[memory.id]["anchors"]] == ["src/pay"]
    memory_history.restore_version(store, memory.id, 1, clock)
    assert [n["value"] for n in staleness.state(store, [memory.id])[memory.id]["anchors"]] == [
        "pay_new_flow_v2"
    ]


# -- stale and back ----------------------------------------------------------------------------------
def test_a_removed_identifier_turns_stale_and_back(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    report = staleness.check_repo(store, str(repo), clock)
    assert report.checked == 1 and not report.stale
    noted = staleness.state(store, [memory.id])[memory.id]
    assert noted["anchors"][0] | {} == {
        "kind": "ident",
        "value": "pay_new_flow_v2",
        "seen": True,
        "found": True,
    }
    assert noted["checked_ms"] == clock.now_ms()

    (repo / "src/pay/flags.py").write_text("checkout_v3 = True\n")
    commit(repo, "the flag is gone")
    clock.advance(days=1)
    report = staleness.check_repo(store, str(repo), clock)
    assert report.stale == [memory.id]
    reason = stale_of(store, memory.id)
    assert reason == f"pay_new_flow_v2 not found in shop since {clock.local_day(clock.now_ms())}"
    assert memories.get(store, memory.id).as_json()["stale"] == reason

    # still gone a day later: still stale, still since the first day
    clock.advance(days=1)
    assert not staleness.check_repo(store, str(repo), clock).changed
    assert stale_of(store, memory.id) == reason

    (repo / "src/pay/flags.py").write_text("pay_new_flow_v2 = False\n")
    commit(repo, "the flag is back")
    report = staleness.check_repo(store, str(repo), clock)
    assert report.fresh == [memory.id]
    assert stale_of(store, memory.id) is None


def test_untracked_text_does_not_count(store: Store, clock: FakeClock, repo: Path) -> None:
    """`git grep` looks at tracked files: a scratch file holding the name keeps nothing alive."""
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    git(repo, "rm", "-q", "src/pay/flags.py")
    commit(repo)
    (repo / "scratch.txt").write_text("pay_new_flow_v2\n")  # never added
    staleness.check_repo(store, str(repo), clock)
    assert stale_of(store, memory.id) is not None


def test_a_renamed_folder_turns_stale_and_back(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", "支付相关代码都在 src/pay/ 目录下", clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    assert stale_of(store, memory.id) is None
    git(repo, "mv", "src/pay", "src/payments")
    commit(repo, "renamed")
    staleness.check_repo(store, str(repo), clock)
    assert stale_of(store, memory.id) == f"src/pay not found in shop since {clock.local_day(clock.now_ms())}"
    git(repo, "mv", "src/payments", "src/pay")
    commit(repo, "renamed back")
    staleness.check_repo(store, str(repo), clock)
    assert stale_of(store, memory.id) is None


def test_a_host_is_looked_for_in_the_configuration(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", "测试环境的接口地址是 api.pay.internal", clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    (repo / "deploy/config.yaml").write_text("api: https://api.shop.internal/v1\n")
    (repo / "README.md").write_text("we used to call api.pay.internal\n")  # prose is no configuration
    commit(repo)
    staleness.check_repo(store, str(repo), clock)
    assert "api.pay.internal not found" in (stale_of(store, memory.id) or "")


def test_one_name_gone_makes_a_memory_stale_and_says_which(
    store: Store, clock: FakeClock, repo: Path
) -> None:
    """The flag renamed while its file stays: what the memory says is no longer so."""
    memory = memories.create(
        store, "project", "pay_new_flow_v2 is read in src/pay/flags.py", clock, str(repo)
    )
    staleness.check_repo(store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("other = 1\n")
    commit(repo)
    staleness.check_repo(store, str(repo), clock)
    reason = stale_of(store, memory.id)
    assert reason is not None and reason.startswith("pay_new_flow_v2 not found in")
    assert "flags.py" not in reason  # the file is still there: not named


def test_no_names_never_stale_and_names_never_seen_prove_nothing(
    store: Store, clock: FakeClock, repo: Path
) -> None:
    plain = memories.create(store, "project", "这个项目的发布要先通知测试同学", clock, str(repo))
    planned = memories.create(store, "project", "下个版本会加一个开关 future_switch_v9", clock, str(repo))
    for _ in range(2):
        staleness.check_repo(store, str(repo), clock)
        clock.advance(days=1)
    assert stale_of(store, plain.id) is None
    assert stale_of(store, planned.id) is None  # never found, so never "gone"
    assert staleness.state(store, [plain.id])[plain.id]["anchors"] == []


def test_a_global_rule_stays_fresh(store: Store, clock: FakeClock, repo: Path) -> None:
    """A rule that names an identifier, global: no repository is asked, whatever it lacks."""
    rule = memories.create(store, "rule", "提交前运行 check_all_things 脚本", clock)
    scoped = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("x = 1\n")
    commit(repo)
    report = staleness.check_all(store, clock)
    assert report.stale == [scoped.id]
    assert stale_of(store, rule.id) is None
    assert staleness.repos(store) == [str(repo)]


def test_a_vanished_checkout_marks_nothing(
    store: Store, clock: FakeClock, repo: Path, tmp_path: Path
) -> None:
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    repo.rename(tmp_path / "elsewhere")
    assert staleness.check_repo(store, str(repo), clock).checked == 0
    assert stale_of(store, memory.id) is None


def test_an_edit_keeps_what_was_known_of_a_name(store: Store, clock: FakeClock, repo: Path) -> None:
    """Rewording a stale memory without fixing its name leaves it stale; fixing it clears it."""
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("pay_flow_v3 = True\n")
    commit(repo)
    staleness.check_repo(store, str(repo), clock)
    reason = stale_of(store, memory.id)
    memories.replace_text(store, memory.id, "支付页新流程的开关仍是 pay_new_flow_v2 吗", clock)
    assert stale_of(store, memory.id) == reason
    memories.replace_text(store, memory.id, "支付页新流程的灰度开关是 pay_flow_v3", clock)
    assert stale_of(store, memory.id) is None
    staleness.check_repo(store, str(repo), clock)
    assert stale_of(store, memory.id) is None


def test_a_huge_repository_stays_within_the_time_bound(
    store: Store, clock: FakeClock, tmp_path: Path
) -> None:
    """A name missing from a large repository makes git read all of it: the check stops at its
    bound, and what it could not look up is unknown, never gone."""
    big = tmp_path / "big"
    big.mkdir()
    git(big, "init", "-q")
    line = "def some_function_name(argument_one, argument_two): return argument_one + argument_two\n"
    chunk = line * 4000  # ~360 KB a file
    for i in range(300):  # ~100 MB tracked
        (big / f"m{i:03d}.py").write_text(chunk)
    git(big, "add", "-A")
    git(big, "commit", "-q", "-m", "big")
    ids = [
        memories.create(
            store, "project", f"the switch is missing_name_{i}_v2, read at start", clock, str(big)
        ).id
        for i in range(20)
    ]
    # every name was once seen: only a look-up that answers "gone" could make them stale
    with store.transaction() as con:
        for memory_id in ids:
            row = con.execute("SELECT anchors FROM anchors WHERE memory_id = ?", [memory_id]).fetchall()[0]
            names = [n | {"seen": True, "found": True} for n in json.loads(row[0])]
            con.execute("UPDATE anchors SET anchors = ? WHERE memory_id = ?", [json.dumps(names), memory_id])
    bound = 0.3
    started = time.monotonic()
    report = staleness.check_repo(store, str(big), clock, budget_s=bound)
    elapsed = time.monotonic() - started
    assert elapsed < bound + 1.0, elapsed  # the bound, plus the store's read and write
    assert report.timed_out == [str(big)]
    # the names not looked up in time are unknown, never gone: those memories stay fresh
    assert any(stale_of(store, i) is None for i in ids)


# -- what stale changes ------------------------------------------------------------------------------
def test_stale_is_idle_for_confidence(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    staleness.check_repo(store, str(repo), clock)
    (repo / "src/pay/flags.py").write_text("x = 1\n")
    commit(repo)
    staleness.check_repo(store, str(repo), clock)
    clock.advance(days=1)
    assert memories.award_recall(store, [memory.id], clock) == {}  # shown, yet not rewarded
    assert memories.get(store, memory.id).last_seen_ms == memory.last_seen_ms


def test_purge_and_trash_expiry_remove_the_names(store: Store, clock: FakeClock, repo: Path) -> None:
    memory = memories.create(store, "project", FLAG_FACT, clock, str(repo))
    other = memories.create(store, "project", "the switch pay_new_flow_v2 is read at start", clock, str(repo))
    purge.purge(store, memory.id)
    assert staleness.state(store, [memory.id]) == {}
    memories.delete(store, [other.id], clock)
    clock.advance(days=memory_trash.TRASH_KEEP_DAYS + 1)
    maintenance.run(store, clock, config.load())
    assert staleness.state(store, [other.id]) == {}


def test_trash_listing_still_reads_its_columns(store: Store, clock: FakeClock) -> None:
    memory = memories.create(store, "rule", "回答问题时请一律使用中文", clock)
    memories.delete(store, [memory.id], clock, "deleted")
    [trashed] = memories.trash_list(store)
    assert trashed.reason == "deleted" and trashed.memory.stale is None


def test_the_listing_finds_the_stale_ones_with_every_other_filter(
    store: Store, clock: FakeClock, tmp_path: Path
) -> None:
    """The panel's "Stale only" is one query like any other filter: its total, its pages in the
    listing's order (keyset, no row twice), and the group, scope, deprecated and text filters with it."""
    from memevo.core.memories.listing import Listing, listed_among, listed_count, listed_page

    flags = [f"pay_flow_{c}_v2" for c in "abcde"]
    shop = make_repo(tmp_path / "shop", {"flags.py": "".join(f"{f} = 1\n" for f in [*flags, "kept_v2"])})
    made = []
    for i, flag in enumerate(flags):
        clock.advance(minutes=1)  # each later seen than the one before: the order is certain
        made.append(
            memories.create(store, "rule" if i == 0 else "project", f"{flag} is read", clock, str(shop))
        )
    fresh = memories.create(store, "project", "kept_v2 is read", clock, str(shop))
    memories.create(store, "rule", "回答问题时请一律使用中文", clock)
    staleness.check_repo(store, str(shop), clock)
    (shop / "flags.py").write_text("kept_v2 = 1\n")
    commit(shop, "the flags are gone")
    assert sorted(staleness.check_repo(store, str(shop), clock).stale) == sorted(m.id for m in made)
    with store.transaction() as con:
        con.execute("UPDATE memories SET deprecated = TRUE WHERE id = ?", [made[4].id])  # still stale
        con.execute("UPDATE memories SET confidence = 80 WHERE id = ?", [made[2].id])  # first: surer

    stale = Listing(stale_only=True)
    everything = [m.id for m in listed_page(store, Listing(), 100)]
    expected = [i for i in everything if i in {m.id for m in made}]  # the listing's own order
    assert expected == [made[i].id for i in (2, 4, 3, 1, 0)] and listed_count(store, stale) == 5
    pages: list[str] = []
    last = None
    while page := listed_page(store, stale, 2, last):
        assert all(m.stale for m in page)
        pages += [m.id for m in page]
        last = page[-1]
    assert pages == expected

    def ids(listing: Listing) -> list[str]:
        assert listed_count(store, listing) == len(listed_page(store, listing, 100))
        return [m.id for m in listed_page(store, listing, 100)]

    assert ids(Listing(stale_only=True, category="rule")) == [made[0].id]
    assert ids(Listing(stale_only=True, search="pay_flow_b")) == [made[1].id]
    assert ids(Listing(stale_only=True, search="kept_v2")) == []
    assert ids(Listing(stale_only=True, scope="global")) == []
    assert ids(Listing(stale_only=True, scope="repo")) == expected
    assert ids(Listing(stale_only=True, show_deprecated=False)) == [i for i in expected if i != made[4].id]
    assert [m.id for m in listed_among(store, stale, [fresh.id, made[3].id, made[1].id])] == [
        made[3].id,
        made[1].id,
    ]

    (shop / "flags.py").write_text("kept_v2 = 1\npay_flow_b_v2 = 1\n")
    commit(shop, "one flag is back")
    assert staleness.check_repo(store, str(shop), clock).fresh == [made[1].id]
    assert listed_count(store, stale) == 4 and made[1].id not in ids(stale)


# -- the service's checks: off the request -------------------------------------------------------------
def test_a_session_starts_check_never_waits_for_git(
    store: Store, clock: FakeClock, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`want` (what the session-start hook calls) only queues: a check that takes seconds runs on
    the checks' thread, and a second session start in the same repository soon after asks nothing."""
    from memevo.core.service import anchorwork

    memories.create(store, "project", FLAG_FACT, clock, str(repo))
    calls: list[str] = []
    real = staleness.check_repo

    def slow(store_: Store, repo_: str, clock_: FakeClock, budget_s: float = 5.0) -> staleness.Report:
        calls.append(repo_)
        time.sleep(1.0)
        return real(store_, repo_, clock_, budget_s)

    monkeypatch.setattr(staleness, "check_repo", slow)
    changed: list[bool] = []
    checks = anchorwork.AnchorChecks(lambda: store, clock, lambda: changed.append(True))
    try:
        started = time.perf_counter()
        checks.want(str(repo))
        checks.want(str(repo))  # within MIN_GAP_S: not asked again
        checks.want(None)  # no repository: nothing
        assert time.perf_counter() - started < 0.1
        assert checks.done.wait(10)
        assert calls == [str(repo)]
        assert checks.last is not None and checks.last.checked == 1 and not changed
    finally:
        checks.close()


# -- one repository, several folders: none decides alone -------------------------------------------
PAYMENTS = "git@github.com:acme/payments.git"


def claiming(root: Path, files: dict[str, str]) -> Path:
    """A folder whose config names the payments remote: a clone, or a download that claims it."""
    folder = make_repo(root, files)
    git(folder, "remote", "add", "origin", PAYMENTS)
    return folder


def seen_in(store: Store, ident: str, *folders: Path) -> None:
    """Sessions started in these folders, the last one latest (as the service remembers them)."""
    for folder in folders:
        with store.transaction() as con:
            repos.remember(con, ident, str(folder))
        time.sleep(0.002)  # each its own millisecond: the order is the order seen


def test_a_folder_claiming_the_remote_cannot_make_the_real_checkouts_facts_stale(
    store: Store, clock: FakeClock, tmp_path: Path
) -> None:
    """(F5) A downloaded folder whose .git/config claims the user's project's remote has the same
    identity, and a session there makes it the latest folder of that repository. A name it lacks
    is still in the real checkout: the fact stays fresh. Gone from both: stale, and fresh again
    once one folder has it back."""
    real = claiming(tmp_path / "payments", {"src/billing/charge.py": "def charge_card(): pass\n"})
    fake = claiming(tmp_path / "downloaded-sample", {"README.md": "hello\n"})
    ident = repos.identity(str(real))
    assert ident == repos.identity(str(fake)) == "github.com/acme/payments"
    fact = memories.create(
        store, "project", "扣款逻辑在 src/billing/charge.py 的 charge_card 里", clock, ident
    )
    seen_in(store, ident, real)
    assert staleness.check_repo(store, ident, clock).checked == 1
    assert all(n["seen"] for n in staleness.state(store, [fact.id])[fact.id]["anchors"])

    seen_in(store, ident, fake)  # the impostor is now the latest folder seen
    with store.reading() as con:
        assert repos.folders(con, ident) == [str(fake), str(real)]
    clock.advance(days=1)
    report = staleness.check_repo(store, ident, clock)
    assert report.checked == 1 and report.stale == [] and stale_of(store, fact.id) is None

    # gone from the real checkout too: now every folder lacks the names
    git(real, "rm", "-q", "src/billing/charge.py")
    commit(real, "billing moved out")
    assert staleness.check_repo(store, ident, clock).stale == [fact.id]
    assert stale_of(store, fact.id) == (
        f"src/billing/charge.py, charge_card not found in payments since {clock.local_day(clock.now_ms())}"
    )
    # any one folder having them back makes it fresh
    (fake / "src" / "billing").mkdir(parents=True)
    (fake / "src" / "billing" / "charge.py").write_text("def charge_card(): pass\n")
    commit(fake, "a copy")
    assert staleness.check_repo(store, ident, clock).fresh == [fact.id]


def test_a_folder_not_looked_into_leaves_names_unknown_never_gone(
    store: Store, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only every folder of the repository can say a name is gone: with one left out — past
    MAX_FOLDERS, or another user's — a name missing from the others is unknown, and nothing
    turns stale."""
    first = claiming(tmp_path / "one", {"src/billing/charge.py": "def charge_card(): pass\n"})
    second = claiming(tmp_path / "two", {"src/billing/charge.py": "def charge_card(): pass\n"})
    ident = repos.identity(str(first))
    fact = memories.create(store, "project", "扣款逻辑在 src/billing/charge.py 里", clock, ident)
    seen_in(store, ident, second, first)
    staleness.check_repo(store, ident, clock)
    for folder in (first, second):
        git(folder, "rm", "-q", "src/billing/charge.py")
        commit(folder)

    monkeypatch.setattr(staleness, "MAX_FOLDERS", 1)  # `second` is not looked into
    report = staleness.check_repo(store, ident, clock)
    assert report.checked == 1 and report.stale == [] and stale_of(store, fact.id) is None
    assert staleness.state(store, [fact.id])[fact.id]["anchors"][0]["found"] is True  # unknown: kept

    monkeypatch.setattr(staleness, "MAX_FOLDERS", 8)
    monkeypatch.setattr(safegit, "owned_by_user", lambda folder: Path(folder) != second)
    monkeypatch.setattr(anchors.safegit, "owned_by_user", lambda folder: Path(folder) != second)
    report = staleness.check_repo(store, ident, clock)
    assert report.stale == [] and report.not_owned == [ident] and stale_of(store, fact.id) is None

    monkeypatch.undo()
    assert staleness.check_repo(store, ident, clock).stale == [fact.id]  # both looked into: gone
