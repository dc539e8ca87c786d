#!/usr/bin/env python3
"""How long `impact`, `call_graph` and `changes` take to answer on a warm server, against
`find_references` of the same name in the same run (the search every one of them builds on).

    target/test-venv/bin/python benches/impact_latency.py --sextant target/release/sextant \\
        [--source DIR] [--name posixpath.join] [--files 20] [--removed 0] [--calls 20]

Copies `--source` (default this interpreter's standard library, without `site-packages` and
`test/`) into a temporary git repository (made with git here: sextant itself never runs
it), commits it, then changes `--files` Python files in the working tree (a line added to
the first function of each) and, with `--removed N`, deletes the last top-level function of
N files (whose callers `changes` then finds on the old texts), serves the copy with `sextant mcp` over stdio through the MCP
Python SDK, waits for the index, and asks each tool `--calls` times after one warming call:
`find_references` of `--name` (the baseline), `impact` of it (following calls matched by
name, then with `exact`), `call_graph` of it (incoming, depth 2), and `changes` of the
working tree. Prints the median and slowest round trip of each, its ratio to the
baseline's median, and the server's CPU time per call (from `/proc`, which a busy machine
inflates far less than the round trip).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def server_cpu_seconds() -> float:
    """User and system CPU time of this process's children (the server), from `/proc`."""
    me = os.getpid()
    total = 0
    for child in open(f"/proc/{me}/task/{me}/children").read().split():
        fields = open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def git(root: Path, *args: str):
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "core.hooksPath=/dev/null",
         "-c", "commit.gpgsign=false", *args],
        cwd=root, check=True, capture_output=True,
    )


def change_files(root: Path, count: int) -> int:
    """Adds a statement to the first function of `count` files; returns how many changed."""
    changed = 0
    for path in sorted(root.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        match = re.search(r"^( *)def \w+\([^)]*\)[^:\n]*:\n((?:\1 +.*\n)+?)", text, re.M)
        if not match:
            continue
        body_indent = re.match(r" *", match.group(2)).group(0)
        at = match.end()
        path.write_text(text[:at] + f"{body_indent}_changed = {changed}\n" + text[at:], encoding="utf-8")
        changed += 1
        if changed == count:
            break
    return changed


def remove_functions(root: Path, count: int) -> int:
    """Deletes the last top-level function of `count` files; returns how many changed."""
    removed = 0
    for path in sorted(root.rglob("*.py")):
        if removed == count:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        matches = list(re.finditer(r"^def \w+\([^)]*\)[^:\n]*:\n(?:(?:[ \t].*)?\n)*", text, re.M))
        if not matches:
            continue
        last = matches[-1]
        path.write_text(text[: last.start()] + text[last.end():], encoding="utf-8")
        removed += 1
    return removed


async def timed(session, tool: str, arguments: dict, calls: int):
    result = await session.call_tool(tool, arguments)  # warms what the tool memoizes
    assert not result.is_error, (tool, result.content)
    cpu_before = server_cpu_seconds()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await session.call_tool(tool, arguments)
        times.append((time.perf_counter() - started) * 1000)
        assert not result.is_error, (tool, result.content)
    cpu = (server_cpu_seconds() - cpu_before) * 1000 / calls
    return statistics.median(times), max(times), cpu, result.structured_content


async def main(args):
    source = Path(args.source or sysconfig.get_paths()["stdlib"])
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("site-packages", "test", "__pycache__", "*.pyc"))
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
        changed = change_files(root, args.files)
        removed = remove_functions(root, args.removed)
        params = StdioServerParameters(command=args.sextant, args=["mcp", "--root", str(root)])
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    while True:
                        status = await session.call_tool("workspace_status", {})
                        content = status.structured_content or {}
                        if not status.is_error and content.get("ready"):
                            break
                        await anyio.sleep(0.5)
                    runs = [
                        ("find_references (baseline)", "find_references", {"query": args.name, "exact_only": True}),
                        ("impact", "impact", {"symbols": [args.name]}),
                        ("impact, exact", "impact", {"symbols": [args.name], "exact": True}),
                        ("call_graph incoming, depth 2", "call_graph",
                         {"query": args.name, "direction": "incoming", "depth": 2}),
                        (f"changes ({changed} files changed, {removed} functions removed)", "changes", {}),
                    ]
                    baseline = None
                    for label, tool, arguments in runs:
                        median, slowest, cpu, data = await timed(session, tool, arguments, args.calls)
                        baseline = baseline or median
                        detail = {
                            "find_references": lambda d: f"{d['total']} references",
                            "impact": lambda d: f"{d['total']} dependents ({d['heuristic']} by name), {d['tests']} tests",
                            "call_graph": lambda d: f"{len(d['nodes'])} definitions, {len(d['edges'])} edges",
                            "changes": lambda d: f"{sum(len(f['definitions']) for f in d['files'])} changed definitions, "
                            f"{d['impact']['total']} dependents",
                        }[tool](data)
                        print(f"{label}: median {median:.1f} ms ({median / baseline:.2f}x baseline), slowest {slowest:.1f} ms, "
                              f"server CPU {cpu:.1f} ms per call; {detail}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--source")
    ap.add_argument("--name", default="posixpath.join")
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--removed", type=int, default=0)
    ap.add_argument("--calls", type=int, default=20)
    anyio.run(main, ap.parse_args())
