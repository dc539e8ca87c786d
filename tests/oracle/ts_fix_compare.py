#!/usr/bin/env python3
"""`sextant check --fix` on TypeScript, judged by `tsc --noUnusedLocals` and tsc's output.

The project (default: rxjs 7's `src` and root `tsconfig.json`, as `tsc_compare.py` copies
it) is copied to a temporary directory, then --mutations N files, picked at random (seeded),
each get, in turn (the next kind that fits when a file has no place for one):

- import: an import of a name the file never mentions, from a module of the project that
  exports it (`import { noop } from '../util/noop';`, after the file's last import);
- alias: an unused second name for a name the file imports (`import { a } from 'm'` →
  `import { a, a as sxAlias } from 'm'`);
- local: a first statement in a function body declaring a variable nothing reads, in turn
  `const sxTmpN = 1;`, `let sxTmpN;`, `const sxTmpN = () => 0;`, `let sxTmpN = 1, sxTmp2N =
  'two';` and `const sxTmpN = Date.now();` (whose fix, keeping `Date.now();`, is unsafe);
- only-use: the one line reading a local declared on a line of its own (`const x = …;`,
  named twice in the file) deleted, leaving the variable unused as real code declares it.

tsc checks the original copy, the mutated copy and the copy after `sextant check --fix --json
[--unsafe-fixes]`, each with `--noUnusedLocals`, and emits the JavaScript of each (comments
removed, as rxjs's tsconfig has it). Reported:

- fixed: the fixes applied, by code;
- still reported: a tsc "declared but never read" error (TS6133, TS6196) after the fixes on
  a name a fix removed (a variable renamed `_x` is not removed: tsc's `noUnusedLocals` still
  reports it, under its new name, which is compared as the old one);
- errors after ≠ before: tsc's errors after the fixes against the mutated copy's without
  the unused-name errors of the names fixed (and the nameless ones, TS6192 "All imports in
  import declaration are unused", TS6198 and TS6199, of the files fixed), by (file, code,
  message), both ways;
- JavaScript changed: a file whose emitted JavaScript is not the mutated copy's (with each
  renamed declaration renamed) but for lines declaring a name a fix removed: gone, or with a span naming it cut out (`const x =
  f();` → `f();` from an unsafe fix, `let a = 1, b = 2;` → `let a = 1;`), nothing else;
- unfixed: sextant's SX006/SX007 diagnostics left after the fixes (a mutation with no fix,
  an unsafe one without --unsafe-fixes, or one in the original code).

    python3 tests/oracle/ts_fix_compare.py --sextant target/debug/sextant [--mutations 40]
        [--unsafe-fixes] [--seed 1] [--show 10] [--strict]

`--strict` exits 1 unless still-reported, the error difference and changed JavaScript are
all zero and at least one fix was applied; 2 when tsc or sextant cannot be run.
"""

import argparse
import collections
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "target/npm-tools/node_modules"
TSC_LINE = re.compile(r"^(?P<path>[^(]+)\((?P<line>\d+),(?P<col>\d+)\): error TS(?P<code>\d+): (?P<msg>.*)$")
# Named (TS6133, TS6196) or not: every import or variable of one declaration (TS6192, TS6198,
# TS6199).
UNUSED_CODES = {"6133", "6192", "6196", "6198", "6199"}
# Modules of rxjs that export a value under the module's own name (relative to src).
EXPORTERS = {
    "noop": "internal/util/noop",
    "identity": "internal/util/identity",
    "isFunction": "internal/util/isFunction",
    "Subscription": "internal/Subscription",
    "Subject": "internal/Subject",
    "Observable": "internal/Observable",
    "map": "internal/operators/map",
    "filter": "internal/operators/filter",
}
LOCALS = [
    "const {v} = 1;",
    "let {v};",
    "const {v} = () => 0;",
    "let {v} = 1, {w} = 'two';",
    "const {v} = Date.now();",
]
IMPORT_LINE = re.compile(r"^import\s[^;]*;\s*$")
NAMED_IMPORT = re.compile(r"^import \{ ([A-Za-z_$][\w$]*)((?:, [A-Za-z_$][\w$]*)*) \} from ('[^']+');$")
LOCAL_LINE = re.compile(r"^\s+(?:const|let)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[^;]+;$")
# A statement on one line that a deletion leaves the program otherwise whole without.
STATEMENT_LINE = re.compile(r"^\s+(?!return\b|case\b|default\b|else\b|}|//|\*|/\*)[^{}]*;$")
FUNCTION_START = re.compile(r"^(\s*)(export\s+)?(async\s+)?function\b[^;]*\{\s*$")


