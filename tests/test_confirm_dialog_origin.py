"""Where a proposal came from reaches the dialog: the project folder is kept on the job when
the job is made (the side judge's, from the prompt hook's cwd; the client model's, from the MCP
server's cwd), and a store from before it was kept migrates with jobs that show no project.
In-process service (no model), real store, real HTTP for the side judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from fake_openai import FakeOpenAI
from memevo.core import config as config_mod
from memevo.core.clock import FakeClock
from memevo.core.learning import jobs
from memevo.core.service.host import ServiceHost
from memevo.core.store.database import Store
from memevo.core.store.migrations import MIGRATIONS, latest_version
from memevo.desktop.confirm import ConfirmDialog


def _project(tmp_path: Path) -> Path:
    repo = tmp_path / "work" / "payments"
    (repo / ".git").mkdir(parents=True)
    (repo / "web").mkdir()
    return repo


def _shown(qtbot: Any, job: jobs.Job) -> ConfirmDialog:
    dialog = ConfirmDialog(job)
    qtbot.addWidget(dialog)
    return dialog


def test_the_side_judges_job_keeps_the_repository_it_was_said_in(
    qtbot: Any, host: ServiceHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _project(tmp_path)
    monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-test-local-only-0000000000")
    server = FakeOpenAI([("json", {"remember": True, "text": "提交信息一律用英文写", "category": "rule"})])
    try:
        config_mod.set_key("sideApiBase", server.base)
        config_mod.set_key("sideApiModel", "judge-mini")
        config_mod.set_key("confirm", True)
        ask = {"client": "claude", "flavor": "claude", "session": "sess-1", "prompt_id": "p-1"}
        job_id = host.ctx.learner.learn(ask | {"cwd": str(repo / "web")}, "以后提交信息都用英文写")
        assert job_id is not None
        host.ctx.learner.runner.wait(job_id, 30)
    finally:
        server.close()
    job = jobs.get(host.store, job_id)
    assert job is not None and job.status == "ready" and job.repo == str(repo)
    dialog = _shown(qtbot, job)
    assert dialog.project_label.text() == "payments" and dialog.project_label.toolTip() == str(repo)
    assert dialog.client_label.text() == "Claude Code" and dialog.session_label.text() == "sess-1"
    assert dialog.words_label.text() == "以后提交信息都用英文写"


def test_the_client_models_proposal_keeps_the_repository_of_its_mcp_server(
    qtbot: Any, host: ServiceHost, tmp_path: Path
) -> None:
    repo = _project(tmp_path)
    config_mod.set_key("learning", "client")
    host.ctx.desktop = True
    reply = host.handle(
        "propose",
        {
            "client": "cursor",
            "instance": "test-1",
            "cwd": str(repo / "web"),
            "text": "支付页新流程的灰度开关是 pay_new_flow_v2",
            "category": "project",
            "words": "记一下：灰度开关是 pay_new_flow_v2",
            "action": "create",
        },
    )
    assert reply["status"] == "pending"
    job = jobs.get(host.store, reply["sessionID"])
    assert job is not None and job.repo == str(repo)
    dialog = _shown(qtbot, job)
    assert dialog.project_label.text() == "payments" and dialog.client_label.text() == "Cursor"
    assert dialog.session_label.text() == "mcp-test-1"


def test_a_store_from_before_keeps_its_jobs_which_show_no_project(
    qtbot: Any, data_dir: Path, clock: FakeClock
) -> None:
    path = data_dir / "memevo.duckdb"
    data_dir.mkdir(parents=True, exist_ok=True)
    old = duckdb.connect(str(path))  # the schema as release 11 left it, with a pending job
    old.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, applied_ms BIGINT)"
    )
    for migration in MIGRATIONS[:11]:
        for statement in migration.statements:
            old.execute(statement)
        old.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", [migration.version, migration.name])
    old.execute(
        "INSERT INTO side_jobs (id, client, session, created_ms, updated_ms, status, words, proposal) "
        "VALUES ('old', 'claude', 's', ?, ?, 'ready', '以后都用中文', ?)",
        [
            clock.now_ms(),
            clock.now_ms(),
            '{"text": "回答一律使用中文", "category": "rule", "action": "create"}',
        ],
    )
    old.close()
    with Store.open(path) as store:
        assert store.schema_version() == latest_version()
        job = jobs.get(store, "old")
        assert job is not None and job.repo is None and job.words == "以后都用中文"
        dialog = _shown(qtbot, job)
        assert dialog.project_label.text() == "全局"  # the tests' UI is Chinese (conftest)
        assert dialog.project_label.toolTip() == "这条提议没有附带项目文件夹。"
        jobs.create(store, "new", "claude", "s2", None, "w", clock.now_ms(), "/x/y")
        assert jobs.get(store, "new").repo == "/x/y"  # type: ignore[union-attr]
