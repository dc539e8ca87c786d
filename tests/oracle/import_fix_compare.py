"""The missing-import fix of `sextant check` (SX005) on real Python code: imports deleted,
then put back by `check --fix --unsafe-fixes`, judged by the deleted import, pyflakes, the
compiler and the interpreter.

Copies Python modules (default: this interpreter's standard library, site-packages left
out) into a temporary directory; in N of them, picked with a seed, deletes one top-level
`import x` or `from m import n, …` (no alias, no star, not `__future__`) whose names the
module reads and binds nowhere else; runs `sextant check --fix --unsafe-fixes --select
SX005` on the mutated files (the whole copy is the workspace, where the fix finds
definitions), and counts per mutated file:

- restored: the deleted import came back (same module as written, same names);
- equivalent: other imports were added that bind each deleted name to the same object (the
  same module written absolutely instead of relatively, or a module the interpreter shows
  giving the very object: `from json.decoder import JSONDecodeError` for `from json import
  JSONDecodeError`);
- partial: some deleted names bound to the same object, the others left undefined (no
  single module provides them);
- wrong: a name bound to another object;
- no fix: the file was left as mutated, though sextant reported a deleted name undefined;
- not reported: sextant reported none of them (a `try` catching `NameError` around the
  uses, a star import);
- broken: a fix was made and the module no longer compiles, or pyflakes reports something
  the original did not (but an undefined name that no fix restored). Must be 0.

Precision is, over the deleted names a fix bound, those bound to the same object (a fix
is per name); recall is (restored + equivalent) / files mutated.

    python tests/oracle/import_fix_compare.py --sextant target/debug/sextant \\
        [--root DIR] [--only json,email] [--mutations N] [--seed S] [--show 10] \\
        [--min-precision P] [--min-recall R]

`--only` keeps the copy to those top-level packages and modules (a quicker run). Exits 1
when a module is broken or a figure is below its minimum.
"""

import argparse
import ast
import collections
import json
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from pyflakes import api, reporter


def python_files(root: Path, only: set[str]) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if "site-packages" in rel.parts or "__pycache__" in rel.parts or not path.is_file():
            continue
        if only and rel.parts[0] not in only and rel.parts[0].removesuffix(".py") not in only:
            continue
        files.append(rel)
    return files


def bound_names(statement: ast.stmt) -> list[str]:
    return [alias.name for alias in statement.names]


def bindings(tree: ast.Module) -> collections.Counter:
    """How often each name is bound anywhere in the module."""
    found = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] += 1
        elif isinstance(node, ast.arg):
            found[node.arg] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                found[name] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found[node.name] += 1
    return found


def deletable(text: str) -> list[ast.stmt]:
    """Top-level imports whose names the module reads and binds nowhere else, each on lines
    of its own."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    bound = bindings(tree)
    lines = text.splitlines()
    found = []
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            simple = all(a.asname is None and "." not in a.name for a in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            simple = statement.module != "__future__" and all(
                a.asname is None and a.name != "*" for a in statement.names
            )
        else:
            continue
        names = bound_names(statement)
        own_lines = "\n".join(lines[statement.lineno - 1 : statement.end_lineno]).strip()
        if (
            simple
            and all(n in read and bound[n] == 1 for n in names)
            and own_lines == ast.get_source_segment(text, statement).strip()
        ):
            found.append(statement)
    return found


def absolute(rel: Path, module: str | None, level: int) -> str:
    """The module a `from` import names, absolute."""
    if level == 0:
        return module or ""
    # `a/b/c.py` and `a/b/__init__.py` are both in package `a.b`.
    package = list(rel.parts[:-1])
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(rel: Path, text: str) -> collections.Counter:
    """(written, absolute module, name) of each top-level import binding; `import x` as
    ("x", "x", None)."""
    found = collections.Counter()
    for statement in ast.parse(text).body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                found[(alias.name, alias.name, None)] += 1
        elif isinstance(statement, ast.ImportFrom):
            written = "." * statement.level + (statement.module or "")
            module = absolute(rel, statement.module, statement.level)
            for alias in statement.names:
                found[(written, module, alias.name)] += 1
    return found


class Collect(reporter.Reporter):
    def __init__(self):
        self.found = []

    def flake(self, message):
        self.found.append(message.message % message.message_args)

    def unexpectedError(self, filename, msg):
        pass

    def syntaxError(self, filename, msg, lineno, offset, text):
        pass


def pyflakes(text: str, name: str) -> collections.Counter:
    collect = Collect()
    api.check(text, name, collect)
    # "redefinition of unused 'x' from line 12": the fix moves lines.
    return collections.Counter(m.split(" from line")[0].split(" on line")[0] for m in collect.found)


def compiles(text: str) -> bool:
    try:
        compile(text, "<module>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


SAME_OBJECT = """
import importlib, sys
pairs = [tuple(p) for p in __import__("json").loads(sys.argv[1])]
def get(module, name):
    imported = importlib.import_module(module)
    return imported if name is None else getattr(imported, name)
