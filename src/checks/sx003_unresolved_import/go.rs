//! SX003 in Go: imports of workspace packages that do not exist. The walk over the
//! imports is shared with SX006 (`sx006_unused_import/go.rs`): an import of a package that
//! does not exist is not judged unused.
//!
//! Invariant: reads the file's own tree and, of other files, only position-free facts: the
//! package map (`go_packages`), manifests, and [`go_file_facts`] (which backdates when an
//! edit changes no package-level name).

use std::{collections::HashSet, sync::LazyLock};

use crate::checks::{Diagnostic, node_range, registry::ids};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        facts::go::go_file_facts,
        imports::{self, ImportSummary, Target, go_packages, is_workspace_import},
        names::go::import_name,
        projects::paths,
    },
};

static STD_ROOTS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/go-std.txt")));

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    imports(db, workspace, file, tree, ids::UNRESOLVED_IMPORT)
}

pub(crate) fn unused_imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    imports(db, workspace, file, tree, ids::UNUSED_IMPORT)
}

/// The findings of code `id` (SX003 or SX006) over the file's imports.
fn imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
    id: &str,
) -> Vec<Diagnostic> {
    let text = &*file.text(db);
    let root = tree.root_node();
    let mut specs = Vec::new();
    let mut used: HashSet<&str> = HashSet::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() == "import_declaration" {
            let mut inner = child.walk();
            for spec in child.named_children(&mut inner) {
                match spec.kind() {
                    "import_spec" => specs.push(spec),
                    "import_spec_list" => {
                        let mut list = spec.walk();
                        specs.extend(
                            spec.named_children(&mut list)
                                .filter(|s| s.kind() == "import_spec"),
                        );
                    }
                    _ => {}
                }
            }
        } else {
            identifiers(child, text, &mut used);
        }
    }
    let mut found = Vec::new();
    for spec in specs {
        let Some(path_node) = spec.child_by_field_name("path") else {
            continue;
        };
        let written = text.get(path_node.byte_range()).unwrap_or_default();
        let path = written
            .get(1..written.len().saturating_sub(1))
            .unwrap_or_default();
        if path.is_empty() || path == "C" {
            continue;
        }
        let alias = spec.child_by_field_name("name");
        let import = ImportSummary {
            module: path.into(),
            alias: alias.map(|a| text[a.byte_range()].into()),
            ..ImportSummary::default()
        };
        let target = imports::resolve(db, workspace, file, &import);
        if target == Target::Unresolved && is_workspace_import(db, workspace, file, path) {
            if id != ids::UNRESOLVED_IMPORT {
                continue;
            }
            found.push(Diagnostic::new(
                ids::UNRESOLVED_IMPORT,
                node_range(path_node),
                format!("no package '{path}' in the workspace"),
            ));
            continue;
        }
        if id != ids::UNUSED_IMPORT {
            continue;
        }
        let name = match alias {
            Some(a) if a.kind() == "package_identifier" => Some(text[a.byte_range()].to_string()),
            Some(_) => continue,
            None => match target {
                Target::Resolved { file: target, .. } => package_of(db, workspace, target),
                Target::External { .. } if is_std(path) => Some(import_name(path).to_string()),
                _ => None,
            },
        };
        let Some(name) = name else { continue };
        if id == ids::UNUSED_IMPORT && !used.contains(name.as_str()) {
            let message = if alias.is_some() || name != import_name(path) {
                format!("\"{path}\" imported as {name} and not used")
            } else {
                format!("\"{path}\" imported and not used")
            };
            found.push(Diagnostic::new(
                ids::UNUSED_IMPORT,
                node_range(spec),
                message,
            ));
        }
    }
    found
}

/// The package name of the workspace package `file` stands for: the one `package` clause of
/// its directory's files that are built everywhere and are not tests (a generator beside
/// them is often `//go:build ignore` and `package main`); `None` when that is not one name.
fn package_of(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Option<String> {
    let dir = paths::parent(file.path(db));
    let packages = go_packages(db, workspace);
    let mut names = packages
        .files(dir)
        .iter()
        .filter(|f| !f.path(db).ends_with("_test.go"))
        .map(|&f| go_file_facts(db, f))
        .filter(|facts| !facts.constrained)
        .map(|facts| facts.package.clone());
    let first = names.next()??;
    names
        .all(|n| n.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// A standard library path: its first element is one of the standard library's, without a
/// dot (module paths outside it have a domain first).
fn is_std(path: &str) -> bool {
    let first = path.split('/').next().unwrap_or(path);
    STD_ROOTS.contains(first)
}

/// Every identifier written under `node` (what a package name can be used as).
fn identifiers<'t>(node: tree_sitter::Node, text: &'t str, used: &mut HashSet<&'t str>) {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if matches!(current.kind(), "identifier" | "package_identifier") {
            used.insert(text.get(current.byte_range()).unwrap_or_default());
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node().id() == node.id() {
                return;
            }
        }
    }
}
