//! The fixes of SX007 in JavaScript, TypeScript and TSX. A declarator whose value is inert
//! (absent, a literal, a function: evaluating it does nothing a program can see) is
//! removed, safely: its whole statement, or it and its comma among several. Any other
//! value is kept as an expression statement (`const x = f();` → `f();`), unsafe: the object
//! it makes is released sooner, which a finalizer or a weak reference can see. Neither is
//! offered when another declaration or an assignment of the name is in the function (the
//! assignment would write another variable), nor where the statement's neighbours would
//! join into one (a line starting with `(` after one without `;`).

use tree_sitter::Node;

use crate::checks::{
    fix::{C_LIKE_STATEMENTS, Fix, remove_list_item, remove_statement},
    node_range,
};

/// The fix of the unused variable named at `name` (the whole name of a declarator).
pub(super) fn fix(name: Node, text: &str) -> Option<Fix> {
    let declarator = name.parent()?;
    let declaration = declarator.parent()?;
    let block = declaration
        .parent()
        .filter(|p| p.kind() == "statement_block")?;
    let bound = &text[name.byte_range()];
    let title = format!("Remove unused variable '{bound}'");
    let value = declarator.child_by_field_name("value");
    let inert = value.is_none_or(is_inert);
    let declarators: Vec<Node> = named_children(declaration)
        .filter(|n| n.kind() == "variable_declarator")
        .collect();
    if declarators.len() > 1 {
        let index = declarators.iter().position(|d| d.id() == declarator.id())?;
        let edit = remove_list_item(text, &declarators, index).filter(|_| inert)?;
        return Some(Fix::safe(title, vec![edit]).isolated_in(Some(node_range(declaration))));
    }
    let previous_ends = previous_statement(declaration).is_none_or(|p| terminated(p, text));
    if inert {
        let next_continues =
            next_statement(declaration).is_some_and(|n| continues(&text[n.byte_range()]));
        if !previous_ends && next_continues {
            return None;
        }
        let edit = remove_statement(text, declaration, false, &C_LIKE_STATEMENTS)?;
        // Two removals from one block in one pass could join the statements around them.
        return Some(Fix::safe(title, vec![edit]).isolated_in(Some(node_range(block))));
    }
    let value = value?;
    let kept = &text[value.byte_range()];
    let wrapped = starts_a_declaration(kept);
    if !previous_ends && (wrapped || continues(kept)) {
        return None;
    }
    let start = (declaration.start_byte(), value.start_byte());
    let mut edits = vec![(crate::checks::fix::range(start.0, start.1), String::new())];
    if wrapped {
        edits[0].1.push('(');
        let end = value.end_byte();
        edits.push((crate::checks::fix::range(end, end), ")".to_string()));
    }
    Some(Fix::unsafe_(title, edits).isolated_in(Some(node_range(block))))
}

/// Whether evaluating `value` does nothing a program can see: a literal (a template
/// without substitutions), a function, an array or object of those, an operator or a type
/// assertion applied to one.
fn is_inert(value: Node) -> bool {
    match value.kind() {
        "number" | "string" | "true" | "false" | "null" | "regex" => true,
        "template_string" => !named_children(value).any(|c| c.kind() == "template_substitution"),
        "arrow_function" | "function_expression" | "function" | "generator_function" => true,
        "unary_expression" => value.child_by_field_name("argument").is_some_and(is_inert),
        "array" => named_children(value).all(|c| c.kind() == "comment" || is_inert(c)),
        "parenthesized_expression"
        | "as_expression"
        | "satisfies_expression"
        | "non_null_expression" => value.named_child(0).is_some_and(is_inert),
        "object" => named_children(value).all(|c| {
            c.kind() == "comment"
                || c.kind() == "pair"
                    && c.child_by_field_name("key").is_some_and(|k| {
                        matches!(k.kind(), "property_identifier" | "string" | "number")
                    })
                    && c.child_by_field_name("value").is_some_and(is_inert)
        }),
        _ => false,
    }
}

/// The statement before `statement` in its block, comments aside.
fn previous_statement(statement: Node) -> Option<Node> {
    let mut previous = statement.prev_named_sibling();
    while let Some(node) = previous.filter(|n| n.kind() == "comment") {
        previous = node.prev_named_sibling();
    }
    previous
}

fn next_statement(statement: Node) -> Option<Node> {
    let mut next = statement.next_named_sibling();
    while let Some(node) = next.filter(|n| n.kind() == "comment") {
        next = node.next_named_sibling();
    }
    next
}

/// Whether nothing after `statement` can continue it: it ends with `;`, or with the block
/// of a declaration.
fn terminated(statement: Node, text: &str) -> bool {
    text[statement.byte_range()].ends_with(';')
        || matches!(
            statement.kind(),
            "function_declaration"
                | "generator_function_declaration"
                | "class_declaration"
                | "statement_block"
        )
}

/// Whether a statement starting with `text` could continue an expression before it that
/// no `;` ends (`(`, `[`, a template, an operator, TypeScript's `<T>` assertion).
fn continues(text: &str) -> bool {
    text.starts_with(['(', '[', '`', '+', '-', '/', '*', '<', '.', ','])
}

/// Whether an expression statement starting with `text` would be read as something else
/// (a block, a declaration): it is kept in parentheses.
fn starts_a_declaration(text: &str) -> bool {
    let word = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .next()
        .unwrap_or_default();
    text.starts_with('{') || matches!(word, "function" | "class" | "let" | "async")
}

fn named_children(node: Node) -> impl Iterator<Item = Node> {
    (0..node.named_child_count()).filter_map(move |i| node.named_child(i as u32))
}