print(all(get(*a) is get(*b) for a, b in pairs))
"""


def same_objects(pairs: list[tuple]) -> bool:
    """Whether each (deleted, added) pair of (module, name) gives one object, as this
    interpreter imports them (in a child process: importing runs module code)."""
    try:
        run = subprocess.run(
            [sys.executable, "-c", SAME_OBJECT, json.dumps(pairs)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return False
    return run.stdout.strip().endswith("True")


def judge(rel: Path, original: str, mutated: str, fixed: str, deleted: ast.stmt):
    """The file's verdict, and per deleted name whether the fix bound it to the same
    object ("right"), another ("wrong") or left it undefined ("unbound")."""
    names = bound_names(deleted)
    if fixed == mutated:
        return "no fix", {n: "unbound" for n in names}
    before, after = pyflakes(original, str(rel)), pyflakes(fixed, str(rel))
    added = imports_of(rel, fixed) - imports_of(rel, mutated)
    added_names = {(n or w).split(".")[0] for w, _, n in added}
    unrestored = {f"undefined name {n!r}" for n in names if n not in added_names}
    new = [m for m in after - before if m not in unrestored]
    removed = imports_of(rel, original) - imports_of(rel, mutated)
    # Imports of other names resolve diagnostics the module had before the mutation.
    added = collections.Counter(
        {(w, m, n): c for (w, m, n), c in added.items() if (n or w).split(".")[0] in names}
    )
    per_name = {}
    for written, module, name in removed:
        bound = name or written
        by = [(m, n) for w, m, n in added if (n or w) == bound]
        if not by:
            per_name[bound] = "unbound"
        elif len(by) > 1:
            per_name[bound] = "wrong"
        elif by[0] == (module, name) or same_objects([((module, name), by[0])]):
            per_name[bound] = "right"
        else:
            per_name[bound] = "wrong"
            print(f"  wrong object: {rel}: {bound} from {by[0][0]}, was from {module}")
    if not compiles(fixed) or new:
        return "broken", per_name
    verdicts = set(per_name.values())
    if added == removed:
        return "restored", per_name
    if "wrong" in verdicts or len(added) > len(removed):
        return "wrong", per_name
    if verdicts == {"right"}:
        return "equivalent", per_name
    return "partial", per_name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--only", default="", help="top-level packages and modules to copy")
    parser.add_argument("--mutations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()

    source = Path(args.root).resolve()
    only = {p for p in args.only.split(",") if p}
    files = python_files(source, only)
    order = files[:]
    random.Random(args.seed).shuffle(order)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "tree"
        for rel in files:
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, work / rel)
        mutated = {}
        for rel in order:
            if len(mutated) == args.mutations:
                break
            try:
                text = (work / rel).read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            choices = deletable(text)
            if not choices:
                continue
            statement = rng.choice(choices)
            lines = text.splitlines(keepends=True)
            del lines[statement.lineno - 1 : statement.end_lineno]
            changed = "".join(lines)
            (work / rel).write_text(changed, encoding="utf-8")
            mutated[rel] = (text, changed, statement)
        command = [args.sextant, "--root", str(work), "check", "--fix", "--unsafe-fixes"]
        command += ["--select", "SX005", "--json", *(str(rel) for rel in sorted(mutated))]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"sextant check --fix failed ({run.returncode}): {run.stderr[:2000]}")
            return 1
        answer = json.loads(run.stdout)
        # The undefined names sextant reported, fixed or not.
        reported = set()
        for d in answer["fixed"] + answer["remaining"]["diagnostics"]:
            if d["message"].startswith("undefined name"):
                reported.add((d["path"], d["message"].split("'")[1]))
        if answer["remaining"]["summary"].get("truncated"):
            print("warning: the remaining diagnostics are truncated")
        verdicts = collections.defaultdict(list)
        names = collections.Counter()
        for rel, (original, changed, statement) in sorted(mutated.items()):
            fixed = (work / rel).read_text(encoding="utf-8")
            verdict, per_name = judge(rel, original, changed, fixed, statement)
            seen = any((rel.as_posix(), n) in reported for n in bound_names(statement))
            if verdict == "no fix" and not seen:
                verdict = "not reported"
            verdicts[verdict].append((rel, ast.get_source_segment(original, statement), fixed))
            names.update(per_name.values())

    kinds = ("restored", "equivalent", "partial", "wrong", "no fix", "not reported", "broken")
    count = {k: len(verdicts[k]) for k in kinds}
    made = len(mutated) - count["no fix"] - count["not reported"]
    good = count["restored"] + count["equivalent"]
    precision = (names["right"] / (names["right"] + names["wrong"])) if names["right"] + names["wrong"] else 1.0
    file_precision = good / made if made else 1.0
    recall = good / len(mutated) if mutated else 0.0
    print(f"files: {len(files)}, mutated: {len(mutated)}, fixes applied: {len(answer['fixed'])}")
    print(", ".join(f"{k}: {n}" for k, n in count.items()))
    print(f"deleted names: {sum(names.values())}: " + ", ".join(f"{k} {names[k]}" for k in ("right", "wrong", "unbound")))
    print(f"withheld by sextant: {len(answer.get('withheld') or [])}")
    print(f"precision (names bound to the same object / names bound): {precision:.3f}; "
          f"files restored or equivalent / files fixed: {file_precision:.3f} ({good}/{made})")
    print(f"recall (files restored or equivalent / files mutated): {recall:.3f} ({good}/{len(mutated)})")
    for verdict in ("broken", "wrong", "partial", "equivalent", "no fix", "not reported"):
        for rel, deleted, fixed in verdicts[verdict][: args.show]:
            added = sorted(set(fixed.splitlines()) - set((source / rel).read_text(encoding="utf-8").splitlines()))
            print(f"  {verdict}: {rel}: deleted {deleted!r}, added {added}")
    failed = count["broken"] > 0 or precision < args.min_precision or recall < args.min_recall
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
