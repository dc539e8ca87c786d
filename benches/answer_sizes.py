#!/usr/bin/env python3
"""Size of each tool's answers as a model reads them, on the largest files of a Python tree.

    target/test-venv/bin/python benches/answer_sizes.py --sextant target/debug/sextant \\
        --tree /tmp/stdlib [--files 20] [--arguments '{"positions": "full"}']

Copies the `--files` largest `.py` files of `--tree` (a copy of the Python standard library,
say) into a temporary workspace, serves it with `sextant mcp` over stdio through the MCP
Python SDK, and calls every tool with its default arguments (plus `--arguments`, given to
each call): `outline` on each file (its first page, and all pages by `next_offset`),
`parse_source` on each file by path, `lookup_symbol` with a few queries. An answer's size is
its text content, the JSON a model is shown. Prints, per tool, the median and largest answer
in characters and in tokens: cl100k_base tokens when a tokenizer with that encoding works
offline (tiktoken, or bpe-openai's tiktoken-compatible one), and always an estimate at 4
characters per token.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

QUERIES = ["test", "parse", "__init__", "get", "Decimal", "setUp", "read", "x"]


def token_counter():
    """(name, count) for a cl100k_base tokenizer that works offline, or None."""
    for module in ("tiktoken", "bpe_openai"):
        try:
            encoding = __import__(module).get_encoding("cl100k_base")
            encoding.encode("probe")
            return f"cl100k_base via {module}", lambda text: len(encoding.encode(text))
        except Exception:
            continue
    return None


def largest_files(tree: Path, count: int) -> list[Path]:
    files = [p for p in tree.rglob("*.py") if p.is_file() and not p.is_symlink()]
    files.sort(key=lambda p: (-p.stat().st_size, str(p)))
    return [p.relative_to(tree) for p in files[:count]]


def answer_text(result) -> str:
    if result.is_error:
        raise RuntimeError(f"tool error: {result.content[0].text}")
    return result.content[0].text


async def measure(sextant: str, root: Path, files: list[Path], extra: dict) -> dict:
    answers = {"outline": [], "outline (all pages)": [], "parse_source": [], "lookup_symbol": []}
    params = StdioServerParameters(command=sextant, args=["mcp", "--root", str(root)])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                deadline = time.monotonic() + 600
                while True:
                    status = await session.call_tool("workspace_status", {})
                    if json.loads(answer_text(status))["ready"]:
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError("the index was not ready within 600 s")
                    await anyio.sleep(0.5)
                for path in files:
                    pages, offset = [], None
                    while True:
                        args = {"path": str(path), **extra}
                        if offset is not None:
                            args["offset"] = offset
                        text = answer_text(await session.call_tool("outline", args))
                        pages.append(text)
                        offset = json.loads(text).get("next_offset")
                        if offset is None:
                            break
                    answers["outline"].append((str(path), pages[0]))
                    answers["outline (all pages)"].append((f"{path} ({len(pages)} pages)", "".join(pages)))
                    text = answer_text(
                        await session.call_tool("parse_source", {"path": str(path), **extra})
                    )
                    answers["parse_source"].append((str(path), text))
                for query in QUERIES:
                    text = answer_text(
                        await session.call_tool("lookup_symbol", {"query": query, **extra})
                    )
                    answers["lookup_symbol"].append((repr(query), text))
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/debug/sextant")
    parser.add_argument("--tree", default="/tmp/stdlib")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--arguments", default="{}", help="JSON object added to every call")
    parser.add_argument("--detail", action="store_true", help="also print every answer's size")
    args = parser.parse_args()
    extra = json.loads(args.arguments)
    files = largest_files(Path(args.tree), args.files)
    if not files:
        sys.exit(f"no .py files under {args.tree}")
    with tempfile.TemporaryDirectory() as root:
        for rel in files:
            (Path(root) / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(args.tree) / rel, Path(root) / rel)
        answers = anyio.run(measure, args.sextant, Path(root), files, extra)

    counter = token_counter()
    tokens_label = counter[0] if counter else "unavailable offline"
    print(f"{len(files)} largest .py files of {args.tree}; extra arguments {json.dumps(extra)}")
    print(f"tokens: cl100k = {tokens_label}; est = characters / 4")
    header = f"{'tool':<20} {'answers':>7} {'median chars':>12} {'max chars':>10} {'median est':>10} {'max est':>8}"
    if counter:
        header += f" {'median cl100k':>13} {'max cl100k':>10}"
    print(header)
    for tool, items in answers.items():
        chars = [len(text) for _, text in items]
        row = (
            f"{tool:<20} {len(items):>7} {statistics.median(chars):>12.0f} {max(chars):>10}"
            f" {statistics.median(chars) / 4:>10.0f} {max(chars) / 4:>8.0f}"
        )
        if counter:
            tokens = [counter[1](text) for _, text in items]
            row += f" {statistics.median(tokens):>13.0f} {max(tokens):>10}"
        print(row)
    if args.detail:
        for tool, items in answers.items():
            for label, text in items:
                print(f"  {tool:<20} {len(text):>8} {label}")


if __name__ == "__main__":
    main()
