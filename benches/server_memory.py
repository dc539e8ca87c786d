"""Resident memory of `sextant mcp` on a real tree: after the first index, after a series of
`rename_symbol` dry runs, and after the background check has checked every file; each time
also after the server has been idle for a few seconds (it then drops memoized answers beyond
their bounds and gives freed memory back, `evictions` in `workspace_status`).

    target/test-venv/bin/python benches/server_memory.py --sextant target/release/sextant \
        --root "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"

site-packages/ is left out, so the tree is the standard library alone.

Prints one line per step: the step, its wall time and the server's VmRSS and VmHWM (peak)
in MB, read from /proc. Each server is started afresh (stdio, the official MCP SDK)."""

import argparse
import asyncio
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# Module-level functions of the standard library, renamed by qualified name (dry runs).
NAMES = [
    "urllib.parse.urlsplit", "json.dumps", "json.loads", "posixpath.join", "shutil.copyfile",
    "textwrap.dedent", "base64.b64encode", "copy.deepcopy", "fnmatch.fnmatch", "glob.glob",
    "tempfile.mkdtemp", "shlex.split", "inspect.signature", "functools.wraps", "heapq.heappush",
    "bisect.insort", "random.shuffle", "re.compile", "os.makedirs", "csv.reader",
    "string.capwords", "difflib.unified_diff", "pprint.pformat", "zipfile.is_zipfile",
]

# Longer than the server waits before evicting (one second), with room for a loaded machine.
IDLE_SECONDS = 3


def memory(pid: int) -> tuple[float, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    to_mb = lambda v: int(v.split()[0]) / 1024
    return to_mb(fields["VmRSS"]), to_mb(fields["VmHWM"])


def server_pid(root: Path) -> int:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(cmd) > 3 and cmd[1] == b"mcp" and str(root).encode() in cmd:
            return int(proc.name)
    raise SystemExit("the server's process was not found")


async def status_until(session: ClientSession, key: str) -> None:
    while not (await session.call_tool("workspace_status", {})).structured_content.get(key):
        await asyncio.sleep(0.2)


async def run(sextant: str, root: Path, background: bool, renames: int) -> None:
    args = ["mcp", "--root", str(root), "--exclude", "site-packages/"]
    args += [] if background else ["--no-background-check"]
    params = StdioServerParameters(command=sextant, args=args)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.monotonic()
        await status_until(session, "ready")
        pid = server_pid(root)
        label = "background check on" if background else "background check off"
        print(f"{label}: indexed in {time.monotonic() - started:.1f} s: RSS %.0f MB, peak %.0f MB" % memory(pid))
        if background:
            await status_until(session, "checked")
            print(f"{label}: checked after {time.monotonic() - started:.1f} s: RSS %.0f MB, peak %.0f MB" % memory(pid))
            await idle(pid, label)
            return
        for n, name in enumerate(NAMES[:renames], 1):
            began = time.monotonic()
            result = await session.call_tool("rename_symbol", {"query": name, "new_name": "renamed_for_bench"})
            outcome = "ok" if not result.is_error else "refused"
            rss, peak = memory(pid)
            print(f"rename {n:2} {name:24} {outcome:7} {time.monotonic() - began:5.1f} s: RSS {rss:.0f} MB, peak {peak:.0f} MB")
        await idle(pid, label)


async def idle(pid: int, label: str) -> None:
    await asyncio.sleep(IDLE_SECONDS)
    print(f"{label}: idle {IDLE_SECONDS} s: RSS %.0f MB, peak %.0f MB" % memory(pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--renames", type=int, default=len(NAMES))
    args = parser.parse_args()
    root = args.root.resolve()
    asyncio.run(run(args.sextant, root, background=False, renames=args.renames))
    asyncio.run(run(args.sextant, root, background=True, renames=0))


if __name__ == "__main__":
    main()
