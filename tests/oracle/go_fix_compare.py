#!/usr/bin/env python3
"""`sextant check --fix` on Go's standard library, judged by Go's type checker and gofmt.

Packages of the standard library and the toolchain are copied out of GOROOT's `src` (their
build files only, as `go_compare.py` does; a package go/types does not pass cleanly is left
out), then --mutations N files, picked at random (seeded), each get one unused import or one
unused local variable, in turn:

- import: an import of a standard package whose name the file never mentions, as a line of
  the file's import group (`import (`), else a lone `import "…"` before its first import or
  after its package clause;
- local: a first statement in a function body declaring a variable nothing uses, in turn
  `sxTmpN := make([]byte, 0)`, `var sxTmpN = new(int)`, `var sxTmpN int`, `sxTmpN := 1` and
  `sxTmpN, sxErrN := 1, error(nil)` (two, fixed over two rounds), a group `var ( sxTmpNa =
  new(int); sxTmpNb int )` (its `int` line removed, then `sxTmpNa` made `_`) and a group of
  one literal, `var ( sxTmpN = 1 )`;
- only-use: the only use of a variable deleted, as `go_compare.py` does (the line emptied):
  the variable is left unused as real code declares it (`v, err :=`, a range variable, a
  `var` with a type), and an import it alone used may be left unused too.

`sextant check --fix --json` runs on the tree (every code, as a user runs it), then the type
checker (`go_typecheck.go`) and `gofmt -l` again. Reported:

- fixed: the fixes applied, by code;
- still reported: a "declared but not used" or "imported but not used" error of go/types
  after the fixes on a variable or import a fix claimed;
- new errors: a go/types error after the fixes that the mutated copy did not have (by file
  and message: the fixes move lines; an import a removal left unused among them), and a
  package that no longer parses;
- left without a fix: the mutated copy's unused variables and imports sextant offers no
  fix for (a variable assigned elsewhere: removing its declaration would break the
  assignment); counted, not judged;
- not gofmt-clean: a file gofmt left alone before the mutation (and after it, for an
  emptied line) and would change after;
- imports restored: files given an unused import whose text after the fixes is the
  original's, byte for byte (an import fix removes exactly what the mutation added).

    python3 tests/oracle/go_fix_compare.py --sextant target/debug/sextant \
        [--packages 40 | --all] [--mutations 40] [--seed 1] [--show 10] [--strict]

`--strict` exits 1 unless still-reported, new errors and not-gofmt-clean are all zero, every
import mutation is restored, and at least one fix was applied; 2 when go or sextant cannot be
run.
"""

import argparse
import collections
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import go_compare  # noqa: E402  (the copy, the type checker and its runner are shared)

# Packages an added import names: common, with a name that is its path.
IMPORTABLE = ["bufio", "bytes", "context", "errors", "flag", "fmt", "io", "os", "path", "sort",
              "strconv", "strings", "sync", "time", "unicode"]
LOCALS = [
    "\t{v} := make([]byte, 0)",
    "\tvar {v} = new(int)",
    "\tvar {v} int",
    "\t{v} := 1",
    "\t{v}, {e} := 1, error(nil)",
    "\tvar (\n\t\t{v}a = new(int)\n\t\t{v}b int\n\t)",
    "\tvar (\n\t\t{v} = 1\n\t)",
]
NOT_USED = re.compile(r"(declared (but|and) not used|imported (but|and) not used)")


def add_import(text, rng):
    """`text` with an import of a package it never names, or `None`."""
    words = set(re.findall(r"\b\w+\b", text))
    choices = [p for p in IMPORTABLE if p not in words]
    if not choices:
        return None
    package = rng.choice(choices)
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line == "import (":
            lines.insert(i + 1, f'\t"{package}"')
            return "\n".join(lines)
    for i, line in enumerate(lines):
        if re.fullmatch(r'import (\w+ )?"[\w/.]+"', line):
            lines.insert(i, f'import "{package}"')
            return "\n".join(lines)
    for i, line in enumerate(lines):
        if re.fullmatch(r"package \w+", line) and i + 1 < len(lines) and lines[i + 1] == "":
            lines[i + 1:i + 1] = ["", f'import "{package}"']
            return "\n".join(lines)
    return None


def add_local(text, rng, index):
    """`text` with an unused variable first in a function body, or `None`."""
    lines = text.split("\n")
    bodies = [i for i, line in enumerate(lines)
              if line.startswith("func ") and line.endswith("{") and i + 1 < len(lines)
              and lines[i + 1].startswith("\t")]
    if not bodies:
        return None
    at = rng.choice(bodies)
    form = LOCALS[index % len(LOCALS)]
    lines.insert(at + 1, form.format(v=f"sxTmp{index}", e=f"sxErr{index}"))
    return "\n".join(lines)


def unused_name(message):
    """What an unused-import or unused-variable message names: the import's quoted path, or
    the variable (`x declared but not used`, sextant's `local variable 'x' …`)."""
    quoted = re.search(r'"[^"]+"', message)
    if quoted:
        return quoted[0]
    named = re.search(r"'([^']+)'", message)
    return named[1] if named else message.split()[0]


