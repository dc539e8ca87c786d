#!/usr/bin/env python3
"""Undefined names (SX005) and unresolved imports (SX003) of sextant against `tsc --noEmit`.

The project is copied to a temporary directory (its files, without node_modules), checked by
`tsc --noEmit --pretty false -p TSCONFIG` (TypeScript 5, --typescript DIR) and by `sextant
check --json` over the same tree, and their findings are compared:

- names: tsc's "cannot find name" errors (TS2304, TS2552, TS2580-TS2584, TS2591, TS2662,
  TS2663, TS2503 for a namespace, TS18004 for a shorthand property) against SX005, keyed by
  (path, line, column, name);
- imports: tsc's "cannot find module" (TS2307, TS2792) for relative specifiers (`./a`,
  `../b`) against SX003, keyed by (path, specifier);
- exports: tsc's "has no exported member" (TS2305, TS2724, TS2614), "declares … locally, but
  it is not exported" (TS2459, TS2460) and "has no default export" (TS1192) for relative
  specifiers against SX004, keyed by (path, line, column, name), over every file of the
  program (a mutation breaks the imports of other files);
- unused locals: tsc's "declared but its value is never read" (TS6133, with
  `--noUnusedLocals`) against SX007, keyed by (path, line, column, name), on both sides only
  for a name right after `const`, `let` or `var` on an indented line (a variable in a
  function; sextant leaves out module-level variables, destructuring and names starting
  with `_`, and so does the comparison);
- impossible calls: tsc's "Expected N arguments, but got M" (TS2554, TS2555) against SX010,
  keyed by (path, line) (tsc places the too-many error at the first extra argument, sextant
  at the call). Precision counts every report; recall counts the calls a mutation broke
  (below), since sextant judges only calls of module-level functions.

Only files of tsc's program (the tsconfig's `include`) count; files with syntax errors for
sextant (SX001/SX002, where it reports nothing else) and `// @ts-nocheck` files are left out
of both sides, and so are lines after a `// @ts-expect-error` or `// @ts-ignore` (tsc keeps
its errors there to itself).

Real projects compile cleanly, so the run also mutates a copy (--mutations N, seeded): in N
files picked at random, one change each, in turn: delete a single-line `import … from`
statement that binds names (not a test runner's), rename the declaration of a name the file declares once at the
start of a line (`function f`, `const x`, `class C`, `interface I`, `type T`, `enum E`),
rename an indented `const`/`let` (a local, usually), point a relative specifier at a file that does not exist,
or pass one more argument (`, 0`) to a call, written on one line, of a function the file
declares at the start of a line (`function f(`, `export function f(`) with no rest parameter. Both tools then check the mutated
copy, which gives recall as well as precision. Every disagreement is printed with its
source line (--show).

    python3 tests/oracle/tsc_compare.py --sextant target/debug/sextant [--project DIR]
        [--tsconfig REL] [--copy ENTRY ...] [--mutations 40] [--seed 1] [--show 40]
        [--min-precision 0.95] [--min-recall 0.9]

The default project is rxjs 7 (`target/npm-tools/node_modules/rxjs`: `src` and the root
`tsconfig.json` copied, checked through `src/tsconfig.base.json`). `--project zod` checks
zod's `src` with a tsconfig written for it (strict, bundler resolution, esnext and DOM libs).
Exit status 1 when precision (or, with mutations, recall) is below the minimum given, 2 when
tsc or sextant cannot be run.
"""

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "target/npm-tools/node_modules"

NAME_CODES = {
    "2304", "2552", "2580", "2581", "2582", "2583", "2584", "2591", "2662", "2663", "2503",
    "18004",
}
MODULE_CODES = {"2307", "2792"}
# A name the module does not export, or declares without exporting; no default export.
EXPORT_CODES = {"2305", "2724", "2614", "2459", "2460"}
NO_DEFAULT_CODE = "1192"
UNUSED_CODE = "6133"
ARITY_CODES = {"2554", "2555"}
TSC_LINE = re.compile(r"^(?P<path>[^(]+)\((?P<line>\d+),(?P<col>\d+)\): error TS(?P<code>\d+): (?P<msg>.*)$")
# A tsconfig for zod, whose package holds its sources but no tsconfig.
ZOD_TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "target": "esnext",
        "module": "esnext",
        "moduleResolution": "bundler",
        "lib": ["esnext", "dom"],
        "skipLibCheck": True,
    },
    "include": ["src/**/*.ts"],
}