def fail(message):
    print(f"ts_fix_compare: {message}", file=sys.stderr)
    sys.exit(2)


def tsc(typescript, root, tsconfig, *options):
    command = ["node", str(typescript / "bin/tsc"), "--pretty", "false", "-p", tsconfig, *options]
    try:
        return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"cannot run tsc: {e}")


def check_and_emit(typescript, root, tsconfig, out):
    """tsc's errors with `--noUnusedLocals` as (path, code, message) -> count, the (path,
    name) of its unused-name errors, and the JavaScript it emits into `out`, by path."""
    done = tsc(typescript, root, tsconfig, "--noUnusedLocals", "--noEmit", "false", "--outDir", str(out),
               "--incremental", "false", "--sourceMap", "false", "--declaration", "false",
               "--noEmitOnError", "false")
    if done.returncode not in (0, 1, 2):
        fail(f"tsc exited with {done.returncode}: {done.stderr[:500]}")
    errors, unused = collections.Counter(), set()
    for line in done.stdout.splitlines():
        m = TSC_LINE.match(line.strip())
        if not m:
            continue
        errors[(m["path"], m["code"], m["msg"])] += 1
        if m["code"] in UNUSED_CODES:
            for name in re.findall(r"'([^']*)'", m["msg"]):
                unused.add((m["path"], name))
    js = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in out.rglob("*.js")}
    return errors, unused, js


def relative_module(path, target):
    spec = os.path.relpath(target, path.parent).replace(os.sep, "/")
    return spec if spec.startswith(".") else f"./{spec}"


