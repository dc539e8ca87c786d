#!/usr/bin/env python3
"""Incoming calls of sextant against the TypeScript language service's call hierarchy.

The oracle is `typescript` 5.x's `provideCallHierarchyIncomingCalls`, driven by
tests/oracle/ts_service.mjs over the project in --tree (default: rxjs 7's `src/`, which
scripts/test installs under target/npm-tools), as tests/oracle/ts_compare.py drives it.

Subjects are the top-level functions and the methods of top-level classes and interfaces
of the project's files that the service gives at least one incoming call from the project;
`--samples N` takes the first N of them in a seeded random order. For each, the service's
call sites and those of the MCP tool `call_graph` (`direction: incoming`, depth 1, at the
subject's name) are compared as the starts of the callee's name at each site: (path
relative to the tree, 1-based line, 1-based column in characters). The service counts
as a call site every call and every member access (`x.m` called or not: `f = this.m`,
`this.m.bind(this)`), so sextant's `reference` edges (a function named without being called)
are counted when they are member accesses and left out otherwise (`arr.map(f)`); its
`heuristic` edges (a method matched by name on a receiver of unknown type) are
counted, and their share is printed. Precision and recall are pooled over the subjects; the
disagreements are printed with the source line of each site.

    python3 tests/oracle/ts_calls_compare.py --sextant target/debug/sextant
        [--tree DIR] [--tsconfig FILE] [--samples N] [--seed 1] [--show 20] [--exact]
        [--min-precision 0.95] [--min-recall 0.9]

`--exact` leaves sextant's heuristic edges out. Exit status 1 when precision or recall is
below the minimum given, 2 when the service or sextant cannot be run.
"""

import argparse
import random
import sys
import time

from ts_compare import SextantMcp, add_project_arguments, open_project


def service_calls(service, rel, offset):
    return {
        (loc["file"], loc["line"], loc["column"])
        for loc in service.ask("incomingCalls", file=rel, offset=offset)
        if loc["where"] == "project"
    }


def is_member_access(sources, path, line, column):
    before = sources.raw_line(path, line)[: column - 1].rstrip()
    return before.endswith(".")


def calls_only(edge, path, site):
    return edge["kind"] == "call"


def sextant_calls(sextant, rel, line, column, exact, counts=calls_only):
    """The incoming call sites `call_graph` gives the subject at (rel, line, column) as
    {(path, line, column)}, and each one's certainty; `counts(edge, path, site)` says which
    sites count (default: those of `call` edges). Shared by the calls oracles."""
    try:
        content = sextant.tool(
            "call_graph",
            {"path": rel, "line": line, "column": column, "direction": "incoming", "depth": 1,
             "max_nodes": 1000, "max_tokens": 100000, "exact_only": exact},
        )
    except RuntimeError as error:
        if '"INVALID_TARGET"' in str(error) or '"NO_SYMBOL"' in str(error):
            return set(), {}
        raise
    sites, certainty = set(), {}
    nodes = content["nodes"]
    for edge in content["edges"]:
        path = nodes[edge["caller"]]["path"]
        for site in edge["sites"]:
            if counts(edge, path, site):
                key = (path, site["line"], site["column"])
                sites.add(key)
                certainty[key] = edge["certainty"]
    return sites, certainty


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project_arguments(parser)
    parser.add_argument("--exact", action="store_true", help="leave sextant's heuristic edges out")
    args = parser.parse_args()
    started = time.perf_counter()
    tree, service, sources = open_project(args)

    candidates = []
    for rel in service.ask("files"):
        for d in service.ask("declarations", file=rel):
            if d["kind"] == "function":
                candidates.append((rel, d))
        for m in service.ask("methods", file=rel):
            candidates.append((rel, {**m, "kind": "method", "name": f"{m['container']}.{m['name']}"}))
    if args.samples:
        random.Random(args.seed).shuffle(candidates)
    subjects = []
    for rel, d in candidates:
        if args.samples and len(subjects) == args.samples:
            break
        expected = service_calls(service, rel, d["offset"])
        if expected:
            subjects.append((rel, d, expected))

    sextant = SextantMcp(args.sextant, tree)
    agreed = found_total = expected_total = heuristic_total = heuristic_right = 0
    extra, missed = [], []
    for rel, d, expected in subjects:
        found, certainty = sextant_calls(
            sextant, rel, d["line"], d["column"], args.exact,
            lambda edge, path, site: edge["kind"] == "call"
            or (edge["kind"] == "reference" and is_member_access(sources, path, site["line"], site["column"])),
        )
        agreed += len(found & expected)
        found_total += len(found)
        expected_total += len(expected)
        for key in found:
            if certainty[key] == "heuristic":
                heuristic_total += 1
                heuristic_right += key in expected
        extra += [(d["name"], key) for key in sorted(found - expected)]
        missed += [(d["name"], key) for key in sorted(expected - found)]
    sextant.close()
    service.close()

    precision = agreed / found_total if found_total else 1.0
    recall = agreed / expected_total if expected_total else 1.0
    functions = sum(d["kind"] == "function" for _, d, _ in subjects)
    print(
        f"{functions} functions and {len(subjects) - functions} methods with incoming calls "
        f"(of {len(candidates)} declared); the service's {expected_total} call sites, "
        f"sextant's {found_total}, {agreed} the same"
    )
    print(f"precision {precision:.3f}, recall {recall:.3f}")
    print(f"sextant's heuristic call sites: {heuristic_total}, {heuristic_right} of them the service's")
    for label, rows in (("sextant only", extra), ("the service only", missed)):
        for name, (path, line, column) in rows[: args.show]:
            print(f"  {label}: {name} <- {path}:{line}:{column}  {sources.line(path, line)}")
    print(f"{time.perf_counter() - started:.1f} s")
    if precision < args.min_precision or recall < args.min_recall:
        print(f"below --min-precision {args.min_precision} or --min-recall {args.min_recall}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
