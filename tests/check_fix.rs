//! `sextant check --fix`, `--diff` and `--unsafe-fixes` as a user runs them: each fixer's
//! edit on the forms it meets in real code, fixes that overlap applied over several rounds,
//! what is never removed (an import another file imports from here, a fallback import,
//! a dunder), the exit codes and the JSON answer.

mod support;

use std::path::Path;

use support::{read_file as read, sextant, stderr, stdout, write_file as write};

/// Each case: a module, and the module after `check --fix`.
const PYTHON_IMPORTS: &[(&str, &str, &str)] = &[
    (
        "one name of several",
        "import os, sys\nprint(sys)\n",
        "import sys\nprint(sys)\n",
    ),
    (
        "the last name of several",
        "import sys, os\nprint(sys)\n",
        "import sys\nprint(sys)\n",
    ),
    (
        "every name of a parenthesized list, over rounds",
        "from collections import (OrderedDict, defaultdict,\n                         Counter)\nx = 1\n",
        "x = 1\n",
    ),
    (
        "a statement sharing its line",
        "import re; x = 1\nprint(x)\n",
        "x = 1\nprint(x)\n",
    ),
    (
        "a statement after another on its line",
        "x = 1; import re\nprint(x)\n",
        "x = 1\nprint(x)\n",
    ),
    (
        "a statement with a trailing comment",
        "from typing import List  # for later\nx = 1\n",
        "x = 1\n",
    ),
    (
        "the only statement of a block",
        "def f(x):\n    if x:\n        import glob\n    return x\n",
        "def f(x):\n    if x:\n        pass\n    return x\n",
    ),
    (
        "every statement of a block, over rounds",
        "def f():\n    # Imports.\n    import a\n    import b\n    import c\n",
        "def f():\n    # Imports.\n    pass\n",
    ),
    (
        "one statement of a function's body",
        "def f():\n    import shutil\n    return 1\n",
        "def f():\n    return 1\n",
    ),
    (
        "an alias",
        "import numpy as np\nimport json as j\nprint(j)\n",
        "import json as j\nprint(j)\n",
    ),
    (
        "a file with no line break at its end",
        "x = 1\nimport os",
        "x = 1\n",
    ),
    (
        "what is kept: a fallback under try, a dunder, a name in a comment's list",
        "try:\n    import cPickle as pickle\nexcept ImportError:\n    import pickle\nfrom _impl import __version__\nfrom m import (a,  # used by b\n    b)\nprint(b)\n",
        "try:\n    import cPickle as pickle\nexcept ImportError:\n    import pickle\nfrom _impl import __version__\nfrom m import (a,  # used by b\n    b)\nprint(b)\n",
    ),
];

/// Each case: a module, after `check --fix`, and after `check --fix --unsafe-fixes`.
const PYTHON_VARIABLES: &[(&str, &str, &str, &str)] = &[
    (
        "a constant, the name's only binding",
        "def f():\n    x = 1\n    return 2\n",
        "def f():\n    return 2\n",
        "def f():\n    return 2\n",
    ),
    (
        "the only statement of a block",
        "def f(a):\n    if a:\n        x = (1, 'two', None)\n    return a\n",
        "def f(a):\n    if a:\n        pass\n    return a\n",
        "def f(a):\n    if a:\n        pass\n    return a\n",
    ),
    (
        "a call: named `_`, its value held as long as before",
        "def f():\n    x = g()\n    return 1\n",
        "def f():\n    _ = g()\n    return 1\n",
        "def f():\n    _ = g()\n    return 1\n",
    ),
    (
        "two calls in one function: one `_`, the other's value kept, unsafe",
        "def f():\n    a = g()\n    b: int = g()\n    return 1\n",
        "def f():\n    _ = g()\n    b: int = g()\n    return 1\n",
        "def f():\n    _ = g()\n    g()\n    return 1\n",
    ),
    (
        "no `_` where the function names `_`, calls eval, exec, vars or dir",
        "def f():\n    x = g()\n    return _('text')\ndef h():\n    x = g()\n    return eval('x')\ndef k():\n    x = g()\n    return vars()\n",
        "def f():\n    x = g()\n    return _('text')\ndef h():\n    x = g()\n    return eval('x')\ndef k():\n    x = g()\n    return vars()\n",
        "def f():\n    g()\n    return _('text')\ndef h():\n    g()\n    return eval('x')\ndef k():\n    g()\n    return vars()\n",
    ),
    (
        "a constant dropping an earlier value: unsafe (a finalizer can see it), then `_`",
        "def f():\n    x = open('a')\n    x = None\n    return 1\n",
        "def f():\n    x = open('a')\n    x = None\n    return 1\n",
        "def f():\n    _ = open('a')\n    return 1\n",
    ),
    (
        "an exception's name",
        "def f():\n    try:\n        pass\n    except (KeyError, ValueError) as error:\n        return 1\n",
        "def f():\n    try:\n        pass\n    except (KeyError, ValueError):\n        return 1\n",
        "def f():\n    try:\n        pass\n    except (KeyError, ValueError):\n        return 1\n",
    ),
    (
        "a context manager's name: `_` (dropping it is unsafe: the object lives shorter)",
        "def f():\n    with open('a') as handle:\n        return 1\n",
        "def f():\n    with open('a') as _:\n        return 1\n",
        "def f():\n    with open('a') as _:\n        return 1\n",
    ),
    (
        "a context manager's name beside a `_`: unsafe",
        "def f():\n    with open('a') as handle, open('b') as _:\n        return 1\n",
        "def f():\n    with open('a') as handle, open('b') as _:\n        return 1\n",
        "def f():\n    with open('a'), open('b') as _:\n        return 1\n",
    ),
    (
        "an f-string is evaluated: `_`",
        "def f(a):\n    x = f'{a}'\n    return a\n",
        "def f(a):\n    _ = f'{a}'\n    return a\n",
        "def f(a):\n    _ = f'{a}'\n    return a\n",
    ),
    (
        "an exception's name a nested function reads is kept",
        "def f():\n    def show():\n        e\n    try:\n        pass\n    except Exception as e:\n        show()\n",
        "def f():\n    def show():\n        e\n    try:\n        pass\n    except Exception as e:\n        show()\n",
        "def f():\n    def show():\n        e\n    try:\n        pass\n    except Exception as e:\n        show()\n",
    ),
    (
        "a walrus: `_`",
        "def f(a):\n    if (n := len(a)) > 1:\n        return a\n",
        "def f(a):\n    if (_ := len(a)) > 1:\n        return a\n",
        "def f(a):\n    if (_ := len(a)) > 1:\n        return a\n",
    ),
    (
        "a walrus beside a `_`: its value kept, unsafe",
        "def f(a):\n    for _ in a:\n        pass\n    if (n := len(a)) > 1:\n        return a\n",
        "def f(a):\n    for _ in a:\n        pass\n    if (n := len(a)) > 1:\n        return a\n",
        "def f(a):\n    for _ in a:\n        pass\n    if (len(a)) > 1:\n        return a\n",
    ),
    (
        "a chained assignment: `_`, or left alone beside a `_`",
        "def f():\n    x = y = 1\n    return y\ndef h(_):\n    x = y = 1\n    return y\n",
        "def f():\n    _ = y = 1\n    return y\ndef h(_):\n    x = y = 1\n    return y\n",
        "def f():\n    _ = y = 1\n    return y\ndef h(_):\n    x = y = 1\n    return y\n",
    ),
];

