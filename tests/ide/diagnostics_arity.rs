//! SX010: calls whose arguments the callee cannot take, judged only where the callee is
//! certain.

use expect_test::{Expect, expect};

use crate::analysis;

fn check(fixture: &str, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    let result = analysis::check(&db);
    let mut out = String::new();
    for d in result.diagnostics.iter().filter(|d| d.code == "SX010") {
        out.push_str(&format!(
            "{}:{}:{}-{}:{}: {}\n",
            d.path,
            d.span.start.line,
            d.span.start.column,
            d.span.end.line,
            d.span.end.column,
            d.message
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn each_kind_of_impossible_call_is_reported_as_python_would() {
    check(
        r#"
        //- /m.py
        def area(w, h=1):
            return w * h

        def scaled(x, /, factor, *, exact=False, mode):
            return x

        class Point:
            def __init__(self, x, y=0):
                self.x, self.y = x, y

        area(1, 2, 3)
        area()
        area(1, depth=2)
        area(1, w=2)
        scaled(1, 2, mode="a", exact=True)
        scaled(1, factor=2)
        scaled(x=1, factor=2, mode="m")
        Point(1, 2, 3)
        Point()
        scaled()
        "#,
        expect![[r#"
            m.py:11:1-11:14: area() takes from 1 to 2 positional arguments but 3 were given
            m.py:12:1-12:7: area() missing 1 required positional argument: 'w'
            m.py:13:1-13:17: area() got an unexpected keyword argument 'depth'
            m.py:14:1-14:13: area() got multiple values for argument 'w'
            m.py:16:1-16:20: scaled() missing 1 required keyword-only argument: 'mode'
            m.py:17:1-17:32: scaled() got an unexpected keyword argument 'x'
            m.py:18:1-18:15: Point() takes from 1 to 2 positional arguments but 3 were given
            m.py:19:1-19:8: Point() missing 1 required positional argument: 'x'
            m.py:20:1-20:9: scaled() missing 2 required positional arguments: 'x' and 'factor'
        "#]],
    );
}

#[test]
fn imported_functions_are_judged_by_their_own_signature() {
    check(
        r#"
        //- /app.py
        from tools import run, Runner
        from tools import helper as h
        run("a", "b")
        h()
        Runner(1)
        //- /tools.py
        def run(command):
            pass
        def helper(value):
            pass
        class Runner:
            pass
        "#,
        expect![[r#"
            app.py:3:1-3:14: run() takes 1 positional argument but 2 were given
            app.py:4:1-4:4: helper() missing 1 required positional argument: 'value'
        "#]],
    );
}

#[test]
fn callees_that_are_not_certain_are_not_judged() {
    // Decorators, rebinding, shadowing, spread arguments, *args/**kwargs, metaclasses and
    // base classes can all change what a call takes.
    check(
        r#"
        //- /m.py
        import functools
        from enum import Enum

        def wrap(f):
            @functools.wraps(f)
            def inner(*a, **k):
                return f(*a, **k)
            return inner

        @wrap
        def decorated(x):
            pass

        def rebound(x):
            pass
        rebound = wrap(rebound)

        def spread(a, b):
            pass

        def flexible(a, *rest, **options):
            pass

        class Color(Enum):
            RED = 1
            def __init__(self, value):
                self.v = value

        class Base:
            def __init__(self, a):
                pass

        class Child(Base):
            pass

        def shadowing(spread):
            spread(1, 2, 3)

        decorated(1, 2)
        rebound(1, 2)
        args = (1, 2)
        spread(*args)
        spread(**{"a": 1, "b": 2})
        flexible(1, 2, 3, key=4)
        Color(1)
        Child(1, 2, 3)
        if True:
            def conditional(x):
                pass
        conditional(1, 2)
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn typescript_calls_are_judged_as_tsc_counts_arguments() {
    check(
        r#"
        //- /a.ts
        import { two, many, opt } from "./b";
        function own(a: number, b = 2): number { return a + b; }
        function first(a = 1, b: number) { return a + b; }
        function* gen(n: number) { yield n; }

        own(1, 2, 3);
        own();
        two(1);
        two(1, 2, 3);
        many();
        opt(1, 2, 3);
        first(1);
        gen();
        //- /b.ts
        export function two(this: Window, a: number, b: string): void {}
        export function many(first: number, ...rest: number[]) {}
        export function opt(a: number, b?: number) {}
        "#,
        expect![[r#"
            a.ts:6:1-6:13: own(): expected 1-2 arguments, but got 3
            a.ts:7:1-7:6: own(): expected 1-2 arguments, but got 0
            a.ts:8:1-8:7: two(): expected 2 arguments, but got 1
            a.ts:9:1-9:13: two(): expected 2 arguments, but got 3
            a.ts:10:1-10:7: many(): expected at least 1 argument, but got 0
            a.ts:11:1-11:13: opt(): expected 1-2 arguments, but got 3
            a.ts:12:1-12:9: first(): expected 2 arguments, but got 1
            a.ts:13:1-13:6: gen(): expected 1 argument, but got 0
        "#]],
    );
}

#[test]
fn typescript_calls_stay_quiet_where_the_callee_or_the_count_is_unsure() {
    check(
        r#"
        //- /a.ts
        import { reexported } from "./b";
        import * as ns from "./c";
        import def from "./c";
        function g(x: number): number;
        function g(x: string): string;
        function g(x: any) { return x; }
        function maybe(a: number, b: void, c: undefined | string) {}
        function takes(a: number) {}
        declare function ambient(a: number): void;

        g(1, 2);
        maybe(1);
        takes(...[1, 2]);
        ns.two(1);
        def(1, 2, 3);
        reexported();
        ambient();
        new takes();
        function inner() {
          const takes = (a: number, b: number) => a + b;
          takes(1, 2);
        }
        function shadow(takes: (...xs: number[]) => void) {
          takes(1, 2, 3);
        }
        //- /b.ts
        export { two as reexported } from "./c";
        //- /c.ts
        export function two(a: number, b: number) {}
        export default function (a: number) {}
        //- /d.js
        function loose(a) {}
        loose(1, 2, 3);
        "#,
        expect![""],
    );
}
