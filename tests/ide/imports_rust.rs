//! `imports` on Rust: every shape of `use`, `extern crate` and `mod`, and where each leads
//! (`semantic/imports/rust.rs`).

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::imports(&analysis::imports(&db, file)));
}

#[test]
fn use_trees_of_every_shape_give_one_import_per_leaf() {
    check(
        r#"
        //- /src/lib.rs
        use a::b::c;
        use a::b as c2;
        use a::{b, c::d, e as f, g::{h, i::{j, k::*}}, self};
        use a::*;
        use ::std::fmt;
        use {one, two::three};
        use four;
        use a::b::{self as ab};
        pub use crate::a::b;
        pub(crate) use crate::a::c;
        pub(super) use self::z;
        use a::{
            // a comment between leaves
            z,
        };
        use m::{*, n};
        "#,
        expect![[r#"
            1 a::b: c -> unresolved
            2 a: b as c2 -> unresolved
            3 a: b -> unresolved
            3 a::c: d -> unresolved
            3 a: e as f -> unresolved
            3 a::g: h -> unresolved
            3 a::g::i: j -> unresolved
            3 a::g::i::k: * -> unresolved
            3 a -> unresolved
            4 a: * -> unresolved
            5 ::std: fmt -> external (std)
            6 one -> unresolved
            6 two: three -> unresolved
            7 four -> unresolved
            8 a: b as ab -> unresolved
            9 crate::a: b (public) -> src/lib.rs
            10 crate::a: c -> src/lib.rs
            11 self: z -> src/lib.rs
            12 a: z -> unresolved
            16 m: * -> unresolved
            16 m: n -> unresolved
        "#]],
    );
}

#[test]
fn mod_declarations_lead_to_foo_rs_and_foo_mod_rs() {
    check(
        r#"
        //- /src/lib.rs
        mod flat;
        pub mod nested;
        mod missing;
        #[path = "elsewhere/custom.rs"]
        mod custom;
        #[cfg(test)]
        #[path = "t.rs"]
        mod t;
        mod inline {
            mod inner;
        }
        mod with_body {}
        //- /src/flat.rs
        //- /src/nested/mod.rs
        //- /src/elsewhere/custom.rs
        //- /src/t.rs
        //- /src/inline/inner.rs
        "#,
        expect![[r#"
            1 self::flat -> src/flat.rs
            2 self::nested (public) -> src/nested/mod.rs
            3 self::missing -> unresolved
            5 "elsewhere/custom.rs" as custom -> src/elsewhere/custom.rs
            8 "t.rs" as t -> src/t.rs
            10 self::inner -> src/inline/inner.rs
        "#]],
    );
}

#[test]
fn mod_declarations_in_a_non_mod_rs_file_lead_into_its_directory() {
    check(
        r#"
        //- /src/net.rs
        mod tcp;
        mod udp;
        mod outer {
            #[path = "deep.rs"]
            mod deep;
        }
        //- /src/lib.rs
        mod net;
        //- /src/net/tcp.rs
        //- /src/net/udp/mod.rs
        //- /src/udp.rs
        //- /src/net/outer/deep.rs
        "#,
        expect![[r#"
            1 self::tcp -> src/net/tcp.rs
            2 self::udp -> src/net/udp/mod.rs
            5 "deep.rs" as deep -> src/net/outer/deep.rs
        "#]],
    );
}

#[test]
fn crate_self_and_super_paths_follow_the_module_tree() {
    check(
        r#"
        //- /src/a/b/c.rs
        use crate::a::b::Thing;
        use crate::top_fn;
        use self::sibling_fn;
        use super::B;
        use super::super::A;
        use super::super::super::super::Beyond;
        use crate::a::b::c;
        use crate::a::missing::deep;
        use crate::Shape::Circle;
        use super::Thing as T2;
        pub fn sibling_fn() {}
        //- /src/lib.rs
        pub mod a;
        pub fn top_fn() {}
        pub enum Shape { Circle, Square }
        //- /src/a/mod.rs
        pub mod b;
        pub struct A;
        //- /src/a/b.rs
        pub mod c;
        impl Thing {}
        pub struct Thing;
        pub struct B;
        "#,
        expect![[r#"
            1 crate::a::b: Thing -> src/a/b.rs:3:12
            2 crate: top_fn -> src/lib.rs:2:8
            3 self: sibling_fn -> src/a/b/c.rs:11:8
            4 super: B -> src/a/b.rs:4:12
            5 super::super: A -> src/a/mod.rs:2:12
            6 super::super::super::super: Beyond -> unresolved
            7 crate::a::b: c -> src/a/b/c.rs
            8 crate::a::missing: deep -> src/a/mod.rs
            9 crate::Shape: Circle -> src/lib.rs:3:18
            10 super: Thing as T2 -> src/a/b.rs:3:12
        "#]],
    );
}

#[test]
fn inline_modules_move_self_and_super() {
    check(
        r#"
        //- /src/parser.rs
        pub fn parse() {}

        #[cfg(test)]
        mod tests {
            use super::*;
            use super::parse;
            use self::helpers::make;
            use super::super::other;

            mod helpers {
                use super::super::parse as p;
                pub fn make() {}
            }
        }
        //- /src/lib.rs
        mod parser;
        mod other;
        //- /src/other.rs
        "#,
        expect![[r#"
            5 super: * -> src/parser.rs
            6 super: parse -> src/parser.rs:1:8
            7 self::helpers: make -> src/parser.rs:12:16
            8 super::super: other -> src/other.rs
            11 super::super: parse as p -> src/parser.rs:1:8
        "#]],
    );
}

#[test]
fn paths_without_crate_start_at_a_local_module_an_item_or_the_crate_root() {
    check(
        r#"
        //- /src/lib.rs
        mod util;
        mod shapes;
        use util::helper;
        use shapes::Shape::*;
        use Kind::{A, B};
        use nothing_here::x;
        enum Kind { A, B }
        //- /src/util.rs
        pub fn helper() {}
        //- /src/shapes/mod.rs
        mod round;
        use round::Circle;
        use util::helper;
        pub enum Shape { Round }
        //- /src/shapes/round.rs
        pub struct Circle;
        "#,
        expect![[r#"
            1 self::util -> src/util.rs
            2 self::shapes -> src/shapes/mod.rs
            3 util: helper -> src/util.rs:1:8
            4 shapes::Shape: * -> src/shapes/mod.rs:4:10
            5 Kind: A -> src/lib.rs:7:13
            5 Kind: B -> src/lib.rs:7:16
            6 nothing_here: x -> unresolved
        "#]],
    );
    check(
        r#"
        //- /src/shapes/mod.rs
        mod round;
        use round::Circle;
        use util::helper;
        //- /src/lib.rs
        mod util;
        mod shapes;
        //- /src/util.rs
        pub fn helper() {}
        //- /src/shapes/round.rs
        pub struct Circle;
        "#,
        expect![[r#"
            1 self::round -> src/shapes/round.rs
            2 round: Circle -> src/shapes/round.rs:1:12
            3 util: helper -> src/util.rs:1:8
        "#]],
    );
}

#[test]
fn a_workspace_with_two_crates_and_dependencies() {
    check(
        r#"
        //- /crates/app/src/main.rs
        use core_utils::text::shout;
        use core_utils::Config;
        use renamed::text;
        use serde::Deserialize;
        use tokio_util::codec;
        use std::collections::HashMap;
        use core::fmt;
        use alloc::vec::Vec;
        use proc_macro::TokenStream;
        extern crate test;
        extern crate serde_json as json;
        use unknown_crate::Thing;
        mod cli;
        use cli::Args;
        use crate::cli::run;
        //- /crates/app/src/cli.rs
        pub struct Args;
        pub fn run() {}
        //- /crates/app/Cargo.toml
        [package]
        name = "app"

        [dependencies]
        core-utils = { path = "../core" }
        renamed = { package = "core-utils", path = "../core" }
        serde = "1"
        serde_json = "1"

        [target.'cfg(unix)'.dev-dependencies]
        tokio-util = "0.7"
        //- /crates/core/Cargo.toml
        [package]
        name = "core-utils"
        //- /crates/core/src/lib.rs
        pub mod text;
        pub struct Config;
        //- /crates/core/src/text.rs
        pub fn shout() {}
        //- /Cargo.toml
        [workspace]
        members = ["crates/*"]
        "#,
        expect![[r#"
            1 core_utils::text: shout -> crates/core/src/text.rs:1:8
            2 core_utils: Config -> crates/core/src/lib.rs:2:12
            3 renamed: text -> crates/core/src/text.rs
            4 serde: Deserialize -> external (serde)
            5 tokio_util: codec -> external (tokio-util)
            6 std::collections: HashMap -> external (std)
            7 core: fmt -> external (core)
            8 alloc::vec: Vec -> external (alloc)
            9 proc_macro: TokenStream -> external (proc_macro)
            10 test -> external (test)
            11 serde_json as json -> external (serde_json)
            12 unknown_crate: Thing -> unresolved
            13 self::cli -> crates/app/src/cli.rs
            14 cli: Args -> crates/app/src/cli.rs:1:12
            15 crate::cli: run -> crates/app/src/cli.rs:2:8
        "#]],
    );
}

#[test]
fn cargo_targets_are_crate_roots_and_files_no_mod_reaches_use_their_paths() {
    check(
        r#"
        //- /src/bin/tool.rs
        mod helper;
        use mylib::api;
        use crate::helper::go;
        use mylib::Item;
        use mylib::undeclared::deep::Thing;
        //- /src/bin/helper.rs
        pub fn go() {}
        //- /src/lib.rs
        macro_rules! cfg_api { ($($i:item)*) => { $($i)* } }
        cfg_api! {
            pub mod api;
            pub use api::inner::Item;
        }
        //- /src/api/mod.rs
        mod inner;
        //- /src/api/inner.rs
        pub struct Item;
        //- /src/undeclared/deep.rs
        pub struct Thing;
        //- /Cargo.toml
        [package]
        name = "mylib"
        "#,
        expect![[r#"
            1 self::helper -> src/bin/helper.rs
            2 mylib: api -> src/api/mod.rs
            3 crate::helper: go -> src/bin/helper.rs:1:8
            4 mylib: Item -> src/api/inner.rs:1:12
            5 mylib::undeclared::deep: Thing -> src/undeclared/deep.rs:1:12
        "#]],
    );
}

#[test]
fn imports_inside_item_macro_calls_count() {
    check(
        r#"
        //- /src/lib.rs
        macro_rules! cfg_api { ($($i:item)*) => { $($i)* } }
        cfg_api! {
            pub mod api;
            pub use api::inner::Item;
        }
        quote! { use #name::x; }
        //- /src/api/mod.rs
        pub mod inner;
        //- /src/api/inner.rs
        pub struct Item;
        "#,
        expect![[r#"
            3 self::api (public) -> src/api/mod.rs
            4 api::inner: Item (public) -> src/api/inner.rs:1:12
        "#]],
    );
}

#[test]
fn extern_crate_and_its_public_form() {
    check(
        r#"
        //- /lib.rs
        extern crate alloc;
        pub extern crate core as corelib;
        pub(crate) extern crate std;
        "#,
        expect![[r#"
            1 alloc -> external (alloc)
            2 core as corelib (public) -> external (core)
            3 std -> external (std)
        "#]],
    );
}

#[test]
fn a_file_outside_every_crate_resolves_only_crates_and_its_own_mods() {
    check(
        r#"
        //- /scripts/gen.rs
        use crate::x;
        use self::y;
        use std::io;
        mod part;
        //- /scripts/gen/part.rs
        "#,
        expect![[r#"
            1 crate: x -> unresolved
            2 self: y -> unresolved
            3 std: io -> external (std)
            4 self::part -> scripts/gen/part.rs
        "#]],
    );
}

#[test]
fn names_other_imports_bring_in_and_re_exports_are_followed() {
    check(
        r#"
        //- /src/main.rs
        mod runtime;
        mod io;
        use runtime::scheduler;
        use scheduler::Context::Worker;
        use io::{AsyncRead, Glob, Missing};
        use io::sync;
        use io::Result;
        use io::Renamed;
        //- /src/runtime/mod.rs
        pub mod scheduler;
        //- /src/runtime/scheduler.rs
        pub enum Context { Worker }
        //- /src/io/mod.rs
        mod read;
        mod globbed;
        pub use self::read::AsyncRead;
        pub use globbed::*;
        pub use crate::runtime as sync;
        pub use std::io::Result;
        pub use read::Reader as Renamed;
        //- /src/io/read.rs
        pub trait AsyncRead {}
        pub struct Reader;
        //- /src/io/globbed.rs
        pub struct Glob;
        "#,
        expect![[r#"
            1 self::runtime -> src/runtime/mod.rs
            2 self::io -> src/io/mod.rs
            3 runtime: scheduler -> src/runtime/scheduler.rs
            4 scheduler::Context: Worker -> src/runtime/scheduler.rs:1:20
            5 io: AsyncRead -> src/io/read.rs:1:11
            5 io: Glob -> src/io/globbed.rs:1:12
            5 io: Missing -> src/io/mod.rs
            6 io: sync -> src/runtime/mod.rs
            7 io: Result -> external (std)
            8 io: Renamed -> src/io/read.rs:2:12
        "#]],
    );
}

#[test]
fn a_crate_shadows_a_module_of_the_crate_root() {
    check(
        r#"
        //- /src/sync/mocked.rs
        use loom::cell::UnsafeCell;
        use util::helper;
        //- /src/lib.rs
        mod loom;
        mod util;
        mod sync;
        //- /src/loom.rs
        //- /src/util.rs
        pub fn helper() {}
        //- /src/sync/mod.rs
        mod mocked;
        //- /Cargo.toml
        [package]
        name = "rt"

        [target.'cfg(loom)'.dev-dependencies]
        loom = "0.7"
        "#,
        expect![[r#"
            1 loom::cell: UnsafeCell -> external (loom)
            2 util: helper -> src/util.rs:1:8
        "#]],
    );
}

#[test]
fn re_export_cycles_end() {
    check(
        r#"
        //- /src/lib.rs
        mod a;
        mod b;
        use a::Missing;
        use b::Found;
        //- /src/a.rs
        pub use crate::b::*;
        pub use self::Missing;
        //- /src/b.rs
        pub use crate::a::*;
        pub struct Found;
        "#,
        expect![[r#"
            1 self::a -> src/a.rs
            2 self::b -> src/b.rs
            3 a: Missing -> src/a.rs
            4 b: Found -> src/b.rs:2:12
        "#]],
    );
}
