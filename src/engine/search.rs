//! Reference search: the identifier index says which files can mention a name, and only
//! their names are resolved. [`search_hits`] is what references, rename and the call
//! hierarchy share; [`targets_named`] finds the symbols a name as people write it
//! (`posixpath.join`, `Class.method`) stands for.

use std::collections::{HashSet, VecDeque};

use serde::Serialize;

use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        import_graph::import_graph,
        imports::file_imports,
        index::SymbolIndex,
        names::{
            BindingKind, FileNames, OccurrenceId, Role, go,
            identifiers::{file_identifiers, identifier_index},
            resolve::{Resolver, Target},
            spaces::Space,
        },
    },
};

/// Which files a lookup by name looks in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NameScope {
    /// Every file that can mention the name (the identifier index).
    #[default]
    Workspace,
    /// While the first index runs: the files of the symbol index's first this many
    /// shards that define a symbol of the name (what is indexed so far). A qualifier is
    /// matched as a module path or a class the file mentions, never followed through
    /// imports, which would read the whole workspace.
    FirstShards(u32),
}

/// How a definition or a reference was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Certainty {
    /// Resolved through scopes and imports.
    Exact,
    /// Matched by name: the receiver's type is unknown.
    Heuristic,
}

/// One occurrence found by [`search_hits`], and how surely it refers to what was searched.
pub(crate) type Hit = (SourceFile, OccurrenceId, Certainty);

/// The module-level and class-level symbols matching a written name.
pub(crate) fn targets_named(
    resolver: &mut Resolver,
    written: &str,
    path_prefix: Option<&str>,
) -> Vec<Target> {
    targets_named_in(resolver, written, path_prefix, NameScope::Workspace)
}

/// [`targets_named`] in the files `scope` says.
pub(crate) fn targets_named_in(
    resolver: &mut Resolver,
    written: &str,
    path_prefix: Option<&str>,
    scope: NameScope,
) -> Vec<Target> {
    let db = resolver.db();
    let workspace = resolver.workspace();
    let parts: Vec<&str> = written
        .split(['.', ':'])
        .filter(|p| !p.is_empty())
        .collect();
    let Some((&name, qualifier)) = parts.split_last() else {
        return Vec::new();
    };
    // With a qualifier, a file can define the name only if its path is the module named or
    // it mentions the class named.
    let (files, class_files): (Vec<SourceFile>, HashSet<SourceFile>) = match scope {
        NameScope::Workspace => {
            let index = identifier_index(db, workspace);
            let class_files = qualifier
                .last()
                .map(|class| index.files(class).iter().copied().collect())
                .unwrap_or_default();
            (index.files(name), class_files)
        }
        NameScope::FirstShards(shards) => {
            let files = files_defining(db, workspace, name, shards);
            let class_files = qualifier
                .last()
                .map(|class| {
                    files
                        .iter()
                        .copied()
                        .filter(|&file| file_identifiers(db, file).contains(class))
                        .collect()
                })
                .unwrap_or_default();
            (files, class_files)
        }
    };
    let mut targets = Vec::new();
    for file in files {
        let path = file.path(db);
        if path_prefix.is_some_and(|prefix| !path.starts_with(prefix)) {
            continue;
        }
        if !module_path_ends_with(path, qualifier) && !class_files.contains(&file) {
            continue;
        }
        let defined = resolver.in_passing(file, |_, names| {
            symbols_defined_in(names, file, path, name, qualifier)
        });
        targets.extend(defined);
        if go::is_go(db, file) {
            for target in go_methods_named(resolver, file, name, qualifier) {
                if !targets.contains(&target) {
                    targets.push(target);
                }
            }
        }
    }
    if targets.is_empty() && !qualifier.is_empty() && scope == NameScope::Workspace {
        targets = through_modules(resolver, name, qualifier, path_prefix);
    }
    targets
}

