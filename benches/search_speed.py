#!/usr/bin/env python3
"""Speed of `search` on a warm MCP server against an `rg` process on the same tree.

    target/test-venv/bin/python benches/search_speed.py --sextant target/release/sextant \\
        --root "$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["stdlib"])')"

One `sextant mcp` server indexes the tree once; then, for each pattern, the median wall time
of `--runs` `search` calls (every hit of the pattern, under 1000 each, on one page: a token
cap above the answer, so the work is the same as rg's) and of `--runs` runs of
`rg --sort path -n -g '*.py' -g '!site-packages'` (the order `search` answers in; rg
without `--sort` runs in parallel and is faster, reported too). Prints each median and the
ratio sextant / rg; the summary is the median of the ratios. `--ignore-case` asks every
pattern without regard to case (`case: insensitive`, `rg -i`).

Each call is timed twice: through the MCP Python SDK, as an agent's host written with it
sees it, and through a second server spoken to in plain JSON-RPC lines (`raw`), which times
the server and the pipe alone: the SDK validates every answer's structured content against
the tool's output schema, which costs more than the search on answers with hundreds of hits.
"""


import argparse
import statistics
import subprocess
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from raw_mcp import RawMcpServer

GLOBS = ["*.py", "!site-packages"]
PATTERNS = [
    ("warnings.warn(", False),
    (r"def \w+_cache", True),
    ("NotImplementedError", False),
    (r"^class \w+\(Exception\):", True),
    ("yield from", False),
    (r"nonlocal \w+", True),
    ("threading.Lock()", False),
    (r"__(enter|exit)__", True),
]


def rg_args(pattern, regex, sort, ignore_case):
    args = ["rg", "-n", "-g", GLOBS[0], "-g", GLOBS[1]]
    if ignore_case:
        args.append("-i")
    if sort:
        args += ["--sort", "path"]
    if not regex:
        args.append("-F")
    return args + ["-e", pattern]


def time_rg(root, pattern, regex, runs, sort, ignore_case):
    times, lines = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(rg_args(pattern, regex, sort, ignore_case), cwd=root, capture_output=True)
        times.append(time.perf_counter() - start)
        lines = out.stdout.count(b"\n")
    return statistics.median(times), lines


def raw_median_time(server: RawMcpServer, call, runs):
    """The median time of `runs` raw `search` calls after a warming one, and the hits."""
    server.tool("search", call)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = server.tool("search", call)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result["structuredContent"]["matches"]


async def main(args):
    # Under a memory limit a cold index keeps the texts compressed (docs/memory.md).
    limit = ["--max-memory", args.max_memory, "--no-cache"] if args.max_memory else []
    params = StdioServerParameters(
        command=args.sextant,
        args=["mcp", "--root", args.root, "--max-answer-tokens", "1000000", "--request-timeout-ms", "600000",
              *limit],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        while not (await session.call_tool("workspace_status", {})).structured_content.get("ready"):
            await anyio.sleep(0.2)
        ratios, raw_ratios = [], []
        raw = RawMcpServer(args.sextant, args.root, "--max-answer-tokens", "1000000",
                           "--request-timeout-ms", "600000", "--no-background-check", *limit,
                           client="search_speed")
        raw.wait_until_ready()
        print(f"{'pattern':34} {'hits':>6} {'sextant ms':>10} {'raw ms':>7} {'rg sorted ms':>12} {'rg ms':>7} {'ratio':>6} {'raw ratio':>9}")
        for pattern, regex in PATTERNS:
            call = {"pattern": pattern, "regex": regex, "globs": GLOBS, "limit": 1000}
            if args.ignore_case:
                call["case"] = "insensitive"
            await session.call_tool("search", call)  # warm: compiled queries, symbol tables
            times, hits = [], 0
            for _ in range(args.runs):
                start = time.perf_counter()
                result = await session.call_tool("search", call)
                times.append(time.perf_counter() - start)
                assert not result.is_error, result
                hits = result.structured_content["matches"]
                assert not result.structured_content["truncated"], pattern
            ours = statistics.median(times)
            raw_time, raw_hits = raw_median_time(raw, call, args.runs)
            sorted_rg, rg_lines = time_rg(args.root, pattern, regex, args.runs, True, args.ignore_case)
            parallel_rg, _ = time_rg(args.root, pattern, regex, args.runs, False, args.ignore_case)
            ratio, raw_ratio = ours / sorted_rg, raw_time / sorted_rg
            ratios.append(ratio)
            raw_ratios.append(raw_ratio)
            print(f"{pattern!r:34} {hits:6} {ours * 1000:10.1f} {raw_time * 1000:7.1f} {sorted_rg * 1000:12.1f} "
                  f"{parallel_rg * 1000:7.1f} {ratio:6.2f} {raw_ratio:9.2f}")
            assert hits == rg_lines == raw_hits, (pattern, hits, rg_lines, raw_hits)
        raw.close()
        print(f"\nmedian ratio sextant / rg --sort path: {statistics.median(ratios):.2f} through the SDK, "
              f"{statistics.median(raw_ratios):.2f} raw; slowest raw ratio {max(raw_ratios):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--max-memory", metavar="SIZE",
                        help="start the servers cold under --max-memory SIZE, so they keep their texts compressed")
    parser.add_argument("--root", required=True)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--ignore-case", action="store_true",
                        help="search every pattern without regard to case (rg -i)")
    anyio.run(main, parser.parse_args())
