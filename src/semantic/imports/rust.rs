//! Rust import rules (what queries cannot say); `import_syntax/rust.rs` collects the
//! imports these rules resolve.
//!
//! **The module map** ([`rust_modules`], a tracked query over paths, manifests and each
//! file's position-free `mod` declarations, [`rust_mod_decls`]): crate roots are each Cargo
//! package's library (`lib_path`), `src/main.rs`, `src/bin/*.rs`, `src/bin/*/main.rs`,
//! `tests/*.rs`, `examples/*.rs`, `benches/*.rs` and `build.rs`, and any `lib.rs` or
//! `main.rs` that no Cargo package holds. From each root, `mod foo;` in a root or a
//! `mod.rs` leads to the sibling `foo.rs` or `foo/mod.rs`, elsewhere (`x.rs`) to
//! `x/foo.rs` or `x/foo/mod.rs`; `#[path]` counts from the file's directory. A file no
//! `mod` declaration reaches (one declared inside a macro call such as `cfg_rt! { mod
//! runtime; }`) under a library's or binary's root directory gets the module its path
//! implies (`src/a/b.rs`, `src/a/b/mod.rs` → `crate::a::b`).
//!
//! **Resolution** ([`resolve`]): `crate::`, `self::`, `super::` count from the importing
//! file's module; any other first segment is, in this order, a module of the current
//! module or an item of the file (2018 uniform paths), a name another `use` of the file
//! binds, a crate (below), or a module of the crate root (edition-2015 paths, which a crate
//! of the same name shadows). A workspace crate (its library name, or a dependency renamed
//! to it) is followed in the workspace.
//! The answer is the file of the deepest module the path reaches, with the definition
//! named by the next segment when the file defines it (nested: `Enum::Variant`); when it
//! does not, a `use` of that file binding the name (`pub use self::read::AsyncRead`, a glob
//! leading to a definition of it) is followed, and so is a first segment that another
//! `use` of the importing file binds (`use runtime::scheduler; use scheduler::Context;`),
//! up to [`MAX_IMPORT_HOPS`] imports deep. Visibility is not checked (a private `use` is
//! followed like a `pub use`), nor are `#[cfg]`s, and items and `mod`s inside macro calls
//! are not seen. `std`,
//! `core`, `alloc`, `proc_macro` and `test` are external, and so is a crate the nearest
//! `Cargo.toml` lists as a dependency (any table, renames included); anything else is
//! unresolved.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use super::{ImportSummary, Target, file_imports};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        projects::{ProjectKind, paths, projects},
        symbols::{SymbolKind, file_symbols, symbol_summaries},
    },
};

// ---------------------------------------------------------------------------------------
// The module map.

/// A `mod name;` declaration, as `mod_declaration` in `import_syntax` wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModDecl {
    pub name: String,
    /// `#[path = "…"]`, as written.
    pub path: Option<String>,
    /// The inline modules around the declaration.
    pub within: Vec<String>,
}

impl ModDecl {
    fn of(import: &ImportSummary) -> Option<ModDecl> {
        let (name, path) = ModDecl::declared(import)?;
        let within = import
            .within
            .as_deref()
            .map(|w| w.split("::").map(str::to_string).collect())
            .unwrap_or_default();
        Some(ModDecl {
            name: name.to_string(),
            path: path.map(str::to_string),
            within,
        })
    }

    /// The name and `#[path]` of the module `import` declares, when it is a `mod`
    /// declaration; allocates nothing, as every path a resolution tries asks it of every
    /// import of a file.
    fn declared(import: &ImportSummary) -> Option<(&str, Option<&str>)> {
        if let (Some(path), Some(name)) = (
            import
                .module
                .strip_prefix('"')
                .and_then(|m| m.strip_suffix('"')),
            &import.alias,
        ) {
            return Some((name, Some(path)));
        }
        let name = import.module.strip_prefix("self::")?;
        (import.name.is_none() && !import.wildcard && !name.is_empty() && !name.contains("::"))
            .then_some((name, None))
    }
}

