"""A small bilingual thesaurus of everyday software-development concepts.

Words differ where the concept is the same: 「提交」 and `commit`, 「依赖」 and `pip install`,
「异常处理」 and `try/except`, 「发版」 and "ship to production". Each concept below lists the
ways developers write it, in Chinese and English; a text that mentions any of them gets the
concept's term (`~commit`, `~dependency` …) among its lexical terms, on the memory's side and
on the prompt's, so BM25 matches them across languages and wordings. The list is general
knowledge about software work, the same for every user, and never names a memory.
"""

from __future__ import annotations

import re

# name: (Chinese substrings, English/code patterns matched at a word start, case-insensitive)
CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "commit": (
        ("提交代码", "提交说明", "提交信息", "提交一下", "帮我提交", "再提交", "自动提交"),
        ("commit",),
    ),
    "force-push": (
        ("强推", "强制推送"),
        ("force-push", r"push --force", r"push -f\b", "force-with-lease", r"force push"),
    ),
    "push": (("推送", "推到", "推上", "强推", "推不上"), (r"push\b", r"git push")),
    "branch": (("分支",), (r"branch", r"checkout -b", r"switch -c")),
    "merge-request": (
        ("合并请求", "合入"),
        ("pull request", "merge request", r"\bPR\b", r"\bMR\b", r"PRs\b"),
    ),
    "dependency": (
        ("依赖", "第三方库", "装一下", "安装包", "引入库", "引入一个库", "加个库", "新库"),
        (
            r"dependenc",
            r"librar",
            r"pip3? install",
            "npm install",
            r"npm i\b",
            "yarn add",
            "pnpm add",
            "poetry add",
            r"go get\b",
            "cargo add",
            r"package\b",
            r"packages\b",
            r"pull in",
        ),
    ),
    "package-manager": (
        ("包管理",),
        (
            r"pip\b",
            r"pip3\b",
            r"npm\b",
            r"yarn\b",
            r"pnpm\b",
            r"poetry\b",
            r"lockfile",
            r"lock file",
            r"package-lock",
            r"yarn\.lock",
        ),
    ),
    "exception": (
        ("异常", "报错处理", "错误处理", "捕获"),
        (
            r"exception",
            r"try\b",
            r"except\b",
            r"catch\b",
            "error handling",
            r"try/except",
            r"try/catch",
            r"rescue\b",
        ),
    ),
    "logging": (
        ("日志", "打日志", "打印"),
        (r"log\b", r"logs\b", r"logging", r"logger", r"print\(", r"print\b", r"console\.log", "println"),
    ),
    "test": (
        ("测试", "单测", "覆盖率", "用例"),
        (r"test", r"pytest", r"unittest", r"coverage", r"spec\b", r"jest\b"),
    ),
    "release": (
        ("发版", "发布", "上线", "发到生产", "版本号"),
        (r"release", r"deploy", r"ship\b", r"ship it", r"rollout", r"go live", r"tag v?\d"),
    ),
    "production": (("生产", "线上", "正式环境"), (r"prod\b", r"production", r"live\b")),
    "staging": (("测试环境", "预发", "预发布"), (r"staging", r"pre-?prod", r"\bqa\b", r"test environment")),
    "schema": (
        ("表结构", "加字段", "加一个字段", "加列", "改表", "建表", "索引", "迁移"),
        (
            r"alter table",
            r"add column",
            r"migration",
            r"schema",
            r"create index",
            r"add an index",
            r"column\b",
            r"ddl\b",
        ),
    ),
    "sql": (
        ("SQL", "查询语句", "查库"),
        (r"sql\b", r"select\b", r"query\b", r"queries\b", r"jdbc", r"orm\b"),
    ),
    "database": (
        ("数据库", "线上库", "从库", "主库", "分库", "分表"),
        (r"database", r"\bdb\b", r"mysql", r"postgres", r"\bpg\b", r"psql"),
    ),
    "time": (
        ("时间", "时区", "北京时间", "日期"),
        (r"utc\b", r"timezone", r"time zone", r"datetime", r"timestamp", r"created_at", r"date\b"),
    ),
    "secret": (
        ("密钥", "秘钥", "密码", "口令", "凭证", "硬编码"),
        (
            r"secret",
            r"api key",
            r"api_key",
            r"apikey",
            r"access ?key",
            r"token\b",
            r"password",
            r"credential",
            r"hardcod",
        ),
    ),
    "env-var": (("环境变量", "配置项"), (r"\.env\b", r"env var", r"environment variable", r"\benv\b")),
    "naming": (
        ("命名", "起名", "名字", "变量名", "函数名", "改名", "拼音"),
        (r"naming", r"rename", r"name\b", r"variable name", r"function name", r"pinyin"),
    ),
    "comment": (("注释",), (r"comment", r"docstring", r"jsdoc")),
    "docs": (("文档", "说明文档"), (r"documentation", r"\bdocs?\b", r"readme", r"openapi", r"swagger")),
    "format": (
        ("格式化", "代码风格", "行宽", "缩进"),
        (
            r"format",
            r"black\b",
            r"isort",
            r"prettier",
            r"lint",
            r"line length",
            r"line-length",
            r"style guide",
        ),
    ),
    "typing": (
        ("类型",),
        (r"\bany\b", r"unknown\b", r"typescript", r"type annotation", r"types?\b", r"typing"),
    ),
    "answer-language": (("中文", "英文回复", "用英文", "用中文"), (r"chinese", r"in english", r"reply in")),
    "brevity": (
        ("简洁", "啰嗦", "重点", "长篇", "精简", "直接说"),
        (r"concise", r"verbose", r"brief", r"to the point", r"tl;dr"),
    ),
    "shell": (
        ("命令", "终端", "脚本"),
        (r"shell", r"bash\b", r"zsh\b", r"terminal", r"command line", r"script\b", r"scripts\b", r"macos"),
    ),
    "function-size": (
        ("函数太长", "拆函数", "拆成", "一百多行", "太长了", "很长"),
        (r"long function", r"split (?:it|the function)", r"too long", r"\d+ lines"),
    ),
    "nesting": (("嵌套", "套了", "if 套"), (r"nest", r"early return", r"guard clause")),
    "money": (
        ("金额", "价格", "总价", "价钱", "费用", "退款", "折扣", "浮点"),
        (
            r"money",
            r"price",
            r"amount",
            r"cents\b",
            r"decimal",
            r"float",
            r"double\b",
            r"refund",
            r"discount",
        ),
    ),
    "http-call": (
        ("接口调用", "调第三方", "调用外部", "超时", "重试", "卡住"),
        (
            r"timeout",
            r"retry",
            r"retries",
            r"requests\.get",
            r"http call",
            r"outbound",
            r"hangs?\b",
            r"gateway",
        ),
    ),
    "pr-size": (
        ("改了太多", "改动太多", "动的文件太多", "拆开提交", "拆成几个"),
        (r"changed lines", r"too big", r"stacked", r"split (?:the|this) (?:pr|change)"),
    ),
    "select-star": (("所有列", "全部字段", "都取出来", "全取"), (r"select \*", r"all columns")),
    "css": (
        ("样式", "悬停", "颜色"),
        (r"css\b", r"scss", r"sass\b", r"tailwind", r"style", r"stylesheet", r"hover", r"classname"),
    ),
    "react-component": (
        ("组件",),
        (r"component", r"react", r"hooks?\b", r"componentdidmount", r"class component"),
    ),
    "delete": (
        ("删除", "删掉", "清掉", "清理", "删了"),
        (r"delete", r"remove", r"rm -rf", r"rm\b", r"clean up", r"drop\b", r"wipe"),
    ),
    "pii": (
        ("手机号", "身份证", "敏感信息", "脱敏", "隐私", "个人信息"),
        (r"phone number", r"id number", r"id card", r"pii\b", r"personal data", r"sensitive", r"mask"),
    ),
    "docker": (
        ("镜像", "容器"),
        (r"docker", r"image\b", r"container", r"base image", r"latest tag", r":latest"),
    ),
    "global-state": (("全局变量", "全局状态", "全局"), (r"global", r"module-level", r"singleton")),
    "layering": (
        ("分层", "controller 里", "service 层", "repository 层"),
        (r"controller", r"repository", r"service layer", r"dao\b"),
    ),
    "review": (("评审", "审查", "看看有没有问题"), (r"review", r"code review")),
    "bug": (
        ("修复", "bug", "缺陷", "空指针"),
        (r"\bbug", r"fix\b", r"fixing", r"regression", r"null pointer"),
    ),
    "changelog": (("更新日志", "变更记录", "改动记录"), (r"changelog", r"release notes")),
    "feature-flag": (("开关", "灰度"), (r"feature flag", r"flag\b", r"flags\b", r"toggle", r"kill switch")),
    "cache": (("缓存",), (r"cache", r"caching")),
    "monitoring": (("监控", "大盘", "告警", "报警"), (r"monitor", r"dashboard", r"alert")),
    "on-call": (("值班", "值守"), (r"on-call", r"oncall")),
    "message-queue": (
        ("消息", "订阅", "消费者", "队列"),
        (r"kafka", r"topic\b", r"consumer", r"queue", r"subscribe"),
    ),
    "translation": (("多语言", "翻译", "文案", "国际化"), (r"i18n", r"locale", r"translation", r"translate")),
    "search-engine": (("搜索", "索引"), (r"elasticsearch", r"\bes\b", r"search index")),
    "session": (("登录态", "踢下线", "会话", "session"), (r"session", r"logged out", r"sign-?in")),
    "scheduler": (("定时任务", "调度", "凌晨"), (r"cron", r"schedul", r"nightly", r"job\b")),
    "ci": (
        ("流水线", "构建", "持续集成"),
        (r"\bci\b", r"pipeline", r"github actions", r"build\b", r"nightly"),
    ),
    "gateway": (("网关", "路由"), (r"gateway", r"route", r"routes")),
    "design": (("设计稿", "设计图", "交互稿"), (r"design file", r"mockup", r"design\b")),
    "storage": (
        ("存储", "上传", "头像", "图片"),
        (r"bucket", r"oss\b", r"s3\b", r"upload", r"avatar", r"cdn\b", r"image"),
    ),
    "sms": (("短信", "验证码"), (r"sms\b", r"verification code", r"otp\b")),
    "push-notification": (("推送通知", "消息推送", "推送证书", "App 推送"), (r"push notification", r"apns")),
    "config-center": (("配置中心", "配置改在", "配置在哪"), (r"config center", r"namespace")),
    "backup": (("备份", "恢复", "回滚"), (r"backup", r"restore", r"roll ?back")),
    "load-test": (("压测", "性能测试", "大促"), (r"load test", r"stress test", r"perf\b", r"benchmark")),
    "crash": (("闪退", "崩溃"), (r"crash", r"anr\b")),
    "analytics": (("埋点", "统计"), (r"analytics", r"tracking", r"event tracking")),
    "kubernetes": (
        ("集群", "命名空间", "部署"),
        (r"k8s", r"kubernetes", r"kubectl", r"pod\b", r"pods\b", r"namespace", r"helm"),
    ),
    "registry": (("私服", "仓库地址"), (r"registry", r"npm\.", r"nexus", r"publish")),
    "mobile": (
        ("App", "安卓", "iOS", "客户端"),
        (r"ios\b", r"android", r"mobile", r"app\b", r"bundle id", r"react native"),
    ),
    "customer-support": (("客服", "工单"), (r"ticket", r"support")),
    "recommendation": (("推荐",), (r"recommend",)),
    "coupon": (("优惠券", "核销", "券"), (r"coupon", r"voucher", r"redeem")),
    "payment": (("支付", "付款"), (r"payment", r"checkout", r"pay\b")),
    "order": (("订单", "下单"), (r"order\b", r"orders\b")),
    "login": (("登录", "鉴权", "认证"), (r"login", r"log in", r"auth\b", r"authentication")),
    "local-dev": (("本地", "起服务", "跑起来"), (r"locally", r"local dev", r"docker-compose")),
    "release-channel": (("群里", "频道", "同步一下"), (r"slack", r"channel", r"announce")),
}

