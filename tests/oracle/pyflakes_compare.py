"""pyflakes as an oracle for `sextant check` on real Python code.

Copies the non-test modules of a tree (default: this interpreter's standard library; the
file filter is jedi_compare.py's) into a temporary directory, runs pyflakes and
`sextant check --format json` on the same files, maps pyflakes's messages to sextant's
codes and reports, per code, precision (sextant's reports pyflakes makes too) and recall
(pyflakes's reports sextant makes too), listing the differences.

    python tests/oracle/pyflakes_compare.py --sextant target/release/sextant \
        [--root DIR] [--sample N] [--min-precision 0.95] [--min-recall 0.9] [--show 20]

Matching: an undefined name and an unused variable by (file, line, name); an unused import
by (file, the import as pyflakes writes it: `os.path`, `m.x as y`), counted, since pyflakes
reports at the statement's line and sextant at the name; a redefinition by (file, name),
counted, for the same reason; a repeated dictionary key by (file, line), counted. Misses that sextant's rules exempt by design (see
`exempt_imports`) are counted apart; `--min-recall` applies to recall without them (both
figures are printed). Exits 1 when a code falls below a threshold.
"""

import argparse
import ast
import collections
import json
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from pyflakes import api, messages, reporter

# pyflakes message class -> (sextant code, key of one report).
CODES = {
    messages.UndefinedName: "SX005",
    messages.UnusedImport: "SX006",
    messages.UnusedVariable: "SX007",
    messages.RedefinedWhileUnused: "SX008",
    messages.MultiValueRepeatedKeyLiteral: "SX009",
}


def python_files(root: Path) -> list[Path]:
    """The non-test modules (jedi_compare.py's filter), relative to root."""
    files = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if "site-packages" in parts or any(p in ("test", "tests", "idle_test") for p in parts):
            continue
        if parts[-1].startswith("test_"):
            continue
        if not path.is_file():
            continue
        files.append(path.relative_to(root))
    return files


class Collect(reporter.Reporter):
    def __init__(self):
        super().__init__(sys.stderr, sys.stderr)
        self.found = []
        self.broken = False

    def flake(self, message):
        self.found.append(message)

    def syntaxError(self, *args):
        self.broken = True

    def unexpectedError(self, *args):
        self.broken = True


def exempt_imports(rel: Path, text: str) -> dict:
    """Imports sextant does not report by design, by how pyflakes names them: `from m import
    x` in an `__init__.py` (a re-export), imports in a `try` body whose handler catches
    ImportError (an availability check), names `__all__.extend(...)` lists, names used in
    type comments."""
    exempt = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return exempt

    def name(node, alias):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            full = f"{module}{alias.name}" if module.endswith(".") else f"{module}.{alias.name}"
            return full if not alias.asname or alias.asname == alias.name else f"{full} as {alias.asname}"
        return alias.name if not alias.asname or alias.asname == alias.name else f"{alias.name} as {alias.asname}"

    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            h.type is None or any(n in ast.unparse(h.type) for n in ("ImportError", "ModuleNotFoundError", "Exception"))
            for h in node.handlers
        ):
            for statement in node.body:
                guarded.update(id(n) for n in ast.walk(statement))
    # Names listed by `__all__.extend([...])` / `__all__.append(...)`, and named in type
    # comments (`# type: (int) -> Optional[X]`; pyflakes 3 ignores these comments).
    listed = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "__all__"
        ):
            for arg in ast.walk(node):
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    listed.add(arg.value)
    typed = set()
    for line in text.splitlines():
        if "# type:" in line:
            typed.update(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", line.split("# type:", 1)[1]))
    is_init = rel.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                local = alias.asname or (alias.name if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0])
                if local in listed:
                    exempt[name(node, alias)] = "__all__.extend"
                elif local in typed:
                    exempt[name(node, alias)] = "type comment"
                elif id(node) in guarded:
                    exempt[name(node, alias)] = "availability check"
                elif is_init and isinstance(node, ast.ImportFrom):
                    exempt[name(node, alias)] = "__init__ re-export"
    return exempt


def function_lines(text: str) -> set:
    """The lines inside a function's body (`def`, not lambda): where sextant reports unused
    variables. pyflakes reports an unused `except … as e` anywhere; sextant only in a
    function, by design."""
    lines = set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return lines
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for statement in node.body:
                lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return lines


