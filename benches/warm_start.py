#!/usr/bin/env python3
"""Cold and warm starts of the command line on one tree, and that their answers are equal.

Each question is a fresh `sextant` process on --root (default: this interpreter's standard
library), timed three ways in the same run (best of --runs):

  cold    --no-cache: every file read, parsed and analysed
  warm    --cache-dir DIR after one run filled DIR: what the persistent cache serves
  ctags   `ctags -R` over the same tree (when installed): the cold index to beat
  ruff    `ruff check --no-cache` (when beside this interpreter or on PATH), for `check`

Every warm answer (exit status, standard output) must be byte for byte the cold one; a
difference is printed and the script exits 1. With --previous BIN, that build's cold runs
too, and the ratio of this build's cold runs to them (the cache must not slow a cold start).

    python benches/warm_start.py --sextant target/release/sextant [--root DIR] [--runs 3]
        [--question 'def join'] … [--previous OLD_BIN]
"""

import argparse
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

DEFAULT_QUESTIONS = ["def join", "refs posixpath.join", "symbols join", "check", "stats"]


def run(cmd: list[str]) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        sys.exit(f"{shlex.join(cmd)} failed ({out.returncode}): {out.stderr.decode()[-2000:]}")
    return elapsed, out.returncode, out.stdout


def best(cmd: list[str], runs: int) -> tuple[float, int, bytes]:
    results = [run(cmd) for _ in range(runs)]
    return min(results, key=lambda r: r[0])


def without_timing(question: str, stdout: bytes) -> bytes:
    """`stats` reports its own index time and how it used the cache: those lines differ."""
    if question.split()[0] != "stats":
        return stdout
    return b"\n".join(
        line for line in stdout.split(b"\n") if not line.startswith((b"indexed in", b"cache:"))
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--previous", help="an earlier build, for the cold-start ratio")
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--question", action="append", help="a command and its arguments")
    args = parser.parse_args()
    questions = args.question or DEFAULT_QUESTIONS
    root = str(Path(args.root).resolve())
    failed = False
    with tempfile.TemporaryDirectory() as cache:
        print(f"root: {root}")
        print(f"{'question':<28} {'cold s':>8} {'warm s':>8} {'cold/warm':>10}" + (
            f" {'previous s':>11} {'cold/prev':>10}" if args.previous else ""))
        for question in questions:
            words = question.split()
            base = [args.sextant, "--root", root]
            cold = best(base + ["--no-cache"] + words, args.runs)
            run(base + ["--cache-dir", cache] + words)
            warm = best(base + ["--cache-dir", cache] + words, args.runs)
            line = f"{question:<28} {cold[0]:>8.3f} {warm[0]:>8.3f} {cold[0] / warm[0]:>9.1f}x"
            if args.previous:
                # Cold too: a build with a persistent cache would otherwise read its own.
                previous = best([args.previous, "--root", root, "--no-cache"] + words, args.runs)
                line += f" {previous[0]:>11.3f} {cold[0] / previous[0]:>9.2f}x"
            print(line, flush=True)
            if (cold[1], without_timing(question, cold[2])) != (warm[1], without_timing(question, warm[2])):
                failed = True
                print(f"  DIFFERENT: warm exit {warm[1]}, cold exit {cold[1]}; "
                      f"{len(warm[2])} and {len(cold[2])} bytes of output")
        ctags = shutil.which("ctags")
        if ctags:
            with tempfile.TemporaryDirectory() as out:
                took = best([ctags, "-R", "-f", str(Path(out) / "tags"), root], args.runs)[0]
            print(f"{'ctags -R (baseline)':<28} {took:>8.3f}")
        ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
        if ruff and "check" in questions:
            took = best([ruff, "check", "--no-cache", "--exit-zero", "--quiet", root], args.runs)[0]
            print(f"{'ruff check --no-cache':<28} {took:>8.3f}")
    print("warm answers: " + ("DIFFERENT from cold ones" if failed else "identical to cold ones"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
