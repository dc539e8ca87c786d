#!/usr/bin/env python3
"""Incoming calls of sextant against Go's type checker, on Go's standard library.

--packages N standard library packages (`go list std`, no cgo; seeded) are copied out of
GOROOT's `src` into a temporary tree, each package's build files only, as go_compare.py does;
a package go/types does not check cleanly there is left out. The oracle is
`go_typecheck.go -calls` (go/types): every call expression of the tree whose callee resolves,
through `types.Info.Selections` or `Uses`, to a function or method declared in the tree, as
the callee's declaration and the call site (the callee's name: `f` in `f(x)`, `M` in
`x.M()`, `f` in `f[T](x)`). Calls from one copied package into another count: the imported
package's declarations come from the toolchain's export data, whose positions name the
files under GOROOT, which the tree has copies of. GOROOT's `src/go.mod` (`module std`) and
`src/cmd/go.mod` (`module cmd`) are copied too, so that sextant sees the tree as Go does.

Subjects are the functions and methods (declared with `func`) that go/types gives at least
one call site, in a seeded random order; `--samples N` takes the first N. For each, the
sites and those of the MCP tool `call_graph` (`direction: incoming`, depth 1, at the
subject's name, `call` edges only) are compared as (path relative to the tree, 1-based
line, 1-based column in characters).

Interface method calls: go/types resolves `x.M()` on an interface-typed `x` to the
interface's method, which is not a `func` declaration and so never a subject; the concrete
method such a call may reach at run time is not a call site of it for go/types. sextant may
list such a site under a concrete method, as a heuristic edge (a method matched by name).
Those sites are counted apart ("interface dispatch") and left out of precision, as neither
side can say whether that concrete method is the one called; every other site only sextant
lists counts against it. `--exact` leaves sextant's heuristic edges out.

    python3 tests/oracle/go_calls_compare.py --sextant target/debug/sextant
        [--packages 40] [--samples N] [--seed 1] [--show 20] [--exact]
        [--min-precision 0.95] [--min-recall 0.9]

Exit status 1 when precision or recall is below the minimum given, 2 when go or sextant
cannot be run.
"""

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from go_compare import build_checker, copy_packages, eligible, fail, go_env, go_list_std, run_go
from ts_calls_compare import sextant_calls
from ts_compare import SextantMcp, Sources

CALL = re.compile(r"^CALL (\S+):(\d+):(\d+) (\S+):(\d+):(\d+) (static|interface) (\w+)$")


def go_calls(checker, root, dirs):
    """(callee path, line, name) -> set of sites (path, line, byte column), and the sites
    of interface method calls by the method's name."""
    calls, interface = {}, {}
    for start in range(0, len(dirs), 100):
        done = subprocess.run([str(checker), "-calls", str(root), *dirs[start:start + 100]],
                              capture_output=True, text=True, env=go_env(), timeout=1800)
        if done.returncode != 0:
            fail(f"the type checker failed: {done.stderr[:500]}")
        for line in done.stdout.splitlines():
            m = CALL.match(line)
            if not m:
                continue
            site = (m[4], int(m[5]), int(m[6]))
            if m[7] == "interface":
                interface.setdefault(m[8], set()).add(site)
            else:
                calls.setdefault((m[1], int(m[2]), m[8]), set()).add(site)
    return calls, interface


def characters(sources, site):
    """A site's byte column as a column in characters."""
    path, line, column = site
    text = sources.raw_line(path, line).encode("utf-8")
    return (path, line, len(text[:column - 1].decode("utf-8", errors="replace")) + 1)


def name_column(sources, path, line, name):
    """The 1-based character column of a `func` declaration's name on its line, or None."""
    text = sources.raw_line(path, line)
    m = re.match(r"func\s*(\([^)]*\)\s*)?(" + re.escape(name) + r")\b", text)
    return m.start(2) + 1 if m else None


def receiver_syntax(sources, path, line, column, packages=()):
    """What a call site's callee name is reached through, by its syntax: the class a miss is
    counted in. `packages` are names that stand for imported packages or modules."""
    text = sources.raw_line(path, line)[: column - 1].rstrip()
    if not text.endswith("."):
        return "a name (`f(x)`)"
    before = text[:-1].rstrip()
    if before.endswith(")"):
        return "a call's result, a conversion or parentheses (`f().m()`, `T(x).m()`)"
    if before.endswith("]"):
        return "an index expression (`xs[i].m()`)"
    word = re.search(r"(\w+)$", before)
    if not word:
        return "other"
    if before[: word.start()].rstrip().endswith("."):
        return "a field chain (`a.b.m()`)"
    if word[1] in ("self", "cls"):
        return f"`{word[1]}` (`{word[1]}.m()`)"
    if word[1] in packages:
        return "an imported package or module (`pkg.f()`)"
    return "a variable (`x.m()`)"


def go_imports(sources, path):
    """The names a Go file's imports bind (the last element of the path, or the alias)."""
    sources.line(path, 1)
    names = set()
    for text in sources.lines[path]:
        m = re.match(r'^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]+)"\s*$', text)
        if m:
            names.add(m[1] or m[2].rsplit("/", 1)[-1])
    return names


