#!/usr/bin/env python3
"""`workspace/symbol` round trips of `sextant lsp`, measured with a pygls client.

    python3 benches/lsp_latency.py --sextant target/release/sextant --root /path/to/corpus
"""

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

QUERIES = ["parse", "get", "Request", "urlsplit", "json", "TestCase", "mkd", "xyz_nothing", "run", "__init__"]


async def main(args):
    client = LanguageClient("lsp-latency", "1")
    await client.start_io(args.sextant, "lsp")
    root = Path(args.root).resolve()
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="root")],
        )
    )
    client.initialized(types.InitializedParams())
    started = time.perf_counter()
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="main"))
    print(f"first workspace/symbol answer (waits for the index): {(time.perf_counter() - started) * 1000:.0f} ms")
    times = []
    for i in range(args.calls):
        t = time.perf_counter()
        await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=QUERIES[i % len(QUERIES)]))
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"workspace/symbol over {len(times)} calls: median {statistics.median(times):.2f} ms, p99 {times[int(len(times) * 0.99) - 1]:.2f} ms")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--calls", type=int, default=300)
    asyncio.run(main(ap.parse_args()))
