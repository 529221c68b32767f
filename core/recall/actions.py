"""What a tool call is about to do, in words recall can match: rules at the moment of action.

A rule such as 「改完代码不要自动 commit」 or "don't add a dependency without asking" is about
an action, and the tool call that performs it — `git commit -m …`, `pip install requests`,
an edit that adds `import requests` — shares few words and little meaning with it. So the
call is described first: what kind of action it is (committing, pushing, installing a
dependency, deleting files, changing a table, catching an exception, printing debug output…),
in Chinese and English, followed by its salient names (the command, the file path's parts,
packages, identifiers). That text goes through the same hybrid recall as a prompt.

Only the kind of action is described, never a memory: the patterns below are general
knowledge about commands and code, the same for every user. Everything is bounded: at most
`MAX_INPUT` characters of any field are read, and the description is cut to `MAX_TEXT`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_INPUT = 4000
MAX_TEXT = 500
SHELL_TOOLS = frozenset({"bash", "shell", "run_terminal_cmd", "execute_command", "terminal"})
EDIT_TOOLS = frozenset(
    {
        "edit",
        "multiedit",
        "write",
        "notebookedit",
        "write_to_file",
        "replace_in_file",
        "edit_file",
        "str_replace",
    }
)

# -- shell commands ----------------------------------------------------------------------------------
_SEGMENT_SPLIT = re.compile(r"&&|\|\||[;|\n]")
_WRAPPERS = frozenset(
    {"sudo", "time", "nohup", "env", "exec", "command", "xargs", "npx", "bunx", "uv", "poetry"}
)
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
DEPENDENCY = "安装新的第三方依赖库 add a new third-party dependency / library"
INSTALL_ALL = "安装项目依赖 install the project's dependencies"
IMPORT = "引入新的库 import a library"
_INSTALLERS: dict[str, tuple[str, ...]] = {
    "pip": ("install",),
    "pip3": ("install",),
    "pipx": ("install",),
    "conda": ("install",),
    "mamba": ("install",),
    "poetry": ("add",),
    "pipenv": ("install",),
    "uv": ("add", "pip"),
    "npm": ("install", "i", "add"),
    "pnpm": ("add", "install", "i"),
    "yarn": ("add",),
    "bun": ("add", "install", "i"),
    "go": ("get",),
    "cargo": ("add", "install"),
    "gem": ("install",),
    "bundle": ("add",),
    "composer": ("require",),
    "brew": ("install",),
    "apt": ("install",),
    "apt-get": ("install",),
}
_GIT: dict[str, str] = {
    "commit": "提交代码 git commit the changes, write the commit message",
    "push": "推送代码到远程分支 git push to the remote branch",
    "merge": "合并分支 git merge a branch",
    "rebase": "变基 git rebase the branch",
    "tag": "打 tag 发布新版本 tag a release version",
    "reset": "重置改动 git reset",
    "clean": "删除未跟踪的文件 git clean deletes files",
    "cherry-pick": "挑选提交 git cherry-pick",
    "stash": "暂存改动 git stash",
}
_DATABASE_CLIENTS = frozenset(
    {"psql", "mysql", "sqlite3", "mongo", "mongosh", "redis-cli", "clickhouse-client", "sqlcmd"}
)
_DEPLOY = frozenset(
    {"kubectl", "helm", "argocd", "terraform", "ansible-playbook", "serverless", "sls", "vercel", "fly"}
)

# -- code patterns (added lines of an edit, a written file, any command text) ------------------------
_CODE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"\bexcept\b[^\n]*:\s*\n?\s*pass\b|catch\s*\([^)]*\)\s*\{\s*\}"),
        "吞掉了异常 the exception is swallowed silently",
    ),
    (
        re.compile(r"\bexcept\b|\bcatch\s*[({]|\brescue\b|\brecover\(\)|\bfinally\b"),
        "异常处理 exception handling: catch the error",
    ),
    (
        re.compile(
            r"console\.(?:log|debug|info)\(|\bprint\(|System\.out\.print|fmt\.Print|println!|\bvar_dump\(|\bputs\b"
        ),
        "打印调试输出 print / console.log debug output",
    ),
    (
        re.compile(r"\b(?:log|logger|logging)\.(?:debug|info|warn|warning|error|exception)\("),
        "写日志 write a log line",
    ),
    (
        re.compile(
            r"(?:log|logger|logging|print|console)[^\n]{0,80}\b(?:phone|mobile|id_?card|idcard|ssn|passport|email|address)\b",
            re.I,
        ),
        "日志里输出了用户个人信息 personal user data in the log",
    ),
    (
        re.compile(
            r"(?:^|\n)\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\b|import\s+[^\n]*\sfrom\s+['\"]|(?:const|let|var)\s+\w+\s*=\s*require\(|#include\s*<)"
        ),
        IMPORT,
    ),
    (re.compile(r":\s*any\b|\bas\s+any\b|<any>|Array<any>"), "TypeScript 的 any 类型 type any"),
    (
        re.compile(r"class\s+\w+\s+extends\s+(?:React\.)?(?:Pure)?Component\b|componentDidMount"),
        "React class 组件 class component",
    ),
    (
        re.compile(
            r"(?:api[_-]?key|secret|token|passw(?:or)?d|access[_-]?key)\w*\s*[:=]\s*['\"][^'\"\s]{6,}|\bsk_(?:live|test)_\w+|\bAKIA[0-9A-Z]{12,}",
            re.I,
        ),
        "把密钥或密码硬编码在代码里 hardcoded secret / API key / password",
    ),
    (
        re.compile(
            r"\brequests\.(?:get|post|put|delete|patch)\(|\bfetch\(|\baxios\.|\bhttp\.(?:Get|Post)\(|HttpClient|urlopen\(|RestTemplate"
        ),
        "调用外部 HTTP 接口 outbound HTTP request",
    ),
    (
        re.compile(r"(?:^|[\s,(])_\s*(?:,\s*\w+\s*)?:?=\s*\w+[\w.]*\(|\b_\s*=\s*err\b"),
        "忽略返回的 error ignore the returned error",
    ),
    (
        re.compile(
            r"\b(?:float|double|parseFloat|Float)\b[^\n]{0,60}\b(?:price|amount|total|cost|money|fee|balance)|\b(?:price|amount|total|cost|money|fee|balance)\w*[^\n]{0,40}\b(?:float|double|parseFloat)\b",
            re.I,
        ),
        "金额用了浮点数 money amounts as floating point",
    ),
    (re.compile(r"\bos\.path\."), "用 os.path 处理文件路径 file paths with os.path"),
    (
        re.compile(
            r"\b(?:datetime\.now|datetime\.utcnow|time\.Now|new Date|LocalDateTime\.now|NOW\(\))", re.I
        ),
        "时间和时区 datetime and time zone",
    ),
    (
        re.compile(
            r"\bALTER\s+TABLE\b|\bCREATE\s+TABLE\b|\bDROP\s+(?:TABLE|COLUMN|INDEX)\b|\bADD\s+COLUMN\b|\bCREATE\s+INDEX\b|add_column\(|drop_column\(|create_table\(",
            re.I,
        ),
        "修改数据库表结构 change the database table schema",
    ),
    (
        re.compile(r"\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bINSERT\s+INTO\b|\bTRUNCATE\b", re.I),
        "改写数据库里的数据 write data in the database",
    ),
    (re.compile(r"\bSELECT\s+\*", re.I), "SELECT * 查询所有列 select all columns"),
    (
        re.compile(r"\bSELECT\s+[\w\s,.*]+\s+FROM\b|jdbcTemplate|\.query\(|\.execute\(\s*['\"]", re.I),
        "直接写 SQL 查询数据库 raw SQL query",
    ),
    (re.compile(r"^\s*FROM\s+[\w./-]+(?::latest)?\s*$", re.I | re.M), "Docker 基础镜像 base image"),
    (re.compile(r":latest\b"), "latest 标签 the latest tag"),
    (
        re.compile(
            r"\bglobal\s+\w+|^\s*(?:_?[a-z]\w*_cache|CACHE|_cache)\s*[:=]\s*(?:\{\}|dict\(\)|\[\])", re.M
        ),
        "全局状态 global state",
    ),
    (re.compile(r"^#!\s*/(?:usr/)?bin/(?:env\s+)?(?:ba|z)?sh", re.M), "shell 脚本 shell script"),
]

# -- file paths ---------------------------------------------------------------------------------------
_PATH_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"(?:^|/)(?:tests?|__tests__|spec)/|(?:^|/)test_[^/]+$|_test\.\w+$|\.(?:test|spec)\.\w+$"),
        "编写测试 write tests",
    ),
    (
        re.compile(r"(?:^|/)(?:\.github/workflows/|\.gitlab-ci\.yml$|Jenkinsfile$|\.circleci/)"),
        "修改 CI 流水线配置 the CI pipeline configuration",
    ),
    (
        re.compile(r"(?:^|/)Dockerfile[^/]*$|(?:^|/)docker-compose[^/]*\.ya?ml$"),
        "Docker 镜像和容器配置 Dockerfile",
    ),
    (re.compile(r"\.(?:css|scss|sass|less|styl)$"), "样式文件 CSS stylesheet"),
    (re.compile(r"(?:^|/)(?:migrations?|alembic|flyway|db/migrate)/"), "数据库迁移脚本 database migration"),
    (re.compile(r"(?:^|/)\.env(?:\.[\w-]+)?$"), "环境变量配置文件 .env environment variables"),
    (
        re.compile(
            r"(?:^|/)(?:package\.json|requirements[^/]*\.txt|pyproject\.toml|Pipfile|go\.mod|Cargo\.toml|pom\.xml|build\.gradle(?:\.kts)?|Gemfile|composer\.json)$"
        ),
        "依赖清单 dependency manifest",
    ),
    (
        re.compile(r"(?:^|/)(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock)$"),
        "依赖锁文件 lock file",
    ),
    (re.compile(r"(?:^|/)CHANGELOG[^/]*$", re.I), "更新日志 changelog"),
    (re.compile(r"(?:^|/)(?:README[^/]*|docs?/[^/]+\.(?:md|rst))$", re.I), "文档 documentation"),
    (re.compile(r"\.(?:sh|bash|zsh)$"), "shell 脚本 shell script"),
    (re.compile(r"(?:^|/)(?:locales?|i18n|lang|translations?)/"), "多语言文案 translations i18n"),
    (re.compile(r"(?:openapi|swagger)[^/]*\.(?:ya?ml|json)$", re.I), "接口文档 OpenAPI documentation"),
    (re.compile(r"(?:^|/)(?:k8s|kubernetes|helm|charts|deploy)/"), "部署配置 deployment configuration"),
    (re.compile(r"[Cc]ontroller"), "controller 层 controller"),
]


@dataclass(frozen=True)
class Described:
    """A tool call in words: `kinds` the kinds of action recognised (none: a call such as
    `ls` or `git status` that no rule is about, and recall is skipped), `text` what recall sees."""

    text: str
    kinds: tuple[str, ...]


def describe(tool: str, tool_input: Any) -> Described | None:
    """The recall text for one tool call, or None when there is nothing to describe."""
    name = (tool or "").strip()
    lowered = name.lower()
    data = _as_dict(tool_input)
    phrases: list[str] = []
    words: list[str] = []
    if lowered in SHELL_TOOLS or (not lowered and "command" in data):
        command = _text(data.get("command"))
        if not command.strip():
            return None
        _describe_command(command, phrases, words)
        _describe_code(command, phrases)
    elif lowered in EDIT_TOOLS or lowered.startswith("edit") or lowered.startswith("write"):
        path = _text(
            data.get("file_path")
            or data.get("path")
            or data.get("notebook_path")
            or data.get("target_file")
            or data.get("filePath")  # CodeBuddy IDE
        )
        added = _added_text(data)
        if path:
            _describe_path(path, phrases, words)
        # a whole new file imports what it needs; an edit that adds an import brings a library in
        _describe_code(added, phrases, imports=lowered not in ("write", "write_to_file"))
        words.extend(_identifiers(added)[:12])
        if not phrases and not words:
            return None
    else:  # an MCP tool: its name's words and the values it is given
        tool_name = _text(data.get("tool_name")) or name
        tool_name = tool_name.split("__")[-1] if tool_name.startswith("mcp__") else tool_name
        arguments = data.get("tool_input", data if not data.get("tool_name") else {})
        values = _text(arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False))
        _describe_mcp(tool_name, values, phrases, words)
        _describe_code(values, phrases)
    text = _join(phrases, words)
    return Described(text, tuple(dict.fromkeys(phrases))) if text else None


def _describe_command(command: str, phrases: list[str], words: list[str]) -> None:
    for segment in _SEGMENT_SPLIT.split(command[:MAX_INPUT]):
        argv = [a.strip("\"'`") for a in segment.split()]
        while argv and (argv[0] in _WRAPPERS or _ENV_ASSIGN.match(argv[0])) and len(argv) > 1:
            if argv[0] in ("uv", "poetry") and argv[1] in _INSTALLERS.get(argv[0], ()):
                break
            argv = argv[1:]
        if not argv:
            continue
        program = argv[0].rsplit("/", 1)[-1].lower()
        rest = [a for a in argv[1:] if a]
        flags = [a for a in rest if a.startswith("-")]
        plain = [a for a in rest if not a.startswith("-")]
        words.append(program)
        if program in ("python", "python3") and rest[:2] == ["-m", "pip"]:
            program, plain = "pip", [a for a in plain if a not in ("pip",)]
        if program == "git" and plain:
            sub = plain[0]
            phrase = _GIT.get(sub)
            if (sub in ("checkout", "switch") and any(f in flags for f in ("-b", "-B", "-c", "-C"))) or (
                sub == "branch" and len(plain) > 1 and not flags
            ):
                phrase = "新建分支 create a new git branch"
            if sub == "push" and any(
                f in ("-f", "--force", "--force-with-lease") or f.startswith("--force") for f in flags
            ):
                phrase = "强制推送 git force push (push --force) to the remote branch"
            if phrase:
                phrases.append(phrase)
            words.extend(plain[1:4])
        elif program in _INSTALLERS and plain and plain[0] in _INSTALLERS[program]:
            packages = [a for a in plain[1:] if a not in ("install",)]
            if program == "uv" and plain[0] == "pip":
                packages = plain[2:]
            from_file = any(f in ("-r", "--requirement", "-e", "--editable") for f in flags)
            if packages and not from_file:
                phrases.append(f"{program} install: {DEPENDENCY}")
                words.extend(packages[:6])
            else:
                phrases.append(f"{program} install: {INSTALL_ALL}")
        elif (program in ("npm", "pnpm", "yarn", "twine", "cargo", "gem") and plain[:1] == ["publish"]) or (
            program == "twine" and plain[:1] == ["upload"]
        ):
            phrases.append("发布包到 registry publish a package to the registry")
        elif program in ("rm", "rmdir", "unlink", "shred") or (program == "find" and "-delete" in flags):
            phrases.append("删除文件或目录 delete files and directories (rm -rf)")
            words.extend(plain[:4])
        elif program in _DATABASE_CLIENTS:
            phrases.append("连接数据库执行 SQL run SQL against a database")
            words.extend(a for a in plain[:3] if not a.upper().startswith(("SELECT", "UPDATE", "ALTER")))
            words.extend(a for a in rest[:8] if not a.startswith("-") and re.match(r"^[\w.-]+$", a))
        elif program == "docker" and plain:
            phrase = {
                "build": "构建 Docker 镜像 docker build an image",
                "push": "推送 Docker 镜像 docker push",
            }.get(plain[0])
            if phrase:
                phrases.append(phrase)
            words.extend(plain[1:4])
        elif program in _DEPLOY:
            phrases.append("部署到集群或线上环境 deploy to the cluster / production")
            words.extend(plain[:4])
        elif program in ("curl", "wget", "http", "httpie"):
            words.extend(_hosts(segment))  # trying a URL by hand is not an action rules are about
        elif program in ("ssh", "scp", "rsync"):
            phrases.append("登录或传文件到远程服务器 remote server")
            words.extend(_hosts(segment))
        elif program in ("alembic", "flyway", "liquibase") or (
            plain[:1] and plain[0] in ("migrate", "makemigrations")
        ):
            phrases.append("数据库迁移 run a database migration")
        else:
            words.extend(plain[:4])
        words.extend(f for f in flags if len(f) > 3)


def _describe_path(path: str, phrases: list[str], words: list[str]) -> None:
    path = path[:MAX_INPUT].replace("\\", "/")
    for pattern, phrase in _PATH_PATTERNS:
        if pattern.search(path):
            phrases.append(phrase)
    parts = [
        p
        for p in path.split("/")
        if p and p not in ("repo", "src", "app", "home", "Users", "main", "java", "com")
    ]
    words.extend(parts[-4:])


def _describe_code(code: str, phrases: list[str], imports: bool = True) -> None:
    code = code[:MAX_INPUT]
    if not code.strip():
        return
    for pattern, phrase in _CODE_PATTERNS:
        if phrase == IMPORT and not imports:
            continue
        if pattern.search(code) and phrase not in phrases:
            phrases.append(phrase)


def _describe_mcp(tool_name: str, values: str, phrases: list[str], words: list[str]) -> None:
    spaced = re.sub(r"[_\-.:]+", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", tool_name)).lower()
    if re.search(r"\b(?:create|new)\b.*\bbranch\b", spaced):
        phrases.append("新建分支 create a new git branch")
    elif re.search(r"\bcommit\b", spaced):
        phrases.append(_GIT["commit"])
    elif re.search(r"\bpush\b", spaced):
        phrases.append(_GIT["push"])
    elif re.search(r"\b(?:pull request|merge request|pr|mr)\b", spaced):
        phrases.append("创建合并请求 open a pull request / merge request")
    elif re.search(r"\b(?:sql|query|execute)\b", spaced):
        phrases.append("在数据库上执行 SQL run SQL against a database")
    elif re.search(r"\b(?:delete|remove|drop)\b", spaced):
        phrases.append("删除数据 delete")
    elif re.search(r"\b(?:message|post|send|notify)\b", spaced):
        phrases.append("发消息通知 post a message")
    words.append(spaced)
    words.extend(_strings(values)[:8])


def _added_text(data: dict[str, Any]) -> str:
    """What an edit adds: new lines that were not there, or a written file's content."""
    if isinstance(data.get("edits"), list):
        return "\n".join(_added_text(e) for e in data["edits"][:20] if isinstance(e, dict))[:MAX_INPUT]
    if isinstance(data.get("diff"), str) and not data.get("new_string"):  # CodeBuddy's replace_in_file
        return _replaced_text(data["diff"])[:MAX_INPUT]
    new = _text(data.get("new_string") or data.get("content") or data.get("new_str") or data.get("code_edit"))
    old = _text(data.get("old_string") or data.get("old_str"))
    if not old:
        return new[:MAX_INPUT]
    before = {line.strip() for line in old.splitlines()}
    return "\n".join(line for line in new.splitlines() if line.strip() not in before)[:MAX_INPUT]


