//! `definition` and `references` in JavaScript and TypeScript: block scopes and hoisting,
//! every import and export form, class members through `this`, `new` and written types,
//! TypeScript's types, namespaces and enums, JSX components.

use expect_test::expect;

use crate::navigation_checks::{check_definition, check_definitions, check_references};

#[test]
fn let_and_const_are_block_scoped_and_shadow_outer_names() {
    check_definition(
        r#"
        //- /m.js
        const x = 1;
        function f() {
          if (x) {
            const x = 2;
            return x$0;
          }
        }
        "#,
        expect![[r#"
            m.js:4:11 variable x
        "#]],
    );
    check_definition(
        r#"
        //- /m.js
        const x = 1;
        function f() {
          if (x) {
            const x = 2;
          }
          return x$0;
        }
        "#,
        expect![[r#"
            m.js:1:7 variable x
        "#]],
    );
}

#[test]
fn var_is_hoisted_out_of_blocks_to_the_function() {
    check_definition(
        r#"
        //- /m.js
        function f(flag) {
          if (flag) {
            var found = 1;
          }
          return found$0;
        }
        "#,
        expect![[r#"
            m.js:3:9 variable found
        "#]],
    );
}

#[test]
fn parameters_and_destructured_names_bind_in_the_function() {
    check_definition(
        r#"
        //- /m.js
        const a = 0;
        const handler = ({ a, b: [c, ...rest] = [] }, d = 1) => a + c + rest.length + d$0;
        "#,
        expect![[r#"
            m.js:2:47 variable d
        "#]],
    );
    check_definition(
        r#"
        //- /m.js
        const a = 0;
        const handler = ({ a, b: [c, ...rest] = [] }, d = 1) => a$0 + c;
        "#,
        expect![[r#"
            m.js:2:20 variable a
        "#]],
    );
}

#[test]
fn imports_lead_to_what_the_module_exports() {
    let files = r#"
        //- /lib.ts
        export function helper() {}
        export default class Widget {}
        function internal() {}
        export { internal as exposed };
        //- /main.ts
        import Widget, { helper as h, exposed } from "./lib";
        import * as lib from "./lib";
        const w = new Widget();
        h();
        exposed();
        lib.helper();
    "#;
    check_definitions(
        files,
        &[
            ("new Widget$0()", "lib.ts:2:22 class Widget\n"),
            ("h$0();", "lib.ts:1:17 function helper\n"),
            ("exposed$0();", "lib.ts:3:10 function internal\n"),
            ("lib.helper$0()", "lib.ts:1:17 function helper\n"),
            ("lib$0.helper()", "lib.ts:1:1 module lib\n"),
        ],
    );
}

#[test]
fn re_exports_and_require_are_followed() {
    check_definition(
        r#"
        //- /impl.js
        exports.run = function run() {};
        export function start() {}
        //- /index.js
        export { start as begin } from "./impl";
        export * from "./impl";
        //- /app.js
        import { begin, start } from "./index";
        begin$0();
        "#,
        expect![[r#"
            impl.js:2:17 function start
        "#]],
    );
    check_definition(
        r#"
        //- /impl.js
        export function start() {}
        //- /index.js
        export * from "./impl";
        //- /app.js
        import { start } from "./index";
        start$0();
        "#,
        expect![[r#"
            impl.js:1:17 function start
        "#]],
    );
    check_definition(
        r#"
        //- /util.js
        export function parse() {}
        //- /app.js
        const util = require("./util");
        util.parse$0();
        "#,
        expect![[r#"
            util.js:1:17 function parse
        "#]],
    );
}

#[test]
fn members_through_this_new_and_written_types() {
    let files = r#"
        //- /shapes.ts
        export interface Point { x: number; y: number }
        export class Shape {
          origin: Point;
          constructor(private label: string) { this.origin = { x: 0, y: 0 }; }
          area(): number { return 0; }
          describe(): string { return this.label + this.area(); }
        }
        export class Circle extends Shape {
          area(): number { return 3; }
        }
        //- /main.ts
        import { Circle, Shape, Point } from "./shapes";
        function show(shape: Shape, at: Point) {
          return shape.describe() + at.x;
        }
        const c = new Circle();
        c.describe();
        c.area();
        c.origin.y;
    "#;
    check_definitions(
        files,
        &[
            ("this.label$0", "shapes.ts:4:23 parameter label\n"),
            ("this.area$0()", "shapes.ts:5:3 function area\n"),
            ("this.origin$0 =", "shapes.ts:3:3 variable origin\n"),
            ("shape.describe$0()", "shapes.ts:6:3 function describe\n"),
            ("at.x$0", "shapes.ts:1:26 variable x\n"),
            ("c.describe$0()", "shapes.ts:6:3 function describe\n"),
            ("c.area$0()", "shapes.ts:9:3 function area\n"),
            ("c.origin.y$0", "shapes.ts:1:37 variable y\n"),
        ],
    );
}

#[test]
fn typescript_types_type_parameters_namespaces_and_enums() {
    let files = r#"
        //- /m.ts
        namespace Geometry {
          export function scale(n: number) { return n; }
          export const unit = 1;
          export function twice() { return scale(unit); }
        }
        enum Color { Red, Green = 2 }
        type Pair<T> = [T, T];
        class Box<T> {
          value: T;
          get(): T { return this.value; }
        }
        const p: Pair<Color> = [Color.Green, Color.Red];
        Geometry.scale(2);
    "#;
    check_definitions(
        files,
        &[
            ("Geometry.scale$0(2)", "m.ts:2:19 function scale\n"),
            ("return scale$0(unit)", "m.ts:2:19 function scale\n"),
            ("Color.Green$0,", "m.ts:6:19 variable Green\n"),
            ("Pair$0<Color>", "m.ts:7:6 type Pair\n"),
            ("[T$0, T]", "m.ts:7:11 type_parameter T\n"),
            ("get(): T$0", "m.ts:8:11 type_parameter T\n"),
            ("Pair<Color$0>", "m.ts:6:6 type Color\n"),
        ],
    );
}

#[test]
fn object_literal_methods_bind_no_name() {
    check_definition(
        r#"
        //- /m.js
        function save() {}
        const api = {
          save() { return save$0(); },
        };
        "#,
        expect![[r#"
            m.js:1:10 function save
        "#]],
    );
}

#[test]
fn globals_are_external() {
    check_definition(
        r#"
        //- /m.ts
        const found = Array.isArray([]) && JSON$0.stringify({});
        "#,
        expect![[r#"
            external globalThis external JSON
        "#]],
    );
}

#[test]
fn references_across_files_with_aliases_and_jsx() {
    check_references(
        r#"
        //- /button.tsx
        export function Button$0() { return <button>ok</button>; }
        //- /app.tsx
        import { Button as Btn } from "./button";
        import * as ui from "./button";
        export const App = () => <div><Btn /><ui.Button></ui.Button></div>;
        Btn();
        "#,
        expect![[r#"
            app.tsx:1:10 import
            app.tsx:1:20 import
            app.tsx:3:32 call
            app.tsx:3:42 read
            app.tsx:3:54 read
            app.tsx:4:1 call
            button.tsx:1:17 definition
        "#]],
    );
}

#[test]
fn return_types_unions_and_super() {
    let files = r#"
        //- /m.ts
        class Subscription {
          closed = false;
          unsubscribe(): void {}
        }
        class Action extends Subscription {
          unsubscribe(): void { super.unsubscribe(); }
        }
        function subscribe(): Subscription { return new Subscription(); }
        let current: Subscription | null = null;
        subscribe().unsubscribe();
        current?.closed;
        const made = subscribe();
        made.closed;
    "#;
    check_definitions(
        files,
        &[
            ("super.unsubscribe$0()", "m.ts:3:3 function unsubscribe\n"),
            (
                "subscribe().unsubscribe$0()",
                "m.ts:3:3 function unsubscribe\n",
            ),
            ("current?.closed$0", "m.ts:2:3 variable closed\n"),
            ("made.closed$0", "m.ts:2:3 variable closed\n"),
        ],
    );
}

#[test]
fn a_methods_first_parameter_is_not_this_and_inherited_fields_win() {
    let files = r#"
        //- /m.ts
        class Subscriber {
          error(e: unknown): void {}
        }
        class Scheduler {
          protected active = false;
        }
        class Subject {
          error(e: unknown): void {}
          check(subscriber: Subscriber) {
            subscriber.error(1);
            const { error } = this;
          }
        }
        class Frame extends Scheduler {
          flush() { this.active = true; }
        }
    "#;
    check_definitions(
        files,
        &[
            ("subscriber.error$0(1)", "m.ts:2:3 function error\n"),
            ("this.active$0 = true", "m.ts:5:13 variable active\n"),
            (
                "const { error$0 }",
                "m.ts:11:13 variable error\nm.ts:8:3 function error\n",
            ),
        ],
    );
}

#[test]
fn a_destructuring_assignment_writes_the_variables_it_names() {
    check_references(
        r#"
        //- /m.js
        export function f(xs, obj) {
          let first, a$0, c;
          [first] = xs;
          ({ a, b: c } = obj);
          return first + a + c;
        }
        "#,
        expect![[r#"
            m.js:2:14 definition
            m.js:4:6 write
            m.js:5:18 read
        "#]],
    );
}

#[test]
fn doc_comment_links_and_types_are_references() {
    check_references(
        r#"
        //- /errors.ts
        export class EmptyError$0 { static make() {} }
        //- /first.ts
        import { EmptyError } from "./errors";
        /**
         * Fails with {@link EmptyError}, made by {@linkcode EmptyError.make | make}.
         * @see EmptyError
         * @param {EmptyError} e the error
         * @throws {Array<EmptyError>} when empty
         * See {@link https://example.org/EmptyError} and {@link EmptyErrors}.
         */
        export function first(e: EmptyError) {}
        /* {@link EmptyError} in a plain comment */
        // @see EmptyError
        "#,
        expect![[r#"
            errors.ts:1:14 definition
            first.ts:1:10 import
            first.ts:3:22 read
            first.ts:3:54 read
            first.ts:4:9 read
            first.ts:5:12 type
            first.ts:6:19 type
            first.ts:9:26 type
        "#]],
    );
}

#[test]
fn a_doc_link_resolves_in_the_comments_scope() {
    let files = r#"
        //- /m.ts
        export class Notification { static createNext() {} }
        /** Use {@link Notification#createNext}. */
        function outer() {
          const Notification = 1;
          /** Not {@link Notification} here. */
          return Notification;
        }
    "#;
    check_definitions(
        files,
        &[
            (
                "{@link Notification#createNext$0}",
                "m.ts:1:36 function createNext\n",
            ),
            (
                "{@link Notification$0} here",
                "m.ts:4:9 variable Notification\n",
            ),
        ],
    );
}

#[test]
fn a_type_and_a_value_of_one_name_are_two_symbols() {
    let files = r#"
        //- /schemas.ts
        export interface ZodNumber { check(): void }
        export const ZodNumber: ZodNumberCtor = make();
        /** {@link ZodNumber} */
        export function number(): ZodNumber { return new ZodNumber(); }
        //- /coerce.ts
        import * as schemas from "./schemas";
        import { ZodNumber } from "./schemas";
        export const n: schemas.ZodNumber = new schemas.ZodNumber();
        const m: ZodNumber = ZodNumber.parse();
        function local() {
          const ZodNumber: ZodNumber = make();
          return ZodNumber;
        }
    "#;
    check_references(
        &files.replacen("interface ZodNumber", "interface ZodNumber$0", 1),
        expect![[r#"
            coerce.ts:2:10 import
            coerce.ts:3:25 type
            coerce.ts:4:10 type
            coerce.ts:6:20 type
            schemas.ts:1:18 definition
            schemas.ts:3:12 read
            schemas.ts:4:27 type
        "#]],
    );
    check_references(
        &files.replacen("const ZodNumber", "const ZodNumber$0", 1),
        expect![[r#"
            coerce.ts:2:10 import
            coerce.ts:3:49 read
            coerce.ts:4:22 read
            schemas.ts:2:14 definition
            schemas.ts:3:12 read
            schemas.ts:4:50 call
        "#]],
    );
}

#[test]
fn members_of_an_object_type_or_an_interface_are_not_seen_from_its_body() {
    check_references(
        r#"
        //- /m.ts
        export const version$0 = { major: 4 };
        export interface Zod { version: typeof version; }
        export const stringToNumber = 1;
        function test() {
          const t1 = { version };
          let t2: { version: string };
        }
        "#,
        expect![[r#"
            m.ts:1:14 definition
            m.ts:2:40 read
            m.ts:5:16 read
        "#]],
    );
}

#[test]
fn references_follow_export_aliases_and_default_exports() {
    check_references(
        r#"
        //- /regexes.ts
        const _undefined$0 = /undefined/;
        export { _undefined as undefined };
        export default _undefined;
        //- /schemas.ts
        import * as regexes from "./regexes";
        import undefinedPattern from "./regexes";
        const a = regexes.undefined;
        const b = undefinedPattern;
        export { undefinedPattern };
        //- /user.ts
        import { undefinedPattern } from "./schemas";
        undefinedPattern.test("");
        "#,
        expect![[r#"
            regexes.ts:1:7 definition
            regexes.ts:2:10 read
            regexes.ts:2:24 read
            regexes.ts:3:16 read
            schemas.ts:2:8 import
            schemas.ts:3:19 read
            schemas.ts:4:11 read
            schemas.ts:5:10 read
            user.ts:1:10 import
            user.ts:2:1 read
        "#]],
    );
}

#[test]
fn an_overloaded_function_is_one_symbol() {
    check_references(
        r#"
        //- /m.ts
        export function of$0<T>(a: T): T[];
        export function of<T>(a: T, b: T): T[];
        export function of(...xs: unknown[]) { return xs; }
        of(1);
        //- /user.ts
        import { of } from "./m";
        of(1, 2);
        "#,
        expect![[r#"
            m.ts:1:17 definition
            m.ts:2:17 definition
            m.ts:3:17 definition
            m.ts:4:1 call
            user.ts:1:10 import
            user.ts:2:1 call
        "#]],
    );
}

#[test]
fn an_object_literal_a_written_type_describes_defines_that_types_members() {
    check_references(
        r#"
        //- /timeout.ts
        interface TimeoutProvider {
          setTimeout$0(handler: () => void): number;
          delegate: TimeoutProvider | undefined;
        }
        export const timeoutProvider: TimeoutProvider = {
          setTimeout(handler) { return timeoutProvider.delegate?.setTimeout(handler) ?? 0; },
          delegate: undefined,
        };
        const untyped = { setTimeout() {} };
        timeoutProvider.setTimeout(() => {});
        "#,
        expect![[r#"
            timeout.ts:2:3 definition
            timeout.ts:6:3 definition
            timeout.ts:6:58 call
            timeout.ts:10:17 call
        "#]],
    );
}

#[test]
fn a_method_s_references_are_its_family_s() {
    let files = r#"
        //- /observer.ts
        export interface Observer { next(): void; }
        //- /subjects.ts
        import { Observer } from "./observer";
        export class Subject implements Observer { next() {} run() { this.next(); } }
        export class Replay extends Subject { next() { super.next(); } }
        export class Async extends Subject { next() {} }
        export class Plain { next() {} }
        //- /use.ts
        import { Observer } from "./observer";
        import { Plain, Replay } from "./subjects";
        declare const o: Observer;
        o.next();
        new Replay().next();
        const literal: Observer = { next() {} };
        new Plain().next();
    "#;
    // From an override and from the interface it implements: one family.
    check_references(
        &files.replacen(
            "Async extends Subject { next",
            "Async extends Subject { next$0",
            1,
        ),
        expect![[r#"
        observer.ts:1:29 definition
        subjects.ts:2:44 definition
        subjects.ts:2:67 call
        subjects.ts:3:39 definition
        subjects.ts:3:54 call
        subjects.ts:4:38 definition
        use.ts:4:3 call
        use.ts:5:14 call
        use.ts:6:29 definition
    "#]],
    );
    check_references(
        &files.replacen("Observer { next", "Observer { next$0", 1),
        expect![[r#"
        observer.ts:1:29 definition
        subjects.ts:2:44 definition
        subjects.ts:2:67 call
        subjects.ts:3:39 definition
        subjects.ts:3:54 call
        subjects.ts:4:38 definition
        use.ts:4:3 call
        use.ts:5:14 call
        use.ts:6:29 definition
    "#]],
    );
    check_references(
        &files.replacen("Plain { next", "Plain { next$0", 1),
        expect![[r#"
            subjects.ts:5:22 definition
            use.ts:7:13 call
        "#]],
    );
}

#[test]
fn this_written_as_a_parameter_is_an_instance_of_its_type() {
    // Inside `work`, `this` is the action its `this:` parameter writes, not the scheduler
    // class around; an arrow function inside sees the same `this`; a `function` passed
    // without one takes it from the callee's parameter type.
    let fixture = r#"
        //- /m.ts
        class Action<T> {
          schedule(state?: T): void {}
        }
        class Scheduler {
          schedule(work: (this: Action<number>, state?: number) => void): void {}
          run() {
            this.schedule(function (this: Action<number>, state?: number) {
              [1].forEach(() => this.sched$0ule(state));
            });
          }
        }
        "#;
    check_definition(
        fixture,
        expect![[r#"
            m.ts:2:3 function schedule
        "#]],
    );
    check_definition(
        &fixture
            .replace("this.sched$0ule(state)", "state")
            .replace("this.schedule(function", "this.sche$0dule(function"),
        expect![[r#"
            m.ts:5:3 function schedule
        "#]],
    );
    check_definition(
        &fixture.replace(
            "function (this: Action<number>, state?: number)",
            "function (state)",
        ),
        expect![[r#"
            m.ts:2:3 function schedule
        "#]],
    );
    check_definition(
        &fixture.replace(
            "function (this: Action<number>, state?: number) {",
            "(state) => {",
        ),
        expect![[r#"
            m.ts:5:3 function schedule
        "#]],
    );
}

#[test]
fn hover_shows_the_comment_above_an_exported_function() {
    // The symbol's range starts at `function`; `export` before it on its line is no code
    // between the comment and the definition.
    let (db, file, cursor) = crate::analysis::analysis(
        r#"
        //- /m.ts
        // How many tries before giving up.
        export function retries(): number {
          return 3;
        }
        retries$0();
        "#,
    );
    let hover = crate::analysis::hover(&db, file, cursor.unwrap().offset()).unwrap();
    assert_eq!(
        hover.documentation.as_deref(),
        Some("How many tries before giving up.")
    );
}
