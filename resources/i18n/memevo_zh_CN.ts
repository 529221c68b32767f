<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <source>Search failed: {error}</source>
        <translation>搜索失败：{error}</translation>
    </message>
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
        <source>All scopes</source>
        <translation>全部范围</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>One repository</source>
        <translation>某个仓库</translation>
    </message>
    <message>
        <source>Project facts learned in a repository are recalled only there</source>
        <translation>在某个仓库里学到的项目事实只在那个仓库召回</translation>
    </message>
    <message>
        <source>Show deprecated</source>
        <translation>显示已废弃</translation>
    </message>
    <message>
        <source>Stale only</source>
        <translation>只看可能已过时的</translation>
    </message>
    <message>
        <source>Only memories whose repository no longer has the names they give</source>
        <translation>只显示其仓库中已找不到所提名字的记忆</translation>
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
        <source>Pin / unpin</source>
        <translation>置顶 / 取消置顶</translation>
    </message>
    <message>
        <source>History…</source>
        <translation>历史…</translation>
    </message>
    <message>
        <source>Import notes…</source>
        <translation>导入笔记…</translation>
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
        <source>#{id} “{excerpt}”</source>
        <translation>#{id}「{excerpt}」</translation>
    </message>
    <message>
        <source>Remove the text of these memories from everywhere memevo keeps it? This cannot be undone.</source>
        <translation>从 memevo 保存的所有地方清除这些记忆的正文？这一步不能撤销。</translation>
    </message>
    <message>
        <source>History of #{id}</source>
        <translation>#{id} 的历史</translation>
    </message>
    <message>
        <source>Now: {text}</source>
        <translation>现在：{text}</translation>
    </message>
    <message>
        <source>Recall cues: {cues}</source>
        <translation>召回线索：{cues}</translation>
    </message>
    <message>
        <source>v{version} · {start} – {end} · {reason}
{text}</source>
        <translation>v{version} · {start} – {end} · {reason}
{text}</translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation>恢复这个版本</translation>
    </message>
    <message>
        <source>Import notes</source>
        <translation>导入笔记</translation>
    </message>
    <message>
        <source>Checked statements are imported. Switch a selected one&apos;s group with the buttons.</source>
        <translation>勾选的条目会被导入。用下面的按钮切换选中条目的分组。</translation>
    </message>
    <message>
        <source>Import checked</source>
        <translation>导入勾选的</translation>
    </message>
    <message>
        <source>changed by the repository&apos;s shared facts file ({file})</source>
        <translation>由仓库的共享事实文件改动（{file}）</translation>
    </message>
    <message>
        <source>As rule</source>
        <translation>改为规则</translation>
    </message>
    <message>
        <source>As project fact</source>
        <translation>改为项目事实</translation>
    </message>
    <message>
        <source>Still working on the last change…</source>
        <translation>还在处理上一个改动…</translation>
    </message>
    <message>
        <source>Select a memory first.</source>
        <translation>请先选中一条记忆。</translation>
    </message>
    <message>
        <source>{group} in {repository}</source>
        <translation>{group}（{repository}）</translation>
    </message>
    <message>
        <source>said in {count} session, {first}..{last}</source>
        <translation>在 {count} 个会话中说过，{first}..{last}</translation>
    </message>
    <message>
        <source>said in {count} sessions, {first}..{last}</source>
        <translation>在 {count} 个会话中说过，{first}..{last}</translation>
    </message>
    <message>
        <source>said in {count} sessions</source>
        <translation>在 {count} 个会话中说过</translation>
    </message>
    <message>
        <source>says it is to last</source>
        <translation>说明了要长期有效</translation>
    </message>
    <message>
        <source>a correction of the assistant</source>
        <translation>纠正过助手</translation>
    </message>
    <message>
        <source>memevo can look through your past sessions in your coding assistants for what you said again and again, and propose it as memories. Nothing is kept until you accept it; what you skip is never proposed again.</source>
        <translation>memevo 可以翻阅你在编程助手里的历史会话，找出你反复说过的话，提议为记忆。在你接受之前什么都不会保存；跳过的不会再提议。</translation>
    </message>
    <message>
        <source>Look through past sessions</source>
        <translation>翻阅历史会话</translation>
    </message>
    <message>
        <source>Improve the wording…</source>
        <translation>改进措辞…</translation>
    </message>
    <message>
        <source>Your side API&apos;s model proposes a clearer wording and group for each candidate; you see the number of calls before it starts.</source>
        <translation>由旁路接口的模型为每条候选提议更清楚的措辞和分组；开始之前会先告诉你要调用几次。</translation>
    </message>
    <message>
        <source>Accept (a)</source>
        <translation>接受 (a)</translation>
    </message>
    <message>
        <source>Edit… (e)</source>
        <translation>编辑… (e)</translation>
    </message>
    <message>
        <source>Change group (g)</source>
        <translation>换分组 (g)</translation>
    </message>
    <message>
        <source>Other wording (o)</source>
        <translation>另一种措辞 (o)</translation>
    </message>
    <message>
        <source>Skip (s)</source>
        <translation>跳过 (s)</translation>
    </message>
    <message>
        <source>Accept all shown (A)</source>
        <translation>全部接受 (A)</translation>
    </message>
    <message>
        <source>Reading your sessions…</source>
        <translation>正在读取你的会话…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>{prompts} prompts in {sessions} sessions; reading their meaning…</source>
        <translation>{sessions} 个会话中的 {prompts} 条提问；正在理解它们的意思…</translation>
    </message>
    <message>
        <source>Comparing with your memories…</source>
        <translation>正在与已有记忆对比…</translation>
    </message>
    <message>
        <source>Asking the side model: call {call} of {calls}…</source>
        <translation>正在询问旁路模型：第 {call} 次调用，共 {calls} 次…</translation>
    </message>
    <message>
        <source>{prompts} prompts in {sessions} sessions; finding what lasts…</source>
        <translation>{sessions} 个会话中的 {prompts} 条提问；正在找出长期有效的内容…</translation>
    </message>
    <message>
        <source>Cancelled: nothing was kept or recorded.</source>
        <translation>已取消：没有保存或记录任何内容。</translation>
    </message>
    <message>
        <source>{count} to review. Nothing is kept until you accept it.</source>
        <translation>{count} 条待审阅。在你接受之前什么都不会保存。</translation>
    </message>
    <message>
        <source>Nothing new in your sessions since the last review.</source>
        <translation>自上次审阅以来，会话中没有新内容。</translation>
    </message>
    <message>
        <source>No past sessions found: no coding assistant&apos;s transcripts are on this machine.</source>
        <translation>没有找到历史会话：本机上没有编程助手的会话记录。</translation>
    </message>
    <message>
        <source>No candidates: nothing was said again, or said to last, that is not a memory already.</source>
        <translation>没有候选：没有反复说过或要求长期有效、且尚未成为记忆的内容。</translation>
    </message>
    <message>
        <source>Improve the wording</source>
        <translation>改进措辞</translation>
    </message>
    <message>
        <source>No side API is set up, so the wording is not improved; the candidates stand as found. To use one, set its address, model and key in Settings.</source>
        <translation>还没有设置旁路接口，所以措辞没有改进，候选保持原样。要使用旁路接口，请在“设置”里填写它的地址、模型和密钥。</translation>
    </message>
    <message>
        <source>This makes {count} call to {address} (model {model}).</source>
        <translation>这会调用 {address}（模型 {model}）{count} 次。</translation>
    </message>
    <message>
        <source>This makes {count} calls to {address} (model {model}).</source>
        <translation>这会调用 {address}（模型 {model}）{count} 次。</translation>
    </message>
    <message>
        <source>Improve the wording of {covered} of {count} candidates with your side API?</source>
        <translation>用旁路接口改进 {count} 条候选中 {covered} 条的措辞吗？</translation>
    </message>
    <message>
        <source>Sent: each candidate&apos;s text, group and repositories, and your words, with secrets redacted. Nothing is kept until you accept it.</source>
        <translation>发送的内容：每条候选的正文、分组和所在仓库，以及你的原话，密钥已隐去。在你接受之前，什么都不会保存。</translation>
    </message>
    <message>
        <source>Not improved; the candidates stand as found.</source>
        <translation>没有改进，候选保持原样。</translation>
    </message>
    <message>
        <source>Cancelled. The side model improved {count} of them.</source>
        <translation>已取消。旁路模型改进了其中 {count} 条。</translation>
    </message>
    <message>
        <source>The side model improved {count} of them, then stopped: {reason}</source>
        <translation>旁路模型改进了其中 {count} 条，然后停止了：{reason}</translation>
    </message>
    <message>
        <source>The side model improved {count} of them.</source>
        <translation>旁路模型改进了其中 {count} 条。</translation>
    </message>
    <message>
        <source>the day&apos;s limit of side API calls (sideDailyLimit, in Settings) is reached</source>
        <translation>今天的旁路接口调用次数已到上限（sideDailyLimit，见“设置”）</translation>
    </message>
    <message>
        <source>Not done: {error}</source>
        <translation>没有完成：{error}</translation>
    </message>
    <message>
        <source>Edit the candidate</source>
        <translation>编辑候选</translation>
    </message>
    <message>
        <source>The text to keep:</source>
        <translation>要保存的正文：</translation>
    </message>
    <message>
        <source>Not changed: {error}</source>
        <translation>未修改：{error}</translation>
    </message>
    <message>
        <source>Kept {count}.</source>
        <translation>已保存 {count} 条。</translation>
    </message>
    <message>
        <source>{count} already there.</source>
        <translation>{count} 条已存在。</translation>
    </message>
    <message>
        <source>Skipped: it is not proposed again.</source>
        <translation>已跳过：不会再提议。</translation>
    </message>
    <message>
        <source>Every candidate is answered: kept {kept}, skipped {skipped}.</source>
        <translation>所有候选都已处理：保存 {kept} 条，跳过 {skipped} 条。</translation>
    </message>
    <message>
        <source>the side model&apos;s wording</source>
        <translation>旁路模型的措辞</translation>
    </message>
    <message>
        <source>As found:</source>
        <translation>原先找到的：</translation>
    </message>
    <message>
        <source>The side model&apos;s wording:</source>
        <translation>旁路模型的措辞：</translation>
    </message>
    <message>
        <source>Why: {why}</source>
        <translation>原因：{why}</translation>
    </message>
    <message>
        <source>Your words:</source>
        <translation>你的原话：</translation>
    </message>
    <message>
        <source>#{id} is no longer in the trash</source>
        <translation>#{id} 已经不在回收站里</translation>
    </message>
    <message>
        <source>#{id} changed since</source>
        <translation>#{id} 之后又被改动过</translation>
    </message>
    <message>
        <source>Nothing to undo</source>
        <translation>没有可以撤销的操作</translation>
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
        <source>Text ({min}–{max} characters; a Chinese character counts as two toward the minimum):</source>
        <translation>正文（{min}–{max} 个字符；计算下限时一个汉字算两个）：</translation>
    </message>
    <message>
        <source>Rule or preference: how you want things done</source>
        <translation>规则或偏好：你希望事情怎么做</translation>
    </message>
    <message>
        <source>Project fact: how a codebase is</source>
        <translation>项目事实：某个代码库是什么样的</translation>
    </message>
    <message>
        <source>Where it applies:</source>
        <translation>适用范围：</translation>
    </message>
    <message>
        <source>Everywhere</source>
        <translation>所有地方</translation>
    </message>
    <message>
        <source>Only in one repository:</source>
        <translation>只在一个仓库里：</translation>
    </message>
    <message>
        <source>no folder chosen</source>
        <translation>还没选文件夹</translation>
    </message>
    <message>
        <source>Choose folder…</source>
        <translation>选择文件夹…</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>The repository this memory belongs to</source>
        <translation>这条记忆所属的仓库</translation>
    </message>
    <message>
        <source>At least {min} characters.</source>
        <translation>至少 {min} 个字符。</translation>
    </message>
    <message>
        <source>At most {max} characters ({count} now).</source>
        <translation>最多 {max} 个字符（现在 {count} 个）。</translation>
    </message>
    <message>
        <source>Choose the repository&apos;s folder, or pick Everywhere.</source>
        <translation>请选择仓库的文件夹，或者改选“所有地方”。</translation>
    </message>
    <message>
        <source>Already there: #{id} was reinforced instead</source>
        <translation>已有这条记忆：改为强化 #{id}</translation>
    </message>
    <message>
        <source>The repository whose notes to read</source>
        <translation>要读取其笔记的仓库</translation>
    </message>
    <message>
        <source>Import statements from your own notes (~/.claude/CLAUDE.md, Claude Code&apos;s memory)? You can also read one repository&apos;s CLAUDE.md, AGENTS.md and Cursor rules. You choose which statements to import next.</source>
        <translation>从你自己的笔记（~/.claude/CLAUDE.md、Claude Code 的记忆）导入条目？也可以同时读取某个仓库的 CLAUDE.md、AGENTS.md 和 Cursor 规则。下一步由你挑选要导入哪些条目。</translation>
    </message>
    <message>
        <source>Only my notes</source>
        <translation>只读我的笔记</translation>
    </message>
    <message>
        <source>Also a repository&apos;s…</source>
        <translation>再加一个仓库的…</translation>
    </message>
    <message>
        <source>Undo of “{what}” is no longer possible: {why}.</source>
        <translation>无法再撤销“{what}”：{why}。</translation>
    </message>
    <message>
        <source>None of the selected memories is stale.</source>
        <translation>选中的记忆都没有过时。</translation>
    </message>
    <message>
        <source>{names}: not stale, the repository has the names again.</source>
        <translation>{names}：没有过时，仓库里又有这些名字了。</translation>
    </message>
    <message>
        <source>Kept {names} as true.</source>
        <translation>已确认 {names} 仍然成立。</translation>
    </message>
    <message>
        <source>still true {names}</source>
        <translation>确认 {names} 仍然成立</translation>
    </message>
    <message>
        <source>everywhere</source>
        <translation>所有地方</translation>
    </message>
    <message>
        <source>Added #{id} ({group}, {scope}, confidence 0.5)</source>
        <translation>已添加 #{id}（{group}，{scope}，置信度 0.5）</translation>
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
        <source>Pinned {names}: it never decays</source>
        <translation>已置顶 {names}：它不会衰减</translation>
    </message>
    <message>
        <source>Pinned {names}: they never decay</source>
        <translation>已置顶 {names}：不再衰减</translation>
    </message>
    <message>
        <source>Unpinned {names}</source>
        <translation>已取消置顶 {names}</translation>
    </message>
    <message>
        <source>pin {names}</source>
        <translation>置顶 {names}</translation>
    </message>
    <message>
        <source>unpin {names}</source>
        <translation>取消置顶 {names}</translation>
    </message>
    <message>
        <source>restore version {version} of #{id}</source>
        <translation>把 #{id} 恢复为版本 {version}</translation>
    </message>
    <message>
        <source>Imported {count} statement.</source>
        <translation>已导入 {count} 条。</translation>
    </message>
    <message>
        <source>move {names}</source>
        <translation>移动 {names}</translation>
    </message>
    <message>
        <source>Deleted {count} memory (kept in the trash for 30 days)</source>
        <translation>已删除 {count} 条（在回收站保留 30 天）</translation>
    </message>
    <message>
        <source>Deleted {count} memories (kept in the trash for 30 days)</source>
        <translation>已删除 {count} 条（在回收站保留 30 天）</translation>
    </message>
    <message>
        <source>delete {names}</source>
        <translation>删除 {names}</translation>
    </message>
    <message>
        <source>#{id} has no earlier texts.</source>
        <translation>#{id} 没有更早的正文。</translation>
    </message>
    <message>
        <source>#{id} has version {version}&apos;s text again</source>
        <translation>#{id} 已恢复为版本 {version} 的正文</translation>
    </message>
    <message>
        <source>Nothing imported.</source>
        <translation>没有导入任何内容。</translation>
    </message>
    <message>
        <source>Nothing new to import.</source>
        <translation>没有新的可导入内容。</translation>
    </message>
    <message>
        <source>Imported {count} statements.</source>
        <translation>已导入 {count} 条。</translation>
    </message>
    <message>
        <source>Moved {names}</source>
        <translation>已换组：{names}</translation>
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
        <source>Acts on one selected memory.</source>
        <translation>作用于选中的一条记忆。</translation>
    </message>
    <message>
        <source>Acts on two selected memories.</source>
        <translation>作用于选中的两条记忆。</translation>
    </message>
    <message>
        <source>Acts on the selected stale memories: their repository is checked again; names still missing stop counting.</source>
        <translation>作用于选中的可能已过时的记忆：再查一次它们的仓库；仍然找不到的名字不再算数。</translation>
    </message>
    <message>
        <source>Acts on the selected memories.</source>
        <translation>作用于选中的记忆。</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>手动编辑</translation>
    </message>
    <message>
        <source>replaced by what was learned</source>
        <translation>被学习到的内容替换</translation>
    </message>
    <message>
        <source>merged with what was learned</source>
        <translation>与学习到的内容合并</translation>
    </message>
    <message>
        <source>version {version} restored</source>
        <translation>恢复为版本 {version}</translation>
    </message>
    <message>
        <source>merged with #{id}</source>
        <translation>与 #{id} 合并</translation>
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
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>How much memevo trusts the memory, 0.4 to 1.0: it rises when the memory is recalled or confirmed again, and falls when it goes unused.</source>
        <translation>memevo 对这条记忆的把握，0.4 到 1.0：被召回或再次确认时上升，长期不用时下降。</translation>
    </message>
    <message>
        <source>How closely the memory matches what you searched for (By meaning): higher is closer; it orders the list.</source>
        <translation>这条记忆与你（按含义）搜索的内容有多接近：越高越接近，列表按它排序。</translation>
    </message>
    <message>
        <source>{text} (may be out of date: {reason})</source>
        <translation>{text}（可能已过时：{reason}）</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>已置顶</translation>
    </message>
    <message>
        <source>Stale</source>
        <translation>可能已过时</translation>
    </message>
    <message>
        <source>{names} not found in {repo} since {day}</source>
        <translation>自 {day} 起在 {repo} 中找不到 {names}</translation>
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
        <source>Prompt or tool call</source>
        <translation>提示词或工具调用</translation>
    </message>
    <message>
        <source>Characters</source>
        <translation>字数</translation>
    </message>
    <message>
        <source>Double-click a row to see what it injected and why.</source>
        <translation>双击一行，查看它注入了什么、为什么注入。</translation>
    </message>
    <message>
        <source>This row is not in its session&apos;s receipts.</source>
        <translation>这一行不在它所属会话的注入凭据里。</translation>
    </message>
    <message>
        <source>(none: a session start has no prompt)</source>
        <translation>（无：会话开始没有提示词）</translation>
    </message>
    <message>
        <source>(none: the end of a turn has no prompt)</source>
        <translation>（无：一轮结束时没有提示词）</translation>
    </message>
    <message>
        <source>(not kept)</source>
        <translation>（未保留）</translation>
    </message>
    <message>
        <source>Logged before memevo kept an excerpt of each prompt, or removed when a memory was purged.</source>
        <translation>这条记录产生于 memevo 开始保留提示词摘录之前，或摘录在彻底清除某条记忆时被一并删除。</translation>
    </message>
    <message>
        <source>How many characters memevo added to the model&apos;s context: the memories&apos; texts and its own notes around them (the learning reminder, at a session start the division of duties).</source>
        <translation>memevo 加入模型上下文的字数：记忆的文字，以及它自己附带的说明（学习提醒；会话开始时还有分工说明）。</translation>
    </message>
    <message>
        <source>{count} memories: {texts}</source>
        <translation>{count} 条记忆：{texts}</translation>
    </message>
    <message>
        <source>(no memory: memevo&apos;s question about what it learned)</source>
        <translation>（没有记忆：memevo 就学到的内容提出的问题）</translation>
    </message>
    <message>
        <source>(no memory: memevo&apos;s notes for the session)</source>
        <translation>（没有记忆：memevo 给本会话的说明）</translation>
    </message>
    <message>
        <source>(no memory: memevo&apos;s learning reminder)</source>
        <translation>（没有记忆：memevo 的学习提醒）</translation>
    </message>
    <message>
        <source>memevo&apos;s own note to the model: to propose what is worth remembering from this prompt (or the answer to a question memevo asked). No memory matched the prompt.</source>
        <translation>memevo 自己写给模型的说明：提议这条提示词中值得记住的内容（或是对 memevo 所提问题的回答）。没有记忆与这条提示词匹配。</translation>
    </message>
    <message>
        <source>What was injected, and why</source>
        <translation>注入了什么，为什么</translation>
    </message>
    <message>
        <source>Reading the receipt…</source>
        <translation>正在读取注入凭据…</translation>
    </message>
    <message>
        <source>Answered: {prompt}</source>
        <translation>回应的是：{prompt}</translation>
    </message>
    <message>
        <source>{count} characters: {what}</source>
        <translation>{count} 字：{what}</translation>
    </message>
    <message>
        <source>No receipt for this row: memevo keeps receipts by session, and this one has no session id.</source>
        <translation>这一行没有注入凭据：memevo 按会话保存凭据，而这一行没有会话 ID。</translation>
    </message>
    <message>
        <source>Passed the gate, left out for room: {memory}</source>
        <translation>通过了门槛，但因篇幅所限未注入：{memory}</translation>
    </message>
    <message>
        <source>{count} memory of another repository matched and was left out.</source>
        <translation>另有 {count} 条其他仓库的记忆匹配，未列入。</translation>
    </message>
    <message>
        <source>{count} memories of other repositories matched and were left out.</source>
        <translation>另有 {count} 条其他仓库的记忆匹配，未注入。</translation>
    </message>
    <message>
        <source>Could not read the receipt: {error}</source>
        <translation>无法读取注入凭据：{error}</translation>
    </message>
    <message>
        <source>(purged since)</source>
        <translation>（之后已彻底清除）</translation>
    </message>
    <message>
        <source> [in the trash]</source>
        <translation> ［在回收站中］</translation>
    </message>
    <message>
        <source> [deleted since]</source>
        <translation> ［之后已删除］</translation>
    </message>
    <message>
        <source>score {score} ≥ minimum {minimum} (cosine {cosine}, lexical {lexical})</source>
        <translation>得分 {score} ≥ 门槛 {minimum}（语义相似度 {cosine}，词语匹配 {lexical}）</translation>
    </message>
    <message>
        <source>, with its cues</source>
        <translation>，借助其召回线索</translation>
    </message>
    <message>
        <source>, damped {damped}</source>
        <translation>，减分 {damped}</translation>
    </message>
    <message>
        <source>; it was stale then</source>
        <translation>；当时它可能已过时</translation>
    </message>
    <message>
        <source>a rule listed at session start (pinned first, then by confidence)</source>
        <translation>会话开始时列出的规则（先置顶的，再按置信度）</translation>
    </message>
    <message>
        <source>logged before memevo kept receipts</source>
        <translation>记录于 memevo 保存注入凭据之前</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>#{id} (deleted since)</source>
        <translation>#{id}（之后已删除）</translation>
    </message>
    <message>
        <source>#{id} {text}</source>
        <translation>#{id} {text}</translation>
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
        <source>Select the memories to restore first.</source>
        <translation>请先选中要恢复的记忆。</translation>
    </message>
    <message>
        <source>Restored {names}: back in Memories.</source>
        <translation>已恢复 {names}：它回到了“记忆”里。</translation>
    </message>
    <message>
        <source>Restore failed: {error}</source>
        <translation>恢复失败：{error}</translation>
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
        <source>From past sessions</source>
        <translation>历史会话</translation>
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
        <source>Sharing</source>
        <translation>共享</translation>
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
        <source>Learning (who proposes new memories)</source>
        <translation>学习（由谁提议新记忆）</translation>
    </message>
    <message>
        <source>With this choice: {how}.</source>
        <translation>按这个选择：{how}。</translation>
    </message>
    <message>
        <source>Needs a side API (its address, model and key, below): its model writes the cues.</source>
        <translation>需要先设置旁路接口（下方的地址、模型和密钥）：线索由它的模型写出。</translation>
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
        <source>{count} change is not saved yet: Save keeps it.</source>
        <translation>有 {count} 处修改还没保存：点“保存”保留它们。</translation>
    </message>
    <message>
        <source>{count} changes are not saved yet: Save keeps them.</source>
        <translation>有 {count} 处修改还没保存：点“保存”保留它们。</translation>
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
        <source>Saved {count} setting.</source>
        <translation>已保存 {count} 项设置。</translation>
    </message>
    <message>
        <source>Saved {count} settings.</source>
        <translation>已保存 {count} 项设置。</translation>
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
        <source>memevo can keep the key in {path}, a file only your account can read. It is not encrypted: anyone who can use your account, or an administrator, can read it.</source>
        <translation>memevo 可以把密钥保存在 {path}，这个文件只有你的账户能读取。它没有加密：能使用你这个账户的人或管理员都能读到它。</translation>
    </message>
    <message>
        <source>Keep the key in that file (not encrypted)</source>
        <translation>把密钥保存在这个文件里（不加密）</translation>
    </message>
    <message>
        <source>Move to the keyring</source>
        <translation>移到系统钥匙串</translation>
    </message>
    <message>
        <source>Key: set, in {path}, a file only your account can read (not encrypted).</source>
        <translation>密钥：已设置，保存在 {path}，这个文件只有你的账户能读取（未加密）。</translation>
    </message>
    <message>
        <source>API key (tick the file above to keep it there)</source>
        <translation>API 密钥（勾选上面的文件后保存在那里）</translation>
    </message>
    <message>
        <source>API key (kept in that file, never shown)</source>
        <translation>API 密钥（保存在上述文件里，从不显示）</translation>
    </message>
    <message>
        <source>Key not saved: the field is empty.</source>
        <translation>密钥没有保存：输入框是空的。</translation>
    </message>
    <message>
        <source>Key saved in {path} (only your account can read it; not encrypted).</source>
        <translation>密钥已保存到 {path}（只有你的账户能读取；未加密）。</translation>
    </message>
    <message>
        <source>Key not saved: {reason}</source>
        <translation>密钥没有保存：{reason}</translation>
    </message>
    <message>
        <source>Key removed: its file {path} is deleted.</source>
        <translation>密钥已删除：文件 {path} 已删掉。</translation>
    </message>
    <message>
        <source>Key moved to the OS keyring; its file is deleted.</source>
        <translation>密钥已移到系统钥匙串，原来的文件已删掉。</translation>
    </message>
    <message>
        <source>Key not moved: {reason}</source>
        <translation>密钥没有移动：{reason}</translation>
    </message>
    <message>
        <source>Key saved in the OS keyring.</source>
        <translation>密钥已存入系统钥匙串。</translation>
    </message>
    <message>
        <source>The side judge is a language model of your choice, reached through an OpenAI-compatible API (the side API), that reads what you say to your coding assistant and proposes memories. Optional under automatic learning: without it, your coding assistant&apos;s own model proposes them. Needed when learning is set to the side judge.</source>
        <translation>旁路模型是你自选的一个语言模型，通过兼容 OpenAI 的接口（旁路接口）调用：它读你对编程助手说的话，并提议记忆。自动学习时它是可选的：没有它，就由你的编程助手自己的模型提议。学习方式选了旁路模型时必须配置。</translation>
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
        <source>{model} ({state})</source>
        <translation>{model}（{state}）</translation>
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
        <source>Rules before each action</source>
        <translation>每步操作前召回规则</translation>
    </message>
    <message>
        <source>Before a command or an edit runs (Claude Code, Cursor), recall the rules about it.</source>
        <translation>在执行命令或修改文件之前（Claude Code、Cursor），召回与这一步有关的规则。</translation>
    </message>
    <message>
        <source>Recall cues (with a side API)</source>
        <translation>召回线索（需要旁路接口）</translation>
    </message>
    <message>
        <source>With a side API set up, its model writes once per memory the situations it matters in, and recall uses them; without one, this does nothing. At most half the daily calls.</source>
        <translation>配置了旁路接口时，它的模型会为每条记忆写一次“在什么情况下用得上”，召回时会参考；没有旁路接口时这一项不起作用。最多占每日调用次数的一半。</translation>
    </message>
    <message>
        <source>Session start budget (characters)</source>
        <translation>会话开始注入上限（字符）</translation>
    </message>
    <message>
        <source>The rules injected at session start fit in this many characters, 400 to 10000.</source>
        <translation>会话开始注入的规则不超过这么多字符，400 到 10000。</translation>
    </message>
    <message>
        <source>Recall budget (characters)</source>
        <translation>每轮召回上限（字符）</translation>
    </message>
    <message>
        <source>The memories recalled for a prompt fit in this many characters, 200 to 10000.</source>
        <translation>每轮召回注入的记忆不超过这么多字符，200 到 10000。</translation>
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
        <source>Who proposes memories</source>
        <translation>由谁提议记忆</translation>
    </message>
    <message>
        <source>Automatic: the side judge when its API is set up, else your coding assistant&apos;s own model. Off: nothing is learned.</source>
        <translation>自动：配置了旁路接口就用旁路模型，否则用你的编程助手自己的模型。关闭：什么都不学习。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Minimum match for rules</source>
        <translation>规则的最低匹配度</translation>
    </message>
    <message>
        <source>How closely a rule must match your prompt to be recalled, 0 to 1. Empty: the model&apos;s value. off (or -1): no minimum.</source>
        <translation>规则与你的提示要多接近才会被召回，0 到 1。留空：用模型的值。关（或 -1）：不设下限。</translation>
    </message>
    <message>
        <source>Minimum match for project facts</source>
        <translation>项目事实的最低匹配度</translation>
    </message>
    <message>
        <source>How closely a project fact must match your prompt to be recalled, 0 to 1. Empty: the model&apos;s value. off (or -1): no minimum.</source>
        <translation>项目事实与你的提示要多接近才会被召回，0 到 1。留空：用模型的值。关（或 -1）：不设下限。</translation>
    </message>
    <message>
        <source>Only a clear best match</source>
        <translation>只召回明显最匹配的</translation>
    </message>
    <message>
        <source>A memory is recalled only when it matches your prompt better than the next-best memory by at least this much, 0 to 1. off (or -1): the next-best memory does not matter.</source>
        <translation>一条记忆与你的提示的匹配度要比次匹配的记忆至少高出这么多才会被召回，0 到 1。关（或 -1）：不看次匹配的记忆。</translation>
    </message>
    <message>
        <source>Weight of exact words</source>
        <translation>相同字词的权重</translation>
    </message>
    <message>
        <source>How much using the same words as your prompt counts beside meaning the same, 0 to 2. Empty: the model&apos;s value. 0: meaning only.</source>
        <translation>除了意思相同，与你的提示用了相同的字词占多少分量，0 到 2。留空：用模型的值。0：只看意思。</translation>
    </message>
    <message>
        <source>Ask before writing what the side judge or your coding assistant&apos;s model proposes.</source>
        <translation>旁路模型或你的编程助手的模型提议的记忆，写入前先问你。</translation>
    </message>
    <message>
        <source>Proposals per session</source>
        <translation>每个会话的提议上限</translation>
    </message>
    <message>
        <source>At most this many proposals from your coding assistant&apos;s model per session, 1 to 100.</source>
        <translation>每个会话里，编程助手的模型最多提议这么多条，1 到 100。</translation>
    </message>
    <message>
        <source>Proposals per day</source>
        <translation>每天的提议上限</translation>
    </message>
    <message>
        <source>At most this many proposals from the coding assistants&apos; models per day, all together, 1 to 1000.</source>
        <translation>所有编程助手的模型每天合计最多提议这么多条，1 到 1000。</translation>
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
        <source>Sync every (minutes)</source>
        <translation>同步间隔（分钟）</translation>
    </message>
    <message>
        <source>How often the tray runs memevo sync once a sync remote is set, 0 to 1440; 0: only by hand.</source>
        <translation>设置了同步用的远程仓库后，托盘每隔多少分钟运行一次 memevo sync，0 到 1440；0：只手动同步。</translation>
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
        <source>the model&apos;s value ({value})</source>
        <translation>模型的值（{value}）</translation>
    </message>
    <message>
        <source>Changed, not saved yet.</source>
        <translation>已修改，还没保存。</translation>
    </message>
    <message>
        <source>memevo: nothing can be learned: {error}. Quit and start memevo again.</source>
        <translation>memevo：无法学习新记忆：{error}。请退出并重新启动 memevo。</translation>
    </message>
    <message>
        <source>memevo: config.json has a problem: {problem}</source>
        <translation>memevo：config.json 有问题：{problem}</translation>
    </message>
    <message>
        <source>memevo: paused — nothing injected or learned</source>
        <translation>memevo：已暂停——不注入也不学习</translation>
    </message>
    <message>
        <source>memevo: loading the model — {stage}</source>
        <translation>memevo：正在加载模型——{stage}</translation>
    </message>
    <message>
        <source>memevo: working — {count} memories</source>
        <translation>memevo：运行中——{count} 条记忆</translation>
    </message>
    <message>
        <source>memevo: working — {count} memory</source>
        <translation>memevo：运行中——{count} 条记忆</translation>
    </message>
    <message>
        <source>Learning: your coding assistant&apos;s model proposes memories.</source>
        <translation>学习：由你的编程助手的模型提议记忆。</translation>
    </message>
    <message>
        <source>Learning: the side judge proposes memories.</source>
        <translation>学习：由旁路模型提议记忆。</translation>
    </message>
    <message>
        <source>Learning waits: {reason}</source>
        <translation>学习暂停：{reason}</translation>
    </message>
    <message>
        <source>Recall cues wait: {reason}</source>
        <translation>召回线索暂停：{reason}</translation>
    </message>
    <message>
        <source>memevo: a repository&apos;s shared facts file cannot be read: {problem}. Fix it (or put back the committed file), then choose Read again in the panel&apos;s Sharing tab; the facts read before stay.</source>
        <translation>memevo：一个仓库的共享事实文件无法读取：{problem}。请修好它（或恢复已提交的版本），然后在面板的“共享”标签页中选择“重新读取”；之前读入的事实会保留。</translation>
    </message>
    <message>
        <source>{count} more facts file has a problem (Sharing tab).</source>
        <translation>另有 {count} 个事实文件有问题（见“共享”标签页）。</translation>
    </message>
    <message>
        <source>{count} more facts files have a problem (Sharing tab).</source>
        <translation>另有 {count} 个事实文件有问题（见“共享”标签页）。</translation>
    </message>
    <message>
        <source>memevo: memories kept: {count}. Learning is off, as chosen in Settings.</source>
        <translation>memevo：已存 {count} 条记忆；学习已关闭（你在“设置”里选择了关闭）。</translation>
    </message>
    <message>
        <source>memevo: memories kept: {count}. Learning is off — it is set to the side judge, whose API is not set up. Set it up in Settings, or choose another learning mode.</source>
        <translation>memevo：已存 {count} 条记忆；学习未开启——学习方式是旁路模型，但旁路接口还没配置。请在“设置”里配置它，或换一种学习方式。</translation>
    </message>
    <message>
        <source>memevo: memories kept: {count}. Learning is off — set the side API in Settings, or run “memevo setup” in a terminal.</source>
        <translation>memevo：已存 {count} 条记忆；学习未开启——在“设置”里配置旁路接口，或在终端运行“memevo setup”。</translation>
    </message>
    <message>
        <source>memevo: the memory store is damaged. Run “memevo repair” in a terminal: it stops memevo, keeps a copy of the damaged files and brings back everything that can be saved.</source>
        <translation>memevo：记忆库已损坏。请在终端运行“memevo repair”：它会停止 memevo，先留一份损坏文件的副本，再救回所有还能保住的内容。</translation>
    </message>
    <message>
        <source>memevo: {error}. Run “memevo model provision” in a terminal to see why.</source>
        <translation>memevo：{error}。在终端运行“memevo model provision”查看原因。</translation>
    </message>
    <message>
        <source>Open panel</source>
        <translation>打开面板</translation>
    </message>
    <message>
        <source>No proposals waiting</source>
        <translation>没有待确认的记忆</translation>
    </message>
    <message>
        <source>Pause memory</source>
        <translation>暂停记忆</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>On in every repository…</source>
        <translation>已在所有仓库中启用…</translation>
    </message>
    <message>
        <source>Set up clients…</source>
        <translation>设置客户端…</translation>
    </message>
    <message>
        <source>Sync memories now</source>
        <translation>立即同步记忆</translation>
    </message>
    <message>
        <source>memevo sync</source>
        <translation>memevo 同步</translation>
    </message>
    <message>
        <source>No sync remote yet: set one in the panel&apos;s Sharing tab (a git remote you own), or run “memevo sync REMOTE” once in a terminal.</source>
        <translation>还没有同步远程仓库：请在面板的“共享”标签页中设置一个（你自己的远程仓库），或在终端中运行一次“memevo sync REMOTE”。</translation>
    </message>
    <message>
        <source>memevo sync: a conflict</source>
        <translation>memevo 同步：有冲突</translation>
    </message>
    <message>
        <source>{file} could not be merged: {why}. The memory here is kept as it is.</source>
        <translation>{file} 无法合并：{why}。本机的这条记忆保持不变。</translation>
    </message>
    <message>
        <source>memevo sync: from your other machines</source>
        <translation>memevo 同步：来自你其他电脑的改动</translation>
    </message>
    <message>
        <source>{items}{more}. Undo with “memevo unpin”, “memevo delete” or “memevo restore”.</source>
        <translation>{items}{more}。可以用「memevo unpin」「memevo delete」或「memevo restore」撤销。</translation>
    </message>
    <message>
        <source> and {n} more</source>
        <translation>，另有 {n} 条</translation>
    </message>
    <message>
        <source>memevo sync failed</source>
        <translation>memevo 同步失败</translation>
    </message>
    <message>
        <source>Clients</source>
        <translation>客户端</translation>
    </message>
    <message>
        <source>Quit memevo (until you start it again)</source>
        <translation>退出 memevo（直到你再次启动它）</translation>
    </message>
    <message>
        <source>memevo: {client}&apos;s registration is broken: {why}. Fix it, then choose Repair now under Clients.</source>
        <translation>memevo：{client} 的注册坏了：{why}。修好后，在“客户端”里选“立即修复”。</translation>
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
        <source>No sync remote yet: set one in the panel&apos;s Sharing tab.</source>
        <translation>还没有同步远程仓库：请在面板的“共享”标签页中设置。</translation>
    </message>
    <message>
        <source>Off in {count} repositories…</source>
        <translation>已在 {count} 个仓库中关闭…</translation>
    </message>
    <message>
        <source>Off in {count} repository…</source>
        <translation>已在 {count} 个仓库中关闭…</translation>
    </message>
    <message>
        <source>Pending proposals ({count})</source>
        <translation>待确认的记忆 ({count})</translation>
    </message>
    <message>
        <source>{client} needs one command</source>
        <translation>{client} 还差一条命令</translation>
    </message>
    <message>
        <source>memevo cannot register its MCP server in {client} by itself. Run this in a terminal (Clients → {client} → Copy the command): {command}</source>
        <translation>memevo 无法自行在 {client} 中注册它的 MCP 服务。请在终端里运行这条命令（“客户端”→{client}→“复制命令”）：{command}</translation>
    </message>
    <message>
        <source>memevo repairs {client}&apos;s registration again whenever its files change.</source>
        <translation>{client} 的文件有变化时，memevo 会再次修复它的注册。</translation>
    </message>
    <message>
        <source>memevo no longer repairs {client}&apos;s registration; Repair now still works.</source>
        <translation>memevo 不再自动修复 {client} 的注册；“立即修复”仍可使用。</translation>
    </message>
    <message>
        <source>memevo put its entries back in {client}&apos;s files.</source>
        <translation>memevo 已把它的条目放回 {client} 的文件里。</translation>
    </message>
    <message>
        <source>Now: {state}.</source>
        <translation>现在：{state}。</translation>
    </message>
    <message>
        <source>To stop this, choose Clients → {client} → Stop repairing this client in this menu.</source>
        <translation>不想自动修复的话，在本菜单里选“客户端”→{client}→“停止自动修复这个客户端”。</translation>
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
        <source>memevo cannot watch the clients&apos; files</source>
        <translation>memevo 无法监视客户端的配置文件</translation>
    </message>
    <message>
        <source>Fix the file at the line named (or put back the committed one: git checkout -- .memevo/facts.md), then choose Read again in the Sharing tab. Nothing is read from it until then; the facts read before stay.</source>
        <translation>请修好文件中指出的那一行（或恢复已提交的版本：`git checkout -- .memevo/facts.md`），然后在“共享”标签页中选择“重新读取”。在此之前不会从中读入任何内容；之前读入的事实会保留。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Memories&lt;/b&gt;: rules {rules} ({rules_old} deprecated), project facts {facts} ({facts_old} deprecated)</source>
        <translation>&lt;b&gt;记忆&lt;/b&gt;：规则 {rules}（已废弃 {rules_old}），项目事实 {facts}（已废弃 {facts_old}）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Confidence of the live memories&lt;/b&gt; (how many at each level; new ones start at 0.5):</source>
        <translation>&lt;b&gt;置信度分布&lt;/b&gt;（有效记忆在各档的数量；新记忆从 0.5 开始）：</translation>
    </message>
    <message>
        <source>{count} memory</source>
        <translation>{count} 条</translation>
    </message>
    <message>
        <source>{count} memories</source>
        <translation>{count} 条</translation>
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
        <source>&lt;b&gt;Learning&lt;/b&gt;: {how}</source>
        <translation>&lt;b&gt;学习&lt;/b&gt;：{how}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Side API&lt;/b&gt;: {calls} / {limit} calls today</source>
        <translation>&lt;b&gt;旁路接口&lt;/b&gt;：今天调用 {calls} / {limit} 次</translation>
    </message>
    <message>
        <source>&lt;b&gt;Proposals from the coding assistants&apos; models&lt;/b&gt;: {count} / {per_day} today, at most {per_session} per session</source>
        <translation>&lt;b&gt;编程助手的模型提议&lt;/b&gt;：今天 {count} / {per_day} 条，每个会话最多 {per_session} 条</translation>
    </message>
    <message>
        <source>A shared facts file cannot be read: {problem}</source>
        <translation>共享事实文件无法读取：{problem}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Recent errors&lt;/b&gt;:</source>
        <translation>&lt;b&gt;最近的错误&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>&lt;b&gt;Model&lt;/b&gt;: {model} ({state}); a memory is recalled from a match of {rule} (rules) or {project} (project facts), at most {top_k} per group</source>
        <translation>&lt;b&gt;模型&lt;/b&gt;：{model}（{state}）；相似度达到 {rule}（规则）或 {project}（项目事实）的记忆才会被召回，每组最多 {top_k} 条</translation>
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
        <source>Run this in a terminal: {command}</source>
        <translation>请在终端里运行：{command}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Clients&lt;/b&gt;:</source>
        <translation>&lt;b&gt;客户端&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>{client} · {event}: last {last}, service time {ms} ms, {count}×</source>
        <translation>{client} · {event}：最近 {last}，服务端耗时 {ms} ms，共 {count} 次</translation>
    </message>
    <message>
        <source>&lt;b&gt;Hooks&lt;/b&gt;:</source>
        <translation>&lt;b&gt;hook 活动&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>registered</source>
        <translation>已注册</translation>
    </message>
    <message>
        <source>hooks and MCP server registered</source>
        <translation>hook 和 MCP 服务都已注册</translation>
    </message>
    <message>
        <source>hooks registered; the MCP server needs one command</source>
        <translation>hook 已注册；MCP 服务还差一条命令</translation>
    </message>
    <message>
        <source>registration incomplete; Repair now restores it</source>
        <translation>注册不完整；“立即修复”可以补上</translation>
    </message>
    <message>
        <source>a client file cannot be read</source>
        <translation>有客户端文件无法读取</translation>
    </message>
    <message>
        <source>not registered; run setup</source>
        <translation>未注册；请运行设置</translation>
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
        <source>repairs stopped</source>
        <translation>已停止自动修复</translation>
    </message>
    <message>
        <source>Hooks</source>
        <translation>hook</translation>
    </message>
    <message>
        <source>MCP server</source>
        <translation>MCP 服务</translation>
    </message>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>out of date</source>
        <translation>已过时</translation>
    </message>
    <message>
        <source>cannot be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>needs one command</source>
        <translation>还差一条命令</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>{part}: {state}</source>
        <translation>{part}：{state}</translation>
    </message>
    <message>
        <source>{client}: {state}</source>
        <translation>{client}：{state}</translation>
    </message>
    <message>
        <source>session start</source>
        <translation>会话开始</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>tool call</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>end of a reply</source>
        <translation>回复结束</translation>
    </message>
    <message>
        <source>Copy the command: {command}</source>
        <translation>复制命令：{command}</translation>
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
        <source>{client} · {event}: {last} ({count}×)</source>
        <translation>{client} · {event}：{last}（{count} 次）</translation>
    </message>
    <message>
        <source>memevo could not learn</source>
        <translation>memevo 没能学习</translation>
    </message>
    <message>
        <source>memevo · Confirm a new memory</source>
        <translation>memevo · 确认一条新记忆</translation>
    </message>
    <message>
        <source>These memories say the same thing. Which one do you keep?</source>
        <translation>这几条记忆说的是同一件事。保留哪一条？</translation>
    </message>
    <message>
        <source>These memories say the same thing. Merge them into one (choose or edit its text below), or keep one?</source>
        <translation>这几条记忆说的是同一件事。合并成一条（在下面选用或修改它的文字），还是只保留一条？</translation>
    </message>
    <message>
        <source>memevo learned something from your conversation. Save it as a memory?</source>
        <translation>memevo 从你的对话里学到了一条内容，要保存为记忆吗？</translation>
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
        <source>Keep #{id} “{excerpt}”, trash the others</source>
        <translation>保留 #{id}「{excerpt}」，其余移到回收站</translation>
    </message>
    <message>
        <source>Save as a rule</source>
        <translation>保存为规则</translation>
    </message>
    <message>
        <source>Save as a project fact</source>
        <translation>保存为项目事实</translation>
    </message>
    <message>
        <source>Reinforce memory #{id}</source>
        <translation>强化已有记忆 #{id}</translation>
    </message>
    <message>
        <source>Merge into memory #{id}</source>
        <translation>合并到已有记忆 #{id}</translation>
    </message>
    <message>
        <source>Replace memory #{id}</source>
        <translation>替换已有记忆 #{id}</translation>
    </message>
    <message>
        <source>Don&apos;t save</source>
        <translation>不保存</translation>
    </message>
    <message>
        <source>Reinforce memory #{id} “{target}”</source>
        <translation>强化已有记忆 #{id}「{target}」</translation>
    </message>
    <message>
        <source>Merge memory #{id} “{target}” into “{text}”</source>
        <translation>与已有记忆 #{id}「{target}」合并为「{text}」</translation>
    </message>
    <message>
        <source>Replace memory #{id} “{target}” with “{text}”</source>
        <translation>用「{text}」替换已有记忆 #{id}「{target}」</translation>
    </message>
    <message>
        <source>A new project fact: “{text}”</source>
        <translation>新增项目事实「{text}」</translation>
    </message>
    <message>
        <source>A new rule: “{text}”</source>
        <translation>新增规则「{text}」</translation>
    </message>
    <message>
        <source>an unknown client</source>
        <translation>未知的客户端</translation>
    </message>
    <message>
        <source>No project folder came with this proposal.</source>
        <translation>这条提议没有附带项目文件夹。</translation>
    </message>
    <message>
        <source>today at {time}</source>
        <translation>今天 {time}</translation>
    </message>
    <message>
        <source>yesterday at {time}</source>
        <translation>昨天 {time}</translation>
    </message>
    <message>
        <source>{date} at {time}</source>
        <translation>{date} {time}</translation>
    </message>
    <message>
        <source>Kept them all as they are; they are not proposed again while they stay the same.</source>
        <translation>这几条记忆都保留了，没有改动；它们不变时不会再提议。</translation>
    </message>
    <message>
        <source>{count} other went to the trash (it can be restored).</source>
        <translation>其余 {count} 条已移到回收站（可恢复）。</translation>
    </message>
    <message>
        <source>{count} others went to the trash (they can be restored).</source>
        <translation>其余 {count} 条已移到回收站（可恢复）。</translation>
    </message>
    <message>
        <source>Merged into memory #{id}: {text}</source>
        <translation>合并为记忆 #{id}：{text}</translation>
    </message>
    <message>
        <source>Kept memory #{id}: {text}</source>
        <translation>保留了记忆 #{id}：{text}</translation>
    </message>
    <message>
        <source>Not saved: nothing was written.</source>
        <translation>已放弃这条记忆，没有写入。</translation>
    </message>
    <message>
        <source>New memory #{id} (confidence {confidence}): {text}</source>
        <translation>新增记忆 #{id}（置信度 {confidence}）：{text}</translation>
    </message>
    <message>
        <source>Replaced memory #{id}: {text}</source>
        <translation>替换了已有记忆 #{id}：{text}</translation>
    </message>
    <message>
        <source>Merged into memory #{id} (confidence +{gained}): {text}</source>
        <translation>合并进已有记忆 #{id}（置信度 +{gained}）：{text}</translation>
    </message>
    <message>
        <source>This memory already existed: reinforced #{id} (confidence +{gained}): {text}</source>
        <translation>这条记忆已存在，强化了 #{id}（置信度 +{gained}）：{text}</translation>
    </message>
    <message>
        <source>Reinforced memory #{id} (confidence +{gained}): {text}</source>
        <translation>强化了已有记忆 #{id}（置信度 +{gained}）：{text}</translation>
    </message>
    <message>
        <source>Reinforced memory #{id}: {text}</source>
        <translation>强化了已有记忆 #{id}：{text}</translation>
    </message>
    <message>
        <source>Group: {group}</source>
        <translation>分组：{group}</translation>
    </message>
    <message>
        <source>These words were not found in what you typed in this session — check before saving.</source>
        <translation>在本会话里你输入的内容中没有找到这段原话——保存前请核对。</translation>
    </message>
    <message>
        <source>Client:</source>
        <translation>客户端：</translation>
    </message>
    <message>
        <source>Project:</source>
        <translation>项目：</translation>
    </message>
    <message>
        <source>Session:</source>
        <translation>会话：</translation>
    </message>
    <message>
        <source>When:</source>
        <translation>提议时间：</translation>
    </message>
    <message>
        <source>Proposed by:</source>
        <translation>提议者：</translation>
    </message>
    <message>
        <source>You said:</source>
        <translation>你说：</translation>
    </message>
    <message>
        <source>Proposal:</source>
        <translation>提议：</translation>
    </message>
    <message>
        <source>Merged text:</source>
        <translation>合并后的文字：</translation>
    </message>
    <message>
        <source>Use #{id} “{excerpt}”</source>
        <translation>用 #{id}「{excerpt}」</translation>
    </message>
    <message>
        <source>The text above becomes memory #{id}; {others} go to the trash (they can be restored).</source>
        <translation>上面的文字成为记忆 #{id}；{others} 移到回收站（可恢复）。</translation>
    </message>
    <message>
        <source>Group:</source>
        <translation>分组：</translation>
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
    <message>
        <source>Welcome to memevo</source>
        <translation>欢迎使用 memevo</translation>
    </message>
    <message>
        <source>memevo gives your AI coding clients a long-term memory: rules and project facts you state once are handed back at the right moment. After four short questions this wizard:</source>
        <translation>memevo 给你的 AI 编程客户端加上长期记忆：你说过一次的规则和项目事实，会在合适的时候交还给它。回答四个简短的问题后，这个向导会：</translation>
    </message>
    <message>
        <source>saves your choices in memevo&apos;s settings;</source>
        <translation>把你的选择存进 memevo 的设置；</translation>
    </message>
    <message>
        <source>checks the local embedding model (the first time, it is downloaded: about 240 MB);</source>
        <translation>检查本地向量模型（第一次会下载，约 240 MB）；</translation>
    </message>
    <message>
        <source>registers memevo&apos;s hooks, MCP server and skill in every client found below (their other entries are kept, and each changed file is backed up first);</source>
        <translation>在下面找到的每个客户端里注册 memevo 的 hook、MCP 服务和技能（它们已有的其他条目保持不变，改动前先备份文件）；</translation>
    </message>
    <message>
        <source>starts memevo at login, if you want.</source>
        <translation>按你的意愿，登录时启动 memevo。</translation>
    </message>
    <message>
        <source>Found {count} of the four supported clients:</source>
        <translation>在支持的四个客户端中找到了 {count} 个：</translation>
    </message>
    <message>
        <source>No supported client was found. memevo still sets up the model and your choices; run the setup again after installing a client.</source>
        <translation>没有找到支持的客户端。memevo 仍会准备模型并保存你的选择；装好客户端后再运行一次设置即可。</translation>
    </message>
    <message>
        <source>✓ {client} ({folder})</source>
        <translation>✓ {client}（{folder}）</translation>
    </message>
    <message>
        <source>✗ {client}: not found, skipped ({folder} is missing)</source>
        <translation>✗ {client}：未找到，跳过（没有 {folder}）</translation>
    </message>
    <message>
        <source>memevo&apos;s settings file cannot be read, so your choices cannot be saved until it is fixed or deleted: {problem}</source>
        <translation>memevo 的设置文件无法读取，修好或删除之前无法保存你的选择：{problem}</translation>
    </message>
    <message>
        <source>Before a learned memory is written</source>
        <translation>写入学到的记忆之前</translation>
    </message>
    <message>
        <source>When a memory is proposed from what you said (by your coding assistant&apos;s model, or by a side model you may set up on the next page), memevo can:</source>
        <translation>从你说的话里提议出一条记忆时（由你的编程助手的模型，或你可以在下一页配置的旁路模型提议），memevo 可以：</translation>
    </message>
    <message>
        <source>Write it directly</source>
        <translation>直接写入</translation>
    </message>
    <message>
        <source>A small window shows the proposed text; you save it, edit it or skip it. It never takes the keyboard focus from your editor.</source>
        <translation>一个小窗口显示提议的正文，你可以保存、修改或跳过。它不会抢走编辑器的键盘焦点。</translation>
    </message>
    <message>
        <source>The memory is written at once and a notification says what was written; you can edit or delete it in the panel.</source>
        <translation>记忆立即写入，并用通知告诉你写了什么；可以在面板里修改或删除。</translation>
    </message>
    <message>
        <source>You can change this later in the tray menu or in Settings.</source>
        <translation>之后可以在托盘菜单或“设置”里更改。</translation>
    </message>
    <message>
        <source>Let memory_propose run without asking each time</source>
        <translation>允许 memory_propose 直接运行，不再每次询问</translation>
    </message>
    <message>
        <source>Claude Code calls memevo&apos;s memory_propose tool when its own model proposes a memory; ticked, a permission rule in ~/.claude/settings.json stops it from asking you to allow each call. You still confirm every memory yourself: memory_resolve is never allowed this way, and either choice removes the rule earlier versions added for it.</source>
        <translation>Claude Code 自己的模型提议记忆时会调用 memevo 的 memory_propose 工具；勾选后，~/.claude/settings.json 里会加上一条权限规则，不再每次请你批准。每条记忆仍由你自己确认：memory_resolve 从不以这种方式放行，无论是否勾选，旧版本为它加的规则都会被移除。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Side API&lt;/b&gt; (optional; only the first two choices above use it, and Automatic does without)</source>
        <translation>&lt;b&gt;旁路接口&lt;/b&gt;（可选：只有上面前两种方式会用到，“自动”没有它也能工作）</translation>
    </message>
    <message>
        <source>e.g. gpt-4o-mini</source>
        <translation>例如 gpt-4o-mini</translation>
    </message>
    <message>
        <source>not shown; stored in the OS keyring</source>
        <translation>不显示；存在系统钥匙串里</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>The key goes to the OS keyring (Keychain, Credential Manager or the Secret Service), never to a file. Leave it empty to keep a key you saved before.</source>
        <translation>密钥存进系统钥匙串（Keychain、凭据管理器或 Secret Service），从不写入文件。留空则保留之前保存的密钥。</translation>
    </message>
    <message>
        <source>API key (tick “Keep the key in that file” below to keep it there)</source>
        <translation>API 密钥（勾选下面的“把密钥保存在这个文件里”后保存在那里）</translation>
    </message>
    <message>
        <source>The base URL must start with http:// or https://.</source>
        <translation>接口地址必须以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <source>Learning: who proposes new memories</source>
        <translation>学习：由谁提议新记忆</translation>
    </message>
    <message>
        <source>memevo learns from what you say to your coding assistant: something worth keeping is proposed as a memory, and you confirm it as chosen on the previous page. Who proposes:</source>
        <translation>memevo 从你对编程助手说的话里学习：值得记住的内容会被提议为一条记忆，再按上一页的选择由你确认。由谁提议：</translation>
    </message>
    <message>
        <source>The side judge needs its base URL and model: fill them in, or choose another way.</source>
        <translation>旁路模型需要接口地址和模型：请填写，或换一种方式。</translation>
    </message>
    <message>
        <source>Fill in the base URL too, or clear the model.</source>
        <translation>请同时填写接口地址，或清空模型。</translation>
    </message>
    <message>
        <source>Fill in the model too, or clear the base URL.</source>
        <translation>请同时填写模型，或清空接口地址。</translation>
    </message>
    <message>
        <source>This computer has no OS keyring. Automatic learning still works through your coding assistant&apos;s own model. To use a side API here, {file}</source>
        <translation>这台电脑没有系统钥匙串。自动学习仍然可以用你的编程助手自己的模型。要在这里使用旁路接口：{file}</translation>
    </message>
    <message>
        <source>{name} (recommended)</source>
        <translation>{name}（推荐）</translation>
    </message>
    <message>
        <source>Claude Code</source>
        <translation>Claude Code</translation>
    </message>
    <message>
        <source>Start at login</source>
        <translation>登录时启动</translation>
    </message>
    <message>
        <source>Start memevo at login</source>
        <translation>登录时启动 memevo</translation>
    </message>
    <message>
        <source>memevo lives in the system tray. Started at login, it is ready before your first prompt; otherwise the first hook starts it, and that prompt goes without recall.</source>
        <translation>memevo 常驻系统托盘。登录时启动，它会在你第一次提问前准备好；否则由第一次 hook 启动它，那一次提问没有召回。</translation>
    </message>
    <message>
        <source>Login entry: {path}</source>
        <translation>登录启动项：{path}</translation>
    </message>
    <message>
        <source>Click Set up to save your choices and register memevo.</source>
        <translation>点“开始设置”保存你的选择并注册 memevo。</translation>
    </message>
    <message>
        <source>Set up</source>
        <translation>开始设置</translation>
    </message>
    <message>
        <source>Import what you already wrote</source>
        <translation>导入你已经写下的内容</translation>
    </message>
    <message>
        <source>These statements are in your own notes (CLAUDE.md, Claude Code&apos;s memory). Checked ones become memories; switch a selected one&apos;s group with the buttons. Nothing is imported twice and your files are not changed.</source>
        <translation>这些条目来自你自己的笔记（CLAUDE.md、Claude Code 的记忆）。勾选的会成为记忆；用按钮切换选中条目的分组。不会重复导入，你的文件也不会被改动。</translation>
    </message>
    <message>
        <source>A repository&apos;s notes (CLAUDE.md, AGENTS.md, Cursor rules) are imported from the panel&apos;s Import button or `memevo import-notes` in that repository.</source>
        <translation>仓库里的说明文件（CLAUDE.md、AGENTS.md、Cursor 规则）可在面板的“导入笔记”或在该仓库里运行 `memevo import-notes` 导入。</translation>
    </message>
    <message>
        <source>Checking what is already imported…</source>
        <translation>正在检查哪些已经导入过…</translation>
    </message>
    <message>
        <source>{count} statements found.</source>
        <translation>找到 {count} 条。</translation>
    </message>
    <message>
        <source>Everything in your notes is imported already.</source>
        <translation>笔记里的内容都已导入过。</translation>
    </message>
    <message>
        <source>Nothing is checked.</source>
        <translation>没有勾选任何条目。</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Setting up</source>
        <translation>正在设置</translation>
    </message>
    <message>
        <source>Saving your choices and checking the embedding model…</source>
        <translation>正在保存你的选择并检查向量模型…</translation>
    </message>
    <message>
        <source>Setup stopped.</source>
        <translation>设置已停止。</translation>
    </message>
    <message>
        <source>Setup stopped: {reason}</source>
        <translation>设置已停止：{reason}</translation>
    </message>
    <message>
        <source>Click Back, then Set up, to try again.</source>
        <translation>点“上一步”，再点“开始设置”重试。</translation>
    </message>
    <message>
        <source>Nothing was registered in your clients.</source>
        <translation>没有在任何客户端里注册。</translation>
    </message>
    <message>
        <source>Setup finished.</source>
        <translation>设置完成。</translation>
    </message>
    <message>
        <source>Setup finished with problems; the next page lists them.</source>
        <translation>设置完成，但有问题；下一页列出了它们。</translation>
    </message>
    <message>
        <source>memevo is set up</source>
        <translation>memevo 已设置好</translation>
    </message>
    <message>
        <source>Copy the command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>memevo can also look through your past sessions for what you said again and again: the panel shows each candidate with its evidence, and nothing is kept until you accept it.</source>
        <translation>memevo 还可以翻阅你的历史会话，找出你反复说过的话：面板会列出每条候选及其依据，在你接受之前什么都不会保存。</translation>
    </message>
    <message>
        <source>Look through your past sessions…</source>
        <translation>翻阅你的历史会话…</translation>
    </message>
    <message>
        <source>memevo is set up, with problems</source>
        <translation>memevo 已设置好，但有问题</translation>
    </message>
    <message>
        <source>No client was registered.</source>
        <translation>没有注册任何客户端。</translation>
    </message>
    <message>
        <source>Not installed, skipped: {clients}.</source>
        <translation>未安装，已跳过：{clients}。</translation>
    </message>
    <message>
        <source>{client}: {problem}</source>
        <translation>{client}：{problem}</translation>
    </message>
    <message>
        <source>Problems:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <source>memevo cannot register its MCP server in {clients} by itself: run this in a terminal (the hooks already work).</source>
        <translation>memevo 无法自行在 {clients} 中注册它的 MCP 服务：请在终端里运行下面的命令（hook 已经生效）。</translation>
    </message>
    <message>
        <source>memevo starts at login.</source>
        <translation>memevo 会在登录时启动。</translation>
    </message>
    <message>
        <source>memevo does not start at login; start it from the menu.</source>
        <translation>memevo 不会在登录时启动；请从菜单启动它。</translation>
    </message>
    <message>
        <source>Restart {client} so it loads the MCP server.</source>
        <translation>请重启 {client}，让它加载 MCP 服务。</translation>
    </message>
    <message>
        <source>Restart {clients} so they load the MCP server.</source>
        <translation>请重启 {clients}，让它们加载 MCP 服务。</translation>
    </message>
    <message>
        <source>memevo now runs in the system tray: the round “M” icon. Click it for the panel (your memories, the clients&apos; state, Settings); its menu also pauses or quits memevo.</source>
        <translation>memevo 现在在系统托盘里运行：就是那个圆形的“M”图标。点击它打开面板（你的记忆、各客户端的状态、设置）；它的菜单还可以暂停或退出 memevo。</translation>
    </message>
    <message>
        <source>The Node tool&apos;s memories were found in the data dir: run memevo import-legacy in a terminal to import them.</source>
        <translation>在数据目录里找到了旧版 Node 工具的记忆：在终端运行 memevo import-legacy 导入。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>The side API key comes from the environment variable {env}, which overrides the keyring.</source>
        <translation>旁路接口密钥来自环境变量 {env}（优先于钥匙串）。</translation>
    </message>
    <message>
        <source>line {line}, column {column}</source>
        <translation>第 {line} 行第 {column} 列</translation>
    </message>
    <message>
        <source>hooks</source>
        <translation>hook</translation>
    </message>
    <message>
        <source>the MCP server</source>
        <translation>MCP 服务</translation>
    </message>
    <message>
        <source>the permissions for memory_resolve and memory_propose</source>
        <translation>memory_resolve 和 memory_propose 的权限</translation>
    </message>
    <message>
        <source>{what} written: {path}</source>
        <translation>已写入 {what}：{path}</translation>
    </message>
    <message>
        <source>skill placed in {path}</source>
        <translation>技能已放到 {path}</translation>
    </message>
    <message>
        <source>MCP server: no `claude` command was found (PATH, the desktop app, MEMEVO_CLAUDE_BIN); run:</source>
        <translation>MCP 服务：没有找到 `claude` 命令（PATH、桌面版、MEMEVO_CLAUDE_BIN 都没有）；请运行：</translation>
    </message>
    <message>
        <source>MCP server: registered with claude mcp add --scope user (in ~/.claude.json)</source>
        <translation>MCP 服务：已用 claude mcp add --scope user 注册（写在 ~/.claude.json）</translation>
    </message>
    <message>
        <source>skill: removed Cursor&apos;s own copy (Cursor reads ~/.claude/skills)</source>
        <translation>技能：删除了 Cursor 自己的那份（Cursor 会读 ~/.claude/skills）</translation>
    </message>
    <message>
        <source>claude mcp add failed: {reason}</source>
        <translation>claude mcp add 失败：{reason}</translation>
    </message>
    <message>
        <source>{path} is not valid JSON ({where}); left untouched. Fix it, then run `memevo setup --repair`.</source>
        <translation>{path} 不是有效的 JSON（{where}），没有改动它。修好后运行 `memevo setup --repair`。</translation>
    </message>
    <message>
        <source>{path} is read-only; left untouched. To let memevo register, make it writable, then run `memevo setup --repair`.</source>
        <translation>{path} 是只读的，没有改动它。要让 memevo 注册，请先让它可写，再运行 `memevo setup --repair`。</translation>
    </message>
    <message>
        <source>already registered, nothing changed</source>
        <translation>已经注册过，没有改动</translation>
    </message>
    <message>
        <source>To use only memevo&apos;s memory, add &quot;autoMemoryEnabled&quot;: false to ~/.claude/settings.json.</source>
        <translation>如果只想用 memevo 的记忆，在 ~/.claude/settings.json 里加上 `&quot;autoMemoryEnabled&quot;: false`。</translation>
    </message>
    <message>
        <source>Interactive Claude Code runs user hooks only in folders you trusted (the workspace-trust dialog).</source>
        <translation>交互式的 Claude Code 只在你信任过的文件夹里运行用户 hook（工作区信任对话框）。</translation>
    </message>
    <message>
        <source>The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply.</source>
        <translation>CodeBuddy 命令行会先让你在它的 /hooks 面板里确认改动过的 hook，确认后才生效。</translation>
    </message>
    <message>
        <source>Checking the embedding model…</source>
        <translation>正在检查向量模型…</translation>
    </message>
    <message>
        <source>The embedding model is ready.</source>
        <translation>向量模型已就绪。</translation>
    </message>
    <message>
        <source>Restart {client} so it loads memevo&apos;s MCP server.</source>
        <translation>请重启 {client}，让它加载 memevo 的 MCP 服务。</translation>
    </message>
    <message>
        <source>Stopped before registering anything: {reason}</source>
        <translation>在注册任何东西之前停下了：{reason}</translation>
    </message>
    <message>
        <source>{client}: not installed ({path} is missing); skipped</source>
        <translation>{client}：未安装（没有 {path}），已跳过</translation>
    </message>
    <message>
        <source>The side API key is in the OS keyring.</source>
        <translation>旁路接口密钥已存入系统钥匙串。</translation>
    </message>
    <message>
        <source>The side API key is in {path}, a file only your account can read (not encrypted).</source>
        <translation>旁路接口密钥保存在 {path}，这个文件只有你的账户能读取（未加密）。</translation>
    </message>
    <message>
        <source>The key was not saved: {why}. Set it later in Settings or with `memevo secret set`.</source>
        <translation>密钥没有保存：{why}。之后可以在“设置”里或用 `memevo secret set` 设置。</translation>
    </message>
    <message>
        <source>Start at login: off</source>
        <translation>登录时启动：关闭</translation>
    </message>
    <message>
        <source>Start at login: updated {path}</source>
        <translation>登录时启动：已更新 {path}</translation>
    </message>
    <message>
        <source>Start at login: not changed — {why}</source>
        <translation>登录时启动：没有改动——{why}</translation>
    </message>
    <message>
        <source>Start at login: {path}</source>
        <translation>登录时启动：{path}</translation>
    </message>
    <message>
        <source>Note ({client}): {note}</source>
        <translation>提示（{client}）：{note}</translation>
    </message>
    <message>
        <source>Backups of the changed client files: {files}</source>
        <translation>改动过的客户端文件的备份：{files}</translation>
    </message>
    <message>
        <source>The Node tool&apos;s memories are in the data dir: `memevo import-legacy` imports them.</source>
        <translation>数据目录里有 Node 版工具的记忆：`memevo import-legacy` 可以导入它们。</translation>
    </message>
    <message>
        <source>Restart {clients} so they load memevo&apos;s MCP server.</source>
        <translation>请重启 {clients}，让它们加载 memevo 的 MCP 服务。</translation>
    </message>
    <message>
        <source>  run: {command}</source>
        <translation>  请运行：{command}</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>checking the memory store</source>
        <translation>正在检查记忆库</translation>
    </message>
    <message>
        <source>encoding memories that have no vector yet</source>
        <translation>正在为还没有向量的记忆编码</translation>
    </message>
    <message>
        <source>converting the offline model pack</source>
        <translation>正在转换离线模型包</translation>
    </message>
    <message>
        <source>building the model&apos;s ONNX graph (once)</source>
        <translation>正在生成模型的 ONNX 图（只需一次）</translation>
    </message>
    <message>
        <source>checking the model on known sentences</source>
        <translation>正在用已知句子检查模型</translation>
    </message>
    <message>
        <source>checking the model on known sentences and building its ONNX graph</source>
        <translation>正在用已知句子检查模型并生成 ONNX 图</translation>
    </message>
    <message>
        <source>downloading {model} from {url}</source>
        <translation>正在从 {url} 下载 {model}</translation>
    </message>
    <message>
        <source>fetching {package} from the Python package index</source>
        <translation>正在从 Python 包索引获取 {package}</translation>
    </message>
    <message>
        <source>this computer has no OS keyring (on Linux: a Secret Service such as gnome-keyring or KWallet); set one up, or tick “Keep the key in that file” to keep it in a file only your account can read (not encrypted), or set {env} where memevo starts (a tray app started at login does not see a terminal&apos;s variables)</source>
        <translation>这台电脑没有系统钥匙串（Linux 上需要 gnome-keyring 或 KWallet 之类的 Secret Service）；请配置一个钥匙串，或者勾选“把密钥保存在这个文件里”，把它存进只有你的账户能读取的文件（未加密），或者在 memevo 启动的环境里设置 {env}（登录时启动的托盘程序看不到终端里设的变量）</translation>
    </message>
    <message>
        <source>the keyring did not give the key back, so it is not saved there</source>
        <translation>钥匙串没有把密钥读回来，所以密钥没有保存在那里</translation>
    </message>
    <message>
        <source>the keyring did not give the key back; the file is kept</source>
        <translation>钥匙串没有把密钥读回来；文件保留不动</translation>
    </message>
    <message>
        <source>{path} is not valid JSON (line {line}, column {column})</source>
        <translation>{path} 不是有效的 JSON（第 {line} 行第 {column} 列）</translation>
    </message>
    <message>
        <source>{reason}; the defaults are used</source>
        <translation>{reason}；改用默认设置</translation>
    </message>
    <message>
        <source>the embedding model could not be provisioned: {why}</source>
        <translation>无法准备向量模型：{why}</translation>
    </message>
    <message>
        <source>the key is empty</source>
        <translation>密钥是空的</translation>
    </message>
    <message>
        <source>the key has a line break or another character that cannot be in a key</source>
        <translation>密钥里有换行或其他不能出现在密钥里的字符</translation>
    </message>
    <message>
        <source>its file lost memevo&apos;s entries {count} times within {minutes} minutes; memevo stopped repairing it until the tray app restarts (Clients → Repair now to try again)</source>
        <translation>它的文件在 {minutes} 分钟内 {count} 次丢失了 memevo 的条目；在托盘程序重启之前 memevo 不再自动修复它（要重试：“客户端”→“立即修复”）</translation>
    </message>
    <message>
        <source>must be on or off</source>
        <translation>只能是开或关</translation>
    </message>
    <message>
        <source>must be a positive whole number</source>
        <translation>必须是正整数</translation>
    </message>
    <message>
        <source>must be a number from 0 to 1, or -1 to switch it off</source>
        <translation>必须是 0 到 1 之间的数，或者 -1 表示关闭</translation>
    </message>
    <message>
        <source>must be a number from 0 (off) to 2</source>
        <translation>必须是 0（关闭）到 2 之间的数</translation>
    </message>
    <message>
        <source>must be a number of minutes, 0 or more (0: never)</source>
        <translation>必须是分钟数，0 或更大（0：从不）</translation>
    </message>
    <message>
        <source>must be an http:// or https:// URL</source>
        <translation>必须是 http:// 或 https:// 开头的地址</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <source>must be a model id like intfloat/multilingual-e5-small, or an absolute folder</source>
        <translation>必须是 intfloat/multilingual-e5-small 这样的模型 id，或一个绝对路径的文件夹</translation>
    </message>
    <message>
        <source>must be a whole number from {low} to {high}</source>
        <translation>必须是 {low} 到 {high} 之间的整数</translation>
    </message>
    <message>
        <source>the keyring asked for its password and the prompt was closed, so the key is not saved; save it again to be asked again, or tick “Keep the key in that file”</source>
        <translation>密钥环请求设置密码，但提示窗口被关掉了，所以密钥没有保存；再保存一次会再次询问，或者勾选“把密钥保存在这个文件里”</translation>
    </message>
    <message>
        <source>must be one of {choices}</source>
        <translation>必须是 {choices} 之一</translation>
    </message>
    <message>
        <source>must be a sentence-transformers folder: {folder} has no modules.json</source>
        <translation>必须是 sentence-transformers 模型文件夹：{folder} 里没有 modules.json</translation>
    </message>
    <message>
        <source>{key}={value}: {reason}; the default is used</source>
        <translation>{key}={value}：{reason}；改用默认值</translation>
    </message>
    <message>
        <source>The side API key was not saved: {problem}. Set it later in Settings or with memevo secret set.</source>
        <translation>旁路接口密钥没有保存：{problem}。之后可在“设置”里或用 memevo secret set 设置。</translation>
    </message>
    <message>
        <source>Set up memevo</source>
        <translation>设置 memevo</translation>
    </message>
    <message>
        <source>&lt; &amp;Back</source>
        <translation>&lt; 上一步(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>下一步(&amp;N) &gt;</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation>完成(&amp;F)</translation>
    </message>
    <message>
        <source>Automatic (recommended)</source>
        <translation>自动（推荐）</translation>
    </message>
    <message>
        <source>Your coding assistant&apos;s own model</source>
        <translation>你的编程助手自己的模型</translation>
    </message>
    <message>
        <source>The side judge (your side API)</source>
        <translation>旁路模型（你的旁路接口）</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The side judge when its API is set up below; otherwise your coding assistant&apos;s own model proposes memories, with nothing to configure.</source>
        <translation>在下面配置了旁路接口，就由旁路模型提议；否则由你的编程助手自己的模型提议记忆，无需任何配置。</translation>
    </message>
    <message>
        <source>Your coding assistant&apos;s own model proposes memories (through memevo&apos;s memory_propose tool); nothing to configure.</source>
        <translation>由你的编程助手自己的模型提议记忆（通过 memevo 的 memory_propose 工具），无需任何配置。</translation>
    </message>
    <message>
        <source>An OpenAI-compatible endpoint you set up reads what you say and proposes memories. Prompts are filtered first: code and logs are removed and key-like strings are hidden.</source>
        <translation>由你配置的 OpenAI 兼容接口阅读你说的话并提议记忆。发送前会先过滤：去掉代码和日志，隐藏像密钥的字符串。</translation>
    </message>
    <message>
        <source>Nothing is learned; memevo still recalls the memories you add by hand.</source>
        <translation>什么都不学习；memevo 仍会召回你手动添加的记忆。</translation>
    </message>
    <message>
        <source>your coding assistant&apos;s model proposes memories</source>
        <translation>由你的编程助手的模型提议记忆</translation>
    </message>
    <message>
        <source>the side judge proposes memories</source>
        <translation>由旁路模型提议记忆</translation>
    </message>
    <message>
        <source>Ask before saving a learned memory</source>
        <translation>保存学到的记忆前先问我</translation>
    </message>
    <message>
        <source>off (you chose off)</source>
        <translation>已关闭（你选择了关闭）</translation>
    </message>
    <message>
        <source>off: it is set to the side judge, whose API is not set up (base URL, model and key)</source>
        <translation>未开启：学习方式是旁路模型，但旁路接口（接口地址、模型和密钥）还没配置好</translation>
    </message>
    <message>
        <source>off: set the side API in Settings or run `memevo setup`</source>
        <translation>未开启：在“设置”里配置旁路接口，或运行 `memevo setup`</translation>
    </message>
    <message>
        <source>the side judge</source>
        <translation>旁路模型</translation>
    </message>
    <message>
        <source>your coding assistant&apos;s own model</source>
        <translation>你的编程助手自己的模型</translation>
    </message>
    <message>
        <source>{client}&apos;s own model</source>
        <translation>{client} 自己的模型</translation>
    </message>
    <message>
        <source>memevo&apos;s consolidation of your memories</source>
        <translation>memevo 的记忆整理</translation>
    </message>
    <message>
        <source>memevo · Tidy up memories</source>
        <translation>memevo · 整理记忆</translation>
    </message>
    <message>
        <source>These memories contradict each other. Which one still holds?</source>
        <translation>这几条记忆互相矛盾。哪一条仍然成立？</translation>
    </message>
    <message>
        <source>These memories say the same thing. Merge them, or keep one?</source>
        <translation>这几条记忆说的是同一件事。合并成一条，还是只保留一条？</translation>
    </message>
    <message>
        <source>Keep #{id}, trash the others</source>
        <translation>保留 #{id}，其余移到回收站</translation>
    </message>
    <message>
        <source>Merge into #{id}, trash the others</source>
        <translation>合并到 #{id}，其余移到回收站</translation>
    </message>
    <message>
        <source>Keep them all (don&apos;t ask again)</source>
        <translation>都保留（不再询问）</translation>
    </message>
    <message>
        <source>#{id}: “{text}”</source>
        <translation>#{id}：「{text}」</translation>
    </message>
    <message>
        <source>May be out of date: {reason}</source>
        <translation>可能已过时：{reason}</translation>
    </message>
    <message>
        <source>Still true</source>
        <translation>仍然成立</translation>
    </message>
    <message>
        <source>Check its repository again; if the names are still missing, keep it as true.</source>
        <translation>再查一次它的仓库；如果这些名字仍然找不到，也把它当作仍然成立保留。</translation>
    </message>
    <message>
        <source>Tidy up</source>
        <translation>整理记忆</translation>
    </message>
    <message>
        <source>Found {duplicates} groups of near-duplicates and {contradictions} contradictions; {proposed} new proposals wait for your answer in the confirmation dialog.</source>
        <translation>找到 {duplicates} 组近似重复、{contradictions} 处矛盾；{proposed} 条新提议在确认弹窗里等你决定。</translation>
    </message>
    <message>
        <source>Find near-duplicate and contradicting memories and propose merges; you confirm each.</source>
        <translation>找出近似重复和互相矛盾的记忆并提议合并；每一条都由你确认。</translation>
    </message>
    <message>
        <source>Repositories memevo is off in</source>
        <translation>memevo 已关闭的仓库</translation>
    </message>
    <message>
        <source>In these repositories memevo does nothing: no recall, no learning, no backfill, no staleness checks.</source>
        <translation>在这些仓库中 memevo 什么都不做：不召回、不学习、不回顾历史、不检查过时。</translation>
    </message>
    <message>
        <source>Switch on</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Switch off in a repository…</source>
        <translation>在某个仓库中关闭…</translation>
    </message>
    <message>
        <source>none: memevo is on in every repository</source>
        <translation>无：memevo 在所有仓库中都启用</translation>
    </message>
    <message>
        <source>Switch memevo off in a repository</source>
        <translation>在某个仓库中关闭 memevo</translation>
    </message>
    <message>
        <source>{folder} is not in a repository.</source>
        <translation>{folder} 不在仓库中。</translation>
    </message>
    <message>
        <source>memevo is off in {repo}.</source>
        <translation>memevo 已在 {repo} 中关闭。</translation>
    </message>
    <message>
        <source>memevo is on again in {repo}.</source>
        <translation>memevo 已在 {repo} 中重新启用。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>no facts file yet</source>
        <translation>还没有事实文件</translation>
    </message>
    <message>
        <source>waiting for your review</source>
        <translation>等待你审阅</translation>
    </message>
    <message>
        <source>not trusted (you said no)</source>
        <translation>未信任（你已拒绝）</translation>
    </message>
    <message>
        <source>trusted</source>
        <translation>已信任</translation>
    </message>
    <message>
        <source>not reviewed yet</source>
        <translation>尚未审阅</translation>
    </message>
    <message>
        <source>&lt;b&gt;Facts file&lt;/b&gt;: {file} ({state})</source>
        <translation>&lt;b&gt;事实文件&lt;/b&gt;：{file}（{state}）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Problem&lt;/b&gt;: {problem}</source>
        <translation>&lt;b&gt;问题&lt;/b&gt;：{problem}</translation>
    </message>
    <message>
        <source>&lt;b&gt;What to do&lt;/b&gt;: fix the file at the line named (or put back the committed one: git checkout -- .memevo/facts.md), then choose Read again. Nothing is read from it until then; the facts read before stay.</source>
        <translation>&lt;b&gt;怎么办&lt;/b&gt;：修好文件中指出的那一行（或恢复已提交的版本：`git checkout -- .memevo/facts.md`），然后选择“重新读取”。在此之前不会从中读入任何内容；之前读入的事实会保留。</translation>
    </message>
    <message>
        <source>memevo reads nothing from this file until you have seen its facts and trust them: choose Review.</source>
        <translation>在你看过并信任这些事实之前，memevo 不会从这个文件读入任何内容：请选择“审阅”。</translation>
    </message>
    <message>
        <source>{count} fact read from the file</source>
        <translation>从文件读入 {count} 条事实</translation>
    </message>
    <message>
        <source>{count} facts read from the file</source>
        <translation>从文件读入 {count} 条事实</translation>
    </message>
    <message>
        <source>{count} local change not yet written to it</source>
        <translation>{count} 处本地改动尚未写入文件</translation>
    </message>
    <message>
        <source>{count} local changes not yet written to it</source>
        <translation>{count} 处本地改动尚未写入文件</translation>
    </message>
    <message>
        <source>{count} project fact not shared yet</source>
        <translation>{count} 条项目事实尚未共享</translation>
    </message>
    <message>
        <source>{count} project facts not shared yet</source>
        <translation>{count} 条项目事实尚未共享</translation>
    </message>
    <message>
        <source>Deleted here: {text}</source>
        <translation>已在本机删除：{text}</translation>
    </message>
    <message>
        <source>Edited here: {before} → {after}</source>
        <translation>已在本机修改：{before} → {after}</translation>
    </message>
    <message>
        <source>&lt;b&gt;The repository&apos;s words&lt;/b&gt; (their text comes from the file):</source>
        <translation>&lt;b&gt;仓库的原话&lt;/b&gt;（文字来自这个文件）：</translation>
    </message>
    <message>
        <source>changed by the file (a teammate&apos;s edit)</source>
        <translation>被文件修改（队友的编辑）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Review of {file}&lt;/b&gt;:</source>
        <translation>&lt;b&gt;审阅 {file}&lt;/b&gt;：</translation>
    </message>
    <message>
        <source>There is no facts file in this repository: nothing to review.</source>
        <translation>这个仓库里没有事实文件：没有可审阅的内容。</translation>
    </message>
    <message>
        <source>{count} fact, the repository&apos;s words — none read into memevo yet:</source>
        <translation>{count} 条事实，是仓库的原话——都还没有读入 memevo：</translation>
    </message>
    <message>
        <source>{count} facts, the repository&apos;s words — none read into memevo yet:</source>
        <translation>{count} 条事实，是仓库的原话——都还没有读入 memevo：</translation>
    </message>
    <message>
        <source>Changed since memevo last read it: {added} added, {changed} changed, {removed} removed</source>
        <translation>自 memevo 上次读取以来的变化：新增 {added} 条，修改 {changed} 条，删除 {removed} 条</translation>
    </message>
    <message>
        <source>A removed fact goes to the trash once you trust this.</source>
        <translation>你信任之后，被删除的事实会移到回收站。</translation>
    </message>
    <message>
        <source>A repository&apos;s project facts can live in its .memevo/facts.md, reviewed and committed like code; memevo reads a teammate&apos;s file only once you trust its content.</source>
        <translation>仓库的项目事实可以放在它的 .memevo/facts.md 里，像代码一样审阅和提交；队友写的文件只有在你信任其内容之后才会被 memevo 读入。</translation>
    </message>
    <message>
        <source>Share to the file</source>
        <translation>共享到文件</translation>
    </message>
    <message>
        <source>Writes this repository&apos;s unshared project facts and your local changes to its .memevo/facts.md (as memevo share --all --pending). Review it and commit it: memevo never commits or pushes.</source>
        <translation>把这个仓库尚未共享的项目事实和你的本地改动写入它的 .memevo/facts.md（与 memevo share --all --pending 相同）。请审阅后自行提交：memevo 从不提交或推送。</translation>
    </message>
    <message>
        <source>Review…</source>
        <translation>审阅…</translation>
    </message>
    <message>
        <source>Trust these facts</source>
        <translation>信任这些事实</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>暂不信任</translation>
    </message>
    <message>
        <source>Stop trusting</source>
        <translation>取消信任</translation>
    </message>
    <message>
        <source>Read again</source>
        <translation>重新读取</translation>
    </message>
    <message>
        <source>Another repository…</source>
        <translation>其他仓库…</translation>
    </message>
    <message>
        <source>Sync your memories through a git remote</source>
        <translation>通过你自己的远程仓库同步记忆</translation>
    </message>
    <message>
        <source>Sync remote: reading…</source>
        <translation>同步远程仓库：读取中…</translation>
    </message>
    <message>
        <source>git@github.com:you/memories.git, an HTTPS URL or a folder</source>
        <translation>https://github.com/you/memories.git、SSH 地址或一个文件夹</translation>
    </message>
    <message>
        <source>Set and sync now</source>
        <translation>设置并立即同步</translation>
    </message>
    <message>
        <source>Enter a git remote you own first.</source>
        <translation>请先输入一个你自己的远程仓库。</translation>
    </message>
    <message>
        <source>Syncing with {remote}…</source>
        <translation>正在与 {remote} 同步…</translation>
    </message>
    <message>
        <source>Synced with {remote}: {out} written out, {taken} taken in, {merged} merged.</source>
        <translation>已与 {remote} 同步：写出 {out} 条，取回 {taken} 条，合并 {merged} 条。</translation>
    </message>
    <message>
        <source>{count} conflict: memevo sync lists it.</source>
        <translation>{count} 处冲突：memevo sync 会列出。</translation>
    </message>
    <message>
        <source>{count} conflicts: memevo sync lists them.</source>
        <translation>{count} 处冲突：memevo sync 会列出。</translation>
    </message>
    <message>
        <source>Not synced: {error}</source>
        <translation>未同步：{error}</translation>
    </message>
    <message>
        <source>Sync remote: {remote}. The tray syncs every syncMinutes (Settings).</source>
        <translation>同步远程仓库：{remote}。托盘每隔 syncMinutes 分钟同步一次（见“设置”）。</translation>
    </message>
    <message>
        <source>No sync remote yet: enter a git remote you own (an empty repository is fine).</source>
        <translation>还没有同步远程仓库：请输入一个你自己的远程仓库（空仓库也可以）。</translation>
    </message>
    <message>
        <source>none yet: memevo knows a repository once a session ran in it</source>
        <translation>暂无：在一个仓库中运行过会话后，memevo 才会知道它</translation>
    </message>
    <message>
        <source>Wrote {file}: {shared} shared, {pending} local changes written. Review it and commit it like code (nothing is pushed).</source>
        <translation>已写入 {file}：共享 {shared} 条，写入 {pending} 处本地改动。请像代码一样审阅并提交（不会推送任何内容）。</translation>
    </message>
    <message>
        <source>Nothing to write.</source>
        <translation>没有需要写入的内容。</translation>
    </message>
    <message>
        <source>Trusted: {new} new, {changed} changed, {retired} retired.</source>
        <translation>已信任：新增 {new} 条，修改 {changed} 条，移除 {retired} 条。</translation>
    </message>
    <message>
        <source>Not trusted: nothing was read, and this content is not announced again.</source>
        <translation>未信任：没有读入任何内容，这份内容也不会再提醒。</translation>
    </message>
    <message>
        <source>memevo no longer reads the facts file of {repo}; the facts read from it stay as they are.</source>
        <translation>memevo 不再读取 {repo} 的事实文件；从中读入的事实保持原样。</translation>
    </message>
    <message>
        <source>Still cannot be read: {problem}</source>
        <translation>仍然无法读取：{problem}</translation>
    </message>
    <message>
        <source>The file waits for your review: choose Review.</source>
        <translation>这个文件等待你审阅：请选择“审阅”。</translation>
    </message>
    <message>
        <source>Read: {new} new, {changed} changed, {retired} retired.</source>
        <translation>已读取：新增 {new} 条，修改 {changed} 条，移除 {retired} 条。</translation>
    </message>
    <message>
        <source>A repository to share facts in</source>
        <translation>要共享事实的仓库</translation>
    </message>
</context>
</TS>
