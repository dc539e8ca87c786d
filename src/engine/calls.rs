//! Calls between definitions, with their call sites: who calls a function, method or class
//! ([`incoming`]), and what one calls ([`outgoing`]). The call graph and the LSP call
//! hierarchy are walks over these two steps.
//!
//! A call is a use of a name in call position (`f()`, `obj.m()`, `new C()`, `C()`) that
//! resolves to a function, method, class, struct or macro; a callback passed by name
//! (`map(f, xs)`, `el.on("click", handler)`) resolves to a function or method without being
//! called there, and is a [`EdgeKind::Reference`]. The caller of a site is the innermost
//! function or method around it, or the file's top level. Incoming calls start from the
//! identifier index (`search_uses`), so only files that can mention the name are resolved;
//! outgoing calls resolve the uses inside the definition.
//!
//! Invariant: an `exact` edge comes from a resolution through scopes, imports and typed
//! receivers; a `heuristic` one from a member matched by name on a receiver of unknown type,
//! and a use that matches more than [`MAX_GUESSES`] definitions that way adds none.

use std::collections::HashMap;

use serde::Serialize;

use super::{
    definitions::{DefinitionSite, members_named},
    reference_graph::{DefinitionsByName, Enclosing},
    search::{Certainty, search_uses},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        names::{
            FileNames, OccurrenceId, Role,
            resolve::{Resolver, Target},
            rules,
        },
        symbols::{FileSymbols, SymbolKind, file_symbols},
    },
    syntax::TextRange,
};

/// A use matched by name alone on more definitions than this says nothing about any.
pub const MAX_GUESSES: usize = 8;

/// A node of the call graph: a definition of a file (by its index in `file_symbols`), or
/// the file's top level (`symbol: None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Callable {
    pub file: SourceFile,
    pub symbol: Option<u32>,
}

/// How a site uses its callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// Called there.
    Call,
    /// Named without being called: passed as a callback, stored, returned.
    Reference,
}

/// One use of a callee inside a caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub caller: Callable,
    pub callee: Callable,
    pub kind: EdgeKind,
    pub certainty: Certainty,
    /// The callee's name at the site, in the caller's file.
    pub range: TextRange,
}

/// Definitions a call can lead to.
pub fn is_callee_kind(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Function
            | SymbolKind::Method
            | SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Macro
    )
}

/// Definitions that make calls of their own (anything else is part of its file's top
/// level, or of the function around it).
fn is_caller_kind(kind: SymbolKind) -> bool {
    matches!(kind, SymbolKind::Function | SymbolKind::Method)
}

/// How `occurrence` of `file` uses what it names, when it may be a call-graph edge. A
/// member assigned on a value (`this._next = onNext`) is a reference where the language
/// counts it so (TypeScript's service lists it among the method's call sites); a member
/// declared by a written type (`const p: Provider = { now() {} }`) is no use.
fn edge_kind(
    db: &dyn Db,
    file: SourceFile,
    names: &FileNames,
    occurrence: OccurrenceId,
) -> Option<EdgeKind> {
    let found = names.occurrence(occurrence);
    match found.role {
        Role::Call | Role::MemberCall => Some(EdgeKind::Call),
        Role::Read | Role::Member => Some(EdgeKind::Reference),
        Role::MemberDefinition
            if rules(file.lang(db).info().family).counts_member_assignments()
                && found.receiver.get().is_some_and(|r| {
                    !matches!(names.occurrence(r).role, Role::Type | Role::MemberType)
                }) =>
        {
            Some(EdgeKind::Reference)
        }
        _ => None,
    }
}

/// The innermost function or method of `file` (whose symbols and their nesting are given)
/// around `range`; the top level when none is.
fn caller_in(
    file: SourceFile,
    symbols: &FileSymbols,
    enclosing: &Enclosing,
    range: TextRange,
) -> Callable {
    let mut at = enclosing.innermost(range.start());
    while let Some(i) = at {
        let summary = &symbols.summaries[i as usize];
        if is_caller_kind(summary.kind) {
            break;
        }
        at = summary.parent();
    }
    Callable { file, symbol: at }
}

