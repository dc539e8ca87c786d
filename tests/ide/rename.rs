//! `rename`: the renamed texts of every language, cross-file through imports, aliases,
//! re-exports and `__all__`; conflicts named by place; invalid names refused.

use expect_test::{Expect, expect};
use sextant::ide::Failure as _;

use sextant::ide::{Rename, RenameError, RenameOptions};

use crate::analysis::{self, TestDb};

/// Each changed file after the rename (`//- path` then its text), then the edits left out
/// or listed apart, then new diagnostics; or the error's code, message and places.
fn render(db: &TestDb, result: Result<Rename, RenameError>) -> String {
    let mut out = String::new();
    match result {
        Ok(rename) => {
            for file in &rename.change.files {
                let base = db.text(db.file(&file.path));
                let text = file.apply(base).expect("the edit applies to its base");
                out.push_str(&format!("//- {}\n{}", file.path, text));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            for (label, list) in [
                ("heuristic", &rename.heuristic),
                ("text", &rename.text_matches),
            ] {
                for edit in list {
                    out.push_str(&format!(
                        "{label} {}:{}:{} {:?} applied={}\n",
                        edit.path,
                        edit.span.start.line,
                        edit.span.start.column,
                        edit.origin,
                        edit.applied
                    ));
                }
            }
            for d in rename.new_diagnostics.iter().flatten() {
                out.push_str(&format!(
                    "new diagnostic {}:{}:{} {} {}\n",
                    d.path, d.span.start.line, d.span.start.column, d.code, d.message
                ));
            }
        }
        Err(error) => {
            out.push_str(&format!("{}: {error}\n", error.code()));
            for c in error.conflicts() {
                out.push_str(&format!(
                    "  {}:{}:{} {}\n",
                    c.path, c.span.start.line, c.span.start.column, c.message
                ));
            }
        }
    }
    out
}

fn check_with(fixture: &str, new_name: &str, options: RenameOptions, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.expect("a $0 cursor").offset();
    let result = analysis::rename(&db, file, offset, new_name, options);
    expect.assert_eq(&render(&db, result));
}

fn check(fixture: &str, new_name: &str, expect: Expect) {
    check_with(fixture, new_name, RenameOptions::default(), expect);
}

fn check_by_name(fixture: &str, name: &str, new_name: &str, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    let result = analysis::rename_by_name(&db, name, new_name, RenameOptions::default());
    expect.assert_eq(&render(&db, result));
}

#[test]
fn python_local_variable() {
    check(
        r#"
        //- /m.py
        total = 0
        def f(items):
            total$0 = 0
            for x in items:
                total += x
            return total
        "#,
        "acc",
        expect![[r#"
            //- m.py
            total = 0
            def f(items):
                acc = 0
                for x in items:
                    acc += x
                return acc
        "#]],
    );
}

#[test]
fn python_parameter_and_its_keyword_arguments() {
    check(
        r#"
        //- /m.py
        def area(width$0, h):
            return width * h
        area(width=2, h=3)
        "#,
        "w",
        expect![[r#"
            //- m.py
            def area(w, h):
                return w * h
            area(w=2, h=3)
        "#]],
    );
}

#[test]
fn python_function_across_files_keeps_an_alias() {
    check(
        r#"
        //- /pkg/__init__.py
        //- /pkg/a.py
        __all__ = ["area", "other"]
        def area$0(w, h):
            return w * h
        def other():
            return area(1, 2)
        //- /pkg/b.py
        from pkg.a import area
        from pkg.a import area as surface
        import pkg.a
        print(area(1, 2), surface(3, 4), pkg.a.area(5, 6))
        "#,
        "size",
        expect![[r#"
            //- pkg/a.py
            __all__ = ["size", "other"]
            def size(w, h):
                return w * h
            def other():
                return size(1, 2)
            //- pkg/b.py
            from pkg.a import size
            from pkg.a import size as surface
            import pkg.a
            print(size(1, 2), surface(3, 4), pkg.a.size(5, 6))
        "#]],
    );
}

#[test]
fn python_alias_renames_only_its_local_name() {
    check(
        r#"
        //- /pkg/a.py
        def area(w, h):
            return w * h
        //- /pkg/b.py
        from pkg.a import area as surface
        print(surface$0(3, 4))
        "#,
        "extent",
        expect![[r#"
            //- pkg/b.py
            from pkg.a import area as extent
            print(extent(3, 4))
        "#]],
    );
}

#[test]
fn python_class_method_and_attribute() {
    check(
        r#"
        //- /m.py
        class Shape:
            def __init__(self):
                self.sides = 4
            def count$0(self):
                return self.sides
        s = Shape()
        s.count()
        def unknown(x):
            return x.count()
        "#,
        "number",
        expect![[r#"
            //- m.py
            class Shape:
                def __init__(self):
                    self.sides = 4
                def number(self):
                    return self.sides
            s = Shape()
            s.number()
            def unknown(x):
                return x.count()
            heuristic m.py:9:14 Code applied=false
        "#]],
    );
}

#[test]
fn python_heuristic_edits_only_when_asked() {
    check_with(
        r#"
        //- /m.py
        class Shape:
            def count$0(self):
                return 1
        def unknown(x):
            return x.count()
        "#,
        "number",
        RenameOptions {
            include_heuristic: true,
            include_text: false,
            ..RenameOptions::default()
        },
        expect![[r#"
            //- m.py
            class Shape:
                def number(self):
                    return 1
            def unknown(x):
                return x.number()
            heuristic m.py:5:14 Code applied=true
        "#]],
    );
}

#[test]
fn python_attribute_from_a_use_on_self() {
    check(
        r#"
        //- /m.py
        class Shape:
            def __init__(self):
                self.sides = 4
            def count(self):
                return self.sides$0
        print(Shape().sides)
        "#,
        "edges",
        expect![[r#"
            //- m.py
            class Shape:
                def __init__(self):
                    self.edges = 4
                def count(self):
                    return self.edges
            print(Shape().edges)
        "#]],
    );
}

#[test]
fn python_method_by_qualified_name() {
    check_by_name(
        r#"
        //- /m.py
        class Shape:
            def count(self):
                return 4
        class Other:
            def count(self):
                return 5
        Shape().count()
        "#,
        "Shape.count",
        "number",
        expect![[r#"
            //- m.py
            class Shape:
                def number(self):
                    return 4
            class Other:
                def count(self):
                    return 5
            Shape().number()
        "#]],
    );
}

#[test]
fn python_module_constant_by_name_with_strings_and_comments_when_asked() {
    check_with(
        r#"
        //- /m.py
        # LIMIT bounds the loop
        LIMIT$0 = 10
        def f():
            print("LIMIT is", LIMIT)
        "#,
        "MAX_ITEMS",
        RenameOptions {
            include_heuristic: false,
            include_text: true,
            ..RenameOptions::default()
        },
        expect![[r#"
            //- m.py
            # MAX_ITEMS bounds the loop
            MAX_ITEMS = 10
            def f():
                print("MAX_ITEMS is", MAX_ITEMS)
            text m.py:1:3 Comment applied=true
            text m.py:4:12 String applied=true
        "#]],
    );
}

#[test]
fn python_capture_by_an_inner_binding_is_a_conflict() {
    check(
        r#"
        //- /m.py
        def helper$0():
            return 1
        def main():
            value = 2
            return helper() + value
        "#,
        "value",
        expect![[r#"
            RENAME_CONFLICT: renaming `helper` to `value` would change what 1 name means
              m.py:5:12 this use of `helper` would be captured by another `value` (defined in m.py)
        "#]],
    );
}

#[test]
fn python_shadowing_an_outer_name_is_a_conflict() {
    check(
        r#"
        //- /m.py
        import os
        def main():
            path$0 = "x"
            return os.getcwd() + path
        "#,
        "os",
        expect![[r#"
            RENAME_CONFLICT: renaming `path` to `os` would change what 1 name means
              m.py:4:12 this `os` would refer to the renamed `path` instead
        "#]],
    );
}

#[test]
fn python_same_scope_binding_is_a_conflict() {
    check(
        r#"
        //- /m.py
        def first$0():
            return 1
        def second():
            return 2
        "#,
        "second",
        expect![[r#"
            RENAME_CONFLICT: renaming `first` to `second` would change what 1 name means
              m.py:3:5 `second` is already defined here, in the same scope
        "#]],
    );
}

#[test]
fn python_import_into_a_module_that_binds_the_new_name_is_a_conflict() {
    check(
        r#"
        //- /a.py
        def area$0():
            return 1
        //- /b.py
        from a import area
        size = 3
        print(area(), size)
        "#,
        "size",
        expect![[r#"
            RENAME_CONFLICT: renaming `area` to `size` would change what 4 names mean
              b.py:1:15 this use of `area` would be captured by another `size` (defined in b.py)
              b.py:2:1 `size` is already defined here, in the same scope
              b.py:3:7 this use of `area` would be captured by another `size` (defined in b.py)
              b.py:3:15 this `size` would refer to the renamed `area` instead
        "#]],
    );
}

#[test]
fn invalid_names_are_refused() {
    let fixture = r#"
        //- /m.py
        def f$0():
            return 1
        "#;
    check(
        fixture,
        "class",
        expect![[r#"
        INVALID_NAME: `class` is a Python keyword
    "#]],
    );
    check(
        fixture,
        "2x",
        expect![[r#"
        INVALID_NAME: `2x` is not a Python identifier (it must match [\p{XID_Start}_][\p{XID_Continue}]*)
    "#]],
    );
    check(
        fixture,
        "f",
        expect![[r#"
        INVALID_NAME: `f` is already the name
    "#]],
    );
}

#[test]
fn go_export_case_is_refused() {
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /m.go
        package m

        func Area$0() int { return 1 }
        "#,
        "area",
        expect![[r#"
            INVALID_NAME: in Go a name's first letter decides whether other packages see it: `Area` is exported, `area` would be unexported; keep the case of the first letter
        "#]],
    );
}

#[test]
fn go_function_across_packages_and_method() {
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /geo/geo.go
        package geo

        type Shape struct{ Sides int }

        func (s Shape) Count$0() int { return s.Sides }
        //- /main.go
        package main

        import "example.com/m/geo"

        func main() {
            s := geo.Shape{Sides: 3}
            _ = s.Count()
        }
        "#,
        "Number",
        expect![[r#"
            //- geo/geo.go
            package geo

            type Shape struct{ Sides int }

            func (s Shape) Number() int { return s.Sides }
            //- main.go
            package main

            import "example.com/m/geo"

            func main() {
                s := geo.Shape{Sides: 3}
                _ = s.Number()
            }
        "#]],
    );
}

#[test]
fn javascript_function_through_an_import_and_a_reexport() {
    check(
        r#"
        //- /a.js
        export function area$0(w, h) { return w * h; }
        //- /index.js
        export { area } from "./a.js";
        //- /b.js
        import { area } from "./index.js";
        import { area as surface } from "./a.js";
        console.log(area(1, 2), surface(3, 4));
        "#,
        "size",
        expect![[r#"
            //- a.js
            export function size(w, h) { return w * h; }
            //- b.js
            import { size } from "./index.js";
            import { size as surface } from "./a.js";
            console.log(size(1, 2), surface(3, 4));
            //- index.js
            export { size } from "./a.js";
        "#]],
    );
}

#[test]
fn typescript_class_field_and_local() {
    check(
        r#"
        //- /a.ts
        export class Shape {
            sides$0: number = 4;
            count(): number { const sides = this.sides; return sides; }
        }
        "#,
        "edges",
        expect![[r#"
            //- a.ts
            export class Shape {
                edges: number = 4;
                count(): number { const sides = this.edges; return sides; }
            }
        "#]],
    );
}

#[test]
fn rust_function_across_modules() {
    check(
        r#"
        //- /Cargo.toml
        [package]
        name = "demo"
        version = "0.1.0"
        edition = "2021"
        //- /src/lib.rs
        pub mod geo;
        use crate::geo::area;
        pub fn run() -> u32 { area(1, 2) }
        //- /src/geo.rs
        pub fn area$0(w: u32, h: u32) -> u32 { w * h }
        "#,
        "size",
        expect![[r#"
            //- src/geo.rs
            pub fn size(w: u32, h: u32) -> u32 { w * h }
            //- src/lib.rs
            pub mod geo;
            use crate::geo::size;
            pub fn run() -> u32 { size(1, 2) }
        "#]],
    );
}

#[test]
fn rust_local_and_struct_field() {
    check(
        r#"
        //- /src/main.rs
        struct Shape { sides: u32 }
        fn main() {
            let shape = Shape { sides: 3 };
            let count$0 = shape.sides;
            println!("{}", count);
        }
        "#,
        "total",
        expect![[r#"
            //- src/main.rs
            struct Shape { sides: u32 }
            fn main() {
                let shape = Shape { sides: 3 };
                let total = shape.sides;
                println!("{}", total);
            }
        "#]],
    );
}

#[test]
fn a_rename_that_breaks_a_check_reports_the_new_diagnostic() {
    check(
        r#"
        //- /m.py
        def f$0():
            return 1
        print(f())
        "#,
        "print",
        expect![[r#"
            RENAME_CONFLICT: renaming `f` to `print` would change what 1 name means
              m.py:3:1 this `print` would refer to the renamed `f` instead
        "#]],
    );
}

#[test]
fn nothing_to_rename() {
    check(
        r#"
        //- /m.py
        import os
        os$0.getcwd()
        "#,
        "system",
        expect![[r#"
            NOT_RENAMEABLE: `os` is defined outside the workspace (in `os`); renaming it here would change what is imported (give it an alias instead)
        "#]],
    );
    check(
        r#"
        //- /m.py
        x = 1 $0 + 2
        "#,
        "y",
        expect![[r#"
            NO_SYMBOL: no name at this position
        "#]],
    );
}

#[test]
fn python_reexport_through_a_package_and_its_all() {
    check(
        r#"
        //- /pkg/__init__.py
        from .impl import build
        __all__ = ["build"]
        //- /pkg/impl.py
        def build$0():
            return 1
        //- /app.py
        from pkg import build
        import pkg
        build()
        pkg.build()
        "#,
        "make",
        expect![[r#"
            //- app.py
            from pkg import make
            import pkg
            make()
            pkg.make()
            //- pkg/__init__.py
            from .impl import make
            __all__ = ["make"]
            //- pkg/impl.py
            def make():
                return 1
        "#]],
    );
}

#[test]
fn python_module_constant_through_an_alias_import() {
    check(
        r#"
        //- /conf.py
        LIMIT$0 = 10
        //- /use.py
        from conf import LIMIT as CAP
        import conf
        print(CAP, conf.LIMIT)
        "#,
        "MAX_ITEMS",
        expect![[r#"
            //- conf.py
            MAX_ITEMS = 10
            //- use.py
            from conf import MAX_ITEMS as CAP
            import conf
            print(CAP, conf.MAX_ITEMS)
        "#]],
    );
}

#[test]
fn javascript_local_parameter_and_method() {
    check(
        r#"
        //- /a.js
        export class Counter {
            bump$0(step) { this.total += step; return this; }
        }
        export function run(counter, step) {
            const local = counter.bump(step);
            return local;
        }
        new Counter().bump(1);
        "#,
        "increment",
        expect![[r#"
            //- a.js
            export class Counter {
                increment(step) { this.total += step; return this; }
            }
            export function run(counter, step) {
                const local = counter.bump(step);
                return local;
            }
            new Counter().increment(1);
            heuristic a.js:5:27 Code applied=false
        "#]],
    );
    check(
        r#"
        //- /a.js
        function scale(factor$0, value) {
            const doubled = value * factor;
            return () => doubled + factor;
        }
        "#,
        "k",
        expect![[r#"
            //- a.js
            function scale(k, value) {
                const doubled = value * k;
                return () => doubled + k;
            }
        "#]],
    );
}

#[test]
fn typescript_interface_method_and_constant_across_files() {
    check(
        r#"
        //- /limits.ts
        export const LIMIT$0 = 10;
        //- /use.ts
        import { LIMIT } from "./limits";
        import * as limits from "./limits";
        export const twice = LIMIT * 2 + limits.LIMIT;
        "#,
        "MAX",
        expect![[r#"
            //- limits.ts
            export const MAX = 10;
            //- use.ts
            import { MAX } from "./limits";
            import * as limits from "./limits";
            export const twice = MAX * 2 + limits.MAX;
        "#]],
    );
}

#[test]
fn typescript_capture_by_a_parameter_is_a_conflict() {
    check(
        r#"
        //- /a.ts
        const rate$0 = 2;
        export function price(base: number): number {
            return base * rate;
        }
        "#,
        "base",
        expect![[r#"
            RENAME_CONFLICT: renaming `rate` to `base` would change what 1 name means
              a.ts:3:19 this use of `rate` would be captured by another `base` (defined in a.ts)
        "#]],
    );
}

#[test]
fn go_local_parameter_field_and_constant() {
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /geo/geo.go
        package geo

        const Limit$0 = 10

        type Shape struct{ Sides int }

        func Area(width int) int {
            total := width * Limit
            return total
        }
        //- /main.go
        package main

        import "example.com/m/geo"

        func main() { _ = geo.Limit + geo.Area(2) }
        "#,
        "Max",
        expect![[r#"
            //- geo/geo.go
            package geo

            const Max = 10

            type Shape struct{ Sides int }

            func Area(width int) int {
                total := width * Max
                return total
            }
            //- main.go
            package main

            import "example.com/m/geo"

            func main() { _ = geo.Max + geo.Area(2) }
        "#]],
    );
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /geo/geo.go
        package geo

        type Shape struct{ Sides$0 int }

        func Area(width int) int {
            s := Shape{Sides: width}
            return s.Sides
        }
        "#,
        "Edges",
        expect![[r#"
            //- geo/geo.go
            package geo

            type Shape struct{ Edges int }

            func Area(width int) int {
                s := Shape{Edges: width}
                return s.Edges
            }
        "#]],
    );
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /geo/geo.go
        package geo

        func Area(width$0 int) int {
            total := width * 2
            return total
        }
        "#,
        "w",
        expect![[r#"
            //- geo/geo.go
            package geo

            func Area(w int) int {
                total := w * 2
                return total
            }
        "#]],
    );
}

#[test]
fn go_package_level_name_taken_in_another_file_is_a_conflict() {
    check(
        r#"
        //- /go.mod
        module example.com/m

        go 1.22
        //- /geo/a.go
        package geo

        func area$0() int { return 1 }

        func use() int { return area() }
        //- /geo/b.go
        package geo

        func size() int { return 2 }
        "#,
        "size",
        expect![[r#"
            RENAME_CONFLICT: renaming `area` to `size` would change what 1 name means
              geo/b.go:3:6 `size` is already defined here, in the same package
        "#]],
    );
}

#[test]
fn rust_method_constant_and_field() {
    check(
        r#"
        //- /src/main.rs
        struct Shape { sides: u32 }
        impl Shape {
            fn count$0(&self) -> u32 { self.sides }
        }
        const LIMIT: u32 = 3;
        fn main() {
            let shape = Shape { sides: LIMIT };
            println!("{}", shape.count());
        }
        "#,
        "number",
        expect![[r#"
            //- src/main.rs
            struct Shape { sides: u32 }
            impl Shape {
                fn number(&self) -> u32 { self.sides }
            }
            const LIMIT: u32 = 3;
            fn main() {
                let shape = Shape { sides: LIMIT };
                println!("{}", shape.number());
            }
        "#]],
    );
    check(
        r#"
        //- /src/main.rs
        struct Shape { sides$0: u32 }
        fn main() {
            let shape = Shape { sides: 3 };
            println!("{}", shape.sides);
        }
        "#,
        "edges",
        expect![[r#"
            //- src/main.rs
            struct Shape { edges: u32 }
            fn main() {
                let shape = Shape { edges: 3 };
                println!("{}", shape.edges);
            }
        "#]],
    );
    check(
        r#"
        //- /src/main.rs
        const LIMIT$0: u32 = 3;
        fn main() {
            println!("{}", LIMIT);
        }
        "#,
        "MAX",
        expect![[r#"
            //- src/main.rs
            const MAX: u32 = 3;
            fn main() {
                println!("{}", MAX);
            }
        "#]],
    );
}

#[test]
fn a_use_only_in_a_type_comment_is_reported_as_a_new_diagnostic() {
    let fixture = r#"
        //- /models.py
        class Model$0:
            pass
        //- /use.py
        from models import Model

        def load(path):
            # type: (str) -> Model
            return None
        "#;
    check(
        fixture,
        "Record",
        expect![[r#"
        //- models.py
        class Record:
            pass
        //- use.py
        from models import Record

        def load(path):
            # type: (str) -> Model
            return None
        new diagnostic use.py:1:20 SX006 'models.Record' imported but unused
    "#]],
    );
    // Renaming the comment's word too keeps the import used.
    check_with(
        fixture,
        "Record",
        RenameOptions {
            include_heuristic: false,
            include_text: true,
            ..RenameOptions::default()
        },
        expect![[r#"
            //- models.py
            class Record:
                pass
            //- use.py
            from models import Record

            def load(path):
                # type: (str) -> Record
                return None
            text use.py:4:22 Comment applied=true
        "#]],
    );
    // Without the diagnostics check (`--check off`), none is looked for.
    check_with(
        fixture,
        "Record",
        RenameOptions {
            check_diagnostics: false,
            ..RenameOptions::default()
        },
        expect![[r#"
            //- models.py
            class Record:
                pass
            //- use.py
            from models import Record

            def load(path):
                # type: (str) -> Model
                return None
        "#]],
    );
}

#[test]
fn python_names_in_string_annotations_are_renamed_but_literal_values_are_not() {
    check(
        r#"
        //- /models.py
        class Model$0:
            pass
        //- /use.py
        import typing
        from typing import Annotated, Literal, cast
        from models import Model

        def load(kind: Literal["Model"], raw) -> "list[Model]":
            first: 'Annotated[Model, "Model"]' = cast("Model", raw)
            return [first, cast(Model, raw), typing.cast("Model", raw)]

        def show(m: typing.Optional["Model"], note: "Model\n"):
            print(m, "Model")
        "#,
        "Record",
        expect![[r#"
            //- models.py
            class Record:
                pass
            //- use.py
            import typing
            from typing import Annotated, Literal, cast
            from models import Record

            def load(kind: Literal["Model"], raw) -> "list[Record]":
                first: 'Annotated[Record, "Model"]' = cast("Record", raw)
                return [first, cast(Record, raw), typing.cast("Record", raw)]

            def show(m: typing.Optional["Record"], note: "Model\n"):
                print(m, "Model")
        "#]],
    );
}

#[test]
fn python_an_import_bound_over_the_definition_keeps_importing_the_old_name() {
    check(
        r#"
        //- /tasks.py
        __all__ = ["leave"]
        def leave$0(task):
            return task
        pure_leave = leave
        try:
            from _accelerated import enter, leave
        except ImportError:
            pass
        leave(1)
        //- /user.py
        from tasks import leave
        leave(2)
        "#,
        "leave_task",
        expect![[r#"
            //- tasks.py
            __all__ = ["leave_task"]
            def leave_task(task):
                return task
            pure_leave = leave_task
            try:
                from _accelerated import enter, leave as leave_task
            except ImportError:
                pass
            leave_task(1)
            //- user.py
            from tasks import leave_task
            leave_task(2)
        "#]],
    );
}

#[test]
fn python_a_member_of_a_module_that_may_be_outside_the_workspace_keeps_its_old_name_there() {
    let fixture = r#"
        //- /pkg/__init__.py
        try:
            import _json as _impl
        except ImportError:
            from . import _impl
        def use():
            return _impl.find(1)
        //- /pkg/_impl.py
        def find$0(x):
            return x
        "#;
    check(
        fixture,
        "locate",
        expect![[r#"
            //- pkg/__init__.py
            try:
                import _json as _impl
            except ImportError:
                from . import _impl
            def use():
                return _impl.locate(1)
            //- pkg/_impl.py
            def locate(x):
                return x
        "#]],
    );
    let (db, file, cursor) = analysis::analysis(fixture);
    let rename = analysis::rename(
        &db,
        file,
        cursor.unwrap().offset(),
        "locate",
        RenameOptions::default(),
    )
    .unwrap();
    assert_eq!(
        rename.warnings,
        [
            "1 renamed use also referred to other definitions of `find`, which keep the old \
          name (for example pkg/__init__.py:6)"
        ]
    );
}
