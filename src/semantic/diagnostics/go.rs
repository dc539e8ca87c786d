//! Go checks: unused imports (SX006: a compile error in Go) and imports of workspace
//! packages that do not exist (SX003), and the per-file facts the package-wide duplicate
//! check (`duplicates.rs`) compares: a file's package clause, build constraints and
//! package-level names ([`go_file_facts`]).
//!
//! An import is unused when its package name appears nowhere in the file outside the import
//! declarations. The name is only judged when it is known: an alias, the one `package`
//! clause of the workspace package's files built everywhere (not tests), or the last element of a standard library
//! path (`grammars/go-std.txt`; `…/v2` skipped); `_`, `.` and `"C"` imports never.
//!
//! Invariant: reads the file's own tree and, of other files, only position-free facts: the
//! package map (`go_packages`), manifests, and [`go_file_facts`] (which backdates when an
//! edit changes no package-level name).

use std::{
    collections::HashSet,
    sync::{Arc, LazyLock},
};

use super::{Diagnostic, node_range, registry::ids};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, ImportSummary, Target, go_packages, is_workspace_import},
        names::go::{import_name, package_name},
        projects::paths,
        symbols::{SymbolKind, symbol_summaries},
        syntax_errors,
    },
};

static PLATFORMS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/go-platforms.txt")));

static STD_ROOTS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/go-std.txt")));

/// What other files of a package need to know of one Go file, without positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct GoFileFacts {
    /// The `package` clause.
    pub package: Option<String>,
    /// Built for some platforms or tags only (`//go:build`, `// +build`, `_GOOS`/`_GOARCH`
    /// file name suffixes).
    pub constrained: bool,
    /// Parsed without syntax errors (names found by error recovery are guesses).
    pub parses: bool,
    /// Package-level names, sorted: functions, types, constants, variables, and methods as
    /// `Type.Method`; not `init` or `_`.
    pub names: Vec<String>,
}

#[salsa::tracked(returns(clone))]
pub(super) fn go_file_facts(db: &dyn Db, file: SourceFile) -> Arc<GoFileFacts> {
    let text = file.text(db);
    let mut names: Vec<String> = symbol_summaries(db, file)
        .iter()
        .filter(|s| s.parent.is_none())
        .filter_map(|s| match s.kind {
            // Methods named `_` may repeat.
            SymbolKind::Method if s.name == "_" => None,
            SymbolKind::Method => s.container.as_ref().map(|c| format!("{c}.{}", s.name)),
            _ => Some(s.name.clone()),
        })
        .filter(|n| n != "_" && n != "init")
        .collect();
    names.sort();
    names.dedup();
    Arc::new(GoFileFacts {
        package: package_name(text).map(str::to_string),
        constrained: has_build_constraint(text) || has_platform_suffix(file.path(db)),
        parses: syntax_errors(db, file).is_empty(),
        names,
    })
}

/// A `//go:build` or `// +build` line before the package clause.
fn has_build_constraint(text: &str) -> bool {
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("package ") {
            return false;
        }
        if line.starts_with("//go:build") || line.starts_with("// +build") {
            return true;
        }
    }
    false
}

/// `name_GOOS.go`, `name_GOARCH.go`, `name_GOOS_GOARCH.go`, each with an optional `_test`
/// (go/build's rule: only what follows the first `_` counts).
fn has_platform_suffix(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let name = name.split('.').next().unwrap_or(name);
    let Some(at) = name.find('_') else {
        return false;
    };
    // What follows the first `_`, split: `["", "GOOS", "GOARCH"]` (the first part is empty).
    let mut parts: Vec<&str> = name[at..].split('_').collect();
    if parts.last() == Some(&"test") {
        parts.pop();
    }
    // `_GOOS_GOARCH` ends in an architecture too, so the last part decides.
    parts.len() >= 2 && parts.last().is_some_and(|p| PLATFORMS.contains(p))
}

/// Whether the go tool builds the file at `path` at all: not under `testdata`, and no
/// element starting with `_` or `.`.
pub(super) fn is_built(path: &str) -> bool {
    path.split('/')
        .all(|e| e != "testdata" && !e.starts_with('_') && !e.starts_with('.'))
}

/// The package-level names a Go file declares, with their name nodes, in document order
/// (as [`GoFileFacts::names`] spells them).
pub(super) fn top_level_names<'t>(
    root: tree_sitter::Node<'t>,
    text: &str,
) -> Vec<(String, tree_sitter::Node<'t>)> {
    let written = |n: tree_sitter::Node| text.get(n.byte_range()).unwrap_or_default().to_string();
    let mut names = Vec::new();
    let mut cursor = root.walk();
    for declaration in root.named_children(&mut cursor) {
        match declaration.kind() {
            "function_declaration" => {
                names.extend(
                    declaration
                        .child_by_field_name("name")
                        .map(|n| (written(n), n)),
                );
            }
            "method_declaration" => {
                let receiver = declaration
                    .child_by_field_name("receiver")
                    .and_then(receiver_type);
                let name = declaration
                    .child_by_field_name("name")
                    .filter(|n| text.get(n.byte_range()) != Some("_"));
                if let (Some(receiver), Some(name)) = (receiver, name) {
                    names.push((format!("{}.{}", written(receiver), written(name)), name));
                }
            }
            "type_declaration" | "const_declaration" | "var_declaration" => {
                let mut specs = Vec::new();
                let mut inner = declaration.walk();
                for spec in declaration.named_children(&mut inner) {
                    if spec.kind() == "var_spec_list" {
                        let mut list = spec.walk();
                        specs.extend(spec.named_children(&mut list));
                    } else {
                        specs.push(spec);
                    }
                }
                for spec in specs {
                    if !matches!(
                        spec.kind(),
                        "type_spec" | "type_alias" | "const_spec" | "var_spec"
                    ) {
                        continue;
                    }
                    let mut inner = spec.walk();
                    names.extend(
                        spec.children_by_field_name("name", &mut inner)
                            .filter(|n| n.is_named())
                            .map(|n| (written(n), n)),
                    );
                }
            }
            _ => {}
        }
    }
    names.retain(|(name, _)| name != "_" && name != "init");
    names
}

/// The base type name of a method's receiver list (`(l *List[T])` → `List`).
fn receiver_type(list: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let parameter = list.named_child(0)?;
    let mut ty = parameter.child_by_field_name("type")?;
    loop {
        ty = match ty.kind() {
            "type_identifier" => return Some(ty),
            "pointer_type" | "parenthesized_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    let text = &**file.text(db);
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
            module: path.to_string(),
            alias: alias.map(|a| text[a.byte_range()].to_string()),
            ..ImportSummary::default()
        };
        let target = imports::resolve(db, workspace, file, &import);
        if target == Target::Unresolved && is_workspace_import(db, workspace, file, path) {
            found.push(Diagnostic::new(
                ids::UNRESOLVED_IMPORT,
                node_range(path_node),
                format!("no package '{path}' in the workspace"),
            ));
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
        if !used.contains(name.as_str()) {
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
