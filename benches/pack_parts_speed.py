#!/usr/bin/env python3
"""What answering a pack in parts costs: the same `pack_context` (100 files of the Python
standard library as optional `either` entries under a large budget) on two warm servers in
the same run, one whose `--max-answer-tokens` holds the whole pack (the baseline) and one
with a smaller cap, which cuts the pack into parts and answers with a summary; then reading
every part with `resources/read`. Medians of the warm runs, and their ratios to the
baseline. The parts are checked to be, together, the baseline's text.

    target/test-venv/bin/python benches/pack_parts_speed.py --sextant target/release/sextant \
        [--root PYTHON_STDLIB] [--files 100] [--max-tokens 200000] [--cap 20000] [--runs 7]
"""

import argparse
import os
import statistics
import sysconfig
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def timed(runs: int, call) -> tuple[list[float], object]:
    await call()  # warms the memoized skeletons and counts
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await call()
        times.append(time.perf_counter() - started)
    return times, result


async def session_times(args, cap: int, read_parts: bool) -> dict:
    params = StdioServerParameters(
        command=args.sextant,
        args=["mcp", "--root", args.root, "--exclude", "site-packages/", "--no-background-check",
              "--max-answer-tokens", str(cap)],
    )
    files = sorted(str(p.relative_to(args.root)) for p in Path(args.root).glob("*.py"))[: args.files]
    entries = [{"path": f, "mode": "either", "priority": (i * 37) % 101} for i, f in enumerate(files)]
    request = {"tasks": [{"optional": entries}], "max_tokens": args.max_tokens}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while not (await session.call_tool("workspace_status", {})).structured_content["ready"]:
                    await anyio.sleep(0.5)
                pack_times, result = await timed(args.runs, lambda: session.call_tool("pack_context", request))
                assert not result.is_error, result.content
                out = {"pack": pack_times, "answer": result.structured_content, "text": result.content[0].text}
                if read_parts:
                    uris = [p["uri"] for p in result.structured_content["parts"]]

                    async def read_all():
                        return [(await session.read_resource(uri)).contents[0].text for uri in uris]

                    out["read"], texts = await timed(args.runs, read_all)
                    out["text"] = "".join(texts)
                return out


def ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", default="target/release/sextant")
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--max-tokens", type=int, default=200_000)
    parser.add_argument("--cap", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    whole = anyio.run(session_times, args, args.max_tokens, False)
    parts = anyio.run(session_times, args, args.cap, True)
    assert parts["text"] == whole["text"], "the parts are not the pack"
    answer = parts["answer"]
    base = ms(whole["pack"])
    print(f"pack of {args.files} files under {args.max_tokens} tokens: {answer['pack_tokens']} tokens, "
          f"{len(answer['parts'])} parts under a cap of {args.cap}")
    print(f"one answer (baseline): median {base:.0f} ms")
    print(f"in parts: median {ms(parts['pack']):.0f} ms ({ms(parts['pack']) / base:.2f}x)")
    print(f"reading every part: median {ms(parts['read']):.0f} ms ({ms(parts['read']) / base:.2f}x)")


if __name__ == "__main__":
    main()
