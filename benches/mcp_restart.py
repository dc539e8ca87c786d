#!/usr/bin/env python3
"""How soon a restarted `sextant mcp` answers from a kept persistent cache, with or without
files edited while no server ran: for repeating one restart many times, alternating builds.

    python3 benches/mcp_restart.py --sextant BIN --cache DIR --fill [--root DIR]
    python3 benches/mcp_restart.py --sextant BIN --cache DIR [--edit-files N] [--root DIR]

`--fill` starts a server on --root with its cache under DIR and stops it once the background
check is done and saved (a cold start: minutes on a large tree). Each later run copies DIR
(so every run starts from the same records), edits N Python files as
`benches/mcp_warm_start.py` does (put back, with their times, at the end), starts a server,
and prints the time from its start to the first `lookup_symbol` answer (`join`, or with
edits `sextant_edited_`, which must find the N added functions), to the first answer over
every file, and the cache's counts then. A cache is for one build: fill one per build.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_warm_start import edit_files, restore


async def run(args, cache: str, symbol: str, fill: bool) -> tuple[float, float, dict, dict]:
    params = StdioServerParameters(command=args.sextant, args=["mcp", "--root", args.root, "--cache-dir", cache])
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                answer = await session.call_tool("lookup_symbol", {"query": symbol})
                first = time.perf_counter() - started
                while (answer.structured_content or {}).get("partial"):
                    await anyio.sleep(0.05)
                    answer = await session.call_tool("lookup_symbol", {"query": symbol})
                whole = time.perf_counter() - started
                status = (await session.call_tool("workspace_status", {})).structured_content
                while fill and not (status["checked"] and status["cache"]["saves"] >= 2):
                    await anyio.sleep(0.1)
                    status = (await session.call_tool("workspace_status", {})).structured_content
                return first, whole, answer.structured_content or {}, status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", default="/tmp/hmem/tree")
    parser.add_argument("--cache", required=True)
    parser.add_argument("--fill", action="store_true")
    parser.add_argument("--edit-files", type=int, default=0, metavar="N")
    args = parser.parse_args()
    args.root = os.path.realpath(args.root)
    if args.fill:
        first, whole, _, _ = anyio.run(run, args, args.cache, "join", True)
        print(f"filled: first lookup {first:.3f} s, over every file {whole:.3f} s")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        cache = os.path.join(scratch, "cache")
        shutil.copytree(args.cache, cache)
        saved = edit_files(args.root, args.edit_files) if args.edit_files else []
        try:
            symbol = "sextant_edited_" if saved else "join"
            first, whole, answer, status = anyio.run(run, args, cache, symbol, False)
        finally:
            restore(saved)
    found = len(answer.get("symbols", []))
    counts = {k: v for k, v in (status.get("cache") or {}).items() if k != "dir"}
    print(f"first lookup {first:.3f} s, over every file {whole:.3f} s, {found} symbols, cache {counts}, load {os.getloadavg()[0]:.2f}")
    return 1 if saved and found != len(saved) else 0


if __name__ == "__main__":
    sys.exit(main())
