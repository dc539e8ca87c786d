//! Where an undefined name could be imported from: per name, the workspace files that
//! define it publicly at their top level (Python: a `def`, `class` or assignment whose name
//! does not start with `_`) or export it by name (JavaScript, TypeScript: `export function
//! f`, `export { f }`), for the fix that adds the missing import (SX005).
//!
//! A name some file imports from a module outside the workspace (`from _weakref import
//! proxy`) or binds as an import's alias is marked as naming another object too, so no
//! workspace definition is taken for it.
//!
//! How the workspace's own imports write each Python module ([`python_module_spellings`])
//! decides between names that lead an importer to the same module.
//!
//! Invariant (incremental): [`python_definitions`] depends on its own file alone and holds
//! no position; the workspace indexes read only those answers, [`module_facts`]'s exports,
//! the position-free `file_imports` and the path-built module maps; [`definers`] answers for one name, so a check that asked about `area` is
//! re-run only when the files defining `area` change, and an edit inside a body (or a
//! blank line) re-runs none of them; [`python_module_spellings`] answers for one module.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
};

use super::ecmascript::module_facts;
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        imports::{ImportSummary, Target, file_imports, python_modules, resolve},
        names::{BindingKind, Role, file_names_unkept},
    },
};

/// The public names a Python file binds at its top level by `def`, `class` or assignment
/// (not by import: a name imported from elsewhere is offered from where it is defined).
/// The index asks this of every Python file at once, so the file's name table is not kept
/// (`file_names_unkept`): kept, the tables of a 148.9 MB tree's 1,796 Python files took
/// 135 MB until the check next stepped aside.
#[salsa::tracked(returns(clone))]
pub fn python_definitions(db: &dyn Db, file: SourceFile) -> Arc<BTreeSet<Box<str>>> {
    let names = file_names_unkept(db, file);
    let mut found = BTreeSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let defined = matches!(
            occurrence.role,
            Role::Definition(BindingKind::Function | BindingKind::Class | BindingKind::Variable)
        );
        let name = names.name(id as u32);
        if defined && occurrence.scope == 0 && !name.starts_with('_') {
            found.insert(name.into());
        }
    }
    Arc::new(found)
}

/// The files that could provide a name, those that are tests apart: a test's helpers are
/// offered only to other tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definers {
    pub files: Vec<SourceFile>,
    pub tests: Vec<SourceFile>,
    /// Some workspace file imports the name from a module outside the workspace (`from
    /// _weakref import proxy`) or under an alias: it names an object no workspace
    /// definition accounts for.
    pub elsewhere: bool,
}

impl Definers {
    /// The files a file (a test or not) may import the name from.
    pub fn for_importer(&self, importer_is_test: bool) -> Vec<SourceFile> {
        let mut found = self.files.clone();
        if importer_is_test {
            found.extend(&self.tests);
        }
        found
    }
}

/// Name -> the files providing it, for one language family.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DefinerIndex {
    by_name: HashMap<Box<str>, Definers>,
}

/// The language families whose files can provide a name to import.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImportFamily {
    Python,
    Ecmascript,
}

/// Every name the workspace's files of `family` provide (see the module doc).
#[salsa::tracked(returns(clone))]
pub fn definer_index(db: &dyn Db, workspace: Workspace, family: ImportFamily) -> Arc<DefinerIndex> {
    let mut index = DefinerIndex::default();
    for &file in workspace.files(db).iter() {
        let path = file.path(db);
        let provided: Vec<Box<str>> = match (family, file.lang(db).info().family) {
            (ImportFamily::Python, Family::Python) if importable_python(path) => {
                python_definitions(db, file).iter().cloned().collect()
            }
            (ImportFamily::Ecmascript, Family::Ecma { .. }) if !path.ends_with(".d.ts") => {
                let facts = module_facts(db, file);
                let exports = facts.exports.as_deref().unwrap_or_default();
                exports
                    .iter()
                    .filter(|n| &***n != "default")
                    .cloned()
                    .collect()
            }
            _ => continue,
        };
        for name in imported_from_elsewhere(db, workspace, file) {
            index.by_name.entry(name).or_default().elsewhere = true;
        }
        let test = is_test_path(path);
        for name in provided {
            let entry = index.by_name.entry(name).or_default();
            match test {
                true => entry.tests.push(file),
                false => entry.files.push(file),
            }
        }
    }
    Arc::new(index)
}

