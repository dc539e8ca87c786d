//! `outline` / `outline_page`: a file's symbols as a tree.

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check_page(fixture: &str, offset: usize, limit: usize, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::outline(&analysis::outline_page(
        &db, file, offset, limit,
    )));
}

fn check(fixture: &str, expect: Expect) {
    check_page(fixture, 0, usize::MAX, expect);
}

const PY_NESTED: &str = r#"
//- /shapes.py
class Outer:
    class Inner:
        def deep(self):
            pass

    def method(self):
        def local():
            pass
        return local

def top():
    pass
"#;

#[test]
fn python_nested_classes_and_methods() {
    check(
        PY_NESTED,
        expect![[r#"
        class Outer 1:1-9:21
          class Inner 2:5-4:17
            method deep 3:9-4:17
          method method 6:5-9:21
            function local 7:9-8:17
        function top 11:1-12:9
        -- shapes.py python: 6 symbols
    "#]],
    );
}

#[test]
fn a_page_keeps_children_whose_parent_is_on_it() {
    check_page(
        PY_NESTED,
        0,
        3,
        expect![[r#"
        class Outer 1:1-9:21
          class Inner 2:5-4:17
            method deep 3:9-4:17
        -- shapes.py python: 6 symbols, truncated, next offset 3
    "#]],
    );
}

#[test]
fn a_page_starting_inside_a_class_makes_its_members_roots() {
    check_page(
        PY_NESTED,
        3,
        10,
        expect![[r#"
        method method 6:5-9:21 in Outer
          function local 7:9-8:17
        function top 11:1-12:9
        -- shapes.py python: 6 symbols
    "#]],
    );
}

#[test]
fn rust_impl_blocks() {
    check(
        r#"
        //- /lib.rs
        pub struct Point {
            x: i32,
        }

        impl Point {
            pub fn new() -> Self {
                Point { x: 0 }
            }
        }

        impl std::fmt::Display for Point {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                Ok(())
            }
        }

        mod inner {
            pub trait Shape {
                fn area(&self) -> f64;
            }
        }
        "#,
        expect![[r#"
            struct Point 1:1-3:2
              field x 2:5-2:11
            impl Point 5:1-9:2
              method new 6:5-8:6
            impl Point 11:1-15:2
              method fmt 12:5-14:6
            module inner 17:1-21:2
              trait Shape 18:5-20:6
                method area 19:9-19:31
            -- lib.rs rust: 9 symbols
        "#]],
    );
}

#[test]
fn go_receivers_name_their_type() {
    check(
        r#"
        //- /shapes.go
        package shapes

        type Circle struct {
            R float64
        }

        func (c Circle) Area() float64 {
            return c.R * c.R
        }

        func (c *Circle) Grow(by float64) {
            c.R += by
        }

        func New() *Circle { return &Circle{} }
        "#,
        expect![[r#"
            struct Circle 3:1-5:2
              field R 4:5-4:14
            method Area 7:1-9:2 in Circle
            method Grow 11:1-13:2 in Circle
            function New 15:1-15:40
            -- shapes.go go: 5 symbols
        "#]],
    );
}

#[test]
fn typescript_classes_and_interfaces() {
    check(
        r#"
        //- /shapes.ts
        export interface Shape {
            area(): number;
        }

        export class Square implements Shape {
            constructor(private side: number) {}
            area(): number {
                return this.side ** 2;
            }
        }

        export function make(): Shape {
            return new Square(1);
        }
        "#,
        expect![[r#"
            interface Shape 1:8-3:2
              method area 2:5-2:19
            class Square 5:8-10:2
              method constructor 6:5-6:41
                field side 6:17-6:37 in Square
              method area 7:5-9:6
            function make 12:8-14:2
            -- shapes.ts typescript: 7 symbols
        "#]],
    );
}

#[test]
fn javascript_class_and_functions() {
    check(
        r#"
        //- /app.js
        class Counter {
            increment() {
                this.n++;
            }
        }

        function main() {}
        const helper = () => 1;
        "#,
        expect![[r#"
            class Counter 1:1-5:2
              method increment 2:5-4:6
            function main 7:1-7:19
            function helper 8:7-8:23
            -- app.js javascript: 4 symbols
        "#]],
    );
}

#[test]
fn empty_file_has_no_symbols() {
    check(
        "//- /empty.py\n",
        expect![[r#"
        -- empty.py python: 0 symbols
    "#]],
    );
}
