//! `check` on Python beyond the first slice: unused local variables (SX007), redefinitions
//! of unused names (SX008), imports of names a workspace module does not bind (SX004),
//! repeated dictionary keys (SX009).
//! Each fires where pyflakes does (or, for SX004, where Python's import fails) and stays
//! quiet on the idioms that look like it.

use expect_test::{Expect, expect};

use crate::analysis;

/// `path:line:column: CODE message` per diagnostic of the codes `codes`.
fn check(codes: &[&str], fixture: &str, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    let result = analysis::check(&db);
    let chosen = result
        .diagnostics
        .iter()
        .filter(|d| codes.contains(&d.code.as_str()));
    expect.assert_eq(&crate::diagnostics::render(chosen));
}

#[test]
fn unused_variables_are_reported() {
    check(
        &["SX007"],
        r#"
        //- /m.py
        import re

        def f(path, text):
            result = len(text)
            typed: int = 2
            first = second = 3
            with open(path) as handle:
                pass
            try:
                pass
            except OSError as error:
                pass
            (a, b) = 1, 2
            if (match := re.match("x", text)):
                pass
            again = 1
            again = 2
            return second

        async def g():
            async with lock() as held:
                pass

        def shadowed(items):
            item = None
            return [str(item) for item in items]
        "#,
        expect![[r#"
            m.py:4:5: SX007 local variable 'result' is assigned to but never used
            m.py:5:5: SX007 local variable 'typed' is assigned to but never used
            m.py:6:5: SX007 local variable 'first' is assigned to but never used
            m.py:7:24: SX007 local variable 'handle' is assigned to but never used
            m.py:11:23: SX007 local variable 'error' is assigned to but never used
            m.py:13:6: SX007 local variable 'a' is assigned to but never used
            m.py:13:9: SX007 local variable 'b' is assigned to but never used
            m.py:14:9: SX007 local variable 'match' is assigned to but never used
            m.py:17:5: SX007 local variable 'again' is assigned to but never used
            m.py:21:26: SX007 local variable 'held' is assigned to but never used
            m.py:25:5: SX007 local variable 'item' is assigned to but never used
        "#]],
    );
}

#[test]
fn unused_variables_stay_quiet_on_real_idioms() {
    check(
        &["SX007"],
        r#"
        //- /m.py
        module_level = 1

        class C:
            attribute = 2

            def method(self):
                self.value = 3

        def unpacking(pairs):
            key, value = pairs[0]
            for index, item in enumerate(pairs):
                pass
            head, *tail = pairs
            [x for x in pairs]
            _ = pairs.pop()

        def counters():
            total = 0
            total += 1
            hits = []
            hits += [1]

        def declared():
            global shared
            shared = 1

        def closure():
            count = 0

            def bump():
                nonlocal count
                count = 1

            return bump

        def captured():
            value = 1
            return lambda value=value: value

        def templated(name):
            greeting = "hi"
            return "{greeting} {name}".format(**locals())

        def reraised():
            try:
                pass
            except OSError as error:
                error = RuntimeError(error)
                raise error

        def handled():
            try:
                pass
            except ValueError as problem:
                log(problem)
            except KeyError as gone:
                del gone

        def loop_carried(lines):
            start = None
            for line in lines:
                if start:
                    print(start)
                start = line

        def debugger_hook():
            __tracebackhide__ = True

        def annotated_only():
            pending: int

        def formatted(x):
            width = 3
            return f"{x:{width}}"

        def fibonacci():
            a, b = 1, 2
            return {(c := a): (a := b) + (b := a + c) - b for _ in range(6)}
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn redefinitions_of_unused_names_are_reported() {
    check(
        &["SX008"],
        r#"
        //- /m.py
        import os
        import os
        from json import loads
        from pickle import loads

        def parse(text):
            return text.split()

        def parse(text):
            return text.splitlines()

        def helper():
            return 1

        def main():
            return helper()

        def helper():
            return 2

        class Shape:
            def area(self):
                return 0

            def area(self):
                return 1

        def local():
            import json
            json = None
            return json

        print(os, loads, parse, Shape)
        "#,
        expect![[r#"
            m.py:2:8: SX008 redefinition of unused 'os' from line 1
              = 1:8: 'os' first defined here
            m.py:4:20: SX008 redefinition of unused 'loads' from line 3
              = 3:18: 'loads' first defined here
            m.py:9:5: SX008 redefinition of unused 'parse' from line 6
              = 6:5: 'parse' first defined here
            m.py:18:5: SX008 redefinition of unused 'helper' from line 12
              = 12:5: 'helper' first defined here
            m.py:25:9: SX008 redefinition of unused 'area' from line 22
              = 22:9: 'area' first defined here
            m.py:30:5: SX008 redefinition of unused 'json' from line 29
              = 29:12: 'json' first defined here
        "#]],
    );
}

#[test]
fn redefinitions_stay_quiet_on_real_idioms() {
    check(
        &["SX008"],
        r#"
        //- /m.py
        import sys
        import os.path
        import os
        from typing import overload
        import typing

        try:
            import json
        except ImportError:
            json = None

        if sys.platform == "win32":
            def home():
                return "C:"
        elif sys.platform == "darwin":
            def home():
                return "/Users"
        else:
            def home():
                return "/home"

        try:
            from _speedups import scan
        except ImportError:
            def scan(text):
                return text
        finally:
            pass

        class Box:
            @property
            def size(self):
                return self._size

            @size.setter
            def size(self, value):
                self._size = value

            @overload
            def get(self, key: int) -> int: ...
            @overload
            def get(self, key: str) -> str: ...
            def get(self, key):
                return key

            @typing.overload
            def put(self, key: int) -> None: ...
            def put(self, key):
                pass

        def cached(f):
            return f

        def compute():
            return 1

        compute = cached(compute)

        class Base:
            pass

        class Base(Base):
            pass

        def fallback():
            pass

        del fallback

        def fallback():
            pass

        def parameters(value):
            def value():
                pass
            return value

        match sys.argv:
            case [_]:
                def run():
                    pass
            case _:
                def run():
                    pass

        print(os, json, home, scan, Box, compute, Base, fallback, run)
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn imports_of_names_a_module_does_not_bind_are_reported() {
    check(
        &["SX004"],
        r#"
        //- /app/__init__.py
        from .util import helper
        //- /app/util.py
        import os

        def helper():
            pass

        class Config:
            pass

        for LIMIT in range(3):
            pass
        //- /app/main.py
        from app.util import helpr, helper, Config, LIMIT, os
        from app.util import Settings as S
        from app import helper as h, missing
        from .util import Confg

        print(helpr, helper, Config, LIMIT, os, S, h, missing, Confg)
        "#,
        expect![[r#"
            app/main.py:1:22: SX004 module 'app.util' has no name 'helpr'
            app/main.py:2:22: SX004 module 'app.util' has no name 'Settings'
            app/main.py:3:30: SX004 module 'app' has no name 'missing'
            app/main.py:4:19: SX004 module '.util' has no name 'Confg'
        "#]],
    );
}

#[test]
fn imports_of_names_stay_quiet_where_a_module_may_bind_them() {
    check(
        &["SX004"],
        r#"
        //- /pkg/__init__.py
        from .core import *
        //- /pkg/core.py
        def run():
            global STATE
            STATE = 1

        if run():
            from os import sep
        else:
            sep = "/"

        try:
            from _accel import fast
        except ImportError:
            fast = None

        __all__ = ["run", "FLAGS"]
        type Alias = int
        //- /pkg/lazy.py
        def __getattr__(name):
            return name
        //- /pkg/dynamic.py
        globals()["made"] = 1
        //- /pkg/sub/__init__.py
        //- /pkg/sub/leaf.py
        //- /main.py
        from pkg import anything, sub, _compiled
        from pkg.core import STATE, sep, fast, FLAGS, Alias
        from pkg.lazy import whatever
        from pkg.dynamic import made
        from pkg.sub import leaf
        from . import data
        import pkg.core

        try:
            from pkg.core import optional
        except ImportError:
            optional = None

        print(anything, sub, _compiled, STATE, sep, fast, FLAGS, Alias, whatever, made, leaf)
        print(data, optional)
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn repeated_dictionary_keys_are_reported() {
    check(
        &["SX009"],
        r#"
        //- /m.py
        COLORS = {"red": 1, "green": 2, 'red': 3}
        CODES = {1: "one", 1.0: "float", True: "bool"}
        PAIRS = {(1, 2): "a", (1, 2): "b"}
        LINES = {"\n": "newline", "\n": "again"}
        JOINED = {"a" "b": 1, "ab": 2}
        //- /table.py
        TABLE = {
            0x20: "space",  # SPACE
            32: "again",  # the same key
        }
        "#,
        expect![[r#"
            m.py:1:11: SX009 dictionary key "red" repeated with different values
            m.py:1:33: SX009 dictionary key 'red' repeated with different values
            m.py:2:10: SX009 dictionary key 1 repeated with different values
            m.py:2:20: SX009 dictionary key 1.0 repeated with different values
            m.py:2:34: SX009 dictionary key True repeated with different values
            m.py:3:10: SX009 dictionary key (1, 2) repeated with different values
            m.py:3:23: SX009 dictionary key (1, 2) repeated with different values
            m.py:4:10: SX009 dictionary key "\n" repeated with different values
            m.py:4:27: SX009 dictionary key "\n" repeated with different values
            m.py:5:11: SX009 dictionary key "a" "b" repeated with different values
            m.py:5:23: SX009 dictionary key "ab" repeated with different values
            table.py:2:5: SX009 dictionary key 0x20 repeated with different values
            table.py:3:5: SX009 dictionary key 32 repeated with different values
        "#]],
    );
}

#[test]
fn repeated_dictionary_keys_with_one_value_are_reported_apart_after_the_first() {
    check(
        &["SX009"],
        r#"
        //- /m.py
        same = {"a": 1, "a": 1}
        names = {"k": same, "k": same, "k": same}
        equal = {1: 1, True: 1.0}
        "#,
        expect![[r#"
            m.py:1:17: SX009 dictionary key "a" repeated with the same value
              = 1:9: "a" first written here
            m.py:2:21: SX009 dictionary key "k" repeated with the same value
              = 2:10: "k" first written here
            m.py:2:32: SX009 dictionary key "k" repeated with the same value
              = 2:10: "k" first written here
            m.py:3:16: SX009 dictionary key True repeated with the same value
              = 3:10: 1 first written here
        "#]],
    );
}

#[test]
fn repeated_dictionary_keys_stay_quiet_when_unknown_or_evenly_repeated() {
    check(
        &["SX009"],
        r#"
        //- /m.py
        same = {"a": 1}
        # Pyflakes's rule: no value occurs once; nor are they one value.
        pairs = {"a": 1, "a": 1, "a": 2, "a": 2}
        kinds = {b"x": 1, "x": 2}
        raw = {r"\n": 1, "\n": 2}
        formatted = {f"{same}": 1, f"{same}": 2}
        computed = {len(same): 1, len(same): 2}
        spread = {**same, "a": 2}
        "#,
        expect![[r#""#]],
    );
}