/// The files of `family` providing `name`: what a check reads, so that it depends on this
/// name's answer only.
#[salsa::tracked(returns(clone))]
pub fn definers(db: &dyn Db, workspace: Workspace, family: ImportFamily, name: String) -> Definers {
    definer_index(db, workspace, family)
        .by_name
        .get(name.as_str())
        .cloned()
        .unwrap_or_default()
}

/// Every workspace Python module some file imports by an absolute name, with the names it
/// is written by (`app.models` for `from app.models import Invoice`, `import app.models`
/// and `from app import models`), each as that file's import resolves it: the fix adding a
/// missing import writes a module as the workspace does.
#[salsa::tracked(returns(clone))]
pub fn python_import_spellings(
    db: &dyn Db,
    workspace: Workspace,
) -> Arc<HashMap<SourceFile, Vec<Box<str>>>> {
    let modules = python_modules(db, workspace);
    let mut found: HashMap<SourceFile, Vec<Box<str>>> = HashMap::new();
    for &file in workspace.files(db).iter() {
        if file.lang(db).info().family != Family::Python {
            continue;
        }
        let path = file.path(db);
        for import in file_imports(db, file).iter() {
            if import.module.starts_with('.') {
                continue;
            }
            let submodule = import
                .name
                .as_deref()
                .filter(|_| !import.wildcard)
                .map(|name| format!("{}.{name}", import.module));
            for written in std::iter::once(import.module.to_string()).chain(submodule) {
                if let Some(module) = modules.absolute_module(path, &written) {
                    let names = found.entry(module).or_default();
                    if !names.iter().any(|n| **n == *written) {
                        names.push(written.into());
                    }
                }
            }
        }
    }
    Arc::new(found)
}

/// The names the workspace's imports of the Python module `file` write (see
/// [`python_import_spellings`]): what a check reads, so that it depends on this module's
/// answer only.
#[salsa::tracked(returns(clone))]
pub fn python_module_spellings(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<[Box<str>]> {
    python_import_spellings(db, workspace)
        .get(&file)
        .map(|names| names.as_slice().into())
        .unwrap_or_default()
}

/// The names `file` binds by an import that makes them another object's name: one from a
/// module the workspace does not hold, or one under an alias (`from .pygram import
/// python_symbols as syms`: `syms` there is not the workspace's other `syms`).
fn imported_from_elsewhere(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Box<str>> {
    let mut found = Vec::new();
    for import in file_imports(db, file).iter() {
        let Some(name) = import.name.as_deref().filter(|_| !import.wildcard) else {
            continue;
        };
        if let Some(alias) = import.alias.as_deref().filter(|&a| a != name) {
            found.push(alias.into());
            continue;
        }
        // The module alone: naming the name would read the target's positions.
        let module = ImportSummary {
            module: import.module.clone(),
            ..ImportSummary::default()
        };
        if !matches!(
            resolve(db, workspace, file, &module),
            Target::Resolved { .. }
        ) {
            found.push(name.into());
        }
    }
    found
}

/// A Python file another module would import by name: not a script run by path
/// (`setup.py`, `__main__.py`, `conftest.py`), not a stub.
fn importable_python(path: &str) -> bool {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    path.ends_with(".py") && !matches!(file_name, "setup.py" | "__main__.py" | "conftest.py")
}

/// Whether a path is a test's, by the usual layouts: a `test`, `tests` or `__tests__`
/// directory, `test_*.py`, `*_test.py`, `*.test.ts`, `*.spec.js`.
pub fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let file_name = parts.next_back().unwrap_or(path);
    if parts.any(|dir| matches!(dir, "test" | "tests" | "__tests__")) {
        return true;
    }
    let stem = file_name.split('.').next().unwrap_or(file_name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || file_name.contains(".test.")
        || file_name.contains(".spec.")
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_paths() {
        assert!(is_test_path("tests/helpers.py"));
        assert!(is_test_path("pkg/test_area.py"));
        assert!(is_test_path("pkg/area_test.py"));
        assert!(is_test_path("src/area.test.ts"));
        assert!(is_test_path("src/__tests__/area.js"));
        assert!(!is_test_path("pkg/testing.py"));
        assert!(!is_test_path("src/contest.ts"));
    }
}
