//! `check` with SX012 (import cycles, off by default): one diagnostic per import statement
//! that closes a cycle, naming its shortest cycle, with the cycle's other imports as related
//! places; only imports that run when a module loads count.

use expect_test::{Expect, expect};

use crate::analysis;

/// Each diagnostic as `path:line:col-line:col: CODE message`, then its related places
/// indented; with `select` as `--select` would (none: the default set).
fn check(fixture: &str, select: &[&str], expect: Expect) {
    let result = analysis::check_selecting(fixture, select);
    let mut out = String::new();
    for d in &result.diagnostics {
        out.push_str(&format!(
            "{}:{}:{}-{}:{}: {} {}\n",
            d.path,
            d.span.start.line,
            d.span.start.column,
            d.span.end.line,
            d.span.end.column,
            d.code,
            d.message
        ));
        for r in &d.related {
            out.push_str(&format!(
                "    {}:{}:{}-{}:{}: {}\n",
                r.path.as_deref().unwrap_or(&d.path),
                r.span.start.line,
                r.span.start.column,
                r.span.end.line,
                r.span.end.column,
                r.message
            ));
        }
    }
    expect.assert_eq(&out);
}

const PYTHON: &str = r#"
//- /app/__init__.py
//- /app/models.py
from app.views import render
from app import settings

def save():
    from app import storage
    return storage, render, settings

class Model:
    pass
//- /app/views.py
from typing import TYPE_CHECKING

import app.forms

if TYPE_CHECKING:
    from app.models import Model

def render(model: "Model"):
    return app.forms, model
//- /app/forms.py
from app.models import save

class Form:
    from app import views
    fields = save
//- /app/settings.py
import app.settings
DEBUG = app.settings
//- /app/storage.py
from app.models import save
saved = save

if __name__ == '__main__':
    from app import storage
    print(storage)
"#;

#[test]
fn python_cycles_through_module_level_imports() {
    check(
        PYTHON,
        &["SX012"],
        expect![[r#"
            app/forms.py:1:1-1:28: SX012 import cycle: app/forms.py → app/models.py → app/views.py → app/forms.py
                app/models.py:1:1-1:29: app/models.py imports app/views.py
                app/views.py:3:1-3:17: app/views.py imports app/forms.py
            app/forms.py:4:5-4:26: SX012 import cycle: app/forms.py → app/views.py → app/forms.py
                app/views.py:3:1-3:17: app/views.py imports app/forms.py
            app/models.py:1:1-1:29: SX012 import cycle: app/models.py → app/views.py → app/forms.py → app/models.py
                app/views.py:3:1-3:17: app/views.py imports app/forms.py
                app/forms.py:1:1-1:28: app/forms.py imports app/models.py
            app/settings.py:1:1-1:20: SX012 import cycle: app/settings.py → app/settings.py
            app/views.py:3:1-3:17: SX012 import cycle: app/views.py → app/forms.py → app/views.py
                app/forms.py:4:5-4:26: app/forms.py imports app/views.py
        "#]],
    );
}

#[test]
fn import_cycles_are_off_by_default() {
    check(PYTHON, &[], expect![[r#""#]]);
    check(
        r#"
//- /a.ts
import { b } from "./b";
export const a = () => b;
//- /b.ts
import { a } from "./a";
export const b = () => a;
"#,
        &[],
        expect![[r#""#]],
    );
}

#[test]
fn javascript_and_typescript_cycles_through_static_imports() {
    check(
        r#"
//- /src/a.ts
import { b } from "./b";
import type { Shape } from "./shape";
export { c } from "./c";
export const a = (s: Shape) => b(s);
//- /src/b.ts
import { a } from "./a";
export function b(s: unknown) {
    return a;
}
//- /src/c.ts
import "./a";
export const c = 1;
//- /src/shape.ts
import { a } from "./a";
export type Shape = { a: typeof a };
//- /src/model.ts
import { View } from "./view";
export interface Model { view: View }
//- /src/view.ts
import { Model } from "./model";
import { a } from "./a";
export class View { model?: Model; a = a }
//- /src/lazy.js
export async function load() {
    const m = await import("./late.js");
    return m;
}
//- /src/late.js
const early = require("./lazy.js");
function later() {
    return require("./late.js");
}
module.exports = { early, later };
"#,
        &["SX012"],
        expect![[r#"
            src/a.ts:1:1-1:25: SX012 import cycle: src/a.ts → src/b.ts → src/a.ts
                src/b.ts:1:1-1:25: src/b.ts imports src/a.ts
            src/a.ts:3:1-3:25: SX012 import cycle: src/a.ts → src/c.ts → src/a.ts
                src/c.ts:1:1-1:14: src/c.ts imports src/a.ts
            src/b.ts:1:1-1:25: SX012 import cycle: src/b.ts → src/a.ts → src/b.ts
                src/a.ts:1:1-1:25: src/a.ts imports src/b.ts
            src/c.ts:1:1-1:14: SX012 import cycle: src/c.ts → src/a.ts → src/c.ts
                src/a.ts:3:1-3:25: src/a.ts imports src/c.ts
        "#]],
    );
}

#[test]
fn go_package_cycles_are_reported_rust_module_cycles_are_not() {
    check(
        r#"
//- /cart/cart.go
package cart

import (
	"fmt"

	"example.com/shop/price"
)

func Total() string { return fmt.Sprint(price.Of()) }
//- /cart/cart_ext_test.go
package cart_test

import "example.com/shop/cart"

var _ = cart.Total
//- /price/price.go
package price

import "example.com/shop/cart"

func Of() int { _ = cart.Total; return 1 }
//- /price/util.go
package price

func helper() {}
//- /go.mod
module example.com/shop

go 1.22
//- /Cargo.toml
[package]
name = "shop"
version = "0.1.0"
edition = "2021"
//- /src/lib.rs
mod a;
mod b;
//- /src/a.rs
use crate::b::B;
pub struct A(pub B);
//- /src/b.rs
use crate::a::A;
pub struct B(pub Option<Box<A>>);
"#,
        &["SX012"],
        expect![[r#"
            cart/cart.go:6:2-6:26: SX012 import cycle: cart → price → cart
                price/price.go:3:8-3:31: price imports cart
            price/price.go:3:8-3:31: SX012 import cycle: price → cart → price
                cart/cart.go:6:2-6:26: cart imports price
        "#]],
    );
}

#[test]
fn import_cycles_can_be_suppressed_and_selected_in_the_configuration() {
    check(
        r#"
//- /a.py
import b  # sextant: ignore[SX012]
//- /b.py
import a
//- /sextant.toml
[check]
select = ["SX012", "SX013"]
"#,
        &[],
        expect![[r#"
            b.py:1:1-1:9: SX012 import cycle: b.py → a.py → b.py
                a.py:1:1-1:9: a.py imports b.py
        "#]],
    );
}
