#!/usr/bin/env python3
"""`sextant format` over a whole corpus: is every result safe and idempotent, and how long
does it take beside a cold index?

Copies the source files of a tree (default: this interpreter's standard library) into a
temporary directory, then on that copy:

  sextant --root COPY stats                 the cold index alone (best of --runs)
  sextant --root COPY --json format         a dry run over every file, cold (best of --runs):
                                            per file changed, unchanged or refused (by code)
  sextant --root COPY format --write        writes every formatted file
  sextant --root COPY format --check        must then find nothing to change (idempotent)

and checks every written file against its original independently of sextant: the same
characters once whitespace is removed, and for Python the same `ast.dump` (so the block
structure and every string are unchanged). Prints the counts, the refusals by code and the
times; exits 1 when a check fails.

    python benches/format_corpus.py --sextant target/release/sextant [--root DIR] [--runs 3]
"""

import argparse
import ast
import collections
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

EXTENSIONS = {".py", ".rs", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".go"}


def copy_sources(root: Path, dest: Path) -> int:
    count = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in EXTENSIONS or not path.is_file() or "site-packages" in path.parts:
            continue
        target = dest / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        count += 1
    return count


def timed(cmd: list[str], runs: int) -> tuple[float, subprocess.CompletedProcess]:
    best, last = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        last = subprocess.run(cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if last.returncode not in (0, 1, 2) or (last.returncode == 2 and not last.stdout):
            sys.exit(f"{' '.join(cmd)} failed ({last.returncode}): {last.stderr[-2000:]}")
    return best, last


def without_whitespace(text: str) -> str:
    return "".join(text.split())


def same_ast(old: str, new: str) -> bool:
    try:
        return ast.dump(ast.parse(old)) == ast.dump(ast.parse(new))
    except (SyntaxError, ValueError):
        # Not valid for this interpreter (sextant's grammar accepts more): judged by the
        # whitespace check alone.
        return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sextant = str(Path(args.sextant).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "corpus"
        copied = copy_sources(args.root, copy)
        # Every file, whatever the ignore rules of the original tree.
        (copy / "sextant.toml").write_text("max_file_size = 67108864\n")
        originals = {p: p.read_bytes() for p in copy.rglob("*") if p.suffix in EXTENSIONS}

        index_time, _ = timed([sextant, "--root", str(copy), "stats"], args.runs)
        format_time, dry = timed([sextant, "--root", str(copy), "--json", "format"], args.runs)
        report = json.loads(dry.stdout)
        refusals = collections.Counter(f["error"]["code"] for f in report["files"] if "error" in f)
        unsafe = [f["path"] for f in report["files"] if f.get("error", {}).get("code") == "FORMAT_UNSAFE"]

        start = time.perf_counter()
        written = subprocess.run([sextant, "--root", str(copy), "format", "--write"], capture_output=True, text=True)
        write_time = time.perf_counter() - start
        if written.returncode not in (0, 2):
            sys.exit(f"format --write failed ({written.returncode}): {written.stderr[-2000:]}")
        check = subprocess.run([sextant, "--root", str(copy), "format", "--check"], capture_output=True, text=True)
        not_idempotent = [line for line in check.stdout.splitlines() if line.endswith(": would be formatted")]

        changed_text, changed_ast, undecodable = [], [], 0
        for path, before in originals.items():
            after = path.read_bytes()
            if after == before:
                continue
            try:
                old, new = before.decode(), after.decode()
            except UnicodeDecodeError:
                undecodable += 1
                continue
            if without_whitespace(old) != without_whitespace(new):
                changed_text.append(str(path.relative_to(copy)))
            elif path.suffix == ".py" and not same_ast(old, new):
                changed_ast.append(str(path.relative_to(copy)))

    print(f"corpus: {args.root} ({copied} source files copied; {report['checked']} indexed)")
    print(f"would change: {report['changed']} files; refused: {report['failed']} {dict(refusals)}")
    print(f"cold index (stats): {index_time:.2f} s; format dry run (cold): {format_time:.2f} s "
          f"(best of {args.runs}); format --write: {write_time:.2f} s")
    print(f"FORMAT_UNSAFE: {len(unsafe)} {unsafe[:10]}")
    print(f"not idempotent after --write: {len(not_idempotent)} {not_idempotent[:10]}")
    print(f"more than whitespace changed: {len(changed_text)} {changed_text[:10]}")
    print(f"Python AST changed: {len(changed_ast)} {changed_ast[:10]}")
    if undecodable:
        print(f"written files not valid UTF-8 (must be none): {undecodable}")
    failed = not_idempotent or changed_text or changed_ast or undecodable
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
