//! Type hierarchies: which types derive from or implement a type (subtypes), which it
//! derives from or implements (supertypes), and the methods that override one.
//!
//! A base is written in the deriving type's file, so subtypes of `T` are looked for only in
//! the files the identifier index lists for `T`'s name, and of those only in the files whose
//! [`file_hierarchy`] names `T` as a base; each such base is then resolved by the
//! [`Resolver`]: through scopes and imports to `T` it is `exact`, unresolved it is
//! `heuristic` (matched by name), resolved elsewhere it is no subtype. Go's interfaces are
//! satisfied implicitly: a named type whose method set (value and pointer receivers, and
//! methods promoted from embedded types) has every method of the interface, compared by
//! name and parameter and result counts ([`go_method_sets`]), is a `heuristic` subtype.
//!
//! Invariant: reads per-file memoized facts ([`file_hierarchy`], [`go_method_sets`],
//! `file_names`) and resolves at query time, so an edit re-runs only the edited file's
//! facts; answers are in database terms (files, occurrences, scopes).

use std::{
    collections::{BTreeSet, HashSet},
    sync::Arc,
};

use super::{
    definitions::{DefinitionSite, definitions_at},
    search::Certainty,
};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        facts::go::{GoMethodShape, go_method_sets},
        names::{
            BindingKind, OccurrenceId, Role, ScopeId,
            go::{is_go, package_files},
            hierarchy::{file_hierarchy, is_type_definition, may_have_impls},
            identifiers::identifier_index,
            resolve::{Resolver, Target},
            spaces::Space,
        },
    },
};

/// How many levels of subtypes or supertypes a transitive walk follows.
const MAX_LEVELS: u32 = 32;

/// A node of a type hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TypeNode {
    /// A type declaration, by the occurrence of its name.
    Type {
        file: SourceFile,
        occurrence: OccurrenceId,
    },
    /// A Rust trait impl (`impl Trait for Type`): an implementation of the trait.
    Impl { file: SourceFile, scope: ScopeId },
}

impl TypeNode {
    pub(crate) fn file(self) -> SourceFile {
        match self {
            TypeNode::Type { file, .. } | TypeNode::Impl { file, .. } => file,
        }
    }
}

/// What a hierarchy question starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    Type(TypeNode),
    /// A method, by its definition, and the type (or impl) that declares it.
    Method {
        owner: TypeNode,
        name: Arc<str>,
        file: SourceFile,
        occurrence: OccurrenceId,
    },
}

/// A node found from another, with how surely and how many levels away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Related {
    pub(crate) node: TypeNode,
    pub(crate) certainty: Certainty,
    pub(crate) depth: u32,
}

/// A method found from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RelatedMethod {
    pub(crate) file: SourceFile,
    pub(crate) occurrence: OccurrenceId,
    pub(crate) certainty: Certainty,
    pub(crate) depth: u32,
}

/// Which way a walk goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Subtypes,
    Supertypes,
}

/// The type or method that the name at `offset` of `file` stands for (its definition, or a
/// use of it).
pub(crate) fn subject_at(
    resolver: &mut Resolver,
    file: SourceFile,
    offset: usize,
) -> Option<Subject> {
    let sites = definitions_at(resolver.db(), resolver.workspace(), file, offset);
    sites.into_iter().find_map(|site| match site {
        DefinitionSite::Binding { file, occurrence } => {
            subject_of_definition(resolver, file, occurrence)
        }
        _ => None,
    })
}

/// The subjects a name as people write it stands for (`Shape`, `Shape.area`), as
/// `targets` of the name found by `engine::search::targets_named`.
pub(crate) fn subjects_of_targets(resolver: &mut Resolver, targets: &[Target]) -> Vec<Subject> {
    let mut found = Vec::new();
    for target in targets {
        for (file, occurrence) in resolver.definitions(target) {
            if let Some(subject) = subject_of_definition(resolver, file, occurrence)
                && !found.contains(&subject)
            {
                found.push(subject);
            }
        }
    }
    found
}

