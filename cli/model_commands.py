"""The store's and the model's commands: repair, maintenance, model, verify, rebuild-index,
build-background and bench. Model work runs here, or in the service when it holds the store."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.errors import InvalidInput
from .shared import (
    call,
    counted,
    emit_json,
    plain,
    progress,
    service_holds_store,
    shown,
    through_service,
    with_engine,
)


def cmd_repair(args: argparse.Namespace) -> int:
    from ..core.store.repair import repair

    report = repair()
    if args.json:
        return emit_json(report.as_json())
    for line in report.lines():
        print(line)
    return 0


def cmd_maintenance(args: argparse.Namespace) -> int:
    result = call("maintenance", force=args.force)
    if args.json:
        return emit_json(result)
    if not result["ran"]:
        print("today's maintenance already ran")
        return 0
    r = result["report"]
    print(
        f"maintenance {r['day']}: {r['decayed']} decayed, {r['newly_deprecated']} deprecated, "
        f"{r['trash_purged']} expired from trash"
    )
    a = result.get("anchors")
    if a:
        late = f"; not finished in time: {', '.join(a['timed_out'])}" if a["timed_out"] else ""
        print(
            f"checked {counted(a['checked'], 'memory', 'memories')} against "
            f"{counted(a['repositories'], 'repository', 'repositories')}: "
            f"{len(a['became_stale'])} now stale, {len(a['fresh_again'])} fresh again{late}"
        )
        for repo in a.get("not_owned") or []:  # git's safe.directory rule: said, never silent
            print(f"not checked: {shown(repo)} belongs to another user (memevo does not run git there)")
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    """Near-duplicates and contradictions, proposed for the user's answer (nothing changes here)."""
    if service_holds_store():
        from ..core.service.client import call_service

        result = call_service("consolidate", {"limit": args.limit}, wait_s=180)
    else:  # no service: the pass on the store here (merged texts are the service's, with its side client)
        from ..core.clock import SystemClock
        from ..core.consolidation import run as consolidation
        from ..core.service.consolidateops import checked_limit

        limit = checked_limit(args.limit)
        result = with_engine(
            lambda engine: consolidation.run(engine.store, SystemClock(), engine, None, limit)
        )
    if args.json:
        return emit_json(result)
    skipped = result["skipped"]
    print(
        f"found {counted(result['duplicates'], 'cluster', 'clusters')} of near-duplicates and "
        f"{counted(result['contradictions'], 'contradicting pair', 'contradicting pairs')}; "
        f"proposed {len(result['proposed'])} "
        f"({skipped['declined']} declined before, {skipped['proposed_before']} already proposed, "
        f"{skipped['no_room']} left for later)"
    )
    if result["proposed"]:
        where = "the tray app's confirmation dialog, or " if result.get("desktop") else ""
        print(f"nothing is changed until you answer: {where}`memevo pending`")
    return 0


