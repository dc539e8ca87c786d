//! Python import rules (what queries cannot say): a module is a file under a source root (the
//! workspace root, and the `source_roots` of each Python project), `a/b.py` or
//! `a/b/__init__.py` for `a.b`; a relative import counts its dots upwards from the
//! importing file's directory; `from m import x` is the submodule `m.x` when one exists
//! (`m` may then be a namespace package, a directory without `__init__.py`), else the name
//! `x` in `m`. A namespace package has no file; `import a.b` binds it as `a` when `a` is one,
//! and code reaches its submodules by their dotted names (`a.b.X`), also where the
//! namespace package lies inside a regular package (`a/b` without `__init__.py` in `a`) or
//! a relative `from . import b` binds it. A module no source root holds is external when it is in the standard library
//! (`grammars/python-stdlib-modules.txt`); else it is looked for under the importing file's
//! ancestor directories that are not packages, nearest first, where Python would find it
//! when it runs the file as a script (`services/billing/app/main.py` importing `app.models`
//! from `services/billing`); else it is unresolved. `absolute_import` is the one place that
//! decides; everything that resolves an import goes through it.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, LazyLock},
};

use super::{ImportSummary, Target, top_level_symbol};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::projects::{paths, projects},
};

/// Python module names of the workspace's Python files, under every source root.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PythonModules {
    modules: HashMap<String, SourceFile>,
    paths: HashMap<String, SourceFile>,
    /// Every directory holding a Python file at any depth (not the workspace root), and
    /// every Python file's path without its suffix: what a module's first part must be
    /// under a directory that holds the module, so that the search of an importer's
    /// directories passes over the others with one lookup each; and where no module file
    /// has a name, the directories that make it a namespace package.
    stems: HashSet<String>,
    /// The source roots (`""` for the workspace root).
    roots: Vec<String>,
}

impl PythonModules {
    pub fn module(&self, name: &str) -> Option<SourceFile> {
        self.modules.get(name).copied()
    }

    /// The dotted name `importer` writes an absolute import of `file` (at `path`) with: of
    /// its [`import_names`](Self::import_names), one whose root is not inside a package (a
    /// `setup.py` deep in a package tree makes a root there, which Python never runs from),
    /// then one of those the workspace's own imports of `file` write (`written`, asked only
    /// when there is a choice: a service whose `app` is no package, and so is a directory
    /// its scripts may run from too, writes `app.models`, not `models`), then the shortest
    /// (`pkg.mod` for `src/pkg/mod.py`, not `src.pkg.mod`; a manifest-less service's own
    /// `app.models`, not `services.billing.app.models`, which the service running from its
    /// directory could not import).
    pub fn import_name(
        &self,
        importer: &str,
        file: SourceFile,
        path: &str,
        written: impl FnOnce() -> Arc<[Box<str>]>,
    ) -> Option<String> {
        let stem = path
            .strip_suffix(".py")
            .or_else(|| path.strip_suffix(".pyi"))?;
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let inside_a_package = |name: &str| {
            let root = stem
                .strip_suffix(&name.replace('.', "/"))
                .unwrap_or_default();
            let init = format!("{root}__init__.py");
            !root.is_empty() && self.paths.contains_key(&init)
        };
        let names: Vec<String> = self.import_names(importer, file, path).collect();
        if names.len() < 2 {
            return names.into_iter().next();
        }
        let written = written();
        names.into_iter().min_by_key(|name| {
            let parts = name.matches('.').count();
            let unwritten = !written.iter().any(|w| **w == **name);
            (
                inside_a_package(name),
                unwritten,
                parts,
                name.len(),
                name.clone(),
            )
        })
    }