#[test]
fn each_unused_variable_form_is_fixed_as_its_safety_allows() {
    for (unsafe_fixes, column) in [(false, 2), (true, 3)] {
        let dir = tempfile::tempdir().unwrap();
        for (i, case) in PYTHON_VARIABLES.iter().enumerate() {
            write(dir.path(), &format!("m{i}.py"), case.1);
        }
        let mut args = vec!["check", "--fix", "--select", "SX007"];
        if unsafe_fixes {
            args.push("--unsafe-fixes");
        }
        let out = sextant(dir.path(), &args);
        assert!(out.status.code().is_some(), "{}", stderr(&out));
        for (i, case) in PYTHON_VARIABLES.iter().enumerate() {
            let expected = if column == 2 { case.2 } else { case.3 };
            let name = format!("{} (unsafe fixes: {unsafe_fixes})", case.0);
            assert_eq!(read(dir.path(), &format!("m{i}.py")), expected, "{name}");
        }
    }
}

/// Each case: a module; as TypeScript after `check --fix`; as JavaScript after `check
/// --fix`, then after `check --fix --unsafe-fixes`. A statement removed whole is unsafe in
/// JavaScript (the module is no longer evaluated) and safe in TypeScript (which drops an
/// import whose names go unused when it compiles).
const ECMASCRIPT_IMPORTS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "one specifier of several",
        "import { a, b } from './m';\nexport const x = b;\n",
        "import { b } from './m';\nexport const x = b;\n",
        "import { b } from './m';\nexport const x = b;\n",
        "import { b } from './m';\nexport const x = b;\n",
    ),
    (
        "the braces beside a default import",
        "import d, { a } from './m';\nexport const x = d;\n",
        "import d from './m';\nexport const x = d;\n",
        "import d from './m';\nexport const x = d;\n",
        "import d from './m';\nexport const x = d;\n",
    ),
    (
        "a default import beside a namespace",
        "import d, * as ns from './m';\nexport const x = ns;\n",
        "import * as ns from './m';\nexport const x = ns;\n",
        "import * as ns from './m';\nexport const x = ns;\n",
        "import * as ns from './m';\nexport const x = ns;\n",
    ),
    (
        "a whole statement",
        "import * as ns from './m';\nexport const x = 1;\n",
        "export const x = 1;\n",
        "import * as ns from './m';\nexport const x = 1;\n",
        "export const x = 1;\n",
    ),
    (
        "a whole statement sharing its line",
        "import { a } from './m'; import { b } from './m';\nexport const x = b;\n",
        "import { b } from './m';\nexport const x = b;\n",
        "import { a } from './m'; import { b } from './m';\nexport const x = b;\n",
        "import { b } from './m';\nexport const x = b;\n",
    ),
];

#[test]
fn each_unused_ecmascript_import_form_is_removed_as_its_safety_allows() {
    let dir = tempfile::tempdir().unwrap();
    let exports = "export const a = 1, b = 2;\nexport default 3;\n";
    write(dir.path(), "m.ts", exports);
    write(dir.path(), "m.js", exports);
    for (i, case) in ECMASCRIPT_IMPORTS.iter().enumerate() {
        write(dir.path(), &format!("t{i}.ts"), case.1);
        write(dir.path(), &format!("j{i}.js"), case.1);
    }
    let out = sextant(dir.path(), &["check", "--fix", "--select", "SX006"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, case) in ECMASCRIPT_IMPORTS.iter().enumerate() {
        assert_eq!(
            read(dir.path(), &format!("t{i}.ts")),
            case.2,
            "{} (ts)",
            case.0
        );
        assert_eq!(
            read(dir.path(), &format!("j{i}.js")),
            case.3,
            "{} (js)",
            case.0
        );
    }
    let unsafe_fixes = ["check", "--fix", "--unsafe-fixes", "--select", "SX006"];
    let out = sextant(dir.path(), &unsafe_fixes);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, case) in ECMASCRIPT_IMPORTS.iter().enumerate() {
        let name = format!("{} (js, unsafe fixes)", case.0);
        assert_eq!(read(dir.path(), &format!("j{i}.js")), case.4, "{name}");
    }
}