/// The `mod name;` declarations of a Rust file. Backdates when only its `use`s change, so
/// the module map is not rebuilt for them.
#[salsa::tracked(returns(clone))]
pub fn rust_mod_decls(db: &dyn Db, file: SourceFile) -> Arc<[ModDecl]> {
    file_imports(db, file)
        .iter()
        .filter_map(ModDecl::of)
        .collect()
}

/// The crates of the workspace and the module each Rust file is.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RustModules {
    /// Crate roots, libraries first within a package.
    crates: Vec<CrateInfo>,
    /// (crate, module path without `crate`, `""` for the root) → its file.
    modules: HashMap<(u32, String), SourceFile>,
    /// A file's first place: (crate, module path).
    placed: HashMap<SourceFile, (u32, String)>,
    /// Library crates by the name code uses.
    libraries: HashMap<String, u32>,
    /// Rust files by workspace-relative path.
    paths: HashMap<String, SourceFile>,
    /// Files no `mod` declaration reaches, placed by their paths alone.
    by_path: HashSet<SourceFile>,
}

#[derive(Debug, PartialEq, Eq)]
struct CrateInfo {
    root: SourceFile,
    /// The package's root directory (`""` for the workspace root), if a package holds it.
    package: Option<String>,
}

impl RustModules {
    fn module(&self, krate: u32, path: &[String]) -> Option<SourceFile> {
        self.modules.get(&(krate, path.join("::"))).copied()
    }

    /// The crate and module path (`a::b`, `""` for the crate root) where `file` is first
    /// placed.
    pub fn place(&self, file: SourceFile) -> Option<(u32, &str)> {
        self.placed
            .get(&file)
            .map(|(krate, module)| (*krate, module.as_str()))
    }

    /// Whether `file` was placed by its path alone (no `mod` declaration reaches it, so its
    /// crate is a guess).
    pub fn placed_by_path(&self, file: SourceFile) -> bool {
        self.by_path.contains(&file)
    }

    /// Whether crate `krate` has the module `path` (`a::b`).
    pub fn has_module(&self, krate: u32, path: &str) -> bool {
        self.modules.contains_key(&(krate, path.to_string()))
    }

    /// The root file of crate `krate`.
    pub fn crate_root(&self, krate: u32) -> Option<SourceFile> {
        self.crates.get(krate as usize).map(|c| c.root)
    }

    pub fn is_root(&self, file: SourceFile) -> bool {
        self.placed.get(&file).is_some_and(|(krate, path)| {
            path.is_empty() && self.crates[*krate as usize].root == file
        })
    }
}

/// A crate root found while building the map.
struct Root {
    file: SourceFile,
    /// The package holding it (its root directory), if any.
    package: Option<String>,
    /// A package's library: the name code uses for it.
    lib_name: Option<String>,
    /// Files under its directory that no `mod` reaches get modules from their paths.
    path_modules: bool,
}

/// What a package-relative path is as a crate root, for the auto-discovered targets.
fn is_target_root(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        ["src", "main.rs"] | ["build.rs"] => true,
        ["src", "bin", f] | ["tests", f] | ["examples", f] | ["benches", f] => f.ends_with(".rs"),
        ["src", "bin", _, "main.rs"] | ["examples", _, "main.rs"] => true,
        _ => false,
    }
}

/// The module map of every crate in the workspace (see the module docs).
#[salsa::tracked(returns(clone))]
pub fn rust_modules(db: &dyn Db, workspace: Workspace) -> Arc<RustModules> {
    let mut map = RustModules::default();
    let projects = projects(db, workspace);
    // (root directory, library name, library path) of each package.
    let packages: Vec<(String, Option<String>, Option<String>)> = projects
        .iter()
        .filter(|p| p.kind == ProjectKind::Cargo)
        .filter_map(|p| {
            let cargo = p.cargo.as_ref()?;
            Some((
                dir_of_root(&p.root),
                cargo.lib_name.clone(),
                cargo.lib_path.clone(),
            ))
        })
        .collect();
    let package_roots: HashSet<&str> = packages.iter().map(|(r, _, _)| r.as_str()).collect();
    // In path order, as the workspace lists them.
    let rust_files: Vec<(&String, SourceFile)> = workspace
        .files(db)
        .iter()
        .filter(|&&f| is_rust(db, f))
        .map(|&f| (f.path(db), f))
        .collect();
    for &(path, file) in &rust_files {
        map.paths.insert(path.clone(), file);
    }
    let roots = crate_roots(db, &map, &packages, &package_roots, &rust_files);
    for (index, root) in roots.iter().enumerate() {
        place_declared_modules(db, &mut map, index as u32, root);
    }
    place_by_paths(db, &mut map, &roots, &package_roots, &rust_files);
    Arc::new(map)
}

