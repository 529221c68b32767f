<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <source>Search text or id — Enter</source>
        <translation>搜索正文或 id（回车）</translation>
    </message>
    <message>
        <source>By meaning</source>
        <translation>按语义</translation>
    </message>
    <message>
        <source>Find memories close in meaning, with the recall model (no award)</source>
        <translation>用召回模型找意思相近的记忆（不加分）</translation>
    </message>
    <message>
        <source>All groups</source>
        <translation>全部分组</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Project fact</source>
        <translation>项目事实</translation>
    </message>
    <message>
        <source>Show deprecated</source>
        <translation>显示已废弃</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>手动添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>改写…</translation>
    </message>
    <message>
        <source>Merge two…</source>
        <translation>合并两条…</translation>
    </message>
    <message>
        <source>Reinforce</source>
        <translation>强化</translation>
    </message>
    <message>
        <source>Move to other group</source>
        <translation>换到另一组</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Purge…</source>
        <translation>彻底清除…</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Select a memory first.</source>
        <translation>请先选中一条记忆。</translation>
    </message>
    <message>
        <source>Not done: {error}</source>
        <translation>没有完成：{error}</translation>
    </message>
    <message>
        <source>Undo: {what}</source>
        <translation>撤销：{what}</translation>
    </message>
    <message>
        <source>Add a memory</source>
        <translation>手动添加</translation>
    </message>
    <message>
        <source>Text of the new {group} (6–400 characters):</source>
        <translation>新{group}的正文（6–400 字）：</translation>
    </message>
    <message>
        <source>Added #{id} ({group}, confidence 0.5)</source>
        <translation>已添加 #{id}（{group}，置信度 0.5）</translation>
    </message>
    <message>
        <source>add #{id}</source>
        <translation>添加 #{id}</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>改写</translation>
    </message>
    <message>
        <source>New text of #{id} (confidence unchanged):</source>
        <translation>#{id} 的新正文（置信度不变）：</translation>
    </message>
    <message>
        <source>Edited #{id}</source>
        <translation>已改写 #{id}</translation>
    </message>
    <message>
        <source>edit #{id}</source>
        <translation>改写 #{id}</translation>
    </message>
    <message>
        <source>Select exactly two memories to merge.</source>
        <translation>合并需要正好选中两条记忆。</translation>
    </message>
    <message>
        <source>Merge two</source>
        <translation>合并两条</translation>
    </message>
    <message>
        <source>Text of the merged memory (#{keep} stays with the higher confidence; #{other} goes to the trash):</source>
        <translation>合并后的正文（保留 #{keep}，取两者中较高的置信度；#{other} 移到回收站）：</translation>
    </message>
    <message>
        <source>Merged #{other} into #{keep}</source>
        <translation>已把 #{other} 合并到 #{keep}</translation>
    </message>
    <message>
        <source>merge into #{id}</source>
        <translation>合并到 #{id}</translation>
    </message>
    <message>
        <source>Moved {names}</source>
        <translation>已换组：{names}</translation>
    </message>
    <message>
        <source>move</source>
        <translation>换组</translation>
    </message>
    <message>
        <source>Deleted {count} (kept in the trash for 30 days)</source>
        <translation>已删除 {count} 条（回收站保留 30 天）</translation>
    </message>
    <message>
        <source>delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Remove the text of {names} from everywhere memevo keeps it? This cannot be undone.</source>
        <translation>从 memevo 保存的所有地方清除 {names} 的正文？这一步不能撤销。</translation>
    </message>
    <message>
        <source>Purge</source>
        <translation>彻底清除</translation>
    </message>
    <message>
        <source>Purged {names}</source>
        <translation>已彻底清除 {names}</translation>
    </message>
    <message>
        <source>Undone: {what}</source>
        <translation>已撤销：{what}</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Last seen</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>All clients</source>
        <translation>全部客户端</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Client</source>
        <translation>客户端</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Characters</source>
        <translation>字数</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>The user&apos;s words</source>
        <translation>用户原话</translation>
    </message>
    <message>
        <source>Proposal</source>
        <translation>提议</translation>
    </message>
    <message>
        <source>Confirm one by one</source>
        <translation>逐条确认</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待确认</translation>
    </message>
    <message>
        <source>shown, not answered</source>
        <translation>已弹出，未回答</translation>
    </message>
    <message>
        <source>Match</source>
        <translation>相似度</translation>
    </message>
    <message>
        <source>Deprecated</source>
        <translation>已废弃</translation>
    </message>
    <message>
        <source>The trash keeps memories for 30 days.</source>
        <translation>回收站保留 30 天。</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>删除于</translation>
    </message>
    <message>
        <source>memevo — memories</source>
        <translation>memevo — 记忆</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Pending</source>
        <translation>待确认</translation>
    </message>
    <message>
        <source>Injection log</source>
        <translation>注入记录</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Memory and recall</source>
        <translation>记忆与召回</translation>
    </message>
    <message>
        <source>Side API (the judge that proposes memories)</source>
        <translation>旁路接口（判断并提议记忆的模型）</translation>
    </message>
    <message>
        <source>API key (stored in the OS keyring, never shown)</source>
        <translation>API 密钥（存在系统钥匙串里，从不显示）</translation>
    </message>
    <message>
        <source>Save key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>Clear key</source>
        <translation>清除密钥</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>向量模型</translation>
    </message>
    <message>
        <source>Provision</source>
        <translation>准备模型</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>Settings cannot be saved until config.json is fixed or deleted.</source>
        <translation>config.json 修好或删除之前，设置无法保存。</translation>
    </message>
    <message>
        <source>Nothing saved: config.json is broken.</source>
        <translation>没有保存：config.json 已损坏。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Saved {saved}, not saved {failed}: see the messages next to the fields.</source>
        <translation>已保存 {saved} 项，{failed} 项没有保存：见各项旁边的说明。</translation>
    </message>
    <message>
        <source>Saved {n} settings.</source>
        <translation>已保存 {n} 项设置。</translation>
    </message>
    <message>
        <source>No changes.</source>
        <translation>没有改动。</translation>
    </message>
    <message>
        <source>Not saved: {reason}</source>
        <translation>没有保存：{reason}</translation>
    </message>
    <message>
        <source>Not reset: {reason}</source>
        <translation>没有恢复默认：{reason}</translation>
    </message>
    <message>
        <source>Back to the default.</source>
        <translation>已恢复默认。</translation>
    </message>
    <message>
        <source>Key: set, from the environment variable {env}, which overrides the keyring.</source>
        <translation>密钥：已设置，来自环境变量 {env}（优先于钥匙串）。</translation>
    </message>
    <message>
        <source>Key: set, in the OS keyring.</source>
        <translation>密钥：已设置，存在系统钥匙串里。</translation>
    </message>
    <message>
        <source>Key: not set.</source>
        <translation>密钥：未设置。</translation>
    </message>
    <message>
        <source>The keyring cannot be used: {problem}</source>
        <translation>钥匙串不可用：{problem}</translation>
    </message>
    <message>
        <source>Key not saved: the field is empty.</source>
        <translation>密钥没有保存：输入框是空的。</translation>
    </message>
    <message>
        <source>Key not saved: {reason}</source>
        <translation>密钥没有保存：{reason}</translation>
    </message>
    <message>
        <source>Key saved in the OS keyring.</source>
        <translation>密钥已存入系统钥匙串。</translation>
    </message>
    <message>
        <source>Key removed from the keyring.</source>
        <translation>密钥已从钥匙串删除。</translation>
    </message>
    <message>
        <source>There was no key in the keyring.</source>
        <translation>钥匙串里本来就没有密钥。</translation>
    </message>
    <message>
        <source>Testing {base} with {model}…</source>
        <translation>正在用 {model} 测试 {base}…</translation>
    </message>
    <message>
        <source>Cannot test: {field} {reason}</source>
        <translation>无法测试：{field} {reason}</translation>
    </message>
    <message>
        <source>Cannot test: no API key is set.</source>
        <translation>无法测试：还没有设置 API 密钥。</translation>
    </message>
    <message>
        <source>Connection failed: {reason}</source>
        <translation>连接失败：{reason}</translation>
    </message>
    <message>
        <source>Connection OK: answered in {ms} ms.</source>
        <translation>连接正常：{ms} ms 内回答。</translation>
    </message>
    <message>
        <source>provisioned</source>
        <translation>已就绪</translation>
    </message>
    <message>
        <source>not provisioned</source>
        <translation>未准备</translation>
    </message>
    <message>
        <source>{state}, in use</source>
        <translation>{state}，正在使用</translation>
    </message>
    <message>
        <source>Provisioning {model}…</source>
        <translation>正在准备 {model}…</translation>
    </message>
    <message>
        <source>Provisioning {model} failed: {reason}</source>
        <translation>准备 {model} 失败：{reason}</translation>
    </message>
    <message>
        <source>{model} is ready ({source}) and set as the model; it is used after memevo restarts.</source>
        <translation>{model} 已就绪（{source}）并设为当前模型；memevo 重启后生效。</translation>
    </message>
    <message>
        <source>Memory on</source>
        <translation>记忆开启</translation>
    </message>
    <message>
        <source>Off: hooks inject nothing and learning stops (the CLI still works).</source>
        <translation>关闭后：hook 不注入任何内容，也不再学习（命令行照常可用）。</translation>
    </message>
    <message>
        <source>Memories per prompt</source>
        <translation>每次最多召回</translation>
    </message>
    <message>
        <source>At most this many rules and this many project facts.</source>
        <translation>规则和项目事实各最多召回这么多条。</translation>
    </message>
    <message>
        <source>Rule recall minimum</source>
        <translation>规则召回下限</translation>
    </message>
    <message>
        <source>0 to 1; empty: the model&apos;s value; -1: off.</source>
        <translation>0 到 1；留空：用模型的值；-1：关闭。</translation>
    </message>
    <message>
        <source>Project recall minimum</source>
        <translation>项目事实召回下限</translation>
    </message>
    <message>
        <source>Lead of the top hit</source>
        <translation>第一名的领先幅度</translation>
    </message>
    <message>
        <source>Its required lead over the second, 0 to 1; -1: off.</source>
        <translation>第一名需要领先第二名多少，0 到 1；-1：关闭。</translation>
    </message>
    <message>
        <source>Show what was recalled</source>
        <translation>显示召回内容</translation>
    </message>
    <message>
        <source>Claude Code: also show you what was recalled.</source>
        <translation>Claude Code：也把召回了什么显示给你看。</translation>
    </message>
    <message>
        <source>Ask before remembering</source>
        <translation>写入前确认</translation>
    </message>
    <message>
        <source>Ask before writing what the side judge proposes.</source>
        <translation>旁路模型提议的记忆，写入前先问你。</translation>
    </message>
    <message>
        <source>Side judge wait (ms)</source>
        <translation>旁路判断等待（毫秒）</translation>
    </message>
    <message>
        <source>How long the end of a turn waits, 0 to 60000 ms.</source>
        <translation>一轮对话结束时最多等多久，0 到 60000 毫秒。</translation>
    </message>
    <message>
        <source>Idle days before decay</source>
        <translation>闲置多少天开始衰减</translation>
    </message>
    <message>
        <source>Idle days before a memory loses 0.05.</source>
        <translation>一条记忆闲置多少天后扣 0.05。</translation>
    </message>
    <message>
        <source>A sentence-transformers model id, or a folder.</source>
        <translation>sentence-transformers 模型 id，或一个文件夹。</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>接口地址</translation>
    </message>
    <message>
        <source>An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1</source>
        <translation>OpenAI 兼容的接口，例如 https://api.openai.com/v1</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The model name the side judge asks for.</source>
        <translation>旁路判断所用的模型名。</translation>
    </message>
    <message>
        <source>Side API calls per day</source>
        <translation>旁路接口每日调用上限</translation>
    </message>
    <message>
        <source>At most this many calls per day (a cost guard).</source>
        <translation>每天最多调用这么多次（控制费用）。</translation>
    </message>
    <message>
        <source>Send the previous answer</source>
        <translation>附带上一条回答</translation>
    </message>
    <message>
        <source>Also send the previous assistant message, redacted.</source>
        <translation>同时发送上一条助手回答（已脱敏）。</translation>
    </message>
    <message>
        <source>default: {value} (the model&apos;s value)</source>
        <translation>默认：{value}（模型的值）</translation>
    </message>
    <message>
        <source>default: none</source>
        <translation>默认：无</translation>
    </message>
    <message>
        <source>default: on</source>
        <translation>默认：开</translation>
    </message>
    <message>
        <source>default: off</source>
        <translation>默认：关</translation>
    </message>
    <message>
        <source>default: {value}</source>
        <translation>默认：{value}</translation>
    </message>
    <message>
        <source>Reset to default</source>
        <translation>恢复默认</translation>
    </message>
    <message>
        <source>memevo: {error}. Run `memevo model provision` in a terminal to see why.</source>
        <translation>memevo：{error}。在终端运行 `memevo model provision` 查看原因。</translation>
    </message>
    <message>
        <source>memevo: config.json has a problem: {problem}</source>
        <translation>memevo：config.json 有问题：{problem}</translation>
    </message>
    <message>
        <source>memevo: paused — nothing is injected or learned. Resume from this menu.</source>
        <translation>memevo：已暂停——不注入也不学习。可在本菜单恢复。</translation>
    </message>
    <message>
        <source>memevo: loading the model — {stage}</source>
        <translation>memevo：正在加载模型——{stage}</translation>
    </message>
    <message>
        <source>memevo: {count} memories recalled; learning is off — set the side API in Settings or run `memevo setup`.</source>
        <translation>memevo：{count} 条记忆可召回；学习未开启——在“设置”里配置旁路接口，或运行 `memevo setup`。</translation>
    </message>
    <message>
        <source>memevo: working — {count} memories</source>
        <translation>memevo：运行中——{count} 条记忆</translation>
    </message>
    <message>
        <source>Open panel</source>
        <translation>打开面板</translation>
    </message>
    <message>
        <source>Pending proposals (0)</source>
        <translation>待确认的记忆 (0)</translation>
    </message>
    <message>
        <source>Pause memory</source>
        <translation>暂停记忆</translation>
    </message>
    <message>
        <source>Confirm before writing</source>
        <translation>写入前确认</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Set up clients…</source>
        <translation>设置客户端…</translation>
    </message>
    <message>
        <source>Clients</source>
        <translation>客户端</translation>
    </message>
    <message>
        <source>Quit memevo</source>
        <translation>退出 memevo</translation>
    </message>
    <message>
        <source>memevo needs attention</source>
        <translation>memevo 需要处理</translation>
    </message>
    <message>
        <source>Resume memory</source>
        <translation>恢复记忆</translation>
    </message>
    <message>
        <source>Pending proposals ({count})</source>
        <translation>待确认的记忆 ({count})</translation>
    </message>
    <message>
        <source>nothing needed repairing</source>
        <translation>没有需要修复的</translation>
    </message>
    <message>
        <source>memevo restored its registration in {client} ({what}). Click to stop repairing {client}.</source>
        <translation>memevo 恢复了它在 {client} 里的注册（{what}）。点这里可停止自动修复 {client}。</translation>
    </message>
    <message>
        <source>memevo repaired {client}</source>
        <translation>memevo 修复了 {client}</translation>
    </message>
    <message>
        <source>memevo could not repair {client}</source>
        <translation>memevo 没能修复 {client}</translation>
    </message>
    <message>
        <source>memevo will leave {client}&apos;s files alone. Turn repairs back on from Clients in this menu.</source>
        <translation>memevo 不再改动 {client} 的文件。可在本菜单的“客户端”里重新开启自动修复。</translation>
    </message>
    <message>
        <source>memevo cannot watch the clients&apos; files</source>
        <translation>memevo 无法监视客户端的配置文件</translation>
    </message>
    <message>
        <source>&lt;b&gt;Memories&lt;/b&gt;: {rules} rules ({rules_old} deprecated), {facts} project facts ({facts_old} deprecated)</source>
        <translation>&lt;b&gt;记忆&lt;/b&gt;：规则 {rules}（已废弃 {rules_old}），项目事实 {facts}（已废弃 {facts_old}）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Confidence&lt;/b&gt; (live memories):</source>
        <translation>&lt;b&gt;置信度分布&lt;/b&gt;（有效记忆）：</translation>
    </message>
    <message>
        <source>&lt;b&gt;Last daily maintenance&lt;/b&gt;: {day}</source>
        <translation>&lt;b&gt;上次每日维护&lt;/b&gt;：{day}</translation>
    </message>
    <message>
        <source>not run yet</source>
        <translation>还没有运行过</translation>
    </message>
    <message>
        <source>&lt;b&gt;Side API&lt;/b&gt;: {calls} / {limit} calls today</source>
        <translation>&lt;b&gt;旁路接口&lt;/b&gt;：今天调用 {calls} / {limit} 次</translation>
    </message>
    <message>
        <source>&lt;b&gt;Recent errors&lt;/b&gt;:</source>
        <translation>&lt;b&gt;最近的错误&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>&lt;b&gt;Model&lt;/b&gt;: {model} ({state}), thresholds rule {rule}, project {project}, at most {top_k} per group</source>
        <translation>&lt;b&gt;模型&lt;/b&gt;：{model}（{state}），阈值 rule {rule}、project {project}，每组最多 {top_k} 条</translation>
    </message>
    <message>
        <source>loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <source>loading</source>
        <translation>加载中</translation>
    </message>
    <message>
        <source>{client} · {event}: last {last}, service time {ms} ms, {count} times</source>
        <translation>{client} · {event}：最近 {last}，服务端耗时 {ms} ms，共 {count} 次</translation>
    </message>
    <message>
        <source>registered</source>
        <translation>已注册</translation>
    </message>
    <message>
        <source>registration missing</source>
        <translation>注册信息缺失</translation>
    </message>
    <message>
        <source>registration out of date</source>
        <translation>注册信息过期</translation>
    </message>
    <message>
        <source>removed (uninstall --only)</source>
        <translation>已移除（uninstall --only）</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>not registered — run setup</source>
        <translation>未注册——请运行设置</translation>
    </message>
    <message>
        <source>registered; repairs stopped</source>
        <translation>已注册，已停止自动修复</translation>
    </message>
    <message>
        <source>{client}: {state}</source>
        <translation>{client}：{state}</translation>
    </message>
    <message>
        <source>Repair now</source>
        <translation>立即修复</translation>
    </message>
    <message>
        <source>Stop repairing this client</source>
        <translation>停止自动修复这个客户端</translation>
    </message>
    <message>
        <source>Repair it again when it changes</source>
        <translation>文件变动时重新自动修复</translation>
    </message>
    <message>
        <source>No client hook has fired yet</source>
        <translation>还没有客户端的 hook 触发过</translation>
    </message>
    <message>
        <source>{client} · {event}: {last} ({count} times)</source>
        <translation>{client} · {event}：{last}（{count} 次）</translation>
    </message>
    <message>
        <source>memevo could not learn</source>
        <translation>memevo 没能学习</translation>
    </message>
    <message>
        <source>Memory confirmation · memevo</source>
        <translation>记忆确认·插件</translation>
    </message>
    <message>
        <source>Rules and preferences (rule)</source>
        <translation>规则与偏好（rule）</translation>
    </message>
    <message>
        <source>Project facts (project)</source>
        <translation>项目事实（project）</translation>
    </message>
    <message>
        <source>&lt;b&gt;You said:&lt;/b&gt; {words}</source>
        <translation>&lt;b&gt;你说：&lt;/b&gt;{words}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Proposal:&lt;/b&gt; {what}</source>
        <translation>&lt;b&gt;提议：&lt;/b&gt;{what}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Group:&lt;/b&gt; {group}</source>
        <translation>&lt;b&gt;分组：&lt;/b&gt;{group}</translation>
    </message>
    <message>
        <source>{count} characters (6–400)</source>
        <translation>{count} 字（6–400）</translation>
    </message>
    <message>
        <source>{count} characters: the text needs 6–400</source>
        <translation>{count} 字：正文需要 6–400 字</translation>
    </message>
    <message>
        <source>This memory was not written: {error}</source>
        <translation>这条记忆没有写入：{error}</translation>
    </message>
    <message>
        <source>Not written: {error}</source>
        <translation>没有写入：{error}</translation>
    </message>
</context>
</TS>
