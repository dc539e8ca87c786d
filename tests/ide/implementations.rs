//! `implementations`: subtypes, interface and trait implementations and overriding
//! methods, every level down, and supertypes up, in each language, with each answer's
//! certainty; and `find_references`' `include_family`.

use expect_test::{Expect, expect};
use sextant::ide::{Certainty, HierarchyDirection, Implementations, ReferenceQuery};

use crate::analysis;

fn render(answer: &Implementations) -> String {
    let mut out = format!("{} {}\n", answer.subject.kind.as_str(), answer.subject.name);
    for item in &answer.items {
        let certainty = match item.certainty {
            Certainty::Exact => "exact",
            Certainty::Heuristic => "heuristic",
        };
        out.push_str(&format!(
            "{} {}:{}:{} {} {}{} {certainty}\n",
            item.depth,
            item.path,
            item.name_span.start.line,
            item.name_span.start.column,
            item.kind.as_str(),
            item.name,
            item.container
                .as_deref()
                .map(|c| format!(" in {c}"))
                .unwrap_or_default(),
        ));
    }
    out
}

/// The answer at the `$0` cursor of `fixture`, rendered one item a line.
fn check(fixture: &str, direction: HierarchyDirection, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.expect("a $0 cursor").offset();
    let answer =
        analysis::implementations(&db, file, offset, direction).expect("a subject at the cursor");
    expect.assert_eq(&render(&answer));
}

fn check_by_name(fixture: &str, name: &str, direction: HierarchyDirection, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    let answer =
        analysis::implementations_by_name(&db, name, direction).expect("one subject by that name");
    expect.assert_eq(&render(&answer));
}

const PYTHON: &str = r#"
//- /shapes.py
class Shape:
    def area(self):
        return 0


class Polygon(Shape):
    def area(self):
        return 1
//- /more.py
from shapes import Polygon
import shapes


class Square(Polygon):
    def area(self):
        return 4


class Circle(shapes.Shape):
    pass


class Shape:
    def area(self):
        return 9


class Other(Shape):
    pass


class Loose(Unknown):
    pass


class Generic(Polygon[int]):
    pass
"#;

