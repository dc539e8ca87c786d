#!/usr/bin/env python3
"""What `read_symbol` saves: 20 questions that each need one definition's body, answered by
`read_symbol` through the MCP Python SDK, against reading the file that holds it (its whole
text, as an agent without sextant would). Both counted exactly in o200k_base by the
reference tokenizer (tests/oracle/reference_tokens.mjs).

    target/test-venv/bin/python benches/read_savings.py --sextant target/release/sextant \
        [--root PYTHON_STDLIB] [--no-background-check]

Prints each question's tokens both ways and the ratio of the totals.
"""

import argparse
import json
import os
import subprocess
import sysconfig
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "oracle" / "reference_tokens.mjs"

# Definitions of the Python standard library an agent might need to read, by the name
# `read_symbol` takes (module-qualified where the bare name is defined more than once).
QUESTIONS = [
    "posixpath.join", "shutil.copytree", "subprocess.run", "textwrap.dedent",
    "ArgumentParser.parse_known_args", "collections.namedtuple", "functools.lru_cache",
    "json.dumps", "os.makedirs", "Logger.callHandlers", "pathlib.Path.glob", "tempfile.mkdtemp",
    "dataclasses.dataclass", "ast.literal_eval", "string.Template.substitute",
    "heapq.nlargest", "fnmatch.translate", "glob.glob", "csv.DictReader.__next__",
    "urllib.parse.urlsplit",
]


def reference_counts(paths: list[str]) -> list[int]:
    requests = "".join(json.dumps({"encoding": "o200k_base", "path": p}) + "\n" for p in paths)
    out = subprocess.run(["node", str(REFERENCE)], input=requests, capture_output=True, text=True, check=True)
    return [json.loads(line)["tokens"] for line in out.stdout.splitlines()]


async def answers(sextant: str, root: str, server_args: list[str]) -> list[dict]:
    args = ["mcp", "--root", root, "--exclude", "site-packages/", *server_args]
    params = StdioServerParameters(command=sextant, args=args)
    found = []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while not (await session.call_tool("workspace_status", {})).structured_content["ready"]:
                    await anyio.sleep(0.5)
                for name in QUESTIONS:
                    started = time.perf_counter()
                    result = await session.call_tool("read_symbol", {"targets": [{"symbol": name}]})
                    elapsed = time.perf_counter() - started
                    data = result.structured_content or {}
                    text = result.content[0].text if result.content else ""
                    found.append({"name": name, "error": result.is_error, "data": data, "text": text, "ms": elapsed * 1000})
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/release/sextant")
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--no-background-check", action="store_true", help="start the server with it")
    args = parser.parse_args()
    server_args = ["--no-background-check"] if args.no_background_check else []
    results = anyio.run(answers, args.sextant, args.root, server_args)
    files = [str(Path(args.root) / r["data"]["pieces"][0]["path"]) for r in results if r["data"].get("pieces")]
    file_tokens = iter(reference_counts(files))
    total_read = total_files = 0
    print(f"{'question':<34} {'read_symbol':>11} {'file':>8} {'ratio':>7} {'ms':>7}")
    for r in results:
        pieces = r["data"].get("pieces") or []
        if r["error"] or len(pieces) != 1:
            print(f"{r['name']:<34} not one definition: {r['data'].get('ambiguous') or r['data'] or r['text']}")
            continue
        read, whole = r["data"]["tokens"], next(file_tokens)
        total_read += read
        total_files += whole
        print(f"{r['name']:<34} {read:>11} {whole:>8} {whole / read:>6.1f}x {r['ms']:>7.1f}")
    print(f"{'all':<34} {total_read:>11} {total_files:>8} {total_files / max(total_read, 1):>6.1f}x")


if __name__ == "__main__":
    main()
