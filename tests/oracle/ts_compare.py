#!/usr/bin/env python3
"""Goto-definition and references of sextant against the TypeScript language service.

The oracle is `typescript` 5.x driven by tests/oracle/ts_service.mjs (one Node process for the
run) over the project in --tree: its tsconfig.json (or --tsconfig), else every TS/JS file under
it. The default tree is the `src/` of rxjs 7, which scripts/test installs under
target/npm-tools.

Goto-definition (default): samples identifier occurrences at random (a file, then an
identifier in it, from the service's syntax trees, seeded) and asks the service
(`getDefinitionAtPosition`) and sextant (`sextant def FILE:LINE:COLUMN --json`, one process a
question, each indexing the tree anew; with --mcp the tool `find_definition` of one `sextant
mcp` server for the run, much faster on a large tree) where each is defined. A definition is
compared as the start of its name: (path relative to the tree, 1-based line, 1-based column in
characters); a module (`import * as m` leading to a file) as (path, "module"). sextant's
heuristic answers are left out. A sample *agrees* when one of sextant's definitions is one of
the service's definitions inside the project, or another declaration of the same symbol (the
service names only the overload signature a call resolves to, though every declaration of a
merged name). How many agree with exactly the service's set is reported too. Samples whose
every definition lies outside the project (TypeScript's lib.*.d.ts, node_modules) are counted
apart, with how often sextant answers them as external; samples the service cannot resolve are
skipped. Disagreements are printed by class (sextant none, sextant different, service none,
external but not to sextant), each with the syntax the name is part of, its source line and
both answers, and counted by that syntax.

References (`--references N`): picks N top-level declarations (functions, classes, interfaces,
types, enums, variables) at random, asks the service (`findReferences`, every location it
groups, the declarations included) and sextant (`sextant refs --exact --json`, or
`find_references` with --mcp) for their references inside the project, and reports precision
and recall of sextant's against the service's. The service's references in doc comments
(`{@link name}`, `@see name`) count like any other; with --skip-doc-comments they are counted
apart and left out of both (the figure before sextant read doc comments). With --members the
declarations are the members of top-level classes and interfaces (methods, fields, property
signatures) instead.

    python3 tests/oracle/ts_compare.py --sextant target/debug/sextant [--tree DIR]
        [--tsconfig FILE] [--samples 300] [--references 50] [--seed 1] [--show 40]
        [--min-agreement 0.95] [--min-precision 0.95] [--min-recall 0.9] [--mcp]
        [--skip-doc-comments] [--members]

Exit status 1 when agreement (or, with --references, precision or recall) is below the
minimum given, 2 when the service or sextant cannot be run. Needs Node.js and `typescript`
5.x (--typescript DIR, default target/npm-tools/node_modules/typescript).
"""

import argparse
import collections
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TREE = REPO / "target/npm-tools/node_modules/rxjs/src"


def fail(message):
    print(f"ts_compare.py: {message}", file=sys.stderr)
    sys.exit(2)


