"""Goto-definition and references of sextant against jedi on real Python code.

Goto-definition (default): samples name occurrences at random from the non-test modules
under --root, asks jedi (`Script.goto(follow_imports=True)`) and sextant (the MCP tool
`find_definition`, one server for the whole run) where each is defined, and reports
agreement over the samples jedi resolves. Disagreements are printed so they can be looked
at, by kind.

References (`--references N`): picks N top-level functions and classes at random, asks
jedi (`Script.get_references()`, uncapped, over the whole project) and sextant
(`find_references`, exact only) for their references, and reports precision and recall of
sextant's against jedi's.

    python tests/oracle/jedi_compare.py --sextant target/release/sextant --root DIR \
        [--samples 300] [--references 50] [--seed 1] [--min-agreement 0.95]
        [--min-precision 0.95] [--min-recall 0.9]

Exit status 1 when agreement (or, with --references, precision or recall) is below the
minimum given. Needs `jedi` and the MCP SDK.
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
        elif n.type == "module" or n.line is None:
            # `n.line is None`: a module's own attribute (`__name__`), defined by the module.
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
            # Builtins, and names of modules compiled into the interpreter (`sys`); jedi
            # names a builtin type's member without its type (`append`, not `list.append`).
            keys.add(("<compiled>", d["name"].rsplit(".", 1)[-1]))
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
    parser.add_argument("--references", type=int, default=0, help="compare references of this many definitions instead")
    parser.add_argument("--min-precision", type=float, default=0.0, help="with --references")
    parser.add_argument("--min-recall", type=float, default=0.0, help="with --references")
    args = parser.parse_args()
    root = args.root.resolve()
    rng = random.Random(args.seed)
    files = python_files(root)
    project = jedi.Project(path=str(root), added_sys_path=[str(root)])

    # Definitions and references are measured here, not checks: the server's background
    # check of every file would only compete for the cores while they are timed.
    params = StdioServerParameters(
        command=args.sextant,
        args=["mcp", "--root", str(root), "--exclude", "site-packages/", "--no-background-check"],
    )
    compared = agreed = jedi_unknown = 0
    disagreements = []
    kinds = collections.Counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                # The first index runs in the background (a debug build of a whole standard
                # library on a busy machine can take longer than one call's time limit):
                # wait for it, so that each call's time is its own.
                for _ in range(600):
                    status = await session.call_tool("workspace_status", {})
                    if not status.is_error and status.structured_content["ready"]:
                        break
                    await asyncio.sleep(0.5)
                if args.references:
                    return await compare_references(session, root, project, files, rng, args)
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


def top_level_definitions(path: Path, text: str) -> list[tuple[int, int, str]]:
    """(line, 0-based column, name) of each `def` and `class` at the top of a module."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for keyword_ in ("def ", "class "):
            if line.startswith(keyword_):
                name = line[len(keyword_):].split("(")[0].split(":")[0].strip()
                if name.isidentifier():
                    found.append((number, len(keyword_), name))
    return found


async def compare_references(session, root, project, files, rng, args) -> int:
    true_positive = false_positive = false_negative = jedi_confirmed = 0
    rows = []
    picked = 0
    while picked < args.references:
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8", errors="replace")
        definitions = top_level_definitions(path, text)
        if not definitions:
            continue
        line, column, name = rng.choice(definitions)
        rel = path.relative_to(root).as_posix()
        try:
            refs = jedi.Script(text, path=str(path), project=project).get_references(line, column, scope="project")
        except Exception:
            continue
        picked += 1
        expected = set()
        for r in refs:
            if r.module_path is None:
                continue
            try:
                expected.add((Path(r.module_path).resolve().relative_to(root).as_posix(), r.line, r.column))
            except ValueError:
                continue
        # Test code is outside the sample, for both.
        expected = {e for e in expected if Path(root / e[0]) in set(files) or e[0] == rel}
        result = await session.call_tool(
            "find_references",
            {"path": rel, "line": line, "column": column + 1, "exact_only": True, "limit": 1000},
        )
        got = {
            (r["path"], r["line"], r["column"] - 1)
            for r in result.structured_content["references"]
            if Path(root / r["path"]) in set(files) or r["path"] == rel
        }
        # jedi's reference search misses uses its own goto resolves (`os.path.basename` for
        # posixpath.basename, imports in other packages): a reference only sextant lists is
        # confirmed when jedi's goto from it lands on the definition.
        confirmed = set()
        definition = (rel, line, column)
        for extra in got - expected:
            extra_path = root / extra[0]
            try:
                landed = jedi.Script(
                    extra_path.read_text(encoding="utf-8", errors="replace"), path=str(extra_path), project=project
                ).goto(extra[1], extra[2], follow_imports=True)
            except Exception:
                continue
            if any(
                n.module_path is not None
                and location_key(root, n.module_path, n.line, n.column, n.name) == definition
                for n in landed
            ):
                confirmed.add(extra)
        expected |= confirmed
        jedi_confirmed += len(confirmed)
        tp, fp, fn = len(got & expected), len(got - expected), len(expected - got)
        true_positive, false_positive, false_negative = true_positive + tp, false_positive + fp, false_negative + fn
        rows.append((rel, line, name, tp, fp, fn, sorted(got - expected)[:5], sorted(expected - got)[:5]))
    for rel, line, name, tp, fp, fn, extra, missing in rows:
        if fp or fn:
            print(f"{rel}:{line} {name}: {tp} shared, {fp} only sextant {extra}, {fn} only jedi {missing}")
    precision = true_positive / (true_positive + false_positive) if true_positive + false_positive else 1.0
    recall = true_positive / (true_positive + false_negative) if true_positive + false_negative else 1.0
    print(
        f"references of {len(rows)} definitions: precision {precision:.1%}, recall {recall:.1%} "
        f"({true_positive} shared, of which {jedi_confirmed} found by jedi's goto but not its "
        f"reference search; {false_positive} only sextant, {false_negative} only jedi)"
    )
    return 0 if precision >= args.min_precision and recall >= args.min_recall else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
