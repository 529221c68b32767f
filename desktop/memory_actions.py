"""The Memories view's actions on memories: add, edit, merge, reinforce, pin, history, import
notes, move, delete, purge, tidy up, still true and undo.

Every action goes through the service host's `handle` — the path a hook or the CLI takes — so
it voids proposals about the memory, keeps the recall index in step and rewrites
memories.html. Actions run on the worker thread (rewriting memories.html over 100k memories
is not a UI-thread job); the last undoable one can be undone."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.errors import StoreBusy
from ..core.memories.live import Memory
from ..core.memories.scopes import name as scope_name
from . import memories_dialogs as dialogs
from .i18n import plural, tr
from .memtable import group_name
from .undo import DEPTH, IN_TRASH, Undo, check, id_list

if TYPE_CHECKING:
    from .memories_view import MemoriesView

UNDO_CHECK_TRIES = 20  # a busy store: the undo's check is tried again, this many times at most
UNDO_CHECK_RETRY_MS = 250


class MemoryActions:
    """The actions of one view: its buttons and row menu call `act` and `act_on`; questions
    to the user and messages go through the view."""

    def __init__(self, view: MemoriesView) -> None:
        self.view = view
        self.undo_stack: list[Undo] = []
        self.busy = False  # an action runs: the action buttons wait

    def act(self, key: str) -> None:
        view = self.view
        if view.worker.busy and key != "refresh":  # one change at a time: undo must know what it undoes
            view.say(tr("Still working on the last change…"))
            return
        if key == "refresh":
            view.model.reload()
            self.refresh_undo()
            return
        if key in ("add", "undo", "import", "tidy"):
            {"add": self._add, "undo": self._undo, "import": self._import_notes, "tidy": self._tidy}[key]()
            return
        chosen = view.selected()
        if not chosen:
            view.say(tr("Select a memory first."))
            return
        handlers: dict[str, Callable[[list[Memory]], None]] = {
            "edit": self._edit,
            "merge": self._merge,
            "reinforce": self._reinforce,
            "pin": self._pin,
            "history": self._history,
            "move": self._move,
            "delete": self._delete,
            "purge": self._purge,
            "still_true": self._still_true,
        }
        handlers[key](chosen)

    def act_on(self, key: str, memory: Memory) -> None:
        """An action of a row's menu, on that row's memory."""
        if self.view.worker.busy:
            self.view.say(tr("Still working on the last change…"))
            return
        {"edit": self._edit, "delete": self._delete, "still_true": self._still_true}[key]([memory])

    # -- running, undo ---------------------------------------------------------------------------------------
    def _submit(
        self,
        steps: list[tuple[str, dict[str, Any]]],
        done: Callable[[list[dict[str, Any]]], None],
        expect: list[tuple[str, str, Any]] | None = None,
        failed_undo: Undo | None = None,
    ) -> None:
        """Run service ops in order off the UI thread; report, record undo, reload. The action
        buttons wait meanwhile, so an undo never pops an action that has not finished."""
        view = self.view

        def work() -> list[dict[str, Any]]:
            if expect:
                check(view.host, Undo("", [], expect))
            return [view.host.handle(op, params) for op, params in steps]

        def finished(results: list[dict[str, Any]]) -> None:
            self._set_busy(False)
            done(results)
            view.model.reload()

        def failed(exc: Exception) -> None:
            self._set_busy(False)
            if failed_undo is not None:  # the older undos assumed what this one would have put back
                self._drop_undo(failed_undo, str(exc))
            else:
                view.say(tr("Not done: {error}").format(error=exc))
            view.model.reload()

        self._set_busy(True)
        view.worker.run(work, finished, failed)

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.view.sync_buttons()

    def refresh_undo(self, tries: int = 1) -> None:
        """Coming back to the view (the trash, another client or the side judge may have
        changed things): an undo that would no longer put back what it says is dropped now,
        with the older ones, and the view says why — the button never offers a stale one."""
        if not self.undo_stack:
            return
        top = self.undo_stack[-1]

        def stale(exc: Exception) -> None:
            if not self.undo_stack or self.undo_stack[-1] is not top:
                return
            if isinstance(exc, StoreBusy) and tries < UNDO_CHECK_TRIES:  # did not run: look again
                from .qt import QTimer

                QTimer.singleShot(UNDO_CHECK_RETRY_MS, lambda: self.refresh_undo(tries + 1))
            else:  # changed since, or it cannot be checked: an undo never offered unchecked
                self._drop_undo(top, str(exc))

        self.view.worker.run(lambda: check(self.view.host, top), lambda _none: None, stale)

    def _drop_undo(self, undo: Undo, why: str) -> None:
        self.undo_stack = []
        self.view.show_undo()
        self.view.say(tr("Undo of “{what}” is no longer possible: {why}.").format(what=undo.label, why=why))

    def _remember(
        self,
        label: str,
        steps: list[tuple[str, dict[str, Any]]],
        expect: list[tuple[str, str, Any]] | None = None,
    ) -> None:
        self.undo_stack = [*self.undo_stack[-(DEPTH - 1) :], Undo(label, steps, expect)]
        self.view.show_undo()

    # -- the actions -----------------------------------------------------------------------------------------
    def _tidy(self) -> None:
        """The consolidation pass (core/consolidation/): it only proposes; each proposal comes
        up in the confirmation dialog, and nothing changes until it is answered there."""

        def done(results: list[dict[str, Any]]) -> None:
            found = results[0]
            self.view.say(
                tr(
                    "Found {duplicates} groups of near-duplicates and {contradictions} contradictions; "
                    "{proposed} new proposals wait for your answer in the confirmation dialog."
                ).format(
                    duplicates=found["duplicates"],
                    contradictions=found["contradictions"],
                    proposed=len(found["proposed"]),
                )
            )

        self._submit([("consolidate", {})], done)

    def _still_true(self, chosen: list[Memory]) -> None:
        """The stale ones of the selection: each repository checked again, names still missing
        no longer counted. Undo makes the ones kept by the user's word stale again as they were
        (core's undo_still_true); one the repository had the names of again is fresh on the
        evidence, and nothing of it is undone."""
        stale = [m for m in chosen if m.stale]
        if not stale:
            self.view.say(tr("None of the selected memories is stale."))
            return

        def done(results: list[dict[str, Any]]) -> None:
            again = [m.id for m, r in zip(stale, results, strict=True) if r["found_again"]]
            kept = [m.id for m, r in zip(stale, results, strict=True) if not r["found_again"]]
            said = []
            if again:
                said.append(
                    tr("{names}: not stale, the repository has the names again.").format(names=id_list(again))
                )
            if kept:
                said.append(tr("Kept {names} as true.").format(names=id_list(kept)))
            self.view.say(" ".join(said))
            undone = [(m, r) for m, r in zip(stale, results, strict=True) if r.get("before")]
            if undone:
                # Not stale and the same text as this left them: anything else since (an edit,
                # a check that found a name lost again) is newer than the user's word.
                self._remember(
                    tr("still true {names}").format(names=id_list([m.id for m, _r in undone])),
                    [("undo_still_true", {"id": m.id, "before": r["before"]}) for m, r in undone],
                    [(m.id, "stale", None) for m, _r in undone]
                    + [(m.id, "text", r["memory"]["text"]) for m, r in undone],
                )

        self._submit([("still_true", {"id": m.id}) for m in stale], done)

    def _add(self) -> None:
        """Text, group and scope from the dialog (the group filter only suggests the group)."""
        asked = self.view.ask_new_memory("project" if self.view.group.currentIndex() == 2 else "rule")
        if asked is None:
            return
        category, text, scope = asked

        def done(results: list[dict[str, Any]]) -> None:
            memory = results[0]["memory"]
            if results[0].get("action") == "reinforce":  # that text is there already: nothing to undo
                self.view.say(tr("Already there: #{id} was reinforced instead").format(id=memory["id"]))
                return
            where = scope_name(scope) if scope else tr("everywhere")
            self.view.say(
                tr("Added #{id} ({group}, {scope}, confidence 0.5)").format(
                    id=memory["id"], group=group_name(category), scope=where
                )
            )
            self._remember(
                tr("add #{id}").format(id=memory["id"]),
                [("delete", {"ids": [memory["id"]]})],
                [(memory["id"], "text", memory["text"])],
            )

        self._submit([("add", {"category": category, "text": text, "scope": scope})], done)

    def _edit(self, chosen: list[Memory]) -> None:
        memory = chosen[0]
        text = self.view.ask_text(
            tr("Edit"), tr("New text of #{id} (confidence unchanged):").format(id=memory.id), memory.text
        )
        if text is None or text == memory.text:
            return

        def done(results: list[dict[str, Any]]) -> None:
            self.view.say(tr("Edited #{id}").format(id=memory.id))
            self._remember(
                tr("edit #{id}").format(id=memory.id),
                [("replace", {"id": memory.id, "text": memory.text})],
                [(memory.id, "text", results[0]["memory"]["text"])],
            )

        self._submit([("replace", {"id": memory.id, "text": text})], done)

    def _merge(self, chosen: list[Memory]) -> None:
        if len(chosen) != 2:
            self.view.say(tr("Select exactly two memories to merge."))
            return
        keep, other = sorted(chosen, key=lambda m: -m.confidence)
        text = self.view.ask_text(
            tr("Merge two"),
            tr(
                "Text of the merged memory (#{keep} stays with the higher confidence; #{other} goes to the trash):"
            ).format(keep=keep.id, other=other.id),
            f"{keep.text}；{other.text}",
        )
        if text is None:
            return

        def done(results: list[dict[str, Any]]) -> None:
            self.view.say(tr("Merged #{other} into #{keep}").format(other=other.id, keep=keep.id))
            undo = [("replace", {"id": keep.id, "text": keep.text}), ("restore", {"id": other.id})]
            merged = results[0]["memory"]["text"]
            self._remember(tr("merge into #{id}").format(id=keep.id), undo, [(keep.id, "text", merged)])

        self._submit([("merge", {"id": keep.id, "id2": other.id, "text": text})], done)

    def _reinforce(self, chosen: list[Memory]) -> None:
        # Not undoable: the points are the day's reinforcement, capped, as the seed's rules say.
        def done(results: list[dict[str, Any]]) -> None:
            gained = ", ".join(f"#{m.id} +{r['gained']:g}" for m, r in zip(chosen, results, strict=True))
            self.view.say(gained)

        self._submit([("reinforce", {"id": m.id}) for m in chosen], done)

    def _pin(self, chosen: list[Memory]) -> None:
        """Pins the selection, or unpins it when every selected memory is pinned already."""
        pin = not all(m.pinned for m in chosen)
        op, back = ("pin", "unpin") if pin else ("unpin", "pin")
        names = " ".join(f"#{m.id}" for m in chosen)

        def done(_results: list[dict[str, Any]]) -> None:
            said = (
                (
                    tr("Pinned {names}: it never decays")
                    if len(chosen) == 1
                    else tr("Pinned {names}: they never decay")
                )
                if pin
                else tr("Unpinned {names}")
            )
            self.view.say(said.format(names=names))
            undo = [(back, {"id": m.id}) for m in chosen if m.pinned != pin]
            if undo:
                touched = [m.id for m in chosen if m.pinned != pin]
                label = tr("pin {names}") if pin else tr("unpin {names}")
                self._remember(
                    label.format(names=id_list(touched)), undo, [(i, "pinned", pin) for i in touched]
                )

        self._submit([(op, {"id": m.id}) for m in chosen], done)

    def _history(self, chosen: list[Memory]) -> None:
        """Reads the history off the UI thread, then offers to restore one version."""
        memory = chosen[0]

        def shown(results: list[dict[str, Any]]) -> None:
            versions = results[0]["versions"]
            if not versions:
                self.view.say(tr("#{id} has no earlier texts.").format(id=memory.id))
                return
            version = self.view.choose_version(memory, versions, results[0].get("cues"))
            if version is None:
                return

            def restored(results: list[dict[str, Any]]) -> None:
                self.view.say(
                    tr("#{id} has version {version}'s text again").format(id=memory.id, version=version)
                )
                text = results[0]["memory"]["text"]
                self._remember(
                    tr("restore version {version} of #{id}").format(version=version, id=memory.id),
                    [("replace", {"id": memory.id, "text": memory.text})],
                    [(memory.id, "text", text)],
                )

            self._submit([("restore_version", {"id": memory.id, "version": version})], restored)

        self._submit([("history", {"id": memory.id})], shown)

    def _import_notes(self) -> None:
        """`memevo import-notes` in the panel: candidates found off the UI thread, chosen in a
        dialog, written through the same operation."""
        from pathlib import Path

        from ..core.importers import notes
        from ..core.memories.scopes import folder_of

        view = self.view
        go, folder = view.ask_import_source()
        if not go:
            view.say(tr("Nothing imported."))
            return
        repo = folder_of(folder) if folder else None

        def found() -> list[dict[str, Any]]:
            candidates = notes.candidates(Path.home(), Path(repo) if repo else None)
            if not candidates:
                return []
            known = set(
                view.host.handle(
                    "notes_known",
                    {"shas": [c.sha for c in candidates], "texts": [c.text for c in candidates]},
                )["known"]
            )
            return [c.as_json() for c in candidates if c.sha not in known]

        def shown(answer: list[dict[str, Any]]) -> None:
            self._set_busy(False)
            if not answer:
                view.say(tr("Nothing new to import."))
                return
            chosen = view.choose_notes(answer)
            if not chosen:
                return
            self._submit(
                [("import_notes", {"items": chosen})],
                lambda results: view.say(
                    plural(
                        len(results[0]["imported"]),
                        tr("Imported {count} statement."),
                        tr("Imported {count} statements."),
                    )
                ),
            )

        def failed(exc: Exception) -> None:
            self._set_busy(False)
            view.say(tr("Not done: {error}").format(error=exc))

        self._set_busy(True)
        view.worker.run(found, shown, failed)

    def _move(self, chosen: list[Memory]) -> None:
        steps = [("move", {"id": m.id, "category": _other(m.category)}) for m in chosen]

        def done(_results: list[dict[str, Any]]) -> None:
            names = " ".join(f"#{m.id} → {group_name(_other(m.category))}" for m in chosen)
            self.view.say(tr("Moved {names}").format(names=names))
            self._remember(
                tr("move {names}").format(names=id_list([m.id for m in chosen])),
                [("move", {"id": m.id, "category": m.category}) for m in chosen],
                [(m.id, "category", _other(m.category)) for m in chosen],
            )

        self._submit(steps, done)

    def _delete(self, chosen: list[Memory]) -> None:
        def done(results: list[dict[str, Any]]) -> None:
            deleted = results[0]["deleted"]
            self.view.say(
                plural(
                    len(deleted),
                    tr("Deleted {count} memory (kept in the trash for 30 days)"),
                    tr("Deleted {count} memories (kept in the trash for 30 days)"),
                )
            )
            self._remember(
                tr("delete {names}").format(names=id_list(deleted)),
                [("restore", {"id": i}) for i in deleted],
                [(i, IN_TRASH, "") for i in deleted],
            )

        self._submit([("delete", {"ids": [m.id for m in chosen]})], done)

    def _purge(self, chosen: list[Memory]) -> None:
        names = ", ".join(f"#{m.id}" for m in chosen)
        question, whole = dialogs.purge_question(chosen)  # each memory with an excerpt of its text
        if not self.view.confirm(tr("Purge"), question, whole):
            return
        self._submit(
            [("purge", {"id": m.id}) for m in chosen],
            lambda _r: self.view.say(tr("Purged {names}").format(names=names)),
        )

    def _undo(self) -> None:
        if not self.undo_stack:
            return
        undo = self.undo_stack.pop()
        self._submit(
            undo.steps,
            lambda _r: self.view.say(tr("Undone: {what}").format(what=undo.label)),
            undo.expect,
            failed_undo=undo,
        )


def _other(category: str) -> str:
    return "project" if category == "rule" else "rule"