/// Each case: a Go file, and the file after `check --fix` (every Go fix is safe: an unused
/// import or variable does not compile). The results are as gofmt writes them.
const GO_FIXES: &[(&str, &str, &str)] = &[
    (
        "one spec of a group",
        "package m\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nvar _ = fmt.Sprint\n",
        "package m\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint\n",
    ),
    (
        "a spec with its trailing comment, and the blank line it leaves by the parenthesis",
        "package m\n\nimport (\n\t\"os\" // later\n\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint\n",
        "package m\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint\n",
    ),
    (
        "a lone import and the blank line after it",
        "package m\n\nimport \"os\"\n\nfunc f() {}\n",
        "package m\n\nfunc f() {}\n",
    ),
    (
        "every spec of a group, over rounds: the declaration goes",
        "package m\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nfunc f() {}\n",
        "package m\n\nfunc f() {}\n",
    ),
    (
        "trailing comments gofmt aligns: kept while the removal would move them",
        "package m\n\nimport (\n\t\"fmt\"     // printing\n\t\"io\"      // unused\n\t\"strings\" // unused\n)\n\nvar _ = fmt.Sprint\n",
        "package m\n\nimport (\n\t\"fmt\"     // printing\n\t\"strings\" // unused\n)\n\nvar _ = fmt.Sprint\n",
    ),
    (
        "kept: a comment before the spec on its line, a group with another comment",
        "package m\n\nimport (\n\t\"fmt\"\n\t/* why */ \"os\"\n)\n\nimport (\n\t// why\n\t\"io\"\n)\n\nvar _ = fmt.Sprint\n",
        "package m\n\nimport (\n\t\"fmt\"\n\t/* why */ \"os\"\n)\n\nimport (\n\t// why\n\t\"io\"\n)\n\nvar _ = fmt.Sprint\n",
    ),
    (
        "a variable of :=, alone or beside another",
        "package m\n\nfunc f() int {\n\tx := g()\n\ta, b := h()\n\treturn a\n}\n",
        "package m\n\nfunc f() int {\n\t_ = g()\n\ta, _ := h()\n\treturn a\n}\n",
    ),
    (
        ":= becomes = when the names left are assigned",
        "package m\n\nfunc f() error {\n\tn, err := h()\n\t_ = n\n\tm, err := h()\n\treturn err\n}\n",
        "package m\n\nfunc f() error {\n\tn, err := h()\n\t_ = n\n\t_, err = h()\n\treturn err\n}\n",
    ),
    (
        "a literal, a var without a value, a var's call kept (with its type)",
        "package m\n\nfunc f() {\n\tx := 1\n\n\tvar y int\n\n\tvar z = g()\n\tvar w int64 = g64()\n}\n",
        "package m\n\nfunc f() {\n\n\t_ = g()\n\tvar _ int64 = g64()\n}\n",
    ),
    (
        "a var whose type names a package named nowhere else keeps the type",
        "package m\n\nimport (\n\t\"bytes\"\n\t\"time\"\n)\n\nfunc f() {\n\tvar b bytes.Buffer\n\tvar d time.Duration = 5\n\tvar e time.Duration\n}\n",
        "package m\n\nimport (\n\t\"bytes\"\n\t\"time\"\n)\n\nfunc f() {\n\tvar _ bytes.Buffer\n\tvar _ time.Duration\n}\n",
    ),
    (
        "kept: a variable assigned again (without its declaration the assignment breaks)",
        "package m\n\nfunc f() {\n\tvar file string\n\tx := g()\n\tfile, x = h()\n}\n",
        "package m\n\nfunc f() {\n\tvar file string\n\tx := g()\n\tfile, x = h()\n}\n",
    ),
    (
        "a `var` group: a spec's line, the declaration with its last spec, `_ = g()` in place",
        "package m\n\nfunc f() int {\n\tvar (\n\t\ta = 1\n\t\tb int\n\t)\n\tvar (\n\t\tc = g()\n\t)\n\tvar (\n\t\tn   int\n\t\terr error\n\t)\n\treturn len(err.Error())\n}\n",
        "package m\n\nfunc f() int {\n\tvar (\n\t\t_ = g()\n\t)\n\tvar (\n\t\terr error\n\t)\n\treturn len(err.Error())\n}\n",
    ),
    (
        "a `var` group as gofmt aligns it: kept where the removal would move a column or a comment",
        "package m\n\nfunc f() int {\n\tvar (\n\t\ta    = 1\n\t\tused = 2\n\t\t// why\n\t\tb = 3\n\n\t\txy = g()\n\t\tzz = 4 // four\n\t)\n\tvar (\n\t\tn int = 1\n\t\tm     = 2\n\t\tx     = g()\n\t)\n\tvar (\n\t\t// kept\n\t\ty int\n\t)\n\treturn used + zz + n + m\n}\n",
        "package m\n\nfunc f() int {\n\tvar (\n\t\tused = 2\n\t\t// why\n\t\tb = 3\n\n\t\txy = g()\n\t\tzz = 4 // four\n\t)\n\tvar (\n\t\tn int = 1\n\t\tm     = 2\n\t\t_     = g()\n\t)\n\tvar (\n\t\t// kept\n\t\ty int\n\t)\n\treturn used + zz + n + m\n}\n",
    ),
    (
        "a `var` group: kept where the lines beside the spec would join one column of comments",
        "package m\n\nfunc f() int {\n\tvar (\n\t\ta = 1 // x\n\t\tb int\n\t\tc = 22 // y\n\t)\n\tvar (\n\t\td = 1\n\t\te int\n\t\tg = 2\n\t)\n\treturn a + c + d + g\n}\n",
        "package m\n\nfunc f() int {\n\tvar (\n\t\ta = 1 // x\n\t\tb int\n\t\tc = 22 // y\n\t)\n\tvar (\n\t\td = 1\n\t\tg = 2\n\t)\n\treturn a + c + d + g\n}\n",
    ),
    (
        "range, receive and type switch variables",
        "package m\n\nfunc f(m map[int]int, c chan int, x any) {\n\tfor k, v := range m {\n\t\t_ = k\n\t}\n\tfor k := range m {\n\t}\n\tselect {\n\tcase r := <-c:\n\t}\n\tswitch v := x.(type) {\n\tcase int:\n\t}\n}\n",
        "package m\n\nfunc f(m map[int]int, c chan int, x any) {\n\tfor k := range m {\n\t\t_ = k\n\t}\n\tfor range m {\n\t}\n\tselect {\n\tcase <-c:\n\t}\n\tswitch x.(type) {\n\tcase int:\n\t}\n}\n",
    ),
];

#[test]
fn each_go_fix_leaves_gofmt_text() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "go.mod", "module example.com/m\n\ngo 1.19\n");
    for (i, case) in GO_FIXES.iter().enumerate() {
        write(dir.path(), &format!("p{i}/m.go"), case.1);
    }
    let out = sextant(dir.path(), &["check", "--fix", "--select", "SX006,SX007"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, case) in GO_FIXES.iter().enumerate() {
        assert_eq!(
            read(dir.path(), &format!("p{i}/m.go")),
            case.2,
            "{}",
            case.0
        );
    }
}