/// What `callable` stands for, as targets the resolver and `search_hits` take: the
/// symbol its definition's name binds.
pub fn targets_of(resolver: &mut Resolver, callable: Callable) -> Vec<Target> {
    let Some(symbol) = callable.symbol else {
        return vec![Target::Module(callable.file)];
    };
    let symbols = file_symbols(resolver.db(), callable.file);
    let name_start = usize::from(symbols.positions[symbol as usize].name_range.start());
    let names = resolver.names(callable.file);
    match names.at_offset(name_start) {
        Some(occurrence) => resolver.resolve(callable.file, occurrence).targets,
        None => Vec::new(),
    }
}

/// The sites that call or name `callee` anywhere in the workspace, in path and position
/// order. A class's are its constructions; a reference counts only for a function or
/// method (naming a class is not passing a callback).
pub fn incoming(resolver: &mut Resolver, callee: Callable) -> Vec<CallSite> {
    let db = resolver.db();
    let Some(symbol) = callee.symbol else {
        return Vec::new();
    };
    let symbols_of_callee = file_symbols(db, callee.file);
    let kind = symbols_of_callee.summaries[symbol as usize].kind;
    let targets = targets_of(resolver, callee);
    let callee_name_start = symbols_of_callee.positions[symbol as usize]
        .name_range
        .start();
    // Each file's sites are read in its pass (its nesting built once); which heuristic
    // ones stay is known only once all are found.
    let (uses, _) = search_uses(resolver, &targets, None, |file, names, hits| {
        let symbols = file_symbols(db, file);
        let enclosing = Enclosing::new(&symbols.summaries, &symbols.positions);
        let mut kept = Vec::new();
        for &(occurrence, certainty) in hits {
            let found = names.occurrence(occurrence);
            let Some(edge) = edge_kind(db, file, names, occurrence) else {
                continue;
            };
            // The assignment that defines the callee is not a use of it.
            if file == callee.file && found.range.start() == callee_name_start {
                continue;
            }
            if edge == EdgeKind::Reference
                && (!is_caller_kind(kind) || certainty != Certainty::Exact)
            {
                continue;
            }
            let site = CallSite {
                caller: caller_in(file, &symbols, &enclosing, found.range),
                callee,
                kind: edge,
                certainty,
                range: found.range,
            };
            kept.push((occurrence, site));
        }
        kept
    });
    // A heuristic hit is a use matched by name, as in `outgoing`: when more than
    // MAX_GUESSES callables share the name, it says nothing about this one.
    let guessed_too_widely = uses
        .iter()
        .any(|(_, _, site)| site.certainty == Certainty::Heuristic)
        && {
            let name = &symbols_of_callee.summaries[symbol as usize].name;
            name_guesses(db, resolver.workspace(), name) > MAX_GUESSES
        };
    uses.into_iter()
        .map(|(_, _, site)| site)
        .filter(|site| !(site.certainty == Certainty::Heuristic && guessed_too_widely))
        .collect()
}

