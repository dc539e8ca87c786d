"""`sextant check --fix` on real Python code, judged by pyflakes and the compiler.

Copies Python modules (default: this interpreter's standard library, site-packages left
out) into a temporary directory, runs pyflakes and compiles every file, runs
`sextant check --fix --json` there (the fixes are written), then pyflakes and the compiler
again, and reports:

- fixed: the fixes sextant applied, by code;
- still reported: a fixed diagnostic pyflakes still reports afterwards (by file and
  message: pyflakes and sextant word unused imports and variables alike);
- new: a pyflakes message after the fixes that was not there before (by file and message,
  counted: the fixes move lines);
- lost: a pyflakes message gone after the fixes that no fix resolved (a fix that removed
  more than its diagnostic), but for a redefinition of a name whose bindings a fix removed
  and anything in a file that did not compile before;
- broken: a file that compiled before and does not after.

    python tests/oracle/fix_compare.py --sextant target/release/sextant \
        [--root DIR] [--sample N] [--unsafe-fixes] [--show 20] [--strict]

`--strict` exits 1 unless still-reported, new, lost and broken are all zero and at least
one fix was applied.
"""

import argparse
import collections
import json
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unicodedata
from pathlib import Path

from pyflakes import api, reporter


def python_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if "site-packages" in rel.parts or "__pycache__" in rel.parts or not path.is_file():
            continue
        files.append(rel)
    return files


def normalized(message: str) -> str:
    """A message as both tools word it: no line of an earlier definition (the fixes move
    lines), and `a.b as b` as pyflakes writes it, `a.b`."""
    message = unicodedata.normalize("NFKC", message)
    message = re.sub(r" (from|on) line \d+", "", message)
    return re.sub(r"'([\w.]+)\.(\w+) as \2'", r"'\1.\2'", message)


class Collect(reporter.Reporter):
    def __init__(self):
        self.found = []

    def flake(self, message):
        self.found.append(message)

    def unexpectedError(self, filename, msg):
        pass

    def syntaxError(self, filename, msg, lineno, offset, text):
        pass


def pyflakes_messages(root: Path, files: list[Path]) -> collections.Counter:
    """(file, message without position) -> count."""
    counts = collections.Counter()
    for rel in files:
        path = root / rel
        collect = Collect()
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        api.check(text, str(path), collect)
        for message in collect.found:
            text = message.message % message.message_args
            # "redefinition of unused 'x' from line 12": the fixes move lines.
            counts[(rel.as_posix(), normalized(text))] += 1
    return counts


def compiles(root: Path, files: list[Path]) -> set[str]:
    good = set()
    for rel in files:
        try:
            source = (root / rel).read_bytes()
            compile(source, str(rel), "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OSError):
            continue
        good.add(rel.as_posix())
    return good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--sample", type=int, default=0, help="modules picked at random (0: all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()

    source = Path(args.root).resolve()
    files = python_files(source)
    if args.sample:
        random.Random(args.seed).shuffle(files)
        files = sorted(files[: args.sample])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "tree"
        for rel in files:
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, work / rel)
        before = pyflakes_messages(work, files)
        compiled_before = compiles(work, files)
        command = [args.sextant, "--root", str(work), "check", "--fix", "--json"]
        if args.unsafe_fixes:
            command.append("--unsafe-fixes")
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"sextant check --fix failed ({run.returncode}): {run.stderr[:2000]}")
            return 1
        answer = json.loads(run.stdout)
        after = pyflakes_messages(work, files)
        compiled_after = compiles(work, files)

    fixed = collections.Counter()
    fixed_keys = collections.Counter()
    for fix in answer["fixed"]:
        fixed[fix["code"]] += 1
        fixed_keys[(fix["path"], normalized(fix["message"]))] += 1
    still = [key for key in fixed_keys if after[key] > 0 and after[key] >= before[key]]
    new = after - before
    gone = before - after
    # Gone with a fix that explains it: a redefinition of a name whose imports or
    # assignments a fix removed, and anything in a file that did not compile before.
    # `a.b` binds `a` (`import a.b`) or `b` (`from a import b`); `a.b as c` binds `c`.
    removed = set()
    for path, message in fixed_keys:
        if "'" in message:
            described = message.split("'")[1]
            dotted = described.split(" as ")[0]
            removed |= {(path, described.split(" as ")[-1]), (path, dotted.split(".")[0]),
                        (path, dotted.split(".")[-1])}
    lost = collections.Counter(
        {
            (path, m): n
            for (path, m), n in (gone - fixed_keys).items()
            if path in compiled_before
            and not (m.startswith("redefinition of unused") and (path, m.split("'")[1]) in removed)
        }
    )
    broken = sorted(compiled_before - compiled_after)

    print(f"files: {len(files)}, compiled before: {len(compiled_before)}")
    print(f"pyflakes before: {sum(before.values())}, after: {sum(after.values())}")
    total = sum(fixed.values())
    by_code = ", ".join(f"{code} {n}" for code, n in sorted(fixed.items()))
    print(f"fixed: {total} ({by_code}) in {len({f['path'] for f in answer['fixed']})} files")
    print(f"still reported: {len(still)}")
    for key in still[: args.show]:
        print(f"  {key[0]}: {key[1]}")
    print(f"new pyflakes messages: {sum(new.values())}")
    for key in list(new)[: args.show]:
        print(f"  {key[0]}: {key[1]}")
    print(f"lost (gone without a fix): {sum(lost.values())}")
    for key in list(lost)[: args.show]:
        print(f"  {key[0]}: {key[1]}")
    print(f"broken (compiled before, not after): {len(broken)}")
    for path in broken[: args.show]:
        print(f"  {path}")
    left = answer.get("unsafe_fixes_left", 0)
    print(f"unsafe fixes left: {left}; sextant's new diagnostics: {len(answer['new_diagnostics'] or [])}")
    for d in (answer["new_diagnostics"] or [])[: args.show]:
        print(f"  {d['path']}:{d['span']['start']['line']}: {d['code']} {d['message']}")
    if args.strict and (still or new or lost or broken or total == 0):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
