"""Rust functions in src/ longer than a limit, longest first: the figure issue-level structure
work is judged by (how many functions exceed 100 lines, and the largest).

    python3 scripts/long_functions.py [--limit 100] [--root .]

A function's length is from its `fn` line to the brace that closes its body, found by
counting braces outside strings, character literals and `//` comments; good enough for a
count compared between two commits, not a parser."""

import argparse
import os
import re

FN = re.compile(r"\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")


def code_of(line: str) -> str:
    line = re.sub(r'"(\\.|[^"\\])*"', "", line)
    line = re.sub(r"'(\\.|[^'\\])'", "", line)
    return line.split("//")[0]


def functions(path: str):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    for start, line in enumerate(lines):
        found = FN.match(line)
        if not found:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            code = code_of(lines[end])
            if not opened and ";" in code and "{" not in code:
                break  # a declaration without a body
            depth += code.count("{") - code.count("}")
            opened |= "{" in code
            if opened and depth <= 0:
                yield end - start + 1, found.group(6), start + 1
                break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--root", default=".")
    args = parser.parse_args()
    found = []
    for directory, _, files in os.walk(os.path.join(args.root, "src")):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(directory, name)
                for length, function, line in functions(path):
                    found.append((length, f"{os.path.relpath(path, args.root)}:{line} {function}"))
    found.sort(reverse=True)
    over = [f for f in found if f[0] > args.limit]
    print(f"{len(over)} functions over {args.limit} lines, of {len(found)}")
    for length, where in over:
        print(f"{length:5} {where}")


if __name__ == "__main__":
    main()