/// Each case: the body of a JavaScript or TypeScript function; after `check --fix`, then
/// after `check --fix --unsafe-fixes`.
const ECMASCRIPT_VARIABLES: &[(&str, &str, &str, &str)] = &[
    (
        "an inert value: a literal, none, a function, an object of literals",
        "  const a = 1;\n  let b;\n  const c = () => g();\n  const d = { k: [1, 'two'] };\n  return 0;\n",
        "  return 0;\n",
        "  return 0;\n",
    ),
    (
        "one declarator of several",
        "  let a = 1, b = 2;\n  return a;\n",
        "  let a = 1;\n  return a;\n",
        "  let a = 1;\n  return a;\n",
    ),
    (
        "a call: named `_a`, which keeps its evaluation",
        "  const a = g();\n  var b = { k: g() };\n  return 0;\n",
        "  const _a = g();\n  var _b = { k: g() };\n  return 0;\n",
        "  const _a = g();\n  var _b = { k: g() };\n  return 0;\n",
    ),
    (
        "a call among several declarators: named `_b`",
        "  let a = 1, b = g();\n  return 0;\n",
        "  let _b = g();\n  return 0;\n",
        "  let _b = g();\n  return 0;\n",
    ),
    (
        "`_a` and `_b` taken: the value kept, unsafe; an object in parentheses",
        "  const a = g();\n  const b = { k: g() };\n  return [_a, _b];\n",
        "  const a = g();\n  const b = { k: g() };\n  return [_a, _b];\n",
        "  g();\n  ({ k: g() });\n  return [_a, _b];\n",
    ),
    (
        "a name assigned again is kept; a value that would continue the line before: `_b`",
        "  let a = 1; a = 2;\n  g()\n  const b = (g)\n  return 0;\n",
        "  let a = 1; a = 2;\n  g()\n  const _b = (g)\n  return 0;\n",
        "  let a = 1; a = 2;\n  g()\n  const _b = (g)\n  return 0;\n",
    ),
];

#[test]
fn each_unused_ecmascript_variable_form_is_fixed_as_its_safety_allows() {
    let dir = tempfile::tempdir().unwrap();
    let module = |body: &str| format!("export function f(g) {{\n{body}}}\n");
    for (i, case) in ECMASCRIPT_VARIABLES.iter().enumerate() {
        write(dir.path(), &format!("j{i}.js"), module(case.1));
        write(dir.path(), &format!("t{i}.ts"), module(case.1));
    }
    for (unsafe_fixes, column) in [(false, 2), (true, 3)] {
        let mut args = vec!["check", "--fix", "--select", "SX007"];
        if unsafe_fixes {
            args.push("--unsafe-fixes");
        }
        let out = sextant(dir.path(), &args);
        assert!(out.status.code().is_some(), "{}", stderr(&out));
        for (i, case) in ECMASCRIPT_VARIABLES.iter().enumerate() {
            let expected = module(if column == 2 { case.2 } else { case.3 });
            let name = format!("{} (unsafe fixes: {unsafe_fixes})", case.0);
            assert_eq!(
                read(dir.path(), &format!("j{i}.js")),
                expected,
                "{name}, js"
            );
            assert_eq!(
                read(dir.path(), &format!("t{i}.ts")),
                expected,
                "{name}, ts"
            );
        }
    }
}