_TABLES: list[tuple[re.Pattern[str], dict[str, list[str]], re.Pattern[str], dict[str, str]]] = []


def _tables() -> tuple[re.Pattern[str], dict[str, list[str]], re.Pattern[str], dict[str, str]]:
    """Two regexes over all concepts (one scan of a text each, not one per concept): the
    Chinese phrases as literals, the English patterns as one named group per concept."""
    if not _TABLES:
        by_phrase: dict[str, list[str]] = {}
        for name, (chinese, _) in CONCEPTS.items():
            for phrase in chinese:
                by_phrase.setdefault(phrase.lower(), []).append(name)
        phrases = re.compile("|".join(re.escape(p) for p in sorted(by_phrase, key=len, reverse=True)))
        groups = {f"c{n}": name for n, name in enumerate(CONCEPTS)}
        english = re.compile(
            r"(?<![A-Za-z0-9_])(?:"
            + "|".join(
                f"(?P<{g}>{'|'.join(CONCEPTS[name][1])})" for g, name in groups.items() if CONCEPTS[name][1]
            )
            + ")",
            re.IGNORECASE,
        )
        _TABLES.append((phrases, by_phrase, english, groups))
    return _TABLES[0]


_WORD_START = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_.@#/:-]")


def concept_terms(text: str) -> list[str]:
    """`~name` for each concept the text mentions (once each). The English patterns are tried
    only where a word starts, not at every character."""
    phrases, by_phrase, english, groups = _tables()
    found: dict[str, None] = {}
    for match in phrases.finditer(text.lower()):
        found.update(dict.fromkeys(by_phrase[match.group()]))
    for start in _WORD_START.finditer(text):
        hit = english.match(text, start.start())
        if hit is not None and hit.lastgroup:
            found[groups[hit.lastgroup]] = None
    return ["~" + name for name in found]


# A textbook question ("what is X", 「X 和 Y 的区别」) asks for general knowledge, not about the
# user's own work: the hybrid gate takes its calibrated damping off such a prompt's scores. A
# prompt that says "our"/「我们」 or names an identifier is about the user's own things.
_TEXTBOOK = re.compile(
    r"区别|是什么|什么是|原理|为什么|怎么实现|讲讲|讲一下|举个例子|举几个例子|是怎么|复杂度"
    r"|difference between|what is|what's a|what are|what does|explain|how does|how do .* work"
    r"|why does|why is|in simple terms|like i'm",
    re.IGNORECASE,
)
_OWN = re.compile(r"我们|咱们|公司|项目里|\bour\b|\bwe\b|[A-Za-z0-9]+[_./-][A-Za-z0-9]+", re.IGNORECASE)


def textbook_question(text: str) -> bool:
    return bool(_TEXTBOOK.search(text)) and not _OWN.search(text)
