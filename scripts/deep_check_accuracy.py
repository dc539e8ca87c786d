#!/usr/bin/env python3
"""Accuracy of `sextant check --deep` against each checker run by hand, on mutated copies
of real projects.

For each language, a real project is copied to a temporary directory; each mutation
changes one line of one file (a wrong argument type: a call's first argument replaced by a
literal of another type; a missing attribute: `this.x`/`self.x`/`v.x` renamed; a wrong
return type: a returned expression replaced by a literal, in Rust also a function's tail
expression written on one line), then the checker runs by hand
(its own command, its own output read by this script) and `sextant check --deep --format
json` runs on the same tree. Each gives a set of (path, line, code); the script prints the
precision and recall of sextant's set against the tool's, summed over the mutants (a
diagnostic sextant merged into one of its own counts under `also`). Diagnostics in files
outside the copy (a dependency's source) are left out of the tool's set: sextant drops
them by design.

    scripts/deep_check_accuracy.py --sextant target/debug/sextant \\
        [--languages typescript,python,go,rust] [--mutations 100] [--seed 1] \\
        [--min-precision P] [--min-recall R] [--time-edit] [--time-edit-server] [--show 5]

Projects: rxjs 7's sources (TypeScript, tsc from target/npm-tools), `packaging` from the
test venv (Python, pyright from target/npm-tools), a module of a dozen Go standard library
packages that import nothing internal (Go 1.19, `go vet`), and the `either` crate from
cargo's source cache (Rust, `cargo check`). `--time-edit` also times a one-file edit on
rxjs: the deep check after the edit against `tsc --incremental` run by hand after the same
edit, each warm, as a ratio of medians; `--time-edit-server` times the same edit answered by
a warm `sextant mcp` server's deep `typecheck` (from the write until an answer in which tsc
ran again), and the repeated call on the unchanged project. Exit status 1 when a threshold is
missed.
"""

import argparse
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))
from raw_mcp import RawMcpServer  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NPM_BIN = REPO / "target/npm-tools/node_modules/.bin"
VENV = REPO / "target/test-venv"
GO_PACKAGES = [
    "encoding/csv", "encoding/hex", "encoding/base32", "encoding/base64", "container/list",
    "container/ring", "text/tabwriter", "mime/quotedprintable", "bufio", "encoding/ascii85", "html",
    "encoding/pem", "hash/adler32", "hash/fnv", "image/color",
]
KINDS = ("argument", "attribute", "return")
KEYWORDS = {
    "if", "for", "while", "switch", "return", "catch", "function", "typeof", "new", "match",
    "def", "class", "elif", "print", "not", "and", "or", "in", "is", "lambda", "yield", "with",
    "assert", "del", "await", "super", "func", "go", "defer", "fn", "loop", "Some", "Ok", "Err",
    "Box", "Vec", "String", "len", "cap", "make", "append", "panic", "delete", "copy", "new",
}


class Language:
    name = ""
    namespace = ""
    suffix = ""
    comment = "//"

    def setup(self, root: Path):
        raise NotImplementedError

    def tool(self, root: Path, scratch: Path):
        """The checker by hand: its set of (path, line, code)."""
        raise NotImplementedError

    def attribute(self, line):
        return None

    def wrong_literal(self):
        return '"mutant"'

    def declares(self, line, name):
        return False

    def tail_returns(self, lines):
        """(line index, new line) for each returned value the language writes without
        `return`, the literal in its place."""
        return []

    def files(self, root: Path):
        return sorted(p for p in root.rglob(f"*{self.suffix}") if "node_modules" not in p.parts)


def run(command, cwd, env=None, timeout=900):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def inside(root: Path, path: str):
    """`path` (absolute or relative to root) as root-relative, or None when outside."""
    full = Path(os.path.normpath(root / path))
    try:
        return full.relative_to(root).as_posix()
    except ValueError:
        return None


