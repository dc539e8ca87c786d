//! What several Python rules ask of a file's names and tree: which scope a use sees
//! (Python's rules for class bodies, comprehensions and headers), the import a binding
//! comes from, `try` blocks that catch an error, and names used where the locals query
//! does not look (strings and comments).

use std::collections::{HashMap, HashSet};

use super::walk;
use crate::semantic::{
    imports::{FileImports, ImportSummary},
    names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId, python},
};

/// The scopes whose binding of `name` some use (a read, a call, a type, a `del`) sees.
pub(crate) fn scopes_using(names: &FileNames, name: &str) -> HashSet<ScopeId> {
    names
        .occurrences_named(name)
        .filter(|&u| {
            let role = names.occurrence(u).role;
            role.reads_binding() || role == Role::Write
        })
        .filter_map(|u| {
            let use_ = names.occurrence(u);
            binding_scope(names, use_.scope, name, use_.range.start().into())
        })
        .collect()
}

/// Whether a use of the import `binding`'s name in a function's or class's header (a
/// parameter's annotation or default, a base) sees it: a header is evaluated in the scope
/// around, so `def f(pdb: pdb.Pdb)` uses the module's `pdb`.
pub(crate) fn used_in_a_header(
    names: &FileNames,
    root: tree_sitter::Node,
    binding: OccurrenceId,
) -> bool {
    let name = names.name(binding);
    let occurrence = names.occurrence(binding);
    let scope = match names.declaration(occurrence.scope, name) {
        Some(Role::Global) => 0,
        _ => occurrence.scope,
    };
    names.occurrences_named(name).any(|u| {
        let use_ = names.occurrence(u);
        let Some(parent) = names.scopes[use_.scope as usize].parent else {
            return false;
        };
        let (start, end) = (use_.range.start().into(), use_.range.end().into());
        use_.role.reads_binding()
            && root
                .descendant_for_byte_range(start, end)
                .is_some_and(in_header)
            && binding_scope(names, parent, name, start as u32) == Some(scope)
    })
}

/// Names used where the locals query does not look: listed in `__all__`, written in a
/// string annotation (`x: "Foo"`, `cast("Foo", v)`) or in a type comment (`# type: Foo`).
pub(crate) fn names_in_strings_and_comments<'t>(
    root: tree_sitter::Node,
    text: &'t str,
) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    let words = |node: tree_sitter::Node, found: &mut HashSet<&'t str>| {
        for word in text[node.byte_range()].split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() {
                found.insert(word);
            }
        }
    };
    walk(root, &mut |node| {
        match node.kind() {
            "comment"
                if text[node.byte_range()]
                    .trim_start_matches(['#', ' '])
                    .starts_with("type:") =>
            {
                words(node, &mut found);
            }
            "string" if in_annotation_or_all(node, text) => words(node, &mut found),
            _ => {}
        }
        true
    });
    found
}

/// Whether a string is in an annotation, in a value given to `__all__`, or an argument of
/// `cast`/`TypeVar` (whose strings name types).
pub(crate) fn in_annotation_or_all(string: tree_sitter::Node, text: &str) -> bool {
    let mut node = string;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "type" => return true,
            // `__all__ = [...]`, and `X: TypeAlias = "A | B"` (a type written as a string).
            "assignment" | "augmented_assignment" => {
                let left = parent.child_by_field_name("left");
                let alias = parent
                    .child_by_field_name("type")
                    .is_some_and(|t| text[t.byte_range()].ends_with("TypeAlias"));
                return alias || left.is_some_and(|left| &text[left.byte_range()] == "__all__");
            }
            "call" => {
                let callee = parent
                    .child_by_field_name("function")
                    .map_or("", |f| &text[f.byte_range()]);
                if callee.starts_with("__all__.")
                    || matches!(
                        callee.rsplit('.').next(),
                        Some("cast" | "TypeVar" | "NewType")
                    )
                {
                    return true;
                }
            }
            "block" | "module" => return false,
            _ => {}
        }
        node = parent;
    }
    false
}

/// Whether `node` is inside a `try` block (its body, not a handler) with a handler that
/// catches one of `errors` (or everything: a bare `except`, `Exception`, `BaseException`).
pub(crate) fn in_try_catching(node: tree_sitter::Node, text: &str, errors: &[&str]) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if parent.kind() == "try_statement"
            && parent
                .child_by_field_name("body")
                .is_some_and(|body| body.id() == child.id())
            && catches(parent, text, errors)
        {
            return true;
        }
        child = parent;
    }
    false
}

pub(crate) fn catches(try_statement: tree_sitter::Node, text: &str, errors: &[&str]) -> bool {
    let mut cursor = try_statement.walk();
    try_statement
        .named_children(&mut cursor)
        .filter(|c| matches!(c.kind(), "except_clause" | "except_group_clause"))
        .any(|handler| {
            let Some(value) = handler.child_by_field_name("value").or_else(|| {
                // An `except_group_clause` holds its type as the first named child.
                (handler.kind() == "except_group_clause")
                    .then(|| handler.named_child(0))
                    .flatten()
                    .filter(|c| c.kind() != "block")
            }) else {
                return true;
            };
            let caught = &text[value.byte_range()];
            caught
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| errors.contains(&word) || matches!(word, "Exception" | "BaseException"))
        })
}

