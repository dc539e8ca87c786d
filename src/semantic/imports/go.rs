//! Go import rules (what queries cannot say). An import path names a package, and a Go
//! package is a directory: an import resolves to the package's first file in path order
//! that is not a `_test.go` file ([`go_packages`], a tracked query over paths only).
//!
//! The modules an import path can lead into: the module of the nearest `go.mod` above the
//! importing file (its `module` path at its directory), the modules of the directories the
//! nearest `go.work` `use`s, and the `replace` directives of both that point at a
//! directory of the workspace (the replaced module path at that directory). The longest
//! module path that is the import path or a prefix of it at a `/` wins, and the rest of the
//! import path is the package's directory under the module's; a package there without Go
//! files is unresolved. Otherwise, an import path whose first element has no dot is the
//! standard library's: its package in the workspace when a workspace `go.mod` is `module
//! std` (Go's own `src`) and holds that directory, else external (the whole path); one under a module the nearest `go.mod`
//! `require`s is external (that module path), and anything else is unresolved.

use std::{collections::HashMap, sync::Arc};

use super::{ImportSummary, Target};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::projects::{Project, ProjectKind, paths, projects},
};

/// Each directory holding Go files (`""` for the root) and the file an import of it leads
/// to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct GoPackages {
    packages: HashMap<String, SourceFile>,
    /// Every Go file of each directory, `_test.go` files included, in path order.
    files: HashMap<String, Vec<SourceFile>>,
}

impl GoPackages {
    /// The file that stands for the package in directory `dir`.
    pub fn package(&self, dir: &str) -> Option<SourceFile> {
        self.packages.get(dir).copied()
    }

    /// The Go files of directory `dir` (the files of one package, or of a package and its
    /// external `_test` package).
    pub fn files(&self, dir: &str) -> &[SourceFile] {
        self.files.get(dir).map_or(&[], Vec::as_slice)
    }
}

#[salsa::tracked(returns(clone))]
pub fn go_packages(db: &dyn Db, workspace: Workspace) -> Arc<GoPackages> {
    let mut packages = GoPackages::default();
    // Files come sorted by path, so the first file of a directory is the first seen.
    for &file in workspace.files(db).iter() {
        let path = file.path(db);
        if file.lang(db).info().family != Family::Go {
            continue;
        }
        let dir = paths::parent(path).to_string();
        packages.files.entry(dir).or_default().push(file);
        if path.ends_with("_test.go") {
            continue;
        }
        packages
            .packages
            .entry(paths::parent(path).to_string())
            .or_insert(file);
    }
    Arc::new(packages)
}

/// The workspace module `import_path` (imported by `file`) lies under, as (module path, its
/// directory), by the longest module path; `None` for paths outside every workspace module.
fn workspace_module(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import_path: &str,
) -> Option<(String, String)> {
    let projects = projects(db, workspace);
    let importer = file.path(db).as_str();
    let module = nearest(&projects, ProjectKind::GoModule, importer);
    let work = nearest(&projects, ProjectKind::GoWork, importer);

    // (module path, its directory) for every module the import may lead into.
    let mut modules: Vec<(&str, String)> = Vec::new();
    if let Some(m) = module {
        modules.extend(m.name.as_deref().map(|name| (name, dir_of(&m.root))));
    }
    if let Some(details) = work.and_then(|w| w.go_work.as_ref()) {
        for dir in details.use_dirs.iter().flatten() {
            let used = projects
                .iter()
                .find(|p| p.kind == ProjectKind::GoModule && p.root == *dir);
            if let Some(name) = used.and_then(|p| p.name.as_deref()) {
                modules.push((name, dir_of(dir)));
            }
        }
    }
    let replaces = module
        .and_then(|m| m.go_module.as_ref())
        .map(|d| &d.replace)
        .into_iter()
        .chain(work.and_then(|w| w.go_work.as_ref()).map(|d| &d.replace))
        .flatten();
    for replace in replaces {
        if let Some(dir) = &replace.dir {
            modules.push((replace.old.as_str(), dir_of(dir)));
        }
    }
    modules
        .into_iter()
        .filter(|(name, _)| under(import_path, name))
        .max_by_key(|(name, _)| name.len())
        .map(|(name, dir)| (name.to_string(), dir))
}

/// `import_path` is `prefix` or lies under it at a `/`.
fn under(import_path: &str, prefix: &str) -> bool {
    import_path == prefix
        || import_path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `import_path`, imported by `file`, names a package of a workspace module (so an
/// unresolved one is missing from the workspace, not merely outside it).
pub fn is_workspace_import(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import_path: &str,
) -> bool {
    workspace_module(db, workspace, file, import_path).is_some()
}

/// Where `import` (one of `file`'s, a Go file) leads.
pub(super) fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    let import_path = import.module.as_str();
    if let Some((name, dir)) = workspace_module(db, workspace, file, import_path) {
        let rest = import_path[name.len()..].trim_start_matches('/');
        let package = paths::join(&dir, rest).and_then(|d| go_packages(db, workspace).package(&d));
        return match package {
            Some(file) => Target::Resolved { file, symbol: None },
            None => Target::Unresolved,
        };
    }
    let first = import_path.split('/').next().unwrap_or_default();
    let projects = projects(db, workspace);
    if !first.is_empty() && !first.contains('.') {
        // The standard library's own source (GOROOT's `src`, whose go.mod is `module std`)
        // holds its packages at their import paths; `cmd`'s packages import them from there.
        let std = projects
            .iter()
            .find(|p| p.kind == ProjectKind::GoModule && p.name.as_deref() == Some("std"));
        let package = std
            .and_then(|p| paths::join(&dir_of(&p.root), import_path))
            .and_then(|d| go_packages(db, workspace).package(&d));
        return match package {
            Some(file) => Target::Resolved { file, symbol: None },
            None => Target::External {
                package: import_path.to_string(),
            },
        };
    }
    let module = nearest(&projects, ProjectKind::GoModule, file.path(db));
    let required = module
        .and_then(|m| m.go_module.as_ref())
        .into_iter()
        .flat_map(|d| &d.requires)
        .filter(|r| under(import_path, &r.path))
        .max_by_key(|r| r.path.len());
    match required {
        Some(r) => Target::External {
            package: r.path.clone(),
        },
        None => Target::Unresolved,
    }
}

/// The project of `kind` whose root is the deepest directory above `path`.
fn nearest<'p>(projects: &'p [Project], kind: ProjectKind, path: &str) -> Option<&'p Project> {
    projects
        .iter()
        .filter(|p| p.kind == kind)
        .filter(|p| {
            let root = dir_of(&p.root);
            root.is_empty() || path.starts_with(&format!("{root}/"))
        })
        .max_by_key(|p| dir_of(&p.root).len())
}

/// A project root as a directory: `"."` → `""`.
fn dir_of(root: &str) -> String {
    if root == "." {
        String::new()
    } else {
        root.to_string()
    }
}
