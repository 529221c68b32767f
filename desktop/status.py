"""The panel's Status tab: counts, a confidence histogram, the last daily maintenance, who
learns now (the learning mode in effect), the side API calls and the client models' proposals
today against their caps, recent errors (a refused shared facts file among them, with its remedy), the model and thresholds in use, hook latency as
the service itself timed it, and the repositories memevo is off in (off_repos.py)."""

from __future__ import annotations

import html
from typing import Any

from ..core import config as config_mod
from ..core.encoder.models import entry_for
from ..core.learning import jobs, readiness
from ..core.memories import live as memories
from ..core.memories import maintenance
from ..core.recall.gate import GateSettings
from ..core.sharing import trust as sharetrust
from ..installer import client_state
from .client_texts import client_label, part_lines, title
from .clients_menu import event_label
from .i18n import plural, tr
from .learning_texts import effective
from .qt import QLabel, QPushButton, Qt, QVBoxLayout, QWidget
from .worker import OffUi


def status_report(host: Any) -> dict[str, Any]:
    store, clock = host.store, host.clock
    config = config_mod.load()
    # The model in use is the loaded one: a model chosen in Settings applies after a restart.
    model = host.engine.encoder.model_id if host.engine is not None else str(config["model"])
    gate = GateSettings.from_config(config.values, entry_for(model))
    today = clock.local_day(clock.now_ms())
    return {
        "counts": host.handle("counts", {})["counts"],
        "histogram": {f"{b / 10:.1f}": n for b, n in memories.confidence_histogram(store)},
        "last_maintenance": store.get_state(maintenance.STATE_KEY),
        # the keyring may be slow or prompt: asked here, on the worker (the service caches it)
        "learning": readiness.state(config, host.ctx.keys.has()),
        "side_calls_today": jobs.calls_today(store, today),
        "side_api_named": bool(config["sideApiBase"] and config["sideApiModel"]),
        "side_daily_limit": config["sideDailyLimit"],
        "proposals_today": jobs.proposals_today(store, today),
        "proposals_per_day": config["proposalsPerDay"],
        "proposals_per_session": config["proposalsPerSession"],
        "recent_errors": jobs.recent_errors(store, 5),
        "model": model,
        "model_ready": host.engine is not None,
        "thresholds": {"rule": gate.min_rule, "project": gate.min_project, "topK": gate.top_k},
        "hooks": host.handle("hook_activity", {"limit": 1})["hooks"],
        "clients": client_state.read_all(),  # the clients' files: read here, on the worker
        "reviews": sharetrust.waiting(store),  # shared facts files not read until the user trusts them
        "facts_file_problems": _facts_file_problems(store),  # refused facts files, with the remedy
    }


def _facts_file_problems(store: Any) -> list[dict[str, Any]]:
    """Read on the worker; the tray's icon and the service's status say the same (sharework)."""
    from ..core.service import sharework
    from ..core.sharing import overview

    found = overview.problems(store)
    sharework.note_problems(found)
    return found


def facts_file_remedy() -> str:
    return tr(
        "Fix the file at the line named (or put back the committed one: git checkout -- .memevo/facts.md), then choose Read again in the Sharing tab. Nothing is read from it until then; the facts read before stay."
    )