#[test]
fn python_subclasses_by_resolved_bases_at_every_level() {
    let fixture = PYTHON.replacen(
        "class Shape:\n    def area",
        "class $0Shape:\n    def area",
        1,
    );
    check(
        &fixture,
        HierarchyDirection::Implementations,
        expect![[r#"
            class Shape
            1 more.py:10:7 class Circle exact
            1 shapes.py:6:7 class Polygon exact
            2 more.py:5:7 class Square exact
            2 more.py:27:7 class Generic exact
        "#]],
    );
}

#[test]
fn python_overriding_methods_and_overridden_ones() {
    check_by_name(
        PYTHON,
        "shapes.Shape.area",
        HierarchyDirection::Implementations,
        expect![[r#"
            method area
            1 shapes.py:7:9 method area in Polygon exact
            2 more.py:6:9 method area in Square exact
        "#]],
    );
    check_by_name(
        PYTHON,
        "Square.area",
        HierarchyDirection::Supertypes,
        expect![[r#"
            method area
            1 shapes.py:7:9 method area in Polygon exact
            2 shapes.py:2:9 method area in Shape exact
        "#]],
    );
}

#[test]
fn python_supertypes_and_an_unresolved_base() {
    check_by_name(
        PYTHON,
        "Square",
        HierarchyDirection::Supertypes,
        expect![[r#"
            class Square
            1 shapes.py:6:7 class Polygon exact
            2 shapes.py:1:7 class Shape exact
        "#]],
    );
    check_by_name(
        PYTHON,
        "Loose",
        HierarchyDirection::Supertypes,
        expect![[r#"
            class Loose
        "#]],
    );
}

#[test]
fn an_ambiguous_name_lists_its_candidates() {
    let (db, _, _) = analysis::analysis(PYTHON);
    let error =
        analysis::implementations_by_name(&db, "Shape", HierarchyDirection::Implementations)
            .expect_err("two classes are called Shape");
    let sextant::ide::ImplementationsError::Ambiguous { candidates, .. } = error else {
        panic!("not ambiguous: {error:?}");
    };
    let places: Vec<String> = candidates
        .iter()
        .map(|c| format!("{}:{}", c.path, c.name_span.start.line))
        .collect();
    assert_eq!(places, ["more.py:14", "shapes.py:1"]);
}

const TYPESCRIPT: &str = r#"
//- /api.ts
export interface Closable {
    close(): void;
}
export interface Stream extends Closable {
    read(): string;
}
export abstract class Base implements Stream {
    abstract read(): string;
    close(): void {}
}
//- /impl.ts
import { Base, Closable as C } from "./api";

export class File extends Base {
    read(): string { return "f"; }
}
export class Socket implements C {
    close(): void {}
}
class Local extends File {
    read(): string { return "l"; }
}
"#;

#[test]
fn typescript_extends_and_implements_transitively() {
    check_by_name(
        TYPESCRIPT,
        "Closable",
        HierarchyDirection::Implementations,
        expect![[r#"
            interface Closable
            1 api.ts:4:18 interface Stream exact
            1 impl.ts:6:14 class Socket exact
            2 api.ts:7:23 class Base exact
            3 impl.ts:3:14 class File exact
            4 impl.ts:9:7 class Local exact
        "#]],
    );
    check_by_name(
        TYPESCRIPT,
        "Local",
        HierarchyDirection::Supertypes,
        expect![[r#"
            class Local
            1 impl.ts:3:14 class File exact
            2 api.ts:7:23 class Base exact
            3 api.ts:4:18 interface Stream exact
            4 api.ts:1:18 interface Closable exact
        "#]],
    );
}

#[test]
fn typescript_interface_method_implementations() {
    let fixture = TYPESCRIPT.replacen("    read(): string;", "    $0read(): string;", 1);
    check(
        &fixture,
        HierarchyDirection::Implementations,
        expect![[r#"
            method read
            1 api.ts:8:14 method read in Base exact
            2 impl.ts:4:5 method read in File exact
            3 impl.ts:10:5 method read in Local exact
        "#]],
    );
}

const JAVASCRIPT: &str = r#"
//- /animals.js
export class Animal {
    speak() { return ""; }
}
//- /dogs.js
import { Animal } from "./animals.js";
import * as zoo from "./animals.js";

export class Dog extends Animal {
    speak() { return "woof"; }
}
class Puppy extends Dog {}
class Cat extends zoo.Animal {}
"#;

#[test]
fn javascript_subclasses_through_imports_and_namespaces() {
    check_by_name(
        JAVASCRIPT,
        "Animal",
        HierarchyDirection::Implementations,
        expect![[r#"
            class Animal
            1 dogs.js:4:14 class Dog exact
            1 dogs.js:8:7 class Cat exact
            2 dogs.js:7:7 class Puppy exact
        "#]],
    );
    check_by_name(
        JAVASCRIPT,
        "Animal.speak",
        HierarchyDirection::Implementations,
        expect![[r#"
            method speak
            1 dogs.js:5:5 method speak in Dog exact
        "#]],
    );
}

const GO: &str = r#"
//- /io.go
package m

type Reader interface {
	Read(p []byte) (int, error)
}

type ReadCloser interface {
	Reader
	Close() error
}

type File struct{}

func (f *File) Read(p []byte) (int, error) { return 0, nil }
//- /file_close.go
package m

func (f File) Close() error { return nil }

type Wrapped struct {
	*File
}

type Wrong struct{}

func (w Wrong) Read() int { return 0 }
//- /go.mod
module example.com/m

go 1.21
"#;

#[test]
fn go_implicit_satisfaction_by_method_sets() {
    check_by_name(
        GO,
        "Reader",
        HierarchyDirection::Implementations,
        expect![[r#"
            interface Reader
            1 file_close.go:5:6 struct Wrapped heuristic
            1 io.go:7:6 interface ReadCloser exact
            1 io.go:12:6 struct File heuristic
        "#]],
    );
    check_by_name(
        GO,
        "ReadCloser",
        HierarchyDirection::Implementations,
        expect![[r#"
            interface ReadCloser
            1 file_close.go:5:6 struct Wrapped heuristic
            1 io.go:12:6 struct File heuristic
        "#]],
    );
    check_by_name(
        GO,
        "File",
        HierarchyDirection::Supertypes,
        expect![[r#"
            struct File
            1 io.go:3:6 interface Reader heuristic
            1 io.go:7:6 interface ReadCloser heuristic
        "#]],
    );
}

#[test]
fn go_interface_method_implementations() {
    check_by_name(
        GO,
        "ReadCloser.Close",
        HierarchyDirection::Implementations,
        expect![[r#"
            method Close
            1 file_close.go:3:15 method Close in File heuristic
        "#]],
    );
}

const RUST: &str = r#"
//- /src/lib.rs
mod circle;

pub trait Shape {
    fn area(&self) -> f64;
}

pub trait Solid: Shape {}

pub struct Square;

impl Shape for Square {
    fn area(&self) -> f64 { 4.0 }
}

impl Square {
    pub fn area(&self) -> f64 { 5.0 }
}
//- /src/circle.rs
use crate::Shape as S;

pub struct Circle;

impl S for Circle {
    fn area(&self) -> f64 { 3.14 }
}

impl crate::Solid for Circle {}
//- /Cargo.toml
[package]
name = "shapes"
version = "0.1.0"
"#;

#[test]
fn rust_trait_impls_and_their_methods() {
    check_by_name(
        RUST,
        "Shape",
        HierarchyDirection::Implementations,
        expect![[r#"
            trait Shape
            1 src/circle.rs:5:12 impl Circle exact
            1 src/lib.rs:7:11 trait Solid exact
            1 src/lib.rs:11:16 impl Square exact
            2 src/circle.rs:9:23 impl Circle exact
        "#]],
    );
    check_by_name(
        RUST,
        "Shape.area",
        HierarchyDirection::Implementations,
        expect![[r#"
            method area
            1 src/circle.rs:6:8 method area in Circle exact
            1 src/lib.rs:12:8 method area in Square exact
        "#]],
    );
    // An inherent method overrides nothing, even when a trait of its type has its name.
    let inherent = RUST.replacen("pub fn area", "pub fn $0area", 1);
    check(
        &inherent,
        HierarchyDirection::Supertypes,
        expect![[r#"
            method area
        "#]],
    );
    check_by_name(
        RUST,
        "Circle",
        HierarchyDirection::Supertypes,
        expect![[r#"
            struct Circle
            1 src/lib.rs:3:11 trait Shape exact
            1 src/lib.rs:7:11 trait Solid exact
        "#]],
    );
}

#[test]
fn include_family_joins_the_references_of_overridden_and_overriding_methods() {
    let (db, _, _) = analysis::analysis(PYTHON);
    let lines = |include_family: bool| {
        let query = ReferenceQuery {
            include_family,
            limit: 100,
            ..Default::default()
        };
        let found = analysis::references_by_name(&db, "Polygon.area", &query);
        let mut lines: Vec<String> = found
            .references
            .iter()
            .map(|r| format!("{}:{}", r.path, r.span.start.line))
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(lines(false), ["shapes.py:7"]);
    assert_eq!(lines(true), ["more.py:6", "shapes.py:2", "shapes.py:7"]);
}