    /// Every dotted name that leads `importer` to `file` (at `path`) by [`absolute_import`]'s
    /// rules and an import statement can spell: one per source root holding it, and one per
    /// directory a script of `importer`'s runs from.
    pub fn import_names<'m>(
        &'m self,
        importer: &'m str,
        file: SourceFile,
        path: &'m str,
    ) -> impl Iterator<Item = String> + 'm {
        let under_roots = self
            .modules
            .iter()
            .filter(move |(_, f)| **f == file)
            .map(|(name, _)| name.clone());
        let under_script_directories = script_directories(self, importer)
            .filter_map(|dir| module_name(path.strip_prefix(dir)?.strip_prefix('/')?));
        under_roots
            .chain(under_script_directories)
            .filter(|name| name.split('.').all(is_identifier))
            .filter(move |name| self.absolute_module(importer, name) == Some(file))
    }

    /// The workspace file of the absolute module `name` as the file at `importer` imports
    /// it ([`absolute_import`]'s rules), if the workspace holds it.
    pub fn absolute_module(&self, importer: &str, name: &str) -> Option<SourceFile> {
        match absolute_import(self, importer, name, None) {
            Found::Module(file) | Found::Submodule(file) => Some(file),
            Found::Stdlib(_) | Found::NamespacePackage | Found::Missing => None,
        }
    }

    /// Whether the module `name` (absolute, or relative with its leading dots), as the file
    /// at `importer` imports it ([`absolute_import`]'s and [`relative_import`]'s rules), is
    /// a namespace package: a directory without `__init__.py`, which has no file but whose
    /// submodules `name.sub` are modules.
    pub fn is_namespace_package(&self, importer: &str, name: &str) -> bool {
        let level = name.chars().take_while(|&c| c == '.').count();
        let found = match level {
            0 => absolute_import(self, importer, name, None),
            _ => relative_import(self, importer, level, &name[level..], None),
        };
        matches!(found, Found::NamespacePackage)
    }

    /// The namespace package `name` inside the package whose directory is `dir` (a regular
    /// package's or a namespace package's), by the absolute dotted name `importer` reaches it
    /// by: `a.b` for the directory `a/b` without `__init__.py` in the regular package `a`,
    /// which Python finds on `a.__path__`. `None` when `dir/name` is a module, or no
    /// directory of Python files, or `importer` reaches `dir` by no absolute name.
    pub fn namespace_subpackage(&self, importer: &str, dir: &str, name: &str) -> Option<String> {
        let directory = paths::join(dir, name)?;
        if !self.stems.contains(&directory) || module_at(self, &directory).is_some() {
            return None;
        }
        let dotted = format!("{}.{name}", self.package_name(importer, dir)?);
        self.is_namespace_package(importer, &dotted)
            .then_some(dotted)
    }

    /// The namespace package a relative `from module import name` binds as `name` (`from .
    /// import sub` with `sub` a directory without `__init__.py` beside `importer`), by its
    /// absolute dotted name (see [`namespace_subpackage`](Self::namespace_subpackage)).
    pub fn relative_namespace_subpackage(
        &self,
        importer: &str,
        module: &str,
        name: &str,
    ) -> Option<String> {
        let level = module.chars().take_while(|&c| c == '.').count();
        let dir = relative_directory(importer, level, &module[level..])?;
        self.namespace_subpackage(importer, &dir, name)
    }

    /// The absolute dotted name by which `importer` imports the package (regular or
    /// namespace) whose directory is `dir`: `dir`'s path below a source root or a directory a
    /// script of `importer`'s runs from, the one from the root farthest up (a relative
    /// import's package is named from the top of its package tree), if the name leads back
    /// to `dir`.
    fn package_name(&self, importer: &str, dir: &str) -> Option<String> {
        let package = package_at(self, dir);
        let roots = self.roots.iter().map(String::as_str);
        roots
            .chain(script_directories(self, importer))
            .filter_map(|root| match root {
                "" => Some(dir),
                root => dir.strip_prefix(root)?.strip_prefix('/'),
            })
            .filter(|below| !below.is_empty() && below.split('/').all(is_identifier))
            .map(|below| below.replace('/', "."))
            .filter(
                |dotted| match absolute_import(self, importer, dotted, None) {
                    Found::Module(file) => package == Some(file),
                    Found::NamespacePackage => package.is_none(),
                    Found::Submodule(_) | Found::Stdlib(_) | Found::Missing => false,
                },
            )
            .max_by_key(|dotted| (dotted.len(), dotted.clone()))
    }

    /// The modules whose last part is `name`, each with the module holding it (`None` for a
    /// top-level module): what `import name` or `from parent import name` binds.
    pub fn modules_named<'m>(
        &'m self,
        name: &'m str,
    ) -> impl Iterator<Item = (Option<&'m str>, SourceFile)> + 'm {
        self.modules.iter().filter_map(move |(module, &file)| {
            if module == name {
                return Some((None, file));
            }
            let parent = module.strip_suffix(name)?.strip_suffix('.')?;
            parent
                .split('.')
                .all(is_identifier)
                .then_some((Some(parent), file))
        })
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
    modules.roots.clone_from(&roots);
    for &file in workspace.files(db).iter() {
        if !is_python_module(db, file) {
            continue;
        }
        let path = file.path(db);
        modules.paths.insert(path.clone(), file);
        if let Some(stem) = path
            .strip_suffix(".py")
            .or_else(|| path.strip_suffix(".pyi"))
        {
            modules.stems.insert(stem.to_string());
        }
        let mut dir = paths::parent(path);
        while !dir.is_empty() && modules.stems.insert(dir.to_string()) {
            dir = paths::parent(dir);
        }
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

/// Files whose imports name Python modules.
fn is_python_module(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().family == Family::Python
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

static PYTHON_STDLIB: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!("../../../grammars/python-stdlib-modules.txt"))
});

/// Whether `part` can be one part of a dotted module name in an import statement (a
/// directory `site-packages` cannot, nor a keyword): the registry's Python names.
fn is_identifier(part: &str) -> bool {
    static PYTHON: LazyLock<&'static crate::lang::Language> = LazyLock::new(|| {
        crate::lang::registry()
            .by_id("python")
            .expect("the registry has Python")
    });
    PYTHON.is_identifier(part) && !PYTHON.is_keyword(part)
}