def render(report: dict[str, Any]) -> str:
    counts = report["counts"]
    lines = [
        tr(
            "<b>Memories</b>: rules {rules} ({rules_old} deprecated), project facts {facts} ({facts_old} deprecated)"
        ).format(
            rules=counts["rule"]["live"],
            rules_old=counts["rule"]["deprecated"],
            facts=counts["project"]["live"],
            facts_old=counts["project"]["deprecated"],
        ),
        tr("<b>Confidence of the live memories</b> (how many at each level; new ones start at 0.5):")
        + "<br>"
        + "<br>".join(
            f"<tt>{k} {'█' * min(n, 40)} </tt>" + plural(n, tr("{count} memory"), tr("{count} memories"))
            for k, n in report["histogram"].items()
        ),
        tr("<b>Last daily maintenance</b>: {day}").format(
            day=report["last_maintenance"] or tr("not run yet")
        ),
        tr("<b>Learning</b>: {how}").format(how=html.escape(effective(report["learning"])))
        + (
            "<br>"
            + tr("<b>Side API</b>: {calls} / {limit} calls today").format(
                calls=report["side_calls_today"], limit=report["side_daily_limit"]
            )
            if report.get("side_api_named", True)
            else ""
        )
        + "<br>"
        + tr(
            "<b>Proposals from the coding assistants' models</b>: {count} / {per_day} today, at most {per_session} per session"
        ).format(
            count=report["proposals_today"],
            per_day=report["proposals_per_day"],
            per_session=report["proposals_per_session"],
        ),
    ]
    if report.get("reviews"):  # the message names the repository and the command that reviews it
        lines.append("<br>".join(f"<b>{html.escape(r['message'])}</b>" for r in report["reviews"]))
    errors = [
        tr("A shared facts file cannot be read: {problem}").format(problem=html.escape(p["problem"]))
        + "<br>&nbsp;&nbsp;"
        + html.escape(facts_file_remedy())
        for p in report.get("facts_file_problems", [])
    ] + [html.escape(e) for e in report["recent_errors"]]
    lines.append(  # always there, as docs/desktop.md says: "none" is news too
        tr("<b>Recent errors</b>:") + "<br>" + ("<br>".join(errors) or tr("none"))
    )
    t = report["thresholds"]
    lines.append(
        tr(
            "<b>Model</b>: {model} ({state}); a memory is recalled from a match of {rule} (rules) or {project} (project facts), at most {top_k} per group"
        ).format(
            model=html.escape(report["model"]),
            state=tr("loaded") if report["model_ready"] else tr("loading"),
            rule=t["rule"],
            project=t["project"],
            top_k=t["topK"],
        )
    )
    clients = "<br>".join(
        html.escape(title(state))
        + "".join("<br>&nbsp;&nbsp;" + html.escape(line) for line in part_lines(state))
        + (
            "<br>&nbsp;&nbsp;"
            + tr("Run this in a terminal: {command}").format(command=f"<tt>{html.escape(state.command)}</tt>")
            if state.command
            else ""
        )
        for state in report.get("clients", [])
    )
    if clients:
        lines.append(tr("<b>Clients</b>:") + "<br>" + clients)
    hooks = "<br>".join(
        tr("{client} · {event}: last {last}, service time {ms} ms, {count}×").format(
            client=client_label(h["client"]),
            event=event_label(h["event"]),
            last=h["last"][:19].replace("T", " "),
            ms=h["service_ms"],
            count=h["count"],
        )
        for h in report["hooks"]
    )
    lines.append(tr("<b>Hooks</b>:") + "<br>" + (hooks or tr("No client hook has fired yet")))
    return "<br><br>".join(lines)


class StatusView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        self.worker = OffUi(parent=self)
        self.report: dict[str, Any] = {}
        from .qt import QScrollArea

        layout = QVBoxLayout(self)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # commands copy
        scroll = QScrollArea()  # four clients, errors and hooks outgrow a small window
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.label)
        layout.addWidget(scroll, 1)
        from .off_repos import OffReposBox

        self.off_repos = OffReposBox(host)  # `memevo off`: listed here, switched on and off
        layout.addWidget(self.off_repos)
        refresh = QPushButton(tr("Refresh"))
        refresh.clicked.connect(self.refresh)
        layout.addWidget(refresh)
        self.refresh()

    def refresh(self) -> None:
        """The report counts over every memory: computed on the worker, shown when it arrives."""
        self.worker.run(lambda: status_report(self.host), self._show)
        self.off_repos.refresh()

    def _show(self, report: dict[str, Any]) -> None:
        self.report = report
        self.label.setText(render(report))