/// Whether `node` is part of an import statement (`from __future__ import annotations`
/// names a feature, not a variable).
pub(crate) fn in_import(node: tree_sitter::Node) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        if matches!(
            n.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        ) {
            return true;
        }
        current = n.parent();
    }
    false
}

/// Whether `node` is in the header of the innermost function, lambda or class around it
/// (not in its body): its defaults, annotations and bases.
pub(crate) fn in_header(node: tree_sitter::Node) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if matches!(
            parent.kind(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            return parent
                .child_by_field_name("body")
                .is_some_and(|body| body.id() != child.id())
                && parent
                    .child_by_field_name("name")
                    .is_none_or(|name| name.id() != child.id());
        }
        child = parent;
    }
    false
}

/// The import each import binding of `names` comes from: the statement holding it, and
/// among that statement's imports the one binding the same name (in order, when several
/// do: `import a.b, a.c`).
pub(crate) fn import_of<'i>(
    names: &FileNames,
    imports: &'i FileImports,
) -> HashMap<OccurrenceId, &'i ImportSummary> {
    let mut found = HashMap::new();
    let mut taken: HashSet<usize> = HashSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        if occurrence.role != Role::Definition(BindingKind::Import) {
            continue;
        }
        let name = names.name(id as OccurrenceId);
        let matched = imports
            .statements
            .iter()
            .zip(imports.summaries.iter())
            .enumerate()
            .find(|(i, (statement, summary))| {
                statement.contains_range(occurrence.range)
                    && !taken.contains(i)
                    && python::local_name(summary) == name
            });
        if let Some((i, (_, summary))) = matched {
            taken.insert(i);
            found.insert(id as OccurrenceId, summary);
        }
    }
    found
}

/// A comprehension or generator expression: it sees the class body it is written in
/// (Python evaluates its first iterable there; pyflakes lets it see all of the body).
pub(crate) fn is_comprehension(names: &FileNames, scope: ScopeId) -> bool {
    let info = &names.scopes[scope as usize];
    if scope == 0 || info.is_class || info.named_by.is_some() {
        return false;
    }
    let start = u32::from(info.range.start());
    !names.text_between(start, start + 6).starts_with("lambda")
}

/// The scope whose binding of `name` a use at offset `at` in scope `from` sees, by
/// Python's rules; `None` when no scope binds it (a builtin, or undefined).
pub(crate) fn binding_scope(
    names: &FileNames,
    from: ScopeId,
    name: &str,
    at: u32,
) -> Option<ScopeId> {
    let mut scope = Some(from);
    let mut sees_class = true;
    let mut nonlocal = false;
    while let Some(current) = scope {
        let info = &names.scopes[current as usize];
        let visible = !info.is_class || sees_class;
        if visible && (!nonlocal || (current != 0 && !info.is_class)) {
            let declared = (current != 0)
                .then(|| names.declaration(current, name))
                .flatten();
            match declared {
                // `global x` makes x the module's, bound or not (as pyflakes has it).
                Some(Role::Global) => return Some(0),
                Some(Role::Nonlocal) => nonlocal = true,
                _ => {
                    let bindings = names.bindings(current, name);
                    let bound = if info.is_class {
                        bindings.iter().any(|&b| names.bound_at(b, at))
                    } else {
                        !bindings.is_empty()
                    };
                    if bound {
                        return Some(current);
                    }
                }
            }
        }
        sees_class = is_comprehension(names, current);
        scope = info.parent;
    }
    None
}

/// How Python separates statements on a line, and what stands in for an empty block.
pub(crate) const PYTHON_STATEMENTS: crate::checks::fix::StatementSyntax =
    crate::checks::fix::StatementSyntax {
        separator: ';',
        line_comment: "#",
        placeholder: Some("pass"),
    };

/// Whether `statement` is the only statement of the block it is in (removing it would
/// leave the block empty, which Python does not allow).
pub(crate) fn sole_statement_of_block(statement: tree_sitter::Node) -> bool {
    let Some(parent) = statement.parent() else {
        return false;
    };
    if parent.kind() == "module" {
        return false;
    }
    let mut cursor = parent.walk();
    parent
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .count()
        == 1
}

/// The block `statement` is removed from, when it is a nested block (a function's or a
/// loop's body): a fix removing it is isolated there, so that two removals applied in one
/// pass never leave the block empty.
pub(crate) fn enclosing_block(statement: tree_sitter::Node) -> Option<crate::syntax::TextRange> {
    statement
        .parent()
        .filter(|parent| parent.kind() == "block")
        .map(crate::checks::node_range)
}