_IDENT = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:[.\-/][A-Za-z0-9_]+)+|[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+|[A-Z][a-z]+[A-Z]\w+"
)


def _replaced_text(diff: str) -> str:
    """The replacement halves of SEARCH/REPLACE blocks (`=======` up to `>>>>>>> REPLACE`), or
    the `+` lines of a unified diff: what the edit writes."""
    out: list[str] = []
    inside = False
    marked = False
    for line in diff[: MAX_INPUT * 2].splitlines():
        if line.startswith("======="):
            inside, marked = True, True
        elif line.startswith(">>>>>>>"):
            inside = False
        elif inside:
            out.append(line)
    if not marked:
        out = [
            line[1:]
            for line in diff[: MAX_INPUT * 2].splitlines()
            if line.startswith("+") and not line.startswith("+++")
        ]
    return "\n".join(out)


def _identifiers(code: str) -> list[str]:
    """Names worth matching in code: dotted, snake_case, CamelCase, paths and hosts."""
    return list(dict.fromkeys(_IDENT.findall(code[:MAX_INPUT])))


def _hosts(text: str) -> list[str]:
    return re.findall(r"(?:https?://)?([\w-]+(?:\.[\w-]+)+)", text)[:3]


def _strings(values: str) -> list[str]:
    try:
        parsed = json.loads(values)
    except ValueError:
        return [values[:200]]
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value[:200])
        elif isinstance(value, dict):
            for item in list(value.values())[:20]:
                walk(item)
        elif isinstance(value, list):
            for item in value[:20]:
                walk(item)

    walk(parsed)
    return out


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return {"command": value}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _text(value: Any) -> str:
    return value[:MAX_INPUT] if isinstance(value, str) else ""


def _join(phrases: list[str], words: list[str]) -> str | None:
    seen: list[str] = []
    for word in words:
        word = word.strip()
        if word and word not in seen and len(word) <= 120:
            seen.append(word)
    text = "; ".join(dict.fromkeys(phrases))
    tail = " ".join(seen)
    joined = f"{text}. {tail}".strip(" .") if text else tail
    return joined[:MAX_TEXT] or None
