//! `definition` and `references`: what a name refers to, and every use of it.
//!
//! Both start from a position (the name under a cursor) or from a name as people write
//! it (`join`, `posixpath.join`, `Class.method`). Every answer says whether it is `exact`
//! (resolved through scopes and imports) or `heuristic` (a member matched by name on a
//! receiver of unknown type); references are searched only in the files the identifier
//! index says can mention the name.

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        self,
        names::{
            BindingKind, FileNames, OccurrenceId, Role, go,
            identifiers::identifier_index,
            resolve::{Resolver, Target},
        },
        symbols::{SymbolKind, file_symbols},
    },
};

/// How a definition or a reference was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Certainty {
    /// Resolved through scopes and imports.
    Exact,
    /// Matched by name: the receiver's type is unknown.
    Heuristic,
}

/// A place a name is defined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Definition {
    pub name: String,
    /// `function`, `class`, `type`, `type_parameter`, `parameter`, `variable`, `import`,
    /// `attribute`, `method` (a Go method), `module`, or for something outside the
    /// workspace `external`.
    pub kind: String,
    /// Workspace-relative; absent for something outside the workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The defining name (a module: its first character).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Outside the workspace: the module it comes from (`builtins` for builtins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    pub certainty: Certainty,
}

/// How a reference uses the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceRole {
    Definition,
    Import,
    Call,
    Read,
    Write,
    Type,
}

/// One use of the name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Reference {
    pub path: String,
    pub span: Span,
    pub role: ReferenceRole,
    pub certainty: Certainty,
    /// The source line it is on, trimmed.
    pub line_text: String,
}

#[derive(Clone, Debug, Default)]
pub struct ReferenceQuery {
    /// Only `exact` references.
    pub exact_only: bool,
    /// Leave out the definitions themselves.
    pub exclude_definitions: bool,
    /// Only files whose workspace-relative path starts with this.
    pub path_prefix: Option<String>,
    pub limit: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct References {
    /// What was searched for.
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
    /// References found in all; more than `references.len()` when truncated.
    pub total: usize,
    pub truncated: bool,
    /// Files whose names were resolved (those that can mention the name).
    pub files_searched: usize,
}

pub(crate) fn definition(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Definition> {
    definitions_at(db, workspace, file, offset)
        .into_iter()
        .map(|(_, definition)| definition)
        .collect()
}

/// The definitions of the name at `offset`, each with the file it is in (none outside the
/// workspace), for operations that go on from there (hover, the call hierarchy).
pub(crate) fn definitions_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<(Option<SourceFile>, Definition)> {
    let mut resolver = Resolver::new(db, workspace);
    let names = resolver.names(file);
    let Some(occurrence) = names.at_offset(offset) else {
        return Vec::new();
    };
    let resolution = resolver.resolve(file, occurrence);
    let name = names.name(occurrence).to_string();
    if resolution.heuristic {
        return members_named(db, workspace, &name);
    }
    let mut found = Vec::new();
    for target in &resolution.targets {
        let mut sites = resolver.definitions(target);
        if let Target::Symbol {
            file: target_file,
            scope,
            ..
        } = target
            && *target_file == file
            && sites.len() > 1
        {
            let occ = names.occurrence(occurrence);
            let reaching = if occ.scope == *scope {
                // In the binding's own scope: every assignment that may hold there.
                let bindings: Vec<OccurrenceId> = sites.iter().map(|&(_, s)| s).collect();
                names.reaching(&bindings, occurrence, names.scopes[*scope as usize].range)
            } else {
                // From a nested scope, which runs later: the last one made before it.
                let at = u32::from(occ.range.start());
                sites
                    .iter()
                    .rev()
                    .map(|&(_, s)| s)
                    .find(|&s| names.bound_at(s, at))
                    .into_iter()
                    .collect()
            };
            sites = match reaching.is_empty() {
                true => vec![sites[0]],
                false => reaching.into_iter().map(|s| (file, s)).collect(),
            };
        }
        found.extend(target_definitions(db, &mut resolver, target, sites));
    }
    // A class member's own definition: also the member of a base class it overrides; a
    // name bound by destructuring: also the member it is taken from.
    let occ = names.occurrence(occurrence);
    let mut related = resolver.destructured_from(file, occurrence);
    if matches!(occ.role, Role::Definition(_)) && names.scopes[occ.scope as usize].is_class {
        related.extend(resolver.overridden(file, occ.scope, &name));
    }
    for target in related {
        let sites = resolver.definitions(&target);
        found.extend(target_definitions(db, &mut resolver, &target, sites));
    }
    found
}

/// The definitions `target` stands for, with their files: the binding `sites` chosen for
/// it, or the module or outside name it is.
fn target_definitions(
    db: &dyn Db,
    resolver: &mut Resolver,
    target: &Target,
    sites: Vec<(SourceFile, OccurrenceId)>,
) -> Vec<(Option<SourceFile>, Definition)> {
    let mut found = Vec::new();
    for (site_file, site) in sites {
        let names = resolver.names(site_file);
        found.push((
            Some(site_file),
            binding_definition(db, &names, site_file, site),
        ));
    }
    if let Some(definition) = other_definition(db, target) {
        let module = match target {
            Target::Module(module) => Some(*module),
            _ => None,
        };
        found.push((module, definition));
    }
    found
}

pub(crate) fn references(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
    query: &ReferenceQuery,
) -> References {
    let mut resolver = Resolver::new(db, workspace);
    let names = resolver.names(file);
    let targets = match names.at_offset(offset) {
        Some(occurrence) => resolver.resolve(file, occurrence).targets,
        None => Vec::new(),
    };
    search(&mut resolver, targets, query)
}

/// References of the definitions called `name`: `join`, or qualified by a module or
/// class: `posixpath.join`, `Class.method`, `pkg.mod.Class.method`.
pub(crate) fn references_by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    query: &ReferenceQuery,
) -> References {
    let mut resolver = Resolver::new(db, workspace);
    // The prefix limits where references are listed, not where the name is defined.
    let targets = targets_named(&mut resolver, name, None);
    search(&mut resolver, targets, query)
}

/// Definitions of the symbols called `name` (qualified or not), as `references_by_name`
/// finds them.
pub(crate) fn definition_by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
) -> Vec<Definition> {
    let mut resolver = Resolver::new(db, workspace);
    let targets = targets_named(&mut resolver, name, path_prefix);
    let mut found = Vec::new();
    for target in targets {
        for (file, site) in resolver.definitions(&target) {
            found.push(binding_definition(db, &resolver.names(file), file, site));
        }
    }
    found
}

