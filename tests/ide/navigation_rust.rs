//! `definition` and `references` in Rust: `let` scopes and shadowing, items seen before
//! their definition, closures and patterns, `use` trees across files, `crate`/`self`/
//! `super` paths, associated items through impl blocks in other files, traits, `Self` and
//! `self`, struct fields, enum variants and the prelude.

use expect_test::expect;

use crate::analysis;
use crate::navigation_checks::{check_definitions, check_references};

#[test]
fn let_shadows_from_the_end_of_its_statement_in_nested_blocks() {
    let files = r#"
        //- /src/lib.rs
        fn f(x: i32) -> i32 {
            let x = x + 1;
            {
                let y = x * 2;
                let x = y;
                let z = x;
            }
            let w = x;
            w
        }
    "#;
    check_definitions(
        files,
        &[
            ("let x = x$0 + 1", "src/lib.rs:1:6 parameter x\n"),
            ("let y = x$0 * 2", "src/lib.rs:2:9 variable x\n"),
            ("let z = x$0;", "src/lib.rs:5:13 variable x\n"),
            ("let w = x$0;", "src/lib.rs:2:9 variable x\n"),
            ("    w$0\n", "src/lib.rs:8:9 variable w\n"),
        ],
    );
}

#[test]
fn items_are_seen_before_their_definition_and_closures_have_parameters() {
    let files = r#"
        //- /src/lib.rs
        pub fn run() -> u32 {
            let offset = LIMIT;
            let add = |a: u32, (b, c): (u32, u32)| a + b + c + offset;
            helper(add(1, (2, 3)))
        }
        fn helper(n: u32) -> u32 {
            fn inner() -> u32 { 1 }
            n + inner()
        }
        const LIMIT: u32 = 10;
        macro_rules! twice { ($e:expr) => { $e * 2 } }
        static TOTAL: u32 = twice!(LIMIT);
    "#;
    check_definitions(
        files,
        &[
            ("= LIMIT$0;", "src/lib.rs:10:7 variable LIMIT\n"),
            ("helper$0(add", "src/lib.rs:6:4 function helper\n"),
            ("a + b$0 + c", "src/lib.rs:3:25 variable b\n"),
            ("c + offset$0;", "src/lib.rs:2:9 variable offset\n"),
            ("add$0(1,", "src/lib.rs:3:9 variable add\n"),
            ("n + inner$0()", "src/lib.rs:7:8 function inner\n"),
            ("twice$0!(LIMIT)", "src/lib.rs:11:14 function twice\n"),
        ],
    );
}

#[test]
fn match_arms_if_let_while_let_and_for_bind_in_their_bodies() {
    let files = r#"
        //- /src/lib.rs
        pub fn f(value: Option<u8>, items: Vec<(u8, u8)>) -> u8 {
            let mut stack = items.clone();
            let first = match value {
                Some(n @ 1..=9) if n > 2 => n,
                Some(other) => other,
                None => 0,
            };
            if let Some(value) = value {
                return value + first;
            }
            while let Some((a, ref b)) = stack.pop() {
                let _ = a + *b;
            }
            for (key, [x, ..]) in [(1, [2])] {
                let _ = key + x;
            }
            first
        }
    "#;
    check_definitions(
        files,
        &[
            ("if n$0 > 2", "src/lib.rs:4:14 variable n\n"),
            ("=> n$0,", "src/lib.rs:4:14 variable n\n"),
            ("=> other$0,", "src/lib.rs:5:14 variable other\n"),
            (
                "if let Some(value) = value$0 {",
                "src/lib.rs:1:10 parameter value\n",
            ),
            ("return value$0 + first", "src/lib.rs:8:17 variable value\n"),
            ("let _ = a$0 + *b", "src/lib.rs:11:21 variable a\n"),
            ("a + *b$0;", "src/lib.rs:11:28 variable b\n"),
            ("key + x$0;", "src/lib.rs:14:16 variable x\n"),
            ("    first$0\n", "src/lib.rs:3:9 variable first\n"),
            ("None$0 =>", "external std::prelude external None\n"),
        ],
    );
}