/// Whether `name` is a top-level module of Python's standard library.
pub fn is_stdlib_module(name: &str) -> bool {
    PYTHON_STDLIB.contains(name)
}

/// Where `import` (one of `file`'s, a Python file) leads.
pub(super) fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    let modules = python_modules(db, workspace);
    let level = import.module.chars().take_while(|&c| c == '.').count();
    let rest = &import.module[level..];
    let name = import.name.as_deref();
    let found = if level == 0 {
        absolute_import(&modules, file.path(db), rest, name)
    } else {
        relative_import(&modules, file.path(db), level, rest, name)
    };
    match (found, name) {
        (Found::Submodule(submodule), _) => Target::Resolved {
            file: submodule,
            symbol: None,
        },
        (Found::Module(module), None) => Target::Resolved {
            file: module,
            symbol: None,
        },
        (Found::Module(module), Some(name)) => Target::Resolved {
            file: module,
            symbol: top_level_symbol(db, module, name),
        },
        (Found::Stdlib(package), _) => Target::External { package },
        // No file to lead to: what code reaches through it are its submodules, by their
        // own dotted names.
        (Found::NamespacePackage | Found::Missing, _) => Target::Unresolved,
    }
}

/// The workspace file of the absolute module `name` as `importer` imports it (the rules of
/// [`absolute_import`]), if the workspace holds it.
pub fn absolute_module(
    db: &dyn Db,
    workspace: Workspace,
    importer: SourceFile,
    name: &str,
) -> Option<SourceFile> {
    python_modules(db, workspace).absolute_module(importer.path(db), name)
}

/// Whether the absolute module `name` is a namespace package as `importer` imports it (see
/// [`PythonModules::is_namespace_package`]).
pub fn is_namespace_package(
    db: &dyn Db,
    workspace: Workspace,
    importer: SourceFile,
    name: &str,
) -> bool {
    python_modules(db, workspace).is_namespace_package(importer.path(db), name)
}