/// The subject a definition is: a type, a method of a type, trait or impl block, or a Go
/// method (declared on its receiver's type).
pub(crate) fn subject_of_definition(
    resolver: &mut Resolver,
    file: SourceFile,
    occurrence: OccurrenceId,
) -> Option<Subject> {
    let names = resolver.names(file);
    if is_type_definition(&names, occurrence) {
        return Some(Subject::Type(TypeNode::Type { file, occurrence }));
    }
    let occ = names.occurrence(occurrence).clone();
    let name: Arc<str> = names.name(occurrence).into();
    let owner = match occ.role {
        Role::Definition(BindingKind::Function) if names.scopes[occ.scope as usize].is_class => {
            match names.impl_of(occ.scope) {
                // An inherent impl's method overrides nothing and nothing overrides it: its
                // impl node has no supertypes and no subtypes.
                Some(_) => TypeNode::Impl {
                    file,
                    scope: occ.scope,
                },
                None => TypeNode::Type {
                    file,
                    occurrence: names.scopes[occ.scope as usize].named_by?,
                },
            }
        }
        // A Go method, declared on its receiver's type.
        Role::MemberDefinition if is_go(resolver.db(), file) => {
            resolve_types(resolver, file, occ.receiver.get()?)
                .into_iter()
                .next()?
        }
        _ => return None,
    };
    Some(Subject::Method {
        owner,
        name,
        file,
        occurrence,
    })
}