def gofmt_dirty(root, files):
    done = subprocess.run(["gofmt", "-l", *files], cwd=root, capture_output=True, text=True)
    return set(done.stdout.split())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", default=str(go_compare.REPO / "target/debug/sextant"))
    parser.add_argument("--goroot", type=Path, help="default: `go env GOROOT`")
    parser.add_argument("--packages", type=int, default=40)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--mutations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    if shutil.which("go") is None or shutil.which("gofmt") is None:
        go_compare.fail("no go toolchain")
    goroot = args.goroot or Path(subprocess.run(["go", "env", "GOROOT"], capture_output=True,
                                                text=True).stdout.strip())
    version = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    rng = random.Random(args.seed)
    packages = sorted((p for p in go_compare.go_list_std(goroot) if go_compare.eligible(p)),
                      key=lambda p: p["ImportPath"])
    if not args.all:
        packages = sorted(rng.sample(packages, min(args.packages, len(packages))),
                          key=lambda p: p["ImportPath"])
    with tempfile.TemporaryDirectory(prefix="go-fix-compare-") as tmp:
        root = Path(tmp) / "src"
        checker = go_compare.build_checker(Path(tmp))
        go_compare.copy_packages(packages, root)
        dirs = [p["ImportPath"] for p in packages]
        _, _, errors, unchecked = go_compare.run_go(checker, root, dirs)
        clean = [d for d in dirs if d not in errors and d not in unchecked]
        for d in dirs:
            if d not in clean:
                shutil.rmtree(root / d)
        files = sorted(str(p.relative_to(root)) for d in clean for p in (root / d).glob("*.go"))
        dirty_before = gofmt_dirty(root, files)
        originals = {f: (root / f).read_text(encoding="utf-8") for f in files}
        print(f"{version}; {len(clean)} packages ({len(files)} files, {len(dirty_before)} not "
              f"gofmt-clean) of {goroot}/src copied, {len(dirs) - len(clean)} left out")

        candidates = list(files)
        rng.shuffle(candidates)
        mutated = {}
        for path in candidates:
            if len(mutated) >= args.mutations:
                break
            kind = ("import", "local", "only-use")[len(mutated) % 3]
            text = originals[path]
            if kind == "only-use":
                if not go_compare.mutate(root / path, kind, rng):
                    continue
            else:
                changed = add_import(text, rng) if kind == "import" else add_local(text, rng, len(mutated))
                if changed is None:
                    continue
                (root / path).write_text(changed, encoding="utf-8")
            mutated[path] = kind
        mutated_dirs = sorted({str(Path(p).parent) for p in mutated})
        go_unused, _, mutated_errors, _ = go_compare.run_go(checker, root, mutated_dirs)
        # An emptied line may leave two blank lines together: not the fixes' doing.
        dirty_before |= {p for p in gofmt_dirty(root, files) if mutated.get(p) == "only-use"}
        print(f"{len(mutated)} files mutated in {len(mutated_dirs)} packages "
              f"({collections.Counter(mutated.values())}); go/types reports {len(go_unused)} "
              f"unused variables and the imports besides")

        command = [str(Path(args.sextant).resolve()), "check", "--fix", "--json"]
        run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=1800)
        if run.returncode not in (0, 1):
            go_compare.fail(f"sextant check --fix failed ({run.returncode}): {run.stderr[:2000]}")
        answer = json.loads(run.stdout)
        _, _, errors, unchecked = go_compare.run_go(checker, root, clean)
        dirty_after = gofmt_dirty(root, files)
        imports = [p for p, kind in mutated.items() if kind == "import"]
        unrestored = [p for p in imports if (root / p).read_text(encoding="utf-8") != originals[p]]

    fixed = collections.Counter(f["code"] for f in answer["fixed"])
    # By file and message, without the line: the fixes move lines.
    def keyed(lines):
        return collections.Counter(re.sub(r":\d+: ", ": ", line) for line in lines)
    after = [line for lines in errors.values() for line in lines]
    mutated_lines = [line for lines in mutated_errors.values() for line in lines]
    before = keyed(line for line in mutated_lines if not NOT_USED.search(line))
    new = sorted((keyed(line for line in after if not NOT_USED.search(line)) - before).elements())
    # An unused import or variable the fixes left behind (a removal taking a package's last
    # use) is new; one the mutation made is still reported when a fix claimed it, else left
    # without a fix.
    unused_before = keyed(line for line in mutated_lines if NOT_USED.search(line))
    unused_after = [line for line in after if NOT_USED.search(line)]
    new += sorted((keyed(unused_after) - unused_before).elements())
    claimed = {(f["path"], unused_name(f["message"])) for f in answer["fixed"]}
    still = [line for line in unused_after
             if (line.split(":")[0], unused_name(line.split(": ", 1)[-1])) in claimed]
    unfixed = [line for line in unused_after if line not in still]
    new += [f"{d}: syntax error" for d in unchecked]
    not_formatted = sorted(dirty_after - dirty_before)
    print(f"fixed: {sum(fixed.values())} ({', '.join(f'{c} {n}' for c, n in sorted(fixed.items()))}); "
          f"new sextant diagnostics {len(answer.get('new_diagnostics') or [])}, "
          f"withheld {len(answer.get('withheld') or [])}")
    for title, items in (("still reported", still), ("new errors", new),
                         ("not gofmt-clean", not_formatted),
                         ("left without a fix (not judged)", unfixed)):
        print(f"{title}: {len(items)}")
        for item in items[:args.show]:
            print(f"  {item}")
    ok = not still and not new and not not_formatted and sum(fixed.values()) > 0
    print(f"imports restored: {len(imports) - len(unrestored)} of {len(imports)}")
    for path in unrestored[:args.show]:
        print(f"  {path}")
    ok &= not unrestored
    sys.exit(1 if args.strict and not ok else 0)


if __name__ == "__main__":
    main()
