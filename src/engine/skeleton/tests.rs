//! Tests of `file_skeleton`: exact skeletons of small files in every language, and the
//! byte-exact round trip on the fixtures and this repository's own sources.
//!
//! Invariant: every skeleton built here is checked to restore its file byte for byte.

use std::path::{Path, PathBuf};

use expect_test::{Expect, expect};

use super::*;
use crate::lang::registry;

fn skeleton(lang: &str, text: &str) -> FileSkeleton {
    let lang = registry().by_id(lang).unwrap();
    let tree = syntax::parse_tree_sitter(lang, text, None, syntax::NEVER);
    let skeleton = skeleton_of(lang, text, tree.as_ref(), syntax::NEVER).unwrap();
    assert_eq!(
        skeleton.restore(text),
        text,
        "{} does not round-trip",
        lang.id
    );
    for e in &skeleton.elisions {
        let marker = &skeleton.text[e.in_skeleton];
        let numbers = match (e.start_line, e.end_line) {
            (a, b) if a == b => format!("{a}"),
            (a, b) => format!("{a}-{b}"),
        };
        let span = match e.start_line == e.end_line {
            true => format!("line {numbers}"),
            false => format!("lines {numbers}"),
        };
        // A doc's rest comes with its definition: its marker names no lines; so does an
        // attribute's, and a lint attribute leaves none. A braced body's marker names them
        // after its ellipsis (`/* …12-30 */`).
        let braced = format!("/* …{numbers} */");
        match e.kind {
            ElisionKind::Doc => assert_eq!(marker.trim(), "…"),
            ElisionKind::Attribute => assert!(["…", ""].contains(&marker.trim()), "{marker:?}"),
            _ => assert!(
                marker.contains(&span) || marker.trim() == braced,
                "{marker:?} names {span}"
            ),
        }
        assert!(e.start_line <= e.end_line);
    }
    skeleton
}

fn check(lang: &str, text: &str, expected: Expect) {
    expected.assert_eq(&skeleton(lang, text).text);
}