/// Crate roots: each package's library, then its other targets; then lone lib.rs/main.rs.
/// Packages in path order, each library before the package's other targets.
fn crate_roots(
    db: &dyn Db,
    map: &RustModules,
    packages: &[(String, Option<String>, Option<String>)],
    package_roots: &HashSet<&str>,
    rust_files: &[(&String, SourceFile)],
) -> Vec<Root> {
    let mut roots: Vec<Root> = Vec::new();
    for (root, lib_name, lib_path) in packages {
        if let Some(&file) = lib_path.as_ref().and_then(|p| map.paths.get(p)) {
            roots.push(Root {
                file,
                package: Some(root.clone()),
                lib_name: lib_name.clone(),
                path_modules: true,
            });
        }
    }
    for &(path, file) in rust_files {
        match nearest_package(path, package_roots) {
            Some(package) => {
                let rel = rel_to(package, path);
                if is_target_root(rel) && !roots.iter().any(|r| r.file == file) {
                    roots.push(Root {
                        file,
                        package: Some(package.to_string()),
                        lib_name: None,
                        path_modules: rel == "src/main.rs",
                    });
                }
            }
            None => {
                let name = path.rsplit('/').next().unwrap_or(path);
                if name == "lib.rs" || name == "main.rs" {
                    roots.push(Root {
                        file,
                        package: None,
                        lib_name: None,
                        path_modules: true,
                    });
                }
            }
        }
    }
    roots.sort_by_key(|r| {
        (
            r.package.clone(),
            r.lib_name.is_none(),
            r.file.path(db).clone(),
        )
    });
    roots
}

/// Adds crate `krate` and the modules its `mod` declarations reach from its root, breadth
/// first.
fn place_declared_modules(db: &dyn Db, map: &mut RustModules, krate: u32, root: &Root) {
    let file = root.file;
    map.crates.push(CrateInfo {
        root: file,
        package: root.package.clone(),
    });
    if let Some(name) = &root.lib_name {
        map.libraries.entry(name.clone()).or_insert(krate);
    }
    map.modules.insert((krate, String::new()), file);
    map.placed.entry(file).or_insert((krate, String::new()));
    let mut queue = std::collections::VecDeque::from([(file, Vec::<String>::new(), true)]);
    let mut seen: HashSet<SourceFile> = HashSet::from([file]);
    while let Some((from, module, mod_rs)) = queue.pop_front() {
        for decl in rust_mod_decls(db, from).iter() {
            let Some(child) = mod_file(&map.paths, from.path(db), mod_rs, decl) else {
                continue;
            };
            if !seen.insert(child) {
                continue;
            }
            let mut path = module.clone();
            path.extend(decl.within.iter().cloned());
            path.push(decl.name.clone());
            let key = (krate, path.join("::"));
            map.modules.entry(key.clone()).or_insert(child);
            map.placed.entry(child).or_insert(key);
            queue.push_back((child, path, is_mod_rs(child.path(db))));
        }
    }
}

/// Files no declaration reached: the module their path implies, under the directory of a
/// library or binary root.
fn place_by_paths(
    db: &dyn Db,
    map: &mut RustModules,
    roots: &[Root],
    package_roots: &HashSet<&str>,
    rust_files: &[(&String, SourceFile)],
) {
    let root_files: HashSet<SourceFile> = roots.iter().map(|r| r.file).collect();
    let mut fallback_dirs: HashMap<&str, u32> = HashMap::new();
    for (index, root) in roots.iter().enumerate() {
        if root.path_modules {
            fallback_dirs
                .entry(paths::parent(root.file.path(db)))
                .or_insert(index as u32);
        }
    }
    for &(path, file) in rust_files {
        if map.placed.contains_key(&file) || root_files.contains(&file) {
            continue;
        }
        let mut dir = paths::parent(path);
        let krate = loop {
            if let Some(&krate) = fallback_dirs.get(dir) {
                break Some(krate);
            }
            if dir.is_empty() {
                break None;
            }
            dir = paths::parent(dir);
        };
        let Some(krate) = krate else { continue };
        let package = nearest_package(path, package_roots).map(str::to_string);
        if map.crates[krate as usize].package != package {
            continue;
        }
        let Some(module) = module_of_path(rel_to(dir, path)) else {
            continue;
        };
        let key = (krate, module);
        if map.modules.contains_key(&key) {
            continue;
        }
        map.modules.insert(key.clone(), file);
        map.placed.insert(file, key);
        map.by_path.insert(file);
    }
}

