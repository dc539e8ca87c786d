#!/usr/bin/env python3
"""How fast a warm server maps a repository: `repo_map` of the Python standard library at
4,000 tokens through the MCP Python SDK. The first call resolves every file's references
and ranks them (memoized); the median of the next runs is the figure, beside a focused map
(personalised PageRank, computed per call) and, as the baseline measured in the same
session, `skeleton` of the whole workspace at the same budget.

    target/test-venv/bin/python benches/repo_map_speed.py --sextant target/release/sextant \
        [--root PYTHON_STDLIB] [--max-tokens 4000] [--runs 7] [--focus json]
"""

import argparse
import os
import statistics
import sysconfig
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def timed(session, tool, args, runs):
    """The first call's time, the warm calls' times and the last answer."""
    started = time.perf_counter()
    first = await session.call_tool(tool, args)
    cold = time.perf_counter() - started
    assert not first.is_error, first.content
    warm = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await session.call_tool(tool, args)
        warm.append(time.perf_counter() - started)
    assert not result.is_error, result.content
    return cold, warm, result.structured_content


async def measure(args):
    params = StdioServerParameters(
        command=args.sextant,
        args=["mcp", "--root", args.root, "--exclude", "site-packages/", "--no-background-check",
              # The first map of a large workspace resolves every name in it.
              "--request-timeout-ms", "300000"],
    )
    budget = {"max_tokens": args.max_tokens}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while not (await session.call_tool("workspace_status", {})).structured_content["ready"]:
                    await anyio.sleep(0.5)
                plain = await timed(session, "repo_map", budget, args.runs)
                focused = await timed(session, "repo_map", {**budget, "focus": [args.focus]}, args.runs)
                baseline = await timed(session, "skeleton", budget, args.runs)
    return plain, focused, baseline


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/release/sextant")
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--max-tokens", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--focus", default="json")
    args = parser.parse_args()
    plain, focused, baseline = anyio.run(measure, args)
    answer = plain[2]
    print(
        f"repo_map at {args.max_tokens} tokens: {answer['tokens']} tokens, "
        f"{answer['definitions_shown']} of {answer['definition_count']} definitions, "
        f"{answer['files_shown']} of {answer['file_count']} files"
    )
    skeleton_median = statistics.median(baseline[1])
    for name, (cold, warm, _) in (("repo_map", plain), (f"repo_map focus={args.focus}", focused)):
        median = statistics.median(warm)
        print(
            f"{name}: first call {ms(cold)}; warm median {ms(median)} (min {ms(min(warm))}, "
            f"max {ms(max(warm))}, {args.runs} runs); {median / skeleton_median:.2f}x skeleton's warm median"
        )
    print(f"baseline skeleton at {args.max_tokens} tokens: warm median {ms(skeleton_median)}")


if __name__ == "__main__":
    main()
