#!/usr/bin/env python3
"""How long `sextant mcp` keeps computing after a call times out or is cancelled.

    python3 benches/cancel_latency.py --sextant target/release/sextant

Sends `parse_source` calls big enough to take far longer than the time limit (a 4 MB Python
source), under `--request-timeout-ms 100`; after each `TIMEOUT` answer (and after each
client cancellation, `notifications/cancelled`) it samples the server's CPU time every few
milliseconds and reports when it last grew. CPU time is counted in clock ticks (10 ms).
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

SOURCE_BYTES = 4_000_000
TICK = 1 / os.sysconf("SC_CLK_TCK")


def server_pid(root: str) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"mcp" in argv and root.encode() in argv:
                return int(entry.name)
    raise SystemExit("server process not found")


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK


async def busy_after(pid: int, quiet: float = 0.3) -> float:
    """Seconds from now until the process's CPU time last grew (it must then stay flat for `quiet`)."""
    start = time.perf_counter()
    last_value, last_growth = cpu(pid), start
    while time.perf_counter() - last_growth < quiet:
        await anyio.sleep(0.002)
        value = cpu(pid)
        if value > last_value:
            last_value, last_growth = value, time.perf_counter()
    return last_growth - start


async def main(args):
    root = tempfile.mkdtemp()
    Path(root, "a.py").write_text("x = 1\n")
    source = "value = call(first, second, [third, {'key': fourth}])\n" * (SOURCE_BYTES // 55)
    limits = ["--request-timeout-ms", "100", "--max-source-bytes", str(SOURCE_BYTES + 1000), "--max-request-bytes", str(8 * SOURCE_BYTES)]
    params = StdioServerParameters(command=args.sextant, args=["mcp", "--root", root, *limits])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pid = server_pid(root)
                await session.call_tool("workspace_status", {})
                await busy_after(pid)
                after_timeout, after_cancel = [], []
                for _ in range(args.rounds):
                    result = await session.call_tool("parse_source", {"source": source, "language": "python"})
                    assert result.is_error and json.loads(result.content[0].text)["code"] == "TIMEOUT", result
                    after_timeout.append(await busy_after(pid))
                for _ in range(args.rounds):
                    with anyio.move_on_after(0.05):
                        await session.call_tool("parse_source", {"source": source, "language": "python"})
                    after_cancel.append(await busy_after(pid))
    for name, values in [("TIMEOUT", after_timeout), ("cancellation", after_cancel)]:
        ms = sorted(v * 1000 for v in values)
        print(f"CPU after {name} over {len(ms)} calls: median {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms (clock tick {TICK * 1000:.0f} ms)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--rounds", type=int, default=10)
    anyio.run(main, ap.parse_args())
