//! Definition lookup: what the name at a position stands for, as the places it is defined.
//! `definition`, hover and the call hierarchy start from here.

use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        names::{
            OccurrenceId, Role,
            identifiers::identifier_index,
            resolve::{Resolver, Target},
        },
        symbols::{SymbolKind, file_symbols},
    },
};

/// A place something is defined, in database terms; `ide` makes each a `Definition`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DefinitionSite {
    /// A binding of the name, found through scopes and imports.
    Binding {
        file: SourceFile,
        occurrence: OccurrenceId,
    },
    /// A module, defined by its file.
    Module(SourceFile),
    /// Something outside the workspace: the module it comes from, and its name there.
    External {
        module: String,
        name: Option<String>,
    },
    /// A member of some class matched by name only (a guess for `obj.name` when what `obj`
    /// is cannot be told): its index in its file's `file_symbols`.
    Member { file: SourceFile, symbol: usize },
}

impl DefinitionSite {
    /// The workspace file the definition is in; none outside the workspace.
    pub(crate) fn file(&self) -> Option<SourceFile> {
        match self {
            DefinitionSite::Binding { file, .. }
            | DefinitionSite::Module(file)
            | DefinitionSite::Member { file, .. } => Some(*file),
            DefinitionSite::External { .. } => None,
        }
    }
}

/// The definitions of the name at `offset`.
pub(crate) fn definitions_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<DefinitionSite> {
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
        found.extend(target_sites(target, sites));
    }
    // A class member's own definition: also the member of a base class it overrides; a
    // name bound by destructuring: also the member it is taken from.
    let occ = names.occurrence(occurrence);
    let mut related = resolver.destructured_from(file, occurrence);
    if matches!(occ.role, Role::Definition(_)) && names.scopes[occ.scope as usize].is_class {
        related.extend(resolver.overridden(file, occ.scope, &name));
    }
    for target in related {
        found.extend(definitions_of(&mut resolver, &target));
    }
    found
}

/// Every definition `target` stands for: its bindings, or the module or outside name it is.
pub(crate) fn definitions_of(resolver: &mut Resolver, target: &Target) -> Vec<DefinitionSite> {
    let sites = resolver.definitions(target);
    target_sites(target, sites)
}

/// The definitions `target` stands for: the binding `sites` chosen for it, or the module or
/// outside name it is.
fn target_sites(target: &Target, sites: Vec<(SourceFile, OccurrenceId)>) -> Vec<DefinitionSite> {
    let mut found: Vec<DefinitionSite> = sites
        .into_iter()
        .map(|(file, occurrence)| DefinitionSite::Binding { file, occurrence })
        .collect();
    match target {
        Target::Symbol { .. } => {}
        Target::Module(file) => found.push(DefinitionSite::Module(*file)),
        Target::External { module, name } => found.push(DefinitionSite::External {
            module: module.clone(),
            name: name.clone(),
        }),
    }
    found
}

/// Members called `name` of any class in the workspace: the guesses for `obj.name` when
/// what `obj` is cannot be told.
pub(crate) fn members_named(db: &dyn Db, workspace: Workspace, name: &str) -> Vec<DefinitionSite> {
    let mut found = Vec::new();
    for file in identifier_index(db, workspace).files(name) {
        let symbols = file_symbols(db, file);
        for (symbol, summary) in symbols.summaries.iter().enumerate() {
            // A Go method is named after its receiver's type (a container, no parent).
            let is_member = (summary.parent().is_some() || summary.container.is_some())
                && matches!(
                    summary.kind,
                    SymbolKind::Method
                        | SymbolKind::Field
                        | SymbolKind::Constant
                        | SymbolKind::Variable
                );
            if summary.name == name && is_member {
                found.push(DefinitionSite::Member { file, symbol });
            }
        }
    }
    found
}
