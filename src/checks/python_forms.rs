//! The syntactic form of a Python name binding, read from the tree: what pyflakes calls an
//! `Assignment` (a plain or annotated `x = …`, `with … as x`, `x := …`, unpacking of a
//! literal tuple) is judged more strictly than other bindings (loop targets, unpacking),
//! and `x += 1` reads the name before it binds it again.
//!
//! Invariant: a pure function of the tree; anything it does not recognise is `Other`, the
//! form no check reports on.

use tree_sitter::Node;

use crate::semantic::names::{FileNames, OccurrenceId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
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
pub(crate) fn form(name: Node) -> Form {
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
pub(crate) fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// The form of the variable binding `id`, judged from the text around its name without the
/// tree: `None` when only the tree can tell (an annotation, `as`, an unpacking whose value
/// may be a literal tuple). Checks use it to leave most files unparsed.
pub(crate) fn form_from_text(names: &FileNames, id: OccurrenceId) -> Option<Form> {
    let occurrence = names.occurrence(id);
    let (start, end) = (
        u32::from(occurrence.range.start()),
        u32::from(occurrence.range.end()),
    );
    let length = u32::from(names.scopes[0].range.end());
    // `text_between` is empty off a character boundary: widen until it is one.
    let before = (80..84)
        .map(|n| names.text_between(start.saturating_sub(n), start))
        .find(|t| !t.is_empty())
        .unwrap_or_default()
        .trim_end_matches([' ', '\t']);
    if before.ends_with("as")
        && before[..before.len() - 2].ends_with(|c: char| c.is_whitespace() || c == ')')
    {
        return None;
    }
    let after = (4..8)
        .map(|n| names.text_between(end, end.saturating_add(n).min(length)))
        .find(|t| !t.is_empty())
        .unwrap_or_default()
        .trim_start_matches([' ', '\t']);
    const AUGMENTED: [&str; 13] = [
        "+=", "-=", "*=", "/=", "//=", "%=", "**=", ">>=", "<<=", "&=", "^=", "|=", "@=",
    ];
    if AUGMENTED.iter().any(|op| after.starts_with(op)) {
        return Some(Form::Augmented);
    }
    if after.starts_with(":=") || (after.starts_with('=') && !after.starts_with("==")) {
        return Some(Form::Assignment);
    }
    if after.starts_with(':') {
        return None;
    }
    let in_assignment = occurrence.effective > end;
    if !in_assignment {
        return Some(Form::Other);
    }
    // An unpacking: a literal tuple or list on the right (`a, b = b, a`) makes its targets
    // assignments; a call or a name does not.
    let statement = names.text_between(end, occurrence.effective);
    let mut depth = 0i32;
    let mut value = None;
    let bytes = statement.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth <= 0
                && bytes.get(i + 1) != Some(&b'=')
                && !matches!(
                    i.checked_sub(1).map(|p| bytes[p]),
                    Some(b'=' | b'<' | b'>' | b'!')
                ) =>
            {
                value = Some(&statement[i + 1..]);
                break;
            }
            b'"' | b'\'' => return None,
            _ => {}
        }
    }
    let value = value?.trim_start();
    let mut depth = 0i32;
    for c in value.bytes() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => return None,
            b'"' | b'\'' => return None,
            _ => {}
        }
    }
    if value.starts_with(['(', '[', '{']) {
        return None;
    }
    Some(Form::Other)
}
