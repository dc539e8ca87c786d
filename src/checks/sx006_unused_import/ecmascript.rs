//! SX006 in JavaScript, TypeScript and TSX: top-level imports no use in the file sees (a
//! JSX factory is kept in a file with JSX, a name in a JSDoc comment counts as a use).
//!
//! Invariant: reads the file's own names and tree, and of a TypeScript file with an unused
//! import, whether its nearest tsconfig keeps unused imports (manifests only).

use std::collections::HashSet;

use tree_sitter::Node;

use crate::{
    checks::{
        CheckContext, Diagnostic,
        fix::{C_LIKE_STATEMENTS, Fix, remove_list_item, remove_statement},
        registry::ids,
        sx005_undefined_name::ecmascript::visible_binding_scope,
        walk,
    },
    semantic::{
        imports::{FileImports, ImportSummary},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId},
        projects::keeps_unused_imports,
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
    // TypeScript drops an import statement whose names go unused, unless its tsconfig
    // keeps it (`verbatimModuleSyntax`): then it is JavaScript's case.
    let elided = ctx.lang == crate::lang::Family::TYPESCRIPT
        && !keeps_unused_imports(ctx.db, ctx.workspace, ctx.path());
    unused_imports(names, root, &text, unused, elided)
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
    root: Node,
    text: &str,
    candidates: Vec<(OccurrenceId, &ImportSummary)>,
    elided: bool,
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
        let range = names.occurrence(id).range;
        let fix = root
            .descendant_for_byte_range(range.start().into(), range.end().into())
            .and_then(|node| removal(node, text, &what, elided));
        found.push(
            Diagnostic::new(
                ids::UNUSED_IMPORT,
                range,
                format!("'{what}' imported from '{}' but unused", import.module),
            )
            .with_fix(fix),
        );
    }
    found
}

/// Whether the file has JSX, and the words of its comments (`{@link Name}`, `@jsx h`,
/// `@type {Name}` in JSDoc name imports too).
fn jsx_and_comment_words<'t>(root: Node, text: &'t str) -> (bool, HashSet<&'t str>) {
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

/// The fix removing the imported name at `name`: the specifier and its comma among
/// others; the braces with the comma before them when it was the last named import beside
/// a default one; a default or namespace import and its comma beside the rest; else the
/// whole statement. A statement removed whole in JavaScript no longer evaluates its module
/// (its side effects go), so that fix is unsafe there; TypeScript drops an import whose
/// names go unused when it compiles (`elided`, unless its tsconfig says otherwise), so it
/// is safe there, as is any `import type`.
fn removal(name: Node, text: &str, what: &str, elided: bool) -> Option<Fix> {
    let mut item = name;
    while !matches!(item.kind(), "import_specifier" | "namespace_import")
        && item.parent()?.kind() != "import_clause"
    {
        item = item.parent()?;
    }
    let clause = if item.kind() == "import_specifier" {
        item.parent()?.parent()?
    } else {
        item.parent()?
    };
    let statement = clause.parent().filter(|s| s.kind() == "import_statement")?;
    let mut cursor = clause.walk();
    let parts: Vec<Node> = clause.named_children(&mut cursor).collect();
    let title = format!("Remove unused import '{what}'");
    if item.kind() == "import_specifier" {
        let group = item.parent()?;
        let mut cursor = group.walk();
        let specifiers: Vec<Node> = group
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "import_specifier")
            .collect();
        let index = specifiers.iter().position(|n| n.id() == item.id())?;
        if specifiers.len() > 1 {
            let edit = remove_list_item(text, &specifiers, index)?;
            return Some(Fix::safe(title, vec![edit]));
        }
        if parts.len() > 1 {
            let at = parts.iter().position(|n| n.id() == group.id())?;
            let edit = remove_list_item(text, &parts, at)?;
            return Some(Fix::safe(title, vec![edit]));
        }
    } else if parts.len() > 1 {
        let at = parts.iter().position(|n| n.id() == item.id())?;
        let edit = remove_list_item(text, &parts, at)?;
        return Some(Fix::safe(title, vec![edit]));
    }
    let edit = remove_statement(text, statement, false, &C_LIKE_STATEMENTS)?;
    let type_only = text[statement.start_byte()..clause.start_byte()].contains("type");
    Some(match elided || type_only {
        true => Fix::safe(title, vec![edit]),
        false => Fix::unsafe_(title, vec![edit]),
    })
}