#[test]
fn a_rename_to_an_unused_name_is_a_safe_fix_the_diff_shows() {
    let dir = tempfile::tempdir().unwrap();
    let ts = "export function f(g: () => number) {\n  const result = g();\n  return 0;\n}\n";
    let py = "def f(g):\n    result = g()\n    return 0\n";
    write(dir.path(), "a.ts", ts);
    write(dir.path(), "m.py", py);
    let out = sextant(dir.path(), &["check", "--json", "--select", "SX007"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixes: Vec<_> = answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["fix"].clone())
        .collect();
    assert_eq!(
        fixes,
        [
            serde_json::json!({"title": "Rename unused variable 'result' to '_result'", "applicability": "safe"}),
            serde_json::json!({"title": "Rename unused variable 'result' to '_'", "applicability": "safe"}),
        ]
    );
    let out = sextant(dir.path(), &["check", "--diff", "--select", "SX007"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "--- a/a.ts\n+++ b/a.ts\n@@ -1,4 +1,4 @@\n export function f(g: () => number) {\n\
         -  const result = g();\n+  const _result = g();\n   return 0;\n }\n\
         --- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f(g):\n-    result = g()\n+    _ = g()\n     return 0\n\
         Would fix 2 diagnostics in 2 files (SX007 2).\n"
    );
    assert_eq!(read(dir.path(), "a.ts"), ts);
    assert_eq!(read(dir.path(), "m.py"), py);
}

#[test]
fn a_tsconfig_keeping_unused_imports_makes_their_removal_unsafe() {
    let dir = tempfile::tempdir().unwrap();
    let module = "import { x } from './m';\nimport { y, z } from './m';\nexport const w = z;\n";
    write(
        dir.path(),
        "tsconfig.base.json",
        r#"{"compilerOptions": {"verbatimModuleSyntax": true}}"#,
    );
    write(
        dir.path(),
        "keep/tsconfig.json",
        r#"{"extends": "../tsconfig.base.json"}"#,
    );
    write(
        dir.path(),
        "drop/tsconfig.json",
        r#"{"extends": "../tsconfig.base.json", "compilerOptions": {"verbatimModuleSyntax": false}}"#,
    );
    for project in ["keep", "drop"] {
        write(
            dir.path(),
            &format!("{project}/m.ts"),
            "export const x = 1, y = 2, z = 3;\n",
        );
        write(dir.path(), &format!("{project}/a.ts"), module);
    }
    let out = sextant(dir.path(), &["check", "--fix", "--select", "SX006"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    // The statement is kept for its module's side effects: removing it is unsafe.
    assert_eq!(
        read(dir.path(), "keep/a.ts"),
        "import { x } from './m';\nimport { z } from './m';\nexport const w = z;\n"
    );
    assert_eq!(
        read(dir.path(), "drop/a.ts"),
        "import { z } from './m';\nexport const w = z;\n"
    );
    let unsafe_fixes = ["check", "--fix", "--unsafe-fixes", "--select", "SX006"];
    let out = sextant(dir.path(), &unsafe_fixes);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert_eq!(
        read(dir.path(), "keep/a.ts"),
        "import { z } from './m';\nexport const w = z;\n"
    );
}

#[test]
fn each_unused_import_form_is_removed_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (_, before, _)) in PYTHON_IMPORTS.iter().enumerate() {
        write(dir.path(), &format!("m{i}.py"), before);
    }
    let out = sextant(dir.path(), &["check", "--fix", "--select", "SX006"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, (case, _, after)) in PYTHON_IMPORTS.iter().enumerate() {
        assert_eq!(read(dir.path(), &format!("m{i}.py")), *after, "{case}");
    }
}

/// Each case: a module, and the module after `check --fix` (the fix of a key repeated with
/// the same value is safe: the dictionary is the same without it).
const PYTHON_DICT_KEYS: &[(&str, &str, &str)] = &[
    (
        "the repeat and the comma before it",
        "A = {\"a\": 1, \"b\": 2, \"a\": 1}\n",
        "A = {\"a\": 1, \"b\": 2}\n",
    ),
    (
        "a line of its own; a name nothing between rebinds",
        "B = {\n    \"a\": x,\n    \"b\": 2,\n    \"a\": x,\n}\n",
        "B = {\n    \"a\": x,\n    \"b\": 2,\n}\n",
    ),
    (
        "every repeat, over rounds",
        "G = {'a': 1, 'a': 1, 'a': 1}\n",
        "G = {'a': 1}\n",
    ),
    (
        "kept: equal values of two kinds, a call or a spread between, a key unknown",
        "C = {1: 1, True: 1.0}\nD = {'a': x, 'b': f(), 'a': x}\nE = {'a': 1, **d, 'a': 1}\nI = {'a': 1, k: 0, 'a': 1}\n",
        "C = {1: 1, True: 1.0}\nD = {'a': x, 'b': f(), 'a': x}\nE = {'a': 1, **d, 'a': 1}\nI = {'a': 1, k: 0, 'a': 1}\n",
    ),
    (
        "kept: a comment in the removed text or after it",
        "F = {\n    'a': 1,\n    'a': 1,  # again\n}\nH = {'a': 1,  # one\n     'a': 1}\n",
        "F = {\n    'a': 1,\n    'a': 1,  # again\n}\nH = {'a': 1,  # one\n     'a': 1}\n",
    ),
];

#[test]
fn a_key_repeated_with_the_same_value_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (_, before, _)) in PYTHON_DICT_KEYS.iter().enumerate() {
        write(dir.path(), &format!("m{i}.py"), before);
    }
    let shown = tempfile::tempdir().unwrap();
    write(shown.path(), "m.py", PYTHON_DICT_KEYS[2].1);
    let out = sextant(shown.path(), &["check", "--diff", "--select", "SX009"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-G = {'a': 1, 'a': 1, 'a': 1}\n+G = {'a': 1}\n\
         Would fix 2 diagnostics in 1 file (SX009 2).\n"
    );
    assert_eq!(read(shown.path(), "m.py"), PYTHON_DICT_KEYS[2].1);
    let out = sextant(dir.path(), &["check", "--fix", "--select", "SX009"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, (case, _, after)) in PYTHON_DICT_KEYS.iter().enumerate() {
        assert_eq!(read(dir.path(), &format!("m{i}.py")), *after, "{case}");
    }
    assert!(
        stdout(&out).ends_with("Fixed 4 diagnostics in 3 files (SX009 4).\n"),
        "{}",
        stdout(&out)
    );
}

fn package(dir: &Path) {
    write(dir, "pkg/__init__.py", "import os\n");
    write(dir, "pkg/a.py", "import os, sys\nimport json\nprint(sys)\n");
    write(dir, "pkg/b.py", "from pkg.a import json\nprint(json)\n");
}

#[test]
fn diff_shows_the_fixes_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    let out = sextant(dir.path(), &["check", "--diff"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,3 +1,3 @@\n-import os, sys\n+import sys\n \
         import json\n print(sys)\n\
         Would fix 1 diagnostic in 1 file (SX006 1). 1 more fixable with --unsafe-fixes.\n"
    );
    assert_eq!(
        read(dir.path(), "pkg/a.py"),
        "import os, sys\nimport json\nprint(sys)\n"
    );
}

#[test]
fn fix_writes_the_safe_fixes_and_reports_what_remains() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    let out = sextant(dir.path(), &["check", "--fix"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // `json` stays: pkg/b.py imports it from here. The package's own import is unsafe to
    // remove (a package's imports may be its interface).
    assert_eq!(
        stdout(&out),
        "pkg/__init__.py:1:8: SX006 'os' imported but unused\n\
         pkg/a.py:2:8: SX006 'json' imported but unused\n\
         Found 2 diagnostics in 2 of 3 files (SX006 2).\n\
         Fixed 1 diagnostic in 1 file (SX006 1). 1 more fixable with --unsafe-fixes.\n"
    );
    assert_eq!(
        read(dir.path(), "pkg/a.py"),
        "import sys\nimport json\nprint(sys)\n"
    );

    let out = sextant(dir.path(), &["check", "--fix", "--unsafe-fixes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(read(dir.path(), "pkg/__init__.py"), "");
    assert_eq!(
        read(dir.path(), "pkg/a.py"),
        "import sys\nimport json\nprint(sys)\n"
    );
    assert_eq!(
        stdout(&out),
        "pkg/a.py:2:8: SX006 'json' imported but unused\n\
         Found 1 diagnostic in 1 of 3 files (SX006 1).\n\
         Fixed 1 diagnostic in 1 file (SX006 1).\n"
    );
}

/// A diagnostic names a fix only where `--fix` may apply it: `json`, which another file
/// imports from pkg/a.py, has none, in `check --json` as in the editor's quick fixes.
#[test]
fn check_names_only_the_fixes_fix_may_apply() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    let out = sextant(dir.path(), &["check", "--json"]);
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let fixes: Vec<(String, serde_json::Value)> = answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["message"].as_str().unwrap().to_string(), d["fix"].clone()))
        .collect();
    assert_eq!(
        fixes,
        [
            (
                "'os' imported but unused".to_string(),
                serde_json::json!({"title": "Remove unused import 'os'", "applicability": "unsafe"})
            ),
            (
                "'os' imported but unused".to_string(),
                serde_json::json!({"title": "Remove unused import 'os'", "applicability": "safe"})
            ),
            (
                "'json' imported but unused".to_string(),
                serde_json::Value::Null
            ),
        ]
    );
}

#[test]
fn an_import_another_file_takes_with_a_star_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "import os\n");
    write(dir.path(), "b.py", "from a import *\nprint(os)\n");
    let out = sextant(dir.path(), &["check", "--fix", "--unsafe-fixes"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(read(dir.path(), "a.py"), "import os\n");
}

#[test]
fn nothing_to_fix_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.py", "import os\nprint(os)\n");
    let out = sextant(dir.path(), &["check", "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "All checks passed (1 file checked).\nNothing to fix.\n"
    );
    let out = sextant(dir.path(), &["check", "--diff"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "Nothing to fix.\n");
}

#[test]
fn the_json_answer_lists_each_fix() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.py", "import os, sys\nprint(sys)\n");
    let out = sextant(dir.path(), &["check", "--fix", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["written"], true);
    assert_eq!(
        answer["fixed"],
        serde_json::json!([{
            "path": "m.py",
            "code": "SX006",
            "message": "'os' imported but unused",
            "title": "Remove unused import 'os'",
        }])
    );
    assert_eq!(answer["remaining"]["summary"]["total"], 0);
    assert_eq!(answer["new_diagnostics"], serde_json::json!([]));
    assert_eq!(read(dir.path(), "m.py"), "import sys\nprint(sys)\n");
}

#[test]
fn a_check_reports_which_diagnostics_have_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.py", "import os\n");
    let out = sextant(dir.path(), &["check", "--json"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["diagnostics"][0]["fix"],
        serde_json::json!({"title": "Remove unused import 'os'", "applicability": "safe"})
    );
}

#[test]
fn fix_options_that_do_not_go_together_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.py", "import os\n");
    let out = sextant(dir.path(), &["check", "--unsafe-fixes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--unsafe-fixes applies with --fix or --diff"));
    let out = sextant(dir.path(), &["check", "--fix", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--fix and --diff print text or JSON"));
    assert_eq!(read(dir.path(), "m.py"), "import os\n");
}

/// The modules the missing-import cases find names in: `area` and `Shape` in one module,
/// `perimeter` in two (ambiguous), `glob` both a standard module and a workspace name,
/// a test helper, a private name, `Widget` defined here and imported from outside,
/// `Outline` defined here and another object's alias elsewhere, a module `token` beside the
/// standard one, `helper` under a package holding a `setup.py`.
fn python_providers(dir: &Path) {
    write(dir, "pkg/__init__.py", "");
    write(
        dir,
        "pkg/shapes.py",
        "def area(w, h):\n    return w * h\n\nclass Shape:\n    pass\n\n_hidden = 1\n",
    );
    write(dir, "pkg/edges.py", "def perimeter(s):\n    return s\n");
    write(dir, "other/edges.py", "perimeter = len\nglob = []\n");
    write(dir, "tests/helpers.py", "def make_shape():\n    return 1\n");
    write(
        dir,
        "other/ui.py",
        "from widget_toolkit import Widget\nfrom pkg.shapes import Shape as Outline\n",
    );
    write(
        dir,
        "pkg/widgets.py",
        "class Widget:\n    pass\n\nclass Outline:\n    pass\n",
    );
    write(dir, "pkg/token.py", "NAME = 1\n");
    // A `setup.py` inside a package makes a source root Python never runs from.
    write(dir, "tools/__init__.py", "");
    write(dir, "tools/inner/__init__.py", "");
    write(dir, "tools/inner/setup.py", "");
    write(dir, "tools/inner/util.py", "def helper():\n    return 1\n");
}

/// Each case: a module in `app/`, and the module after `check --fix --unsafe-fixes`.
const PYTHON_MISSING_IMPORTS: &[(&str, &str, &str)] = &[
    (
        "a standard module used as `name.attr`",
        "print(os.getcwd())\n",
        "import os\nprint(os.getcwd())\n",
    ),
    (
        "a standard module, after the last import",
        "import sys\n\nprint(sys.argv, json.dumps(1))\n",
        "import sys\nimport json\n\nprint(sys.argv, json.dumps(1))\n",
    ),
    (
        "a workspace function in another package",
        "print(area(1, 2))\n",
        "from pkg.shapes import area\nprint(area(1, 2))\n",
    ),
    (
        "several uses, one import",
        "print(area(1, 2))\nprint(area(3, 4))\n",
        "from pkg.shapes import area\nprint(area(1, 2))\nprint(area(3, 4))\n",
    ),
    (
        "an existing import from the module, extended",
        "from pkg.shapes import Shape\nprint(Shape, area(1, 2))\n",
        "from pkg.shapes import Shape, area\nprint(Shape, area(1, 2))\n",
    ),
    (
        "a parenthesized import from the module, left alone",
        "from pkg.shapes import (Shape)\nprint(Shape, area(1, 2))\n",
        "from pkg.shapes import (Shape)\nfrom pkg.shapes import area\nprint(Shape, area(1, 2))\n",
    ),
    (
        "after the docstring",
        "\"\"\"Shapes.\"\"\"\nprint(area(1, 2))\n",
        "\"\"\"Shapes.\"\"\"\nfrom pkg.shapes import area\nprint(area(1, 2))\n",
    ),
    (
        "after the docstring and `from __future__`",
        "\"\"\"Shapes.\"\"\"\nfrom __future__ import annotations\n\nprint(area(1, 2))\n",
        "\"\"\"Shapes.\"\"\"\nfrom __future__ import annotations\nfrom pkg.shapes import area\n\nprint(area(1, 2))\n",
    ),
    (
        "after a leading comment block set off by a blank line",
        "#!/usr/bin/env python\n# Shapes.\n\nprint(area(1, 2))\n",
        "#!/usr/bin/env python\n# Shapes.\nfrom pkg.shapes import area\n\nprint(area(1, 2))\n",
    ),
    (
        "above the first use, not after a later import",
        "print(area(1, 2))\nimport sys\nprint(sys)\n",
        "from pkg.shapes import area\nprint(area(1, 2))\nimport sys\nprint(sys)\n",
    ),
    (
        "the file's line endings",
        "import sys\r\nprint(sys, area(1, 2))\r\n",
        "import sys\r\nfrom pkg.shapes import area\r\nprint(sys, area(1, 2))\r\n",
    ),
    (
        "a workspace submodule used as `name.attr`",
        "print(shapes.area(1, 2))\n",
        "from pkg import shapes\nprint(shapes.area(1, 2))\n",
    ),
    (
        "no fix: a name also imported from outside the workspace, or as an alias",
        "print(Widget(), Outline())\n",
        "print(Widget(), Outline())\n",
    ),
    (
        "a module path from a source root outside any package",
        "print(helper())\n",
        "from tools.inner.util import helper\nprint(helper())\n",
    ),
    (
        "no fix: a standard module and a workspace module of that name",
        "print(token.NAME)\n",
        "print(token.NAME)\n",
    ),
    (
        "no fix: two modules define it",
        "print(perimeter(1))\n",
        "print(perimeter(1))\n",
    ),
    (
        "no fix: both a standard module and a workspace name",
        "print(glob.glob('*'))\n",
        "print(glob.glob('*'))\n",
    ),
    (
        "no fix: a standard module not used as `name.attr`",
        "print(os)\n",
        "print(os)\n",
    ),
    (
        "no fix: a private name, a test's helper outside tests",
        "print(_hidden, make_shape())\n",
        "print(_hidden, make_shape())\n",
    ),
    (
        "no fix: the file binds the name elsewhere",
        "print(area(1, 2))\ndef f():\n    area = None\n    return area\n",
        "print(area(1, 2))\ndef f():\n    area = None\n    return area\n",
    ),
];

#[test]
fn an_undefined_name_one_module_provides_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    python_providers(dir.path());
    for (i, case) in PYTHON_MISSING_IMPORTS.iter().enumerate() {
        write(dir.path(), &format!("app/m{i}.py"), case.1);
    }
    write(dir.path(), "tests/test_shapes.py", "print(make_shape())\n");
    let fix = ["check", "--fix", "--select", "SX005"];
    let out = sextant(dir.path(), &fix);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, case) in PYTHON_MISSING_IMPORTS.iter().enumerate() {
        assert_eq!(
            read(dir.path(), &format!("app/m{i}.py")),
            case.1,
            "{} (safe)",
            case.0
        );
    }
    let out = sextant(dir.path(), &[&fix[..], &["--unsafe-fixes"]].concat());
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (i, case) in PYTHON_MISSING_IMPORTS.iter().enumerate() {
        assert_eq!(
            read(dir.path(), &format!("app/m{i}.py")),
            case.2,
            "{}",
            case.0
        );
    }
    assert_eq!(
        read(dir.path(), "tests/test_shapes.py"),
        "from helpers import make_shape\nprint(make_shape())\n",
        "a test's helper, in another test, as the directory it runs from names it"
    );
}

/// A manifest-less service's undefined name is imported as the service itself imports
/// (from the directory it runs from), not by a path from the workspace root that the
/// service could not import.
#[test]
fn a_services_missing_import_is_written_as_the_service_imports() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "services/a/app/__init__.py", "");
    write(
        dir.path(),
        "services/a/app/models.py",
        "class Invoice:\n    pass\n",
    );
    write(dir.path(), "services/a/app/main.py", "print(Invoice())\n");
    let out = sextant(
        dir.path(),
        &["check", "--fix", "--unsafe-fixes", "--select", "SX005"],
    );
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert_eq!(
        read(dir.path(), "services/a/app/main.py"),
        "from app.models import Invoice\nprint(Invoice())\n"
    );
}

/// Two manifest-less services define the same name in their own `app.models` (one a
/// regular package, one a namespace package): each service's undefined name is imported
/// from its own, the other's being, as the service would write it, its own.
#[test]
fn each_services_missing_import_comes_from_its_own_app() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "services/a/app/__init__.py", "");
    for service in ["a", "b"] {
        write(
            dir.path(),
            &format!("services/{service}/app/models.py"),
            "class Invoice:\n    pass\n",
        );
        write(
            dir.path(),
            &format!("services/{service}/app/views.py"),
            "from app.models import Invoice\n\nprint(Invoice)\n",
        );
        write(
            dir.path(),
            &format!("services/{service}/app/main.py"),
            "import os\n\n\ndef bill():\n    return Invoice(os.getcwd())\n",
        );
    }
    let out = sextant(
        dir.path(),
        &["check", "--fix", "--unsafe-fixes", "--select", "SX005"],
    );
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert_eq!(
        read(dir.path(), "services/a/app/main.py"),
        "import os\nfrom app.models import Invoice\n\n\ndef bill():\n    return Invoice(os.getcwd())\n"
    );
    // `services/b/app` is no package, so `models` would lead there too from the directory
    // of `main.py`; the service's own code writes `app.models`, and so does the fix.
    assert_eq!(
        read(dir.path(), "services/b/app/main.py"),
        "import os\nfrom app.models import Invoice\n\n\ndef bill():\n    return Invoice(os.getcwd())\n"
    );
}