/// `"."` → `""`.
fn dir_of_root(root: &str) -> String {
    if root == "." {
        String::new()
    } else {
        root.to_string()
    }
}

/// `path` relative to the directory `dir` (`""` for the root); `dir` must hold it.
fn rel_to<'p>(dir: &str, path: &'p str) -> &'p str {
    if dir.is_empty() {
        path
    } else {
        path.strip_prefix(dir)
            .and_then(|p| p.strip_prefix('/'))
            .unwrap_or(path)
    }
}

/// The deepest package root holding `path`.
fn nearest_package<'r>(path: &str, roots: &HashSet<&'r str>) -> Option<&'r str> {
    let mut dir = paths::parent(path);
    loop {
        if let Some(&root) = roots.get(dir) {
            return Some(root);
        }
        if dir.is_empty() {
            return None;
        }
        dir = paths::parent(dir);
    }
}

/// `a/b.rs`, `a/b/mod.rs` → `a::b`; `None` for names no module has.
fn module_of_path(rel: &str) -> Option<String> {
    let stem = rel.strip_suffix(".rs")?;
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    let segments: Vec<&str> = stem.split('/').collect();
    let valid = |s: &&str| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && chars.all(|c| c == '_' || c.is_alphanumeric())
    };
    (segments.iter().all(valid) && stem != "mod").then(|| segments.join("::"))
}

fn is_rust(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().family == Family::Rust
}

/// A root-like file whose `mod`s are its siblings: `mod.rs`, `lib.rs`, `main.rs`.
fn is_mod_rs(path: &str) -> bool {
    matches!(
        path.rsplit('/').next(),
        Some("mod.rs" | "lib.rs" | "main.rs")
    )
}

/// The file `decl` (in the file at `from`, which is a crate root or `mod.rs`-like when
/// `mod_rs`) names, if the workspace holds it.
fn mod_file(
    files: &HashMap<String, SourceFile>,
    from: &str,
    mod_rs: bool,
    decl: &ModDecl,
) -> Option<SourceFile> {
    let dir = paths::parent(from);
    let own_dir = || {
        let stem = from.rsplit('/').next()?.strip_suffix(".rs")?;
        paths::join(dir, stem)
    };
    let within = decl.within.join("/");
    match &decl.path {
        Some(path) => {
            let base = if decl.within.is_empty() || mod_rs {
                dir.to_string()
            } else {
                own_dir()?
            };
            let file = paths::join(&paths::join(&base, &within)?, path)?;
            files.get(&file).copied()
        }
        None => {
            let base = if mod_rs { dir.to_string() } else { own_dir()? };
            let base = paths::join(&base, &within)?;
            // `mod r#ref;` is in `ref.rs`.
            let name = decl.name.strip_prefix("r#").unwrap_or(&decl.name);
            [format!("{name}.rs"), format!("{name}/mod.rs")]
                .iter()
                .find_map(|candidate| files.get(&paths::join(&base, candidate)?).copied())
        }
    }
}

// ---------------------------------------------------------------------------------------
// Resolution.

/// Crates outside every workspace that every Rust program may name.
const BUILTIN_CRATES: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// How many imports deep a path is followed through other imports (`use` of a name another
/// `use` brought in, a `pub use` re-export).
const MAX_IMPORT_HOPS: usize = 4;

/// How many paths one resolution may try (globs of globs multiply them).
const MAX_PATHS_TRIED: u32 = 256;

