#!/usr/bin/env python3
"""How long `apply_patch` takes to answer a dry run on a warm server, diagnostics included.

    target/test-venv/bin/python benches/patch_latency.py --sextant target/release/sextant \\
        [--root DIR] [--files 10] [--calls 30]

Serves `--root` (default this interpreter's standard library, without `site-packages`) with
`sextant mcp` over stdio through the MCP Python SDK, waits for the index, then sends a unified
diff that changes one line in each of `--files` Python files (a comment appended to the
file's first non-blank line, numbered: each call's texts are new) as a dry run `--calls`
times, and prints the median and the
slowest round trip, with `check: "report"` (the scratch database's diagnostics of the changed
files) and, as the baseline in the same run, `check: "off"` (the same patch, parsed and
applied in memory only). Nothing is written. Each line also gives the server's CPU time per
call (user and system, from `/proc`), which a busy machine inflates far less than the round
trip.
"""

import argparse
import os
import statistics
import sysconfig
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def patch_of(root: Path, count: int, call: int) -> str:
    chosen = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "site-packages" in rel or "/test" in rel or rel.startswith("test"):
            continue
        try:
            lines = path.read_text(encoding="utf-8").split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        at = next((i for i, line in enumerate(lines) if line.strip()), None)
        if at is None or path.stat().st_size > 200_000:
            continue
        context = lines[at + 1 : at + 4]
        hunk = [f"-{lines[at]}", f"+{lines[at]}  # patched {call}"] + [f" {line}" for line in context]
        chosen.append(
            f"--- a/{rel}\n+++ b/{rel}\n@@ -{at + 1},{1 + len(context)} +{at + 1},{1 + len(context)} @@\n"
            + "\n".join(hunk) + "\n"
        )
        if len(chosen) == count:
            break
    return "".join(chosen)


def server_cpu_seconds() -> float:
    """User and system CPU time of this process's children (the server), from `/proc`."""
    me = os.getpid()
    total = 0
    for child in open(f"/proc/{me}/task/{me}/children").read().split():
        fields = open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


async def main(args):
    root = Path(args.root or Path(sysconfig.get_paths()["stdlib"]))
    params = StdioServerParameters(command=args.sextant, args=["mcp", "--root", str(root), "--exclude", "site-packages/"])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while True:
                    status = await session.call_tool("workspace_status", {})
                    content = status.structured_content or {}
                    if not status.is_error and content.get("ready") and content.get("checked"):
                        break
                    await anyio.sleep(0.5)
                for check in ("off", "report"):
                    times = []
                    for call in range(args.calls + 2):
                        patch = patch_of(root, args.files, call)
                        started = time.perf_counter()
                        result = await session.call_tool("apply_patch", {"patch": patch, "check": check})
                        times.append((time.perf_counter() - started) * 1000)
                        assert not result.is_error, result
                        assert len(result.structured_content["files"]) == args.files
                        if call == 1:
                            cpu_before = server_cpu_seconds()
                    cpu = (server_cpu_seconds() - cpu_before) * 1000 / args.calls
                    times = times[2:]  # the first calls warm the scratch analysis
                    print(f"apply_patch dry run of {args.files} files, check {check}: "
                          f"median {statistics.median(times):.1f} ms, slowest {max(times):.1f} ms over {len(times)} calls, "
                          f"server CPU {cpu:.1f} ms per call")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root")
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--calls", type=int, default=30)
    anyio.run(main, ap.parse_args())