class TypeScript(Language):
    name, namespace, suffix = "typescript", "tsc", ".ts"
    source = REPO / "target/npm-tools/node_modules/rxjs"

    def setup(self, root):
        shutil.copytree(self.source / "src", root / "src")
        shutil.copy(self.source / "tsconfig.json", root / "tsconfig.json")

    def tool(self, root, scratch):
        out = run([str(NPM_BIN / "tsc"), "--noEmit", "--pretty", "false", "--incremental",
                   "--tsBuildInfoFile", str(scratch / "hand.tsbuildinfo"), "-p", "."], root)
        found = set()
        for line in out.stdout.splitlines():
            m = re.match(r"^(.+)\((\d+),(\d+)\): \w+ TS(\d+): ", line)
            if m and (path := inside(root, m[1])):
                found.add((path, int(m[2]), f"tsc:TS{m[4]}"))
        return found

    def attribute(self, line):
        return re.search(r"\bthis\.([A-Za-z_]\w*)\b", line)

    def wrong_literal(self):
        return 'Symbol("mutant")'

    def declares(self, line, name):
        stripped = line.strip()
        return bool(re.match(rf"^(export\s+)?(public |private |protected |static |async |get |set |function\s+)*{re.escape(name)}\s*[<(]", stripped)) and stripped.endswith("{")


class Python(Language):
    name, namespace, suffix, comment = "python", "pyright", ".py", "#"

    def setup(self, root):
        site = Path(glob.glob(str(VENV / "lib/python3*/site-packages"))[0])
        shutil.copytree(site / "packaging", root / "packaging", ignore=shutil.ignore_patterns("__pycache__"))
        (root / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')

    def tool(self, root, scratch):
        out = run([str(NPM_BIN / "pyright"), "--outputjson", "."], root)
        found = set()
        for d in json.loads(out.stdout)["generalDiagnostics"]:
            path = inside(root, d["file"])
            if path and "range" in d:
                rule = d.get("rule")
                found.add((path, d["range"]["start"]["line"] + 1, f"pyright:{rule}" if rule else "pyright"))
        return found

    def attribute(self, line):
        return re.search(r"\bself\.([A-Za-z_]\w*)\b", line)

    def wrong_literal(self):
        return 'b"mutant"'

    def declares(self, line, name):
        return bool(re.match(rf"^\s*(async\s+)?(def|class)\s+{re.escape(name)}\b", line))


class Go(Language):
    name, namespace, suffix = "go", "go", ".go"

    def setup(self, root):
        goroot = run(["go", "env", "GOROOT"], root).stdout.strip()
        for package in GO_PACKAGES:
            target = root / package
            target.mkdir(parents=True)
            for source in Path(goroot, "src", package).glob("*.go"):
                if not source.name.endswith("_test.go"):
                    text = source.read_text()
                    if "//go:build ignore" not in text:
                        shutil.copy(source, target / source.name)
        (root / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
        # The packages import each other by their standard library paths; the copies stand
        # alone (only the mutated copy's errors matter, and std's originals are intact).

    def tool(self, root, scratch):
        env = dict(os.environ, GOFLAGS="-mod=mod", GOCACHE=str(scratch / "gocache"))
        out = run(["go", "vet", "-json", "./..."], root, env=env)
        found = set()
        block = None
        for line in out.stderr.splitlines():
            if block is not None:
                block.append(line)
                if line == "}":
                    for analyzers in json.loads("\n".join(block)).values():
                        for analyzer, items in analyzers.items():
                            for item in items if isinstance(items, list) else []:
                                m = re.match(r"^(.*):(\d+):(\d+)$", item["posn"])
                                if m and (path := inside(root, m[1])):
                                    found.add((path, int(m[2]), f"go:vet/{analyzer}"))
                    block = None
                continue
            if line == "{":
                block = [line]
                continue
            m = re.match(r"^(?:vet: )?([^\s:][^:]*\.go):(\d+)(?::\d+)?: ", line)
            if m and (path := inside(root, m[1])):
                found.add((path, int(m[2]), "go:build"))
        return found

    def attribute(self, line):
        return re.search(r"\b[a-z]\w{0,2}\.([A-Za-z]\w*)\b", line)

    def declares(self, line, name):
        return bool(re.match(rf"^\s*func\s+(\([^)]*\)\s*)?{re.escape(name)}\b", line))


class Rust(Language):
    name, namespace, suffix = "rust", "rustc", ".rs"

    def setup(self, root):
        [source] = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/either-1.*"))[:1]
        shutil.copytree(Path(source) / "src", root / "src")
        manifest = tomllib.loads((Path(source) / "Cargo.toml").read_text())
        package = manifest["package"]
        optional = [name for name, dep in manifest.get("dependencies", {}).items() if isinstance(dep, dict) and dep.get("optional")]
        features = {name: [f for f in deps if f.split("/")[0].removeprefix("dep:") not in optional]
                    for name, deps in manifest.get("features", {}).items()}
        for name in optional:
            features.setdefault(name, [])
        lines = ["[package]", f'name = "{package["name"]}"', f'version = "{package["version"]}"',
                 f'edition = "{package.get("edition", "2021")}"', "", "[features]"]
        lines += [f"{name} = {json.dumps(deps)}" for name, deps in features.items()]
        lines += ["", "[workspace]", ""]
        (root / "Cargo.toml").write_text("\n".join(lines))

    def tool(self, root, scratch):
        env = dict(os.environ, CARGO_TARGET_DIR=str(scratch / "hand-target"), CARGO_TERM_COLOR="never")
        out = run(["cargo", "check", "--workspace", "--all-targets", "--message-format=json"], root, env=env)
        found = set()
        for line in out.stdout.splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            message = entry.get("message") if entry.get("reason") == "compiler-message" else None
            if not message or message["level"] not in ("error", "warning", "note", "help"):
                continue
            primary = [s for s in message["spans"] if s["is_primary"]]
            if not primary:
                continue
            path = inside(root, primary[0]["file_name"])
            if path:
                code = message.get("code")
                found.add((path, primary[0]["line_start"], f"rustc:{code['code']}" if code else "rustc"))
        return found

    def attribute(self, line):
        return re.search(r"\bself\.([a-z_]\w*)\b", line)

    def declares(self, line, name):
        return bool(re.match(rf"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+{re.escape(name)}\b", line))

    def tail_returns(self, lines):
        # A function's value is mostly its body's last expression, not a `return`: each
        # one written on one line, in a function whose signature returns a value. The
        # body is found by rustfmt's layout: its closing `}` is indented as its `fn` is.
        out = []
        for close, line in enumerate(lines):
            if line.strip() != "}":
                continue
            indent = indentation(line)
            opener = close - 1
            while opener >= 0 and (not lines[opener].strip() or indentation(lines[opener]) > indent):
                opener -= 1
            if opener < 0 or indentation(lines[opener]) != indent or not lines[opener].rstrip().endswith("{"):
                continue
            head = opener
            while head > opener - 12 and head > 0 and not RUST_FN.match(lines[head]):
                head -= 1
            signature = lines[head:opener + 1]
            if (not RUST_FN.match(lines[head]) or indentation(lines[head]) != indent
                    or any(s.rstrip().endswith((";", "}")) for s in signature[:-1])):
                continue
            returned = rust_return_type(" ".join(s.strip() for s in signature))
            if returned in (None, "()", "!"):
                continue
            tail = close - 1
            while not lines[tail].strip():
                tail -= 1
            before = tail - 1
            while before > opener and lines[before].strip().startswith("//"):
                before -= 1
            expression = lines[tail].strip()
            if (tail > opener and expression and balanced(expression)
                    and not expression.endswith((";", ",", "{"))
                    and not expression.startswith(("}", ")", "]", ".", "?", "//", "#", "|", "=>", "+", "-", "*", "&&", "||"))
                    and (before == opener or lines[before].rstrip().endswith((";", "{", "}")))):
                out.append((tail, lines[tail][:indentation(lines[tail])] + self.wrong_literal()))
        return out


RUST_FN = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(default\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"[^"]*"\s+)?fn\s')


def indentation(line):
    return len(line) - len(line.lstrip())


def balanced(text):
    """Whether `text`'s brackets close on it, string and character literals left out."""
    text = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])\'', "", text)
    depth = 0
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if depth < 0:
            return False
    return depth == 0


