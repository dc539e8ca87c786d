#!/usr/bin/env python3
"""Implementations of sextant against the TypeScript language service.

The oracle is `typescript` 5.x's `getImplementationAtPosition`, driven by
tests/oracle/ts_service.mjs over the project in --tree (default: rxjs 7's `src/`, which
scripts/test installs under target/npm-tools), as tests/oracle/ts_compare.py drives it.

Subjects are the top-level classes and interfaces of the project's files (the service's
syntax trees), and the methods declared in them, that the service gives at least one
implementation other than themselves; `--samples N` takes the first N of them in a seeded
random order, types and methods alike. For each, the service's answer at the
type's name and the MCP tool `find_implementations` of one `sextant mcp` server (`limit`
1000, a response limit no answer reaches, exact and heuristic answers alike) are compared as the starts of the types' names:
(path relative to the tree, 1-based line, 1-based column in characters). The service also
answers expressions that are typed as the type (an object literal, `[]` given to a
parameter of the type, `this` in a class, a method of an object literal); those are counted
apart and left out, as is the subject itself (which the service lists for a class, and for a
method as the overload with a body), and, of sextant's items, Rust-only `impl` items.
Precision and recall are pooled over the subjects; the disagreements are printed with the
source line of each type.

    python3 tests/oracle/ts_implementations_compare.py --sextant target/debug/sextant
        [--tree DIR] [--tsconfig FILE] [--samples N] [--seed 1] [--show 20]
        [--min-precision 0.95] [--min-recall 0.9]

Exit status 1 when precision or recall is below the minimum given, 2 when the service or
sextant cannot be run.
"""

import argparse
import random
import sys
import time

from ts_compare import SextantMcp, add_project_arguments, open_project

TYPE_KINDS = {"class", "interface"}
DECLARED_KINDS = TYPE_KINDS | {"method"}


def service_implementations(service, rel, offset, subject):
    """The service's named implementations (class, interface and method declarations, the
    subject's own declarations left out), and how many expressions it answered."""
    named, expressions = set(), 0
    for loc in service.ask("implementations", file=rel, offset=offset):
        if loc["where"] != "project":
            continue
        key = (loc["file"], loc["line"], loc["column"])
        if loc.get("declares") in DECLARED_KINDS:
            if key not in subject:
                named.add(key)
        else:
            expressions += 1
    return named, expressions


MAX_RESPONSE_CHARS = 20_000_000


def sextant_implementations(sextant, rel, line, column):
    try:
        content = sextant.tool(
            "find_implementations", {"path": rel, "line": line, "column": column, "limit": 1000}
        )
    except RuntimeError as error:
        if '"NOT_FOUND"' in str(error):
            return set(), {}
        raise
    if content.get("truncated"):
        # A cut answer would count its missing tail as misses of sextant's.
        raise RuntimeError(f"{rel}:{line}:{column}: find_implementations cut its answer")
    keys, certainty = set(), {}
    for item in content["items"]:
        if item["kind"] == "impl":
            continue
        key = (item["path"], item["name_span"]["start"]["line"], item["name_span"]["start"]["column"])
        keys.add(key)
        certainty[key] = item["certainty"]
    return keys, certainty


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project_arguments(parser)
    args = parser.parse_args()
    started = time.perf_counter()
    tree, service, sources = open_project(args)

    candidates = []
    for rel in service.ask("files"):
        for d in service.ask("declarations", file=rel):
            if d["kind"] in TYPE_KINDS:
                candidates.append((rel, d))
        for m in service.ask("methods", file=rel):
            candidates.append((rel, {**m, "kind": "method", "name": f"{m['container']}.{m['name']}"}))
    # With --samples, candidates are asked in a seeded random order until enough have
    # implementations, so that a small sample asks the service little.
    if args.samples:
        random.Random(args.seed).shuffle(candidates)
    subjects = []
    expressions = 0
    for rel, d in candidates:
        if args.samples and len(subjects) == args.samples:
            break
        subject = {(rel, o["line"], o["column"]) for o in d.get("overloads", [d])}
        named, answered_expressions = service_implementations(service, rel, d["offset"], subject)
        expressions += answered_expressions
        if named:
            subjects.append((rel, d, named))

    # A type with hundreds of implementations (zod's `$ZodType`) is over the default limit
    # of an answer's characters: the comparison needs every item.
    sextant = SextantMcp(args.sextant, tree, ["--max-response-chars", str(MAX_RESPONSE_CHARS)])
    agreed = found_total = expected_total = 0
    heuristic_right = heuristic_total = 0
    extra, missed = [], []
    for rel, d, expected in subjects:
        found, certainty = sextant_implementations(sextant, rel, d["line"], d["column"])
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
    types = sum(d["kind"] in TYPE_KINDS for _, d, _ in subjects)
    print(
        f"{types} classes and interfaces and {len(subjects) - types} methods with implementations "
        f"(of {len(candidates)} declared); the service's {expected_total} named implementations, "
        f"sextant's {found_total}, {agreed} the same"
    )
    print(f"precision {precision:.3f}, recall {recall:.3f}")
    print(f"sextant's heuristic answers: {heuristic_total}, {heuristic_right} of them the service's")
    print(f"the service's answers that are expressions (left out): {expressions}")
    for label, rows in (("sextant only", extra), ("the service only", missed)):
        for name, (path, line, column) in rows[: args.show]:
            print(f"  {label}: {name} -> {path}:{line}:{column}  {sources.line(path, line)}")
    print(f"{time.perf_counter() - started:.1f} s")
    if precision < args.min_precision or recall < args.min_recall:
        print(f"below --min-precision {args.min_precision} or --min-recall {args.min_recall}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
