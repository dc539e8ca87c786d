import re, glob, os, sys
nm = sys.argv[1]
names = set()
top = re.compile(r'^(?:declare\s+)?(?:var|let|const|function|interface|type|namespace|module|class|enum|abstract class)\s+([A-Za-z_$][\w$]*)')
for f in glob.glob(f'{nm}/typescript/lib/lib.*.d.ts'):
    for line in open(f):
        m = top.match(line)
        if m: names.add(m.group(1))
# @types/node: top level of script files (no top-level import/export) and `declare global` blocks
ind = re.compile(r'^    (?:var|let|const|function|interface|type|namespace|class|enum)\s+([A-Za-z_$][\w$]*)')
for f in glob.glob(f'{nm}/@types/node/**/*.d.ts', recursive=True):
    if '/ts5.' in f: continue
    text = open(f).read()
    is_module = re.search(r'^(import|export)\s', text, re.M)
    depth_global = False
    for line in text.splitlines():
        if line.startswith('declare global'):
            depth_global = True; continue
        if depth_global and line.startswith('}'):
            depth_global = False; continue
        if depth_global:
            m = ind.match(line)
            if m: names.add(m.group(1))
        elif not is_module:
            m = top.match(line)
            if m: names.add(m.group(1))
print(len(names), file=sys.stderr)
print('\n'.join(sorted(names)))
