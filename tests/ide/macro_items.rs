//! Rust items inside item-level macro calls (`cfg_rt! { pub fn spawn_blocking … }`,
//! `cfg_if! { if #[cfg(unix)] { … } else { … } }`): outline, symbol search and imports see
//! them at their place in the file, and a body that is not items changes nothing, not even
//! the file's syntax errors (`semantic/symbols.rs`).

use expect_test::{Expect, expect};
use sextant::{
    ide::{OutlineNode, SymbolQuery},
    syntax::LineIndex,
};

use crate::{analysis, render};

fn check_outline(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    let outline = analysis::outline_page(&db, file, 0, usize::MAX);
    assert_positions_agree(db.text(file), &outline.symbols);
    expect.assert_eq(&render::outline(&outline));
}

/// Every span's line and column are those of its byte offsets in the file (the body was
/// parsed on its own: a shifted offset or point would show here).
fn assert_positions_agree(text: &str, nodes: &[OutlineNode]) {
    let index = LineIndex::new(text);
    for n in nodes {
        for span in [&n.span, &n.name_span] {
            assert_eq!(
                span.start,
                index.line_col(span.byte_start as usize),
                "{}",
                n.name
            );
            assert_eq!(
                span.end,
                index.line_col(span.byte_end as usize),
                "{}",
                n.name
            );
        }
        assert_eq!(
            &text[n.name_span.byte_start as usize..n.name_span.byte_end as usize],
            n.name
        );
        assert_positions_agree(text, &n.children);
    }
}

#[test]
fn a_cfg_macro_body_is_items() {
    check_outline(
        r#"
        //- /src/task.rs
        cfg_rt! {
            /// Runs `f` on a blocking thread.
            pub fn spawn_blocking<F>(f: F) {}

            pub(crate) struct Pool {
                threads: usize,
            }
        }

        pub fn after() {}
        "#,
        expect![[r#"
            function spawn_blocking 3:5-3:38
            struct Pool 5:5-7:6
              field threads 6:9-6:23
            function after 10:1-10:18
            -- src/task.rs rust: 4 symbols
        "#]],
    );
}

#[test]
fn nested_macro_bodies_and_bodies_in_impls_and_modules() {
    check_outline(
        r#"
        //- /src/lib.rs
        cfg_rt! {
            cfg_fs! {
                cfg_unstable! {
                    pub fn deep() {}
                }
                pub mod fs {
                    cfg_io! { pub trait Read { fn read(&mut self); } }
                }
            }
        }

        pub struct Handle;

        impl Handle {
            cfg_metrics! {
                pub fn metrics(&self) {}
            }
        }
        "#,
        expect![[r#"
            function deep 4:13-4:29
            module fs 6:9-8:10
              trait Read 7:23-7:61
                method read 7:40-7:59
            struct Handle 12:1-12:19
            impl Handle 14:1-18:2
              method metrics 16:9-16:33
            -- src/lib.rs rust: 7 symbols
        "#]],
    );
}

const CFG_IF: &str = r#"
//- /src/lib.rs
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        mod unix;
        pub use unix::Handle;
    } else if #[cfg(windows)] {
        mod windows;
        pub use self::windows::Handle;
    } else {
        pub struct Handle;
        cfg_if! {
            if #[cfg(feature = "std")] { pub fn fallback() {} }
        }
    }
}
//- /src/unix.rs
pub struct Handle;
//- /src/windows.rs
pub struct Handle;
//- /Cargo.toml
[package]
name = "sys"
"#;

#[test]
fn cfg_if_branches_are_items() {
    check_outline(
        CFG_IF,
        expect![[r#"
            module unix 3:9-3:18
            module windows 6:9-6:21
            struct Handle 9:9-9:27
            function fallback 11:42-11:62
            -- src/lib.rs rust: 4 symbols
        "#]],
    );
}

#[test]
fn cfg_if_branches_declare_modules_and_imports() {
    let (db, file, _) = analysis::analysis(CFG_IF);
    expect![[r#"
        3 self::unix -> src/unix.rs
        4 unix: Handle (public) -> src/unix.rs:1:12
        6 self::windows -> src/windows.rs
        7 self::windows: Handle (public) -> src/windows.rs:1:12
    "#]]
    .assert_eq(&render::imports(&analysis::imports(&db, file)));
}

#[test]
fn bodies_that_are_not_items_yield_nothing() {
    check_outline(
        r#"
        //- /src/lib.rs
        numbers! { 1, 2, 3 }
        quote! {
            fn #name() {}
        }
        json! { "fn": "f" }
        paren!(fn in_parens() {});
        brackets![fn in_brackets() {}];
        // Not cfg_if's shape: a condition that is not an attribute.
        branches! {
            if ready { fn not_an_item() {} }
        }
        macro_rules! items {
            ($($i:item)*) => { fn from_the_template() {} $($i)* };
        }
        fn body() {
            local! { fn in_a_function_body() {} }
        }
        "#,
        expect![[r#"
            macro items 12:1-14:2
            function body 15:1-17:2
            -- src/lib.rs rust: 2 symbols
        "#]],
    );
}

#[test]
fn a_body_with_a_syntax_error_or_statements_is_left_alone_and_the_file_has_no_error() {
    let fixture = r#"
        //- /src/lib.rs
        cfg_rt! {
            pub fn half() {}
            pub fn broken() -> {}
        }
        cfg_fs! {
            pub fn statements() {}
            let x = 1;
        }
        cfg_if! {
            if #[cfg(unix)] { pub fn unix() {} } else { pub fn other() -> {} }
        }
        pub fn whole() {}
        "#;
    // The file itself parses cleanly: its token trees are balanced.
    let (db, file, _) = analysis::analysis(fixture);
    assert_eq!(analysis::syntax_errors(&db, file), []);
    check_outline(
        fixture,
        expect![[r#"
            function unix 10:23-10:39
            function whole 12:1-12:18
            -- src/lib.rs rust: 2 symbols
        "#]],
    );
}

#[test]
fn positions_count_characters_after_multibyte_text() {
    let fixture = r#"
        //- /src/lib.rs
        // é漢😀 before the macro
        /* é漢😀 */ cfg_rt! { /* 😀 */ pub fn after_emoji() {} }
        cfg_fs! {
            pub const NAME: &str = "漢字"; pub fn after_kanji() {}
        }
        "#;
    check_outline(
        fixture,
        expect![[r#"
            function after_emoji 2:29-2:52
            constant NAME 4:5-4:33
            function after_kanji 4:34-4:57
            -- src/lib.rs rust: 3 symbols
        "#]],
    );
    let (db, _, _) = analysis::analysis(fixture);
    let search = analysis::symbol_search(
        &db,
        &SymbolQuery {
            query: "after".into(),
            limit: 10,
            ..Default::default()
        },
    );
    expect![[r#"
        src/lib.rs:2:36 function after_emoji (Prefix)
        src/lib.rs:4:41 function after_kanji (Prefix)
        -- 2 in all
    "#]]
    .assert_eq(&render::symbol_search(&search));
}