def fail(message):
    print(f"tsc_compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def is_relative(spec):
    return spec in (".", "..") or spec.startswith("./") or spec.startswith("../")


def run_tsc(typescript, root, tsconfig, type_roots):
    command = ["node", str(typescript / "bin/tsc"), "--noEmit", "--noUnusedLocals", "--pretty", "false", "-p", tsconfig]
    if type_roots:
        command += ["--typeRoots", str(type_roots)]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"cannot run tsc: {e}")
    names, modules, exports, unused, arity = set(), set(), set(), set(), set()
    for line in done.stdout.splitlines():
        m = TSC_LINE.match(line.strip())
        if not m:
            continue
        path, code, msg = m["path"].replace("\\", "/"), m["code"], m["msg"]
        if code in ARITY_CODES:
            arity.add((path, int(m["line"])))
        quoted = re.search(r"'([^']*)'", msg)
        if not quoted:
            continue
        if code in NAME_CODES:
            names.add((path, int(m["line"]), int(m["col"]), quoted[1]))
        elif code == UNUSED_CODE:
            unused.add((path, int(m["line"]), int(m["col"]), quoted[1]))
        elif code in MODULE_CODES and is_relative(quoted[1]):
            modules.add((path, quoted[1]))
        elif code in EXPORT_CODES or code == NO_DEFAULT_CODE:
            # `Module '"./a"' has no exported member 'x'`: the module, then the name.
            both = re.findall(r"'([^']*)'", msg)
            name = "default" if code == NO_DEFAULT_CODE else (both[1] if len(both) > 1 else None)
            if name and is_relative(both[0].strip('"')):
                exports.add((path, int(m["line"]), int(m["col"]), name))
    if done.returncode not in (0, 1, 2):
        fail(f"tsc exited with {done.returncode}: {done.stderr[:500]}")
    return names, modules, exports, unused, arity


def program_files(typescript, root, tsconfig):
    done = subprocess.run(
        ["node", str(typescript / "bin/tsc"), "--listFilesOnly", "-p", tsconfig],
        cwd=root, capture_output=True, text=True, timeout=900,
    )
    files = set()
    resolved_root = Path(root).resolve()
    for line in done.stdout.splitlines():
        p = Path(line.strip())
        try:
            files.add(str(p.resolve().relative_to(resolved_root)))
        except ValueError:
            pass
    return files


def run_sextant(sextant, root, paths):
    try:
        done = subprocess.run(
            [str(Path(sextant).resolve()), "check", "--json", *paths],
            cwd=root, capture_output=True, text=True, timeout=900,
        )
    except OSError as e:
        fail(f"cannot run sextant: {e}")
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        fail(f"sextant check gave no JSON: {done.stderr[:500]}")
    names, modules, exports, unused, broken, arity = set(), set(), set(), set(), set(), set()
    for d in answer["diagnostics"]:
        path, code, msg = d["path"], d["code"], d["message"]
        start = d["span"]["start"]
        if code == "SX010":
            arity.add((path, start["line"]))
        quoted = re.search(r"'([^']*)'", msg)
        if code in ("SX001", "SX002"):
            broken.add(path)
        elif code == "SX005" and quoted:
            names.add((path, start["line"], start["column"], quoted[1]))
        elif code == "SX007" and quoted:
            unused.add((path, start["line"], start["column"], quoted[1]))
        elif code == "SX003" and quoted and is_relative(quoted[1]):
            modules.add((path, quoted[1]))
        elif code == "SX004":
            both = re.findall(r"'([^']*)'", msg)
            name = "default" if "no default export" in msg else both[-1]
            if is_relative(both[0]):
                exports.add((path, start["line"], start["column"], name))
    return names, modules, exports, unused, broken, arity


