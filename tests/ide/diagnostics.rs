//! `check`: diagnostics with their codes. Each code fires where it should and, above all,
//! stays quiet on the idioms that look wrong but are not.

use expect_test::{Expect, expect};

use crate::analysis;

/// `path:line:column: CODE message` per diagnostic, as `sextant check` prints them.
pub(crate) fn check(fixture: &str, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    expect.assert_eq(&render(analysis::check(&db).diagnostics.iter()));
}

/// `path:line:column: CODE message` per diagnostic, then `  = line:column: note` per
/// related place.
pub(crate) fn render<'d>(
    diagnostics: impl Iterator<Item = &'d sextant::ide::DiagnosticInfo>,
) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&format!(
            "{}:{}:{}: {} {}\n",
            d.path, d.span.start.line, d.span.start.column, d.code, d.message
        ));
        for related in &d.related {
            out.push_str(&format!(
                "  = {}:{}: {}\n",
                related.span.start.line, related.span.start.column, related.message
            ));
        }
    }
    out
}

#[test]
fn syntax_errors_carry_their_codes() {
    check(
        r#"
        //- /bad.py
        def f(:
            pass
        //- /main.rs
        fn main() {
            let x = (1
        }
        "#,
        expect![[r#"
            bad.py:1:7: SX002 missing `)`
            main.rs:2:5: SX001 unexpected `let`
        "#]],
    );
}

#[test]
fn undefined_names_are_reported() {
    check(
        r#"
        //- /m.py
        import os

        def total(items):
            return sum(i for i in itmes) + os.sep

        class C:
            limit = 3

            def m(self):
                return limit

        print(undefined_at_module_level)
        "#,
        expect![[r#"
            m.py:4:27: SX005 undefined name 'itmes'
            m.py:10:16: SX005 undefined name 'limit'
            m.py:12:7: SX005 undefined name 'undefined_at_module_level'
        "#]],
    );
}

#[test]
fn undefined_names_stay_quiet_on_real_idioms() {
    check(
        r#"
        //- /m.py
        from __future__ import annotations
        import sys

        try:
            unicode
        except NameError:
            unicode = str

        def uses_later():
            return defined_later + len(__file__) + __name__.count(".")

        defined_later = 1

        def counter():
            global hits
            hits = 0

        def report():
            return hits

        class Point:
            size = 2
            doubled = size * 2
            squares = [size * i for i in range(3)]
            __slots__ = ("x",)

            def method(self, n=size):
                return __class__, __module__, n

            class Inner(Exception):
                pass

        def outer():
            x = 1

            def inner():
                nonlocal x
                x += 1
                return x

            return inner

        try:
            pass
        except ValueError as error:
            print(error)

        if (found := sys.argv):
            print(found)
        total = [last := v for v in range(3)]
        print(last)
        del total

        def handle(request):
            match request:
                case Point(x=px, y=[py]) if px:
                    return px, py
                case {"k": value, **rest}:
                    return value, rest
                case [first, *others]:
                    return first, others
                case str() as text:
                    return text

        def generic[T](items: list[T]) -> T:
            return items[0]

        type Pair = tuple[int, int]
        print(Pair)
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn a_star_import_silences_undefined_names() {
    check(
        r#"
        //- /m.py
        from os.path import *

        print(join("a", "b"), whatever)
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn unused_imports_are_reported() {
    check(
        r#"
        //- /m.py
        import os
        import os.path as osp
        from collections import OrderedDict, defaultdict as dd
        import json

        def f():
            import re
            return json.dumps({})
        "#,
        expect![[r#"
            m.py:1:8: SX006 'os' imported but unused
            m.py:2:19: SX006 'os.path as osp' imported but unused
            m.py:3:25: SX006 'collections.OrderedDict' imported but unused
            m.py:3:53: SX006 'collections.defaultdict as dd' imported but unused
            m.py:7:12: SX006 're' imported but unused
        "#]],
    );
}

#[test]
fn unused_imports_stay_quiet_on_re_exports_and_checks() {
    check(
        r#"
        //- /pkg/__init__.py
        from .core import run
        from os import sep
        //- /pkg/core.py
        from __future__ import annotations
        from typing import TYPE_CHECKING, Optional
        import sys as sys
        from os import path as path
        import exported
        import exported_later
        import multiprocessing as mp
        import multiprocessing.connection

        __all__ = ["run", "exported"]
        __all__ += ["exported_later"]

        try:
            import readline
        except ImportError:
            pass

        if TYPE_CHECKING:
            from collections import OrderedDict

        def run(x: "OrderedDict", y: Optional["int"] = None):
            # type: (OrderedDict, int) -> None
            return mp.connection

        class Editor:
            from os import getcwd

        import pdb
        from typing import TypeAlias
        from functools import partial

        _Partial: TypeAlias = "partial[int]"

        def enter(pdb: pdb.Pdb) -> None:
            return pdb

        def g():
            import json
            json = None
            return json
        "#,
        expect![[r#"
            pkg/core.py:39:5: SX008 redefinition of unused 'json' from line 38
              = 38:12: 'json' first defined here
        "#]],
    );
}

#[test]
fn imports_of_missing_workspace_modules_are_reported() {
    check(
        r#"
        //- /app/__init__.py
        //- /app/util.py
        def helper():
            pass
        //- /app/main.py
        from app.utils import helper
        from .absent import thing
        import app.util
        import app.nothere
        from . import util, gone
        import numpy.linalg
        import os.path
        from app.util import helper as h

        print(helper, thing, app, util, gone, numpy, os, h)
        "#,
        expect![[r#"
            app/main.py:1:1: SX003 no module 'app.utils' in the workspace
            app/main.py:2:1: SX003 no module '.absent' in the workspace
            app/main.py:4:1: SX003 no module 'app.nothere' in the workspace
        "#]],
    );
}

#[test]
fn names_in_string_annotations_are_checked_but_literal_values_are_not() {
    check(
        r#"
        //- /m.py
        import typing
        from typing import Annotated, Literal, cast

        class Known:
            pass

        def f(a: "Known", b: "list[Missing]", c: Literal["absent"], raw=None) -> "Known":
            d: 'Annotated[Known, "not a name"]' = cast("Lost", raw)
            e: typing.Literal["x y"] = cast(Known, raw)
            view = memoryview(b"")
            return view.cast("B"), d, e, typing.cast("Gone", raw)
        "#,
        expect![[r#"
            m.py:7:28: SX005 undefined name 'Missing'
            m.py:8:49: SX005 undefined name 'Lost'
            m.py:11:47: SX005 undefined name 'Gone'
        "#]],
    );
}
