//! The syntactic form of a Python name binding, read from the tree: what pyflakes calls an
//! `Assignment` (a plain or annotated `x = …`, `with … as x`, `x := …`, unpacking of a
//! literal tuple) is judged more strictly than other bindings (loop targets, unpacking),
//! and `x += 1` reads the name before it binds it again.
//!
//! Invariant: a pure function of the tree; anything it does not recognise is `Other`, the
//! form no check reports on.

use tree_sitter::Node;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// `x = …`, `x: T = …`, `x = y = …`, `with … as x`, `(x := …)`, `x, y = 1, 2`.
    Assignment,
    /// `x += …`: a use of the binding before it, then a binding.
    Augmented,
    /// `x: T` without a value: declares, binds nothing.
    Annotation,
    /// `except E as x`: bound in the handler only.
    Except,
    /// A function or class definition, or an import.
    Definition,
    /// Anything else: a loop target, an unpacking, a parameter, a pattern.
    Other,
}

/// The form of the binding whose name is `name` (an `identifier` node).
pub(super) fn form(name: Node) -> Form {
    let Some(parent) = name.parent() else {
        return Form::Other;
    };
    let is = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == name.id())
    };
    match parent.kind() {
        "assignment" if is("left") => match parent.child_by_field_name("right") {
            Some(_) => Form::Assignment,
            None => Form::Annotation,
        },
        "augmented_assignment" if is("left") => Form::Augmented,
        "named_expression" if is("name") => Form::Assignment,
        "function_definition" | "class_definition" if is("name") => Form::Definition,
        "dotted_name" | "aliased_import" if in_import(parent) => Form::Definition,
        "as_pattern_target" => {
            let statement = parent.parent().and_then(|p| p.parent());
            match statement.map(|s| s.kind()) {
                Some("with_item") => Form::Assignment,
                Some("except_clause" | "except_group_clause") => Form::Except,
                _ => Form::Other,
            }
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" => literal_unpacking(parent),
        _ => Form::Other,
    }
}

fn in_import(node: Node) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        match n.kind() {
            "import_statement" | "import_from_statement" => return true,
            "dotted_name" | "aliased_import" => current = n.parent(),
            _ => return false,
        }
    }
    false
}

/// `a, (b, c) = 1, (2, 3)`: pyflakes counts the targets of an unpacking whose every side is
/// a literal tuple or list as assignments; any other unpacking binds without judgment.
fn literal_unpacking(pattern: Node) -> Form {
    let mut node = pattern;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "pattern_list" | "tuple_pattern" | "list_pattern" => node = parent,
            "assignment" => {
                let left = parent.child_by_field_name("left");
                let right = parent.child_by_field_name("right");
                let literal =
                    right.is_some_and(|r| matches!(r.kind(), "tuple" | "list" | "expression_list"));
                return if left.is_some_and(|l| l.id() == node.id()) && literal {
                    Form::Assignment
                } else {
                    Form::Other
                };
            }
            _ => return Form::Other,
        }
    }
    Form::Other
}

/// The statement of `node`'s innermost enclosing statement kind among `kinds`.
pub(super) fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}