/// What `caller` calls or names, in position order: the uses inside its definition whose
/// innermost caller it is (a nested function's calls are the nested function's). A class
/// (or another definition that makes no calls of its own) is asked for every use inside
/// it; a top level for the uses outside every function.
pub fn outgoing(resolver: &mut Resolver, caller: Callable) -> Vec<CallSite> {
    let db = resolver.db();
    let file = caller.file;
    let symbols = file_symbols(db, file);
    let (range, whole) = match caller.symbol {
        Some(s) => (
            symbols.positions[s as usize].range,
            !is_caller_kind(symbols.summaries[s as usize].kind),
        ),
        None => (TextRange::up_to((file.text_len(db) as u32).into()), false),
    };
    let names = resolver.names(file);
    let enclosing = Enclosing::new(&symbols.summaries, &symbols.positions);
    let mut definitions = DefinitionsByName::default();
    let mut sites = Vec::new();
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = names.occurrence(id);
        let Some(edge) = edge_kind(db, file, &names, id) else {
            continue;
        };
        if !range.contains_range(occurrence.range)
            || (!whole && caller_in(file, &symbols, &enclosing, occurrence.range) != caller)
        {
            continue;
        }
        let resolution = resolver.resolve(file, id);
        // `obj.name` read on an unknown `obj` is far likelier an attribute than a callback.
        if resolution.heuristic && edge == EdgeKind::Reference {
            continue;
        }
        let certainty = match resolution.heuristic {
            true => Certainty::Heuristic,
            false => Certainty::Exact,
        };
        let mut found: Vec<(SourceFile, u32)> = Vec::new();
        if resolution.heuristic {
            found.extend(members_matched(db, resolver.workspace(), names.name(id)));
        }
        for target in &resolution.targets {
            if !matches!(target, Target::Symbol { .. }) {
                continue;
            }
            for (site_file, site) in resolver.definitions(target) {
                // The assignment that defines a member is not a use of it.
                if (site_file, site) == (file, id) {
                    continue;
                }
                let name = resolver.names(site_file).occurrence(site).range;
                if let Some(symbol) = definitions.at(db, site_file, name.start()) {
                    found.push((site_file, symbol));
                }
            }
        }
        let mut callees: Vec<Callable> = Vec::new();
        for (site_file, symbol) in found {
            let kind = file_symbols(db, site_file).summaries[symbol as usize].kind;
            let counts = match edge {
                EdgeKind::Call => is_callee_kind(kind),
                EdgeKind::Reference => is_caller_kind(kind),
            };
            let callee = Callable {
                file: site_file,
                symbol: Some(symbol),
            };
            if counts && !callees.contains(&callee) {
                callees.push(callee);
            }
        }
        if certainty == Certainty::Heuristic && callees.len() > MAX_GUESSES {
            continue;
        }
        sites.extend(callees.into_iter().map(|callee| CallSite {
            caller,
            callee,
            kind: edge,
            certainty,
            range: occurrence.range,
        }));
    }
    sites
}

/// The members a use of `name` on a receiver of unknown type may be.
fn members_matched(db: &dyn Db, workspace: Workspace, name: &str) -> Vec<(SourceFile, u32)> {
    members_named(db, workspace, name)
        .into_iter()
        .filter_map(|site| match site {
            DefinitionSite::Member { file, symbol } => Some((file, symbol as u32)),
            _ => None,
        })
        .collect()
}

/// How many callables a call of `name` on a receiver of unknown type may be.
fn name_guesses(db: &dyn Db, workspace: Workspace, name: &str) -> usize {
    callable_members(db, workspace, name).len()
}

fn callable_members(db: &dyn Db, workspace: Workspace, name: &str) -> Vec<(SourceFile, u32)> {
    members_matched(db, workspace, name)
        .into_iter()
        .filter(|&(file, symbol)| {
            is_callee_kind(file_symbols(db, file).summaries[symbol as usize].kind)
        })
        .collect()
}

/// The callables a call of `name` on a receiver of unknown type may be; none when more
/// than [`MAX_GUESSES`] are, the rule `incoming` and `outgoing` follow.
pub(crate) fn guessed_callees(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
) -> Vec<(SourceFile, u32)> {
    let found = callable_members(db, workspace, name);
    match found.len() > MAX_GUESSES {
        true => Vec::new(),
        false => found,
    }
}

/// Sites grouped by (caller, callee, kind, certainty), each group's ranges in order; the
/// groups in the order their first site came.
pub fn grouped(sites: Vec<CallSite>) -> Vec<(CallSite, Vec<TextRange>)> {
    let mut groups: Vec<(CallSite, Vec<TextRange>)> = Vec::new();
    let mut index: HashMap<(Callable, Callable, EdgeKind, Certainty), usize> = HashMap::new();
    for site in sites {
        let key = (site.caller, site.callee, site.kind, site.certainty);
        match index.get(&key) {
            Some(&i) => groups[i].1.push(site.range),
            None => {
                index.insert(key, groups.len());
                groups.push((site, vec![site.range]));
            }
        }
    }
    groups
}