def is_local_declarator(root, found):
    """Whether the name at (path, line, column) follows `const`/`let`/`var` on an indented
    line, and does not start with `_`."""
    path, line, column, name = found
    try:
        text = (root / path).read_text(encoding="utf-8").split("\n")[line - 1]
    except (OSError, IndexError):
        return False
    before = text[: column - 1]
    return (
        not name.startswith("_")
        and text[:1].isspace()
        and re.search(r"\b(const|let|var)\s+$", before) is not None
    )


def copy_project(project, entries, into):
    for entry in entries:
        source = project / entry
        target = into / entry
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("node_modules"))
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


# sextant takes a test runner's names (`test`, `expect`) for globals in a file that imports
# nothing from one (its `globals` option), so deleting that import is not a fair question.
TEST_RUNNERS = ("vitest", "@jest/globals", "node:test", "bun:test", "mocha")
IMPORT_LINE = re.compile(r"^import\s+[^'\"]*\bfrom\s+['\"][^'\"]+['\"];?\s*$")
DECLARATION = re.compile(
    r"^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?"
    r"(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)"
)
LOCAL = re.compile(r"^\s+(?:const|let)\s+([A-Za-z_$][\w$]*)\s*[:=]")
FUNCTION_DECLARATION = re.compile(r"^(?:export\s+)?function\s+([A-Za-z_$][\w$]*)\s*[(<]")
# A call whose arguments hold no parentheses, not a method (`.f(`) nor a declaration.
ONE_LINE_CALL = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\(([^()]*)\)")
# (absolute path, line) of the calls the extra-argument mutation changed.
BROKEN_CALLS = set()
RELATIVE_SPEC = re.compile(r"""(from\s+|import\s*\(\s*|require\s*\(\s*)(['"])(\.\.?/[^'"]+)\2""")


