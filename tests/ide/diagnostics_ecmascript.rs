//! `check` on JavaScript, TypeScript and TSX: undefined names (SX005), unused imports
//! (SX006) and relative imports of missing files (SX003), each firing where it should and
//! quiet on the idioms that look wrong but are not.

use expect_test::expect;

use crate::diagnostics::check;

#[test]
fn undefined_names_are_reported_in_modules() {
    check(
        r#"
        //- /src/a.ts
        import { helper } from "./b";

        export function total(items: Item[]): number {
            let sum = 0;
            for (const item of items) sum += item.price + helpr(item);
            count = sum;
            return sum;
        }

        class Cart {
            size = 0;
            add() {
                return size + 1;
            }
        }
        export { helper, Cart };
        //- /src/b.js
        export function helper(x) {
            return x + missing;
        }
        //- /src/c.tsx
        export const App = () => <Layout><div className="x">{title}</div></Layout>;
        "#,
        expect![[r#"
            src/a.ts:3:30: SX005 undefined name 'Item'
            src/a.ts:5:51: SX005 undefined name 'helpr'
            src/a.ts:6:5: SX005 undefined name 'count'
            src/a.ts:13:16: SX005 undefined name 'size'
            src/b.js:2:16: SX005 undefined name 'missing'
            src/c.tsx:1:27: SX005 undefined name 'Layout'
            src/c.tsx:1:54: SX005 undefined name 'title'
        "#]],
    );
}

#[test]
fn undefined_names_stay_quiet_on_real_idioms() {
    check(
        r#"
        //- /src/globals.d.ts
        declare const __DEV__: boolean;
        interface Window { analytics: unknown }
        //- /src/augment.ts
        export {};
        declare global {
            var appVersion: string;
            interface Theme { dark: boolean }
        }
        //- /src/legacy.ts
        function legacyHelper(): number { return 1; }
        namespace Legacy { export const x = 1; }
        //- /src/m.ts
        import type { Props } from "./props";

        export enum Color { Red = 1, Green = Red << 1 }
        export namespace Shapes {
            export const unit = 1;
        }
        export namespace Shapes {
            export const double = unit * 2;
        }
        export interface Box<T> { value: T; map<U>(f: (x: T) => U): Box<U> }
        export type Keys<T> = { [K in keyof T]: T[K] };
        export type Ret<F> = F extends (...args: infer A) => infer R ? [A, R] : never;
        export type Tuple = [first: string, rest?: number];
        export type Dict = { [key: string]: number };
        const config = { debug: __DEV__, version: appVersion };
        export const theme: Theme = { dark: false };
        export class Widget<T> implements Props {
            static count = 0;
            constructor(private readonly value: T) {}
            get(): T {
                outer: for (const x of [1]) { break outer; }
                return this.value ?? (arguments.length as unknown as T);
            }
            size(): typeof config { return config; }
        }
        export function f(this: Window, { a, b = a }: { a: number; b?: number }) {
            const { length } = [a, b];
            return { length, legacy: legacyHelper() + Legacy.x, node: process.env, g: globalThis };
        }
        export default async function () {
            const response = await fetch("/x");
            document.title = new URL(response.url).host + setTimeout.name + Buffer.name;
            return <T,>(x: T) => x;
        }
        export * as shapes from "./shapes";
        export { Color as Colour };
        export as namespace Lib;
        //- /src/props.ts
        export interface Props { name: string }
        //- /src/shapes.ts
        export const circle = 1;
        //- /src/app.jsx
        import { Button } from "./button.jsx";
        export const App = () => <div><Button.Group /><Button label="a" /><my-element /></div>;
        //- /src/button.jsx
        export function Button() {}
        //- /src/script.js
        $(document).ready(() => jQuery.noop(undefinedByDesign));
        //- /src/ref.ts
        /// <reference types="some-globals" />
        export const value = someGlobal;
        //- /src/spec.test.ts
        describe("x", () => { it("works", () => { expect(1).toBe(1); }); });
        export {};
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn test_runner_names_are_not_globals_where_the_runner_is_imported() {
    check(
        r#"
        //- /src/a.test.ts
        import { test } from "vitest";
        test("x", () => { expect(1).toBe(1); });
        "#,
        expect![[r#"
            src/a.test.ts:2:19: SX005 undefined name 'expect'
        "#]],
    );
}

#[test]
fn declaration_files_are_not_checked() {
    check(
        r#"
        //- /src/types.d.ts
        import { Unused } from "./missing";
        export declare function f(x: Undeclared): void;
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn unused_imports_are_reported() {
    check(
        r#"
        //- /src/a.ts
        import { used, unused } from "./lib";
        import type { Shape } from "./lib";
        import * as lib from "./lib";
        import def, { other as renamed } from "./lib";
        const fs = require("fs");

        export const x = used();
        //- /src/lib.ts
        export const used = () => 1;
        export const unused = 2;
        export const other = 3;
        export interface Shape {}
        export default 4;
        "#,
        expect![[r#"
            src/a.ts:1:16: SX006 'unused' imported from './lib' but unused
            src/a.ts:2:15: SX006 'Shape' imported from './lib' but unused
            src/a.ts:3:13: SX006 'lib' imported from './lib' but unused
            src/a.ts:4:8: SX006 'default as def' imported from './lib' but unused
            src/a.ts:4:24: SX006 'other as renamed' imported from './lib' but unused
            src/a.ts:5:7: SX006 'fs' imported from 'fs' but unused
        "#]],
    );
}

#[test]
fn unused_imports_stay_quiet_on_real_idioms() {
    check(
        r#"
        //- /src/a.tsx
        import React from "react";
        import "./polyfill";
        import { Shape, Point } from "./lib";
        import * as lib from "./lib";
        import { linked } from "./lib";
        import { reexported } from "./lib";
        import { Component } from "./lib";
        export { a, b as c } from "./lib";

        /** See {@link linked}. */
        export function area(s: Shape, p: typeof Point): number {
            return lib.size(s) + p.x;
        }
        export { reexported };
        export const View = () => <Component />;
        //- /src/b.js
        import { helper } from "./lib";
        export default function run() {
            return helper();
        }
        //- /src/lib.ts
        export const size = (s: unknown) => 1;
        export interface Shape {}
        export const Point = { x: 1 };
        export const linked = 1, reexported = 2, a = 3, b = 4, helper = () => 5;
        export const Component = () => null;
        //- /src/polyfill.ts
        export {};
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn unresolved_relative_imports_are_reported() {
    check(
        r#"
        //- /src/a.ts
        import { b } from "./b";
        import { c } from "./c";
        import { d } from "../lib/d.js";
        import { e } from "@app/e";
        import { f } from "@app/f";
        import "./styles.css";
        import logo from "./logo.svg";
        import data from "./data.json";
        import _ from "lodash";
        import { g } from "not-a-dependency";
        const lazy = () => import("./lazy");
        const cjs = require("./gone");
        export { b, c, d, e, f, logo, data, _, g, lazy, cjs };
        //- /src/b.ts
        export const b = 1;
        //- /tsconfig.json
        { "compilerOptions": { "baseUrl": ".", "paths": { "@app/*": ["src/*"] } } }
        //- /package.json
        { "name": "app", "dependencies": { "lodash": "4" } }
        //- /src/f.ts
        export const f = 1;
        "#,
        expect![[r#"
            src/a.ts:2:1: SX003 no module './c' in the workspace
            src/a.ts:3:1: SX003 no module '../lib/d.js' in the workspace
            src/a.ts:4:1: SX003 no module '@app/e' in the workspace
            src/a.ts:11:20: SX003 no module './lazy' in the workspace
            src/a.ts:12:1: SX003 no module './gone' in the workspace
        "#]],
    );
}

#[test]
fn names_a_module_does_not_export_are_reported() {
    check(
        r#"
        //- /src/a.ts
        import { helper, helpr } from "./lib";
        import lib from "./lib";
        import { local } from "./lib";
        export { gone } from "./lib";
        export const x = [helper, helpr, lib, local];
        //- /src/lib.ts
        const local = 1;
        export function helper() { return local; }
        "#,
        expect![[r#"
            src/a.ts:1:18: SX004 module './lib' does not export 'helpr'
            src/a.ts:2:8: SX004 module './lib' has no default export
            src/a.ts:3:10: SX004 module './lib' does not export 'local'
            src/a.ts:4:10: SX004 module './lib' does not export 'gone'
        "#]],
    );
}

#[test]
fn names_of_modules_whose_exports_are_open_are_not_judged() {
    check(
        r#"
        //- /src/a.ts
        import { anything } from "./star";
        import { viaEquals } from "./equals";
        import { fromCommonJs } from "./common.js";
        import { renamed, Kind, Shape, ns, Space, declared, reexported, fn } from "./lib";
        import defaultThing, { type Alias } from "./lib";
        import type { T } from "./types";
        export const x = [anything, viaEquals, fromCommonJs, renamed, Kind, ns, Space, declared];
        export const y = [reexported, fn, defaultThing];
        export type Z = Shape | Alias | T;
        //- /src/star.ts
        export * from "./lib";
        export * from "outside-package";
        //- /src/equals.ts
        const value = { viaEquals: 1 };
        export = value;
        //- /src/common.js
        exports.fromCommonJs = 1;
        //- /src/lib.ts
        import { other } from "./other";
        const original = 1;
        export { original as renamed, other as reexported };
        export enum Kind { A }
        export interface Shape {}
        export type Alias = string;
        export * as ns from "./other";
        export namespace Space { export const v = 1; }
        export declare const declared: number;
        export function fn(): void;
        export function fn(x?: number) {}
        export default class {}
        //- /src/other.ts
        export const other = 1;
        //- /src/types.d.ts
        export interface T {}
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn javascript_feature_detection_and_bundles_stay_quiet() {
    check(
        r#"
        //- /dist/runtime.js
        export const isDeno = typeof Deno !== "undefined" && Deno.version;
        export const onReact = typeof __REACT_DEVTOOLS_GLOBAL_HOOK__ === "object";
        export function setup(root) {
            root.Prism = {};
            Prism.languages = {};
        }
        //- /dist/bundle.js
        export default (function (modules) {
            return modules[0](function require(name) { return modules[name]; });
        })([function (require) { return require("./bundled-away"); }]);
        //- /dist/use.js
        export const v = notDetected;
        "#,
        expect![[r#"
            dist/use.js:1:18: SX005 undefined name 'notDetected'
        "#]],
    );
}

#[test]
fn names_through_export_star_are_followed() {
    check(
        r#"
        //- /src/use.ts
        import { Circle, red, util, own, clamp, Square } from "./index";
        import Shape from "./shapes";
        import first from "./index";
        import { default as noDefault } from "./colors";
        export { blue, Circle as C } from "./index";
        export const x = [Circle, red, util, own, clamp, Square, Shape, first, noDefault];
        //- /src/index.ts
        export * from "./shapes";
        export * from "./colors";
        export * as util from "./util";
        export const own = 1;
        export default own;
        //- /src/shapes.ts
        export * from "./index";
        export class Circle {}
        export default class Shape {}
        //- /src/colors.ts
        export const red = 1;
        //- /src/util.ts
        export const clamp = 1;
        "#,
        expect![[r#"
            src/use.ts:1:34: SX004 module './index' does not export 'clamp'
            src/use.ts:1:41: SX004 module './index' does not export 'Square'
            src/use.ts:4:21: SX004 module './colors' has no default export
            src/use.ts:5:10: SX004 module './index' does not export 'blue'
        "#]],
    );
}

#[test]
fn names_through_an_open_export_star_are_not_judged() {
    check(
        r#"
        //- /src/use.ts
        import { red, anything } from "./open";
        import { other } from "./broken";
        import { nested } from "./deep";
        export const x = [red, anything, other, nested];
        //- /src/open.ts
        export * from "./colors";
        export * from "outside-package";
        //- /src/broken.ts
        export * from "./missing";
        //- /src/deep.ts
        export * from "./common";
        //- /src/common.ts
        export * from "./colors";
        export = {};
        //- /src/colors.ts
        export const red = 1;
        "#,
        expect![[r#"
            src/broken.ts:1:1: SX003 no module './missing' in the workspace
        "#]],
    );
}

#[test]
fn unused_local_variables_are_reported_in_functions() {
    check(
        r#"
        //- /src/a.ts
        export function total(items: number[]): number {
            const unused = items.length;
            let onlyWritten = 0;
            onlyWritten = 2;
            let declaredOnly;
            var hoisted = 1, second = 2;
            return items.reduce((sum, x) => {
                const inner = x * 2;
                return sum + x;
            }, second);
        }
        export const arrow = () => {
            const seen = 1;
            return () => seen;
        };
        //- /src/b.jsx
        export function App() {
            const Layout = (p) => p.children;
            const title = "t";
            const styles = {};
            return <Layout>{title}</Layout>;
        }
        "#,
        expect![[r#"
            src/a.ts:2:11: SX007 local variable 'unused' is assigned to but never used
            src/a.ts:3:9: SX007 local variable 'onlyWritten' is assigned to but never used
            src/a.ts:5:9: SX007 local variable 'declaredOnly' is assigned to but never used
            src/a.ts:6:9: SX007 local variable 'hoisted' is assigned to but never used
            src/a.ts:8:15: SX007 local variable 'inner' is assigned to but never used
            src/b.jsx:4:11: SX007 local variable 'styles' is assigned to but never used
        "#]],
    );
}

#[test]
fn unused_local_variables_stay_quiet_on_real_idioms() {
    check(
        r#"
        //- /src/a.ts
        const moduleLevel = 1;
        export function idioms(input: { a: number; b: number }, xs: number[]) {
            const { a, ...rest } = input;
            const [first, second] = xs;
            const _ignored = 3;
            let counter = 0;
            counter++;
            let total = 0;
            total += 1;
            for (const x of xs) {}
            for (let i = 0; i < 1; i++) {}
            let param;
            while (xs.length) {
                [param] = xs;
                if (param) break;
            }
            return rest;
        }
        export function evaluates(code: string) {
            const local = 1;
            return eval(code);
        }
        export class C {
            field = 1;
            method() {
                return this.field;
            }
        }
        "#,
        expect![[r#""#]],
    );
}