def rust_return_type(signature):
    """The type after a signature's own `->` (the one outside brackets, before `where`
    and the body's brace), or None when it returns nothing."""
    depth = 0
    arrow = None
    for m in re.finditer(r"->|[(\[<]|[)\]>]|\bwhere\b|\{", signature):
        token = m[0]
        if token == "->":
            if depth == 0 and arrow is None:
                arrow = m.end()
        elif token in "([<":
            depth += 1
        elif token in ")]>":
            depth -= 1
        elif depth == 0:
            return signature[arrow:m.start()].strip() if arrow is not None else None
    return None


LANGUAGES = {cls.name: cls for cls in (TypeScript, Python, Go, Rust)}


def candidates(language: Language, root: Path):
    """Every (file, line index, kind, new line) a mutation can make."""
    out = []
    for path in language.files(root):
        lines = path.read_text().split("\n")
        tails = dict(language.tail_returns(lines))
        for i, line in enumerate(lines):
            stripped = line.strip()
            if not stripped or stripped.startswith((language.comment, "*", "/*", "import ", "from ", "use ", "@")):
                continue
            rel = path.relative_to(root).as_posix()
            if m := re.match(r"^(\s*)return\s+(\S.*?)(;?)\s*$", line):
                out.append((rel, i, "return", f"{m[1]}return {language.wrong_literal()}{m[3]}"))
            if i in tails:
                out.append((rel, i, "return", tails[i]))
            if (m := language.attribute(line)) and not stripped.startswith(("func ", "fn ", "def ")):
                start, end = m.span(1)
                out.append((rel, i, "attribute", line[:start] + line[start:end] + "_mutant" + line[end:]))
            for m in re.finditer(r"(?<![\w.!$])([A-Za-z_]\w*)\(([^()\"',]+)([,)])", line):
                name = m[1]
                if name in KEYWORDS or language.declares(line, name):
                    continue
                start, end = m.span(2)
                out.append((rel, i, "argument", line[:start] + language.wrong_literal() + line[end:]))
                break
    return out