def mutate(path, kind, rng):
    """Applies one mutation of `kind` to the file; returns a description, or None."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if kind == "drop-import":
        choices = [
            i for i, l in enumerate(lines)
            if IMPORT_LINE.match(l) and not any(f"'{m}'" in l or f'"{m}"' in l for m in TEST_RUNNERS)
        ]
        if not choices:
            return None
        i = rng.choice(choices)
        removed = lines.pop(i)
        path.write_text("\n".join(lines), encoding="utf-8")
        return f"deleted line {i + 1}: {removed.strip()}"
    if kind == "rename":
        declared = {}
        for i, l in enumerate(lines):
            m = DECLARATION.match(l)
            if m:
                declared.setdefault(m[1], []).append(i)
        once = [(n, ls[0]) for n, ls in declared.items() if len(ls) == 1]
        if not once:
            return None
        name, i = rng.choice(sorted(once))
        m = DECLARATION.match(lines[i])
        lines[i] = lines[i][: m.start(1)] + name + "Renamed" + lines[i][m.end(1):]
        path.write_text("\n".join(lines), encoding="utf-8")
        return f"renamed the declaration of {name} on line {i + 1}"
    if kind == "rename-local":
        found = [(i, m) for i, l in enumerate(lines) if (m := LOCAL.match(l))]
        if not found:
            return None
        i, m = rng.choice(found)
        name = m[1]
        lines[i] = lines[i][: m.start(1)] + name + "Renamed" + lines[i][m.end(1):]
        path.write_text("\n".join(lines), encoding="utf-8")
        return f"renamed the local {name} on line {i + 1}"
    if kind == "break-import":
        found = [(i, m) for i, l in enumerate(lines) for m in RELATIVE_SPEC.finditer(l)]
        if not found:
            return None
        i, m = rng.choice(found)
        spec = m[3]
        broken = spec + "Missing"
        lines[i] = lines[i][: m.start(3)] + broken + lines[i][m.end(3):]
        path.write_text("\n".join(lines), encoding="utf-8")
        return f"line {i + 1}: '{spec}' → '{broken}'"
    if kind == "extra-argument":
        # Not functions with a rest parameter: one more argument is then usually welcome
        # (or a tuple type's business, which sextant does not judge).
        declared = {
            m[1] for i, l in enumerate(lines)
            if (m := FUNCTION_DECLARATION.match(l))
            and "..." not in re.split(r"[{;]", "\n".join(lines[i:i + 20]), maxsplit=1)[0]
        }
        found = [
            (i, m) for i, l in enumerate(lines)
            if not FUNCTION_DECLARATION.match(l)
            for m in ONE_LINE_CALL.finditer(l) if m[1] in declared
        ]
        if not found:
            return None
        i, m = rng.choice(found)
        extra = ", 0" if m[2].strip() else "0"
        lines[i] = lines[i][: m.end(2)] + extra + lines[i][m.end(2):]
        path.write_text("\n".join(lines), encoding="utf-8")
        BROKEN_CALLS.add((path, i + 1))
        return f"line {i + 1}: {m[0]} → {m[1]}({m[2]}{extra})"
    raise ValueError(kind)


def unchecked_files(root, files):
    """Files tsc does not check (`// @ts-nocheck`)."""
    return {f for f in files if "@ts-nocheck" in (root / f).read_text(encoding="utf-8", errors="replace")}


def suppressed_lines(root, files):
    """(path, line) of the lines tsc's errors are suppressed on: those after a
    `// @ts-expect-error` or `// @ts-ignore` comment line."""
    found = set()
    for f in files:
        lines = (root / f).read_text(encoding="utf-8", errors="replace").split("\n")
        for i, line in enumerate(lines):
            if re.match(r"\s*(//|/\*)\s*@ts-(expect-error|ignore)", line):
                found.add((f, i + 2))
    return found


def source_line(root, path, line):
    try:
        return (root / path).read_text(encoding="utf-8").split("\n")[line - 1].strip()[:120]
    except (OSError, IndexError):
        return "?"


def compare(label, root, sextant_found, tsc_found, show, describe):
    both = sextant_found & tsc_found
    only_sextant = sorted(sextant_found - tsc_found)
    only_tsc = sorted(tsc_found - sextant_found)
    precision = len(both) / len(sextant_found) if sextant_found else 1.0
    recall = len(both) / len(tsc_found) if tsc_found else 1.0
    print(
        f"{label}: sextant {len(sextant_found)}, tsc {len(tsc_found)}, both {len(both)}; "
        f"precision {precision:.3f}, recall {recall:.3f}"
    )
    for title, items in (("sextant only", only_sextant), ("tsc only", only_tsc)):
        for item in items[:show]:
            print(f"  {title}: {describe(item)}")
        if len(items) > show:
            print(f"  {title}: … {len(items) - show} more")
    return precision, recall


def measure(args, root, tsconfig, check_paths, show, mutated=None):
    program = program_files(args.typescript, root, tsconfig)
    if not program:
        fail("tsc lists no file in its program")
    tsc_names, tsc_modules, tsc_exports, tsc_unused, tsc_arity = run_tsc(args.typescript, root, tsconfig, args.type_roots)
    s_names, s_modules, s_exports, s_unused, broken, s_arity = run_sextant(args.sextant, root, check_paths)
    keep = (program - broken) - unchecked_files(root, program)
    if mutated is not None:
        keep &= mutated
    suppressed = suppressed_lines(root, keep)
    everywhere = (program - broken) - unchecked_files(root, program)
    suppressed |= suppressed_lines(root, everywhere)
    pick = lambda found: {f for f in found if f[0] in keep and (f[0], f[1]) not in suppressed}
    # A mutation breaks the imports of other files: names a module no longer exports.
    pick_all = lambda found: {f for f in found if f[0] in everywhere and (f[0], f[1]) not in suppressed}
    if broken & program:
        print(f"  {len(broken & program)} files of the program have syntax errors for sextant: left out")
    describe_name = lambda f: f"{f[0]}:{f[1]}:{f[2]} '{f[3]}'  | {source_line(root, f[0], f[1])}"
    describe_module = lambda f: f"{f[0]} '{f[1]}'"
    names = compare("  undefined names", root, pick(s_names), pick(tsc_names), show, describe_name)
    modules = compare("  unresolved relative imports", root, pick(s_modules), pick(tsc_modules), show, describe_module)
    exports = compare("  names a module does not export (every file)", root, pick_all(s_exports), pick_all(tsc_exports), show, describe_name)
    local = lambda found: {f for f in pick(found) if is_local_declarator(root, f)}
    unused = compare("  unused local variables", root, local(s_unused), local(tsc_unused), show, describe_name)
    describe_line = lambda f: f"{f[0]}:{f[1]}  | {source_line(root, f[0], f[1])}"
    arity_found = pick_all(s_arity)
    precision = compare("  impossible calls (every file)", root, arity_found, pick_all(tsc_arity), show, describe_line)[0]
    broken_calls = {(str(p.relative_to(root)), line) for p, line in BROKEN_CALLS}
    recall = compare(
        "  calls a mutation broke", root, arity_found & broken_calls, pick_all(tsc_arity) & broken_calls, show, describe_line
    )[1]
    return names, modules, exports, unused, (precision, recall), len(keep)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", default=str(REPO / "target/debug/sextant"))
    parser.add_argument("--project", default=str(NODE_MODULES / "rxjs"), help="a directory, or `zod`")
    parser.add_argument("--tsconfig", help="relative to the project (default: rxjs's src/tsconfig.base.json)")
    parser.add_argument("--copy", nargs="*", help="entries of the project to copy (default: src and tsconfig.json)")
    parser.add_argument("--typescript", type=Path, default=NODE_MODULES / "typescript")
    parser.add_argument("--mutations", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=40)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()
    if not (args.typescript / "bin/tsc").exists():
        fail(f"no TypeScript under {args.typescript}")
    if shutil.which("node") is None:
        fail("no Node.js")
    zod = args.project == "zod"
    project = NODE_MODULES / "zod" if zod else Path(args.project)
    tsconfig = args.tsconfig or ("tsconfig.json" if zod else "src/tsconfig.base.json")
    entries = args.copy or (["src"] if zod else ["src", "tsconfig.json"])
    # @types/node from the tools' node_modules: the copy lives outside it.
    args.type_roots = NODE_MODULES / "@types" if (NODE_MODULES / "@types").is_dir() else None
    failed = False
    with tempfile.TemporaryDirectory(prefix="tsc-compare-") as tmp:
        root = Path(tmp)
        copy_project(project, entries, root)
        if zod:
            (root / "tsconfig.json").write_text(json.dumps(ZOD_TSCONFIG))
        check_paths = [e for e in entries if (root / e).is_dir()] or ["."]
        print(f"project {project} ({tsconfig}), unchanged:")
        (names, modules, exports, unused, arity, files) = measure(args, root, tsconfig, check_paths, args.show)
        print(f"  {files} files compared")
        failed |= min(names[0], modules[0], exports[0], unused[0], arity[0]) < args.min_precision
        if args.mutations > 0:
            rng = random.Random(args.seed)
            program = sorted(
                p for p in program_files(args.typescript, root, tsconfig)
                if p.endswith((".ts", ".tsx")) and not p.endswith(".d.ts")
            )
            rng.shuffle(program)
            kinds = ["drop-import", "rename", "rename-local", "break-import", "extra-argument"]
            mutated, done = set(), 0
            for path in program:
                if done >= args.mutations:
                    break
                # The kinds in turn; a file the next kind does not apply to takes the one after.
                for step in range(len(kinds)):
                    kind = kinds[(done + step) % len(kinds)]
                    description = mutate(root / path, kind, rng)
                    if description:
                        break
                if description:
                    mutated.add(path)
                    done += 1
                    if args.show:
                        print(f"  mutation {kind} in {path}: {description}")
            print(f"{done} files mutated:")
            (names, modules, exports, unused, arity, files) = measure(args, root, tsconfig, check_paths, args.show, mutated)
            print(f"  {files} mutated files compared")
            failed |= min(names[0], modules[0], exports[0], unused[0], arity[0]) < args.min_precision
            failed |= min(names[1], modules[1], exports[1], unused[1], arity[1]) < args.min_recall
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
