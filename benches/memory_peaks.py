"""Peak resident memory of `sextant mcp` on a tree, as docs/memory.md reports it: the server
driven through the official MCP Python SDK until its first index (and, with the background
check, until `checked`, where it prints the peak so far), then one `find_references`; cold
(`--no-cache`).

    target/test-venv/bin/python benches/memory_peaks.py --sextant target/release/sextant \
        --root TREE [--text-mb MB] [--no-background-check] [--max-memory 400M]

Prints the text size the server indexed, the wall time, and the server's VmRSS and VmHWM
(peak) in MB read from /proc, and with `--text-mb` the peak as a multiple of the text; and
the most the server's name tables held at a poll of `workspace_status` (every half second). Run it for each
binary being compared, alternating, in one session."""

import argparse
import asyncio
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# The server's process and its memory, read as the other memory bench reads them.
from server_memory import memory as memory_mb, server_pid


# The most the server's live name tables held at a poll, in bytes (servers that do not
# report them: 0).
most_table_bytes = 0


async def status_until(session: ClientSession, done) -> dict:
    global most_table_bytes
    while True:
        status = (await session.call_tool("workspace_status", {})).structured_content
        tables = status.get("memory", {}).get("name_tables") or {}
        most_table_bytes = max(most_table_bytes, tables.get("bytes", 0))
        if done(status):
            return status
        await asyncio.sleep(0.5)


async def run(args: argparse.Namespace) -> None:
    root = args.root.resolve()
    server_args = ["mcp", "--root", str(root), "--no-cache"]
    if not args.background_check:
        server_args.append("--no-background-check")
    if args.max_memory:
        server_args += ["--max-memory", args.max_memory]
    params = StdioServerParameters(command=args.sextant, args=server_args)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.monotonic()
        await status_until(session, lambda s: s.get("ready"))
        print(f"ready after {time.monotonic() - started:.1f} s", flush=True)
        if args.background_check:
            await status_until(
                session,
                lambda s: s.get("checked") or s.get("memory", {}).get("check_paused"),
            )
            _, checked_peak = memory_mb(server_pid(root))
            print(
                f"checked after {time.monotonic() - started:.1f} s, peak so far "
                f"{checked_peak:.0f} MB, name tables at most {most_table_bytes / 1e6:.0f} MB "
                "at a poll",
                flush=True,
            )
        result = await session.call_tool("find_references", {"query": args.references})
        elapsed = time.monotonic() - started
        status = (await session.call_tool("workspace_status", {})).structured_content
        rss, peak = memory_mb(server_pid(root))
        multiple = f" ({peak / args.text_mb:.1f}x the text)" if args.text_mb else ""
        print(
            f"{args.sextant}: {elapsed:.1f} s, RSS {rss:.0f} MB, peak {peak:.0f} MB{multiple}, "
            f"references error: {result.is_error}, found: {(result.structured_content or {}).get('total')}, "
            f"checked: {status.get('checked')}, "
            f"paused: {status.get('memory', {}).get('check_paused')}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--no-background-check", dest="background_check", action="store_false")
    parser.add_argument("--max-memory")
    parser.add_argument("--references", default="posixpath.join")
    parser.add_argument("--text-mb", type=float, help="indexed text (`sextant stats`), for the multiple")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
