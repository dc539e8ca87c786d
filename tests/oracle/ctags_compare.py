#!/usr/bin/env python3
"""Checks that sextant finds every definition Universal Ctags reports in a directory.

    ctags_compare.py --sextant BIN --root DIR --ctags-lang Python --ctags-kinds class,function,member \
        --lang python --min-tags N [--max-missing N] [--max-other-line-share F] \
        [--max-unknown-path-share F] [--exclude GLOB]... [--show N]

For each tag ctags reports (of the given kinds), sextant must report a symbol with the same
name in the same file starting on the same line, or (counted separately, as a line
disagreement) on another line. Only files sextant indexes are compared (`sextant files`).

Exits 1, saying which check failed, when
  - ctags yields fewer than --min-tags tags to compare (a comparison of nothing proves nothing),
  - the two tools name no file alike, or more than --max-unknown-path-share of the files ctags
    tags (outside --exclude) are unknown to `sextant files` (the path formats disagree),
  - more than --max-missing tags are not found at all,
  - more than --max-other-line-share of the tags found sit on another line.
"""

import argparse
import collections
import fnmatch
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


def excluded(path, globs):
    """Whether a ctags path falls under one of the --exclude globs given to sextant: a glob
    matches the path, one of its leading directories, or one of its components."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for glob in globs:
        glob = glob.rstrip("/")
        if any(fnmatch.fnmatchcase(p, glob) for p in prefixes + parts):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--ctags-lang", required=True)
    ap.add_argument("--ctags-kinds", required=True)
    ap.add_argument("--lang", required=True)
    ap.add_argument("--min-tags", type=int, required=True, help="fewest ctags tags the comparison must cover")
    ap.add_argument("--max-missing", type=int, default=0)
    ap.add_argument("--max-other-line-share", type=float, default=0.001,
                    help="largest share of found tags that may sit on another line")
    ap.add_argument("--max-unknown-path-share", type=float, default=0.01,
                    help="largest share of the files ctags tags that sextant may not index")
    ap.add_argument("--show", type=int, default=30)
    ap.add_argument("--exclude", action="append", default=[], help="glob passed to sextant --exclude")
    args = ap.parse_args()

    all_tags = ctags_tags(args.root, args.ctags_lang, set(args.ctags_kinds.split(",")))
    all_tags = [t for t in all_tags if not excluded(t[0], args.exclude)]
    # Compare on the files sextant indexes (ignore rules, size limit, binary files).
    indexed = indexed_files(args.sextant, args.root, args.lang, args.exclude)
    tags = [t for t in all_tags if t[0] in indexed]
    symbols = sextant_symbols(args.sextant, args.root, args.lang, args.exclude)

    lines_by_name = collections.defaultdict(set)
    for s in symbols:
        lines_by_name[(s["path"], s["name"])].add(s["name_span"]["start"]["line"])

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

    ctags_paths = {t[0] for t in all_tags}
    symbol_paths = {s["path"] for s in symbols}
    unknown_paths = sorted(ctags_paths - indexed)
    by_kind = collections.Counter(t[3] for t in tags)
    print(f"ctags tags: {len(tags)} ({', '.join(f'{k} {n}' for k, n in sorted(by_kind.items()))})")
    print(f"sextant symbols: {len(symbols)}")
    print(f"files: ctags tags {len(ctags_paths)}, sextant indexes {len(indexed)}, "
          f"tagged but not indexed {len(unknown_paths)}, with symbols of both {len(ctags_paths & symbol_paths)}")
    print(f"found on the same line: {exact}; found on another line: {other_line}; missing: {len(missing)}")
    for path, line, name, kind in missing[: args.show]:
        print(f"  missing: {path}:{line} {kind} {name}")

    failures = []
    if len(tags) < args.min_tags:
        failures.append(f"ctags yields {len(tags)} tags to compare, fewer than --min-tags {args.min_tags}")
    if not ctags_paths & symbol_paths:
        failures.append(
            f"no file has symbols from both tools (ctags e.g. {sorted(ctags_paths)[:3]}, "
            f"sextant e.g. {sorted(symbol_paths)[:3]}): the paths do not match"
        )
    unknown_share = len(unknown_paths) / len(ctags_paths) if ctags_paths else 0.0
    if unknown_share > args.max_unknown_path_share:
        failures.append(
            f"{len(unknown_paths)} of {len(ctags_paths)} files ctags tags ({unknown_share:.2%}) are unknown to "
            f"sextant, more than --max-unknown-path-share {args.max_unknown_path_share:.2%} "
            f"(e.g. {unknown_paths[:3]})"
        )
    if len(missing) > args.max_missing:
        failures.append(f"{len(missing)} tags missing, more than --max-missing {args.max_missing}")
    found = exact + other_line
    other_share = other_line / found if found else 0.0
    if other_share > args.max_other_line_share:
        failures.append(
            f"{other_line} of {found} tags found ({other_share:.3%}) sit on another line, more than "
            f"--max-other-line-share {args.max_other_line_share:.3%}"
        )
    for failure in failures:
        print(f"FAILED: {failure}")
    if failures:
        sys.exit(1)

if __name__ == "__main__":
    main()