/// The module-level and class-level symbols matching a written name.
pub(crate) fn targets_named(
    resolver: &mut Resolver,
    written: &str,
    path_prefix: Option<&str>,
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
    let index = identifier_index(db, workspace);
    // With a qualifier, a file can define the name only if its path is the module named or
    // it mentions the class named.
    let class_files: std::collections::HashSet<SourceFile> = qualifier
        .last()
        .map(|class| index.files(class).iter().copied().collect())
        .unwrap_or_default();
    let mut targets = Vec::new();
    for &file in index.files(name) {
        let path = file.path(db);
        if path_prefix.is_some_and(|prefix| !path.starts_with(prefix)) {
            continue;
        }
        if !module_path_ends_with(path, qualifier) && !class_files.contains(&file) {
            continue;
        }
        let names = resolver.names(file);
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
            });
        }
        if go::is_go(db, file) {
            for target in go_methods_named(resolver, file, name, qualifier) {
                if !targets.contains(&target) {
                    targets.push(target);
                }
            }
        }
    }
    if targets.is_empty() && !qualifier.is_empty() {
        targets = through_modules(resolver, name, qualifier, path_prefix);
    }
    targets
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
        let receiver = occurrence.receiver.map(|r| names.name(r));
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
fn module_path_ends_with(path: &str, parts: &[&str]) -> bool {
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

fn search(resolver: &mut Resolver, targets: Vec<Target>, query: &ReferenceQuery) -> References {
    let db = resolver.db();
    let mut definitions = Vec::new();
    let mut found: Vec<Reference> = Vec::new();
    let limit = query.limit.max(1);
    let mut total = 0;
    for target in &targets {
        for (file, site) in resolver.definitions(target) {
            definitions.push(binding_definition(db, &resolver.names(file), file, site));
        }
        if let Some(definition) = other_definition(db, target) {
            definitions.push(definition);
        }
    }
    // The prefix bounds the whole answer: definitions elsewhere (or outside the
    // workspace) are left out with the references there.
    if let Some(prefix) = &query.path_prefix {
        definitions.retain(|d: &Definition| {
            d.path
                .as_ref()
                .is_some_and(|p| p.starts_with(prefix.as_str()))
        });
    }
    let (hits, files_searched) = search_hits(resolver, &targets, query.path_prefix.as_deref());
    for (file, occurrence, certainty) in hits {
        if query.exact_only && certainty != Certainty::Exact {
            continue;
        }
        let names = resolver.names(file);
        let role = reference_role(&names, occurrence, go::is_go(db, file));
        if query.exclude_definitions && role == ReferenceRole::Definition {
            continue;
        }
        total += 1;
        if found.len() < limit {
            let index = semantic::line_index(db, file);
            let span = Span::new(&index, names.occurrence(occurrence).range);
            found.push(Reference {
                path: file.path(db).clone(),
                line_text: line_text(file.text(db), span.byte_start as usize),
                span,
                role,
                certainty,
            });
        }
    }
    References {
        truncated: total > found.len(),
        definitions,
        references: found,
        total,
        files_searched,
    }
}

/// Every occurrence that refers to one of `targets` (`exact`), or may (`heuristic`: a
/// member of a receiver of unknown type, when a target is a member), sorted by path and
/// position; with the number of files whose names were resolved. Rename edits these.
pub(crate) fn search_hits(
    resolver: &mut Resolver,
    targets: &[Target],
    path_prefix: Option<&str>,
) -> (Vec<(SourceFile, OccurrenceId, Certainty)>, usize) {
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
    let mut queue: std::collections::VecDeque<(SourceFile, String)> = Default::default();
    let mut queued: std::collections::HashSet<(SourceFile, String)> = Default::default();
    let mut enqueue = |queue: &mut std::collections::VecDeque<(SourceFile, String)>,
                       files: &[SourceFile],
                       word: &str| {
        for &file in files {
            if queued.insert((file, word.to_string())) {
                queue.push_back((file, word.to_string()));
            }
        }
    };
    for target in &symbol_targets {
        match target {
            Target::Symbol { file, scope, name } => {
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
                        identifier_index(db, workspace).files(name),
                        name,
                    );
                }
            }
            Target::Module(file) => {
                let word = module_name(db, *file);
                enqueue(
                    &mut queue,
                    identifier_index(db, workspace).files(&word),
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
    let mut searched: std::collections::HashSet<SourceFile> = Default::default();
    let mut hits: Vec<(SourceFile, OccurrenceId, Certainty)> = Vec::new();
    while let Some((file, word)) = queue.pop_front() {
        let path = file.path(db);
        if path_prefix.is_some_and(|prefix| !path.starts_with(prefix)) {
            continue;
        }
        searched.insert(file);
        let names = resolver.names(file);
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
                    identifier_index(db, workspace).files(&alias).to_vec()
                } else {
                    vec![file]
                };
                enqueue(&mut queue, &files, &alias);
            }
            hits.push((file, occurrence, certainty));
        }
    }
    hits.sort_by(|a, b| (a.0.path(db), a.1).cmp(&(b.0.path(db), b.1)));
    hits.dedup_by_key(|h| (h.0, h.1));
    (hits, searched.len())
}

