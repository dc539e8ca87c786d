#!/usr/bin/env python3
"""Latency of `find_references` and `find_definition` over MCP, with `lookup_symbol` (a
plain index lookup) as the baseline of the same run.

    python3 benches/references_latency.py --sextant target/release/sextant --root /path/to/stdlib \
        [--name posixpath.join] [--calls 20]

Reports: the first (cold: every candidate file parsed and resolved) and warm find_references
times for --name, the warm median of find_definition at the first reference, the median of
lookup_symbol in the same session, and how long an edited file takes to show its new
reference (the save, the watcher, the re-parse and the search).
"""

import argparse
import builtins
import functools
import os
import statistics
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


async def main(args):
    print = functools.partial(builtins.print, flush=True)
    params = StdioServerParameters(
        command=args.sextant, args=["mcp", "--root", args.root, "--exclude", "site-packages/"]
    )
    # The default limit (100 references listed), as an agent asks; `total` counts them all.
    query = {"query": args.name, "exact_only": True}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("lookup_symbol", {"query": "main"})

                t = time.perf_counter()
                first = await session.call_tool("find_references", query)
                cold = ms(t)
                assert not first.is_error, first
                found = first.structured_content
                print(
                    f"find_references {args.name}: {found['total']} exact references in "
                    f"{found['files_searched']} files; first call {cold:.0f} ms"
                )

                warm = []
                for _ in range(args.calls):
                    t = time.perf_counter()
                    await session.call_tool("find_references", query)
                    warm.append(ms(t))
                print(f"find_references warm: median {statistics.median(warm):.1f} ms over {len(warm)} calls")

                target = found["references"][0]
                at = {"path": target["path"], "line": target["line"], "column": target["column"]}
                definition = []
                for _ in range(args.calls):
                    t = time.perf_counter()
                    await session.call_tool("find_definition", at)
                    definition.append(ms(t))
                print(f"find_definition warm: median {statistics.median(definition):.1f} ms")

                lookups = []
                for _ in range(args.calls):
                    t = time.perf_counter()
                    await session.call_tool("lookup_symbol", {"query": args.name.split(".")[-1]})
                    lookups.append(ms(t))
                base = statistics.median(lookups)
                print(
                    f"lookup_symbol (baseline): median {base:.1f} ms; find_references warm is "
                    f"{statistics.median(warm) / base:.1f}x the baseline"
                )

                # A new use of the name, saved on disk, until find_references lists it.
                probe = Path(args.root) / "sextant_references_probe.py"
                module, _, name = args.name.rpartition(".")
                try:
                    probe.write_text(f"import {module}\n{module}.{name}\n")
                    t = time.perf_counter()
                    while ms(t) < 30_000:
                        again = await session.call_tool("find_references", {**query, "path_prefix": probe.name})
                        if any(r["path"] == probe.name for r in again.structured_content["references"]):
                            print(f"save to fresh references: {ms(t):.0f} ms")
                            break
                    else:
                        print("save to fresh references: not seen within 30 s")
                finally:
                    probe.unlink(missing_ok=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--name", default="posixpath.join")
    parser.add_argument("--calls", type=int, default=20)
    anyio.run(main, parser.parse_args())