/// The namespace package `name` inside the package `package` (its `__init__.py`) or, for
/// a relative `from module import name`, inside the package the dots name, by the absolute
/// dotted name `importer` reaches it by (see [`PythonModules::namespace_subpackage`]).
pub fn namespace_subpackage(
    db: &dyn Db,
    workspace: Workspace,
    importer: SourceFile,
    package: Package<'_>,
    name: &str,
) -> Option<String> {
    let modules = python_modules(db, workspace);
    let importer = importer.path(db);
    match package {
        Package::File(file) => {
            let path = file.path(db);
            let dir = path
                .strip_suffix("/__init__.py")
                .or_else(|| path.strip_suffix("/__init__.pyi"))?;
            modules.namespace_subpackage(importer, dir, name)
        }
        Package::Relative(module) => modules.relative_namespace_subpackage(importer, module, name),
    }
}

/// A package as [`namespace_subpackage`] is given it.
#[derive(Clone, Copy)]
pub enum Package<'a> {
    /// A regular package, by its `__init__.py`.
    File(SourceFile),
    /// The module of a relative import, dots and all (`.`, `..util`).
    Relative(&'a str),
}

/// What an import statement's module (and, for `from m import x`, the submodule `m.x`)
/// turned out to be.
enum Found {
    /// The submodule `m.x` of `from m import x`: Python's import system tries it first.
    Submodule(SourceFile),
    Module(SourceFile),
    /// A standard library module the workspace does not hold, by its top-level name.
    Stdlib(String),
    /// No module file, but a directory of the module's path holding Python files (PEP
    /// 420), which Python imports as a package when nothing else has the name.
    NamespacePackage,
    Missing,
}

/// The one place that decides where an absolute import leads, for every caller. First
/// under the source roots; then, for a module none holds, the standard library; then the
/// directories a script of `importer`'s could be run from ([`script_roots`]), nearest
/// first: a manifest-less service (`services/billing/app/main.py` doing
/// `from app.models import Invoice`) runs with its own directory on `sys.path`. In each
/// place the submodule `module.name` comes before the module. Only when no place has a
/// module file is a directory of that path in any of them a namespace package, as in
/// Python's path search, where a regular package or module in a later entry wins over a
/// namespace portion in an earlier one.
fn absolute_import(
    modules: &PythonModules,
    importer: &str,
    module: &str,
    name: Option<&str>,
) -> Found {
    let submodule = name.and_then(|name| modules.module(&format!("{module}.{name}")));
    if let Some(submodule) = submodule {
        return Found::Submodule(submodule);
    }
    if let Some(module) = modules.module(module) {
        return Found::Module(module);
    }
    let top = module.split('.').next().unwrap_or_default();
    if PYTHON_STDLIB.contains(top) {
        return Found::Stdlib(top.to_string());
    }
    for root in script_roots(modules, importer, top) {
        let base = |dotted: &str| paths::join(root, &dotted.replace('.', "/"));
        let submodule =
            name.and_then(|name| module_at(modules, &base(&format!("{module}.{name}"))?));
        if let Some(submodule) = submodule {
            return Found::Submodule(submodule);
        }
        if let Some(module) = base(module).and_then(|base| module_at(modules, &base)) {
            return Found::Module(module);
        }
    }
    let path = module.replace('.', "/");
    let is_directory = |root: &str| {
        !path.is_empty()
            && paths::join(root, &path).is_some_and(|directory| modules.stems.contains(&directory))
    };
    if modules.roots.iter().map(String::as_str).any(is_directory)
        || script_roots(modules, importer, top).any(is_directory)
    {
        return Found::NamespacePackage;
    }
    Found::Missing
}

/// The directories, nearest first, that a script at `importer` could be run from and so
/// find its absolute imports under: its ancestors below the workspace root (which is a
/// source root already) that are not packages. A directory holding `__init__.py` is a
/// package, which Python imports from the directory above its top package, never from
/// inside (running from inside would truncate its modules' names and load them twice).
/// ty's fallback search of an importing file's ancestors and jedi's `smart_sys_path` use
/// the same rule. Only those holding something named `top` (a module's first part) are
/// listed.
fn script_roots<'p>(
    modules: &'p PythonModules,
    importer: &'p str,
    top: &'p str,
) -> impl Iterator<Item = &'p str> + 'p {
    script_directories(modules, importer)
        .filter(move |dir| modules.stems.contains(&format!("{dir}/{top}")))
}