/// Of the names that lead a file to a module, the fix writes one by which some file imports
/// that very module, and else the shortest: in `billing`, whose `app` is no package and
/// whose code writes `import app.models`, `app.models`; in `shipping`, where nothing imports
/// its models, `models`, the name from the file's own directory.
#[test]
fn a_missing_import_is_written_as_the_workspace_imports_its_module() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "services/billing/app/models.py",
        "class Invoice:\n    pass\n",
    );
    write(
        dir.path(),
        "services/billing/app/cli.py",
        "import app.models\n\nprint(app.models.Invoice)\n",
    );
    write(
        dir.path(),
        "services/billing/app/main.py",
        "import os\n\n\ndef run():\n    return Invoice(os.sep)\n",
    );
    write(
        dir.path(),
        "services/shipping/app/models.py",
        "class Parcel:\n    pass\n",
    );
    write(
        dir.path(),
        "services/shipping/app/main.py",
        "import os\n\n\ndef run():\n    return Parcel(os.sep)\n",
    );
    let out = sextant(
        dir.path(),
        &["check", "--fix", "--unsafe-fixes", "--select", "SX005"],
    );
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert_eq!(
        read(dir.path(), "services/billing/app/main.py"),
        "import os\nfrom app.models import Invoice\n\n\ndef run():\n    return Invoice(os.sep)\n"
    );
    assert_eq!(
        read(dir.path(), "services/shipping/app/main.py"),
        "import os\nfrom models import Parcel\n\n\ndef run():\n    return Parcel(os.sep)\n"
    );
}