/// Every type `start` reaches in `direction`, nearest first, each once (a type reached two
/// ways keeps its surest way). A step's certainty is the least sure of its path.
pub(crate) fn walk(resolver: &mut Resolver, start: TypeNode, direction: Direction) -> Vec<Related> {
    let mut found: Vec<Related> = Vec::new();
    let mut seen: HashSet<TypeNode> = HashSet::from([start]);
    let mut frontier = vec![(start, Certainty::Exact)];
    for depth in 1..=MAX_LEVELS {
        let mut next = Vec::new();
        for (node, path_certainty) in frontier {
            let step = match direction {
                Direction::Subtypes => direct_subtypes(resolver, node),
                Direction::Supertypes => direct_supertypes(resolver, node),
            };
            for (reached, certainty) in step {
                let certainty = least_sure(path_certainty, certainty);
                if seen.insert(reached) {
                    found.push(Related {
                        node: reached,
                        certainty,
                        depth,
                    });
                    next.push((reached, certainty));
                } else if certainty == Certainty::Exact
                    && let Some(known) = found.iter_mut().find(|r| r.node == reached)
                {
                    known.certainty = Certainty::Exact;
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    found
}

/// The methods called like `subject`'s that override it (`Subtypes`) or that it overrides
/// (`Supertypes`), through every level of the hierarchy.
pub(crate) fn related_methods(
    resolver: &mut Resolver,
    owner: TypeNode,
    name: &str,
    direction: Direction,
) -> Vec<RelatedMethod> {
    let mut found = Vec::new();
    for related in walk(resolver, owner, direction) {
        for (file, occurrence) in methods_of(resolver, related.node, name) {
            found.push(RelatedMethod {
                file,
                occurrence,
                certainty: related.certainty,
                depth: related.depth,
            });
        }
    }
    found
}

/// The methods called `name` that `node` declares: in its body, in its impl blocks'
/// bodies (Rust, for an impl node), or on it as a receiver (Go, in any file of its package).
pub(crate) fn methods_of(
    resolver: &mut Resolver,
    node: TypeNode,
    name: &str,
) -> Vec<(SourceFile, OccurrenceId)> {
    let (file, scope) = match node {
        TypeNode::Impl { file, scope } => (file, scope),
        TypeNode::Type { file, occurrence } => {
            let names = resolver.names(file);
            match names.scope_named_by(occurrence) {
                Some(scope) => (file, scope),
                None => return Vec::new(),
            }
        }
    };
    let target = Target::Symbol {
        file,
        scope,
        name: name.into(),
        space: Space::All,
    };
    let mut sites = resolver.definitions(&target);
    sites.retain(|&(site_file, occurrence)| {
        let names = resolver.names(site_file);
        match names.occurrence(occurrence).role {
            Role::Definition(BindingKind::Function) => true,
            Role::MemberDefinition => is_go(resolver.db(), site_file),
            _ => false,
        }
    });
    // Several definitions in one body are overloads (TypeScript's signatures, Python's
    // `@overload`) or redefinitions: the last one is what runs.
    let mut last_per_scope: Vec<(SourceFile, OccurrenceId)> = Vec::new();
    for (site_file, occurrence) in sites {
        let scope = resolver.names(site_file).occurrence(occurrence).scope;
        let same_scope = |&(f, o): &(SourceFile, OccurrenceId)| {
            f == site_file && resolver.names(f).occurrence(o).scope == scope
        };
        match last_per_scope.iter().position(same_scope) {
            Some(i) => last_per_scope[i] = (site_file, occurrence),
            None => last_per_scope.push((site_file, occurrence)),
        }
    }
    last_per_scope
}

/// The types and trait impls that name `node` as a base or implement it, one level down.
fn direct_subtypes(resolver: &mut Resolver, node: TypeNode) -> Vec<(TypeNode, Certainty)> {
    let TypeNode::Type { file, occurrence } = node else {
        return Vec::new();
    };
    let db = resolver.db();
    let workspace = resolver.workspace();
    let name = resolver.names(file).name(occurrence).to_string();
    let mut found = Vec::new();
    let candidates = identifier_index(db, workspace).files(&name);
    for candidate in candidates {
        let hierarchy = file_hierarchy(db, candidate);
        if hierarchy.derived.is_empty() && hierarchy.trait_impls.is_empty() {
            continue;
        }
        // The file may import the type under another name (`import {T as U}`).
        let mut local_names = vec![name.clone()];
        if !hierarchy.derives_from(&name) {
            local_names.extend(
                aliases(resolver, candidate, &name)
                    .into_iter()
                    .filter(|alias| hierarchy.derives_from(alias)),
            );
            if local_names.len() == 1 {
                continue;
            }
        }
        found.extend(subtypes_in_file(resolver, candidate, &local_names, node));
    }
    if is_go(db, file) && is_go_interface(db, file, &name) {
        found.extend(
            go_satisfying_types(resolver, file, &name)
                .into_iter()
                .map(|n| (n, Certainty::Heuristic)),
        );
    }
    found
}

/// The types declared in `file` and its trait impls that write `node` as a base, under one
/// of `local_names` (its name and the aliases `file` imports it as).
fn subtypes_in_file(
    resolver: &mut Resolver,
    file: SourceFile,
    local_names: &[String],
    node: TypeNode,
) -> Vec<(TypeNode, Certainty)> {
    let db = resolver.db();
    let names = resolver.names(file);
    let is_local_name =
        |occurrence: OccurrenceId| local_names.iter().any(|n| n == names.name(occurrence));
    let mut derived: Vec<(OccurrenceId, OccurrenceId)> = names
        .bases
        .iter()
        .filter(|(class, _)| is_type_definition(&names, **class))
        .flat_map(|(&class, bases)| bases.iter().map(move |&b| (class, b)))
        .filter(|&(_, base)| is_local_name(base))
        .collect();
    derived.sort_unstable();
    let mut found = Vec::new();
    for (class, base) in derived {
        // Go: only an interface embedding another is its subtype; an embedded struct field
        // promotes methods, which the method sets account for.
        if is_go(db, file) && !is_go_interface(db, file, names.name(class)) {
            continue;
        }
        if let Some(certainty) = base_certainty(resolver, file, base, node) {
            let occurrence = class;
            found.push((TypeNode::Type { file, occurrence }, certainty));
        }
    }
    for block in names.impls.iter() {
        let Some(trait_name) = block.trait_name.filter(|&t| is_local_name(t)) else {
            continue;
        };
        if let Some(certainty) = base_certainty(resolver, file, trait_name, node) {
            let scope = block.scope;
            found.push((TypeNode::Impl { file, scope }, certainty));
        }
    }
    found
}

/// The names `file` binds the imported `name` to under another name (`U` of
/// `import {T as U}`, `use a::T as U`).
fn aliases(resolver: &mut Resolver, file: SourceFile, name: &str) -> Vec<String> {
    let names = resolver.names(file);
    let imported: Vec<OccurrenceId> = names
        .occurrences_named(name)
        .filter(|&o| names.occurrence(o).role == Role::Imported)
        .collect();
    imported
        .into_iter()
        .filter_map(|o| resolver.bound_as(file, o))
        .filter(|alias| alias != name)
        .collect()
}

/// How surely the base written at `base` of `file` is `node`: `Exact` when it resolves to
/// it, `Heuristic` when it resolves to nothing (matched by name), `None` when it resolves
/// to something else.
fn base_certainty(
    resolver: &mut Resolver,
    file: SourceFile,
    base: OccurrenceId,
    node: TypeNode,
) -> Option<Certainty> {
    let resolution = resolver.resolve(file, base);
    if resolution.targets.is_empty() {
        return Some(Certainty::Heuristic);
    }
    let types = types_of_targets(resolver, &resolution.targets);
    if types.contains(&node) {
        return Some(match resolution.heuristic {
            true => Certainty::Heuristic,
            false => Certainty::Exact,
        });
    }
    None
}

/// The types and traits `node` names as bases or implements, one level up.
pub(crate) fn direct_supertypes(
    resolver: &mut Resolver,
    node: TypeNode,
) -> Vec<(TypeNode, Certainty)> {
    let db = resolver.db();
    let mut found = Vec::new();
    match node {
        TypeNode::Impl { file, scope } => {
            let names = resolver.names(file);
            if let Some(trait_name) = names.impl_of(scope).and_then(|i| i.trait_name) {
                found.extend(written_supertypes(resolver, file, trait_name));
            }
        }
        TypeNode::Type { file, occurrence } => {
            let names = resolver.names(file);
            let name = names.name(occurrence).to_string();
            let go = is_go(db, file);
            let go_interface = go && is_go_interface(db, file, &name);
            if !go || go_interface {
                let bases = names.bases.get(&occurrence).cloned().unwrap_or_default();
                for base in bases {
                    found.extend(written_supertypes(resolver, file, base));
                }
            }
            found.extend(implemented_traits(resolver, node, &name));
            if go && !go_interface {
                found.extend(
                    go_satisfied_interfaces(resolver, file, &name)
                        .into_iter()
                        .map(|n| (n, Certainty::Heuristic)),
                );
            }
        }
    }
    found
}

/// The types the base written at `base` of `file` stands for: resolved, `exact`; when it
/// resolves to nothing, the workspace's types of that name, `heuristic`.
fn written_supertypes(
    resolver: &mut Resolver,
    file: SourceFile,
    base: OccurrenceId,
) -> Vec<(TypeNode, Certainty)> {
    let resolution = resolver.resolve(file, base);
    if !resolution.targets.is_empty() {
        let certainty = match resolution.heuristic {
            true => Certainty::Heuristic,
            false => Certainty::Exact,
        };
        return types_of_targets(resolver, &resolution.targets)
            .into_iter()
            .map(|n| (n, certainty))
            .collect();
    }
    let name = resolver.names(file).name(base).to_string();
    types_named(resolver, &name)
        .into_iter()
        .map(|n| (n, Certainty::Heuristic))
        .collect()
}

/// Rust: the trait impls written for the type `node` (called `name`), as the impl nodes'
/// traits.
fn implemented_traits(
    resolver: &mut Resolver,
    node: TypeNode,
    name: &str,
) -> Vec<(TypeNode, Certainty)> {
    let db = resolver.db();
    let mut found = Vec::new();
    let candidates = identifier_index(db, resolver.workspace())
        .files(name)
        .to_vec();
    for candidate in candidates {
        if !may_have_impls(candidate.lang(db).info())
            || !file_hierarchy(db, candidate).implements_for(name)
        {
            continue;
        }
        let names = resolver.names(candidate);
        for block in names.impls.iter() {
            let Some(trait_name) = block.trait_name else {
                continue;
            };
            if names.name(block.self_type) != name
                || base_certainty(resolver, candidate, block.self_type, node)
                    != Some(Certainty::Exact)
            {
                continue;
            }
            found.extend(written_supertypes(resolver, candidate, trait_name));
        }
    }
    found
}

/// What `occurrence` of `file` (a written type's name) resolves to, as type declarations.
fn resolve_types(
    resolver: &mut Resolver,
    file: SourceFile,
    occurrence: OccurrenceId,
) -> Vec<TypeNode> {
    let targets = resolver.resolve(file, occurrence).targets;
    types_of_targets(resolver, &targets)
}

fn types_of_targets(resolver: &mut Resolver, targets: &[Target]) -> Vec<TypeNode> {
    let mut found = Vec::new();
    for target in targets {
        for (file, occurrence) in resolver.definitions(target) {
            let names = resolver.names(file);
            let node = TypeNode::Type { file, occurrence };
            if is_type_definition(&names, occurrence) && !found.contains(&node) {
                found.push(node);
            }
        }
    }
    found
}

/// The workspace's type declarations called `name` at any level of their files.
fn types_named(resolver: &mut Resolver, name: &str) -> Vec<TypeNode> {
    let db = resolver.db();
    let mut found = Vec::new();
    for file in identifier_index(db, resolver.workspace()).files(name) {
        let names = resolver.names(file);
        for occurrence in names.occurrences_named(name) {
            if is_type_definition(&names, occurrence) {
                found.push(TypeNode::Type { file, occurrence });
            }
        }
    }
    found
}

fn is_go_interface(db: &dyn Db, file: SourceFile, name: &str) -> bool {
    go_method_sets(db, file).interfaces.contains_key(name)
}

/// A Go interface's methods, those of the interfaces it embeds (in its package) included.
fn go_interface_methods(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: &str,
    depth: u32,
) -> BTreeSet<GoMethodShape> {
    let mut methods = BTreeSet::new();
    if depth > MAX_LEVELS {
        return methods;
    }
    for package_file in package_files(db, workspace, file, name) {
        let sets = go_method_sets(db, package_file);
        let Some(interface) = sets.interfaces.get(name) else {
            continue;
        };
        methods.extend(interface.methods.iter().cloned());
        for embedded in &interface.embedded {
            methods.extend(go_interface_methods(
                db,
                workspace,
                package_file,
                embedded,
                depth + 1,
            ));
        }
    }
    methods
}

/// A Go named type's method set: the methods declared on it with a value or a pointer
/// receiver in any file of its package, and those promoted from the types it embeds.
fn go_type_methods(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: &str,
    depth: u32,
) -> BTreeSet<GoMethodShape> {
    let mut methods = BTreeSet::new();
    if depth > MAX_LEVELS {
        return methods;
    }
    for package_file in package_files(db, workspace, file, name) {
        let sets = go_method_sets(db, package_file);
        if let Some(declared) = sets.methods.get(name) {
            methods.extend(declared.iter().cloned());
        }
        for embedded in sets.embedded.get(name).into_iter().flatten() {
            methods.extend(go_type_methods(
                db,
                workspace,
                package_file,
                embedded,
                depth + 1,
            ));
            methods.extend(go_interface_methods(
                db,
                workspace,
                package_file,
                embedded,
                depth + 1,
            ));
        }
    }
    methods
}

/// The Go types of the workspace whose method sets satisfy the interface `name` declared
/// in `file`. An interface without methods is satisfied by every type and answers none.
fn go_satisfying_types(resolver: &mut Resolver, file: SourceFile, name: &str) -> Vec<TypeNode> {
    let db = resolver.db();
    let workspace = resolver.workspace();
    let wanted = go_interface_methods(db, workspace, file, name, 0);
    let Some(files) = files_naming_all(db, workspace, &wanted) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut checked: HashSet<(SourceFile, String)> = HashSet::new();
    for candidate in files {
        let receivers: Vec<String> = go_method_sets(db, candidate)
            .methods
            .iter()
            .filter(|(_, declared)| declared.iter().any(|m| wanted.contains(m)))
            .map(|(receiver, _)| receiver.clone())
            .collect();
        for receiver in receivers {
            let Some(definition) = go_type_definition(resolver, candidate, &receiver) else {
                continue;
            };
            if !checked.insert((definition.file(), receiver.clone())) {
                continue;
            }
            let methods = go_type_methods(db, workspace, candidate, &receiver, 0);
            if wanted.is_subset(&methods) && !found.contains(&definition) {
                found.push(definition);
            }
        }
    }
    // Types that embed a satisfying one have its methods promoted (in its package).
    let mut next = 0;
    while next < found.len() && found.len() < MAX_PROMOTED {
        let TypeNode::Type { file, occurrence } = found[next] else {
            next += 1;
            continue;
        };
        next += 1;
        let embedded_name = resolver.names(file).name(occurrence).to_string();
        for package_file in package_files(db, workspace, file, &embedded_name) {
            let embedders: Vec<String> = go_method_sets(db, package_file)
                .embedded
                .iter()
                .filter(|(_, fields)| fields.contains(&embedded_name))
                .map(|(embedder, _)| embedder.clone())
                .collect();
            for embedder in embedders {
                if let Some(definition) = go_type_definition(resolver, package_file, &embedder)
                    && !found.contains(&definition)
                {
                    found.push(definition);
                }
            }
        }
    }
    found
}

/// How many types one interface's implementations may gain by embedding, so that a cycle
/// of embeddings or a huge package stays bounded.
const MAX_PROMOTED: usize = 10_000;

/// The Go interfaces of the workspace that the type `name` declared in `file` satisfies.
fn go_satisfied_interfaces(resolver: &mut Resolver, file: SourceFile, name: &str) -> Vec<TypeNode> {
    let db = resolver.db();
    let workspace = resolver.workspace();
    let methods = go_type_methods(db, workspace, file, name, 0);
    let mut candidates: Vec<SourceFile> = Vec::new();
    let mut seen: HashSet<SourceFile> = HashSet::new();
    let index = identifier_index(db, workspace);
    for method in &methods {
        for file in index.files(&method.name) {
            if is_go(db, file) && seen.insert(file) {
                candidates.push(file);
            }
        }
    }
    let mut found = Vec::new();
    for candidate in candidates {
        let interfaces: Vec<String> = go_method_sets(db, candidate)
            .interfaces
            .keys()
            .cloned()
            .collect();
        for interface in interfaces {
            let wanted = go_interface_methods(db, workspace, candidate, &interface, 0);
            if wanted.is_empty() || !wanted.is_subset(&methods) {
                continue;
            }
            if let Some(definition) = go_type_definition(resolver, candidate, &interface)
                && !found.contains(&definition)
            {
                found.push(definition);
            }
        }
    }
    found
}

/// The Go files that mention every method name of `methods`; `None` for no methods.
fn files_naming_all(
    db: &dyn Db,
    workspace: Workspace,
    methods: &BTreeSet<GoMethodShape>,
) -> Option<Vec<SourceFile>> {
    let index = identifier_index(db, workspace);
    let mut files: Option<Vec<SourceFile>> = None;
    for method in methods {
        let these = index.files(&method.name);
        files = Some(match files {
            None => these.iter().copied().filter(|&f| is_go(db, f)).collect(),
            Some(mut before) => {
                let these: HashSet<SourceFile> = these.iter().copied().collect();
                before.retain(|f| these.contains(f));
                before
            }
        });
    }
    files
}

/// Where the package of `file` declares the type `name`.
fn go_type_definition(resolver: &mut Resolver, file: SourceFile, name: &str) -> Option<TypeNode> {
    let db = resolver.db();
    for package_file in package_files(db, resolver.workspace(), file, name) {
        let names = resolver.names(package_file);
        if let Some(&occurrence) = names
            .bindings(0, name)
            .iter()
            .find(|&&b| is_type_definition(&names, b))
        {
            return Some(TypeNode::Type {
                file: package_file,
                occurrence,
            });
        }
    }
    None
}

fn least_sure(a: Certainty, b: Certainty) -> Certainty {
    match (a, b) {
        (Certainty::Exact, Certainty::Exact) => Certainty::Exact,
        _ => Certainty::Heuristic,
    }
}
