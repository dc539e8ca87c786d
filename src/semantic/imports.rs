//! Imports per file (from `queries/<lang>/imports.scm`, run in the same walk as the tags
//! query: see `symbols.rs`) and where they lead.
//!
//! Capture conventions (see `queries/README.md`): `@import` the statement, `@module` the
//! module as written (`a.b`; Python's relative `..a` and `.` included), `@name` a name
//! imported from it, `@alias` the local name given with `as`, `@wildcard` for `*`.
//!
//! Invariant (early cutoff): [`file_imports`] is position-free, so an edit that only moves
//! a file's imports leaves every query over other files valid; [`python_modules`] reads
//! paths and manifests, never texts. Resolution ([`resolve`]) runs per request.
//!
//! Python rules (what queries cannot say): a module is a file under a source root (the
//! workspace root, and the `source_roots` of each Python project), `a/b.py` or
//! `a/b/__init__.py` for `a.b`; a relative import counts its dots upwards from the
//! importing file's directory; `from m import x` is the submodule `m.x` when one exists,
//! else the name `x` in `m`. A module the workspace does not hold is external when it is in
//! the standard library (`grammars/python-stdlib-modules.txt`), else unresolved.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, LazyLock},
};

use serde::Serialize;

use super::{
    projects::{paths, projects},
    symbols::file_symbols,
};
use crate::{
    db::{Db, SourceFile, Workspace},
    syntax::TextRange,
};

/// One imported module or name, as written, without positions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ImportSummary {
    /// The module as written: `a.b`, or relative `..a` / `.`.
    pub module: String,
    /// The name imported from the module (`from m import name`); none for `import m`.
    pub name: Option<String>,
    /// The local name given with `as`.
    pub alias: Option<String>,
    /// `from m import *`.
    pub wildcard: bool,
}

/// The imports of one file and their statements' ranges, in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileImports {
    pub summaries: Arc<[ImportSummary]>,
    /// The whole statement of each import (several imports may share one).
    pub statements: Arc<[TextRange]>,
}

/// Gathers the imports of one file from the matches of its imports patterns.
#[derive(Default)]
pub(crate) struct ImportCollector {
    /// (statement start, item start) orders the imports as written.
    found: Vec<((usize, usize), ImportSummary, TextRange)>,
}

impl ImportCollector {
    /// Records one match of an imports pattern; `names` are the query's capture names.
    pub(crate) fn add(&mut self, m: &tree_sitter::QueryMatch<'_, '_>, names: &[&str], text: &str) {
        // Token boundaries are character boundaries; `get` keeps a surprise from panicking.
        let node_text =
            |node: tree_sitter::Node| text.get(node.byte_range()).unwrap_or_default().to_string();
        let (mut statement, mut module, mut item) = (None, None, None);
        let mut summary = ImportSummary {
            module: String::new(),
            name: None,
            alias: None,
            wildcard: false,
        };
        for capture in m.captures() {
            let node = capture.node;
            match names[capture.index as usize] {
                "import" => statement = Some(node),
                "module" => {
                    module = Some(node);
                    summary.module = node_text(node);
                }
                "name" => {
                    item = Some(node);
                    summary.name = Some(node_text(node));
                }
                "alias" => summary.alias = Some(node_text(node)),
                "wildcard" => {
                    item = Some(node);
                    summary.wildcard = true;
                }
                _ => {}
            }
        }
        let (Some(statement), Some(module)) = (statement, module) else {
            return;
        };
        let at = item.unwrap_or(module).start_byte();
        let range = TextRange::new(
            (statement.start_byte() as u32).into(),
            (statement.end_byte() as u32).into(),
        );
        self.found
            .push(((statement.start_byte(), at), summary, range));
    }

    pub(crate) fn finish(mut self) -> FileImports {
        self.found.sort_by_key(|(order, _, _)| *order);
        self.found.dedup_by_key(|(order, _, _)| *order);
        let (summaries, statements): (Vec<ImportSummary>, Vec<TextRange>) =
            self.found.into_iter().map(|(_, s, r)| (s, r)).unzip();
        FileImports {
            summaries: summaries.into(),
            statements: statements.into(),
        }
    }
}

/// The position-free imports of a file; backdates when an edit only moved them.
#[salsa::tracked(returns(clone))]
pub fn file_imports(db: &dyn Db, file: SourceFile) -> Arc<[ImportSummary]> {
    file_symbols(db, file).imports.summaries.clone()
}

/// Python module names of the workspace's Python files, under every source root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PythonModules {
    modules: HashMap<String, SourceFile>,
    paths: HashMap<String, SourceFile>,
}

impl PythonModules {
    pub fn module(&self, name: &str) -> Option<SourceFile> {
        self.modules.get(name).copied()
    }