/// `importer`'s ancestor directories below the workspace root that are not packages,
/// nearest first: where a script of its could be run from ([`script_roots`]).
fn script_directories<'p>(
    modules: &'p PythonModules,
    importer: &'p str,
) -> impl Iterator<Item = &'p str> + 'p {
    std::iter::successors(Some(paths::parent(importer)), |dir| {
        (!dir.is_empty()).then(|| paths::parent(dir))
    })
    .filter(|dir| !dir.is_empty() && package_at(modules, dir).is_none())
}

/// A relative import's module (and submodule, as [`absolute_import`]'s), `level` dots up
/// from `importer`.
fn relative_import(
    modules: &PythonModules,
    importer: &str,
    level: usize,
    rest: &str,
    name: Option<&str>,
) -> Found {
    let submodule = name.and_then(|name| {
        let inner = if rest.is_empty() {
            name.to_string()
        } else {
            format!("{rest}.{name}")
        };
        relative_module(modules, importer, level, &inner)
    });
    match (submodule, relative_module(modules, importer, level, rest)) {
        (Some(submodule), _) => Found::Submodule(submodule),
        (None, Some(module)) => Found::Module(module),
        (None, None)
            if relative_directory(importer, level, rest)
                .is_some_and(|dir| modules.stems.contains(&dir)) =>
        {
            Found::NamespacePackage
        }
        (None, None) => Found::Missing,
    }
}

/// The directory of the module `rest` (dotted, possibly empty) seen from `importer` with
/// `level` dots: its path without suffix, when it is a module.
fn relative_directory(importer: &str, level: usize, rest: &str) -> Option<String> {
    let up = "../".repeat(level.checked_sub(1)?);
    paths::join(paths::parent(importer), &(up + &rest.replace('.', "/")))
}

/// The submodule `name` of the package whose `__init__.py` is `package`.
pub(super) fn submodule(
    db: &dyn Db,
    workspace: Workspace,
    package: SourceFile,
    name: &str,
) -> Option<SourceFile> {
    let path = package.path(db);
    let directory = path
        .strip_suffix("/__init__.py")
        .or_else(|| path.strip_suffix("/__init__.pyi"))
        .or_else(|| {
            ["__init__.py", "__init__.pyi"]
                .contains(&path.as_str())
                .then_some("")
        })?;
    let modules = python_modules(db, workspace);
    let base = paths::join(directory, name)?;
    [
        format!("{base}.py"),
        format!("{base}.pyi"),
        format!("{base}/__init__.py"),
    ]
    .iter()
    .find_map(|candidate| modules.path(candidate))
}

/// The module `rest` (dotted, possibly empty) seen from `importer` with `level` dots.
fn relative_module(
    modules: &PythonModules,
    importer: &str,
    level: usize,
    rest: &str,
) -> Option<SourceFile> {
    let base = relative_directory(importer, level, rest)?;
    if rest.is_empty() {
        package_at(modules, &base)
    } else {
        module_at(modules, &base)
    }
}

/// The module whose path without suffix is `base` (workspace-relative): `base.py`,
/// `base.pyi`, then the package `base/__init__.py(i)`.
fn module_at(modules: &PythonModules, base: &str) -> Option<SourceFile> {
    [".py", ".pyi"]
        .iter()
        .find_map(|ext| modules.path(&format!("{base}{ext}")))
        .or_else(|| package_at(modules, base))
}

/// The package whose directory is `dir`.
fn package_at(modules: &PythonModules, dir: &str) -> Option<SourceFile> {
    ["__init__.py", "__init__.pyi"]
        .iter()
        .find_map(|init| modules.path(&paths::join(dir, init)?))
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
