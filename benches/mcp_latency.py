#!/usr/bin/env python3
"""Round-trip latency of `sextant mcp` over stdio, measured with the MCP Python SDK.

    python3 benches/mcp_latency.py --sextant target/release/sextant --root /path/to/corpus

Reports: time from spawning the server to the first lookup_symbol answer; median and p99
of lookup_symbol round trips; how long a file saved on disk takes to show in answers, and
how often the first call after the save already saw it (read-your-writes: always).
"""

import argparse
import os
import statistics
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

QUERIES = ["parse", "get", "Request", "urlsplit", "json", "TestCase", "mkd", "xyz_nothing", "run", "__init__"]


async def main(args):
    params = StdioServerParameters(command=args.sextant, args=["mcp", "--root", args.root])
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                first = await session.call_tool("lookup_symbol", {"query": "main"})
                assert not first.is_error, first
                print(f"start to first answer: {(time.perf_counter() - started) * 1000:.0f} ms")

                times = []
                for i in range(args.calls):
                    t = time.perf_counter()
                    result = await session.call_tool("lookup_symbol", {"query": QUERIES[i % len(QUERIES)]})
                    times.append((time.perf_counter() - t) * 1000)
                    assert not result.is_error
                times.sort()
                p99 = times[int(len(times) * 0.99) - 1]
                print(f"lookup_symbol round trip over {len(times)} calls: median {statistics.median(times):.2f} ms, p99 {p99:.2f} ms")

                probe = Path(args.root) / "sextant_latency_probe.py"
                delays = []
                first_call_fresh = 0
                try:
                    for i in range(args.saves):
                        name = f"probe_function_{i}_{int(time.time() * 1000)}"
                        probe.write_text(f"def {name}():\n    pass\n")
                        t = time.perf_counter()
                        calls = 0
                        while True:
                            found = await session.call_tool("lookup_symbol", {"query": name, "limit": 1})
                            calls += 1
                            if found.structured_content["symbols"]:
                                break
                        first_call_fresh += calls == 1
                        delays.append((time.perf_counter() - t) * 1000)
                finally:
                    probe.unlink(missing_ok=True)
                print(f"file saved to visible in answers: median {statistics.median(delays):.1f} ms, max {max(delays):.1f} ms")
                print(f"saves seen by the first call after the write: {first_call_fresh} of {len(delays)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--saves", type=int, default=20)
    anyio.run(main, ap.parse_args())
