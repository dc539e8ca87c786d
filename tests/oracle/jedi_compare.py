"""Goto-definition of sextant against jedi on real Python code.

Samples name occurrences at random from the non-test modules under --root, asks jedi
(`Script.goto(follow_imports=True)`) and sextant (the MCP tool `find_definition`, one server
for the whole run) where each is defined, and reports agreement over the samples jedi
resolves. Disagreements are printed so they can be looked at.

    python tests/oracle/jedi_compare.py --sextant target/release/sextant --root DIR \
        [--samples 300] [--seed 1] [--min-agreement 0.95]

Exit status 1 when agreement is below --min-agreement. Needs `jedi` and the MCP SDK.
"""

import argparse
import asyncio
import collections
import io
import keyword
import os
import random
import sys
import tokenize
from pathlib import Path

import jedi
from mcp import ClientSession, StdioServerParameters, stdio_client


def python_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if "site-packages" in parts or any(p in ("test", "tests", "idle_test") for p in parts):
            continue
        if parts[-1].startswith("test_"):
            continue
        files.append(path)
    return files


def names_in(text: str) -> list[tuple[int, int, str]]:
    """(1-based line, 0-based column, name) of every NAME token that is not a keyword."""
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) and not keyword.issoftkeyword(tok.string):
                found.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def location_key(root: Path, path, line, column, name):
    """A definition as (relative path or module, line, 0-based column)."""
    if path is None:
        return ("<external>", name)
    path = Path(path)
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        if path.name == "builtins.pyi":
            return ("<compiled>", name)
        return ("<outside>", path.as_posix(), line)
    return (rel, line, column)


def jedi_answer(root: Path, project, path: Path, text: str, line: int, column: int):
    try:
        names = jedi.Script(text, path=str(path), project=project).goto(line, column, follow_imports=True)
    except Exception as e:  # jedi has bugs of its own; such samples are skipped
        return None, f"jedi error: {e}"
    keys = set()
    for n in names:
        if n.module_path is None or n.in_builtin_module():
            keys.add(("<compiled>", n.name))
        elif n.type == "module":
            keys.add((location_key(root, n.module_path, 1, 0, n.name)[0], "module"))
        else:
            keys.add(location_key(root, n.module_path, n.line, n.column, n.name))
    return keys, None


def sextant_answer(content) -> set:
    keys = set()
    for d in content.get("definitions", []):
        if d.get("heuristic"):
            continue
        if d["kind"] == "external":
            # Builtins, and names of modules compiled into the interpreter (`sys`).
            keys.add(("<compiled>", d["name"]))
        elif d["kind"] == "module":
            keys.add((d["path"], "module"))
        else:
            span = d["span"]
            keys.add((d["path"], span["start"]["line"], span["start"]["column"] - 1))
    return keys


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-agreement", type=float, default=0.0)
    parser.add_argument("--show", type=int, default=40, help="disagreements to print")
    args = parser.parse_args()
    root = args.root.resolve()
    rng = random.Random(args.seed)
    files = python_files(root)
    project = jedi.Project(path=str(root), added_sys_path=[str(root)])

    params = StdioServerParameters(
        command=args.sextant, args=["mcp", "--root", str(root), "--exclude", "site-packages/"]
    )
    compared = agreed = jedi_unknown = 0
    disagreements = []
    kinds = collections.Counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                attempts = 0
                while compared < args.samples and attempts < args.samples * 20:
                    attempts += 1
                    path = rng.choice(files)
                    text = path.read_text(encoding="utf-8", errors="replace")
                    names = names_in(text)
                    if not names:
                        continue
                    line, column, name = rng.choice(names)
                    expected, error = jedi_answer(root, project, path, text, line, column)
                    if not expected:
                        jedi_unknown += 1
                        continue
                    if any(k[0] == "<outside>" for k in expected):
                        jedi_unknown += 1
                        continue
                    rel = path.relative_to(root).as_posix()
                    result = await session.call_tool(
                        "find_definition",
                        {"path": rel, "line": line, "column": column + 1, "positions": "full"},
                    )
                    if result.is_error:
                        got = {("<error>", result.content[0].text)}
                    else:
                        got = sextant_answer(result.structured_content)
                    compared += 1
                    if got & expected:
                        agreed += 1
                        continue
                    if not got:
                        kinds["sextant has no exact answer (a member of an inferred type)"] += 1
                    elif got == {(rel, line, column)}:
                        kinds["a definition: sextant answers itself, jedi the member it overrides"] += 1
                    else:
                        kinds["different definitions"] += 1
                    disagreements.append((rel, line, column + 1, name, sorted(expected, key=str), sorted(got, key=str)))
    agreement = agreed / compared if compared else 0.0
    for rel, line, column, name, expected, got in disagreements[: args.show]:
        print(f"{rel}:{line}:{column} {name}\n    jedi:    {expected}\n    sextant: {got}")
    for kind, count in kinds.most_common():
        print(f"disagreements, {kind}: {count}")
    print(
        f"goto-definition: {agreed}/{compared} agree ({agreement:.1%}); "
        f"{jedi_unknown} sampled names jedi could not resolve were skipped"
    )
    return 0 if agreement >= args.min_agreement else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