def print_disagreements(labelled, show, sources):
    """Each (label, rows) pair's first `show` rows, (name, site, how), with the site's line."""
    for label, rows in labelled:
        for name, (path, line, column), how in rows[:show]:
            tag = f" [{how}]" if how else ""
            print(f"  {label}{tag}: {name} <- {path}:{line}:{column}  {sources.line(path, line)}")
        if len(rows) > show:
            print(f"  {label}: … {len(rows) - show} more")


def print_classes(title, classes):
    print(f"{title}, by the syntax of the callee's receiver:")
    for name, count in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"  {count:5}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--goroot", type=Path, help="default: `go env GOROOT`")
    parser.add_argument("--packages", type=int, default=40, help="how many packages to copy, picked at random")
    parser.add_argument("--samples", type=int, default=0, help="compare this many subjects (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=20, help="disagreements to print")
    parser.add_argument("--exact", action="store_true", help="leave sextant's heuristic edges out")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()
    for program in ("go", args.sextant):
        if not shutil.which(program):
            fail(f"{program}: not found")
    started = time.perf_counter()
    goroot = args.goroot or Path(subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True).stdout.strip())
    version = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    rng = random.Random(args.seed)
    packages = sorted((p for p in go_list_std(goroot) if eligible(p)), key=lambda p: p["ImportPath"])
    packages = sorted(rng.sample(packages, min(args.packages, len(packages))), key=lambda p: p["ImportPath"])
    with tempfile.TemporaryDirectory(prefix="go-calls-") as tmp:
        root = Path(tmp) / "src"
        checker = build_checker(Path(tmp))
        copy_packages(packages, root)
        # As in GOROOT: `src/go.mod` is `module std`, `src/cmd/go.mod` `module cmd`.
        for manifest in ("go.mod", "cmd/go.mod"):
            if (goroot / "src" / manifest).is_file() and (root / manifest).parent.is_dir():
                shutil.copyfile(goroot / "src" / manifest, root / manifest)
        dirs = [p["ImportPath"] for p in packages]
        _, _, errors, unchecked = run_go(checker, root, dirs)
        clean = [d for d in dirs if d not in errors and d not in unchecked]
        for d in dirs:
            if d not in clean:
                shutil.rmtree(root / d)
        files = sum(len(list((root / d).glob("*.go"))) for d in clean)
        calls, interface = go_calls(checker, root, clean)
        sources = Sources(root)
        interface_sites = {characters(sources, s) for sites in interface.values() for s in sites}
        subjects = []
        for (path, line, name), sites in sorted(calls.items()):
            column = name_column(sources, path, line, name)
            if column is not None:
                subjects.append((path, line, column, name, {characters(sources, s) for s in sites}))
        declared = len(subjects)
        rng.shuffle(subjects)
        if args.samples:
            subjects = subjects[: args.samples]

        sextant = SextantMcp(args.sextant, root)
        sextant.wait_until_ready()
        indexed = time.perf_counter() - started
        agreed = found_total = expected_total = heuristic_total = heuristic_right = 0
        dispatched = {"exact": 0, "heuristic": 0}
        classes = {}
        extra, missed = [], []
        for path, line, column, name, expected in subjects:
            found, certainty = sextant_calls(sextant, path, line, column, args.exact)
            for key in found - expected:
                if key in interface_sites:
                    dispatched[certainty[key]] += 1
                    found.discard(key)
            agreed += len(found & expected)
            found_total += len(found)
            expected_total += len(expected)
            for key in found:
                if certainty[key] == "heuristic":
                    heuristic_total += 1
                    heuristic_right += key in expected
            for key in expected - found:
                kind = receiver_syntax(sources, *key, go_imports(sources, key[0]))
                classes[kind] = classes.get(kind, 0) + 1
            label = f"{path}:{line} {name}"
            extra += [(label, key, certainty[key]) for key in sorted(found - expected)]
            missed += [(label, key, None) for key in sorted(expected - found)]
        sextant.close()

        precision = agreed / found_total if found_total else 1.0
        recall = agreed / expected_total if expected_total else 1.0
        print(f"{version}; {len(clean)} packages ({files} files) of {goroot}/src copied, "
              f"{len(dirs) - len(clean)} left out (not clean for go/types outside the go tool)")
        print(f"{len(subjects)} functions and methods with incoming calls (of {declared} that go/types "
              f"gives calls); go/types' {expected_total} call sites, sextant's {found_total}, {agreed} the same")
        print(f"precision {precision:.3f}, recall {recall:.3f}")
        print(f"sextant's heuristic call sites: {heuristic_total}, {heuristic_right} of them go/types'; "
              f"interface dispatch left out: {dispatched['exact']} exact, {dispatched['heuristic']} heuristic")
        print_disagreements((("sextant only", extra), ("go/types only", missed)), args.show, sources)
        print_classes("go/types' call sites sextant misses", classes)
        print(f"{time.perf_counter() - started:.1f} s: sextant's index {indexed:.1f} s (with go/types), "
              f"its calls {sextant.seconds:.1f} s")
    if precision < args.min_precision or recall < args.min_recall:
        print(f"below --min-precision {args.min_precision} or --min-recall {args.min_recall}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
