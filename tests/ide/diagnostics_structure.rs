//! `check`: duplicate definitions (SX009), statements outside their context (SX011), Go's
//! unused and unresolved imports (SX006, SX003) and Rust's unresolved modules (SX003). Each
//! fires where the compiler (or the interpreter) refuses the code and stays quiet on the
//! idioms the language allows.

use expect_test::expect;

use crate::diagnostics::check;

#[test]
fn outside_context_in_python() {
    check(
        r#"
        //- /m.py
        return 1
        yield 2

        class C:
            return 3

            def method(self):
                await self.ready()

        for item in []:
            pass
        else:
            break

        continue
        "#,
        expect![[r#"
            m.py:1:1: SX011 'return' outside function
            m.py:2:1: SX011 'yield' outside function
            m.py:5:5: SX011 'return' outside function
            m.py:8:9: SX011 'await' outside async function
            m.py:13:5: SX011 'break' outside loop
            m.py:15:1: SX011 'continue' not properly in loop
        "#]],
    );
}

#[test]
fn outside_context_in_python_stays_quiet_on_real_idioms() {
    check(
        r#"
        //- /m.py
        import asyncio

        # Top-level await runs in notebooks and `python -m asyncio`.
        await asyncio.sleep(0)

        async def main(xs):
            await asyncio.sleep(0)
            ys = [await x for x in xs]
            return ys

        def gen():
            lam = lambda: (yield)
            for x in range(3):
                try:
                    continue
                finally:
                    break
            while True:
                class Inner:
                    def method(self):
                        return 1
                break
            yield lam

        def outer():
            agen = (await x for x in [])
            return agen
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn outside_context_in_javascript_and_typescript() {
    check(
        r#"
        //- /a.js
        break;
        function f() {
            switch (1) { case 1: continue; }
            await fetch("/");
            yield 1;
        }
        for (;;) {
            [1].forEach(() => { break; });
        }
        //- /b.ts
        function g(x: unknown): void {
            await (x as Promise<void>);
        }
        "#,
        expect![[r#"
            a.js:1:1: SX011 'break' outside a loop or switch
            a.js:3:26: SX011 'continue' outside a loop
            a.js:4:5: SX011 'await' outside an async function
            a.js:5:5: SX011 'yield' outside a generator function
            a.js:8:25: SX011 'break' outside a loop or switch
            b.ts:2:5: SX011 'await' outside an async function
        "#]],
    );
}

#[test]
fn outside_context_in_javascript_stays_quiet_on_real_idioms() {
    check(
        r#"
        //- /cjs.js
        // CommonJS modules may return at the top level; scripts may call `await(...)`.
        if (module.parent) return;
        function legacy() {
            await(1);
            var yield_ = 1;
            return yield_;
        }
        //- /esm.mjs
        const data = await fetch("/");
        outer: {
            if (data) break outer;
        }
        loop: for (const x of [1]) {
            for (;;) { continue loop; }
        }
        switch (data) { case 1: break; default: break; }
        async function a() { await data; }
        const b = async () => { await data; };
        function* g() { yield 1; yield* g(); }
        const o = { async m() { await data; }, *n() { yield 1; } };
        class C { async m() { await data; } static { for (;;) break; } }
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn outside_context_in_go_and_rust() {
    check(
        r#"
        //- /main.go
        package main

        func main() {
        	break
        	switch {
        	default:
        		continue
        	}
        	for {
        		func() { break }()
        	}
        }
        //- /lib.rs
        fn f() {
            break;
            loop {
                let c = || continue;
            }
            work().await;
        }
        async fn g() {
            let c = || work().await;
        }
        "#,
        expect![[r#"
            lib.rs:2:5: SX011 'break' outside of a loop
            lib.rs:4:20: SX011 'continue' outside of a loop
            lib.rs:6:12: SX011 'await' is only allowed inside async functions and blocks
            lib.rs:9:23: SX011 'await' is only allowed inside async functions and blocks
            main.go:4:2: SX011 break is not in a loop, switch, or select
            main.go:7:3: SX011 continue is not in a loop
            main.go:10:12: SX011 break is not in a loop, switch, or select
        "#]],
    );
}

#[test]
fn outside_context_in_go_and_rust_stays_quiet_on_real_idioms() {
    check(
        r#"
        //- /main.go
        package main

        func main() {
        	ch := make(chan int)
        	select {
        	case <-ch:
        		break
        	}
        	switch x := 1; x {
        	case 1:
        		break
        	}
        outer:
        	for {
        		switch {
        		default:
        			break outer
        		}
        		for range ch {
        			continue outer
        		}
        	}
        }
        //- /lib.rs
        async fn run() {
            work().await;
            let task = async { work().await };
            let c = async move { loop { break; } };
        }
        fn blocking() {
            let f = async { work().await };
            let v = 'found: {
                if ready() {
                    break 'found 1;
                }
                2
            };
            'outer: loop {
                let c = || loop { break };
                break 'outer;
            }
            macro_rules! leave { () => { break } }
        }
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn duplicate_parameters_in_every_language() {
    check(
        r#"
        //- /m.py
        def f(a, b, a=1, *b_, **a): pass
        g = lambda x, x: x
        def ok(self, *, key, **kw): pass
        //- /sloppy.js
        function legacy(a, a) {}
        const arrow = (a, a) => a;
        function withDefault(a, a = 1) {}
        const o = { method(a, a) {} };
        function pattern({ x, y: [z, x] }) {}
        //- /t.ts
        function typed(this: Window, a: number, a: string) {}
        //- /main.go
        package main

        func (t T) f(a, t int) (a string) { return "" }
        func ok(_, _ int) {}
        //- /lib.rs
        fn f(a: i32, (b, a): (i32, i32)) {}
        fn g() {
            let c = |x: i32, x: i32| x;
        }
        fn ok(_: i32, _: i32, None: Option<i32>, Some(v) | Some(v): Option<i32>) {}
        fn cfgd(#[cfg(unix)] file: i32, #[cfg(windows)] file: i32) {}
        "#,
        expect![[r#"
            lib.rs:1:18: SX009 duplicate parameter 'a'
            lib.rs:3:22: SX009 duplicate parameter 'x'
            m.py:1:13: SX009 duplicate parameter 'a'
            m.py:1:25: SX009 duplicate parameter 'a'
            m.py:2:15: SX009 duplicate parameter 'x'
            main.go:3:17: SX009 duplicate parameter 't'
            main.go:3:25: SX009 duplicate parameter 'a'
            sloppy.js:2:19: SX009 duplicate parameter 'a'
            sloppy.js:3:25: SX009 duplicate parameter 'a'
            sloppy.js:4:23: SX009 duplicate parameter 'a'
            sloppy.js:5:30: SX009 duplicate parameter 'x'
            t.ts:1:41: SX009 duplicate parameter 'a'
        "#]],
    );
}

#[test]
fn duplicate_keys_in_object_literals() {
    check(
        r#"
        //- /a.js
        const o = {
            a: 1,
            "a": 2,
            1: "one",
            1.0: "one again",
            get b() { return 1; },
            set b(v) {},
            get b() { return 2; },
            c() {},
            c: 3,
        };
        const fine = {
            a: 1,
            [a]: 2,
            ...o,
            "a\u0062": 3,
            ab: 4,
            nested: { a: 1 },
            get g() {}, set g(v) {},
            0x10: 1, 16n: 2,
        };
        "#,
        expect![[r#"
            a.js:3:5: SX009 duplicate key 'a' in object literal
            a.js:5:5: SX009 duplicate key '1' in object literal
            a.js:8:9: SX009 duplicate key 'b' in object literal
            a.js:10:5: SX009 duplicate key 'c' in object literal
        "#]],
    );
}

#[test]
fn duplicate_definitions_in_a_javascript_or_typescript_module() {
    check(
        r#"
        //- /script.js
        let a = 1;
        const a = 2;
        function a() {}
        var v = 1;
        var v = 2;
        function f() {}
        function f() {}
        //- /module.mjs
        export function f() {}
        function f() {}
        class C {}
        var C;
        //- /t.ts
        function over(a: string): void;
        function over(a: number): void;
        function over(a: any) {}
        interface I { a: number }
        interface I { b: number }
        class K {}
        interface K { extra: number }
        namespace N {}
        function N() {}
        enum E { A }
        enum E { B = 1 }
        type T = number;
        const T = 1;
        declare const D: number;
        declare const D: number;
        type U = number;
        type U = string;
        function impl() {}
        function impl() {}
        //- /types.d.ts
        declare function f(): void;
        declare function f(a: number): void;
        interface Window { a: number }
        "#,
        expect![[r#"
            module.mjs:2:10: SX009 'f' is already defined in this module (line 1)
              = 1:17: 'f' first defined here
            module.mjs:4:5: SX009 'C' is already defined in this module (line 3)
              = 3:7: 'C' first defined here
            script.js:2:7: SX009 'a' is already defined in this module (line 1)
              = 1:5: 'a' first defined here
            script.js:3:10: SX009 'a' is already defined in this module (line 1)
              = 1:5: 'a' first defined here
            t.ts:17:6: SX009 'U' is already defined in this module (line 16)
              = 16:6: 'U' first defined here
            t.ts:19:10: SX009 'impl' is already defined in this module (line 18)
              = 18:10: 'impl' first defined here
        "#]],
    );
}

#[test]
fn duplicate_items_in_a_rust_module() {
    check(
        r#"
        //- /lib.rs
        fn parse() {}
        fn parse() {}
        struct Point;
        fn Point() {}
        struct Pair(i32, i32);
        const Pair: i32 = 1;
        mod shapes {}
        struct shapes;
        mod inner {
            struct S;
            struct S;
        }
        #[doc = "Documented."]
        #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
        #[inline]
        pub fn documented() {}
        #[allow(dead_code)]
        pub fn documented() {}
        "#,
        expect![[r#"
            lib.rs:2:4: SX009 'parse' is already defined in this module (line 1)
              = 1:4: 'parse' first defined here
            lib.rs:4:4: SX009 'Point' is already defined in this module (line 3)
              = 3:8: 'Point' first defined here
            lib.rs:6:7: SX009 'Pair' is already defined in this module (line 5)
              = 5:8: 'Pair' first defined here
            lib.rs:8:8: SX009 'shapes' is already defined in this module (line 7)
              = 7:5: 'shapes' first defined here
            lib.rs:11:12: SX009 'S' is already defined in this module (line 10)
              = 10:12: 'S' first defined here
            lib.rs:18:8: SX009 'documented' is already defined in this module (line 16)
              = 16:8: 'documented' first defined here
        "#]],
    );
}

#[test]
fn duplicate_items_in_a_rust_module_stay_quiet_on_real_idioms() {
    check(
        r#"
        //- /lib.rs
        // A braced struct is a type only; a function of its name is a value.
        pub struct Config {}
        pub fn Config() -> Config { Config {} }
        // One of the two is compiled.
        #[cfg(unix)]
        fn platform() {}
        #[cfg(not(unix))]
        /// Docs between the attribute and the item.
        fn platform() {}
        // Different namespaces: an enum and a function, a trait and a function, a module
        // and a function, macros.
        enum Kind { A }
        fn Kind() {}
        trait Draw {}
        fn Draw() {}
        mod parse {}
        fn parse() {}
        macro_rules! m { () => {} }
        macro_rules! m { () => {} }
        const _: () = ();
        const _: () = ();
        // Items in separate modules, in function bodies, and made by macros.
        mod a { fn f() {} }
        mod b { fn f() {} }
        fn body() {
            fn helper() {}
        }
        make_items! { fn generated() {} }
        fn generated2() {}
        impl Kind { fn new() {} }
        impl Config { fn new() {} }
        // Attribute macros and conditional `cfg`s may remove an item.
        #[rustversion::beta]
        fn rename() {}
        #[rustversion::not(beta)]
        fn rename() {}
        #[cfg_attr(feature = "x", cfg(unix))]
        fn gated() {}
        #[cfg_attr(feature = "x", cfg(not(unix)))]
        fn gated() {}
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn duplicate_names_in_a_go_package() {
    check(
        r#"
        //- /pkg/a.go
        package pkg

        var Shared = 1

        func Twice() {}
        func Twice() {}

        type T struct{}

        func (T) M()  {}
        func (*T) M() {}
        func (U) M()  {}

        func init() {}
        func init() {}

        var _ = 1
        var _ = 2
        //- /pkg/b.go
        package pkg

        const Shared = 2

        func M() {}
        //- /pkg/b_test.go
        package pkg_test

        var Shared = 3
        //- /pkg/c_linux.go
        package pkg

        var Shared = 4
        //- /pkg/d.go
        //go:build windows

        package pkg

        var Shared = 5
        //- /pkg/testdata/e.go
        package pkg

        var Shared = 6
        //- /go.mod
        module example.com/app

        go 1.22
        "#,
        expect![[r#"
            pkg/a.go:3:5: SX009 'Shared' is already defined in this package (b.go)
            pkg/a.go:6:6: SX009 'Twice' is already defined in this package (line 5)
              = 5:6: 'Twice' first defined here
            pkg/a.go:11:11: SX009 'T.M' is already defined in this package (line 10)
              = 10:10: 'T.M' first defined here
            pkg/b.go:3:7: SX009 'Shared' is already defined in this package (a.go)
        "#]],
    );
}

#[test]
fn go_unused_and_unresolved_imports() {
    check(
        r#"
        //- /main.go
        package main

        import (
        	"fmt"
        	"os"
        	"strings"
        	str "strings"
        	_ "embed"
        	. "math"
        	"C"
        	"net/http"
        	"math/rand/v2"
        	"github.com/spf13/cobra"
        	"gopkg.in/yaml.v3"
        	"example.com/app/util"
        	"example.com/app/missing"
        	"example.com/app/used"
        )

        func main() {
        	var h http.Handler
        	fmt.Println(h, Pi, used.Thing)
        }
        //- /util/util.go
        package helpers
        //- /used/used.go
        package used

        var Thing = 1
        //- /go.mod
        module example.com/app

        go 1.22

        require github.com/spf13/cobra v1.8.0
        "#,
        expect![[r#"
            main.go:5:2: SX006 "os" imported and not used
            main.go:6:2: SX006 "strings" imported and not used
            main.go:7:2: SX006 "strings" imported as str and not used
            main.go:12:2: SX006 "math/rand/v2" imported and not used
            main.go:15:2: SX006 "example.com/app/util" imported as helpers and not used
            main.go:16:2: SX003 no package 'example.com/app/missing' in the workspace
        "#]],
    );
}

#[test]
fn rust_unresolved_modules() {
    check(
        r#"
        //- /src/lib.rs
        mod present;
        mod dir;
        mod missing;
        #[cfg(windows)]
        mod windows_only;
        #[path = "elsewhere.rs"]
        mod moved;
        #[path = "nowhere.rs"]
        mod lost;
        pub mod inline {
            mod nested;
            mod gone;
        }
        mod r#ref;
        #[cfg_attr(unix, path = "sys/unix.rs")]
        #[cfg_attr(windows, path = "sys/windows.rs")]
        mod sys;
        pub enum Kind { A }
        pub use present::Thing as Alias;

        use crate::present::Thing;
        use crate::dir::sub::Deep;
        use crate::Kind::A;
        use crate::Alias::method;
        use crate::absent::{Thing as T, Other};
        //- /src/present.rs
        pub struct Thing;
        mod child;
        //- /src/present/child.rs
        //- /src/dir/mod.rs
        pub mod sub;
        //- /src/dir/sub.rs
        pub struct Deep;
        //- /src/elsewhere.rs
        //- /src/inline/nested.rs
        //- /src/ref.rs
        //- /Cargo.toml
        [package]
        name = "app"
        version = "0.1.0"
        edition = "2021"
        "#,
        expect![[r#"
            src/lib.rs:3:5: SX003 no file for module 'missing' (missing.rs or missing/mod.rs)
            src/lib.rs:9:5: SX003 no file 'nowhere.rs' for module 'lost'
            src/lib.rs:12:9: SX003 no file for module 'gone' (gone.rs or gone/mod.rs)
            src/lib.rs:25:12: SX003 no module 'absent' in this crate
        "#]],
    );
}

#[test]
fn rust_crate_paths_stay_quiet_where_the_root_may_define_more() {
    // A glob import in the root, a `macro_rules!` of the root (it may expand to modules), a
    // file no `mod` reaches (its crate is a guess).
    check(
        r#"
        //- /glob/src/lib.rs
        pub use inner::*;
        mod inner { pub mod generated {} }
        mod user;
        //- /glob/src/user.rs
        use crate::generated::Thing;
        //- /expands/src/lib.rs
        macro_rules! crate_root { () => { mod lib {} } }
        crate_root!();
        mod user;
        //- /expands/src/user.rs
        use crate::lib::Thing;
        //- /stray/src/lib.rs
        //- /stray/src/orphan.rs
        use crate::nothing::Thing;
        mod nowhere;
        //- /glob/Cargo.toml
        [package]
        name = "glob"
        version = "0.1.0"
        //- /expands/Cargo.toml
        [package]
        name = "expands"
        version = "0.1.0"
        //- /stray/Cargo.toml
        [package]
        name = "stray"
        version = "0.1.0"
        "#,
        expect![[r#""#]],
    );
}