def sextant_set(sextant, root: Path, cache: Path, namespace: str, path_env: str):
    env = dict(os.environ, PATH=path_env)
    out = run([sextant, "--root", str(root), "--cache-dir", str(cache), "check", "--deep", "--format", "json"], root, env=env)
    answer = json.loads(out.stdout)
    found = set()
    for d in answer["diagnostics"]:
        for code in [d["code"], *d.get("also", [])]:
            if ":" in code or code in ("rustc", "pyright"):
                found.add((d["path"], d["span"]["start"]["line"], code))
    statuses = [(c["tool"], c["status"], c.get("detail")) for c in answer.get("checkers", [])]
    return found, statuses


def measure(args, language: Language, show: int):
    scratch = Path(tempfile.mkdtemp(prefix=f"deep-accuracy-{language.name}-"))
    root = scratch / "project"
    root.mkdir()
    try:
        language.setup(root)
        path_env = f"{NPM_BIN}:{os.environ['PATH']}"
        cache = scratch / "cache"
        baseline_tool = language.tool(root, scratch)
        baseline, statuses = sextant_set(args.sextant, root, cache, language.namespace, path_env)
        print(f"{language.name}: unmutated: tool {len(baseline_tool)}, sextant {len(baseline)} diagnostics; checkers {statuses}", flush=True)
        pool = candidates(language, root)
        rng = random.Random(args.seed)
        chosen = []
        for kind_index in range(args.mutations):
            kind = KINDS[kind_index % len(KINDS)]
            # A kind the project offers too few of gives its turn to the others.
            of_kind = [c for c in pool if c[2] == kind and c not in chosen] or [c for c in pool if c not in chosen]
            if of_kind:
                chosen.append(rng.choice(of_kind))
        both = sext = tool_total = effective = 0
        shown = 0
        per_kind = {k: 0 for k in KINDS}
        for rel, i, kind, new_line in chosen:
            path = root / rel
            original = path.read_text()
            lines = original.split("\n")
            lines[i] = new_line
            path.write_text("\n".join(lines))
            try:
                tool = language.tool(root, scratch)
                ours, statuses = sextant_set(args.sextant, root, cache, language.namespace, path_env)
            finally:
                path.write_text(original)
            if tool - baseline_tool:
                effective += 1
                per_kind[kind] += 1
            both += len(tool & ours)
            sext += len(ours)
            tool_total += len(tool)
            done = chosen.index((rel, i, kind, new_line)) + 1
            if done % 10 == 0:
                print(f"  {language.name}: {done} mutants, both {both} of tool {tool_total}, sextant {sext}", flush=True)
            if (tool != ours) and shown < show:
                shown += 1
                print(f"  {rel}:{i + 1} ({kind}): only the tool: {sorted(tool - ours)[:5]}; only sextant: {sorted(ours - tool)[:5]}; checkers {statuses}")
        precision = both / sext if sext else 1.0
        recall = both / tool_total if tool_total else 1.0
        print(f"{language.name}: {len(chosen)} mutants ({effective} gave the tool a new diagnostic: "
              + ", ".join(f"{k} {v}" for k, v in per_kind.items())
              + f"); diagnostics: tool {tool_total}, sextant {sext}, both {both}; precision {precision:.3f}, recall {recall:.3f}")
        return precision, recall
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def edit_timings(args, language, root: Path, scratch: Path, target: Path, ours):
    """`--time-runs` edits of `target`, each answered first by `ours()` (timed from the
    write), then by the tool by hand: the two lists of seconds."""
    original = target.read_text()
    ours_times, theirs = [], []
    try:
        for n in range(args.time_runs):
            # A new text each time, so neither answers from a memo of an earlier one.
            target.write_text(original + f"\nexport const edit{n} = {n};\n")
            started = time.monotonic()
            ours()
            ours_times.append(time.monotonic() - started)
            started = time.monotonic()
            language.tool(root, scratch)
            theirs.append(time.monotonic() - started)
    finally:
        target.write_text(original)
    return ours_times, theirs


