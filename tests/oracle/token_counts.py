#!/usr/bin/env python3
"""Token counts against the reference tokenizer: `sextant tokens` on every file of a tree
against js-tiktoken (tests/oracle/reference_tokens.mjs) in the same encoding. A count is
exact or it is wrong, so every differing file is listed and fails the run.

    python3 tests/oracle/token_counts.py --sextant target/debug/sextant --root DIR \
        [--encoding o200k_base] [--exclude GLOB ...] [--sample N] [--min-files N]

With --sample N, N files spread evenly over the tree (in path order) are compared.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def sextant_counts(args, paths: list[str]) -> dict[str, int]:
    command = [args.sextant, "tokens", "--json", "--root", args.root, "--encoding", args.encoding]
    for glob in args.exclude:
        command += ["--exclude", glob]
    command += paths
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return {f["path"]: f["tokens"] for f in json.loads(out)["files"]}


def reference_counts(root: Path, paths: list[str], encoding: str) -> dict[str, int]:
    service = subprocess.Popen(
        ["node", str(HERE / "reference_tokens.mjs")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    requests = "".join(json.dumps({"encoding": encoding, "path": str(root / p)}) + "\n" for p in paths)
    out, _ = service.communicate(requests)
    if service.returncode != 0:
        sys.exit("reference_tokens.mjs failed")
    counts = [json.loads(line)["tokens"] for line in out.splitlines()]
    return dict(zip(paths, counts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--encoding", default="o200k_base", choices=["o200k_base", "cl100k_base"])
    parser.add_argument("--exclude", action="append", default=[])
    parser.add_argument("--sample", type=int, help="compare this many files, spread over the tree")
    parser.add_argument("--min-files", type=int, default=1, help="fail when fewer files were compared")
    args = parser.parse_args()
    started = time.monotonic()
    paths = []
    if args.sample:
        listed = subprocess.run(
            [args.sextant, "files", "--root", args.root] + [f"--exclude={g}" for g in args.exclude],
            check=True, capture_output=True, text=True,
        ).stdout.split()
        every = [line for line in listed if "/" in line or "." in line]
        step = max(1, len(every) // args.sample)
        paths = [str(Path(args.root) / p) for p in sorted(every)[::step][: args.sample]]
    ours = sextant_counts(args, paths)
    theirs = reference_counts(Path(args.root), sorted(ours), args.encoding)
    differing = [(p, ours[p], theirs[p]) for p in sorted(ours) if ours[p] != theirs[p]]
    total = sum(theirs.values())
    print(
        f"token counts ({args.encoding}) on {args.root}: {len(ours)} files, {total} tokens, "
        f"{len(ours) - len(differing)} equal, {len(differing)} differing ({time.monotonic() - started:.1f} s)"
    )
    for path, mine, reference in differing[:20]:
        print(f"  {path}: sextant {mine}, reference {reference}")
    if len(ours) < args.min_files:
        print(f"only {len(ours)} files compared (--min-files {args.min_files})")
        return 1
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
