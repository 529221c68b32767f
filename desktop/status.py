"""The panel's Status tab: counts, a confidence histogram, the last daily maintenance, side
API use and recent errors, the model and thresholds in use, and hook latency as the service
itself timed it."""

from __future__ import annotations

import html
from typing import Any

from memevo.core import config as config_mod
from memevo.core import maintenance, ops
from memevo.core.encoder.models import entry_for
from memevo.core.recall.gate import GateSettings
from memevo.core.side import jobs
from memevo.desktop.qt import QLabel, QPushButton, QVBoxLayout, QWidget


def status_report(host: Any) -> dict[str, Any]:
    store, clock = host.store, host.clock
    config = config_mod.load()
    model = str(config["model"])
    gate = GateSettings.from_config(config.values, entry_for(model))
    histogram = store.query(
        "SELECT least(floor(confidence / 10), 10)::INTEGER AS bin, count(*) FROM memories WHERE NOT deprecated GROUP BY bin ORDER BY bin"
    )
    errors = store.query(
        "SELECT error FROM side_jobs WHERE status = 'failed' AND error IS NOT NULL ORDER BY updated_ms DESC LIMIT 5"
    )
    return {
        "counts": ops.dispatch(host.ctx, "counts", {})["counts"],
        "histogram": {f"{int(b) / 10:.1f}": int(n) for b, n in histogram},
        "last_maintenance": store.get_state(maintenance.STATE_KEY),
        "side_calls_today": jobs.calls_today(store, clock.local_day(clock.now_ms())),
        "side_daily_limit": config["sideDailyLimit"],
        "recent_errors": [str(e[0]) for e in errors],
        "model": model,
        "model_ready": host.engine is not None,
        "thresholds": {"rule": gate.min_rule, "project": gate.min_project, "topK": gate.top_k},
        "hooks": ops.dispatch(host.ctx, "hook_activity", {"limit": 1})["hooks"],
    }


def render(report: dict[str, Any]) -> str:
    counts = report["counts"]
    lines = [
        f"<b>记忆</b>：规则 {counts['rule']['live']}（已废弃 {counts['rule']['deprecated']}），"
        f"项目事实 {counts['project']['live']}（已废弃 {counts['project']['deprecated']}）",
        "<b>置信度分布</b>（有效记忆）：<br>"
        + "<br>".join(f"<tt>{k} {'█' * min(n, 40)} {n}</tt>" for k, n in report["histogram"].items()),
        f"<b>上次每日维护</b>：{report['last_maintenance'] or '还没有运行过'}",
        f"<b>旁路接口</b>：今天调用 {report['side_calls_today']} / {report['side_daily_limit']} 次",
    ]
    if report["recent_errors"]:
        lines.append("<b>最近的错误</b>：<br>" + "<br>".join(html.escape(e) for e in report["recent_errors"]))
    t = report["thresholds"]
    lines.append(
        f"<b>模型</b>：{html.escape(report['model'])}（{'已加载' if report['model_ready'] else '加载中'}），"
        f"阈值 rule {t['rule']}、project {t['project']}，每组最多 {t['topK']} 条"
    )
    hooks = "<br>".join(
        f"{h['client']} · {h['event']}：最近 {h['last'][:19].replace('T', ' ')}，服务端耗时 {h['service_ms']} ms，共 {h['count']} 次"
        for h in report["hooks"]
    )
    lines.append("<b>Hook</b>：<br>" + (hooks or "还没有客户端的 hook 触发过"))
    return "<br><br>".join(lines)


class StatusView(QWidget):
    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host
        layout = QVBoxLayout(self)
        self.label = QLabel()
        self.label.setWordWrap(True)
        layout.addWidget(self.label)
        refresh = QPushButton("刷新")
        refresh.clicked.connect(self.refresh)
        layout.addWidget(refresh)
        layout.addStretch(1)
        self.refresh()

    def refresh(self) -> None:
        self.report = status_report(self.host)
        self.label.setText(render(self.report))