def time_edit(args):
    """A one-file edit on rxjs: the deep check vs `tsc --incremental` by hand, both warm."""
    language = TypeScript()
    scratch = Path(tempfile.mkdtemp(prefix="deep-accuracy-time-"))
    root = scratch / "project"
    root.mkdir()
    try:
        language.setup(root)
        path_env = f"{NPM_BIN}:{os.environ['PATH']}"
        cache = scratch / "cache"
        target = root / "src/internal/operators/map.ts"
        language.tool(root, scratch)
        sextant_set(args.sextant, root, cache, "tsc", path_env)
        ours, theirs = edit_timings(
            args, language, root, scratch, target,
            lambda: sextant_set(args.sextant, root, cache, "tsc", path_env),
        )
        print(f"one-file edit on rxjs ({args.time_runs} runs): sextant check --deep median {statistics.median(ours):.2f} s, "
              f"tsc --incremental by hand median {statistics.median(theirs):.2f} s, ratio {statistics.median(ours) / statistics.median(theirs):.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def deep_typecheck(server: RawMcpServer):
    return server.tool("typecheck", {"depth": "deep", "limit": 5000})["structuredContent"]


def time_edit_server(args):
    """The same edit, answered by a warm server's deep `typecheck`, which keeps the
    workspace between calls (the watcher reads the edit), against `tsc --incremental` by
    hand; and an unchanged project's repeated call."""
    language = TypeScript()
    scratch = Path(tempfile.mkdtemp(prefix="deep-accuracy-server-"))
    root = scratch / "project"
    root.mkdir()
    server = None
    try:
        language.setup(root)
        path_env = f"{NPM_BIN}:{os.environ['PATH']}"
        target = root / "src/internal/operators/map.ts"
        language.tool(root, scratch)
        server = RawMcpServer(args.sextant, root, "--no-background-check", "--request-timeout-ms", "600000",
                              env=dict(os.environ, PATH=path_env), client="deep_check_accuracy")
        deep_typecheck(server)
        repeated = []
        for _ in range(args.time_runs):
            started = time.monotonic()
            deep_typecheck(server)
            repeated.append(time.monotonic() - started)

        def until_tsc_ran():
            # The watcher's delay is the server's to pay: the clock started at the write.
            while not any(c.get("status") == "ran" for c in deep_typecheck(server).get("checkers", [])):
                pass

        ours, theirs = edit_timings(args, language, root, scratch, target, until_tsc_ran)
        print(f"warm server, unchanged rxjs ({args.time_runs} runs): typecheck depth=deep median "
              f"{statistics.median(repeated) * 1000:.1f} ms")
        print(f"warm server, one-file edit on rxjs ({args.time_runs} runs): typecheck depth=deep median "
              f"{statistics.median(ours):.2f} s, tsc --incremental by hand median {statistics.median(theirs):.2f} s, "
              f"ratio {statistics.median(ours) / statistics.median(theirs):.2f}")
    finally:
        if server:
            server.close()
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sextant", default=str(REPO / "target/debug/sextant"))
    parser.add_argument("--languages", default="typescript,python,go,rust")
    parser.add_argument("--mutations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=5)
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--time-edit", action="store_true")
    parser.add_argument("--time-edit-server", action="store_true")
    parser.add_argument("--time-runs", type=int, default=5)
    args = parser.parse_args()
    # The tools run in the copies: a relative path would name nothing there.
    args.sextant = os.path.abspath(args.sextant)
    failed = False
    for name in filter(None, args.languages.split(",")):
        precision, recall = measure(args, LANGUAGES[name](), args.show)
        if precision < args.min_precision or recall < args.min_recall:
            print(f"{name}: below --min-precision {args.min_precision} or --min-recall {args.min_recall}")
            failed = True
    if args.time_edit:
        time_edit(args)
    if args.time_edit_server:
        time_edit_server(args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