#[test]
fn python_bodies_become_ellipses_and_docstrings_keep_their_first_line() {
    check(
        "python",
        r#"import os

class Shape:
    """A shape."""
    sides = 0

    def area(self) -> float:
        """Return the area."""
        width = self.width
        return width * width

    def describe(self):
        """Describe the shape.

        At length.
        """
        def inner():
            return 1
        return inner()

def helper(x):
    y = x + 1
    return y

def short(): return 1
"#,
        expect![[r#"
            import os

            class Shape:
                """A shape."""
                sides = 0

                def area(self) -> float:
                    """Return the area."""
                    ...  # lines 9-10

                def describe(self): """Describe the shape."""  # lines 13-19

            def helper(x): ...  # lines 22-23

            def short(): return 1
        "#]],
    );
}

#[test]
fn rust_function_bodies_are_elided_and_impls_kept() {
    check(
        "rust",
        r#"use std::fmt;

/// A point.
pub struct Point {
    x: i32,
}

impl Point {
    /// Its x.
    pub fn x(&self) -> i32 {
        let x = self.x;
        x
    }

    fn empty() {}
}

trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String {
        String::from("shape")
    }
}

static F: fn() = || {
    let a = 1;
    drop(a);
};
"#,
        expect![[r#"
            use std::fmt;

            /// A point.
            pub struct Point {
                x: i32,
            }

            impl Point {
                /// Its x.
                pub fn x(&self) -> i32 { /* …11-12 */ }

                fn empty() {}
            }

            trait Shape {
                fn area(&self) -> f64;
                fn name(&self) -> String { /* …21 */ }
            }

            static F: fn() = || { /* …26-27 */ };
        "#]],
    );
}

#[test]
fn go_functions_methods_and_literals_are_elided() {
    check(
        "go",
        "package main\n\nimport \"fmt\"\n\n// Point is a point.\ntype Point struct {\n\tX int\n}\n\n// Show prints it.\nfunc (p Point) Show() {\n\tfmt.Println(p.X)\n\tfmt.Println(p.X)\n}\n\nvar handler = func() int {\n\treturn 1 + 2 + 3 + 4\n}\n",
        expect![[r#"
            package main

            import "fmt"

            // Point is a point.
            type Point struct {
            	X int
            }

            // Show prints it.
            func (p Point) Show() { /* …12-13 */ }

            var handler = func() int { /* …17 */ }
        "#]],
    );
}

#[test]
fn javascript_and_typescript_functions_methods_and_arrows_are_elided() {
    let js = r#"import { a } from "./a";

/** Adds. */
export function add(x, y) {
  const z = x + y;
  return z;
}

class Counter {
  count = 0;
  increment() {
    this.count += 1;
    return this.count;
  }
}

const double = (x) => x * 2;
const triple = (x) => {
  return x * 3 + offset;
};
"#;
    let expected = expect![[r#"
        import { a } from "./a";

        /** Adds. */
        export function add(x, y) { /* …5-6 */ }

        class Counter {
          count = 0;
          increment() { /* …12-13 */ }
        }

        const double = (x) => x * 2;
        const triple = (x) => { /* …19 */ };
    "#]];
    check("javascript", js, expected);
    check(
        "typescript",
        "interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(private side: number) {\n    this.side = side * 1;\n  }\n  area(): number {\n    return this.side * this.side;\n  }\n}\n",
        expect![[r#"
            interface Shape {
              area(): number;
            }

            export class Square implements Shape {
              constructor(private side: number) { /* …7 */ }
              area(): number { /* …10 */ }
            }
        "#]],
    );
    check(
        "tsx",
        "export function App(props: Props) {\n  const title = props.title;\n  return <h1>{title}</h1>;\n}\n",
        expect![[r#"
            export function App(props: Props) { /* …2-3 */ }
        "#]],
    );
}

#[test]
fn bodies_with_syntax_errors_are_kept_and_nothing_panics() {
    let text = "def ok():\n    a = 1\n    return a\n\ndef broken(:\n    return (\n\ndef after():\n    b = 2\n    return b\n";
    let skeleton = skeleton("python", text);
    assert!(skeleton.text.starts_with("def ok(): ...  # lines 2-3\n"));
    assert!(skeleton.text.contains("return ("), "{}", skeleton.text);
    let rust = skeleton_of_each_language("fn f() { let x = ; }\nfn g() {\n    let y = 1;\n}\n");
    assert!(rust.contains("let x = ;"), "{rust}");
}

/// Every language's skeleton of a text that is Rust-like noise: no panic, a round trip.
fn skeleton_of_each_language(text: &str) -> String {
    for lang in registry().all() {
        skeleton(&lang.id, text);
    }
    skeleton("rust", text).text
}

#[test]
fn item_starts_fall_after_blank_lines_outside_markers() {
    let text = "/// Doc.\n#[derive(Debug)]\nfn a() {\n    1;\n}\nfn b() {}\n\nstruct S;\n";
    let s = skeleton("rust", text);
    let starts: Vec<&str> = s
        .item_starts
        .iter()
        .map(|&i| s.text[i as usize..].lines().next().unwrap())
        .collect();
    assert_eq!(starts, ["/// Doc.", "struct S;"]);
    let struct_start = s.item_starts[1] as usize;
    assert_eq!(
        &text[s.original_offset(struct_start)..],
        "struct S;\n",
        "offsets map back to the file"
    );
}

/// The files of `dir` (recursively) with an extension the registry knows.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The sections of a multi-file fixture (`//- path` lines), each with its path.
fn sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("//- ") {
            Some(path) => out.push((path.trim().to_string(), String::new())),
            None => match out.last_mut() {
                Some((_, body)) => body.push_str(line),
                None => out.push((String::new(), line.to_string())),
            },
        }
    }
    out
}

/// The repository's fixtures and its own sources are a real corpus in every language: each
/// skeleton, its bodies put back, is the file byte for byte (checked by `skeleton`).
#[test]
fn fixtures_and_sources_round_trip_in_every_language() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files_under(&root.join("tests/fixtures"), &mut paths);
    files_under(&root.join("src"), &mut paths);
    let mut per_language: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let files = match path.extension().and_then(|e| e.to_str()) {
            Some("fixture") => sections(&text),
            _ => vec![(path.to_string_lossy().into_owned(), text)],
        };
        for (name, text) in files {
            let Some(lang) = registry().for_path(Path::new(&name), None) else {
                continue;
            };
            let s = skeleton(&lang.id, &text);
            let counts = per_language.entry(lang.id.clone()).or_default();
            counts.0 += 1;
            counts.1 += s.elisions.len();
        }
    }
    for lang in registry().all() {
        let (files, elisions) = per_language.get(&lang.id).copied().unwrap_or_default();
        assert!(
            files > 0 && elisions > 0,
            "{}: {files} files, {elisions} elisions",
            lang.id
        );
    }
}

#[test]
fn long_doc_comments_and_docstrings_keep_their_first_line() {
    check(
        "rust",
        "//! The crate.\n//!\n//! More about it, at length.\n\n/// Spawns a task.\n///\n/// # Examples\n///\n/// ```\n/// spawn(work);\n/// ```\npub fn spawn() {}\n\n/**\n * Old style.\n * Second line of it.\n */\nfn old() {}\n",
        expect![[r#"
            //! The crate. …

            /// Spawns a task. …
            pub fn spawn() {}

            /**
             * Old style. … */
            fn old() {}
        "#]],
    );
    check(
        "python",
        "\"\"\"The module.\n\nAt length, with details.\n\"\"\"\n\n\nclass Shape:\n    \"\"\"\n    A shape, with a docstring whose\n    first line is empty.\n    \"\"\"\n\n    # A comment run that\n    # spans two lines.\n    sides = 0\n",
        expect![[r#"
            """The module. … """


            class Shape:
                """
                A shape, with a docstring whose … """

                # A comment run that …
                sides = 0
        "#]],
    );
    check(
        "go",
        "// Package geo does geometry,\n// in the plane.\npackage geo\n",
        expect![[r#"
            // Package geo does geometry, …
            package geo
        "#]],
    );
    check(
        "typescript",
        "/**\n * Adds two numbers,\n * exactly.\n * @param a the first\n */\nexport declare function add(a: number, b: number): number;\n",
        expect![[r#"
            /**
             * Adds two numbers, … */
            export declare function add(a: number, b: number): number;
        "#]],
    );
}

#[test]
fn functions_inside_item_level_macro_bodies_are_elided_too() {
    check(
        "rust",
        "cfg_rt! {\n    /// Spawns.\n    pub fn spawn() {\n        let handle = current();\n        handle.spawn()\n    }\n}\n\nquote! { fn #name() { body } }\n",
        expect![[r#"
            cfg_rt! {
                /// Spawns.
                pub fn spawn() { /* …4-5 */ }
            }

            quote! { fn #name() { body } }
        "#]],
    );
}

#[test]
fn runs_of_one_macro_s_calls_keep_their_first() {
    let calls = |name: &str, n: usize, indent: &str| -> String {
        (0..n)
            .map(|i| format!("{indent}{name}!(T{i}: Send);\n"))
            .collect()
    };
    let text = format!(
        "{}\n{}{}mod m {{\n{}    quiet!(x)\n}}\n\n{}cfg_rt! {{ fn a() {{}} }}\ncfg_rt! {{ fn b() {{}} }}\ncfg_rt! {{ fn c() {{}} }}\n",
        calls("assert_value", 4, ""),
        calls("two", 2, ""),
        // Three calls this short are no longer than the line that would replace two.
        calls("other", 3, ""),
        calls("nested", 3, "    "),
        // A comment breaks a run: two and two are left as they are.
        calls("split", 2, "") + "// apart\n" + &calls("split", 2, ""),
    );
    check(
        "rust",
        &text,
        expect![[r#"
            assert_value!(T0: Send);
            // … 3 more assert_value! calls, lines 2-4

            two!(T0: Send);
            two!(T1: Send);
            other!(T0: Send);
            other!(T1: Send);
            other!(T2: Send);
            mod m {
                nested!(T0: Send);
                // … 2 more nested! calls, lines 13-14
                quiet!(x)
            }

            split!(T0: Send);
            split!(T1: Send);
            // apart
            split!(T0: Send);
            split!(T1: Send);
            cfg_rt! { fn a() {} }
            cfg_rt! { fn b() {} }
            cfg_rt! { fn c() {} }
        "#]],
    );
}

#[test]
fn python_data_over_several_lines_and_macro_rules_bodies_are_elided() {
    check(
        "python",
        "__all__ = [\n    \"topics\",\n]\ntopics = {\n    \"assert\": \"The assert statement\",\n    \"break\": \"The break statement\",\n}\npair = (1,\n        2), 3\n\n\nclass Table:\n    rows = [\n        (\"a\", 1),\n        (\"b\", 2),\n    ]\n",
        expect![[r#"
            __all__ = [
                "topics",
            ]
            topics = {...}  # lines 5-6
            pair = (1,
                    2), 3


            class Table:
                rows = [...]  # lines 14-15
        "#]],
    );
    check(
        "rust",
        "/// Selects.\nmacro_rules! select {\n    ($($t:tt)*) => {\n        select_inner!($($t)*)\n    };\n}\n",
        expect![[r#"
            /// Selects.
            macro_rules! select { /* …3-5 */ }
        "#]],
    );
}

/// Every prefix of the fixtures (cut anywhere, so most end inside a construct) still gives
/// a skeleton that round-trips, without a panic.
#[test]
fn truncated_files_round_trip_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files_under(&root.join("tests/fixtures/symbols"), &mut paths);
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (name, text) in sections(&text) {
            let Some(lang) = registry().for_path(Path::new(&name), None) else {
                continue;
            };
            for end in (0..text.len())
                .step_by(41)
                .filter(|&e| text.is_char_boundary(e))
            {
                skeleton(&lang.id, &text[..end]);
            }
        }
    }
}

#[test]
fn rust_attributes_over_several_lines_fold_and_lint_attributes_go() {
    check(
        "rust",
        r#"#![allow(
    clippy::module_inception,
    dead_code
)]
#![cfg_attr(not(feature = "sync"), allow(unreachable_pub))]

#[cfg(all(
    feature = "rt",
    target_os = "linux",
))]
#[derive(Debug)]
#[allow(dead_code)]
pub struct Pool {
    #[cfg_attr(test, allow(unused))]
    size: usize,
    #[cfg_attr(feature = "serde", derive(Clone), allow(unused))]
    name: String,
}

impl Pool {
    #[inline]
    #[track_caller]
    #[must_use]
    pub fn size(&self) -> usize {
        self.size + 0
    }

    #[inline] #[cfg(test)] fn short() {}

    #[deprecated(
        note = "use `size`"
    )]
    #[cfg_attr(any(test, feature = "x"), expect(clippy::len_zero))]
    pub fn len(&self) -> usize {
        self.size + 0
    }
}
"#,
        expect![[r#"

            #[cfg(all( … ))]
            #[derive(Debug)]
            pub struct Pool {
                size: usize,
                #[cfg_attr(feature = "serde", derive(Clone), allow(unused))]
                name: String,
            }

            impl Pool {
                #[must_use]
                pub fn size(&self) -> usize { /* …25 */ }

                #[cfg(test)] fn short() {}

                #[deprecated( … )]
                pub fn len(&self) -> usize { /* …35 */ }
            }
        "#]],
    );
}
