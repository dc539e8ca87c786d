#!/usr/bin/env python3
"""How many fewer tokens a skeleton costs than its file, and whether it keeps every signature.

    python3 benches/skeleton_ratio.py --sextant target/release/sextant [--files 50]
        [--python-tree DIR] [--rust-tree DIR]

Copies the `--files` largest `.py` files of the Python standard library (`--python-tree`,
default this interpreter's, without `site-packages`) and the largest `.rs` files of tokio
(`--rust-tree`, default the newest `tokio-*` under cargo's registry sources) into a
temporary workspace each, runs `sextant skeleton --json` over it and `sextant outline
--json` on every file, and prints per corpus: the tokens of the files and of their
skeletons (o200k_base, counted by sextant), the ratio over the whole corpus and the median
per file, and the definitions the outline lists whose name or signature line is missing from
the skeleton (its name, and its first line as the file writes it). A definition inside an elided body (a nested function) is expected to go with
the body and is counted apart; any other missing one is a failure (exit status 1).
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path


def largest(tree: Path, suffix: str, count: int, skip: str | None) -> list[Path]:
    files = [
        p for p in tree.rglob(f"*{suffix}")
        if p.is_file() and not (skip and skip in p.relative_to(tree).parts)
    ]
    files.sort(key=lambda p: (-p.stat().st_size, str(p)))
    return files[:count]


def default_rust_tree() -> Path | None:
    pattern = os.path.expanduser("~/.cargo/registry/src/*/tokio-[0-9]*")
    found = sorted(glob.glob(pattern))
    return Path(found[-1]) if found else None


def split_rendered(text: str, paths: set[str]) -> dict[str, str]:
    """The skeleton text of each file, from the rendered answer's `==> path <==` lines."""
    out: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines(keepends=True):
        if line.startswith("==> ") and line.rstrip("\n").endswith(" <==") and line[4:-5] in paths:
            current = line[4:-5]
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return {path: "".join(lines) for path, lines in out.items()}


def definitions(nodes):
    for node in nodes:
        yield node
        yield from definitions(node.get("children", []))


def measure(sextant: str, files: list[Path], tree: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for f in files:
            target = root / f.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
        run = [sextant, "--root", str(root), "--max-file-size", str(64 << 20)]
        answer = json.loads(subprocess.run(run + ["skeleton", "--json"], check=True, capture_output=True, text=True).stdout)
        shown = {f["path"]: f for f in answer["files"]}
        texts = split_rendered(answer["text"], set(shown))
        present = inside_body = missing = 0
        failures = []
        for path, info in shown.items():
            outline = json.loads(subprocess.run(run + ["outline", "--json", str(root / path)], check=True, capture_output=True, text=True).stdout)
            skeleton = texts[path]
            source = (root / path).read_text(errors="replace").splitlines()
            bodies = [(e["start_line"], e["end_line"]) for e in info["elided"]]
            for d in definitions(outline["symbols"]):
                line = d["span"]["start"]["line"]
                # The definition's first line as written (the outline's signature joins lines).
                signature = source[line - 1].strip()
                if d["name"] in skeleton and signature in skeleton:
                    present += 1
                elif any(a <= line <= b for a, b in bodies):
                    inside_body += 1
                else:
                    missing += 1
                    failures.append(f"{path}:{line}: {signature}")
        ratios = [f["file_tokens"] / max(f["skeleton_tokens"], 1) for f in shown.values()]
        return {
            "files": len(shown),
            "file_tokens": sum(f["file_tokens"] for f in shown.values()),
            "skeleton_tokens": sum(f["skeleton_tokens"] for f in shown.values()),
            "median_ratio": statistics.median(ratios),
            "min_ratio": min(ratios),
            "present": present,
            "inside_body": inside_body,
            "missing": missing,
            "failures": failures,
        }


def report(name: str, m: dict) -> None:
    ratio = m["file_tokens"] / max(m["skeleton_tokens"], 1)
    print(f"{name}: {m['files']} files, {m['file_tokens']:,} tokens -> {m['skeleton_tokens']:,} "
          f"in skeletons: {ratio:.1f}x fewer overall, median {m['median_ratio']:.1f}x per file, "
          f"least {m['min_ratio']:.1f}x")
    print(f"  definitions: {m['present']} with name and signature line kept, "
          f"{m['inside_body']} inside an elided body, {m['missing']} missing")
    for failure in m["failures"][:20]:
        print(f"  missing: {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--python-tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--rust-tree", type=Path, default=default_rust_tree())
    args = parser.parse_args()
    failed = False
    corpora = [("python stdlib", args.python_tree, ".py", "site-packages"), ("tokio", args.rust_tree, ".rs", None)]
    for name, tree, suffix, skip in corpora:
        if tree is None or not tree.is_dir():
            print(f"{name}: no tree found, skipped")
            continue
        m = measure(args.sextant, largest(tree, suffix, args.files, skip), tree)
        report(f"{name} ({tree.name})", m)
        failed |= m["missing"] > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
