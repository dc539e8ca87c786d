//! `return`, `yield`, `await`, `break` and `continue` outside their context (SX011), in
//! Python, JavaScript, TypeScript, Go and Rust: one walk of the file's tree-sitter tree that
//! carries what the enclosing code allows (a function, a generator, an async function, a
//! loop, a `switch`, a label) and resets it where the language starts a new context
//! (a function, a closure, a class body, an async block).
//!
//! Invariant: reads the file's own tree only. Where a construct is allowed in some mode of
//! the language (top-level `await` in notebooks and modules, `return` at the top of a
//! CommonJS module, `yield` and `await` as identifiers in sloppy scripts, labelled jumps),
//! the context is unknown and nothing is reported.

use crate::checks::{Diagnostic, node_range, registry::ids};
use crate::lang::Family;

/// What the code at a point allows: `Some(false)` forbids, `None` is unknown (nothing is
/// reported).
#[derive(Clone, Copy, Debug)]
struct Ctx {
    returns: Option<bool>,
    yields: Option<bool>,
    awaits: Option<bool>,
    /// Inside a loop's body: `break` and `continue`.
    in_loop: bool,
    /// Inside a `switch` or `select`: `break`.
    breakable: bool,
    /// Inside a labelled statement (JavaScript: `break label` out of any statement).
    labeled: bool,
}

impl Ctx {
    fn top(lang: Family) -> Ctx {
        let python = match lang {
            Family::Python => true,
            Family::Ecma { .. } | Family::Go | Family::Rust => false,
        };
        Ctx {
            // A module may not return or yield in Python; top-level `await` runs in
            // notebooks (and in ES modules), and scripts may name a variable `yield`.
            returns: python.then_some(false),
            yields: python.then_some(false),
            awaits: None,
            in_loop: false,
            breakable: false,
            labeled: false,
        }
    }

    /// A new function body (loops and labels do not reach into it).
    fn function(returns: Option<bool>, yields: Option<bool>, awaits: Option<bool>) -> Ctx {
        Ctx {
            returns,
            yields,
            awaits,
            in_loop: false,
            breakable: false,
            labeled: false,
        }
    }

    fn looping(self) -> Ctx {
        Ctx {
            in_loop: true,
            breakable: true,
            ..self
        }
    }
}

/// The context of a node's children: `body` for the child in field `field` (all children
/// when `None`), `rest` for the others.
struct Enter {
    field: Option<&'static str>,
    body: Ctx,
    rest: Ctx,
}

impl Enter {
    fn all(ctx: Ctx) -> Enter {
        Enter {
            field: None,
            body: ctx,
            rest: ctx,
        }
    }

    fn body(field: &'static str, body: Ctx, rest: Ctx) -> Enter {
        Enter {
            field: Some(field),
            body,
            rest,
        }
    }
}

