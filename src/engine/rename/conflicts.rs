//! Conflicts a rename shows before any re-analysis: a renamed definition whose scope
//! already binds the new name would become one name with it (a redefinition), which no
//! later check can tell from a rename that went well.

use std::collections::HashSet;

use super::{Conflict, Renamed, directory};
use crate::lang::Family;
use crate::semantic::names::resolve::Resolver;
use crate::{
    db::SourceFile,
    engine::search::{Certainty, Hit},
    semantic::names::{OccurrenceId, Role, ScopeId, resolve::Target},
    syntax::TextRange,
};

/// A renamed definition whose scope already binds the new name: the two would be one
/// name (a redefinition), which no later check can tell from a rename that went well.
pub(super) fn same_scope_conflicts(
    resolver: &mut Resolver,
    renamed: &Renamed,
    hits: &[Hit],
    old_name: &str,
    new_name: &str,
) -> Vec<Conflict> {
    let db = resolver.db();
    let mut scopes: Vec<(SourceFile, ScopeId)> = Vec::new();
    // One pass per file (hits are sorted by path), as the plan's (`Resolver::in_passing`).
    for file_hits in hits.chunk_by(|a, b| a.0 == b.0) {
        let file = file_hits[0].0;
        resolver.in_passing(file, |_, names| {
            for &(_, occurrence, certainty) in file_hits {
                let occ = names.occurrence(occurrence);
                if certainty == Certainty::Exact
                    && names.name(occurrence) == old_name
                    && matches!(occ.role, Role::Definition(_))
                {
                    let scope = match names.declaration(occ.scope, old_name) {
                        Some(Role::Global) => 0,
                        _ => occ.scope,
                    };
                    scopes.push((file, scope));
                }
            }
        });
    }
    if let Renamed::Targets(targets) = renamed {
        for target in targets {
            if let Target::Symbol { file, scope, .. } = target {
                scopes.push((*file, *scope));
            }
        }
    }
    let mut conflicts = Vec::new();
    let mut seen: HashSet<(SourceFile, ScopeId)> = HashSet::new();
    scopes.retain(|s| seen.insert(*s));
    for (file, scope) in scopes {
        // Every file importing the renamed name is one of these scopes.
        let taken = resolver.in_passing(file, |_, names| {
            let scope_entry = &names.scopes[scope as usize];
            // A class's members include the attributes its methods assign on instances.
            let assigned = names.occurrences_named(new_name).filter(|&o| {
                let occ = names.occurrence(o);
                scope_entry.is_class
                    && occ.role == Role::MemberDefinition
                    && scope_entry.range.contains_range(occ.range)
            });
            let bound = names.bindings(scope, new_name).iter().copied();
            let range = |o: OccurrenceId| names.occurrence(o).range;
            bound.chain(assigned).map(range).collect::<Vec<TextRange>>()
        });
        // A Go package's top-level names are one scope across its directory's files.
        if scope == 0 && file.lang(db).info().family == Family::Go {
            let dir = directory(file.path(db));
            for &other in resolver.workspace().files(db).iter() {
                if other == file
                    || other.lang(db).info().family != Family::Go
                    || directory(other.path(db)) != dir
                {
                    continue;
                }
                let other_names = resolver.names(other);
                for &site in other_names.bindings(0, new_name) {
                    conflicts.push(Conflict {
                        file: Some(other),
                        range: other_names.occurrence(site).range,
                        message: format!(
                            "`{new_name}` is already defined here, in the same package"
                        ),
                    });
                }
            }
        }
        for range in taken {
            conflicts.push(Conflict {
                file: Some(file),
                range,
                message: format!("`{new_name}` is already defined here, in the same scope"),
            });
        }
    }
    conflicts
}
