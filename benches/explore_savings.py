#!/usr/bin/env python3
"""What `explore` costs an agent against reading the files it draws on, on ten questions about
the standard library.

    target/test-venv/bin/python benches/explore_savings.py --sextant target/release/sextant \\
        [--root DIR] [--max-tokens 8000]

Serves `--root` (default this interpreter's standard library, without `site-packages` and
`test/`) with `sextant mcp` through the MCP Python SDK and asks `explore` for each question's
terms (the names a person asking it would write). For each it prints the answer's exact
tokens beside `files_tokens` (the files holding the definitions it found, read whole: what an
agent that opens them pays), the definitions found and how they went in, the call paths and
the dependents listed, and the round trip. A question whose answer holds none of its terms'
definitions in full is counted as a miss.
"""

import argparse
import os
import sysconfig
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

QUESTIONS = [
    ("How does json.loads turn text into objects?", ["json.loads", "JSONDecoder.decode", "JSONDecoder.raw_decode"]),
    ("What does posixpath.join do with absolute parts?", ["posixpath.join", "posixpath.normpath"]),
    ("How does shutil.copytree copy each file?", ["shutil.copytree", "shutil.copy2", "shutil.copystat"]),
    ("How are subprocess.run's timeouts handled?", ["subprocess.run", "Popen.communicate", "Popen.kill"]),
    ("Where does a logger pass a record to its handlers?", ["Logger.handle", "Logger.callHandlers", "Handler.handle"]),
    ("How does textwrap.wrap split long words?", ["textwrap.wrap", "TextWrapper.wrap", "TextWrapper._wrap_chunks"]),
    ("How does csv.DictReader build each row?", ["DictReader.__next__", "DictReader.fieldnames"]),
    ("How does urlsplit parse a netloc?", ["urllib.parse.urlsplit", "_splitnetloc"]),
    ("How does argparse parse known arguments?", ["ArgumentParser.parse_known_args", "ArgumentParser._parse_known_args"]),
    ("How does a Thread start and join?", ["Thread.start", "Thread.join", "Thread._wait_for_tstate_lock"]),
]


async def main(args):
    root = Path(args.root or sysconfig.get_paths()["stdlib"])
    params = StdioServerParameters(
        command=args.sextant, args=["mcp", "--root", str(root), "--exclude", "site-packages/", "--exclude", "test/"]
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                while True:
                    status = await session.call_tool("workspace_status", {})
                    if not status.is_error and (status.structured_content or {}).get("ready"):
                        break
                    await anyio.sleep(0.5)
                total_answer = total_files = misses = 0
                for question, terms in QUESTIONS:
                    started = time.perf_counter()
                    result = await session.call_tool("explore", {"terms": terms, "max_tokens": args.max_tokens})
                    elapsed = (time.perf_counter() - started) * 1000
                    if result.is_error:
                        print(f"{question}\n  error: {result.content[0].text}")
                        misses += 1
                        continue
                    data = result.structured_content
                    full = sum(1 for d in data["definitions"] if d["shown"] == "full")
                    misses += full == 0
                    total_answer += data["tokens"]
                    total_files += data["files_tokens"]
                    print(f"{question}\n  {data['tokens']} tokens vs {data['files_tokens']} for the files whole "
                          f"({data['tokens'] / max(data['files_tokens'], 1):.2f}); {len(data['definitions'])} definitions "
                          f"({full} in full), {len(data['call_paths'])} call paths, {data['dependents_shown']} of "
                          f"{data['dependents']} dependents; not found {data.get('not_found', [])}; {elapsed:.0f} ms")
                print(f"all: {total_answer} tokens vs {total_files} ({total_answer / max(total_files, 1):.2f}); "
                      f"{misses} questions with no definition in full")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sextant", required=True)
    ap.add_argument("--root")
    ap.add_argument("--max-tokens", type=int, default=8000)
    anyio.run(main, ap.parse_args())
