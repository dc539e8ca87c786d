#!/usr/bin/env python3
"""How soon a cold `sextant mcp` answers each question, while its first index runs.

    python3 benches/mcp_first_answers.py --sextant target/release/sextant \
        [--baseline OTHER_BUILD] --root DIR --file REL --line N --column N

Starts a server with no persistent cache on --root and sends, all at once as it starts,
one call of each tool that answers during the first index: questions about the file
--file (relative to the root; `find_definition` at --line and --column, `read_symbol` at
--line), and a text search for the first definition's name in it. A call that ends in
`TIMEOUT` (the request limit passed while it waited) is sent again; each tool's time is
from the process's start to its first answer, with the number of timeouts before it.
Once the index is ready, each call is asked again: every early answer must equal it (the
script exits 1 otherwise and prints what differs). `lookup_symbol`, and `find_definition`
`read_symbol` and `explore` by the name --pattern ends with, are timed too: before the
index is done, they answer from the files indexed so far (`partial`) once those define the
name, and such an answer must hold only what the answer after the index holds (for
`explore`, its definitions, which the answer after the index may rank otherwise when the
name has more than it shows).

With --baseline, a second build is measured the same way in the same run, on the same
tree (after this build's, or before it with --baseline-first), and the table shows both
and their ratio.
"""

import argparse
import json
import os
import sys
import time

import anyio
from mcp_session import quiet_session


def calls(args) -> list[tuple[str, dict]]:
    path = args.file
    return [
        ("outline", {"path": path}),
        ("parse_source", {"path": path, "max_depth": 2}),
        ("list_imports", {"path": path}),
        ("find_definition", {"path": path, "line": args.line, "column": args.column}),
        ("read_file", {"path": path, "limit": 200}),
        ("read_symbol", {"targets": [{"path": path, "line": args.line}]}),
        ("skeleton", {"paths": [path]}),
        ("format_source", {"path": path, "check": "off"}),
        ("search", {"pattern": args.pattern}),
        ("lookup_symbol", {"query": args.pattern.split()[-1]}),
        ("find_definition by name", {"query": args.pattern.split()[-1]}),
        ("read_symbol by name", {"targets": [{"symbol": args.pattern.split()[-1]}]}),
        ("explore by name", {"terms": [args.pattern.split()[-1]]}),
    ]


def tool(label: str) -> str:
    """The tool a call's label names (`find_definition by name`: `find_definition`)."""
    return label.split()[0]


def within(early: dict, after: dict) -> bool:
    """Whether a partial answer by name holds only what the answer after the index holds:
    its definitions, or its pieces and candidates, among the final ones."""
    if "not_searched" in early:
        if "more_named" in early or "more_named" in after:
            return True
        where = [(d["path"], d["line"]) for d in after["definitions"]]
        return all((d["path"], d["line"]) in where for d in early["definitions"])
    if "definitions" in early:
        return all(d in after["definitions"] for d in early["definitions"])
    final = {json.dumps(p, sort_keys=True) for p in after.get("pieces", [])}
    final |= {json.dumps(c, sort_keys=True) for a in after.get("ambiguous", []) for c in a["candidates"]}
    shown = [json.dumps(p, sort_keys=True) for p in early.get("pieces", [])]
    shown += [json.dumps(c, sort_keys=True) for a in early.get("ambiguous", []) for c in a["candidates"]]
    return all(item in final for item in shown)


def is_timeout(result) -> bool:
    return result.is_error and '"code":"TIMEOUT"' in result.content[0].text


def content(result):
    if result.is_error:
        return {"error": result.content[0].text}
    return result.structured_content


async def first_answers(sextant: str, args) -> dict:
    found = {}
    async with quiet_session(sextant, ["mcp", "--root", args.root, "--no-cache"]) as (session, started):

        async def ask(name, arguments):
            timeouts = 0
            while True:
                result = await session.call_tool(tool(name), arguments)
                if not is_timeout(result):
                    break
                timeouts += 1
            found[name] = (time.perf_counter() - started, timeouts, content(result))

        async with anyio.create_task_group() as group:
            for name, arguments in calls(args):
                group.start_soon(ask, name, arguments)
        while True:
            status = (await session.call_tool("workspace_status", {})).structured_content
            if status["ready"]:
                break
        found["index ready"] = (time.perf_counter() - started, 0, None)
        found["after"] = {}
        for name, arguments in calls(args):
            found["after"][name] = content(await session.call_tool(tool(name), arguments))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--root", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--line", type=int, required=True)
    parser.add_argument("--column", type=int, required=True)
    parser.add_argument("--pattern", required=True, help="the text `search` and `lookup_symbol` look for")
    parser.add_argument("--baseline-first", action="store_true", help="start the baseline's server first")
    args = parser.parse_args()
    args.root = os.path.realpath(args.root)
    builds = [("this build", args.sextant)] + ([("baseline", args.baseline)] if args.baseline else [])
    order = list(reversed(builds)) if args.baseline_first else builds
    runs = {label: anyio.run(first_answers, sextant, args) for label, sextant in order}
    print(f"root: {args.root}, file: {args.file}")
    header = f"{'first answer, s (timeouts)':<28}" + "".join(f"{label:>18}" for label, _ in builds)
    print(header + (f"{'baseline / this':>18}" if args.baseline else ""))
    exact = True
    for name in [name for name, _ in calls(args)] + ["index ready"]:
        row = f"{name:<28}"
        for label, _ in builds:
            seconds, timeouts, _ = runs[label][name]
            row += f"{f'{seconds:.2f} ({timeouts})':>18}"
        if args.baseline:
            row += f"{runs['baseline'][name][0] / runs['this build'][name][0]:>17.1f}x"
        print(row)
    for label, _ in builds:
        for name, _ in calls(args):
            early, after = runs[label][name][2], runs[label]["after"][name]
            if "partial" in (early or {}):
                covered = early["partial"]
                print(f"{label}: {name}'s first answer searched {covered['files_indexed']} of {covered['files_total']} files")
                if name != "lookup_symbol" and not within(early, after):
                    exact = False
                    print(f"  it holds what the answer after the index DOES NOT: {json.dumps(early)[:300]}")
                continue
            if early != after:
                exact = False
                print(f"{label}: {name}'s first answer DIFFERS from the one after the index:")
                print(f"  first {json.dumps(early)[:300]}\n  after {json.dumps(after)[:300]}")
    print("every first answer equals the answer after the index" if exact else "some answers differ")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