/// The name a module is used by: a Go package's `package` clause, else [`module_word`].
fn module_name(db: &dyn Db, file: SourceFile) -> String {
    match go::package_name(file.text(db)) {
        Some(name) if go::is_go(db, file) => name.to_string(),
        _ => module_word(file.path(db)),
    }
}

/// The word a module is imported by: its file's stem, or its package's directory name.
fn module_word(path: &str) -> String {
    let stem = module_stem(path);
    stem.rsplit('/').next().unwrap_or(stem).to_string()
}

fn reference_role(names: &FileNames, occurrence: OccurrenceId, is_go: bool) -> ReferenceRole {
    match names.occurrence(occurrence).role {
        Role::Definition(BindingKind::Import) | Role::Imported | Role::ModulePath => {
            ReferenceRole::Import
        }
        // Go's member definitions are method declarations, bound in no scope: a package
        // function of the same name is another symbol, not an earlier assignment.
        Role::MemberDefinition if is_go => ReferenceRole::Definition,
        Role::Definition(BindingKind::Variable) | Role::MemberDefinition => {
            // The first assignment defines a variable; later ones, and assignments to a
            // name declared `global` or `nonlocal`, write it.
            let name = names.name(occurrence);
            let scope = names.occurrence(occurrence).scope;
            if names.declaration(scope, name).is_some() {
                return ReferenceRole::Write;
            }
            match names.bindings(scope, name).first() {
                Some(&first) if first != occurrence => ReferenceRole::Write,
                _ => ReferenceRole::Definition,
            }
        }
        Role::Definition(_) => ReferenceRole::Definition,
        Role::Call | Role::MemberCall => ReferenceRole::Call,
        Role::Type => ReferenceRole::Type,
        Role::Write => ReferenceRole::Write,
        Role::Read
        | Role::Member
        | Role::Global
        | Role::Nonlocal
        | Role::SelfReference
        | Role::SuperReference
        | Role::KeywordArgument => ReferenceRole::Read,
    }
}