    /// The file of a workspace-relative path.
    fn path(&self, path: &str) -> Option<SourceFile> {
        self.paths.get(path).copied()
    }
}

#[salsa::tracked(returns(clone), no_eq)]
pub fn python_modules(db: &dyn Db, workspace: Workspace) -> Arc<PythonModules> {
    let mut roots: Vec<String> = vec![String::new()];
    for project in projects(db, workspace).iter() {
        for root in project.python.iter().flat_map(|p| &p.source_roots) {
            let root = if root == "." {
                String::new()
            } else {
                root.clone()
            };
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    let mut modules = PythonModules::default();
    for &file in workspace.files(db).iter() {
        if !is_python_module(db, file) {
            continue;
        }
        let path = file.path(db);
        modules.paths.insert(path.clone(), file);
        for root in &roots {
            let under = if root.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(root.as_str())
                    .and_then(|p| p.strip_prefix('/'))
            };
            if let Some(name) = under.and_then(module_name) {
                modules.modules.entry(name).or_insert(file);
            }
        }
    }
    Arc::new(modules)
}

/// Files whose imports name Python modules (`import_style` in the registry).
fn is_python_module(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().import_style == "python-module"
}

/// `a/b.py` → `a.b`, `a/b/__init__.py` → `a.b`; `None` for names Python cannot import.
fn module_name(path: &str) -> Option<String> {
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))?;
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    if stem == "__init__"
        || stem
            .split('/')
            .any(|part| part.is_empty() || part.contains('.'))
    {
        return None;
    }
    Some(stem.replace('/', "."))
}

/// Where one import leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A workspace file, and the index of the named definition in it when one is named and
    /// the file defines it at top level.
    Resolved {
        file: SourceFile,
        symbol: Option<u32>,
    },
    /// Outside the workspace: the standard library module named.
    External {
        package: String,
    },
    Unresolved,
}

static PYTHON_STDLIB: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../grammars/python-stdlib-modules.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
});

/// Where `import` (one of `file`'s) leads.
pub fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    if !is_python_module(db, file) {
        return Target::Unresolved;
    }
    let modules = python_modules(db, workspace);
    let level = import.module.chars().take_while(|&c| c == '.').count();
    let rest = &import.module[level..];
    let module = if level == 0 {
        modules.module(rest)
    } else {
        relative_module(&modules, file.path(db), level, rest)
    };
    let Some(module) = module else {
        let top = rest.split('.').next().unwrap_or_default();
        return if level == 0 && PYTHON_STDLIB.contains(top) {
            Target::External {
                package: top.to_string(),
            }
        } else {
            Target::Unresolved
        };
    };
    let Some(name) = &import.name else {
        return Target::Resolved {
            file: module,
            symbol: None,
        };
    };
    // `from m import x`: the submodule `m.x` first, as Python's import system does.
    let submodule = if level == 0 {
        modules.module(&format!("{rest}.{name}"))
    } else {
        let inner = if rest.is_empty() {
            name.clone()
        } else {
            format!("{rest}.{name}")
        };
        relative_module(&modules, file.path(db), level, &inner)
    };
    if let Some(submodule) = submodule {
        return Target::Resolved {
            file: submodule,
            symbol: None,
        };
    }
    let symbol = file_symbols(db, module)
        .summaries
        .iter()
        .position(|s| s.parent.is_none() && s.name == *name)
        .map(|i| i as u32);
    Target::Resolved {
        file: module,
        symbol,
    }
}

/// The module `rest` (dotted, possibly empty) seen from `importer` with `level` dots.
fn relative_module(
    modules: &PythonModules,
    importer: &str,
    level: usize,
    rest: &str,
) -> Option<SourceFile> {
    let up = "../".repeat(level - 1);
    let base = paths::join(paths::parent(importer), &(up + &rest.replace('.', "/")))?;
    let package = ["__init__.py", "__init__.pyi"].map(|init| paths::join(&base, init));
    let module = [".py", ".pyi"].map(|ext| (!rest.is_empty()).then(|| format!("{base}{ext}")));
    module
        .into_iter()
        .chain(package)
        .flatten()
        .find_map(|candidate| modules.path(&candidate))
}

#[cfg(test)]
mod tests {
    use super::module_name;

    #[test]
    fn module_names_of_paths() {
        assert_eq!(module_name("a/b.py").as_deref(), Some("a.b"));
        assert_eq!(module_name("a/b/__init__.py").as_deref(), Some("a.b"));
        assert_eq!(module_name("m.pyi").as_deref(), Some("m"));
        assert_eq!(module_name("__init__.py"), None);
        assert_eq!(module_name("a.b/c.py"), None);
        assert_eq!(module_name("a/b.txt"), None);
    }
}
