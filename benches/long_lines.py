#!/usr/bin/env python3
"""Indexing cost of long inputs: minified JavaScript, and long runs of comment lines.

Generates, in its own directory each:
  lines-<N>mb/code.js   the code with a newline after each statement and brace (baseline)
  single-<N>mb/code.js  the same code with every newline removed (one line of N MB)
then runs `sextant --root DIR --max-file-size BIG stats` under `/usr/bin/time` for each
and prints the wall time, peak memory and the single-line/baseline ratios.

    python3 benches/long_lines.py --sextant target/release/sextant [--sizes 2,10]
    python3 benches/long_lines.py --generate-only --out /tmp/long-lines

The code mixes what a bundle holds: function declarations, classes with methods and
fields, object literals with function-valued properties, arrow functions and IIFEs, with
strings in several scripts (é, 漢字, 😀) so columns are not byte counts.

With --comment-runs N,... it measures instead files of N comment lines (`# pad`) after a
statement, which the published tree-sitter-python scanner parsed in quadratic time
(vendor/tree-sitter-python/PATCHES.md), beside the same in JavaScript, and N comment lines
at column 0 inside a function body that goes on after them (the shape the patch leaves
quadratic, which the parse budget stops). Each file is timed alone with
`sextant --root DIR --max-file-size BIG parse FILE --errors-only` and with `stats`:

    python3 benches/long_lines.py --sextant target/release/sextant \
        --comment-runs 10000,20000,40000,500000 [--timeout 120]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile


def unit(i):
    """One chunk of minified code, with `;`, `{` and `}` where newlines may go."""
    return (
        f"function fmt{i}(a,b){{var s='é漢😀'+a;if(b){{return s+b;}}return s;}}"
        f"class Widget{i} extends Base{{size={i};constructor(w,h){{super();this.w=w;this.h=h;}}"
        f"area(){{let t=0;for(let k=0;k<this.w;k++){{t+=k*this.h;}}return t;}}"
        f"static make(n){{return new Widget{i}(n,n+1);}}get label(){{return 'w-漢{i}';}}}}"
        f"const api{i}={{get(u){{return fetch(u);}},post:function(u,b){{return fetch(u,b);}},"
        f"remove:(id)=>{{return id;}},retries:3,nested:{{deep(){{return 1;}}}}}};"
        f"var handler{i}=function(e){{return e.target;}};"
        f"let onClick{i}=(e)=>{{console.log('clické😀',e);}};"
        f"(function(){{function inner{i}(x){{return x*2;}}var q=inner{i}({i});}})();"
    )


def generate(target_bytes):
    parts, size, i = [], 0, 0
    while size < target_bytes:
        u = unit(i)
        parts.append(u)
        size += len(u.encode())
        i += 1
    single = "".join(parts)
    # The same tokens, one statement or brace per line.
    lines = re.sub(r"([;{}])", r"\1\n", single)
    return single, lines


def measure(sextant, root, max_size):
    cmd = [
        "/usr/bin/time", "-f", "%e %M",
        sextant, "--root", root, "--max-file-size", str(max_size), "stats",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    seconds, kb = done.stderr.strip().splitlines()[-1].split()
    # The table's `total` row ends with the symbol count.
    total = re.search(r"^total\s.*?(\d+)\s*$", done.stdout, re.MULTILINE)
    return float(seconds), int(kb), total.group(1) if total else "?"


COMMENT_RUN_SHAPES = {
    # shape: (file name, text before the run, comment line, text after the run)
    "python, after a statement": ("comments.py", "x = 1\n", "# pad\n", ""),
    "javascript, after a statement": ("comments.js", "let x = 1;\n", "// pad\n", ""),
    "python, column 0 in a block": ("block.py", "def f():\n    x = 1\n", "# pad\n", "    y = 2\n"),
}


def timed(cmd, timeout):
    """(seconds, stdout) of `cmd` under /usr/bin/time; seconds is None past `timeout`."""
    try:
        done = subprocess.run(["/usr/bin/time", "-f", "%e"] + cmd, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    return float(done.stderr.strip().splitlines()[-1]), done.stdout


def comment_runs(sextant, counts, out, timeout):
    print(f"sextant = {sextant}")
    print("commands: /usr/bin/time -f %e sextant --root DIR --max-file-size N "
          "parse FILE --errors-only | stats\n")
    print(f"{'shape':<32} {'lines':>8} {'bytes':>10} {'parse':>9} {'stats':>9}  outcome")
    for n in counts:
        for shape, (name, before, line, after) in COMMENT_RUN_SHAPES.items():
            d = os.path.join(out, f"{name.replace('.', '-')}-{n}")
            os.makedirs(d, exist_ok=True)
            text = before + line * n + after
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            limit = ["--root", d, "--max-file-size", str(2 * len(text))]
            parse_s, answer = timed([sextant] + limit + ["parse", name, "--errors-only"], timeout)
            stats_s, _ = timed([sextant] + limit + ["stats"], timeout)
            outcome = "not parsed" if "not parsed" in answer else (
                "parsed" if parse_s is not None else "timed out")
            show = lambda t: f"{t:>8.2f}s" if t is not None else f">{timeout:>7}s"
            print(f"{shape:<32} {n:>8} {len(text):>10} {show(parse_s)} {show(stats_s)}  {outcome}",
                  flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sextant", help="the binary to measure (a release build)")
    ap.add_argument("--sizes", default="2,10", help="file sizes in MB, comma-separated")
    ap.add_argument("--out", help="where to write the files (default: a temporary dir)")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--comment-runs", help="comment-run lengths in lines, comma-separated")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per command")
    args = ap.parse_args()
    if not args.generate_only and not args.sextant:
        ap.error("--sextant is required unless --generate-only")

    out = args.out or tempfile.mkdtemp(prefix="sextant-long-lines-")
    if args.comment_runs:
        counts = [int(n) for n in args.comment_runs.split(",")]
        return comment_runs(args.sextant, counts, out, args.timeout)
    sizes = [float(s) for s in args.sizes.split(",")]
    rows = []
    for mb in sizes:
        single, lines = generate(int(mb * 1024 * 1024))
        label = f"{mb:g}mb"
        dirs = {}
        for shape, text in (("lines", lines), ("single", single)):
            d = os.path.join(out, f"{shape}-{label}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "code.js"), "w", encoding="utf-8") as f:
                f.write(text)
            dirs[shape] = d
        print(f"{label}: {len(single.encode()):,} bytes; "
              f"{lines.count(chr(10)):,} lines in the baseline", flush=True)
        if args.generate_only:
            continue
        max_size = 2 * len(lines.encode())
        base = measure(args.sextant, dirs["lines"], max_size)
        one = measure(args.sextant, dirs["single"], max_size)
        rows.append((label, dirs, max_size, base, one))

    if args.generate_only:
        print(f"files under {out}")
        return
    print(f"\nsextant = {args.sextant}")
    print("command: /usr/bin/time -f '%e s %M KB' sextant --root DIR --max-file-size N stats\n")
    print(f"{'file':<8} {'shape':<12} {'time':>8} {'peak RSS':>10} {'symbols':>9}")
    for label, _dirs, _max, base, one in rows:
        for shape, (t, kb, syms) in (("newlines", base), ("single line", one)):
            print(f"{label:<8} {shape:<12} {t:>7.2f}s {kb / 1024:>8.0f}MB {syms:>9}")
    print("\nratios (single line / same code with newlines):")
    for label, _dirs, _max, (bt, bkb, _), (ot, okb, _) in rows:
        print(f"  {label}: time {ot / max(bt, 0.01):.2f}x, peak memory {okb / bkb:.2f}x")


if __name__ == "__main__":
    main()