def mutate(root, src, rel, kind, index, rng):
    """Mutates the file `rel`; what was done, or `None` when the file has no place for it."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    words = set(re.findall(r"[\w$]+", text))
    if kind == "import":
        choices = [(n, m) for n, m in EXPORTERS.items()
                   if n not in words and (src / m).with_suffix(".ts") != path]
        last = max((i for i, l in enumerate(lines) if IMPORT_LINE.match(l)), default=None)
        if not choices or last is None:
            return None
        name, module = rng.choice(choices)
        line = f"import {{ {name} }} from '{relative_module(path, src / module)}';"
        lines.insert(last + 1, line)
    elif kind == "alias":
        imports = [i for i, l in enumerate(lines) if NAMED_IMPORT.match(l)]
        if not imports or "sxAlias" in words:
            return None
        i = rng.choice(imports)
        m = NAMED_IMPORT.match(lines[i])
        line = f"import {{ {m[1]}{m[2]}, {m[1]} as sxAlias }} from {m[3]};"
        lines[i] = line
    elif kind == "only-use":
        counts = collections.Counter(re.findall(r"[\w$]+", text))
        reads = []
        for i, l in enumerate(lines):
            m = LOCAL_LINE.match(l)
            if not m or counts[m[1]] != 2:
                continue
            name = m[1]
            uses = [j for j, u in enumerate(lines) if j != i and re.search(rf"(?<![\w$.]){re.escape(name)}\b", u)]
            if len(uses) == 1 and STATEMENT_LINE.match(lines[uses[0]]) and balanced(lines[uses[0]]):
                reads.append(uses[0])
        if not reads:
            return None
        i = rng.choice(reads)
        line = lines.pop(i)
    else:
        starts = [i for i, l in enumerate(lines) if FUNCTION_START.match(l)
                  and i + 1 < len(lines) and lines[i + 1].strip() and not lines[i + 1].strip().startswith("}")]
        if not starts:
            return None
        i = rng.choice(starts)
        indent = FUNCTION_START.match(lines[i])[1] + "  "
        form = LOCALS[index % len(LOCALS)]
        line = indent + form.format(v=f"sxTmp{index}", w=f"sxTmp{index}b")
        lines.insert(i + 1, line)
    path.write_text("\n".join(lines), encoding="utf-8")
    return line.strip()


def fixed_unused(error, fixed_names):
    """Whether the unused-name error `error` is one a fix resolved: it names a name fixed in
    its file, or names none and its file had a fix."""
    path, _, message = error
    names = re.findall(r"'([^']*)'", message)
    if not names:
        return any(p == path for p, _ in fixed_names)
    return any((path, name) in fixed_names for name in names)


def balanced(line):
    code = re.sub(r"'(\\.|[^'\\])*'|\"(\\.|[^\"\\])*\"|`[^`]*`", "''", line.split("//")[0])
    return all(code.count(a) == code.count(b) for a, b in ("()", "[]", "{}"))


def only_removals(before, after, names):
    """Whether `after` is `before` with lines declaring one of `names` gone or with a span
    naming one cut out, nothing else."""
    pattern = re.compile(rf"(?<![\w$.])({'|'.join(map(re.escape, names))})(?![\w$])") if names else None
    removed, added = [], []
    for d in difflib.ndiff(before.split("\n"), after.split("\n")):
        if d.startswith("- "):
            removed.append(d[2:])
        elif d.startswith("+ "):
            added.append(d[2:])
    if pattern is None:
        return not removed and not added
    if not all(pattern.search(line) for line in removed):
        return False
    for line in added:
        if not any(cut_from(old, line, pattern) for old in removed):
            return False
    return True


def renamed_in(js, renames):
    """`js` with the first `OLD = ` (a declarator: a renamed variable is assigned nowhere
    else) of each of `renames` naming NEW instead: what the renames should make of the
    emitted JavaScript, compared with what they made."""
    for old, new in renames.items():
        js = re.sub(rf"(?<![\w$.]){re.escape(old)}(?= = )", new, js, count=1)
    return js


def cut_from(old, new, pattern):
    """Whether `new` is `old` with one span naming a name of `pattern` cut out."""
    if len(new) >= len(old):
        return False
    prefix = 0
    while prefix < len(new) and new[prefix] == old[prefix]:
        prefix += 1
    suffix = len(new) - prefix
    return old.endswith(new[prefix:]) and bool(pattern.search(old[prefix:len(old) - suffix]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", default=str(REPO / "target/debug/sextant"))
    parser.add_argument("--project", type=Path, default=NODE_MODULES / "rxjs")
    parser.add_argument("--typescript", type=Path, default=NODE_MODULES / "typescript")
    parser.add_argument("--mutations", type=int, default=40)
    parser.add_argument("--unsafe-fixes", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    if shutil.which("node") is None or not (args.typescript / "bin/tsc").exists():
        fail("no node or no TypeScript")
    if not (args.project / "src").is_dir():
        fail(f"no sources at {args.project / 'src'}")
    tsconfig = "src/tsconfig.base.json"
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="ts-fix-compare-") as tmp:
        root = Path(tmp) / "project"
        shutil.copytree(args.project / "src", root / "src", ignore=shutil.ignore_patterns("node_modules"))
        shutil.copy2(args.project / "tsconfig.json", root / "tsconfig.json")
        original, _, original_js = check_and_emit(args.typescript, root, tsconfig, Path(tmp) / "js-original")
        files = sorted(str(p.relative_to(root)) for p in (root / "src").rglob("*.ts")
                       if not p.name.endswith(".d.ts"))
        candidates = list(files)
        rng.shuffle(candidates)
        mutated = {}
        kinds = ["import", "alias", "local", "only-use"]
        for rel in candidates:
            if len(mutated) >= args.mutations:
                break
            # The kind whose turn it is, else the next that fits the file.
            turn = len(mutated) % len(kinds)
            for kind in kinds[turn:] + kinds[:turn]:
                what = mutate(root, root / "src", rel, kind, len(mutated), rng)
                if what:
                    break
            if what:
                mutated[rel] = (kind, what)
                if args.show:
                    print(f"  mutation {kind} in {rel}: {what}")
        mutated_errors, _, mutated_js = check_and_emit(args.typescript, root, tsconfig, Path(tmp) / "js-mutated")
        command = [str(Path(args.sextant).resolve()), "check", "--fix", "--json"]
        if args.unsafe_fixes:
            command.append("--unsafe-fixes")
        run = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=1800)
        if run.returncode not in (0, 1):
            fail(f"sextant check --fix failed ({run.returncode}): {run.stderr[:2000]}")
        answer = json.loads(run.stdout)
        after, after_unused, after_js = check_and_emit(args.typescript, root, tsconfig, Path(tmp) / "js-after")

    added = sum((mutated_errors - original).values())
    print(f"{len(files)} files of {args.project / 'src'}; tsc errors: original {sum(original.values())}, "
          f"after {len(mutated)} mutations {sum(mutated_errors.values())} (+{added}), "
          f"after the fixes {sum(after.values())}")
    fixed = collections.Counter(f["code"] for f in answer["fixed"])
    fixed_names = set()
    # (path, new name) -> old name: a rename keeps the variable, which tsc still reports
    # (its `noUnusedLocals` does not spare `_` names), and changes nothing else.
    renamed = {}
    for f in answer["fixed"]:
        rename = re.fullmatch(r"Rename unused variable '([^']*)' to '([^']*)'", f["title"])
        name = re.search(r"'([^']*)'", f["message"])
        if rename:
            renamed[(f["path"], rename[2])] = rename[1]
        elif name:
            # `'a as b' imported …` binds `b`.
            fixed_names.add((f["path"], name[1].split(" as ")[-1]))
    after = collections.Counter({
        (path, code, re.sub(r"'([^']*)'", lambda m: f"'{renamed.get((path, m[1]), m[1])}'", msg)): n
        for (path, code, msg), n in after.items()
    })
    still = sorted(fixed_names & after_unused)
    expected = collections.Counter({
        key: n for key, n in mutated_errors.items()
        if not (key[1] in UNUSED_CODES and fixed_unused(key, fixed_names))
    })
    new = sorted((after - expected).elements())
    lost = sorted((expected - after).elements())
    names_by_file = collections.defaultdict(set)
    for path, name in fixed_names:
        names_by_file[path].add(name)
    renames_by_file = collections.defaultdict(dict)
    for (path, new_name), old in renamed.items():
        renames_by_file[path][old] = new_name
    changed = sorted(
        p for p in set(mutated_js) | set(after_js)
        if after_js.get(p) != mutated_js.get(p)
        and not only_removals(renamed_in(mutated_js.get(p, ""), renames_by_file[f"src/{p[:-3]}.ts"]),
                              after_js.get(p, ""), names_by_file[f"src/{p[:-3]}.ts"])
    )
    remaining = [d for d in answer["remaining"]["diagnostics"] if d["code"] in ("SX006", "SX007")]
    print(f"fixed: {sum(fixed.values())} ({', '.join(f'{c} {n}' for c, n in sorted(fixed.items()))}); "
          f"new sextant diagnostics {len(answer.get('new_diagnostics') or [])}, "
          f"withheld {len(answer.get('withheld') or [])}")
    for title, items in (("still reported", still), ("errors after, not before", new),
                         ("errors before, not after (fixed ones aside)", lost), ("JavaScript changed", changed),
                         ("unfixed SX006/SX007", [f"{d['path']}: {d['message']}" for d in remaining])):
        print(f"{title}: {len(items)}")
        for item in items[:args.show]:
            print(f"  {item}")
    ok = not still and not new and not lost and not changed and sum(fixed.values()) > 0
    sys.exit(1 if args.strict and not ok else 0)


if __name__ == "__main__":
    main()
