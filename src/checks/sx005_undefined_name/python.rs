//! Python checks: undefined names (SX005), unused imports (SX006) and imports of workspace
//! modules that do not exist (SX003) here; in their own modules, imports of names a module
//! does not bind (SX004, `import_names.rs`), unused local variables (SX007,
//! `unused_variables.rs`), redefinitions of unused names (SX008, `redefinitions.rs`) and
//! repeated dictionary keys (SX009, `dict_keys.rs`), with the syntactic form of a binding
//! in `forms.rs`.
//!
//! Names are looked up in the file's own scopes (`file_names`) by Python's rules: a
//! function sees its own names, the enclosing functions', the module's and the builtins; a
//! class body's names are seen from the body itself (those bound before the use) and from
//! comprehensions directly inside it, not from its methods; a function's or class's header
//! (defaults, annotations, bases) is looked up from the scope around it. What the locals
//! query does not bind (an `except … as e` alias, PEP 695 type parameters, `type X = …`)
//! and the contexts that make a report wrong (a `try` that catches `NameError` or
//! `ImportError`, `__all__`, string annotations, type comments) are read from the file's
//! tree, parsed only when there is a candidate to judge.
//!
//! An undefined name that one module provides carries the fix importing it
//! (`missing_import.rs`).
//!
//! Invariant: reads the file's own queries and, of other files, only the position-free
//! module map (`python_modules`), imported modules' `module_names` and, for a fix, the
//! providers of an undefined name (`definers`); a file with a star import gets no
//! undefined-name reports, since any name may come from it.

use std::collections::HashSet;

use super::missing_import;
use crate::checks::{CheckContext, Diagnostic, python_helpers::*, registry::ids, walk};
use crate::semantic::{
    imports::FileImports,
    names::{FileNames, OccurrenceId, Role, ScopeId, python},
};

/// Names every Python module sees besides the builtins: pyflakes's magic globals, and a
/// class body's or method's own (`__module__`, `__qualname__`, `__class__`).
fn is_predeclared(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    if python::is_builtin(name) || name == "WindowsError" {
        return true;
    }
    matches!(name, "__module__" | "__qualname__" | "__class__")
        && names.enclosing_class(scope).is_some()
}

pub(super) fn undefined_names(
    names: &FileNames,
    imports: &FileImports,
    tree: &CheckContext,
) -> Vec<Diagnostic> {
    // Any name may come from a star import.
    if imports.summaries.iter().any(|i| i.wildcard) {
        return Vec::new();
    }
    // `global x` anywhere binds x in the module; `[y := …]` binds y around the
    // comprehension.
    let mut bound_elsewhere: HashSet<&str> = HashSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let comprehension_binding = matches!(occurrence.role, Role::Definition(_))
            && is_comprehension(names, occurrence.scope);
        if occurrence.role == Role::Global || comprehension_binding {
            bound_elsewhere.insert(names.name(id as OccurrenceId));
        }
    }
    let candidates: Vec<OccurrenceId> = (0..names.occurrences.len() as OccurrenceId)
        .filter(|&id| {
            let occurrence = names.occurrence(id);
            let name = names.name(id);
            occurrence.role.reads_binding()
                && !bound_elsewhere.contains(name)
                && !is_predeclared(names, occurrence.scope, name)
                && binding_scope(
                    names,
                    occurrence.scope,
                    name,
                    occurrence.range.start().into(),
                )
                .is_none()
        })
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let text = &*text;
    let unbound = names_bound_outside_locals(root, text);
    let mut found = Vec::new();
    for id in candidates {
        let occurrence = names.occurrence(id);
        let name = names.name(id);
        if unbound.contains(name) {
            continue;
        }
        let range = occurrence.range;
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        // `ast.Expr` in a case pattern is a dotted name: only its first part is a name.
        let later_part = node.parent().is_some_and(|p| {
            p.kind() == "dotted_name"
                && p.named_child(0)
                    .is_some_and(|first| first.id() != node.id())
        });
        if later_part || in_try_catching(node, text, &["NameError"]) || in_import(node) {
            continue;
        }
        // A header (defaults, annotations, bases) is evaluated in the scope around.
        if in_header(node) {
            let parent = names.scopes[occurrence.scope as usize].parent.unwrap_or(0);
            let at = u32::from(range.start());
            if is_predeclared(names, parent, name)
                || binding_scope(names, parent, name, at).is_some()
            {
                continue;
            }
        }
        let fix = missing_import::python(tree, names, root, text, name, node);
        found.push(
            Diagnostic::new(
                ids::UNDEFINED_NAME,
                range,
                format!("undefined name '{name}'"),
            )
            .with_fix(fix),
        );
    }
    found
}

/// Names bound by constructs the locals query leaves out: `except … as e`, PEP 695 type
/// parameters (`def f[T]`), `type X = …`.
fn names_bound_outside_locals<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    walk(root, &mut |node| {
        let bound = match node.kind() {
            "except_clause" => node.child_by_field_name("alias"),
            "type_parameter" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let name = match child.kind() {
                        "type" => child.named_child(0),
                        _ => Some(child),
                    };
                    if let Some(name) = name.filter(|n| n.kind() == "identifier") {
                        found.insert(&text[name.byte_range()]);
                    }
                }
                None
            }
            "type_alias_statement" => node.named_child(0).and_then(|t| t.named_child(0)),
            // `case C(key=value)`: a capture the query does not bind.
            "keyword_pattern" => node
                .named_child(1)
                .filter(|v| v.kind() == "dotted_name" && v.named_child_count() == 1)
                .and_then(|v| v.named_child(0)),
            _ => None,
        };
        if let Some(name) = bound.filter(|n| n.kind() == "identifier") {
            found.insert(&text[name.byte_range()]);
        }
        true
    });
    found
}