/// Where `import` (one of `file`'s, a Rust file) leads, memoized per file and import.
///
/// Resolving one import may try hundreds of paths (globs of globs, `pub use` chains through
/// other crates), and every file whose names reach `file` asks again: without the memo a
/// workspace of a few hundred crates took minutes to build its reference graph.
pub(super) fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    resolved(db, workspace, RustImport::new(db, file, import.clone()))
}

/// What a bare `name` that no scope of `file` binds may still be: a module of the file's
/// module (one placed by its path, which no `mod` the name resolver sees declares), a crate,
/// or a module of the crate root (edition 2015). [`resolve`] of `use name;` says the same
/// after searching the file's imports, which the name resolver has already searched: for
/// the thousands of names a macro-heavy crate leaves unbound, that search was most of the
/// time its reference graph took.
pub fn resolve_unbound_name(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: &str,
) -> Target {
    let resolver = Resolver::new(db, workspace);
    let modules = &resolver.modules;
    let name = [name.to_string()];
    let here = modules.placed.get(&file);
    if let Some((krate, module)) = here {
        let mut local = segments_of(Some(module.as_str()).filter(|m| !m.is_empty()));
        let base = local.clone();
        local.extend(name.iter().cloned());
        if modules.module(*krate, &local).is_some() {
            return resolver.follow(*krate, base, &name, 0);
        }
    }
    match resolver.extern_crate(file, &name[0], &[], 0) {
        Target::Unresolved => match here {
            Some((krate, _)) if modules.module(*krate, &name).is_some() => {
                resolver.follow(*krate, Vec::new(), &name, 0)
            }
            _ => Target::Unresolved,
        },
        target => target,
    }
}

/// One import as a file writes it, for [`resolved`]'s memo.
#[salsa::interned(debug)]
struct RustImport<'db> {
    #[returns(copy)]
    file: SourceFile,
    #[returns(ref)]
    import: ImportSummary,
}

/// Bounded: a workspace of many crates resolves hundreds of thousands of imports and paths
/// once each while its reference graph is built.
#[salsa::tracked(returns(clone), lru = 65536)]
fn resolved<'db>(db: &'db dyn Db, workspace: Workspace, key: RustImport<'db>) -> Target {
    resolve_uncached(db, workspace, key.file(db), key.import(db))
}

fn resolve_uncached(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    let resolver = Resolver::new(db, workspace);
    if let Some(decl) = ModDecl::of(import) {
        let mod_rs = resolver.modules.is_root(file) || is_mod_rs(file.path(db));
        return match mod_file(&resolver.modules.paths, file.path(db), mod_rs, &decl) {
            Some(file) => Target::Resolved { file, symbol: None },
            None => Target::Unresolved,
        };
    }
    let within = segments_of(import.within.as_deref());
    resolver.path(file, &within, &full_path(import), 0)
}

/// `a::b` → `["a", "b"]`; none → `[]`.
fn segments_of(path: Option<&str>) -> Vec<String> {
    path.map(|p| p.split("::").map(str::to_string).collect())
        .unwrap_or_default()
}

/// The import's whole path: module, then name.
fn full_path(import: &ImportSummary) -> Vec<String> {
    let mut segments: Vec<String> = import.module.split("::").map(str::to_string).collect();
    segments.extend(import.name.as_deref().map(str::to_string));
    segments
}

/// The name an import binds in its module: the alias, else the last segment (`self`'s
/// module for `a::{self}`); none for globs and `mod` declarations.
pub fn local_name(import: &ImportSummary) -> Option<&str> {
    if import.wildcard || ModDecl::declared(import).is_some() {
        return None;
    }
    import
        .alias
        .as_deref()
        .or(import.name.as_deref())
        .or_else(|| import.module.rsplit("::").next())
        .filter(|name| !name.is_empty() && *name != "_")
}

struct Resolver<'db> {
    db: &'db dyn Db,
    workspace: Workspace,
    modules: Arc<RustModules>,
    /// Paths this resolution may still try.
    budget: std::cell::Cell<u32>,
}

