//! SX006 in JavaScript, TypeScript and TSX: top-level imports no use in the file sees (a
//! JSX factory is kept in a file with JSX, a name in a JSDoc comment counts as a use).

use std::collections::HashSet;

use crate::{
    checks::{
        CheckContext, Diagnostic, registry::ids,
        sx005_undefined_name::ecmascript::visible_binding_scope, walk,
    },
    semantic::{
        imports::{FileImports, ImportSummary},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId},
    },
};

pub(super) fn check(ctx: &CheckContext) -> Vec<Diagnostic> {
    let names = ctx.names();
    let unused = unused_candidates(names, &ctx.symbols().imports);
    if unused.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = ctx.root() else {
        return Vec::new();
    };
    unused_imports(names, root, &text, unused)
}

/// Top-level import bindings of `import` statements (not `export … from`) that no use in
/// the file sees, each with the import it comes from.
fn unused_candidates<'i>(
    names: &FileNames,
    imports: &'i FileImports,
) -> Vec<(OccurrenceId, &'i ImportSummary)> {
    let mut found = Vec::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        if occurrence.role != Role::Definition(BindingKind::Import) || occurrence.scope != 0 {
            continue;
        }
        let name = names.name(id);
        let Some(import) = imports
            .statements
            .iter()
            .zip(imports.summaries.iter())
            .find(|(statement, summary)| {
                statement.contains_range(occurrence.range) && local_name(summary) == Some(name)
            })
            .map(|(_, summary)| summary)
        else {
            continue;
        };
        if import.is_public {
            continue;
        }
        let used = names.occurrences_named(name).any(|u| {
            let use_ = names.occurrence(u);
            use_.role.reads_binding() && sees_module_binding(names, use_.scope, name)
        });
        if !used {
            found.push((id, import));
        }
    }
    found
}

/// The name an import binds in the file: its alias, else the name it imports.
fn local_name(import: &ImportSummary) -> Option<&str> {
    import.alias.as_deref().or(import.name.as_deref())
}

/// Whether a use of `name` in `scope` sees the module's binding (no scope between binds
/// it).
fn sees_module_binding(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    matches!(visible_binding_scope(names, scope, name), None | Some(0))
}

/// Names a JSX factory may need in scope (the classic runtime's `React.createElement`, or a
/// `jsxFactory` such as Preact's `h`), kept when the file has JSX.
const JSX_FACTORIES: &[&str] = &["React", "h", "Fragment", "jsx", "createElement", "Preact"];

fn unused_imports(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    candidates: Vec<(OccurrenceId, &ImportSummary)>,
) -> Vec<Diagnostic> {
    let (has_jsx, mentioned) = jsx_and_comment_words(root, text);
    let mut found = Vec::new();
    for (id, import) in candidates {
        let name = names.name(id);
        if mentioned.contains(name) || (has_jsx && JSX_FACTORIES.contains(&name)) {
            continue;
        }
        let what = match &import.name {
            Some(imported) if imported != name => format!("{imported} as {name}"),
            _ => name.to_string(),
        };
        found.push(Diagnostic::new(
            ids::UNUSED_IMPORT,
            names.occurrence(id).range,
            format!("'{what}' imported from '{}' but unused", import.module),
        ));
    }
    found
}

/// Whether the file has JSX, and the words of its comments (`{@link Name}`, `@jsx h`,
/// `@type {Name}` in JSDoc name imports too).
fn jsx_and_comment_words<'t>(root: tree_sitter::Node, text: &'t str) -> (bool, HashSet<&'t str>) {
    let mut has_jsx = false;
    let mut words = HashSet::new();
    walk(root, &mut |node| {
        match node.kind() {
            "comment" => words.extend(
                text[node.byte_range()]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|w| !w.is_empty()),
            ),
            kind if kind.starts_with("jsx_") => has_jsx = true,
            _ => {}
        }
        true
    });
    (has_jsx, words)
}
