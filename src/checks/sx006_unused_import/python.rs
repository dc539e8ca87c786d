//! SX006 in Python: imports nothing uses, by pyflakes's rule (F401): not in `__init__.py`,
//! not a re-export (`import a as a`, `__all__`), not an import a `try` guards.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::{
    checks::{
        CheckContext, Diagnostic,
        fix::{Fix, remove_list_item, remove_statement},
        python_helpers::{
            PYTHON_STATEMENTS, enclosing_block, import_of, in_try_catching,
            names_in_strings_and_comments, scopes_using, sole_statement_of_block, used_in_a_header,
        },
        registry::ids,
    },
    semantic::{
        imports::{FileImports, ImportSummary},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId, python},
    },
};

/// The import as pyflakes names it: `a.b`, `a.b as c`, `m.x`, `m.x as y`, `.m.x`.
fn describe(import: &ImportSummary) -> String {
    match &import.name {
        None => match &import.alias {
            Some(alias) if *alias != import.module => format!("{} as {alias}", import.module),
            _ => import.module.to_string(),
        },
        Some(name) => {
            let full = if import.module.ends_with('.') {
                format!("{}{name}", import.module)
            } else {
                format!("{}.{name}", import.module)
            };
            match &import.alias {
                Some(alias) if alias != name => format!("{full} as {alias}"),
                _ => full,
            }
        }
    }
}

pub(super) fn unused_imports(
    path: &str,
    names: &FileNames,
    imports: &FileImports,
    tree: &CheckContext,
) -> Vec<Diagnostic> {
    // A stub's imports are its interface.
    if path.ends_with(".pyi") {
        return Vec::new();
    }
    let is_init = path == "__init__.py" || path.ends_with("/__init__.py");
    let of = import_of(names, imports);
    // By name: the scopes whose binding some use sees.
    let mut used: HashMap<&str, HashSet<ScopeId>> = HashMap::new();
    let mut candidates: Vec<(OccurrenceId, &ImportSummary)> = Vec::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        if occurrence.role != Role::Definition(BindingKind::Import) {
            continue;
        }
        let name = names.name(id);
        let scope = match names.declaration(occurrence.scope, name) {
            Some(Role::Global) => 0,
            _ => occurrence.scope,
        };
        // Imports in a class body are its attributes (`self.Percolator`); a binding made
        // again later in its scope is replaced (pyflakes judges the last one only).
        if names.scopes[scope as usize].is_class || names.bindings(scope, name).last() != Some(&id)
        {
            continue;
        }
        let seen = used
            .entry(name)
            .or_insert_with(|| scopes_using(names, name));
        if seen.contains(&scope) {
            continue;
        }
        let Some(&import) = of.get(&id) else {
            continue;
        };
        let reexport = match (&import.name, &import.alias) {
            (Some(imported), Some(alias)) => imported == alias,
            (None, Some(alias)) => *alias == import.module,
            _ => false,
        };
        // `import a.b` beside `import a as x`: loads `a.b` for `x.b` (used through x).
        let loads_submodule = import.name.is_none()
            && import.alias.is_none()
            && import.module.contains('.')
            && imports.summaries.iter().any(|other| {
                let top = python::local_name(import);
                python::local_name(other) != top
                    && (other.module == top || other.module.starts_with(&format!("{top}.")))
            });
        if import.module == "__future__"
            || reexport
            || loads_submodule
            || (is_init && import.name.is_some())
        {
            continue;
        }
        candidates.push((id, import));
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let text = &*text;
    let mentioned = names_in_strings_and_comments(root, text);
    let mut found = Vec::new();
    for (id, import) in candidates {
        let range = names.occurrence(id).range;
        let name = names.name(id);
        if mentioned.contains(name) || used_in_a_header(names, root, id) {
            continue;
        }
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        if in_try_catching(node, text, &["ImportError", "ModuleNotFoundError"]) {
            continue;
        }
        let described = describe(import);
        let fix = removal(node, text, &described, is_init);
        found.push(
            Diagnostic::new(
                ids::UNUSED_IMPORT,
                range,
                format!("'{described}' imported but unused"),
            )
            .with_fix(fix),
        );
    }
    found
}

/// The fix removing the imported name at `name` from its statement: the name and its
/// comma when the statement imports others, else the whole statement (`pass` in its place
/// when it is its block's only statement). Unsafe in an `__init__.py`, where a package's
/// imports may be its interface.
fn removal(name: Node, text: &str, described: &str, is_init: bool) -> Option<Fix> {
    // A dunder (`from _impl import __version__`) is the module's own attribute, and an
    // import under `try` may be one branch of a fallback whose other branch binds it too:
    // neither is removed.
    let bound = name.utf8_text(text.as_bytes()).ok()?;
    if bound.starts_with("__") && bound.ends_with("__") {
        return None;
    }
    let mut ancestor = name.parent();
    while let Some(node) = ancestor {
        if node.kind() == "try_statement" {
            return None;
        }
        ancestor = node.parent();
    }
    let mut item = name;
    while let Some(parent) = item.parent() {
        if matches!(parent.kind(), "import_statement" | "import_from_statement") {
            break;
        }
        item = parent;
    }
    let statement = item.parent()?;
    let mut cursor = statement.walk();
    let items: Vec<Node> = statement
        .children_by_field_name("name", &mut cursor)
        .collect();
    let index = items.iter().position(|n| n.id() == item.id())?;
    let (edit, isolation) = if items.len() > 1 {
        (remove_list_item(text, &items, index)?, None)
    } else {
        let sole = sole_statement_of_block(statement);
        let edit = remove_statement(text, statement, sole, &PYTHON_STATEMENTS)?;
        (edit, enclosing_block(statement))
    };
    let title = format!("Remove unused import '{described}'");
    let fix = match is_init {
        true => Fix::unsafe_(title, vec![edit]),
        false => Fix::safe(title, vec![edit]),
    };
    Some(fix.isolated_in(isolation))
}
