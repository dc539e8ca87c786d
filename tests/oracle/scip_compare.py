#!/usr/bin/env python3
"""Compare sextant's SCIP export with a reference SCIP indexer on one corpus.

Runs `sextant scip` and scip-typescript (or scip-python) on the same directory, decodes
both indexes and compares their occurrences by (path, range start), definitions and
references apart: sextant's precision (how many of its occurrences the reference has too)
and recall (how many of the reference's it has). The disagreements are printed, a sample
per kind.

The indexes are decoded by the small protobuf wire-format reader below (the fields of
`scip.proto` this needs: Index.documents, Document.relative_path/occurrences,
Occurrence.range/symbol/symbol_roles), so the comparison needs no protobuf package and
shares no code with sextant.

    tests/oracle/scip_compare.py typescript DIR [--tsconfig-dir DIR] [--reference FILE]
    tests/oracle/scip_compare.py python DIR [--reference FILE]
    tests/oracle/scip_compare.py dump FILE.scip

`--reference` uses an index made earlier instead of running the indexer. Occurrences of
local symbols are compared too (by position only, as every occurrence is). Occurrences the
reference gives to symbols outside the corpus (a library's, the standard library's, a
builtin's) are counted apart: sextant resolves only into the workspace, so they are not
counted against its recall.
"""

import argparse
import os
import subprocess
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NPM_BIN = os.path.join(ROOT, "target", "npm-tools", "node_modules", ".bin")
DEFINITION = 1
IMPORT = 2


def varint(data, i):
    shift = result = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, i
        shift += 7


def fields(data):
    """(field number, wire type, value) of one message; length-delimited values as bytes."""
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 1:
            value, i = data[i : i + 8], i + 8
        elif wire == 2:
            length, i = varint(data, i)
            value, i = data[i : i + length], i + length
        elif wire == 5:
            value, i = data[i : i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire} not supported")
        yield number, wire, value


def packed(data):
    out, i = [], 0
    while i < len(data):
        value, i = varint(data, i)
        out.append(value - (1 << 64) if value >= 1 << 63 else value)
    return out


def decode(path):
    """{relative path: [(range, symbol, roles)]} of a SCIP index file."""
    with open(path, "rb") as f:
        data = f.read()
    documents = {}
    for number, _, value in fields(data):
        if number != 2:  # Index.documents
            continue
        relative, occurrences = None, []
        for dnumber, _, dvalue in fields(value):
            if dnumber == 1:
                relative = dvalue.decode()
            elif dnumber == 2:
                rng, symbol, roles = [], "", 0
                for onumber, owire, ovalue in fields(dvalue):
                    if onumber == 1:
                        rng += packed(ovalue) if owire == 2 else [ovalue]
                    elif onumber == 2:
                        symbol = ovalue.decode()
                    elif onumber == 3:
                        roles = ovalue
                occurrences.append((tuple(rng), symbol, roles))
        documents.setdefault(relative, []).extend(occurrences)
    return documents


def run(command, cwd):
    started = time.monotonic()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return elapsed


def classify(documents, local_paths):
    """Definitions and references as sets of (path, line, column), and the references whose
    symbol is defined outside the corpus."""
    definitions, references, outside = set(), set(), set()
    defined_symbols = set()
    for path, occurrences in documents.items():
        if path not in local_paths:
            continue
        for rng, symbol, roles in occurrences:
            if roles & DEFINITION:
                defined_symbols.add(symbol)
    for path, occurrences in documents.items():
        if path not in local_paths:
            continue
        for rng, symbol, roles in occurrences:
            if len(rng) < 3 or not symbol:
                continue
            key = (path, rng[0], rng[1])
            if roles & DEFINITION:
                definitions.add(key)
            elif symbol.startswith("local ") or symbol in defined_symbols:
                references.add(key)
            else:
                outside.add(key)
    return definitions, references, outside