#[test]
fn the_import_fix_is_titled_and_unsafe() {
    let dir = tempfile::tempdir().unwrap();
    python_providers(dir.path());
    write(dir.path(), "app/m.py", "print(area(1, 2))\n");
    let out = sextant(dir.path(), &["check", "--json", "--select", "SX005"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["diagnostics"][0]["fix"],
        serde_json::json!({"title": "Import 'area' from 'pkg.shapes'", "applicability": "unsafe"})
    );
}

/// Each case: a path, its text, and its text after `check --fix --unsafe-fixes`.
const ECMASCRIPT_MISSING_IMPORTS: &[(&str, &str, &str, &str)] = &[
    (
        "a TypeScript function in another directory",
        "src/app/a.ts",
        "export const x = area(1, 2);\n",
        "import { area } from '../../lib/shapes';\nexport const x = area(1, 2);\n",
    ),
    (
        "a type, added to the import of its module",
        "src/b.ts",
        "import { area } from \"../lib/shapes\"\nexport const s: Shape = { w: area(1, 2) }\n",
        "import { area, Shape } from \"../lib/shapes\"\nexport const s: Shape = { w: area(1, 2) }\n",
    ),
    (
        "the import of its module however written, its trailing comma kept",
        "src/e.ts",
        "import {\n    Shape,\n} from '../lib/shapes.ts';\nexport const s: Shape = { w: area(1, 2) };\n",
        "import {\n    Shape, area,\n} from '../lib/shapes.ts';\nexport const s: Shape = { w: area(1, 2) };\n",
    ),
    (
        "never into a type-only import: a line of its own, after the last import",
        "src/f.ts",
        "import type { Shape } from '../lib/shapes';\nexport const s: Shape = { w: area(1, 2) };\n",
        "import type { Shape } from '../lib/shapes';\nimport { area } from '../lib/shapes';\nexport const s: Shape = { w: area(1, 2) };\n",
    ),
    (
        "`.js` on specifiers when the file writes them",
        "src/c.ts",
        "import { helper } from './helper.js';\nexport const x = helper(area(1, 2));\n",
        "import { helper } from './helper.js';\nimport { area } from '../lib/shapes.js';\nexport const x = helper(area(1, 2));\n",
    ),
    (
        "JavaScript, after a shebang and a leading comment",
        "bin/tool.js",
        "#!/usr/bin/env node\n// A tool.\n\nexport const y = clamp(1);\n",
        "#!/usr/bin/env node\n// A tool.\nimport { clamp } from '../lib/util';\n\nexport const y = clamp(1);\n",
    ),
    (
        "a type used as a type only: `import type`",
        "src/g.ts",
        "export function f(s: Shape): number {\n    return s.w;\n}\n",
        "import type { Shape } from '../lib/shapes';\nexport function f(s: Shape): number {\n    return s.w;\n}\n",
    ),
    (
        "an `import type` of its module, extended",
        "src/h.ts",
        "import type { Shape } from '../lib/shapes';\nexport const n: Size = 1;\nexport const s: Shape = { w: n };\n",
        "import type { Shape, Size } from '../lib/shapes';\nexport const n: Size = 1;\nexport const s: Shape = { w: n };\n",
    ),
    (
        "a class used as a type only: a value import (TypeScript drops it)",
        "src/i.ts",
        "export let b: Box | undefined;\n",
        "import { Box } from '../lib/shapes';\nexport let b: Box | undefined;\n",
    ),
    (
        "a name exported by `export type { … }`, and a value beside it",
        "src/j.ts",
        "export let h: Hidden | undefined;\nexport const a = area(1, 2);\n",
        "import type { Hidden } from '../lib/shapes';\nimport { area } from '../lib/shapes';\nexport let h: Hidden | undefined;\nexport const a = area(1, 2);\n",
    ),
    (
        "under `verbatimModuleSyntax`, a class used as a type only: `import type`",
        "strict/a.ts",
        "export let b: Box | undefined;\n",
        "import type { Box } from '../lib/shapes';\nexport let b: Box | undefined;\n",
    ),
    (
        "under `verbatimModuleSyntax`, a type is never added to a value import",
        "strict/b.ts",
        "import { area } from '../lib/shapes';\nexport const s: Shape = { w: area(1, 2) };\n",
        "import { area } from '../lib/shapes';\nimport type { Shape } from '../lib/shapes';\nexport const s: Shape = { w: area(1, 2) };\n",
    ),
    (
        "under `verbatimModuleSyntax`, a class used as a value: a value import",
        "strict/c.ts",
        "export const k = new Box();\n",
        "import { Box } from '../lib/shapes';\nexport const k = new Box();\n",
    ),
    (
        "no fix: two modules export it",
        "src/d.ts",
        "export const p = perimeter(1);\n",
        "export const p = perimeter(1);\n",
    ),
];

#[test]
fn a_type_only_import_is_titled_and_shown_by_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shapes.ts",
        "export interface Shape {\n    w: number;\n}\n",
    );
    let text = "export const s: Shape = { w: 1 };\n";
    write(dir.path(), "a.ts", text);
    let out = sextant(dir.path(), &["check", "--json", "--select", "SX005"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["diagnostics"][0]["fix"],
        serde_json::json!({"title": "Import type 'Shape' from './shapes'", "applicability": "unsafe"})
    );
    let out = sextant(dir.path(), &["check", "--diff", "--select", "SX005"]);
    assert_eq!(
        stdout(&out),
        "Nothing to fix. 1 more fixable with --unsafe-fixes.\n"
    );
    let diff = ["check", "--diff", "--unsafe-fixes", "--select", "SX005"];
    let out = sextant(dir.path(), &diff);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1,2 @@\n+import type { Shape } from './shapes';\n \
         export const s: Shape = { w: 1 };\n\
         Would fix 1 diagnostic in 1 file (SX005 1).\n"
    );
    assert_eq!(read(dir.path(), "a.ts"), text);
}