/// The module-level and class-level bindings of `name` in `file` (not its imports) whose
/// module, and class if qualified, the qualifier names.
fn symbols_defined_in(
    names: &FileNames,
    file: SourceFile,
    path: &str,
    name: &str,
    qualifier: &[&str],
) -> Vec<Target> {
    let mut targets = Vec::new();
    for scope_id in 0..names.scopes.len() {
        // A name only imported here is defined elsewhere.
        let bindings = names.bindings(scope_id as u32, name);
        if bindings
            .iter()
            .all(|&b| names.occurrence(b).role == Role::Definition(BindingKind::Import))
        {
            continue;
        }
        let is_module = scope_id == 0;
        let is_namespace = names.is_namespace(scope_id as u32);
        if !is_module && !is_namespace {
            continue;
        }
        // The qualifier names the class (and its module), or the module alone.
        let mut qualifier_parts = qualifier.to_vec();
        if is_namespace {
            let class = names.scope_name(scope_id as u32);
            match qualifier_parts.last() {
                Some(last) if Some(*last) == class => {
                    qualifier_parts.pop();
                }
                Some(_) => continue,
                None => {}
            }
        }
        if !module_path_ends_with(path, &qualifier_parts) {
            continue;
        }
        targets.push(Target::Symbol {
            file,
            scope: scope_id as u32,
            name: name.into(),
            space: Space::All,
        });
    }
    targets
}

/// The files of the symbol index's first `shards` shards that define a symbol called
/// `name`, in workspace order.
fn files_defining(db: &dyn Db, workspace: Workspace, name: &str, shards: u32) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = SymbolIndex::first_shards(db, workspace, shards)
        .definitions_of(name)
        .into_iter()
        .map(|entry| entry.file)
        .collect();
    // A file's definitions of the name are next to each other.
    files.dedup();
    files
}

/// `os.path.join` where no module is called `os.path`: a module named by the qualifier's
/// first parts (`os`), then each further part looked up in it as code would find it
/// (`os`'s `import posixpath as path` leads to `posixpath`), and `name` in what that leads
/// to. The longest module prefix that leads somewhere wins.
fn through_modules(
    resolver: &mut Resolver,
    name: &str,
    qualifier: &[&str],
    path_prefix: Option<&str>,
) -> Vec<Target> {
    let db = resolver.db();
    let index = identifier_index(db, resolver.workspace());
    for split in (1..qualifier.len() + 1).rev() {
        let (module, rest) = qualifier.split_at(split);
        // The module must mention the next part: its own binding or import of it.
        let next = rest.first().copied().unwrap_or(name);
        let mut namespaces: Vec<Target> = index
            .files(next)
            .iter()
            .filter(|&&file| module_path_ends_with(file.path(db), module))
            .map(|&file| Target::Module(file))
            .collect();
        for part in rest.iter().copied().chain([name]) {
            let mut found = Vec::new();
            for namespace in &namespaces {
                let Target::Module(file) = namespace else {
                    continue;
                };
                for target in resolver.module_member(*file, part) {
                    if !found.contains(&target) {
                        found.push(target);
                    }
                }
            }
            namespaces = found;
        }
        namespaces.retain(|target| match target {
            Target::Symbol { file, .. } => {
                path_prefix.is_none_or(|prefix| file.path(db).starts_with(prefix))
            }
            _ => false,
        });
        if !namespaces.is_empty() {
            return namespaces;
        }
    }
    Vec::new()
}

