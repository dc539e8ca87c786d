"""The vendored, patched Python grammar against the unpatched one: same tree for every file.

vendor/tree-sitter-python carries a scanner patch (PATCHES.md there) that must change
nothing but speed. This builds two small C programs (dump.c beside this file, tree-sitter's
runtime from the cargo dependency, the vendored parser.c) that differ only in scanner.c:
the vendored one, and the same with patches/*.patch reversed, i.e. the published scanner.
Both parse every file under a root (default: this interpreter's standard library) and the
generated shapes below, and print a hash of every node (kind, field, byte range, missing
and error flags) per file; any difference fails, with the first differing lines of the
two listings. With --edits N each file also gets N pseudo-random edits, each reparsed
incrementally and compared with a fresh parse (the patched scanner reads less ahead, and
tree-sitter re-lexes a token only when an edit falls within what was read for it); this
fails only on files where the patched scanner differs more often than the published one,
since tree-sitter's own incremental reparses are not always identical to fresh parses.

    python tests/oracle/python_scanner_compare.py [--root DIR] [--edits N] [--shapes-only]

Needs a C compiler (`cc`), `patch`, and cargo (to locate tree-sitter's sources).
"""

import argparse
import difflib
import json
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENDOR = REPO / "vendor" / "tree-sitter-python"
HERE = Path(__file__).resolve().parent / "python_scanner"


def runtime_dir():
    """tree-sitter's C runtime: the `tree-sitter` package cargo resolved for this repository."""
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1"],
        cwd=REPO, check=True, capture_output=True, text=True,
    )
    for package in json.loads(meta.stdout)["packages"]:
        if package["name"] == "tree-sitter":
            return Path(package["manifest_path"]).parent
    sys.exit("tree-sitter is not among the cargo dependencies")


def build(work):
    """Builds `patched` and `published` in `work`; returns their paths."""
    runtime = runtime_dir()
    cc = ["cc", "-O2", "-std=c11", "-w"]
    # The runtime uses the byte-order functions of glibc's default feature set.
    subprocess.run(cc + ["-D_DEFAULT_SOURCE", "-I", runtime / "include", "-I", runtime / "src", "-c",
                         runtime / "src" / "lib.c", "-o", work / "lib.o"], check=True)
    subprocess.run(cc + ["-I", VENDOR / "src", "-c", VENDOR / "src" / "parser.c",
                         "-o", work / "parser.o"], check=True)
    published = work / "published"
    (published / "src").mkdir(parents=True)
    (published / "src" / "scanner.c").write_bytes((VENDOR / "src" / "scanner.c").read_bytes())
    for patch in sorted((VENDOR / "patches").glob("*.patch"), reverse=True):
        subprocess.run(["patch", "-s", "-R", "-p1", "-i", patch], cwd=published, check=True)
    binaries = {}
    for name, scanner in [("patched", VENDOR / "src" / "scanner.c"),
                          ("published", published / "src" / "scanner.c")]:
        obj = work / f"scanner-{name}.o"
        subprocess.run(cc + ["-I", VENDOR / "src", "-c", scanner, "-o", obj], check=True)
        binaries[name] = work / f"dump-{name}"
        subprocess.run(cc + ["-I", runtime / "include", HERE / "dump.c", work / "lib.o",
                             work / "parser.o", obj, "-o", binaries[name]], check=True)
    return binaries


def shapes(directory):
    """Small files of the shapes the patch is about: comment runs in every position."""
    n = 200
    run = "# pad\n" * n
    texts = {
        "top": "x = 1\n" + run,
        "top_then_code": "x = 1\n" + run + "y = 2\n",
        "only_comments": run,
        "blank_lines_between": "x = 1\n" + "# pad\n\n" * n + "y = 2\n",
        "block_same_indent": "def f():\n    x = 1\n" + "    # pad\n" * n + "    y = 2\n",
        "block_dedented_comments_stay": "def f():\n    x = 1\n" + run + "    y = 2\n",
        "block_dedented_comments_leave": "def f():\n    x = 1\n" + run + "y = 2\n",
        "after_colon": "def f():\n" + run + "    pass\n",
        "after_colon_indented": "def f():\n" + "    # pad\n" * n + "    pass\n",
        "after_colon_eof": "if x:\n" + run,
        "deeper_comments": "if a:\n    if b:\n        x = 1\n" + "      # pad\n" * n + "  y = 2\n",
        "try_except": "try:\n    x = 1\n" + run + "except E:\n    pass\n",
        "brackets": "x = [\n" + "    # pad\n" * n + "]\n",
        "backslash_after_run": "x = 1\n" + run + "\\ y\n",
        "continuation_then_run": "x = 1 + \\\n" + run + "2\n",
        "string_after_run": "def f():\n    x = 1\n" + run + "'doc'\n",
        "fstring": "x = f'{\n" + run + "}'\n",
        "unclosed": "x = (\n" + run,
        "broken_block": "def f(:\n    x = 1\n" + "    # pad\n" * n + "    y = 2\n",
        "tabs": "if a:\n\tx = 1\n" + "\t# pad\n" * n + "# pad\n" * n + "\ty = 2\n",
        "crlf": ("x = 1\n" + run + "def f():\n    y = 2\n" + run + "    z = 3\n").replace("\n", "\r\n"),
        "form_feed": "x = 1\n" + "\f# pad\n" * n + "y = 2\n",
    }
    paths = []
    for name, text in texts.items():
        path = directory / f"shape_{name}.py"
        path.write_text(text, newline="")
        paths.append(path)
    return paths


def run(binary, files, edits):
    """{file: (hash, incremental failures)} from `binary` over `files`, in batches."""
    results = {}
    args = [binary] + (["-e", str(edits)] if edits else [])
    for start in range(0, len(files), 400):
        out = subprocess.run(args + [str(f) for f in files[start:start + 400]],
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            digest, failures, path = line.split(" ", 2)
            results[path] = (digest, int(failures))
    return results


def show_difference(binaries, path):
    listings = [subprocess.run([binaries[name], "-v", path], check=True, capture_output=True,
                               text=True).stdout.splitlines() for name in ("published", "patched")]
    diff = difflib.unified_diff(*listings, "published", "patched", lineterm="", n=2)
    print("\n".join(list(diff)[:40]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--edits", type=int, default=0, help="random edits per file")
    parser.add_argument("--shapes-only", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        binaries = build(work)
        files = shapes(work)
        if not args.shapes_only:
            files += sorted(args.root.rglob("*.py"))
        timings, results = {}, {}
        for name, binary in binaries.items():
            began = time.monotonic()
            results[name] = run(binary, files, args.edits)
            timings[name] = time.monotonic() - began
        published, patched = results["published"], results["patched"]
        differ = [p for p in published if published[p][0] != patched.get(p, ("",))[0]]
        print(f"{len(files)} files ({len(files) - len(differ)} identical trees); "
              f"published {timings['published']:.1f} s, patched {timings['patched']:.1f} s")
        if args.edits:
            for name, result in results.items():
                failing = sum(1 for _, failures in result.values() if failures)
                print(f"{name}: {failing} files with an incremental reparse unlike a fresh one")
        worse = [p for p in patched if patched[p][1] > published[p][1]]
        for path in differ[:3]:
            print(f"trees differ: {path}")
            show_difference(binaries, path)
        for path in worse[:10]:
            print(f"incremental reparse differs only when patched: {path}")
        sys.exit(1 if differ or worse else 0)


if __name__ == "__main__":
    main()
