"""Renames random top-level functions of a copy of the CPython standard library through
`sextant mcp` (`rename_symbol` with `apply: true`, one server, the live index following
each write), then checks each written rename with two oracles:

- pyflakes: no undefined name appears in a changed file that was not there before;
- jedi: every place jedi calls a reference of the function (asked before the rename) now
  holds the new name, none the old one.

Usage (a copy: the files are rewritten):
    cp -r "$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["stdlib"])')" /tmp/stdlib
    SEXTANT_BIN=target/release/sextant target/test-venv/bin/python \\
        tests/oracle/rename_stdlib.py /tmp/stdlib --count 30 --seed 1

Prints one line per rename and the totals: applied, refused (by code), new undefined names,
references jedi found and those left under the old name.
"""

import argparse
import ast
import collections
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import jedi
from mcp import ClientSession, StdioServerParameters, stdio_client

SEXTANT = os.environ.get("SEXTANT_BIN", "target/release/sextant")
SKIP_DIRS = {"test", "tests", "idlelib", "lib2to3", "site-packages", "__pycache__", "turtledemo"}


def candidates(root: Path) -> list[tuple[str, str, int, int]]:
    """(path, name, line, column) of module-level functions of importable modules."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if SKIP_DIRS & set(rel.parts[:-1]) or rel.name.startswith("test_"):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        text = path.read_text(encoding="utf-8").splitlines()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("__"):
                line = text[node.lineno - 1]
                column = line.find(node.name, line.find("def ") + 4)
                if column >= 0:
                    found.append((str(rel), node.name, node.lineno, column + 1))
    return found


def undefined_names(root: Path, files: list[str]) -> collections.Counter:
    """pyflakes' undefined names in `files`, by (file, name)."""
    counts = collections.Counter()
    if not files:
        return counts
    run = subprocess.run(
        [sys.executable, "-m", "pyflakes", *files], cwd=root, capture_output=True, text=True
    )
    for line in run.stdout.splitlines():
        match = re.match(r"(.+?):\d+:(?:\d+:)? undefined name '(.+)'", line)
        if match:
            counts[(match.group(1), match.group(2))] += 1
    return counts


def jedi_references(project: jedi.Project, root: Path, path: str, line: int, column: int):
    """(file, line) → how many references jedi finds there, the definition included."""
    script = jedi.Script(path=str(root / path), project=project)
    per_line = collections.Counter()
    for ref in script.get_references(line, column - 1, scope="project"):
        if ref.module_path is None:
            continue
        try:
            rel = str(Path(ref.module_path).relative_to(root))
        except ValueError:
            continue
        per_line[(rel, ref.line)] += 1
    return per_line


def words(root: Path, rel: str, line: int, name: str, new_name: str) -> int:
    """How many times `name` stands as a word on the line, not counting `name as new_name`:
    an import of the old name from another module (`from _c import f` bound over the
    renamed `def f`) keeps importing it and binds the new name."""
    try:
        text = (root / rel).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 0
    if line - 1 >= len(text):
        return 0
    pattern = rf"(?<![\w$]){re.escape(name)}(?![\w$])(?!\s+as\s+{re.escape(new_name)}(?![\w$]))"
    return len(re.findall(pattern, text[line - 1]))


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    root = args.root.resolve()
    pool = candidates(root)
    random.Random(args.seed).shuffle(pool)
    # The copy, not the installed library, is what imports of the standard library find.
    project = jedi.Project(str(root), sys_path=[str(root)], smart_sys_path=False)
    totals = collections.Counter()
    refused = collections.Counter()
    params = StdioServerParameters(
        command=SEXTANT, args=["mcp", "--root", str(root), "--request-timeout-ms", "600000", "--max-response-chars", "5000000"]
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                started = time.monotonic()
                while True:
                    status = await session.call_tool("workspace_status", {})
                    if not status.is_error and status.structured_content["ready"]:
                        break
                    await anyio.sleep(0.5)
                print(f"indexed in {time.monotonic() - started:.1f} s", flush=True)
                done = 0
                for path, name, line, column in pool:
                    if done >= args.count:
                        break
                    done += 1
                    new_name = f"{name}_renamed"
                    before_refs = jedi_references(project, root, path, line, column)
                    before_words = {key: words(root, key[0], key[1], name, new_name) for key in before_refs}
                    started = time.monotonic()
                    dry = await session.call_tool(
                        "rename_symbol", {"path": path, "line": line, "column": column, "new_name": new_name}
                    )
                    if dry.is_error:
                        code = json.loads(dry.content[0].text)["code"]
                        refused[code] += 1
                        print(f"{path}:{line} {name}: refused {code}", flush=True)
                        continue
                    files = dry.structured_content["files"]
                    undefined_before = undefined_names(root, files)
                    result = await session.call_tool(
                        "rename_symbol",
                        {"path": path, "line": line, "column": column, "new_name": new_name, "apply": True},
                    )
                    elapsed = time.monotonic() - started
                    if result.is_error:
                        code = json.loads(result.content[0].text)["code"]
                        refused[code] += 1
                        print(f"{path}:{line} {name}: not applied {code}", flush=True)
                        continue
                    totals["applied"] += 1
                    answer = result.structured_content
                    totals["edits"] += len(answer["edits"])
                    totals["files"] += len(files)
                    undefined_after = undefined_names(root, files)
                    new_undefined = sum((undefined_after - undefined_before).values())
                    totals["new_undefined"] += new_undefined
                    jedi_total = sum(before_refs.values())
                    left = 0
                    for key, count in before_refs.items():
                        gone = before_words[key] - words(root, key[0], key[1], name, new_name)
                        left += max(0, count - gone)
                    totals["jedi_references"] += jedi_total
                    totals["left_under_old_name"] += left
                    print(
                        f"{path}:{line} {name}: {len(answer['edits'])} edits in {len(files)} files, "
                        f"{elapsed:.1f} s; new undefined {new_undefined}; jedi refs {jedi_total}, left {left}",
                        flush=True,
                    )
                    if new_undefined:
                        print("   ", sorted((undefined_after - undefined_before).elements()), flush=True)
    print(json.dumps({"renames": done, **totals, "refused": dict(refused)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
