#!/usr/bin/env python3
"""Compare sextant's `search` with ripgrep on a tree (by default the Python standard
library's `*.py` files, `site-packages` left out): the same (path, line) hits, in the same
order, for literal and regex patterns.

    target/test-venv/bin/python tests/oracle/rg_compare.py --sextant target/release/sextant \\
        --root "$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["stdlib"])')" --patterns 50

sextant answers through one MCP server (`sextant mcp`, the same `Analysis::search` as
`sextant search --json`, whose JSON is the tool's structured content), loaded once, every
page followed through `next_offset`; `--cli` runs `sextant search --json` once per pattern
instead (each run indexes the tree again). ripgrep runs as `rg --sort path -n -g '*.py'
-g '!site-packages'` (`-F` for literal patterns). Files sextant leaves out (too large,
say: `workspace_status`'s skipped list) are left out of ripgrep's hits. Prints per-pattern
counts, precision and recall of (path, line) pairs, whether the order agrees, and the
first differences; exits 1 when any pattern differs.
"""

import argparse
import asyncio
import json
import subprocess
import sys

GLOBS = ["*.py", "!site-packages"]

# (pattern, is_regex): real identifiers and idioms of the standard library.
PATTERNS = [
    ("raise ValueError(", False),
    (r"def \w+_cache", True),
    ("import os", False),
    (r"^class \w+\(Exception\):", True),
    ("self.assertEqual(", False),
    (r"\bNotImplementedError\b", True),
    ("__init__", False),
    (r"^from \.\w* import", True),
    ("TODO", False),
    (r"XXX|FIXME", True),
    ("os.path.join", False),
    (r"lambda \w+: \w+\.\w+", True),
    ("isinstance(", False),
    (r"return (True|False)$", True),
    ("yield from", False),
    (r"async def \w+", True),
    ("@property", False),
    (r"@\w+\.setter", True),
    ("except Exception:", False),
    (r"except \(\w+, \w+\)", True),
    ("sys.platform", False),
    (r"if __name__ == .__main__.:", True),
    ("warnings.warn(", False),
    (r"\d+\.\d+\.\d+", True),
    ("global ", False),
    (r"nonlocal \w+", True),
    ("with open(", False),
    (r"open\([^)]*'rb'\)", True),
    ("assert ", False),
    (r"^\s+pass$", True),
    ("super().__init__(", False),
    (r"__(enter|exit)__", True),
    ("threading.Lock()", False),
    (r"\bcollections\.abc\.\w+", True),
    ("re.compile(", False),
    (r"r'[^']*\\d", True),
    ("encoding='utf-8'", False),
    (r"[Éé]", True),
    ("Copyright", False),
    (r"^\s*#\s*-\*- coding", True),
    ("print(", False),
    (r"\t", True),
    ("subprocess.run(", False),
    (r"[a-z]+_[a-z]+_[a-z]+_[a-z]+\(", True),
    ("functools.wraps", False),
    (r"(?i)deprecated", True),
    ("bytearray(", False),
    (r"0x[0-9A-F]{8}\b", True),
    ("staticmethod", False),
    (r"\$\{?\w+\}?", True),
]


def path_key(path):
    return path.split("/")


def rg_hits(root, pattern, regex):
    args = ["rg", "--sort", "path", "-n", "--no-heading", "--json"]
    for glob in GLOBS:
        args += ["-g", glob]
    if not regex:
        args.append("-F")
    args += ["-e", pattern]
    out = subprocess.run(args, cwd=root, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"rg failed on {pattern!r}: {out.stderr}")
    hits = []
    for line in out.stdout.splitlines():
        message = json.loads(line)
        if message["type"] == "match":
            data = message["data"]
            path = data["path"].get("text") or data["path"].get("bytes")
            hits.append((path.removeprefix("./"), data["line_number"]))
    return hits


def answer_hits(answer):
    return [(f["path"], l["line"]) for f in answer["files"] for l in f["lines"] if not l.get("context")]


async def mcp_search(session, pattern, regex):
    hits, offset = [], 0
    while True:
        args = {"pattern": pattern, "regex": regex, "globs": GLOBS, "limit": 1000}
        if offset:
            args["offset"] = offset
        result = await session.call_tool("search", args)
        if result.is_error:
            raise SystemExit(f"sextant refused {pattern!r}: {result.content[0].text}")
        data = result.structured_content
        hits += answer_hits(data)
        if not data["truncated"]:
            return hits
        offset = data["next_offset"]


def cli_search(sextant, root, pattern, regex):
    args = [sextant, "--root", root, "search", "--json", "--limit", "100000000"]
    for glob in GLOBS:
        args += ["-g", glob]
    if not regex:
        args.append("-F")
    args += ["--", pattern]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"sextant failed on {pattern!r}: {out.stderr}")
    return answer_hits(json.loads(out.stdout))


def compare(pattern, regex, ours, theirs, skipped):
    theirs = [h for h in theirs if h[0] not in skipped]
    a, b = set(ours), set(theirs)
    both = len(a & b)
    precision = both / len(a) if a else 1.0
    recall = both / len(b) if b else 1.0
    in_order = ours == sorted(ours, key=lambda h: (path_key(h[0]), h[1])) and (a != b or ours == theirs)
    kind = "regex" if regex else "literal"
    print(f"{len(ours):6} {len(theirs):6}  P={precision:.4f} R={recall:.4f} order={'ok' if in_order else 'DIFF'}  {kind:7} {pattern!r}")
    for hit in sorted(b - a)[:5]:
        print(f"        missed by sextant: {hit[0]}:{hit[1]}")
    for hit in sorted(a - b)[:5]:
        print(f"        only sextant:      {hit[0]}:{hit[1]}")
    return len(a), len(b), both, a == b and in_order


async def run_mcp(sextant, root, patterns):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sextant, args=["mcp", "--root", root, "--request-timeout-ms", "600000"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        while True:
            status = (await session.call_tool("workspace_status", {})).structured_content
            if status.get("ready"):
                break
            await asyncio.sleep(0.5)
        skipped = {s["path"] for s in status.get("skipped", [])}
        if status.get("skipped_total", 0) > len(skipped):
            print(f"warning: {status['skipped_total']} files skipped, only {len(skipped)} listed")
        results = []
        for pattern, regex in patterns:
            ours = await mcp_search(session, pattern, regex)
            results.append(compare(pattern, regex, ours, rg_hits(root, pattern, regex), skipped))
        return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--patterns", type=int, default=len(PATTERNS))
    parser.add_argument("--cli", action="store_true", help="run `sextant search --json` per pattern")
    args = parser.parse_args()
    patterns = PATTERNS[: args.patterns]
    print(f"{'sextant':>6} {'rg':>6}")
    if args.cli:
        results = [
            compare(p, r, cli_search(args.sextant, args.root, p, r), rg_hits(args.root, p, r), set())
            for p, r in patterns
        ]
    else:
        results = asyncio.run(run_mcp(args.sextant, args.root, patterns))
    ours = sum(r[0] for r in results)
    theirs = sum(r[1] for r in results)
    both = sum(r[2] for r in results)
    same = sum(r[3] for r in results)
    print(
        f"\n{len(results)} patterns, {same} identical (hits and order); (path, line) pairs: "
        f"sextant {ours}, rg {theirs}, both {both}; "
        f"precision {both / max(ours, 1):.4f}, recall {both / max(theirs, 1):.4f}"
    )
    sys.exit(0 if same == len(results) else 1)


if __name__ == "__main__":
    main()
