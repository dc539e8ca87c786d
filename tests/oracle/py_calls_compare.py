#!/usr/bin/env python3
"""Incoming calls of sextant against jedi's references, on the Python standard library.

The oracle is jedi's `Script.get_references(scope="project")` over `jedi.Project(ROOT)`
(default ROOT: the standard library of the interpreter running this), with jedi's file
limits lifted (it otherwise parses only the first 30 files mentioning a name), the folders
sextant leaves out (`site-packages`, `test`, `tests`, `idle_test`) left out of its search
too, and its dynamic parameter inference off (a parameter's type inferred from the calls of
its function across the project: minutes per search with it). A subject whose search takes
longer than --jedi-timeout seconds (default 30) is skipped, counted with jedi's failures. The files compared are jedi_compare.py's (`python_files`: no tests, no
site-packages); sextant's server is given the same exclusions.

Subjects are the top-level functions and the methods of top-level classes of those files
(not dunder methods such as `__repr__`: they are called implicitly, and jedi joins every
`__repr__` it meets into one reference set), taken file by file in a seeded random order of the files, each kept when jedi gives it at
least one call site; `--samples N` stops at N subjects. A reference of jedi's is a call
site when it is not the definition itself and either the name is followed, after spaces on
its line, by `(` (`f(x)`, `obj.m (x)`, `@deco(arg)`), or it ends a decorator line
(`@deco`, `@mod.deco`: applying a decorator calls it, and sextant counts it as a call).
Passing a function by name (`map(f, xs)`) is not a call; sextant's `reference` edges are
left out for the same reason.

For each subject, jedi's call sites and those of the MCP tool `call_graph` (`direction:
incoming`, depth 1, at the subject's name, `call` edges only) are compared as the starts of
the callee's name at each site: (path relative to ROOT, 1-based line, 1-based column in
characters). jedi's reference search misses calls its own goto resolves (through
`import x as y`, re-exports): a call site only sextant lists is counted as jedi's when
jedi's `goto` from it lands on the subject, and how many were is printed. sextant's
`heuristic` edges (a method matched by name on a receiver of unknown type) are counted
unless `--exact`, and their share is printed. Precision and recall are pooled over the
subjects; the disagreements are printed with their source lines.

    target/test-venv/bin/python tests/oracle/py_calls_compare.py --sextant target/debug/sextant
        [--root DIR] [--samples 100] [--seed 1] [--show 20] [--exact]
        [--min-precision 0.95] [--min-recall 0.9]

Exit status 1 when precision or recall is below the minimum given, 2 when sextant cannot be
run. Needs jedi.
"""

import argparse
import ast
import random
import signal
import re
import shutil
import sys
import sysconfig
import time
from pathlib import Path

import jedi
import jedi.inference.references as jedi_references

from go_calls_compare import print_classes, print_disagreements, receiver_syntax
from jedi_compare import location_key, python_files
from ts_calls_compare import sextant_calls
from ts_compare import SextantMcp, Sources, fail

EXCLUDED_FOLDERS = ("site-packages", "test", "tests", "idle_test")
SEXTANT_EXCLUDES = [*(f"{name}/" for name in EXCLUDED_FOLDERS), "test_*.py"]
DECORATOR_END = re.compile(r"\s*(#.*)?$")


def subjects_of(root: Path, path: Path):
    """(rel, line, 0-based column, qualified name, kind) of each top-level function and each
    method of a top-level class."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.split("\n")
    rel = path.relative_to(root).as_posix()
    found = []

    def add(node, qualified, kind):
        if node.name.startswith("__") and node.name.endswith("__"):
            return
        # `node.col_offset` is the `def` (or `async`); the name follows it on its line.
        line = lines[node.lineno - 1]
        m = re.compile(r"(?:async\s+)?def\s+(\w+)").match(line, node.col_offset)
        if m and m[1] == node.name:
            found.append((rel, node.lineno, m.start(1), qualified, kind))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node, node.name, "function")
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(member, f"{node.name}.{member.name}", "method")
    return found


def is_call_site(sources: Sources, rel: str, line: int, column: int, name: str) -> bool:
    """Whether `name` at (line, 0-based column) is called there: followed by `(` on its line,
    or the end of a decorator."""
    text = sources.raw_line(rel, line)
    if text[column:column + len(name)] != name:
        return False
    rest = text[column + len(name):]
    if rest.lstrip(" \t").startswith("("):
        return True
    return text.lstrip().startswith("@") and DECORATOR_END.match(rest) is not None


def python_imports(sources, path):
    """The names a module's imports bind, roughly (`import a.b as c`, `from m import x`)."""
    sources.line(path, 1)
    names = set()
    for text in sources.lines[path]:
        m = re.match(r"^\s*(?:from\s+\S+\s+)?import\s+([\w., ]+)", text)
        if m:
            for part in m[1].split(","):
                words = part.split()
                if words:
                    names.add(words[-1].split(".")[0])
    return names


class JediTimeout(Exception):
    pass


def give_up(signum, frame):
    raise JediTimeout()