#[test]
fn an_undefined_name_one_module_exports_is_imported() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lib/shapes.ts",
        "export function area(w: number, h: number) {\n    return w * h;\n}\nexport interface Shape {\n    w: number;\n}\nexport type Size = number;\nexport class Box {}\ninterface Hidden {\n    h: number;\n}\nexport type { Hidden };\n",
    );
    write(
        dir.path(),
        "strict/tsconfig.json",
        r#"{"compilerOptions": {"verbatimModuleSyntax": true}}"#,
    );
    write(
        dir.path(),
        "lib/util.js",
        "const clamp = (x) => x;\nexport { clamp };\n",
    );
    write(
        dir.path(),
        "lib/p1.ts",
        "export const perimeter = (s: number) => s;\n",
    );
    write(
        dir.path(),
        "lib/p2.ts",
        "export function perimeter(s: number) {\n    return s;\n}\n",
    );
    write(
        dir.path(),
        "src/helper.ts",
        "export function helper(x: number) {\n    return x;\n}\n",
    );
    for (_, path, before, _) in ECMASCRIPT_MISSING_IMPORTS {
        write(dir.path(), path, before);
    }
    let fix = ["check", "--fix", "--unsafe-fixes", "--select", "SX005"];
    let out = sextant(dir.path(), &fix);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    for (case, path, _, after) in ECMASCRIPT_MISSING_IMPORTS {
        assert_eq!(read(dir.path(), path), *after, "{case}");
    }
}