pub(super) fn check(lang: Family, tree: &tree_sitter::Tree, text: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut stack = vec![(tree.root_node(), Ctx::top(lang))];
    while let Some((node, ctx)) = stack.pop() {
        if let Some((keyword, message)) = misplaced(lang, node, ctx, text) {
            found.push(Diagnostic::new(
                ids::OUTSIDE_CONTEXT,
                node_range(keyword),
                message.to_string(),
            ));
        }
        let enter = enter(lang, node, ctx);
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            continue;
        }
        loop {
            let child = cursor.node();
            if child.is_named() {
                let inner = match enter.field {
                    None => enter.body,
                    Some(field) if cursor.field_name() == Some(field) => enter.body,
                    Some(_) => enter.rest,
                };
                stack.push((child, inner));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    found
}

/// Whether `node` has an anonymous child token `token` (`async`, `*`).
fn has_token(node: tree_sitter::Node, token: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == token)
}

/// The context `node` gives its children.
fn enter(lang: Family, node: tree_sitter::Node, ctx: Ctx) -> Enter {
    match lang {
        Family::Python => enter_python(node, ctx),
        Family::Ecma { .. } => enter_ecmascript(node, ctx),
        Family::Go => enter_go(node, ctx),
        Family::Rust => enter_rust(node, ctx),
    }
}

/// [`enter`] in Python.
fn enter_python(node: tree_sitter::Node, ctx: Ctx) -> Enter {
    let kind = node.kind();
    match kind {
        "function_definition" => {
            let body = Ctx::function(Some(true), Some(true), Some(has_token(node, "async")));
            Enter::body("body", body, ctx)
        }
        // `lambda: (yield)` is a generator; `await` there is judged by the interpreter.
        "lambda" => Enter::body("body", Ctx::function(None, Some(true), None), ctx),
        "class_definition" => {
            Enter::body("body", Ctx::function(Some(false), Some(false), None), ctx)
        }
        // A comprehension is a function of its own: `yield` is an error of its own
        // kind there, and `await` makes an async generator expression.
        "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression" => Enter::all(Ctx {
            yields: None,
            awaits: None,
            ..ctx
        }),
        // The `else` clause of a loop is outside it.
        "for_statement" | "while_statement" => Enter::body("body", ctx.looping(), ctx),
        _ => Enter::all(ctx),
    }
}

/// [`enter`] in JavaScript and TypeScript.
fn enter_ecmascript(node: tree_sitter::Node, ctx: Ctx) -> Enter {
    let kind = node.kind();
    match kind {
        "function_declaration"
        | "function_expression"
        | "function"
        | "generator_function_declaration"
        | "generator_function"
        | "arrow_function"
        | "method_definition" => {
            let generator = kind.starts_with("generator") || has_token(node, "*");
            let body = Ctx::function(Some(true), Some(generator), Some(has_token(node, "async")));
            // Parameters' defaults: judged by the engine.
            let rest = Ctx::function(None, None, None);
            Enter::body("body", body, rest)
        }
        // Field initializers are judged by the engine; methods start anew.
        "class_body" => Enter::all(Ctx::function(None, None, None)),
        "class_static_block" => Enter::all(Ctx::function(Some(false), Some(false), Some(false))),
        "for_statement" | "for_in_statement" | "while_statement" | "do_statement" => {
            Enter::body("body", ctx.looping(), ctx)
        }
        "switch_statement" => Enter::body(
            "body",
            Ctx {
                breakable: true,
                ..ctx
            },
            ctx,
        ),
        "labeled_statement" => Enter::all(Ctx {
            labeled: true,
            ..ctx
        }),
        _ => Enter::all(ctx),
    }
}

/// [`enter`] in Go.
fn enter_go(node: tree_sitter::Node, ctx: Ctx) -> Enter {
    let kind = node.kind();
    match kind {
        "function_declaration" | "method_declaration" | "func_literal" => {
            Enter::body("body", Ctx::function(Some(true), None, None), ctx)
        }
        "for_statement" => Enter::body("body", ctx.looping(), ctx),
        "expression_switch_statement" | "type_switch_statement" | "select_statement" => {
            Enter::all(Ctx {
                breakable: true,
                ..ctx
            })
        }
        _ => Enter::all(ctx),
    }
}

/// [`enter`] in Rust.
fn enter_rust(node: tree_sitter::Node, ctx: Ctx) -> Enter {
    let kind = node.kind();
    match kind {
        "function_item" => {
            let modifiers = node
                .named_children(&mut node.walk())
                .find(|c| c.kind() == "function_modifiers");
            let is_async = modifiers.is_some_and(|m| has_token(m, "async"));
            Enter::body("body", Ctx::function(Some(true), None, Some(is_async)), ctx)
        }
        "closure_expression" => Enter::body(
            "body",
            Ctx::function(Some(true), None, Some(has_token(node, "async"))),
            ctx,
        ),
        "async_block" => Enter::all(Ctx::function(Some(true), None, Some(true))),
        "const_item" | "static_item" | "const_block" => Enter::all(Ctx::function(None, None, None)),
        "loop_expression" | "while_expression" | "for_expression" => {
            Enter::body("body", ctx.looping(), ctx)
        }
        _ => Enter::all(ctx),
    }
}

/// The keyword to report and the message, when `node` is out of its context.
fn misplaced<'t>(
    lang: Family,
    node: tree_sitter::Node<'t>,
    ctx: Ctx,
    text: &str,
) -> Option<(tree_sitter::Node<'t>, &'static str)> {
    let keyword = node.child(0)?;
    let labeled = || {
        node.child_by_field_name("label").is_some()
            || node
                .named_child(0)
                .is_some_and(|c| matches!(c.kind(), "label" | "label_name"))
    };
    let message = match (lang, node.kind()) {
        (Family::Python, "return_statement") if ctx.returns == Some(false) => {
            "'return' outside function"
        }
        (Family::Python, "yield") if ctx.yields == Some(false) => "'yield' outside function",
        (Family::Python, "await") if ctx.awaits == Some(false) => "'await' outside async function",
        (Family::Python, "break_statement") if !ctx.in_loop => "'break' outside loop",
        (Family::Python, "continue_statement") if !ctx.in_loop => "'continue' not properly in loop",
        (Family::Ecma { .. }, "break_statement") => {
            let label = node.child_by_field_name("label");
            if label.is_some() {
                if ctx.labeled {
                    return None;
                }
                "'break' to a label that no statement around it has"
            } else if ctx.in_loop || ctx.breakable {
                return None;
            } else {
                "'break' outside a loop or switch"
            }
        }
        (Family::Ecma { .. }, "continue_statement") => {
            let label = node.child_by_field_name("label");
            if label.is_some() {
                if ctx.labeled {
                    return None;
                }
                "'continue' to a label that no statement around it has"
            } else if ctx.in_loop {
                return None;
            } else {
                "'continue' outside a loop"
            }
        }
        // A sloppy script may call a function named `yield` or `await`: only an operand on
        // the keyword's line that a call cannot be is sure.
        (Family::Ecma { .. }, "yield_expression") if ctx.yields == Some(false) => {
            let operand = node.named_child(0)?;
            if operand.start_position().row != keyword.start_position().row {
                return None;
            }
            "'yield' outside a generator function"
        }
        (Family::Ecma { typescript }, "await_expression") if ctx.awaits == Some(false) => {
            let operand = node.named_child(0)?;
            let operand_text = text.get(operand.byte_range()).unwrap_or_default();
            if operand.start_position().row != keyword.start_position().row
                || (!typescript && operand_text.starts_with('('))
            {
                return None;
            }
            "'await' outside an async function"
        }
        (Family::Go, "break_statement") if !ctx.breakable && !labeled() => {
            "break is not in a loop, switch, or select"
        }
        (Family::Go, "continue_statement") if !ctx.in_loop && !labeled() => {
            "continue is not in a loop"
        }
        (Family::Rust, "break_expression") if !ctx.in_loop && !labeled() => {
            "'break' outside of a loop"
        }
        (Family::Rust, "continue_expression") if !ctx.in_loop && !labeled() => {
            "'continue' outside of a loop"
        }
        (Family::Rust, "await_expression") if ctx.awaits == Some(false) => {
            let mut cursor = node.walk();
            let keyword = node.children(&mut cursor).find(|c| c.kind() == "await")?;
            return Some((
                keyword,
                "'await' is only allowed inside async functions and blocks",
            ));
        }
        _ => return None,
    };
    Some((keyword, message))
}

pub(super) fn run(ctx: &super::CheckContext) -> Vec<Diagnostic> {
    match ctx.tree() {
        Some(tree) => check(ctx.lang, tree, &ctx.text()),
        None => Vec::new(),
    }
}