/// Go methods called `name` declared in `file` (`Type.Method`, `pkg.Type.Method`: the
/// qualifier names the receiver's type and its package's directory), as the members of
/// their type they are.
fn go_methods_named(
    resolver: &mut Resolver,
    file: SourceFile,
    name: &str,
    qualifier: &[&str],
) -> Vec<Target> {
    let names = resolver.names(file);
    let path = file.path(resolver.db()).clone();
    let (type_name, package) = match qualifier.split_last() {
        Some((last, rest)) => (Some(*last), rest),
        None => (None, qualifier),
    };
    if !module_path_ends_with(&path, package) {
        return Vec::new();
    }
    let mut targets = Vec::new();
    for id in names.occurrences_named(name).collect::<Vec<_>>() {
        let occurrence = names.occurrence(id);
        let receiver = occurrence.receiver.get().map(|r| names.name(r));
        if occurrence.role != Role::MemberDefinition
            || type_name.is_some_and(|t| Some(t) != receiver)
        {
            continue;
        }
        for target in resolver.resolve(file, id).targets {
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    targets
}

/// Whether the module at `path` is named by `parts` (its last parts: `os.path` fits
/// `lib/os/path.py`); true when `parts` is empty.
pub(crate) fn module_path_ends_with(path: &str, parts: &[&str]) -> bool {
    if parts.is_empty() {
        return true;
    }
    let segments: Vec<&str> = module_stem(path).split('/').collect();
    segments.ends_with(parts)
}

/// A module's path without its extension, a package standing for its `__init__`, `index`
/// or (Rust) `mod` file (`a/b/__init__.py`, `a/b/index.ts`, `a/b/mod.rs` → `a/b`); a Go file
/// stands for its package's directory.
fn module_stem(path: &str) -> &str {
    if path.ends_with(".go") {
        return path.rsplit_once('/').map_or("", |(dir, _)| dir);
    }
    let stem = path.rsplit_once('.').map_or(path, |(stem, _)| stem);
    let stem = stem.strip_suffix(".d").unwrap_or(stem);
    if path.ends_with(".rs")
        && let Some(module) = stem.strip_suffix("/mod")
    {
        return module;
    }
    ["/__init__", "/index"]
        .into_iter()
        .find_map(|package| stem.strip_suffix(package))
        .unwrap_or(stem)
}

/// Every occurrence that refers to one of `targets` (`exact`), or may (`heuristic`: a
/// member of a receiver of unknown type, when a target is a member), sorted by path and
/// position; with the number of files whose names were resolved. Rename edits these.
///
/// A caller that reads more of each hit's file than its name (a role, a line, the
/// enclosing definition) reads it in [`search_uses`] instead, while the file's names are
/// at hand: once this returns, the names of most files searched may no longer be kept.
pub(crate) fn search_hits(
    resolver: &mut Resolver,
    targets: &[Target],
    path_prefix: Option<&str>,
) -> (Vec<Hit>, usize) {
    search_uses(resolver, targets, path_prefix, |_, _, hits| hits.to_vec())
}

/// [`search_hits`], with what `take` keeps of each file's hits (`take` gets the file, its
/// names and its hits in one file's pass, and returns the kept occurrences with its own
/// value for each), sorted by path and position. Where texts are kept compressed, most
/// files' names are let go after their pass ([`Resolver::in_passing`]), so a search over
/// thousands of files never holds their tables together.
pub(crate) fn search_uses<T>(
    resolver: &mut Resolver,
    targets: &[Target],
    path_prefix: Option<&str>,
    mut take: impl FnMut(SourceFile, &FileNames, &[(OccurrenceId, Certainty)]) -> Vec<(OccurrenceId, T)>,
) -> (Vec<(SourceFile, OccurrenceId, T)>, usize) {
    // A symbol named without a meaning (`sextant refs X`) is every meaning of its name; a
    // member, where the language counts them, its family.
    let mut expanded: Vec<Target> = Vec::new();
    for target in targets {
        for member in resolver.member_family(target) {
            for meaning in resolver.meanings(&member) {
                if !expanded.contains(&meaning) {
                    expanded.push(meaning);
                }
            }
        }
    }
    let targets = expanded;
    let targets = targets.as_slice();
    let db = resolver.db();
    let workspace = resolver.workspace();
    let symbol_targets: Vec<&Target> = targets
        .iter()
        .filter(|t| matches!(t, Target::Symbol { .. } | Target::Module(_)))
        .collect();
    if symbol_targets.is_empty() {
        return (Vec::new(), 0);
    }
    // (file, word) pairs to resolve: the target's name in every file that can mention
    // it, and the local names that imports give it (`from m import x as y`) as found.
    let mut queue: VecDeque<(SourceFile, String)> = Default::default();
    let mut queued: HashSet<(SourceFile, String)> = Default::default();
    let mut enqueue =
        |queue: &mut VecDeque<(SourceFile, String)>, files: &[SourceFile], word: &str| {
            for &file in files {
                if queued.insert((file, word.to_string())) {
                    queue.push_back((file, word.to_string()));
                }
            }
        };
    for target in &symbol_targets {
        match target {
            Target::Symbol {
                file, scope, name, ..
            } => {
                let names = resolver.names(*file);
                // A function's parameters are named by keyword arguments wherever it is called.
                let is_parameter = names
                    .bindings(*scope, name)
                    .iter()
                    .any(|&b| names.occurrence(b).role == Role::Definition(BindingKind::Parameter));
                if *scope != 0 && !names.is_namespace(*scope) && !is_parameter {
                    enqueue(&mut queue, &[*file], name);
                } else {
                    enqueue(
                        &mut queue,
                        identifier_index(db, workspace).files(name).as_slice(),
                        name,
                    );
                }
                // `export { a as b }`: other modules reach it as `m.b`; `export default a`:
                // by whatever name each importer gives it.
                if *scope == 0 {
                    for exported in names.exported_as(name) {
                        enqueue(
                            &mut queue,
                            identifier_index(db, workspace).files(exported).as_slice(),
                            exported,
                        );
                        if exported == "default" {
                            for local in default_import_names(db, workspace, *file) {
                                enqueue(
                                    &mut queue,
                                    identifier_index(db, workspace).files(&local).as_slice(),
                                    &local,
                                );
                            }
                        }
                    }
                }
            }
            Target::Module(file) => {
                let word = module_name(db, *file);
                enqueue(
                    &mut queue,
                    identifier_index(db, workspace).files(&word).as_slice(),
                    &word,
                );
            }
            Target::External { .. } => {}
        }
    }
    let is_member_target = symbol_targets.iter().any(|t| match t {
        Target::Symbol { file, scope, .. } => {
            resolver.names(*file).scopes[*scope as usize].is_class
        }
        _ => false,
    });
    // The identifier index is by spelling across languages, but a name in one language
    // never uses a definition in another: Rust files spelling `join` are not searched
    // for Python's `posixpath.join`.
    let families: Vec<_> = symbol_targets
        .iter()
        .filter_map(|t| match t {
            Target::Symbol { file, .. } | Target::Module(file) => Some(family_of(db, *file)),
            Target::External { .. } => None,
        })
        .collect();
    let mut searched: HashSet<SourceFile> = Default::default();
    let mut uses = Vec::new();
    while let Some((file, word)) = queue.pop_front() {
        let path = file.path(db);
        if path_prefix.is_some_and(|prefix| !path.starts_with(prefix))
            || !families.contains(&family_of(db, file))
        {
            continue;
        }
        searched.insert(file);
        resolver.in_passing(file, |resolver, names| {
            let mut hits = Vec::new();
            for occurrence in names.occurrences_named(&word).collect::<Vec<_>>() {
                let resolution = resolver.resolve(file, occurrence);
                let certainty = if resolution.targets.iter().any(|t| targets.contains(t)) {
                    Certainty::Exact
                } else if resolution.heuristic && is_member_target {
                    Certainty::Heuristic
                } else {
                    continue;
                };
                if certainty == Certainty::Exact
                    && let Some(alias) = resolver.bound_as(file, occurrence)
                {
                    let at_top = names.occurrence(occurrence).scope == 0;
                    let files = if at_top {
                        identifier_index(db, workspace).files(&alias)
                    } else {
                        vec![file]
                    };
                    enqueue(&mut queue, &files, &alias);
                }
                hits.push((occurrence, certainty));
            }
            if !hits.is_empty() {
                let taken = take(file, names, &hits);
                uses.extend(
                    taken
                        .into_iter()
                        .map(|(occurrence, t)| (file, occurrence, t)),
                );
            }
        });
    }
    uses.sort_by(|a, b| (a.0.path(db), a.1).cmp(&(b.0.path(db), b.1)));
    uses.dedup_by_key(|h| (h.0, h.1));
    (uses, searched.len())
}

/// A file's language family, its dialect aside (JavaScript and TypeScript are one).
fn family_of(db: &dyn Db, file: SourceFile) -> std::mem::Discriminant<Family> {
    std::mem::discriminant(&file.lang(db).info().family)
}

/// The names the files importing `file` bind its default export to (`x` of `import x from
/// "./m"`), from the import graph: a name of their own, which the file never spells.
fn default_import_names(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<String> {
    let graph = import_graph(db, workspace);
    let Some(node) = graph.node(file) else {
        return Vec::new();
    };
    let mut locals = Vec::new();
    for &importer in &graph.graph.backward[node as usize] {
        let importer = importer as usize;
        let imports = file_imports(db, graph.graph.nodes[importer]);
        let leading_here = graph.dependencies[importer]
            .files
            .iter()
            .filter(|(target, _)| *target == file)
            .flat_map(|(_, indices)| indices);
        for &index in leading_here {
            if let Some(import) = imports.get(index as usize)
                && import.name.as_deref() == Some("default")
                && let Some(alias) = &import.alias
                && !locals.iter().any(|local| local == alias)
            {
                locals.push(alias.to_string());
            }
        }
    }
    locals
}

/// The name a module is used by: a Go package's `package` clause, else [`module_word`].
pub(crate) fn module_name(db: &dyn Db, file: SourceFile) -> String {
    match go::is_go(db, file)
        .then(|| go::package_clause(db, file))
        .flatten()
    {
        Some(name) => name.to_string(),
        _ => module_word(file.path(db)),
    }
}

/// The word a module is imported by: its file's stem, or its package's directory name.
fn module_word(path: &str) -> String {
    let stem = module_stem(path);
    stem.rsplit('/').next().unwrap_or(stem).to_string()
}