pub(crate) fn line_text(text: &str, offset: usize) -> String {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    // An agent pays for every character: a minified line is cut.
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

pub(crate) fn binding_definition(
    db: &dyn Db,
    names: &FileNames,
    file: SourceFile,
    site: OccurrenceId,
) -> Definition {
    let occurrence = names.occurrence(site);
    let kind = match occurrence.role {
        Role::Definition(BindingKind::Function) => "function",
        Role::Definition(BindingKind::Class) => "class",
        Role::Definition(BindingKind::Parameter) => "parameter",
        Role::Definition(BindingKind::Import) => "import",
        Role::Definition(BindingKind::Type) => "type",
        Role::Definition(BindingKind::TypeParameter) => "type_parameter",
        Role::MemberDefinition if go::is_go(db, file) => "method",
        Role::Definition(BindingKind::Module) => "module",
        Role::MemberDefinition => "attribute",
        _ => "variable",
    };
    let index = semantic::line_index(db, file);
    Definition {
        name: names.name(site).to_string(),
        kind: kind.to_string(),
        path: Some(file.path(db).clone()),
        span: Some(Span::new(&index, occurrence.range)),
        module: None,
        certainty: Certainty::Exact,
    }
}

/// A definition that is not a binding: a module, or something outside the workspace.
fn other_definition(db: &dyn Db, target: &Target) -> Option<Definition> {
    match target {
        Target::Symbol { .. } => None,
        Target::Module(file) => {
            let index = semantic::line_index(db, *file);
            Some(Definition {
                name: module_name(db, *file),
                kind: "module".into(),
                path: Some(file.path(db).clone()),
                span: Some(Span::new(&index, crate::syntax::TextRange::empty(0.into()))),
                module: None,
                certainty: Certainty::Exact,
            })
        }
        Target::External { module, name } => Some(Definition {
            name: name.clone().unwrap_or_else(|| module.clone()),
            kind: "external".into(),
            path: None,
            span: None,
            module: Some(module.clone()),
            certainty: Certainty::Exact,
        }),
    }
}

/// Members called `name` of any class in the workspace: the guesses for `obj.name` when
/// what `obj` is cannot be told.
fn members_named(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
) -> Vec<(Option<SourceFile>, Definition)> {
    let mut found = Vec::new();
    for &file in identifier_index(db, workspace).files(name) {
        let symbols = file_symbols(db, file);
        for (summary, position) in symbols.summaries.iter().zip(symbols.positions.iter()) {
            // A Go method is named after its receiver's type (a container, no parent).
            let is_member = (summary.parent.is_some() || summary.container.is_some())
                && matches!(
                    summary.kind,
                    SymbolKind::Method
                        | SymbolKind::Field
                        | SymbolKind::Constant
                        | SymbolKind::Variable
                );
            if summary.name == name && is_member {
                let definition = Definition {
                    name: name.to_string(),
                    kind: summary.kind.as_str().to_string(),
                    path: Some(file.path(db).clone()),
                    span: Some(Span::from_start(
                        file.text(db),
                        position.name_range,
                        position.name_start,
                    )),
                    module: None,
                    certainty: Certainty::Heuristic,
                };
                found.push((Some(file), definition));
            }
        }
    }
    found
}