def report(name, ours, theirs, text_of, sample):
    common = ours & theirs
    precision = len(common) / len(ours) if ours else 1.0
    recall = len(common) / len(theirs) if theirs else 1.0
    print(
        f"{name}: sextant {len(ours)}, reference {len(theirs)}, both {len(common)}; "
        f"precision {precision:.3f}, recall {recall:.3f}"
    )
    for label, keys in (("only sextant", ours - theirs), ("only reference", theirs - ours)):
        by_path = defaultdict(int)
        for key in keys:
            by_path[key[0]] += 1
        for key in sorted(keys)[:sample]:
            print(f"  {label}: {key[0]}:{key[1] + 1}:{key[2] + 1}  {text_of(key)}")
        if len(keys) > sample:
            print(f"  {label}: … {len(keys) - sample} more")
    return precision, recall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("language", choices=["typescript", "python", "dump"])
    parser.add_argument("directory")
    parser.add_argument("--tsconfig-dir", help="where scip-typescript runs (its tsconfig.json)")
    parser.add_argument("--reference", help="a reference index made earlier")
    parser.add_argument("--sextant", default=os.path.join(ROOT, "target", "debug", "sextant"))
    parser.add_argument("--sample", type=int, default=15, help="disagreements shown per kind")
    parser.add_argument("--min-precision", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    args = parser.parse_args()

    if args.language == "dump":
        for path, occurrences in sorted(decode(args.directory).items()):
            for rng, symbol, roles in occurrences:
                print(f"{path} {list(rng)} {roles} {symbol}")
        return

    corpus = os.path.abspath(args.directory)
    work = os.environ.get("TMPDIR", "/tmp")
    ours_path = os.path.join(work, f"sextant-oracle-{os.getpid()}.scip")
    elapsed = run([args.sextant, "--root", corpus, "scip", "--output", ours_path], corpus)
    print(f"sextant scip: {elapsed:.1f} s")
    if args.reference:
        theirs_path = os.path.abspath(args.reference)
        # Its paths are from where it ran: the tsconfig directory for scip-typescript.
        reference_root = os.path.abspath(args.tsconfig_dir or corpus)
    elif args.language == "typescript":
        reference_root = os.path.abspath(args.tsconfig_dir or corpus)
        theirs_path = os.path.join(work, f"reference-oracle-{os.getpid()}.scip")
        elapsed = run(
            [os.path.join(NPM_BIN, "scip-typescript"), "index", "--output", theirs_path],
            reference_root,
        )
        print(f"scip-typescript index: {elapsed:.1f} s")
    else:
        reference_root = corpus
        theirs_path = os.path.join(work, f"reference-oracle-{os.getpid()}.scip")
        elapsed = run(
            [os.path.join(NPM_BIN, "scip-python"), "index", ".", "--output", theirs_path,
             "--project-name", "corpus", "--project-version", "0", "--quiet"],
            reference_root,
        )
        print(f"scip-python index: {elapsed:.1f} s")

    ours = decode(ours_path)
    theirs_raw = decode(theirs_path)
    # The reference names paths from where it ran: make them relative to the corpus.
    prefix = os.path.relpath(reference_root, corpus)
    theirs = {}
    for path, occurrences in theirs_raw.items():
        full = os.path.normpath(os.path.join(prefix, path))
        theirs[full] = occurrences
    paths = set(ours) & set(theirs)
    print(f"documents: sextant {len(ours)}, reference {len(theirs)}, both {len(paths)}")

    lines = {}

    def text_of(key):
        path, line, column = key
        if path not in lines:
            with open(os.path.join(corpus, path), encoding="utf-8", errors="replace") as f:
                lines[path] = f.read().split("\n")
        text = lines[path][line] if line < len(lines[path]) else ""
        return (text[:column] + "‸" + text[column:]).strip()[:100]

    our_defs, our_refs, _ = classify(ours, paths)
    # sextant's references are all into the workspace: every one counts.
    our_refs |= classify(ours, paths)[2]
    their_defs, their_refs, their_outside = classify(theirs, paths)
    # Where the reference names a symbol outside the corpus (a module it does not define
    # in a document, a builtin), neither side is judged.
    our_refs -= their_outside
    print(f"reference occurrences of symbols outside the corpus (not compared): {len(their_outside)}")
    dp, dr = report("definitions", our_defs, their_defs, text_of, args.sample)
    rp, rr = report("references", our_refs - our_defs, their_refs - their_defs, text_of, args.sample)
    os.unlink(ours_path)
    if min(dp, rp) < args.min_precision or min(dr, rr) < args.min_recall:
        sys.exit(f"below --min-precision {args.min_precision} or --min-recall {args.min_recall}")


if __name__ == "__main__":
    main()