def cmd_model(args: argparse.Namespace) -> int:
    from ..core.encoder.models import entry_for, model_folder
    from ..core.encoder.provision import provision, ready_folder
    from ..core.process.runtime import configured_model
    from ..core.recall import gate_defaults

    model_id = configured_model()
    if args.action == "provision":
        done = provision(model_id, progress())
        result = {"model": model_id, "folder": str(done.folder), "source": done.source, "reused": done.reused}
    else:
        folder = ready_folder(model_id)
        entry = entry_for(model_id)
        hybrid = gate_defaults.for_model(model_id)
        result = {
            "model": model_id,
            "ready": folder is not None,
            "folder": str(folder or model_folder(model_id)),
            # what recall uses unless configured otherwise (`memevo config`): the hybrid gate,
            # or with recallLexicalWeight 0 the cosine alone with its own minimums
            "hybrid_gate": (
                {
                    "lexical_weight": hybrid.lexical_weight,
                    "rule": hybrid.min_rule,
                    "project": hybrid.min_project,
                }
                if hybrid is not None
                else None
            ),
            "cosine_only_minimums": {"rule": entry.recall_min_rule, "project": entry.recall_min_project}
            if entry.calibrated
            else None,
        }
    if args.json:
        return emit_json(result)
    for key, value in result.items():
        print(f"{key.replace('_', ' '):<20} {plain(value)}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..core import paths
    from ..core.recall import public_sets, verify

    given = [Path(p) for p in args.cases or []]
    if len(given) > 1:
        return _verify_public(given, args)
    path = given[0] if given else paths.data_dir() / "recall-cases.json"
    raw = public_sets.read(path)
    if public_sets.is_public(raw):
        return _verify_public([path], args, [raw])
    if getattr(args, "field", "prompt") != "prompt":
        raise InvalidInput("--field applies to files in the public form (memories with ids)")
    case_file = verify.parse(raw, str(path))  # errors in the file are the user's to see at once
    written: dict[str, list[str]] | None = None
    if getattr(args, "write_cues", False):
        case_file, written = _write_cues(case_file)
    if service_holds_store():
        if case_file.cues:
            raw["cues"] = case_file.cues
        report = through_service("verify", {"file": raw, "where": str(path)})
    elif case_file.pool is not None:  # its own memories: the user's store is never opened
        from ..core.process.runtime import load_encoder

        report = verify.run_with_pool(load_encoder(progress()), case_file)
    else:
        report = with_engine(lambda engine: verify.run(engine, case_file.cases, actions_=case_file.actions))
    if written is not None:
        report["cues_written"] = written  # keep them: a "cues" map in the file is used next time
    if args.json:
        return emit_json(report)
    _print_verify(report, args.explain)
    return 0


def _verify_public(given: list[Any], args: argparse.Namespace, raws: list[Any] | None = None) -> int:
    """Files of the public form (core/recall/public_sets.py), each in a throwaway store through
    the production gate, then summed by family and prompt language. The service runs them with
    its loaded model when it holds the store; otherwise the model is loaded here (the user's store
    is never opened)."""
    from ..core.recall import public_sets

    if getattr(args, "write_cues", False) or getattr(args, "explain", False):
        raise InvalidInput(
            "--write-cues and --explain take one cases file in verify's own form, not the public form"
        )
    field = public_sets.check_field(args.field)
    raws = raws if raws is not None else [public_sets.read(path) for path in given]
    not_public = [str(path) for path, raw in zip(given, raws, strict=True) if not public_sets.is_public(raw)]
    if not_public:
        raise InvalidInput(f"several files are taken only in the public form: {', '.join(not_public)}")
    # every file parsed first: a malformed one is named before any work
    sets = [public_sets.parse(raw, str(path), field) for path, raw in zip(given, raws, strict=True)]

    def step(number: int, public: Any) -> None:
        prompts = len(public.related) + len(public.unrelated)
        print(
            f"public set {number}/{len(sets)}: {public.name} ({len(public.memories)} memories, {prompts} prompts)",
            file=sys.stderr,
            flush=True,
        )

    reports = []
    if service_holds_store():
        from ..core.service.client import call_service

        print("memevo: verify runs in the memevo service (it holds the store)…", file=sys.stderr)
        for number, (path, raw, public) in enumerate(zip(given, raws, sets, strict=True), 1):
            step(number, public)
            reports.append(
                call_service("verify", {"file": raw, "where": str(path), "field": field}, timeout_s=3600)
            )
    else:
        from ..core.process.runtime import load_encoder

        encoder = load_encoder(progress())
        for number, public in enumerate(sets, 1):
            step(number, public)
            reports.append(public_sets.run(encoder, public))
    result = public_sets.combined(reports, field)
    if args.json:
        return emit_json(result)
    _print_public(result)
    return 0


def _print_public(result: dict[str, Any]) -> None:
    from ..core.recall.public_sets import percent

    def line(label: str, f: dict[str, int]) -> str:
        return (
            f"{label:<44} recall {percent(f['recall'], f['related']):<18}"
            f" all-expected {percent(f['all_expected'], f['related']):<18}"
            f" R@5 {percent(f['recall_at_5'], f['related']):<18}"
            f" false-inj {percent(f['false_injections'], f['unrelated'])}"
            f" (rule {f['false_rule']}, project {f['false_project']})"
            + (
                f"  rules at session start {percent(f['at_start'], f['rule_related'])}"
                if f.get("rule_related")
                else ""
            )
        )

    for report in result["sets"]:
        print(line(f"{report['name']} ({report['memories']} memories)", report["figures"]))
        if len(report["languages"]) > 1:
            for lang, figures in report["languages"].items():
                print(line(f"  prompts in {lang}", figures))
    print("by family:")
    for family, figures in result["families"].items():
        print(line(f"  {family}", figures))
    print("by prompt language:")
    for lang, figures in result["languages"].items():
        print(line(f"  {lang}", figures))
    print(line("all", result["all"]))
    if result["sets"]:
        first = result["sets"][0]
        s = first["settings"]
        print(
            f"model {first['model']}  minimums rule {s['recallMinScore']} project {s['recallMinScoreProject']}"
            f"  field {result['field']}  (R@5: `memevo search`'s first five, no gate)"
        )


def _write_cues(case_file: Any) -> tuple[Any, dict[str, list[str]]]:
    """The file's memories without cues get them from the side model (one call each, at most
    sideDailyLimit), as the service writes them for the user's own memories."""
    import dataclasses

    from ..core import config as config_mod
    from ..core.learning import cue_writer

    if case_file.pool is None:
        raise InvalidInput("--write-cues needs a cases file with its own memories (`memories`)")
    given = dict(case_file.cues or {})
    items = [(text, category) for category, text in case_file.pool if text not in given]
    limit = int(config_mod.load()["sideDailyLimit"])

    def step(done: int, total: int) -> None:
        print(f"writing recall cues: {done + 1}/{total}", file=sys.stderr, flush=True)

    written, stopped = cue_writer.write_all(items, limit, step)
    if stopped:
        print(f"recall cues: {stopped}; {len(written)} of {len(items)} written", file=sys.stderr)
    return dataclasses.replace(case_file, cues=given | written), written


def _print_verify(report: dict[str, Any], explain: bool = False) -> None:
    def hit(i: dict[str, Any]) -> str:  # fused score = cosine + weight x lexical - damped (- cue offset)
        cued = " +cues" if i.get("cued") else ""
        damped = f" -{i['damped']:.3f}" if i.get("damped") else ""
        return (
            f"{i['category'][0]} {i['score']:.3f} (cos {i['cosine']:.3f} lex {i['lexical']:.3f}{damped}{cued})"
            f" {i['text'][:36]}"
        )

    def cases(rows: list[dict[str, Any]]) -> None:
        for case in rows:
            mark = "  " if case["hit"] is None else ("ok" if case["hit"] else "--")
            injected = "; ".join(hit(i) for i in case["injected"])
            print(f"{mark} {case['prompt'][:50]:<50} | {injected or '(nothing)'}")
            if explain and (not case["injected"] or case["hit"] is False):
                for category, top in case["top"].items():
                    for i in top:
                        wanted = "*" if i["id"] in case["expected_ids"] else " "
                        print(f"     {wanted} best {category:<7} {hit(i)}")

    def figures(part: dict[str, Any], label: str) -> None:
        print(f"{label}relevant hit          {part['relevant_hit']}/{part['relevant_total']}")
        print(f"{label}unrelated → rule      {part['unrelated_rule_leaks']}/{part['unrelated_total']}")
        print(f"{label}unrelated → project   {part['unrelated_project_leaks']}/{part['unrelated_total']}")
        print(f"{label}one-memory pool       {part['single_memory_hit']}/{part['single_memory_total']}")
        for category, rows in part["scan"].items():
            cells = " ".join(f"{r['min']:.2f}:{r['relevant_hit']}/{r['unrelated_leaks']}" for r in rows)
            print(f"{label}scan {category:<8} (min:hit/leak) {cells}")

    cases(report["cases"])
    if report.get("actions"):
        cases(report["actions"]["cases"])
    s = report["settings"]
    print(
        f"model {report['model']}  minimums rule {s['recallMinScore']} project {s['recallMinScoreProject']}"
        f"  lexical weight {s.get('recallLexicalWeight', 0)}  question damping {s.get('questionDamping', 0)}"
    )
    if s.get("languageNeutral"):
        print("vectors are language-neutral: the Chinese-English direction is taken out before the cosine")
    generic = s.get("genericDamping") or {}
    if generic.get("weight"):
        print(
            f"a prompt close to a generic question (closeness past {generic['from']}) loses"
            f" {generic['weight']} x the excess (shown as -damped)"
        )
    if s.get("recallCues"):
        offsets = s["cueOffsets"]
        print(
            f"recall cues: {s['memoriesWithCues']} memories have them (their scores less "
            f"{offsets['rule']} rule / {offsets['project']} project)"
        )
    figures(report, "")
    if report.get("actions"):
        figures(report["actions"], "tool calls: ")
    if report["expected_not_in_pool"]:
        print(f"not in the pool: {len(report['expected_not_in_pool'])} expected texts")


def cmd_rebuild_index(args: argparse.Namespace) -> int:
    result = through_service("rebuild_index", {}) if service_holds_store() else _rebuild_index_here()
    if args.json:
        return emit_json(result)
    print(f"re-encoded {result['encoded']} memories with {result['model']} in {result['seconds']} s")
    if result["backup"]:
        print(f"previous vectors backed up to {result['backup']}")
    return 0


def _rebuild_index_here() -> dict[str, Any]:
    import time

    from ..core.process.runtime import load_encoder
    from ..core.recall.engine import RecallEngine
    from ..core.store import vectors
    from ..core.store.database import Store

    encoder = load_encoder(progress())
    with Store.open() as store:
        backup = vectors.backup(store)
        vectors.clear(store)
        started = time.perf_counter()
        engine = RecallEngine(store, encoder)
        seconds = time.perf_counter() - started
    return {
        "model": encoder.model_id,
        "encoded": len(engine.index),
        "seconds": round(seconds, 2),
        "backup": str(backup) if backup else None,
    }


def cmd_build_background(args: argparse.Namespace) -> int:
    if service_holds_store():
        result = through_service("build_background", {})
    else:
        from ..core.encoder import background
        from ..core.process.runtime import load_encoder

        encoder = load_encoder(progress())
        target = background.build(encoder)
        result = {"model": encoder.model_id, "path": str(target), "sentences": len(background.sentences())}
    if args.json:
        return emit_json(result)
    print(
        f"background (mean and language direction) for {result['model']} from {result['sentences']} sentences: {result['path']}"
    )
    print("thresholds depend on it: run `memevo verify` on your cases")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from ..core.encoder.progress import TerminalBar
    from . import bench

    figures = bench.run(quick=args.quick, progress=TerminalBar())  # stage lines on stderr
    if args.json:
        return emit_json(figures)
    for key, value in figures.items():
        print(f"{key:<26} {value}")
    return 0
