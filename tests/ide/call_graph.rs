//! The call graph (`calls`, MCP `call_graph`) and impact in every language with call
//! resolution: callers and callees across files, to a depth, constructor calls, typed
//! receivers, callbacks as references, name-matched methods as heuristic; and what depends
//! on a definition, with each language's tests marked.

use expect_test::expect;
use sextant::ide::CallDirection;

use crate::analysis;

fn graph(fixture: &str, direction: CallDirection, depth: u32) -> String {
    let (db, file, cursor) = analysis::analysis(fixture);
    analysis::call_graph(&db, file, cursor.unwrap().offset(), direction, depth)
}

fn impact(fixture: &str, tests_only: bool) -> String {
    let (db, file, cursor) = analysis::analysis(fixture);
    analysis::impact(&db, file, cursor.unwrap().offset(), tests_only)
}

const PYTHON: &str = r#"
//- /pkg/geometry.py
import math


class Shape:
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * square(self.r)


def squ$0are(x):
    def inner(y):
        return y * y

    return inner(x)


def total_area(shapes):
    return sum(s.area() for s in shapes)


def countdown(n):
    return n if n == 0 else countdown(n - 1)
//- /pkg/app.py
from pkg.geometry import Shape, total_area, square as sq


def main():
    shapes = [Shape(1), Shape(2)]
    print(total_area(shapes))
    return list(map(sq, [1, 2]))


main()
//- /tests/test_geometry.py
from pkg.geometry import Shape


def helper():
    return Shape(3)


class TestShape:
    def test_direct(self):
        assert Shape(1).area() > 0

    def test_helper(self):
        assert helper().r == 3
"#;

