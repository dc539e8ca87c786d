#!/usr/bin/env python3
"""How soon a restarted `sextant mcp` answers, cold and from its persistent cache.

    python3 benches/mcp_warm_start.py --sextant target/release/sextant [--root DIR]
        [--symbol join] [--name posixpath.join]

Starts a server on --root (default: this interpreter's standard library) with an empty
cache directory, times from the process's start to its first `lookup_symbol` answer and then
to its first `find_references` answer, and stops it once it has saved (the background check
done and the server idle). Then starts a second server on the same root and cache and times
the same two answers: a restart on an unchanged tree. While a first index runs,
`lookup_symbol` answers from the files indexed so far (marked `partial`): the first answer's
time and coverage are printed, and it is asked again until an answer covers every file
(`lookup_symbol s`). Both servers' complete answers must be equal
(the script exits 1 otherwise and prints what differs; a cold answer can be a `TIMEOUT`
error on a tree whose first index outlasts the request limit). `ctags -R` over the same
tree is timed as the baseline a warm start should beat.

With `--edit-files N`, a third server starts after N of the root's Python files were edited
while no server ran (a function added to each: run it on a copy of a tree, as the files are
written; they are put back, with their times, at the end): its answers must find the added
functions, and its times are printed beside the warm ones.
"""

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

import anyio
from mcp_session import quiet_session


async def session_times(args, cache: str, wait_for_save: bool) -> dict:
    found = {}
    server = ["mcp", "--root", args.root, "--cache-dir", cache]
    async with quiet_session(args.sextant, server) as (session, started):
        symbols = await session.call_tool("lookup_symbol", {"query": args.symbol})
        found["first lookup_symbol s"] = time.perf_counter() - started
        partial = (symbols.structured_content or {}).get("partial")
        found["first lookup covers"] = (
            f"{partial['files_indexed']} of {partial['files_total']} files" if partial else "every file"
        )
        # While the first index runs, answers cover the files indexed so far: ask
        # again until one covers them all.
        while partial:
            await anyio.sleep(0.05)
            symbols = await session.call_tool("lookup_symbol", {"query": args.symbol})
            partial = (symbols.structured_content or {}).get("partial")
        found["lookup_symbol s"] = time.perf_counter() - started
        refs = await session.call_tool("find_references", {"query": args.name, "exact_only": True})
        found["find_references s"] = time.perf_counter() - started
        found["answers"] = tuple(
            answer.structured_content if not answer.is_error else {"error": answer.content[0].text}
            for answer in (symbols, refs)
        )
        # Until the server has checked every file and saved: its status says both.
        for _ in range(3000):
            status = (await session.call_tool("workspace_status", {})).structured_content
            cache_status = status.get("cache") or {}
            if status["checked"] and (cache_status.get("saves", 0) >= 2 or not wait_for_save):
                break
            await anyio.sleep(0.1)
        found["status"] = status
        found["checked s"] = time.perf_counter() - started
    return found


def edit_files(root: str, count: int) -> list[tuple[str, bytes, os.stat_result]]:
    """Adds `def sextant_edited_N(): ...` to the first `count` Python files by path that the
    server indexes (not under a hidden directory, which its walk skips); returns what puts
    them back."""
    chosen = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                chosen.append(os.path.join(dirpath, name))
        if len(chosen) >= count:
            break
    saved = []
    for i, path in enumerate(chosen[:count]):
        with open(path, "rb") as f:
            original = f.read()
        saved.append((path, original, os.stat(path)))
        with open(path, "ab") as f:
            f.write(f"\n\ndef sextant_edited_{i}():\n    return {i}\n".encode())
    return saved


def restore(saved: list[tuple[str, bytes, os.stat_result]]) -> None:
    for path, original, stat in saved:
        with open(path, "wb") as f:
            f.write(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--symbol", default="join")
    parser.add_argument("--name", default="posixpath.join")
    parser.add_argument("--edit-files", type=int, default=0, metavar="N")
    args = parser.parse_args()
    args.root = os.path.realpath(args.root)
    edited = None
    with tempfile.TemporaryDirectory() as cache:
        cold = anyio.run(session_times, args, cache, True)
        warm = anyio.run(session_times, args, cache, False)
        if args.edit_files:
            saved = edit_files(args.root, args.edit_files)
            try:
                edited_args = argparse.Namespace(**{**vars(args), "symbol": "sextant_edited_"})
                edited = anyio.run(session_times, edited_args, cache, False)
            finally:
                restore(saved)
    print(f"root: {args.root}")
    header = f"{'':<22} {'cold s':>8} {'warm s':>8}"
    if edited:
        header += f" {f'{len(saved)} edited s':>14}"
    print(header)
    for key in ("first lookup_symbol s", "lookup_symbol s", "find_references s", "checked s"):
        line = f"{key:<22} {cold[key]:>8.2f} {warm[key]:>8.2f}"
        if edited:
            line += f" {edited[key]:>14.2f}"
        print(line)
    if edited:
        found = [s["name"] for s in edited["answers"][0].get("symbols", [])]
        print(f"after the edits, lookup_symbol sextant_edited_ found {len(found)} of {len(saved)} added functions")
        if len(found) != len(saved):
            return 1
    print(f"the first lookup covered: cold {cold['first lookup covers']}, warm {warm['first lookup covers']}")
    print(f"cache after the warm start: {warm['status'].get('cache')}")
    ctags = shutil.which("ctags")
    if ctags:
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            subprocess.run([ctags, "-R", "-f", os.path.join(out, "tags"), args.root], check=False, stderr=subprocess.DEVNULL)
            print(f"{'ctags -R (baseline)':<22} {time.perf_counter() - t:>8.2f}")
    same = cold["answers"] == warm["answers"]
    print("warm answers: " + ("identical to cold ones" if same else "DIFFERENT from cold ones"))
    for tool, c, w in zip(("lookup_symbol", "find_references"), cold["answers"], warm["answers"]):
        for key in sorted(set(c) | set(w)):
            if c.get(key) != w.get(key):
                print(f"  {tool}.{key}: cold {str(c.get(key))[:300]}\n  {'':>{len(tool) + len(key) + 1}}  warm {str(w.get(key))[:300]}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
