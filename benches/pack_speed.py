#!/usr/bin/env python3
"""How fast a warm server packs: `pack_context` of 100 files of the Python standard library
(optional entries, `either`, priorities spread) under a 50,000-token budget, through the MCP
Python SDK. The first call warms the memoized skeletons and counts; the median of the next
runs is the figure.

    target/test-venv/bin/python benches/pack_speed.py --sextant target/release/sextant \
        [--root PYTHON_STDLIB] [--files 100] [--max-tokens 50000] [--runs 7]
"""

import argparse
import os
import statistics
import sysconfig
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def measure(args) -> tuple[float, list[float], dict]:
    params = StdioServerParameters(
        command=args.sextant,
        args=[
            "mcp", "--root", args.root, "--exclude", "site-packages/", "--no-background-check",
            "--max-answer-tokens", str(args.max_tokens),
        ],
    )
    files = sorted(str(p.relative_to(args.root)) for p in Path(args.root).glob("*.py"))[: args.files]
    entries = [{"path": f, "mode": "either", "priority": (i * 37) % 101} for i, f in enumerate(files)]
    request = {"tasks": [{"optional": entries}], "max_tokens": args.max_tokens}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while not (await session.call_tool("workspace_status", {})).structured_content["ready"]:
                    await anyio.sleep(0.5)
                started = time.perf_counter()
                first = await session.call_tool("pack_context", request)
                cold = time.perf_counter() - started
                warm = []
                for _ in range(args.runs):
                    started = time.perf_counter()
                    result = await session.call_tool("pack_context", request)
                    warm.append(time.perf_counter() - started)
    assert not first.is_error, first.content
    return cold, warm, result.structured_content


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/release/sextant")
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--max-tokens", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    cold, warm, answer = anyio.run(measure, args)
    modes = [e["mode"] for e in answer["included"]]
    print(
        f"pack_context of {args.files} files under {args.max_tokens} tokens: {answer['tokens']} tokens, "
        f"{modes.count('full')} full, {modes.count('skeleton')} skeletons, {len(answer.get('omitted', []))} left out"
    )
    print(f"first call {cold * 1000:.0f} ms; warm median {statistics.median(warm) * 1000:.1f} ms "
          f"(min {min(warm) * 1000:.1f}, max {max(warm) * 1000:.1f}, {args.runs} runs)")


if __name__ == "__main__":
    main()