#[test]
fn use_groups_aliases_and_globs_lead_across_files() {
    let files = r#"
        //- /Cargo.toml
        [package]
        name = "demo"
        version = "0.1.0"
        //- /src/lib.rs
        mod geometry;
        mod util;
        use geometry::{shapes::{Square, area as square_area}, Point};
        use util::*;
        use std::collections::HashMap;

        pub fn main() {
            let p = Point::origin();
            let s = Square { side: 2 };
            square_area(&s);
            clamp(p.x);
            let map: HashMap<u8, u8> = HashMap::new();
            geometry::shapes::area(&s);
        }
        //- /src/geometry/mod.rs
        pub mod shapes;
        pub struct Point { pub x: i32 }
        impl Point {
            pub fn origin() -> Self { Point { x: 0 } }
        }
        //- /src/geometry/shapes.rs
        pub struct Square { pub side: u32 }
        pub fn area(s: &Square) -> u32 { s.side * s.side }
        //- /src/util.rs
        pub fn clamp(v: i32) -> i32 { v }
    "#;
    check_definitions(
        files,
        &[
            (
                "Point::origin$0()",
                "src/geometry/mod.rs:4:12 function origin\n",
            ),
            ("let p = Point$0::", "src/geometry/mod.rs:2:12 type Point\n"),
            (
                "Square$0 { side: 2 }",
                "src/geometry/shapes.rs:1:12 type Square\n",
            ),
            (
                "Square { side$0: 2 }",
                "src/geometry/shapes.rs:1:25 variable side\n",
            ),
            (
                "square_area$0(&s)",
                "src/geometry/shapes.rs:2:8 function area\n",
            ),
            (
                "area as square_area$0}",
                "src/geometry/shapes.rs:2:8 function area\n",
            ),
            ("clamp$0(p.x)", "src/util.rs:1:8 function clamp\n"),
            ("clamp(p.x$0)", "src/geometry/mod.rs:2:24 variable x\n"),
            (
                "HashMap::new$0()",
                "external std::collections::HashMap external new\n",
            ),
            (
                "geometry::shapes$0::area",
                "src/geometry/shapes.rs:1:1 module shapes\n",
            ),
            (
                "geometry$0::shapes::area",
                "src/geometry/mod.rs:1:1 module geometry\n",
            ),
            (
                "shapes::area$0(&s)",
                "src/geometry/shapes.rs:2:8 function area\n",
            ),
        ],
    );
}

#[test]
fn crate_self_and_super_paths_in_expressions() {
    let files = r#"
        //- /src/lib.rs
        pub mod net;
        pub fn log(msg: &str) {}
        pub mod inline {
            pub fn ping() { super::log("ping"); self::pong(); }
            pub fn pong() {}
            #[cfg(test)]
            mod tests {
                use super::*;
                fn t() { pong(); super::super::log("t"); crate::net::connect(); }
            }
        }
        //- /src/net.rs
        pub fn connect() { crate::log("connect"); super::inline::ping(); self::retry(); }
        fn retry() {}
    "#;
    check_definitions(
        files,
        &[
            ("super::log$0(\"ping\")", "src/lib.rs:2:8 function log\n"),
            ("self::pong$0()", "src/lib.rs:5:12 function pong\n"),
            ("fn t() { pong$0()", "src/lib.rs:5:12 function pong\n"),
            (
                "super::super::log$0(\"t\")",
                "src/lib.rs:2:8 function log\n",
            ),
            (
                "crate::net::connect$0()",
                "src/net.rs:1:8 function connect\n",
            ),
            ("crate::log$0(\"connect\")", "src/lib.rs:2:8 function log\n"),
            ("super::inline::ping$0()", "src/lib.rs:4:12 function ping\n"),
            ("super::inline$0::ping()", "src/lib.rs:3:9 module inline\n"),
            ("self::retry$0()", "src/net.rs:2:4 function retry\n"),
        ],
    );
}