impl<'db> Resolver<'db> {
    fn new(db: &'db dyn Db, workspace: Workspace) -> Resolver<'db> {
        Resolver {
            db,
            workspace,
            modules: rust_modules(db, workspace),
            budget: std::cell::Cell::new(MAX_PATHS_TRIED),
        }
    }

    /// Where `segments`, written in `file` inside its inline modules `within`, lead.
    fn path(
        &self,
        file: SourceFile,
        within: &[String],
        segments: &[String],
        hops: usize,
    ) -> Target {
        let db = self.db;
        let modules = &self.modules;
        match self.budget.get().checked_sub(1) {
            Some(left) => self.budget.set(left),
            None => return Target::Unresolved,
        }
        // Where the importer is: its crate and module, inline modules included.
        let here = modules.placed.get(&file).map(|(krate, module)| {
            let mut path = segments_of(Some(module.as_str()).filter(|m| !m.is_empty()));
            path.extend(within.iter().cloned());
            (*krate, path)
        });
        let Some(first) = segments.first() else {
            return Target::Unresolved;
        };
        match first.as_str() {
            "crate" | "$crate" => match &here {
                Some((krate, _)) => self.follow(*krate, Vec::new(), &segments[1..], hops),
                None => Target::Unresolved,
            },
            "self" | "super" => {
                let Some((krate, mut module)) = here else {
                    return Target::Unresolved;
                };
                let mut i = usize::from(first == "self");
                while segments.get(i).is_some_and(|s| s == "super") {
                    if module.pop().is_none() {
                        return Target::Unresolved;
                    }
                    i += 1;
                }
                self.follow(krate, module, &segments[i..], hops)
            }
            // `::name`: a crate.
            "" => match segments.get(1) {
                Some(name) => self.extern_crate(file, name, &segments[2..], hops),
                None => Target::Unresolved,
            },
            _ => {
                let Some((krate, module)) = &here else {
                    return self.extern_crate(file, first, &segments[1..], hops);
                };
                // A module of the current module; an item of this file or a name another
                // import brings in (2018 uniform paths); a crate; a module of the crate
                // root (edition 2015).
                let mut local = module.clone();
                local.push(first.clone());
                if modules.module(*krate, &local).is_some() {
                    return self.follow(*krate, module.clone(), segments, hops);
                }
                let item = symbol_path(db, file, within.iter().chain(segments))
                    .filter(|(_, depth)| *depth > within.len());
                if let Some((symbol, _)) = item {
                    return Target::Resolved {
                        file,
                        symbol: Some(symbol),
                    };
                }
                if let Some(target) =
                    self.through_imports(file, within, first, &segments[1..], hops)
                {
                    return target;
                }
                // A crate shadows a module of the crate root.
                match self.extern_crate(file, first, &segments[1..], hops) {
                    Target::Unresolved
                        if modules
                            .module(*krate, std::slice::from_ref(first))
                            .is_some() =>
                    {
                        self.follow(*krate, Vec::new(), segments, hops)
                    }
                    target => target,
                }
            }
        }
    }

    /// The deepest module of `krate` that `base` + `rest` reaches, and the definition the
    /// next segment names in it (found through the file's imports when it re-exports it).
    fn follow(&self, krate: u32, base: Vec<String>, rest: &[String], hops: usize) -> Target {
        let mut path = base;
        path.extend(rest.iter().cloned());
        // The longest prefix that is a module (a directory without `mod.rs` can sit between
        // modules that took their names from their paths).
        let Some((file, depth)) = (0..=path.len())
            .rev()
            .find_map(|depth| Some((self.modules.module(krate, &path[..depth])?, depth)))
        else {
            return Target::Unresolved;
        };
        let remaining = &path[depth..];
        let symbol = symbol_path(self.db, file, remaining.iter()).map(|(s, _)| s);
        if symbol.is_none()
            && let Some((name, rest)) = remaining.split_first()
            && let Some(target) = self.through_imports(file, &[], name, rest, hops)
        {
            return target;
        }
        Target::Resolved { file, symbol }
    }

    /// `name` (then `rest`) as a name one of `file`'s file-level imports brings in: by
    /// name or alias, else through a glob that leads to a definition of it.
    fn through_imports(
        &self,
        file: SourceFile,
        within: &[String],
        name: &str,
        rest: &[String],
        hops: usize,
    ) -> Option<Target> {
        if hops >= MAX_IMPORT_HOPS {
            return None;
        }
        let imports = file_imports(self.db, file);
        // Whether an import is written in the inline modules `within` (as `segments_of`
        // would split its `within`), without splitting every import's.
        let within_path = within.join("::");
        let scope = |i: &&ImportSummary| match i.within.as_deref() {
            None => within.is_empty(),
            Some(written) => !within.is_empty() && written == within_path,
        };
        // `use log;` binds `log` to the crate itself: nothing to follow.
        let named = imports
            .iter()
            .filter(scope)
            .find(|i| local_name(i) == Some(name) && full_path(i) != [name]);
        // What an import leads to counts when it is more than this file again.
        let leads_on = |target: &Target| match target {
            Target::Resolved { file: f, symbol } => symbol.is_some() || *f != file,
            Target::External { .. } => true,
            Target::Unresolved => false,
        };
        if let Some(import) = named {
            let mut path = full_path(import);
            path.extend(rest.iter().cloned());
            let target = self.path(file, within, &path, hops + 1);
            return leads_on(&target).then_some(target);
        }
        // A glob counts only where it leads to a definition of `name` itself.
        let defines = |target: &Target| match target {
            Target::Resolved {
                file,
                symbol: Some(i),
            } => file_symbols(self.db, *file).summaries[*i as usize].name == name,
            _ => false,
        };
        imports
            .iter()
            .filter(scope)
            .filter(|i| i.wildcard)
            .find_map(|glob| {
                let mut path = full_path(glob);
                path.push(name.to_string());
                let target = self.path(file, within, &path, hops + 1);
                if !defines(&target) {
                    return None;
                }
                if rest.is_empty() {
                    return Some(target);
                }
                path.extend(rest.iter().cloned());
                Some(self.path(file, within, &path, hops + 1))
            })
    }

    /// A path starting with the crate `name` (not a module of the importer's crate).
    fn extern_crate(&self, file: SourceFile, name: &str, rest: &[String], hops: usize) -> Target {
        let modules = &self.modules;
        if let Some(&krate) = modules.libraries.get(name) {
            return self.follow(krate, Vec::new(), rest, hops);
        }
        if BUILTIN_CRATES.contains(&name) {
            return Target::External {
                package: name.to_string(),
            };
        }
        let projects = projects(self.db, self.workspace);
        let package = cargo_package(self.db, self.workspace, file).map(|i| &projects[i as usize]);
        let Some(dependency) = package
            .and_then(|p| p.cargo.as_ref())
            .and_then(|c| c.dependencies.iter().find(|d| d.name == name))
        else {
            return Target::Unresolved;
        };
        // A dependency renamed to a workspace package.
        let library = projects
            .iter()
            .filter(|p| p.kind == ProjectKind::Cargo)
            .find(|p| p.name.as_deref() == Some(dependency.package.as_str()))
            .and_then(|p| p.cargo.as_ref()?.lib_name.as_ref())
            .and_then(|lib| modules.libraries.get(lib));
        match library {
            Some(&krate) => self.follow(krate, Vec::new(), rest, hops),
            None => Target::External {
                package: dependency.package.clone(),
            },
        }
    }
}

/// How many modules [`rust_star_closure`] lists at most: a crate whose every module imports
/// its parent's names (`use super::*`) reaches all of them from each, which is quadratic to
/// list.
const MAX_STAR_CLOSURE: usize = 4096;

/// The modules `file`'s star imports (`use a::*`, written anywhere in it) lead to, and the
/// ones theirs lead to in turn: depth first in the order they are written, each once,
/// `file` itself left out; with whether one of `file`'s own star imports names it. This is
/// the order a search for a name through star imports visits them, listed once per file
/// instead of walked once per name: `libc`'s modules reach each other through hundreds of
/// star imports, and walking them for every name every file used took minutes.
#[salsa::tracked(returns(clone))]
pub fn rust_star_closure(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<[(SourceFile, bool)]> {
    let star_targets = |module: SourceFile| -> Vec<SourceFile> {
        file_imports(db, module)
            .iter()
            .filter(|i| i.wildcard && i.alias.is_none())
            .filter_map(|i| match resolve(db, workspace, module, i) {
                Target::Resolved { file: target, .. } if target != module => Some(target),
                _ => None,
            })
            .collect()
    };
    let mut reached: Vec<(SourceFile, bool)> = Vec::new();
    let mut seen = HashSet::from([file]);
    // Each entry: a module's star targets, and how many of them were visited.
    let mut stack = vec![(star_targets(file), 0usize)];
    while let Some((targets, next)) = stack.last_mut() {
        let Some(&target) = targets.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        if reached.len() >= MAX_STAR_CLOSURE || !seen.insert(target) {
            continue;
        }
        reached.push((target, stack.len() == 1));
        stack.push((star_targets(target), 0));
    }
    reached.into()
}

/// The Cargo package `file` belongs to (the nearest manifest with a `[package]` above it),
/// by its index in `projects`; memoized per file, since every path a resolution tries
/// through a crate's name asks, and a workspace may hold hundreds of packages.
#[salsa::tracked]
fn cargo_package(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Option<u32> {
    let path = file.path(db);
    projects(db, workspace)
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == ProjectKind::Cargo && p.cargo.is_some())
        .filter(|(_, p)| {
            let root = dir_of_root(&p.root);
            root.is_empty()
                || path
                    .strip_prefix(root.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|(_, p)| dir_of_root(&p.root).len())
        .map(|(i, _)| i as u32)
}

/// The definition `segments` name in `file`: the top-level one named by the first, then
/// the one inside it named by the second, and so on as far as they go; with how many
/// segments matched. Impl blocks are not definitions of their type's name.
fn symbol_path<'s>(
    db: &dyn Db,
    file: SourceFile,
    segments: impl Iterator<Item = &'s String>,
) -> Option<(u32, usize)> {
    let by_name = definitions_by_name(db, file);
    let mut found: Option<(u32, usize)> = None;
    for (depth, segment) in segments.enumerate() {
        let parent = found.map(|(i, _)| i);
        let next = by_name
            .get(segment.as_str())
            .and_then(|defined| defined.iter().find(|(p, _)| *p == parent));
        match next {
            Some(&(_, i)) => found = Some((i, depth + 1)),
            None => break,
        }
    }
    found
}

/// Definition indices by name, each with its parent's index (`None`: top level).
type DefinitionsByName = HashMap<Box<str>, Vec<(Option<u32>, u32)>>;

/// A file's definitions (impl blocks left out) by name: each with its parent's index, in
/// file order. A path is looked up segment by segment in every module a glob import leads
/// to, and generated binding modules hold tens of thousands of definitions, so a scan per
/// segment made one import's resolution cost seconds. Bounded like other per-file tables;
/// built from the position-free summaries, so an edit that only moves code leaves it equal.
#[salsa::tracked(returns(clone), lru = 1024)]
fn definitions_by_name(db: &dyn Db, file: SourceFile) -> Arc<DefinitionsByName> {
    let mut by_name = DefinitionsByName::new();
    for (i, summary) in symbol_summaries(db, file).iter().enumerate() {
        if summary.kind != SymbolKind::Impl {
            by_name
                .entry(summary.name.as_str().into())
                .or_default()
                .push((summary.parent(), i as u32));
        }
    }
    Arc::new(by_name)
}

#[cfg(test)]
mod tests {
    use super::{is_target_root, module_of_path};

    #[test]
    fn module_paths_of_files() {
        assert_eq!(module_of_path("a/b.rs").as_deref(), Some("a::b"));
        assert_eq!(module_of_path("a/b/mod.rs").as_deref(), Some("a::b"));
        assert_eq!(module_of_path("mod.rs"), None);
        assert_eq!(module_of_path("a-b/c.rs"), None);
        assert_eq!(module_of_path("a/b.txt"), None);
    }

    #[test]
    fn cargo_targets() {
        for root in [
            "src/main.rs",
            "build.rs",
            "src/bin/tool.rs",
            "src/bin/tool/main.rs",
            "tests/it.rs",
            "examples/demo.rs",
            "examples/demo/main.rs",
            "benches/b.rs",
        ] {
            assert!(is_target_root(root), "{root}");
        }
        for other in [
            "src/lib.rs",
            "src/a.rs",
            "tests/support/mod.rs",
            "src/bin/tool/x.rs",
        ] {
            assert!(!is_target_root(other), "{other}");
        }
    }
}
