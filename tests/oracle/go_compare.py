#!/usr/bin/env python3
"""Unused local variables (SX007) and calls with an impossible number of arguments (SX010) of
sextant against Go's type checker ("declared but not used"; "too many arguments in call to f",
"not enough arguments in call to f").

The standard library's and the toolchain's packages (`go list std cmd`; not cgo packages) are
copied out of GOROOT's `src` into a temporary directory, each package's build files only
(`go list`'s `GoFiles` for this platform: no tests, no files other platforms build), and
checked by both tools:

- Go: `go_typecheck.go` (built here with the installed toolchain) runs go/types, the type
  checker `go vet` runs and the twin of the compiler's, on each package directory with every
  error reported (the compiler stops at ten without `-gcflags=-e`); imports come from the
  toolchain's export data, so a copy sees the real standard library, `internal/…` and
  vendored packages included, and never another copy. Its "NAME declared but not used"
  errors (Go 1.19's wording; "declared and not used" from Go 1.20) are keyed by (path, line,
  name);
- sextant: `sextant check --select SX001,SX002,SX007 --format json` over the same tree,
  keyed alike.

A package the type checker does not pass cleanly before any mutation is left out, and so is
a package whose mutated copy has a syntax error (the type checker never runs on it, so its
output is incomplete); a file with a syntax error for sextant is left out of both sides.

The standard library compiles, so the unchanged copy must give no report at all (each one is
a false positive). Then --mutations N files, picked at random (seeded), lose one statement
each (the line is emptied, so lines do not move), in turn:

- only-use: a single-line statement (not a declaration, not a `return`) that mentions a
  variable the file declares with `:=` or `var` and names nowhere else: the variable is now
  unused;
- any-statement: any such single-line statement inside a function body, which may or may
  not leave a variable unused (both tools decide).

With --code SX010 the mutations are of calls instead: a call by a plain name of a function
the package declares once with `func` (no receiver), written on one line, in turn

- extra-argument: gains an argument (`f(a)` → `f(a, 0)`, `f()` → `f(0)`);
- drop-argument: loses its last one (`f(a, b)` → `f(a)`);

which Go rejects unless the function is variadic (both tools decide). Go's arity errors are
keyed by (path, line); a sextant SX010 finding matches one on a line its span covers (Go puts
"not enough arguments" at the closing parenthesis). sextant runs with --select
SX001,SX002,SX010.

Both tools then check the mutated copy; precision and recall are over the mutated packages
(the others gave nothing before and did not change). Every disagreement is printed with its
source line (--show).

    python3 tests/oracle/go_compare.py --sextant target/debug/sextant [--code SX007 | SX010]
        [--packages 40 | --all] [--mutations 40] [--seed 1] [--show 40]
        [--min-precision 1.0] [--min-recall 0.95]

Exit status 1 when precision (or, with mutations, recall) is below the minimum given, 2 when
go or sextant cannot be run.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNUSED = re.compile(r"^(?P<path>[^:\s]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<name>\w+) declared (?:but|and) not used$")
ARITY = re.compile(r"^(?P<path>[^:\s]+\.go):(?P<line>\d+):(?P<col>\d+): (?:too many|not enough) arguments in call to (?P<name>\S+)")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
# A statement line that opens, closes or continues something is never deleted.
NOT_DELETED = re.compile(
    r"^\s*(}|case\b|default\b|return\b|if\b|for\b|switch\b|select\b|else\b|func\b|var\b|const\b|"
    r"type\b|goto\b|break\b|continue\b|fallthrough\b|//|/\*|\*|package\b|import\b|\w+:\s*$)"
)


def fail(message):
    print(f"go_compare: {message}", file=sys.stderr)
    sys.exit(2)


def go_env():
    env = dict(os.environ)
    env.update({"GO111MODULE": "on", "GOFLAGS": "-mod=mod", "GOWORK": "off", "GOPROXY": "off",
                "CGO_ENABLED": "0"})
    return env


def go_list_std(goroot):
    """Every standard library package as `go list -json` describes it."""
    try:
        done = subprocess.run(["go", "list", "-e", "-json", "std", "cmd"], cwd=goroot / "src",
                              capture_output=True, text=True, env=go_env(), timeout=300)
    except OSError as e:
        fail(f"cannot run go: {e}")
    decoder, text, at, packages = json.JSONDecoder(), done.stdout, 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return packages
        package, at = decoder.raw_decode(text, at)
        packages.append(package)


def eligible(package):
    """Go files and no cgo (the type checker would need cgo's output)."""
    if package.get("Error") or not package.get("GoFiles"):
        return False
    if any(package.get(k) for k in ("CgoFiles", "SwigFiles", "SwigCXXFiles")):
        return False
    return "C" not in package.get("Imports", [])


def copy_packages(packages, root):
    for package in packages:
        target = root / package["ImportPath"]
        target.mkdir(parents=True, exist_ok=True)
        for name in package["GoFiles"]:
            shutil.copyfile(Path(package["Dir"]) / name, target / name)


def build_checker(into):
    binary = into / "go_typecheck"
    done = subprocess.run(["go", "build", "-o", str(binary), str(REPO / "tests/oracle/go_typecheck.go")],
                          cwd=into, capture_output=True, text=True, env=go_env(), timeout=600)
    if done.returncode != 0:
        fail(f"cannot build go_typecheck.go: {done.stderr[:500]}")
    return binary


def run_go(checker, root, paths):
    """The type checker over package directories: the unused variables it reports, its
    arity errors, every error by package directory, and the directories it could not check
    (syntax errors)."""
    unused, arity, errors, unchecked = set(), set(), {}, set()
    for start in range(0, len(paths), 100):
        try:
            done = subprocess.run([str(checker), str(root), *paths[start:start + 100]],
                                  capture_output=True, text=True, env=go_env(), timeout=1800)
        except OSError as e:
            fail(f"cannot run the type checker: {e}")
        if done.returncode != 0:
            fail(f"the type checker failed: {done.stderr[:500]}")
        for line in done.stdout.splitlines():
            if line.startswith("SYNTAX "):
                unchecked.add(line.removeprefix("SYNTAX "))
                continue
            m = ERROR.match(line)
            if not m:
                continue
            path = m["path"]
            errors.setdefault(str(Path(path).parent), []).append(f"{path}:{m['line']}: {m['msg']}")
            u = UNUSED.match(line)
            if u:
                unused.add((path, int(u["line"]), u["name"]))
            a = ARITY.match(line)
            if a:
                arity.add((path, int(a["line"]), a["name"]))
    return unused, arity, errors, unchecked


def run_sextant(sextant, root, code="SX007"):
    """sextant's findings of `code` as (path, line, name, last line), and the files with
    syntax errors."""
    try:
        done = subprocess.run([str(Path(sextant).resolve()), "check", "--select", f"SX001,SX002,{code}",
                               "--format", "json"], cwd=root, capture_output=True, text=True, timeout=1800)
    except OSError as e:
        fail(f"cannot run sextant: {e}")
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        fail(f"sextant check gave no JSON: {done.stderr[:500]}")
    unused, broken = set(), set()
    for d in answer["diagnostics"]:
        if d["code"] in ("SX001", "SX002"):
            broken.add(d["path"])
        elif d["code"] == code:
            name = re.search(r"'([^']*)'", d["message"])
            unused.add((d["path"], d["span"]["start"]["line"], name[1] if name else "?",
                        d["span"]["end"]["line"]))
    return unused, broken


def balanced(line):
    code = re.sub(r'"(\\.|[^"\\])*"|`[^`]*`|\'(\\.|[^\'\\])*\'', '""', line.split("//")[0])
    return all(code.count(a) == code.count(b) for a, b in ("()", "[]", "{}"))


def statement_lines(lines):
    """Indices of single-line statements inside function bodies that may be deleted."""
    found, in_function = [], False
    for i, line in enumerate(lines):
        if line.startswith("func "):
            in_function = not line.rstrip().endswith("}")
            continue
        if line.startswith("}"):
            in_function = False
            continue
        if not in_function or not line.startswith("\t") or not line.strip():
            continue
        stripped = line.strip()
        if NOT_DELETED.match(line) or ":=" in stripped or stripped.endswith(("{", "(", ",", "+", "&&", "||", "=", "[", ".")):
            continue
        if not balanced(stripped):
            continue
        if i + 1 < len(lines) and lines[i + 1].strip().startswith("."):
            continue
        found.append(i)
    return found


def mutate(path, kind, rng):
    lines = path.read_text(encoding="utf-8").split("\n")
    candidates = statement_lines(lines)
    if kind == "only-use":
        text = "\n".join(lines)
        counts = {}
        for word in IDENT.findall(text):
            counts[word] = counts.get(word, 0) + 1
        declared = set()
        for line in lines:
            m = re.match(r"^\t+(?:var\s+)?(\w+)(?:\s*,\s*\w+)*\s*(?::=|\s+\S)", line)
            if m and (":=" in line or line.lstrip().startswith("var ")):
                declared.add(m[1])
        candidates = [
            i for i in candidates
            if any(counts.get(w) == 2 and w in declared and w != "_" for w in IDENT.findall(lines[i]))
        ]
    if not candidates:
        return None
    i = rng.choice(candidates)
    removed = lines[i].strip()
    lines[i] = ""
    path.write_text("\n".join(lines), encoding="utf-8")
    return f"line {i + 1}: {removed[:80]}"


def package_functions(directory):
    """Names of the functions a package directory declares with `func` (no receiver) exactly
    once, and no other way that a line-start declaration shows."""
    counts = {}
    for path in directory.glob("*.go"):
        for line in path.read_text(encoding="utf-8").split("\n"):
            m = re.match(r"^func\s+(\w+)\s*[\[(]", line)
            if m:
                counts[m[1]] = counts.get(m[1], 0) + 1
            m = re.match(r"^(?:var|const|type)\s+(\w+)", line)
            if m:
                counts[m[1]] = counts.get(m[1], 0) + 2
    return {name for name, n in counts.items() if n == 1 and name not in ("init", "main", "_")}


def call_arguments(line, open_at):
    """The top-level argument spans of the call whose `(` is at `open_at`, and the index of
    its `)`; None when the call does not close on this line."""
    depth, at, start, spans, quote = 0, open_at, open_at + 1, [], None
    while at < len(line):
        c = line[at]
        if quote:
            if c == "\\" and quote != "`":
                at += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif line.startswith("//", at) or line.startswith("/*", at):
            return None
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                if line[start:at].strip():
                    spans.append((start, at))
                return spans, at
        elif c == "," and depth == 1:
            spans.append((start, at))
            start = at + 1
        at += 1
    return None


def mutate_call(path, kind, rng):
    """One call of a package function in `path` gains or loses an argument."""
    functions = package_functions(path.parent)
    lines = path.read_text(encoding="utf-8").split("\n")
    candidates = []
    for i, line in enumerate(lines):
        if not line.startswith("\t") or line.lstrip().startswith("//"):
            continue
        for m in re.finditer(r"(?<![\w.])(\w+)\(", line):
            if m[1] not in functions:
                continue
            found = call_arguments(line, m.end() - 1)
            if not found:
                continue
            spans, close = found
            if any(line[a:b].strip().endswith("...") for a, b in spans):
                continue
            if kind == "drop-argument" and not spans:
                continue
            candidates.append((i, m, spans, close))
    if not candidates:
        return None
    i, m, spans, close = rng.choice(candidates)
    line = lines[i]
    if kind == "extra-argument":
        new = line[:close] + (", 0" if spans else "0") + line[close:]
    else:
        cut = spans[-2][1] if len(spans) > 1 else m.end()
        new = line[:cut] + line[close:]
    lines[i] = new
    path.write_text("\n".join(lines), encoding="utf-8")
    return f"line {i + 1}: {new.strip()[:80]}"


def source_line(root, path, line):
    try:
        return (root / path).read_text(encoding="utf-8").split("\n")[line - 1].strip()[:100]
    except (OSError, IndexError):
        return "?"


def compare(label, root, sextant_found, go_found, show, by_span=False):
    """Precision and recall of sextant's (path, line, name, last line) against go's (path,
    line, name): the same key, or with `by_span` the same path and a line the span covers."""
    if by_span:
        matches = lambda s, g: s[0] == g[0] and s[1] <= g[1] <= s[3]
    else:
        matches = lambda s, g: s[:3] == g
    matched_sextant = {s for s in sextant_found if any(matches(s, g) for g in go_found)}
    matched_go = {g for g in go_found if any(matches(s, g) for s in sextant_found)}
    only_sextant = sorted(s[:3] for s in sextant_found - matched_sextant)
    only_go = sorted(go_found - matched_go)
    precision = len(matched_sextant) / len(sextant_found) if sextant_found else 1.0
    recall = len(matched_go) / len(go_found) if go_found else 1.0
    both = matched_go
    print(f"{label}: sextant {len(sextant_found)}, go {len(go_found)}, both {len(both)}; "
          f"precision {precision:.3f}, recall {recall:.3f}")
    for title, items in (("sextant only", only_sextant), ("go only", only_go)):
        for path, line, name in items[:show]:
            print(f"  {title}: {path}:{line} '{name}'  | {source_line(root, path, line)}")
        if len(items) > show:
            print(f"  {title}: … {len(items) - show} more")
    return precision, recall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", default=str(REPO / "target/debug/sextant"))
    parser.add_argument("--code", choices=["SX007", "SX010"], default="SX007",
                        help="unused variables (statements deleted) or impossible calls (calls mutated)")
    parser.add_argument("--goroot", type=Path, help="default: `go env GOROOT`")
    parser.add_argument("--packages", type=int, default=40, help="how many eligible packages, picked at random")
    parser.add_argument("--all", action="store_true", help="every eligible package")
    parser.add_argument("--mutations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=40)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()
    if shutil.which("go") is None:
        fail("no go toolchain")
    goroot = args.goroot or Path(subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True).stdout.strip())
    version = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    rng = random.Random(args.seed)
    packages = sorted((p for p in go_list_std(goroot) if eligible(p)), key=lambda p: p["ImportPath"])
    if not args.all:
        packages = sorted(rng.sample(packages, min(args.packages, len(packages))), key=lambda p: p["ImportPath"])
    failed = False
    with tempfile.TemporaryDirectory(prefix="go-compare-") as tmp:
        root = Path(tmp) / "src"
        checker = build_checker(Path(tmp))
        copy_packages(packages, root)
        dirs = [p["ImportPath"] for p in packages]
        _, _, errors, unchecked = run_go(checker, root, dirs)
        clean = [d for d in dirs if d not in errors and d not in unchecked]
        for d in dirs:
            if d not in clean:
                shutil.rmtree(root / d)
        files = sum(len(list((root / d).glob("*.go"))) for d in clean)
        print(f"{version}; {len(clean)} packages ({files} files) of {goroot}/src copied, "
              f"{len(dirs) - len(clean)} left out (not clean for go/types outside the go tool)")
        what = "unused local variables" if args.code == "SX007" else "impossible calls"
        s_unused, broken = run_sextant(args.sextant, root, args.code)
        if broken:
            print(f"  {len(broken)} files have syntax errors for sextant: {sorted(broken)[:5]}")
        keep = lambda found: {f for f in found if f[0] not in broken}
        precision, _ = compare(f"unchanged: {what}", root, keep(s_unused), set(), args.show)
        failed |= precision < args.min_precision
        if args.mutations > 0:
            candidates = sorted(str(p.relative_to(root)) for d in clean for p in (root / d).glob("*.go"))
            rng.shuffle(candidates)
            kinds = ["only-use", "any-statement"] if args.code == "SX007" else ["extra-argument", "drop-argument"]
            mutated, done = set(), 0
            for path in candidates:
                if done >= args.mutations:
                    break
                kind = kinds[done % len(kinds)]
                description = (mutate if args.code == "SX007" else mutate_call)(root / path, kind, rng)
                if description:
                    mutated.add(path)
                    done += 1
                    if args.show:
                        print(f"  mutation {kind} in {path}: {description}")
            mutated_dirs = sorted({str(Path(p).parent) for p in mutated})
            go_unused, go_arity, errors, incomplete = run_go(checker, root, mutated_dirs)
            go_found = go_unused if args.code == "SX007" else go_arity
            s_unused, broken = run_sextant(args.sextant, root, args.code)
            keep = lambda found: {f for f in found if str(Path(f[0]).parent) not in incomplete and f[0] not in broken}
            print(f"{done} files mutated in {len(mutated_dirs)} packages"
                  + (f"; {len(incomplete)} left out with syntax errors" if incomplete else "") + ":")
            precision, recall = compare(f"mutated: {what}", root, keep(s_unused), keep(go_found), args.show,
                                        by_span=args.code == "SX010")
            failed |= precision < args.min_precision or recall < args.min_recall
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