def jedi_calls(root, project, sources, compared, subject):
    rel, line, column, qualified, _ = subject
    path = root / rel
    text = path.read_text(encoding="utf-8", errors="replace")
    refs = jedi.Script(text, path=str(path), project=project).get_references(line, column, scope="project")
    name = qualified.rsplit(".", 1)[-1]
    calls = set()
    for r in refs:
        if r.module_path is None or r.is_definition() or r.name != name:
            continue
        try:
            ref_rel = Path(r.module_path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        if ref_rel in compared and is_call_site(sources, ref_rel, r.line, r.column, name):
            calls.add((ref_rel, r.line, r.column + 1))
    return calls


def jedi_confirms(root, project, subject, site) -> bool:
    """Whether jedi's goto from a call site lands on the subject's definition."""
    rel, line, column, _, _ = subject
    path = root / site[0]
    try:
        landed = jedi.Script(path.read_text(encoding="utf-8", errors="replace"), path=str(path),
                             project=project).goto(site[1], site[2] - 1, follow_imports=True)
    except Exception:  # jedi's own failures: not confirmed
        return False
    return any(
        n.module_path is not None and location_key(root, n.module_path, n.line, n.column, n.name) == (rel, line, column)
        for n in landed
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]),
                        help="default: this interpreter's standard library")
    parser.add_argument("--samples", type=int, default=100, help="compare this many subjects")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=20, help="disagreements to print")
    parser.add_argument("--exact", action="store_true", help="leave sextant's heuristic edges out")
    parser.add_argument("--jedi-timeout", type=int, default=30,
                        help="seconds a subject's reference search may take before it is skipped")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()
    if not shutil.which(args.sextant):
        fail(f"{args.sextant}: not found")
    root = args.root.resolve()
    started = time.perf_counter()
    # jedi's project search stops after 30 files that mention the name; the oracle is the
    # whole search. Its folders are those compared here.
    jedi_references._PARSED_FILE_LIMIT = 10**9
    jedi_references._OPENED_FILE_LIMIT = 10**9
    jedi_references._IGNORE_FOLDERS = (*jedi_references._IGNORE_FOLDERS, *EXCLUDED_FOLDERS)
    # Inferring a parameter's type from every call of its function, across the project, is
    # what makes a search take minutes; without it parameters are of unknown type to jedi.
    jedi.settings.dynamic_params = False
    jedi.settings.dynamic_params_for_other_modules = False
    signal.signal(signal.SIGALRM, give_up)
    project = jedi.Project(path=str(root), added_sys_path=[str(root)])
    files = python_files(root)
    compared = {p.relative_to(root).as_posix() for p in files}
    sources = Sources(root)
    sextant = SextantMcp(args.sextant, root, [a for g in SEXTANT_EXCLUDES for a in ("--exclude", g)])
    sextant.wait_until_ready()
    indexed = time.perf_counter() - started
    jedi_seconds = 0.0

    random.Random(args.seed).shuffle(files)
    agreed = found_total = expected_total = heuristic_total = heuristic_right = confirmed = 0
    subjects = jedi_failed = declared = 0
    functions = 0
    extra, missed = [], []
    classes = {}
    for path in files:
        if subjects >= args.samples:
            break
        for subject in subjects_of(root, path):
            if subjects >= args.samples:
                break
            declared += 1
            asked = time.perf_counter()
            signal.alarm(args.jedi_timeout)
            try:
                expected = jedi_calls(root, project, sources, compared, subject)
            except Exception:  # jedi has bugs of its own; such subjects are skipped
                jedi_failed += 1
                continue
            finally:
                signal.alarm(0)
                jedi_seconds += time.perf_counter() - asked
            if not expected:
                continue
            subjects += 1
            functions += subject[4] == "function"
            rel, line, column, _, _ = subject
            found, certainty = sextant_calls(
                sextant, rel, line, column + 1, args.exact,
                lambda edge, path, site: edge["kind"] == "call" and path in compared,
            )
            for key in sorted(found - expected):
                if is_call_site(sources, key[0], key[1], key[2] - 1, subject[3].rsplit(".", 1)[-1]) \
                        and jedi_confirms(root, project, subject, key):
                    expected.add(key)
                    confirmed += 1
            agreed += len(found & expected)
            found_total += len(found)
            expected_total += len(expected)
            for key in found:
                if certainty[key] == "heuristic":
                    heuristic_total += 1
                    heuristic_right += key in expected
            for key in expected - found:
                kind = receiver_syntax(sources, *key, python_imports(sources, key[0]))
                classes[kind] = classes.get(kind, 0) + 1
            extra += [(subject[3], key, certainty[key]) for key in sorted(found - expected)]
            missed += [(subject[3], key, None) for key in sorted(expected - found)]
    sextant.close()

    precision = agreed / found_total if found_total else 1.0
    recall = agreed / expected_total if expected_total else 1.0
    print(
        f"{functions} functions and {subjects - functions} methods with incoming calls "
        f"(of {declared} declared in the files looked at; jedi failed or timed out on "
        f"{jedi_failed}); "
        f"jedi's {expected_total} call sites ({confirmed} of them found by its goto from "
        f"sextant's sites, not its reference search), sextant's {found_total}, {agreed} the same"
    )
    print(f"precision {precision:.3f}, recall {recall:.3f}")
    print(f"sextant's heuristic call sites: {heuristic_total}, {heuristic_right} of them jedi's")
    print_disagreements((("sextant only", extra), ("jedi only", missed)), args.show, sources)
    print_classes("jedi's call sites sextant misses", classes)
    print(f"{time.perf_counter() - started:.1f} s: sextant's index {indexed:.1f} s, its calls "
          f"{sextant.seconds:.1f} s; jedi's reference searches {jedi_seconds:.1f} s")
    if precision < args.min_precision or recall < args.min_recall:
        print(f"below --min-precision {args.min_precision} or --min-recall {args.min_recall}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
