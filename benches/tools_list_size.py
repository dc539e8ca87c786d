#!/usr/bin/env python3
"""Size of `tools/list` as a model sees it: each tool's name, description and input schema,
serialized as compact JSON, fetched from `sextant mcp` with the MCP Python SDK.

    python3 benches/tools_list_size.py --sextant target/debug/sextant

Prints characters per tool and in all, and exact tokens in o200k_base, counted by the
reference tokenizer (tests/oracle/reference_tokens.mjs, js-tiktoken, installed by
scripts/test); without Node.js, estimated at 4 characters per token (and labelled so).
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "oracle" / "reference_tokens.mjs"


def token_counter():
    """The reference tokenizer's o200k_base count, or None without Node.js."""
    if not shutil.which("node"):
        return None

    def count(text: str) -> int:
        request = json.dumps({"encoding": "o200k_base", "text": text}) + "\n"
        out = subprocess.run(["node", str(REFERENCE)], input=request, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)["tokens"]

    return count


async def model_view(sextant: str) -> list[dict]:
    with tempfile.TemporaryDirectory() as root:
        params = StdioServerParameters(command=sextant, args=["mcp", "--root", root])
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
    return [
        {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
        for t in sorted(listed.tools, key=lambda t: t.name)
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/debug/sextant")
    args = parser.parse_args()
    tools = anyio.run(model_view, args.sextant)
    count = token_counter()
    unit = "tokens (o200k_base)" if count else "tokens (estimated, 4 characters each)"
    count = count or (lambda text: round(len(text) / 4))

    def line(label: str, text: str):
        print(f"{label:<18} {len(text):>6} characters {count(text):>6} {unit}")

    for tool in tools:
        line(tool["name"], json.dumps(tool, separators=(",", ":")))
    line("all tools", json.dumps(tools, separators=(",", ":")))


if __name__ == "__main__":
    main()
