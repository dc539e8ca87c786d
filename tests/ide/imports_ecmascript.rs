//! `imports` for JavaScript and TypeScript: every form `queries/{javascript,typescript}/
//! imports.scm` matches, and every resolution rule of `semantic/imports/ecmascript.rs`
//! (relative paths and extensions, directories, tsconfig `paths` and `baseUrl`, workspace
//! packages, Node built-ins, listed dependencies).

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::imports(&analysis::imports(&db, file)));
}

#[test]
fn es_module_forms() {
    check(
        r#"
        //- /src/main.js
        import x from "./lib";
        import {a, b as c} from './lib';
        import * as ns from "./lib";
        import "./setup";
        import d, {e} from "./lib";
        import f, * as g from "./lib";
        import {default as h, "odd name" as i} from "./lib";
        export {a as aa, b} from "./lib";
        export {default} from "./lib";
        export * from "./lib";
        export * as all from "./lib";
        const later = await import("./lib");
        import('./lib-' + name);
        import {} from "./setup";
        export {later as now};
        //- /src/lib.js
        export default class {}
        export function a() {}
        export const b = 1;
        //- /src/setup.js
        "#,
        expect![[r#"
            1 ./lib: default as x -> src/lib.js:1:8
            2 ./lib: a -> src/lib.js:2:17
            2 ./lib: b as c -> src/lib.js:3:14
            3 ./lib: * as ns -> src/lib.js
            4 ./setup -> src/setup.js
            5 ./lib: default as d -> src/lib.js:1:8
            5 ./lib: e -> src/lib.js
            6 ./lib: default as f -> src/lib.js:1:8
            6 ./lib: * as g -> src/lib.js
            7 ./lib: default as h -> src/lib.js:1:8
            7 ./lib: odd name as i -> src/lib.js
            8 ./lib: a as aa (public) -> src/lib.js:2:17
            8 ./lib: b (public) -> src/lib.js:3:14
            9 ./lib: default (public) -> src/lib.js:1:8
            10 ./lib: * (public) -> src/lib.js
            11 ./lib: * as all (public) -> src/lib.js
            12 ./lib -> src/lib.js
            14 ./setup -> src/setup.js
        "#]],
    );
}

#[test]
fn commonjs_forms() {
    check(
        r#"
        //- /lib/index.js
        const fs = require("fs");
        let {join, resolve: res} = require('path');
        var util = require("./util"), other = 1;
        require("./polyfill");
        module.exports.helper = require("./util").helper;
        function lazy() {
          return require("node:os");
        }
        const dynamic = require(name);
        //- /lib/util.js
        exports.helper = function () {};
        //- /lib/polyfill.js
        "#,
        expect![[r#"
            1 fs as fs -> external (fs)
            2 path: join -> external (path)
            2 path: resolve as res -> external (path)
            3 ./util as util -> lib/util.js
            4 ./polyfill -> lib/polyfill.js
            5 ./util -> lib/util.js
            7 node:os -> external (os)
        "#]],
    );
}

#[test]
fn typescript_forms_and_type_only_imports() {
    check(
        r#"
        //- /src/app.ts
        import type Default from "./types";
        import type {Shape} from "./types";
        import type {Shape as S} from "./types";
        import type * as T from "./types";
        import {type Point, type Point as P, make} from "./types";
        import legacy = require("./legacy");
        export type {Shape} from "./types";
        export type {Shape as Form} from "./types";
        export {type Point, type Point as Pt, make as build} from "./types";
        //- /src/types.ts
        export interface Shape { area(): number }
        export type Point = { x: number };
        export function make(): Point { return { x: 0 }; }
        export default interface Base {}
        //- /src/legacy.js
        module.exports = {};
        "#,
        expect![[r#"
            1 ./types: default as Default (type) -> src/types.ts
            2 ./types: Shape (type) -> src/types.ts:1:18
            3 ./types: Shape as S (type) -> src/types.ts:1:18
            4 ./types: * as T (type) -> src/types.ts
            5 ./types: Point (type) -> src/types.ts:2:13
            5 ./types: Point as P (type) -> src/types.ts:2:13
            5 ./types: make -> src/types.ts:3:17
            6 ./legacy as legacy -> src/legacy.js
            7 ./types: Shape (public) (type) -> src/types.ts:1:18
            8 ./types: Shape as Form (public) (type) -> src/types.ts:1:18
            9 ./types: Point (public) (type) -> src/types.ts:2:13
            9 ./types: Point as Pt (public) (type) -> src/types.ts:2:13
            9 ./types: make as build (public) -> src/types.ts:3:17
        "#]],
    );
}

#[test]
fn tsx_and_jsx_files_use_the_same_patterns() {
    check(
        r#"
        //- /ui/App.tsx
        import React from "react";
        import type {Props} from "./Button";
        import Button from "./Button";
        export const App = () => <Button />;
        //- /ui/Button.jsx
        import {jsx} from "react/jsx-runtime";
        export default function Button() { return null; }
        //- /ui/package.json
        {"name": "ui", "dependencies": {"react": "^18"}}
        "#,
        expect![[r#"
            1 react: default as React -> external (react)
            2 ./Button: Props (type) -> ui/Button.jsx
            3 ./Button: default as Button -> ui/Button.jsx
        "#]],
    );
    check(
        r#"
        //- /ui/Button.jsx
        import {jsx} from "react/jsx-runtime";
        export default function Button() { return null; }
        //- /ui/package.json
        {"name": "ui", "dependencies": {"react": "^18"}}
        "#,
        expect![[r#"
            1 react/jsx-runtime: jsx -> external (react)
        "#]],
    );
}

#[test]
fn relative_paths_with_extensions_and_directories() {
    check(
        r#"
        //- /src/main.ts
        import a from "./a";
        import b from "./b.js";
        import c from "./c.mjs";
        import d from "./d.js";
        import e from "./dir";
        import f from "./pkg";
        import g from "./main-dir";
        import h from "../top";
        import i from "./decl";
        import j from "./data.json";
        import k from "../../outside";
        import l from ".";
        import m from "/abs/path";
        //- /src/a.tsx
        //- /src/b.ts
        //- /src/c.mts
        //- /src/d.js
        //- /src/dir/index.ts
        //- /src/pkg/package.json
        {"main": "./lib/entry.js", "types": "./types/missing.d.ts"}
        //- /src/pkg/lib/entry.js
        //- /src/main-dir/package.json
        {"main": "./lib"}
        //- /src/main-dir/lib/index.cjs
        //- /src/decl.d.ts
        //- /src/index.js
        //- /top.js
        "#,
        expect![[r#"
            1 ./a: default as a -> src/a.tsx
            2 ./b.js: default as b -> src/b.ts
            3 ./c.mjs: default as c -> src/c.mts
            4 ./d.js: default as d -> src/d.js
            5 ./dir: default as e -> src/dir/index.ts
            6 ./pkg: default as f -> src/pkg/lib/entry.js
            7 ./main-dir: default as g -> src/main-dir/lib/index.cjs
            8 ../top: default as h -> top.js
            9 ./decl: default as i -> src/decl.d.ts
            10 ./data.json: default as j -> unresolved
            11 ../../outside: default as k -> unresolved
            12 .: default as l -> src/index.js
            13 /abs/path: default as m -> unresolved
        "#]],
    );
}

#[test]
fn tsconfig_paths_and_base_url_of_the_nearest_config() {
    check(
        r#"
        //- /apps/web/src/page.ts
        import {Button} from "@ui/button";
        import {theme} from "@ui/theme";
        import {config} from "~config";
        import {helper} from "shared/helper";
        import {nothing} from "@ui/absent";
        import {x} from "unmapped";
        //- /tsconfig.base.json
        {
          // shared by every app
          "compilerOptions": {
            "baseUrl": ".",
            "paths": {
              "@ui/*": ["libs/ui/src/*", "libs/ui/generated/*"],
              "~config": ["config/index.ts"],
            },
          },
        }
        //- /apps/web/tsconfig.json
        {"extends": "../../tsconfig.base.json"}
        //- /tsconfig.json
        {"compilerOptions": {"paths": {"@ui/*": ["wrong/*"]}}}
        //- /libs/ui/src/button.tsx
        export function Button() {}
        //- /libs/ui/generated/theme.ts
        export const theme = {};
        //- /config/index.ts
        export const config = 1;
        //- /shared/helper.js
        export function helper() {}
        "#,
        expect![[r#"
            1 @ui/button: Button -> libs/ui/src/button.tsx:1:17
            2 @ui/theme: theme -> libs/ui/generated/theme.ts:1:14
            3 ~config: config -> config/index.ts:1:14
            4 shared/helper: helper -> shared/helper.js:1:17
            5 @ui/absent: nothing -> unresolved
            6 unmapped: x -> unresolved
        "#]],
    );
}

#[test]
fn a_jsconfig_governs_javascript_and_a_tsconfig_beside_it_wins() {
    check(
        r#"
        //- /web/app.js
        import {util} from "lib/util";
        //- /web/jsconfig.json
        {"compilerOptions": {"baseUrl": "wrong"}}
        //- /web/tsconfig.json
        {"compilerOptions": {"baseUrl": "src"}}
        //- /web/src/lib/util.js
        export const util = 1;
        "#,
        expect![[r#"
            1 lib/util: util -> web/src/lib/util.js:1:14
        "#]],
    );
    check(
        r#"
        //- /web/app.js
        import {util} from "lib/util";
        //- /web/jsconfig.json
        {"compilerOptions": {"baseUrl": "src"}}
        //- /web/src/lib/util.js
        export const util = 1;
        "#,
        expect![[r#"
            1 lib/util: util -> web/src/lib/util.js:1:14
        "#]],
    );
}

#[test]
fn npm_workspace_packages_by_name() {
    check(
        r#"
        //- /apps/site/main.ts
        import {render} from "@acme/ui";
        import {Icon} from "@acme/ui/icons/icon";
        import {log} from "logger";
        import {fmt} from "fmt-lib";
        import {gone} from "@acme/empty";
        import {other} from "private-pkg";
        //- /package.json
        {"private": true, "workspaces": ["packages/*", "apps/*"]}
        //- /apps/site/package.json
        {"name": "site", "dependencies": {"@acme/ui": "*", "fmt-lib": "workspace:*"}}
        //- /packages/ui/package.json
        {"name": "@acme/ui", "types": "./dist/index.d.ts", "main": "./src/index.ts"}
        //- /packages/ui/src/index.ts
        export function render() {}
        //- /packages/ui/icons/icon.tsx
        export function Icon() {}
        //- /packages/logger/package.json
        {"name": "logger"}
        //- /packages/logger/index.js
        exports.log = function () {};
        //- /packages/empty/package.json
        {"name": "@acme/empty", "main": "dist/index.js"}
        //- /tools/fmt/package.json
        {"name": "fmt-lib", "module": "esm/fmt.mjs"}
        //- /tools/fmt/esm/fmt.mjs
        export function fmt() {}
        //- /tools/private/package.json
        {"name": "private-pkg"}
        //- /tools/private/index.js
        "#,
        expect![[r#"
            1 @acme/ui: render -> packages/ui/src/index.ts:1:17
            2 @acme/ui/icons/icon: Icon -> packages/ui/icons/icon.tsx:1:17
            3 logger: log -> packages/logger/index.js:1:9
            4 fmt-lib: fmt -> tools/fmt/esm/fmt.mjs:1:17
            5 @acme/empty: gone -> unresolved
            6 private-pkg: other -> unresolved
        "#]],
    );
}

#[test]
fn node_builtins_and_listed_dependencies_are_external() {
    check(
        r#"
        //- /pkg/src/index.mjs
        import fs from "fs";
        import {readFile} from "node:fs/promises";
        import test from "node:test";
        import testing from "test";
        import React from "react";
        import {merge} from "lodash/merge";
        import {z} from "@scope/lib/sub";
        import express from "express";
        import {peer} from "peer-dep";
        import {dev} from "dev-dep";
        import {missing} from "not-listed";
        //- /pkg/package.json
        {"dependencies": {"lodash": "4"}, "peerDependencies": {"peer-dep": "*"},
         "devDependencies": {"@types/express": "4", "@types/scope__lib": "1"}}
        //- /package.json
        {"devDependencies": {"react": "18", "dev-dep": "1"}}
        "#,
        expect![[r#"
            1 fs: default as fs -> external (fs)
            2 node:fs/promises: readFile -> external (fs)
            3 node:test: default as test -> external (test)
            4 test: default as testing -> unresolved
            5 react: default as React -> external (react)
            6 lodash/merge: merge -> external (lodash)
            7 @scope/lib/sub: z -> external (@scope/lib)
            8 express: default as express -> external (express)
            9 peer-dep: peer -> external (peer-dep)
            10 dev-dep: dev -> external (dev-dep)
            11 not-listed: missing -> unresolved
        "#]],
    );
}

#[test]
fn package_exports_and_built_entry_points_lead_to_sources() {
    check(
        r#"
        //- /client/src/main.ts
        import {Api} from "protocol";
        import {start} from "protocol/node";
        import {is} from "protocol/$test/utils/is";
        import {hidden} from "protocol/lib/secret";
        import {old} from "legacy";
        //- /client/package.json
        {"name": "client", "dependencies": {"protocol": "3", "legacy": "1"}}
        //- /protocol/package.json
        {
          "name": "protocol",
          "main": "./lib/wrong.js",
          "exports": {
            ".": {"types": "./lib/common/api.d.ts", "default": "./lib/common/api.js"},
            "./node": {"types": "./lib/node/main.d.ts", "node": "./lib/node/main.js"},
            "./$test/*": {"types": "./lib/common/*.d.ts"}
          }
        }
        //- /protocol/src/common/tsconfig.json
        {"compilerOptions": {"rootDir": ".", "outDir": "../../lib/common"}}
        //- /protocol/src/node/tsconfig.json
        {"compilerOptions": {"outDir": "../../lib/node"}}
        //- /protocol/src/common/api.ts
        export class Api {}
        //- /protocol/src/common/utils/is.ts
        export function is() {}
        //- /protocol/src/node/main.ts
        export function start() {}
        //- /legacy/package.json
        {"name": "legacy", "main": "out/index.js"}
        //- /legacy/tsconfig.json
        {"compilerOptions": {"rootDir": "src", "outDir": "out"}}
        //- /legacy/src/index.ts
        export const old = 1;
        "#,
        expect![[r#"
            1 protocol: Api -> protocol/src/common/api.ts:1:14
            2 protocol/node: start -> protocol/src/node/main.ts:1:17
            3 protocol/$test/utils/is: is -> protocol/src/common/utils/is.ts:1:17
            4 protocol/lib/secret: hidden -> unresolved
            5 legacy: old -> legacy/src/index.ts:1:14
        "#]],
    );
}