class Service:
    """ts_service.mjs, one request and one reply a line."""

    def __init__(self, node, tree, tsconfig, typescript):
        cmd = [node, str(Path(__file__).with_name("ts_service.mjs")), "--tree", str(tree)]
        if tsconfig:
            cmd += ["--tsconfig", str(tsconfig)]
        if typescript:
            cmd += ["--typescript", str(typescript)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 0
        self.seconds = collections.Counter()
        self.calls = collections.Counter()

    def ask(self, op, **params):
        self.next_id += 1
        started = time.perf_counter()
        self.proc.stdin.write(json.dumps({"id": self.next_id, "op": op, **params}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            fail(f"ts_service.mjs exited (status {self.proc.wait()})")
        self.seconds[op] += time.perf_counter() - started
        self.calls[op] += 1
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class SextantCli:
    """One `sextant def`/`sextant refs` process a question (each indexes the tree anew)."""

    def __init__(self, binary, tree):
        self.binary, self.tree = binary, tree
        self.seconds = 0.0
        self.calls = 0

    def run(self, args):
        started = time.perf_counter()
        result = subprocess.run([self.binary, *args, "--root", str(self.tree), "--json"], capture_output=True, text=True)
        self.seconds += time.perf_counter() - started
        self.calls += 1
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError:
            raise RuntimeError((result.stderr.strip() or f"status {result.returncode}").splitlines()[-1]) from None

    def definitions(self, rel, line, column):
        return self.run(["def", f"{rel}:{line}:{column}"])

    def references(self, rel, line, column):
        return [
            (r["path"], r["span"]["start"]["line"], r["span"]["start"]["column"])
            for r in self.run(["refs", f"{rel}:{line}:{column}", "--exact", "--limit", "1000000"])["references"]
        ]

    def close(self):
        pass


class SextantMcp:
    """One `sextant mcp` server for the run, spoken to as JSON-RPC lines over stdio."""

    def __init__(self, binary, tree, extra_args=()):
        self.proc = subprocess.Popen(
            # Navigation is timed here: no background check competing for the cores.
            [binary, "mcp", "--root", str(tree), "--no-background-check", *extra_args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
        )
        self.next_id = 0
        self.seconds = 0.0
        self.calls = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "ts_compare", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                fail(f"sextant mcp exited (status {self.proc.wait()})")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(message["error"].get("message", str(message["error"])))
                return message["result"]

    def tool(self, name, arguments):
        started = time.perf_counter()
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        self.seconds += time.perf_counter() - started
        self.calls += 1
        if result.get("isError"):
            raise RuntimeError(result["content"][0]["text"])
        return result["structuredContent"]

    def wait_until_ready(self, seconds=600):
        """Wait for the first index (a debug build on a large tree can take longer than one
        call's time limit), so that each call's time is its own."""
        deadline = time.perf_counter() + seconds
        while not self.tool("workspace_status", {}).get("ready"):
            if time.perf_counter() > deadline:
                fail(f"sextant's index was not ready after {seconds} s")
            time.sleep(0.5)

    def definitions(self, rel, line, column):
        return self.tool("find_definition", {"path": rel, "line": line, "column": column, "positions": "full"})[
            "definitions"
        ]

    def references(self, rel, line, column):
        # 1000 is the most the tool lists; a longer list is reported as truncated.
        content = self.tool(
            "find_references", {"path": rel, "line": line, "column": column, "exact_only": True, "limit": 1000}
        )
        if content.get("truncated"):
            print(f"{rel}:{line}:{column}: sextant's references truncated at 1000")
        return [(r["path"], r["line"], r["column"]) for r in content["references"]]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def service_keys(locations):
    """The service's definitions: those in the project as sextant's keys, the same plus every
    declaration of their symbols, and the others as ("<external>", where, file, name)."""
    project, symbol, external = set(), set(), set()
    for loc in locations:
        if loc["where"] != "project":
            external.add(("<external>", loc["where"], loc["file"], loc["name"]))
        elif loc["kind"] == "module" and loc["offset"] == 0:
            project.add((loc["file"], "module"))
        else:
            project.add((loc["file"], loc["line"], loc["column"]))
            symbol.update((d["file"], d["line"], d["column"]) for d in loc.get("symbol", []))
    return project, project | symbol, external


def sextant_keys(definitions):
    keys = set()
    for d in definitions:
        if d.get("heuristic") or d.get("certainty") == "heuristic":
            continue
        if d["kind"] == "external":
            keys.add(("<external>", d.get("module") or d["name"]))
        elif d["kind"] == "module":
            keys.add((d["path"], "module"))
        else:
            keys.add((d["path"], d["span"]["start"]["line"], d["span"]["start"]["column"]))
    return keys


def add_project_arguments(parser):
    """The options of an oracle comparing sextant with the service on one project: the
    programs, the project, sampling, output, and the minimum figures."""
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="the project (default: rxjs 7's src/)")
    parser.add_argument("--tsconfig", type=Path, help="default: TREE/tsconfig.json if it exists")
    parser.add_argument("--typescript", type=Path, help="the typescript package directory")
    parser.add_argument("--node", default="node")
    parser.add_argument("--samples", type=int, default=0, help="compare this many subjects (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=20, help="disagreements to print")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)


def open_project(args):
    """The project of `add_project_arguments`' options: its directory, the service on it and
    its sources; exits with status 2 when a program or the project is missing."""
    for program in (args.node, args.sextant):
        if not shutil.which(program):
            fail(f"{program}: not found")
    tree = args.tree.resolve()
    if not tree.is_dir():
        fail(f"{tree}: not a directory (scripts/test installs rxjs under target/npm-tools)")
    return tree, Service(args.node, tree, args.tsconfig, args.typescript), Sources(tree)


class Sources:
    def __init__(self, tree):
        self.tree = tree
        self.lines = {}

    def line(self, rel, number):
        return self.raw_line(rel, number).strip()

    def raw_line(self, rel, number):
        if rel not in self.lines:
            text = (self.tree / rel).read_text(encoding="utf-8", errors="replace")
            self.lines[rel] = text.split("\n")
        lines = self.lines[rel]
        return lines[number - 1] if 0 < number <= len(lines) else ""


def show_key(key):
    if key[0] == "<error>":
        return f"error: {key[1]}"
    if key[0] == "<external>":
        return f"external {key[1]}" + (f" ({Path(key[2]).name})" if len(key) > 3 else "")
    if key[1] == "module":
        return f"{key[0]} (module)"
    return f"{key[0]}:{key[1]}:{key[2]}"


def compare_definitions(service, sextant, sources, files, rng, args):
    identifiers = {}
    compared = agreed = same = 0
    misses = collections.defaultdict(list)
    external = collections.Counter()
    external_agreed = 0
    attempts = 0
    while compared < args.samples and attempts < args.samples * 20:
        attempts += 1
        rel = rng.choice(files)
        if rel not in identifiers:
            identifiers[rel] = service.ask("identifiers", file=rel)
        if not identifiers[rel]:
            continue
        occurrence = rng.choice(identifiers[rel])
        line, column = occurrence["line"], occurrence["column"]
        try:
            expected, accepted, outside = service_keys(service.ask("definition", file=rel, offset=occurrence["offset"]))
            shown = expected | outside
        except RuntimeError as e:
            expected, accepted, outside, shown = set(), set(), set(), {("<error>", str(e))}
        try:
            got = sextant_keys(sextant.definitions(rel, line, column))
        except RuntimeError as e:
            got = {("<error>", str(e))}
        sample = (rel, line, column, occurrence["name"], occurrence["context"], shown, got)
        if not expected and not outside:
            misses["service none"].append(sample)
            continue
        if not expected:
            kind = "/".join(sorted({k[1] for k in outside}))
            external[kind] += 1
            if any(k[0] == "<external>" for k in got):
                external_agreed += 1
            else:
                misses["external, sextant not external"].append(sample)
            continue
        compared += 1
        if got & accepted:
            agreed += 1
            same += got == expected
        elif not got:
            misses["sextant none"].append(sample)
        else:
            misses["sextant different"].append(sample)
    order = ["sextant none", "sextant different", "service none", "external, sextant not external"]
    for kind in order:
        samples = misses.get(kind, [])
        if not samples:
            continue
        contexts = collections.Counter(s[4] for s in samples)
        print(f"== {kind}: {len(samples)} (" + ", ".join(f"{c} {n}" for c, n in contexts.most_common()) + ")")
        for rel, line, column, name, context, expected, got in samples[: args.show]:
            print(f"{rel}:{line}:{column} {name} [{context}]\n    | {sources.line(rel, line)}")
            print(f"    service: {', '.join(sorted(map(show_key, expected))) or '-'}")
            print(f"    sextant: {', '.join(sorted(map(show_key, got))) or '-'}")
    for kind in order:
        print(f"{kind}: {len(misses.get(kind, []))}")
    agreement = agreed / compared if compared else 0.0
    outside_total = sum(external.values())
    print(
        f"goto-definition: {agreed}/{compared} agree ({agreement:.1%}), {same} with the same set; "
        f"{outside_total} more lie outside the project ("
        + ", ".join(f"{k} {n}" for k, n in external.most_common())
        + f"{'; ' if outside_total else ''}sextant answers {external_agreed} as external); "
        f"{len(misses.get('service none', []))} the service could not resolve were skipped"
    )
    return 0 if agreement >= args.min_agreement else 1


def compare_references(service, sextant, sources, files, rng, args):
    declarations = {}
    true_positive = false_positive = false_negative = in_comments = 0
    rows = []
    attempts = 0
    while len(rows) < args.references and attempts < args.references * 20:
        attempts += 1
        rel = rng.choice(files)
        if rel not in declarations:
            declarations[rel] = service.ask("declarations", file=rel, members=args.members)
        if not declarations[rel]:
            continue
        decl = rng.choice(declarations[rel])
        found = [r for r in service.ask("references", file=rel, offset=decl["offset"]) if r["where"] == "project"]
        skipped = args.skip_doc_comments
        expected = {(r["file"], r["line"], r["column"]) for r in found if not (skipped and r["comment"])}
        comments = {(r["file"], r["line"], r["column"]) for r in found if r["comment"]}
        if not expected:
            continue
        try:
            got = set(sextant.references(rel, decl["line"], decl["column"]))
            if skipped:
                got -= comments
        except RuntimeError as e:
            print(f"{rel}:{decl['line']}:{decl['column']} {decl['name']}: sextant failed: {e}")
            got = set()
        in_comments += len(comments)
        tp, fp, fn = len(got & expected), len(got - expected), len(expected - got)
        true_positive, false_positive, false_negative = true_positive + tp, false_positive + fp, false_negative + fn
        rows.append((rel, decl, tp, sorted(got - expected), sorted(expected - got)))
    for rel, decl, tp, extra, missing in rows:
        if not extra and not missing:
            continue
        print(f"{rel}:{decl['line']} {decl['kind']} {decl['name']}: {tp} shared, "
              f"{len(extra)} only sextant, {len(missing)} only the service")
        for label, keys in (("only sextant", extra), ("only service", missing)):
            for key in keys[:3]:
                print(f"    {label}: {show_key(key)} | {sources.line(key[0], key[1])}")
    precision = true_positive / (true_positive + false_positive) if true_positive + false_positive else None
    recall = true_positive / (true_positive + false_negative) if true_positive + false_negative else 1.0
    shown = f"{precision:.1%}" if precision is not None else "n/a (sextant listed none)"
    comment_note = "are left out" if args.skip_doc_comments else "are counted"
    print(
        f"references of {len(rows)} definitions: precision {shown}, recall {recall:.1%} "
        f"({true_positive} shared, {false_positive} only sextant, {false_negative} only the service; "
        f"{in_comments} the service finds in doc comments, `{{@link name}}`, {comment_note})"
    )
    return 0 if (precision if precision is not None else 1.0) >= args.min_precision and recall >= args.min_recall else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="the project (default: rxjs 7's src/)")
    parser.add_argument("--tsconfig", type=Path, help="default: TREE/tsconfig.json if it exists")
    parser.add_argument("--typescript", type=Path, help="the typescript package directory")
    parser.add_argument("--node", default="node")
    parser.add_argument("--mcp", action="store_true", help="ask one `sextant mcp` server instead of the CLI")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-agreement", type=float, default=0.0)
    parser.add_argument("--show", type=int, default=40, help="disagreements to print, of each class")
    parser.add_argument("--references", type=int, default=0, help="compare references of this many definitions instead")
    parser.add_argument("--min-precision", type=float, default=0.0, help="with --references")
    parser.add_argument("--min-recall", type=float, default=0.0, help="with --references")
    parser.add_argument("--members", action="store_true",
                        help="with --references: members of top-level classes and interfaces instead")
    parser.add_argument("--skip-doc-comments", action="store_true",
                        help="with --references: leave the service's doc-comment references out of both sides")
    args = parser.parse_args()
    if not args.tree.is_dir():
        fail(f"{args.tree}: no such directory (scripts/test installs rxjs under target/npm-tools)")
    tree = args.tree.resolve()
    for program in (args.node, args.sextant):
        if not shutil.which(program):
            fail(f"{program}: no such program")
    service = Service(args.node, tree, args.tsconfig, args.typescript)
    sextant = (SextantMcp if args.mcp else SextantCli)(args.sextant, tree)
    try:
        info = service.ask("info")
        files = service.ask("files")
        print(f"typescript {info['typescript']} on {tree} ({info['tsconfig'] or 'no tsconfig'}): "
              f"{len(files)} source files sampled of {info['files']} in the project")
        if not files:
            fail(f"{tree}: no source files to sample")
        rng = random.Random(args.seed)
        sources = Sources(tree)
        compare = compare_references if args.references else compare_definitions
        status = compare(service, sextant, sources, files, rng, args)
        op = "references" if args.references else "definition"
        if service.calls[op]:
            print(f"time: the service answered {service.calls[op]} {op} requests in {service.seconds[op]:.1f} s "
                  f"({service.calls[op] / service.seconds[op]:.0f}/s, after loading the project); "
                  f"sextant {sextant.calls} in {sextant.seconds:.1f} s")
        return status
    finally:
        service.close()
        sextant.close()


if __name__ == "__main__":
    sys.exit(main())