#[test]
fn python_callers_to_a_depth_through_aliases_methods_and_callbacks() {
    expect![[r#"
        function square (pkg/geometry.py:12)
        called by:
          function main (pkg/app.py:4): reference at 7:21
            top level of pkg/app.py: call at 10:1
          method Shape.area (pkg/geometry.py:8): call at 9:26
            function total_area (pkg/geometry.py:19): call at 20:18 (heuristic: matched by name)
            method TestShape.test_direct (tests/test_geometry.py:9): call at 10:25
        calls:
          function square.inner (pkg/geometry.py:13): call at 16:12
    "#]]
    .assert_eq(&graph(PYTHON, CallDirection::Both, 2));
}

#[test]
fn python_callees_include_constructions_and_name_matched_methods() {
    let fixture = PYTHON
        .replace("squ$0are", "square")
        .replace("def main():", "def ma$0in():");
    expect![[r#"
        function main (pkg/app.py:4)
        calls:
          class Shape (pkg/geometry.py:4): calls at 5:15, 5:25
            function square (pkg/geometry.py:12): call at 9:26 (expanded at its first mention)
          function total_area (pkg/geometry.py:19): call at 6:11
            method Shape.area (pkg/geometry.py:8): call at 20:18 (heuristic: matched by name)
          function square (pkg/geometry.py:12): reference at 7:21
            function square.inner (pkg/geometry.py:13): call at 16:12
    "#]]
    .assert_eq(&graph(&fixture, CallDirection::Outgoing, 2));
}

#[test]
fn recursion_is_one_edge_marked_recursive() {
    let fixture = PYTHON
        .replace("squ$0are", "square")
        .replace("def countdown(n):", "def count$0down(n):");
    expect![[r#"
        function countdown (pkg/geometry.py:23)
        called by:
          function countdown (pkg/geometry.py:23): call at 24:29 (recursive)
        calls:
          function countdown (pkg/geometry.py:23): call at 24:29 (recursive)
    "#]]
    .assert_eq(&graph(&fixture, CallDirection::Both, 3));
}

#[test]
fn a_name_shared_by_too_many_methods_is_no_incoming_guess() {
    // `f.close()` on an unknown `f` could be any of nine `close` methods: more than
    // MAX_GUESSES, so none of them lists it, as none of them is its outgoing call.
    let mut fixture = String::from("//- /io.py\n");
    for i in 0..9 {
        let name = if i == 0 { "clo$0se" } else { "close" };
        fixture += &format!("class C{i}:\n    def {name}(self):\n        pass\n\n\n");
    }
    fixture += "def shut(f):\n    f.close()\n    C0().close()\n";
    expect![[r#"
        method C0.close (io.py:2)
        called by:
          function shut (io.py:46): call at 48:10
    "#]]
    .assert_eq(&graph(&fixture, CallDirection::Incoming, 1));
    let fewer = fixture.replace("class C8:\n    def close", "class C8:\n    def shut");
    expect![[r#"
        method C0.close (io.py:2)
        called by:
          function shut (io.py:46): call at 47:7 (heuristic: matched by name)
          function shut (io.py:46): call at 48:10
    "#]]
    .assert_eq(&graph(&fewer, CallDirection::Incoming, 1));
}

#[test]
fn a_constant_is_not_callable() {
    let fixture = "//- /a.py\nLIM$0IT = 3\n";
    expect!["error: no function, method or class at a.py:1"].assert_eq(&graph(
        fixture,
        CallDirection::Both,
        1,
    ));
}

#[test]
fn typescript_constructions_typed_receivers_and_callbacks() {
    let fixture = r#"
//- /shapes.ts
export class Circle {
  constructor(public r: number) {}
  area(): number {
    return Math.PI * square(this.r);
  }
}

export function squ$0are(x: number): number {
  return x * x;
}
//- /main.ts
import { Circle, square } from "./shapes";

function run(): number {
  const c = new Circle(2);
  [1, 2].map(square);
  return c.area();
}

run();
"#;
    expect![[r#"
        function square (shapes.ts:8)
        called by:
          function run (main.ts:3): reference at 5:14
            top level of main.ts: call at 9:1
          method Circle.area (shapes.ts:3): call at 4:22
            function run (main.ts:3): call at 6:12 (expanded at its first mention)
        calls:
          (none found)
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Both, 2));
    let fixture = fixture
        .replace("squ$0are", "square")
        .replace("function run", "function r$0un");
    expect![[r#"
        function run (main.ts:3)
        calls:
          class Circle (shapes.ts:1): call at 4:17
          function square (shapes.ts:8): reference at 5:14
          method Circle.area (shapes.ts:3): call at 6:12
    "#]]
    .assert_eq(&graph(&fixture, CallDirection::Outgoing, 1));
}

#[test]
fn typescript_parameters_typed_by_the_callee_and_destructured_members() {
    // `subscriber` has no written type: the function it is a parameter of is passed to
    // `operate` and to `new Stream`, whose parameters' function types give it one. A
    // callback whose callee writes no function type for it (`forEach`) stays unknown, so
    // its `next` call is only matched by name.
    let fixture = r#"
//- /lib.ts
export class Sink<T> {
  ne$0xt(value: T): void {}
}
export class Stream<T> {
  constructor(start?: (this: Stream<T>, sink: Sink<T>) => void) {}
}
export function operate<T>(label: string, init: (source: Stream<T>, sink: Sink<T>) => void) {}
//- /use.ts
import { Sink, Stream, operate } from "./lib";

export class Holder {
  private sink: Sink<number> = new Sink();
  run() {
    const { sink } = this;
    sink.next(0);
  }
}

function build() {
  new Stream<number>((sink) => sink.next(1));
  operate("x", (source, sink) => {
    sink.next(2);
  });
  [1].forEach((sink) => sink.next(3));
}
"#;
    expect![[r#"
        method Sink.next (lib.ts:2)
        called by:
          method Holder.run (use.ts:5): call at 7:10
          function build (use.ts:11): calls at 12:37, 14:10
          function build (use.ts:11): call at 16:30 (heuristic: matched by name)
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn go_methods_and_functions() {
    let fixture = r#"
//- /main.go
package main

type T struct{}

func (t T) Get() int { return helper() }

func hel$0per() int { return 1 }

func main() {
	t := T{}
	_ = t.Get()
}
"#;
    expect![[r#"
        function helper (main.go:7)
        called by:
          method T.Get (main.go:5): call at 5:31
            function main (main.go:9): call at 11:8
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 3));
}

#[test]
fn go_standard_library_source_calls_its_own_packages() {
    // GOROOT's `src`: `module std` holds the packages at their import paths, and `cmd`'s
    // packages import them from there.
    let fixture = r#"
//- /go.mod
module std
//- /strings/strings.go
package strings

func HasPr$0efix(s, prefix string) bool { return len(s) >= len(prefix) }
//- /net/http/fs.go
package http

import "strings"

func clean(p string) bool { return strings.HasPrefix(p, "/") }
//- /cmd/go.mod
module cmd
//- /cmd/go/main.go
package main

import "strings"

func main() { _ = strings.HasPrefix("a", "b") }
"#;
    expect![[r#"
        function HasPrefix (strings/strings.go:3)
        called by:
          function main (cmd/go/main.go:5): call at 5:27
          function clean (net/http/fs.go:5): call at 5:44
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn rust_associated_functions_and_methods() {
    let fixture = r#"
//- /lib.rs
struct S;
impl S {
    fn new() -> S { S }
    fn go(&self) -> u32 { twice(1) }
}
fn tw$0ice(x: u32) -> u32 { x * 2 }
fn main() { let s = S::new(); s.go(); }
"#;
    expect![[r#"
        function twice (lib.rs:6)
        called by:
          method S.go (lib.rs:4): call at 4:27
            function main (lib.rs:7): call at 7:33
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 2));
    let fixture = fixture
        .replace("tw$0ice", "twice")
        .replace("fn main", "fn ma$0in");
    expect![[r#"
        function main (lib.rs:7)
        calls:
          method S.new (lib.rs:3): call at 7:24
          method S.go (lib.rs:4): call at 7:33
    "#]]
    .assert_eq(&graph(&fixture, CallDirection::Outgoing, 1));
}

#[test]
fn python_impact_follows_exact_uses_and_marks_tests() {
    let fixture = PYTHON
        .replace("squ$0are", "square")
        .replace("class Shape:", "class Sha$0pe:");
    expect![[r#"
        impact of pkg/geometry.py:4 class Shape
        6 dependents in 2 files, 2 tests among them
        1 step:
          pkg/app.py top level imports class Shape (pkg/geometry.py:4)
          pkg/app.py:4 function main uses class Shape (pkg/geometry.py:4)
          tests/test_geometry.py top level imports class Shape (pkg/geometry.py:4)
          tests/test_geometry.py:4 function helper uses class Shape (pkg/geometry.py:4)
          tests/test_geometry.py:9 method TestShape.test_direct [test] uses class Shape (pkg/geometry.py:4)
        2 steps:
          tests/test_geometry.py:12 method TestShape.test_helper [test] uses function helper (tests/test_geometry.py:4)
    "#]]
    .assert_eq(&impact(&fixture, false));
    expect![[r#"
        impact of pkg/geometry.py:4 class Shape
        6 dependents in 2 files, 2 tests among them
        1 step:
          tests/test_geometry.py:9 method TestShape.test_direct [test] uses class Shape (pkg/geometry.py:4)
        2 steps:
          tests/test_geometry.py:12 method TestShape.test_helper [test] uses function helper (tests/test_geometry.py:4)
    "#]]
    .assert_eq(&impact(&fixture, true));
}

#[test]
fn go_rust_and_typescript_tests_by_their_conventions() {
    let go = r#"
//- /calc/calc.go
package calc

func Ad$0d(a, b int) int { return a + b }
//- /calc/calc_test.go
package calc

import "testing"

func TestAdd(t *testing.T) { _ = Add(1, 2) }

func Testing() int { return Add(0, 0) }

func BenchmarkAdd(b *testing.B) { _ = Add(1, 1) }
"#;
    expect![[r#"
        impact of calc/calc.go:3 function Add
        3 dependents in 1 file, 2 tests among them
        1 step:
          calc/calc_test.go:5 function TestAdd [test] uses function Add (calc/calc.go:3)
          calc/calc_test.go:7 function Testing uses function Add (calc/calc.go:3)
          calc/calc_test.go:9 function BenchmarkAdd [test] uses function Add (calc/calc.go:3)
    "#]]
    .assert_eq(&impact(go, false));
    let rust = r#"
//- /lib.rs
pub fn dou$0ble(x: u32) -> u32 { x * 2 }

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> u32 { double(1) }

    #[test]
    fn doubles() { assert_eq!(helper(), 2); }
}
"#;
    expect![[r#"
        impact of lib.rs:1 function double
        2 dependents in 1 file, 1 test among them
        1 step:
          lib.rs:7 function tests.helper uses function double (lib.rs:1)
        2 steps:
          lib.rs:10 function tests.doubles [test] uses function tests.helper (lib.rs:7)
    "#]]
    .assert_eq(&impact(rust, false));
    let typescript = r#"
//- /src/sum.ts
export function s$0um(a: number, b: number): number { return a + b; }
//- /src/sum.test.ts
import { sum } from "./sum";

describe("sum", () => {
  it("adds", () => expect(sum(1, 2)).toBe(3));
});
"#;
    expect![[r#"
        impact of src/sum.ts:1 function sum
        1 dependent in 1 file, 1 test among them
        1 step:
          src/sum.test.ts top level [test] uses function sum (src/sum.ts:1)
    "#]]
    .assert_eq(&impact(typescript, false));
}

#[test]
fn explore_brings_the_named_definitions_their_call_paths_and_dependents() {
    let (db, _, _) = analysis::analysis(&PYTHON.replace("squ$0are", "square"));
    let answer = analysis::explore(&db, &["main", "square", "pkg/geometry.py", "nothing"], 400);
    expect![[r#"
        ## pkg/app.py
        pkg/app.py:4-7 function main
        ```python
        def main():
            shapes = [Shape(1), Shape(2)]
            print(total_area(shapes))
            return list(map(sq, [1, 2]))
        ```
        ## pkg/geometry.py
        pkg/geometry.py:12-16 function square
        ```python
        def square(x):
            def inner(y):
                return y * y

            return inner(x)
        ```
        ## pkg/geometry.py (skeleton)
        import math


        class Shape:
            def __init__(self, r):
                self.r = r

            def area(self): ...  # line 9


        def square(x): ...  # lines 13-16


        def total_area(shapes): ...  # line 20


        def countdown(n): ...  # line 24

        ## call paths
        function main (pkg/app.py:4) -> function square (pkg/geometry.py:12)
        ## dependents (4 within 2 steps, 1 test)
        pkg/app.py top level uses function main (pkg/app.py:4)
        pkg/geometry.py:8 method Shape.area uses function square (pkg/geometry.py:12)
        tests/test_geometry.py:9 method TestShape.test_direct [test] uses method Shape.area (pkg/geometry.py:8)
        pkg/geometry.py:19 function total_area uses method Shape.area (pkg/geometry.py:8) (by name)
        named nothing: nothing
    "#]]
    .assert_eq(&answer.text);
    assert_eq!(
        answer.tokens,
        sextant::ide::Encoding::default().count(&answer.text)
    );
    assert!(answer.tokens <= 400);
    assert!(!answer.truncated);
    assert_eq!((answer.dependents_shown, answer.dependents), (4, 4));
    assert_eq!(
        answer.files,
        [sextant::ide::ExploredFile::Path("pkg/geometry.py".into())]
    );
    assert_eq!(answer.not_found, ["nothing"]);
    // A budget for little more than the first definition: the second is its signature.
    let small = analysis::explore(&db, &["main", "square"], 80);
    expect![[r#"
        ## pkg/app.py
        pkg/app.py:4-7 function main
        ```python
        def main():
            shapes = [Shape(1), Shape(2)]
            print(total_area(shapes))
            return list(map(sq, [1, 2]))
        ```
        ## pkg/geometry.py
        pkg/geometry.py:12-16 function square
            def square(x)
    "#]]
    .assert_eq(&small.text);
    let shown: Vec<_> = small
        .definitions
        .iter()
        .map(|d| (d.name.as_str(), d.shown))
        .collect();
    use sextant::ide::ExploreShown;
    assert_eq!(
        shown,
        [
            ("main", ExploreShown::Full),
            ("square", ExploreShown::Signature)
        ]
    );
    assert!(small.truncated && small.tokens <= 80);
}

#[test]
fn typescript_members_typed_by_base_class_type_arguments_and_constraints() {
    // `_def` is written `D`, a type parameter of `Schema`: in `Optional`, which extends
    // `Schema<T, OptionalDef<T>>`, it is an `OptionalDef`. `inner` is written `T`, whose
    // constraint `AnySchema` is an alias of `Schema<any, any>`: a `Schema`. Inside `Schema`
    // itself, `D` is only known by its constraint, which has no `inner`.
    let fixture = r#"
//- /types.ts
export interface Def { kind: string }
export abstract class Schema<Out, D extends Def = Def> {
  readonly _def!: D;
  abstract _pa$0rse(input: unknown): Out;
  run(input: unknown) { return (this._def as any).inner._parse(input); }
}
export type AnySchema = Schema<any, any>;
export interface OptionalDef<T extends AnySchema = AnySchema> extends Def { inner: T }
export class Optional<T extends AnySchema> extends Schema<T, OptionalDef<T>> {
  _parse(input: unknown) {
    const def = this._def;
    return this._def.inner._parse(input) ?? def.inner._parse(input);
  }
}
export function check<S extends AnySchema>(schema: S) { return schema._parse(1); }
"#;
    expect![[r#"
        method Schema._parse (types.ts:4)
        called by:
          method Schema.run (types.ts:5): call at 5:57 (heuristic: matched by name)
          method Optional._parse (types.ts:10): calls at 12:28, 12:55
          function check (types.ts:15): call at 15:71
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn typescript_receivers_through_non_null_utility_types_and_parameter_properties() {
    // `sink!` has `sink`'s members; `Partial<Sink>` keeps `Sink`'s; `sink?` with an
    // accessibility modifier is a member of the class as a required parameter is.
    let fixture = r#"
//- /lib.ts
export class Sink {
  ne$0xt(value: number): void {}
}
export class Relay {
  constructor(public sink?: Sink) {}
  run(partial: Partial<Sink> | ((value: number) => void), maybe: Sink | null) {
    this.sink?.next(1);
    maybe!.next(2);
    if (typeof partial !== "function") partial.next?.(3);
  }
}
"#;
    expect![[r#"
        method Sink.next (lib.ts:2)
        called by:
          method Relay.run (lib.ts:6): calls at 7:16, 8:12, 9:48
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn typescript_elements_of_typed_arrays() {
    // An element of an array whose written type gives its elements' type: iterated by
    // `for … of`, taken by `shift()`, or indexed; through a field, a parameter, a variable
    // assigned the field and a name destructured from `this`.
    let fixture = r#"
//- /lib.ts
export class Sink {
  ne$0xt(value: number): void {}
}
export class Hub {
  sinks: Sink[] = [];
  later: Array<Sink> | null = null;
  emit(extra: Sink[]) {
    for (const sink of this.sinks) sink.next(1);
    const copy = this.sinks;
    copy.shift()!.next(2);
    extra[0].next(3);
    const { sinks } = this;
    for (const sink of sinks) sink.next(4);
    this.later!.pop()!.next(5);
    for (const n of [1, 2]) n.next(6);
  }
}
"#;
    expect![[r#"
        method Sink.next (lib.ts:2)
        called by:
          method Hub.emit (lib.ts:7): calls at 8:41, 10:19, 11:14, 13:36, 14:24
          method Hub.emit (lib.ts:7): call at 15:31 (heuristic: matched by name)
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn typescript_assignments_to_a_method_are_references() {
    // `this.next = …` replaces the method: TypeScript's service lists it among `next`'s
    // call sites. An object literal's member typed by its variable declares `next` for
    // `Sink`, and a field assigned is no method.
    let fixture = r#"
//- /lib.ts
export class Sink {
  count = 0;
  ne$0xt(value: number): void {}
}
export class Counter extends Sink {
  constructor(onNext: (value: number) => void) {
    super();
    this.next = onNext;
    this.count = 1;
  }
}
export const plain: Sink = { count: 0, next(value: number) {} };
"#;
    expect![[r#"
        method Sink.next (lib.ts:3)
        called by:
          method Counter.constructor (lib.ts:6): reference at 8:10
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn typescript_callback_parameters_typed_by_the_type_given_to_the_result() {
    // `inst` is written `T`, a type parameter of `make`, whose result is a `Maker<T>`: the
    // variable given a `core.Maker<Str>` makes `T` a `Str` there. Without a written type
    // for the result, `T` is only known by its constraint, which has no `check`.
    let fixture = r#"
//- /core.ts
export interface Trait { kind: string }
export interface Maker<T extends Trait> { new (): T }
export function make<T extends Trait>(name: string, init: (inst: T) => void): Maker<T> {
  return null as any;
}
//- /str.ts
import * as core from "./core";
export interface Str extends core.Trait {
  ch$0eck(): Str;
}
export const Str: core.Maker<Str> = core.make("Str", (inst) => {
  inst.check();
  inst.check = () => inst;
});
export const Other = core.make("Other", (inst) => inst.check());
"#;
    expect![[r#"
        method Str.check (str.ts:3)
        called by:
          top level of str.ts: call at 6:8
          top level of str.ts: reference at 7:8
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn typescript_calls_through_nested_star_exports() {
    // `z.number` is found through two `export *` re-exports, as `export *` of a module
    // re-exports what that module re-exports.
    let fixture = r#"
//- /schemas.ts
export function num$0ber(): number { return 1; }
//- /external.ts
export * from "./schemas.js";
//- /index.ts
export * from "./external.js";
//- /tests/number.test.ts
import * as z from "../index.js";
z.number();
"#;
    expect![[r#"
        function number (schemas.ts:1)
        called by:
          top level of tests/number.test.ts: call at 2:3
    "#]]
    .assert_eq(&graph(fixture, CallDirection::Incoming, 1));
}

#[test]
fn explore_reads_a_question_into_the_names_its_words_have() {
    let (db, _, _) = analysis::analysis(&PYTHON.replace("squ$0are", "square"));
    let answer = analysis::explore(&db, &["how is the total area of the shapes computed?"], 250);
    expect![[r#"
        words: total, area (total_area); shapes (Shape); dropped: how, is, the, of, computed
        ## pkg/geometry.py
        pkg/geometry.py:4-9 class Shape
        ```python
        class Shape:
            def __init__(self, r):
                self.r = r

            def area(self):
                return math.pi * square(self.r)
        ```
        pkg/geometry.py:19-20 function total_area
        ```python
        def total_area(shapes):
            return sum(s.area() for s in shapes)
        ```
        ## dependents (6 within 2 steps, 2 tests)
        pkg/app.py top level imports function total_area (pkg/geometry.py:19)
        pkg/app.py:4 function main uses function total_area (pkg/geometry.py:19)
        tests/test_geometry.py top level imports class Shape (pkg/geometry.py:4)
        tests/test_geometry.py:4 function helper uses class Shape (pkg/geometry.py:4)
        tests/test_geometry.py:9 method TestShape.test_direct [test] uses class Shape (pkg/geometry.py:4)
        tests/test_geometry.py:12 method TestShape.test_helper [test] uses function helper (tests/test_geometry.py:4)
    "#]]
    .assert_eq(&answer.text);
    let used: Vec<(Vec<&str>, &str)> = answer
        .words_used
        .iter()
        .map(|u| {
            (
                u.words.iter().map(String::as_str).collect(),
                u.name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        used,
        [
            (vec!["total", "area"], "total_area"),
            (vec!["shapes"], "Shape")
        ]
    );
    assert_eq!(answer.words_dropped, ["how", "is", "the", "of", "computed"]);
    assert!(answer.not_found.is_empty());
    assert_eq!(
        answer.tokens,
        sextant::ide::Encoding::default().count(&answer.text)
    );
    // Unquoted, a question's words come one term each: a term naming a definition as it
    // is (`countdown`) is taken so, the others are read as one question.
    let words = analysis::explore(&db, &["how", "countdown", "totals", "stop"], 250);
    assert_eq!(
        words
            .definitions
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["total_area", "countdown"]
    );
    assert_eq!(words.words_used[0].name, "total_area");
    assert_eq!(words.words_dropped, ["how", "stop"]);
    assert!(words.not_found.is_empty());
    // Nothing in the question names anything: every term is reported.
    let nothing = analysis::explore(&db, &["why so slow"], 250);
    assert!(nothing.definitions.is_empty());
    assert_eq!(nothing.not_found, ["why so slow"]);
    assert!(nothing.words_dropped.is_empty());
}
