#!/usr/bin/env python3
"""Prints the global names TypeScript's libraries and @types/node declare, one a line, sorted:
the source of the generated part of grammars/ecmascript-globals.txt.

    python3 tests/oracle/ecmascript_globals.py target/npm-tools/node_modules

Reads NODE_MODULES/typescript/lib/lib.*.d.ts (every top-level `declare var`, `function`,
`interface`, `type`, `namespace`, `class`, `enum`) and NODE_MODULES/@types/node: the
top-level declarations of its script files (no top-level `import`/`export`) and the
declarations directly inside `declare global { … }` and `global { … }` blocks (those nested in
`declare module "…"` too). The files are formatted one declaration a line, which the patterns
rely on.
"""

import glob
import re
import sys

DECLARATION = r"(?:export\s+)?(?:declare\s+)?(?:var|let|const|function|interface|type|namespace|module|class|enum|abstract class)\s+([A-Za-z_$][\w$]*)"


def main():
    node_modules = sys.argv[1]
    names = set()
    top = re.compile("^" + DECLARATION)
    for path in glob.glob(f"{node_modules}/typescript/lib/lib.*.d.ts"):
        for line in open(path, encoding="utf-8"):
            m = top.match(line)
            if m:
                names.add(m.group(1))
    for path in glob.glob(f"{node_modules}/@types/node/**/*.d.ts", recursive=True):
        if "/ts5." in path:
            continue
        text = open(path, encoding="utf-8").read()
        is_module = re.search(r"^(import|export)\s", text, re.M)
        block_indent = None  # the indentation of the open `global {` block
        for line in text.splitlines():
            opened = re.match(r"^(\s*)(?:declare\s+)?global\s*\{\s*$", line)
            if opened:
                block_indent = opened.group(1)
                continue
            if block_indent is not None:
                if line.startswith(block_indent + "}"):
                    block_indent = None
                    continue
                m = re.match("^" + block_indent + r"    " + DECLARATION, line)
                if m:
                    names.add(m.group(1))
            elif not is_module:
                m = top.match(line)
                if m:
                    names.add(m.group(1))
    print("\n".join(sorted(names)))


if __name__ == "__main__":
    main()