def pyflakes_reports(root: Path, files: list[Path]):
    """{code: Counter of keys}, the files pyflakes could not parse, and the exempt keys."""
    found = collections.defaultdict(collections.Counter)
    broken = set()
    exempt = {}
    for rel in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        collect = Collect()
        api.check(text, str(rel), collect)
        if collect.broken:
            broken.add(rel.as_posix())
            continue
        for key, why in exempt_imports(rel, text).items():
            exempt[(rel.as_posix(), key)] = why
        in_function = None
        for m in collect.found:
            code = CODES.get(type(m))
            if code == "SX005":
                found[code][(rel.as_posix(), m.lineno, m.message_args[0])] += 1
            elif code == "SX006" and not m.message_args[0].endswith(".*"):
                # An unused star import: sextant does not judge star imports.
                found[code][(rel.as_posix(), m.message_args[0])] += 1
            elif code == "SX007":
                key = (rel.as_posix(), m.lineno, m.message_args[0])
                found[code][key] += 1
                if in_function is None:
                    in_function = function_lines(text)
                if m.lineno not in in_function:
                    exempt[key] = "outside a function"
            elif code == "SX008":
                found[code][(rel.as_posix(), m.message_args[0])] += 1
            elif code == "SX009":
                found[code][(rel.as_posix(), m.lineno)] += 1
    return found, broken, exempt


def sextant_reports(binary: str, root: Path, files: list[Path] | None):
    cmd = [binary, "--root", str(root), "check", "--format", "json", "--select", ",".join(set(CODES.values()))]
    if files is not None:
        cmd += [f.as_posix() for f in files]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if out.returncode not in (0, 1):
        sys.exit(f"sextant check failed ({out.returncode}): {out.stderr}")
    result = json.loads(out.stdout)
    found = collections.defaultdict(collections.Counter)
    for d in result["diagnostics"]:
        message = d["message"]
        quoted = message.split("'")
        name = quoted[1] if len(quoted) > 1 else ""
        if d["code"] == "SX005":
            found["SX005"][(d["path"], d["span"]["start"]["line"], name)] += 1
        elif d["code"] == "SX006":
            found["SX006"][(d["path"], name)] += 1
        elif d["code"] == "SX007":
            found["SX007"][(d["path"], d["span"]["start"]["line"], name)] += 1
        elif d["code"] == "SX008":
            found["SX008"][(d["path"], name)] += 1
        elif d["code"] == "SX009" and "with the same value" not in d["message"]:
            # A key repeated with the same value is ruff's finding, not pyflakes's.
            found["SX009"][(d["path"], d["span"]["start"]["line"])] += 1
    return found, result["summary"]["files_checked"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--sample", type=int, help="compare on this many files chosen at random")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--show", type=int, default=20, help="differences listed per code and side")
    args = parser.parse_args()
    args.sextant = str(Path(args.sextant).resolve()) if "/" in args.sextant else args.sextant

    files = python_files(args.root)
    chosen = files
    if args.sample and args.sample < len(files):
        chosen = sorted(random.Random(args.seed).sample(files, args.sample))
    with tempfile.TemporaryDirectory(prefix="pyflakes-oracle-") as tmp:
        copy = Path(tmp)
        # Every module is copied (imports resolve as in the original); only `chosen` are
        # compared.
        for rel in files:
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(args.root / rel, copy / rel)
        theirs, broken, exempt = pyflakes_reports(copy, chosen)
        ours, checked = sextant_reports(
            args.sextant, copy, None if chosen is files else chosen
        )
    # Files pyflakes cannot parse (Python 2 examples, templates) are left out of both.
    for code in ours:
        ours[code] = collections.Counter(
            {k: n for k, n in ours[code].items() if k[0] not in broken}
        )
    print(f"{len(chosen)} files compared ({checked} checked by sextant, {len(broken)} that pyflakes cannot parse left out)")
    failed = False
    for code in sorted(set(CODES.values())):
        mine, oracle = ours.get(code, collections.Counter()), theirs.get(code, collections.Counter())
        agreed = sum((mine & oracle).values())
        n_mine, n_oracle = sum(mine.values()), sum(oracle.values())
        precision = agreed / n_mine if n_mine else 1.0
        recall = agreed / n_oracle if n_oracle else 1.0
        extra = sorted((mine - oracle).elements())
        missed = sorted((oracle - mine).elements())
        reasons = collections.Counter(exempt[m] for m in missed if m in exempt)
        by_design = sum(reasons.values())
        rest = (agreed / (n_oracle - by_design)) if n_oracle - by_design else 1.0
        print(f"{code}: sextant {n_mine}, pyflakes {n_oracle}, both {agreed}: precision {precision:.3f}, recall {recall:.3f}")
        if by_design:
            why = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
            print(f"{code}: {by_design} misses are exempt by design ({why}); recall without them {rest:.3f}")
            missed = [m for m in missed if m not in exempt]
        for label, items in (("  only sextant", extra), ("  only pyflakes", missed)):
            for item in items[: args.show]:
                print(f"{label}: {':'.join(map(str, item))}")
            if len(items) > args.show:
                print(f"{label}: … {len(items) - args.show} more")
        # The recall threshold applies to the misses that are not exempt by design.
        if precision < args.min_precision or rest < args.min_recall:
            print(f"{code}: below the thresholds (precision {args.min_precision}, recall {args.min_recall})")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