#[test]
fn associated_items_live_in_impl_blocks_of_any_file() {
    let files = r#"
        //- /src/lib.rs
        mod model;
        mod behaviour;
        use model::{Counter, Shape};
        use behaviour::Describe;

        pub fn main() {
            let mut c = Counter::new(1);
            c.bump();
            Counter::new(2).bump();
            let total: Counter = Counter::default_start();
            total.value;
            c.describe();
            c.label();
            let s = Shape::Circle { radius: 1.0 };
            let _ = Shape::Square(2.0);
            match s {
                Shape::Circle { radius } => radius,
                Shape::Square(side) => side,
            };
        }
        //- /src/model.rs
        pub struct Counter<T = u32> { pub value: T }
        pub enum Shape { Circle { radius: f64 }, Square(f64) }
        impl<T> Counter<T> {
            pub fn new(value: T) -> Self { Self { value } }
            pub fn bump(&mut self) { self.check(); Self::default_start(); }
        }
        //- /src/behaviour.rs
        use crate::model::Counter;
        pub trait Describe {
            fn describe(&self) -> String;
            fn label(&self) -> String { self.describe() }
        }
        impl Counter {
            pub fn default_start() -> Counter { Counter::new(0) }
            fn check(&self) {}
        }
        impl Describe for Counter {
            fn describe(&self) -> String { String::new() }
        }
    "#;
    check_definitions(
        files,
        &[
            ("Counter::new$0(1)", "src/model.rs:4:12 function new\n"),
            ("c.bump$0()", "src/model.rs:5:12 function bump\n"),
            (
                "Counter::new(2).bump$0()",
                "src/model.rs:5:12 function bump\n",
            ),
            (
                "Counter::default_start$0();",
                "src/behaviour.rs:7:12 function default_start\n",
            ),
            ("total.value$0;", "src/model.rs:1:35 variable value\n"),
            (
                "c.describe$0()",
                "src/behaviour.rs:11:8 function describe\n",
            ),
            ("c.label$0()", "src/behaviour.rs:4:8 function label\n"),
            (
                "self.describe$0()",
                "src/behaviour.rs:3:8 function describe\n",
            ),
            ("self.check$0()", "src/behaviour.rs:8:8 function check\n"),
            (
                "Self::default_start$0()",
                "src/behaviour.rs:7:12 function default_start\n",
            ),
            ("Self$0 { value }", "src/model.rs:1:12 type Counter\n"),
            ("Self { value$0 }", "src/model.rs:4:16 parameter value\n"),
            ("self$0.check()", "src/model.rs:5:22 parameter self\n"),
            (
                "Shape::Circle$0 { radius: 1.0 }",
                "src/model.rs:2:18 type Circle\n",
            ),
            (
                "Circle { radius$0: 1.0 }",
                "src/model.rs:2:27 variable radius\n",
            ),
            ("Shape::Square$0(2.0)", "src/model.rs:2:42 type Square\n"),
            ("Shape::Square$0(side)", "src/model.rs:2:42 type Square\n"),
            (
                "{ radius } => radius$0,",
                "src/lib.rs:17:25 variable radius\n",
            ),
            (
                "impl Describe for Counter$0 {",
                "src/model.rs:1:12 type Counter\n",
            ),
        ],
    );
}

#[test]
fn prelude_names_and_primitive_types_are_external() {
    let files = r#"
        //- /src/lib.rs
        pub fn f(v: Vec<u8>) -> Option<String> {
            let n: usize = v.len();
            println!("{n}");
            Some(String::new())
        }
    "#;
    check_definitions(
        files,
        &[
            ("v: Vec$0<u8>", "external std::prelude external Vec\n"),
            ("Vec<u8$0>", "external std::prelude external u8\n"),
            (
                "Option$0<String>",
                "external std::prelude external Option\n",
            ),
            ("n: usize$0", "external std::prelude external usize\n"),
            ("println$0!", "external std::prelude external println\n"),
            ("Some$0(String", "external std::prelude external Some\n"),
            (
                "String::new$0()",
                "external std::prelude::String external new\n",
            ),
        ],
    );
}

