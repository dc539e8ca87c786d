#!/usr/bin/env python3
"""Checks that sextant finds every definition Universal Ctags reports in a directory.

    ctags_compare.py --sextant BIN --root DIR --ctags-lang Python --ctags-kinds class,function,member \
        --lang python [--max-missing N] [--show N]

For each tag ctags reports (of the given kinds), sextant must report a symbol with the same
name in the same file starting on the same line, or (counted separately, as a line
disagreement) on another line. Only files sextant indexes are compared (`sextant files`).
Exits 1 when more than --max-missing tags are not found at all.
"""

import argparse
import collections
import json
import subprocess
import sys


def ctags_tags(root, ctags_lang, kinds):
    cmd = [
        "ctags", "-R", "--output-format=json", "--fields=+nKZ", "-f", "-",
        f"--languages={ctags_lang}", ".",
    ]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, errors="replace", check=True).stdout
    tags = []
    for line in out.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") != "tag" or tag.get("kind") not in kinds:
            continue
        path = tag["path"].removeprefix("./")
        tags.append((path, tag["name"], tag["line"], tag["kind"]))
    return tags


def sextant_symbols(binary, root, lang, excludes):
    cmd = [binary, "--root", root, "symbols", "", "--json", "--lang", lang, "--limit", "100000000"]
    cmd += [f"--exclude={e}" for e in excludes]
    for kind in ["module", "class", "struct", "union", "enum", "variant", "trait", "interface", "impl",
                 "type", "function", "method", "field", "constant", "static", "variable", "macro"]:
        cmd += ["--kind", kind]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):
        sys.exit(f"sextant failed: {result.stderr}")
    return json.loads(result.stdout)["symbols"]


def indexed_files(binary, root, lang, excludes):
    cmd = [binary, "--root", root, "files", "--json", "--lang", lang] + [f"--exclude={e}" for e in excludes]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {f["path"] for f in json.loads(out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--ctags-lang", required=True)
    ap.add_argument("--ctags-kinds", required=True)
    ap.add_argument("--lang", required=True)
    ap.add_argument("--max-missing", type=int, default=0)
    ap.add_argument("--show", type=int, default=30)
    ap.add_argument("--exclude", action="append", default=[], help="glob passed to sextant --exclude")
    args = ap.parse_args()

    tags = ctags_tags(args.root, args.ctags_lang, set(args.ctags_kinds.split(",")))
    # Compare on the files sextant indexes (ignore rules, size limit, binary files).
    indexed = indexed_files(args.sextant, args.root, args.lang, args.exclude)
    tags = [t for t in tags if t[0] in indexed]
    symbols = sextant_symbols(args.sextant, args.root, args.lang, args.exclude)

    lines_by_name = collections.defaultdict(set)
    for s in symbols:
        lines_by_name[(s["path"], s["name"])].add(s["start"]["line"])

    exact = other_line = 0
    missing = []
    for path, name, line, kind in tags:
        lines = lines_by_name.get((path, name))
        if not lines:
            missing.append((path, line, name, kind))
        elif line in lines:
            exact += 1
        else:
            other_line += 1

    by_kind = collections.Counter(t[3] for t in tags)
    print(f"ctags tags: {len(tags)} ({', '.join(f'{k} {n}' for k, n in sorted(by_kind.items()))})")
    print(f"sextant symbols: {len(symbols)}")
    print(f"found on the same line: {exact}; found on another line: {other_line}; missing: {len(missing)}")
    for path, line, name, kind in missing[: args.show]:
        print(f"  missing: {path}:{line} {kind} {name}")
    if len(missing) > args.max_missing:
        sys.exit(1)


if __name__ == "__main__":
    main()
