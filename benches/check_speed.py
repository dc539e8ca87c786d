#!/usr/bin/env python3
"""`sextant check` from cold against pyflakes and `ruff check --select F` on the same files.

Copies the non-test modules of a tree (default: this interpreter's standard library; the
file filter is tests/oracle/pyflakes_compare.py's) into a temporary directory once, then
times, in the same run and on that copy, each tool as a fresh process (best of --runs):

  sextant --root COPY check                 every file parsed, named and checked (cold)
  sextant --root COPY stats                 the cold index alone (one tree-sitter parse and
                                            the symbols query per file): the floor a check
                                            built on tree-sitter cannot go below
  python -m pyflakes COPY                   pyflakes, one process, one core
  ruff check --select F --no-cache COPY     ruff's pyflakes rules, all cores, no cache (its
                                            default excludes, such as `venv/`, turned off)

and prints the wall times and the ratios. With --previous BIN, the same two sextant runs of
an earlier build too, in the same run, and the ratios of this build to it (a change that
must not slow anything down is held to ~1.0x). Each tool reports findings (exit status 1);
only a crash (any other status) stops the script.

    python benches/check_speed.py --sextant target/release/sextant [--previous OLD_BIN] [--root DIR] [--runs 3]

pyflakes and ruff are run from the interpreter running this script (`ruff` beside it, as
in scripts/test's virtual environment); --ruff names another binary.
"""

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "oracle"))
from pyflakes_compare import python_files  # noqa: E402


def best_time(cmd: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if out.returncode not in (0, 1):
            sys.exit(f"{cmd[0]} failed ({out.returncode}): {out.stderr[-2000:]}")
        best = min(best, elapsed)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--ruff", default=str(Path(sys.executable).parent / "ruff"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--previous", help="an earlier sextant build to compare with, in the same run")
    args = parser.parse_args()
    sextant = str(Path(args.sextant).resolve())
    if not Path(args.ruff).exists():
        sys.exit(f"no ruff at {args.ruff} (scripts/test installs it into its virtual environment)")

    files = python_files(args.root)
    with tempfile.TemporaryDirectory(prefix="check-speed-") as tmp:
        copy = Path(tmp)
        size = 0
        for rel in files:
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(args.root / rel, copy / rel)
            size += (copy / rel).stat().st_size
        print(f"{len(files)} files, {size / 1e6:.1f} MB, {os.cpu_count()} cores; best of {args.runs}")
        times = {
            "sextant check": best_time([sextant, "--root", str(copy), "check"], args.runs),
            "sextant cold index": best_time([sextant, "--root", str(copy), "stats"], args.runs),
            "pyflakes": best_time([sys.executable, "-m", "pyflakes", str(copy)], args.runs),
            "ruff check --select F": best_time(
                [args.ruff, "check", "--select", "F", "--no-cache", "--quiet", "--exclude", "__none__", str(copy)], args.runs
            ),
        }
        if args.previous:
            previous = str(Path(args.previous).resolve())
            times["previous sextant check"] = best_time([previous, "--root", str(copy), "check"], args.runs)
            times["previous sextant cold index"] = best_time([previous, "--root", str(copy), "stats"], args.runs)
    for tool, seconds in times.items():
        print(f"{tool}: {seconds:.3f} s")
    ours = times["sextant check"]
    print(f"sextant check / its cold index: {ours / times['sextant cold index']:.1f}x")
    print(f"pyflakes / sextant: {times['pyflakes'] / ours:.1f}x")
    print(f"sextant / ruff: {ours / times['ruff check --select F']:.1f}x")
    if args.previous:
        print(f"sextant check / previous build's: {ours / times['previous sextant check']:.2f}x")
        cold = times["sextant cold index"] / times["previous sextant cold index"]
        print(f"sextant cold index / previous build's: {cold:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