#[test]
fn references_of_a_method_across_files() {
    check_references(
        r#"
        //- /src/lib.rs
        mod store;
        use store::Store as Db;
        pub fn main() {
            let db = Db::open();
            db.get(1);
            let other: Db = Db::open();
            other.get(2);
        }
        //- /src/store.rs
        pub struct Store;
        impl Store {
            pub fn open() -> Self { Store }
            pub fn get$0(&self, key: u8) -> u8 { self.get(key) }
        }
        //- /src/cache.rs
        pub fn get(key: u8) -> u8 { key }
        fn unrelated() { get(1); }
        "#,
        expect![[r#"
            src/lib.rs:5:8 call
            src/lib.rs:7:11 call
            src/store.rs:4:12 definition
            src/store.rs:4:45 call
        "#]],
    );
}

#[test]
fn references_of_a_struct_through_use_aliases_and_self() {
    check_references(
        r#"
        //- /src/lib.rs
        mod store;
        use store::Store as Db;
        pub fn open() -> Db { Db::new() }
        //- /src/store.rs
        pub struct Store$0 { pub size: usize }
        impl Store {
            pub fn new() -> Self { Self { size: 0 } }
        }
        impl Default for Store {
            fn default() -> Store { Store::new() }
        }
        "#,
        expect![[r#"
            src/lib.rs:2:12 import
            src/lib.rs:2:21 import
            src/lib.rs:3:18 type
            src/lib.rs:3:23 read
            src/store.rs:1:12 definition
            src/store.rs:2:6 type
            src/store.rs:5:18 type
            src/store.rs:6:21 type
            src/store.rs:6:29 read
        "#]],
    );
}

#[test]
fn written_types_make_instances_through_smart_pointers_and_outside_types() {
    let files = r#"
        //- /src/lib.rs
        use std::sync::Arc;
        pub struct Names { pub list: Vec<u8>, len: usize }
        impl Names {
            pub fn first(&self) -> Option<&u8> { self.list.first() }
            pub fn len(&self) -> usize { self.len }
        }
        fn shared() -> Arc<Names> { Arc::new(Names { list: Vec::new() }) }
        pub fn f(boxed: Box<Names>, names: &Names) {
            boxed.first();
            shared().first();
            names.list.clear();
            let mut text = String::with_capacity(names.len());
            text.push('x');
            assert_eq!(names.len(), boxed.len);
        }
    "#;
    check_definitions(
        files,
        &[
            ("boxed.first$0()", "src/lib.rs:4:12 function first\n"),
            ("shared().first$0()", "src/lib.rs:4:12 function first\n"),
            (
                "names.list.clear$0()",
                "external std::prelude::Vec external clear\n",
            ),
            (
                "self.list.first$0()",
                "external std::prelude::Vec external first\n",
            ),
            ("Arc::new$0(", "external std::sync::Arc external new\n"),
            ("{ self.len$0 }", "src/lib.rs:2:39 variable len\n"),
            (
                "text.push$0('x')",
                "external std::prelude::String external push\n",
            ),
            ("assert_eq!(names.len$0()", "src/lib.rs:5:12 function len\n"),
            ("boxed.len$0);", "src/lib.rs:2:39 variable len\n"),
        ],
    );
}

#[test]
fn call_hierarchy_and_hover_on_methods() {
    let fixture = r#"
        //- /src/lib.rs
        mod store;
        use store::Store;
        pub fn run(s: &Store) -> u8 { s.get(1) + s.get(2) }
        //- /src/store.rs
        pub struct Store;
        impl Store {
            /// Looks a key up.
            pub fn get$0(&self, key: u8) -> u8 { self.check(key) }
            fn check(&self, key: u8) -> u8 { key }
        }
    "#;
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.unwrap().offset();
    expect![[r#"
        function run src/lib.rs:3 at 3:33, 3:44
    "#]]
    .assert_eq(&crate::navigation::render_calls(&analysis::incoming_calls(
        &db, file, offset,
    )));
    expect![[r#"
        method check src/store.rs:5 at 4:45
    "#]]
    .assert_eq(&crate::navigation::render_calls(&analysis::outgoing_calls(
        &db, file, offset,
    )));
    let hover = analysis::hover(&db, file, offset).expect("a hover");
    assert_eq!(
        (
            hover.definition.kind.as_str(),
            hover.signature.as_deref(),
            hover.documentation.as_deref()
        ),
        (
            "function",
            Some("pub fn get(&self, key: u8) -> u8"),
            Some("Looks a key up.")
        )
    );
}

#[test]
fn globs_inside_inline_modules_bring_enum_variants() {
    let files = r#"
        //- /src/lib.rs
        pub enum Token { Literal(char), Any }
        #[cfg(test)]
        mod tests {
            use super::Token::*;
            use super::Token;
            fn lit(c: char) -> Token { Literal(c) }
            fn any() -> Token { Any }
        }
    "#;
    check_definitions(
        files,
        &[
            ("{ Literal$0(c) }", "src/lib.rs:1:18 type Literal\n"),
            ("{ Any$0 }", "src/lib.rs:1:33 type Any\n"),
            ("fn any() -> Token$0 {", "src/lib.rs:1:10 type Token\n"),
        ],
    );
}
