#!/usr/bin/env python3
"""What asking every root costs: `lookup_symbol` and `search` on a server of two roots,
asked of no root (both answer, at once, and the answers are merged) against the same call
asked of each root alone, in the same run.

    python3 benches/roots_fan_out.py --sextant target/release/sextant ROOT_A ROOT_B

Prints, per call, the median wall time over `--rounds` calls of each kind, and the ratio of
the call asked of every root to the slower of the two roots alone and to their sum: the
roots answer in parallel, so the first ratio is the merge's cost, near 1 when both cores
are free.
"""

import argparse
import os
import statistics
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

CALLS = [
    ("lookup_symbol", {"query": "parse"}),
    ("lookup_symbol", {"query": "Config", "limit": 200}),
    ("lookup_symbol", {"query": "Config", "limit": 20}),
    ("search", {"pattern": "def __init__", "limit": 200}),
    ("search", {"pattern": "return None", "limit": 50, "offset": 100}),
]


async def wait_ready(session: ClientSession, root: str):
    for _ in range(3000):
        status = await session.call_tool("workspace_status", {"root": root})
        if not status.is_error and status.structured_content["ready"]:
            return
        await anyio.sleep(0.2)
    raise SystemExit(f"{root} was never indexed")


async def median_ms(session: ClientSession, tool: str, args: dict, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = await session.call_tool(tool, args)
        times.append((time.perf_counter() - start) * 1000)
        assert not result.is_error, result
    return statistics.median(times)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sextant", default="target/release/sextant")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("roots", nargs=2)
    args = parser.parse_args()
    params = StdioServerParameters(
        command=args.sextant,
        args=["mcp", "--no-cache", "--root", args.roots[0], "--root", args.roots[1]],
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                status = (await session.call_tool("workspace_status", {})).structured_content
                names = [r["name"] for r in status["roots"]]
                for name in names:
                    await wait_ready(session, name)
                print(f"roots: {', '.join(names)}; median of {args.rounds} calls each")
                for tool, call in CALLS:
                    # Warm every memo first: the figures compare answering, not indexing.
                    for root in [None, *names]:
                        await median_ms(session, tool, {**call, **({"root": root} if root else {})}, 2)
                    every = await median_ms(session, tool, call, args.rounds)
                    alone = [await median_ms(session, tool, {**call, "root": n}, args.rounds) for n in names]
                    print(
                        f"{tool} {call}: every root {every:.1f} ms; "
                        + ", ".join(f"{n} alone {t:.1f} ms" for n, t in zip(names, alone))
                        + f"; ratio to the slower {every / max(alone):.2f}, to the sum {every / sum(alone):.2f}"
                    )


if __name__ == "__main__":
    anyio.run(main)
