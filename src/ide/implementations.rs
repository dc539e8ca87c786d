//! Implementations and type hierarchies: the subclasses, interface implementations, trait
//! impls and overriding methods of a type or method (every level down), or what it derives
//! from, implements and overrides (every level up); and a method's family (the methods it
//! overrides and that override it), whose references `find_references` can join.
//!
//! The walk is `engine::hierarchy`'s; this module picks the subject (a position or a name
//! as `find_definition` takes it), and turns each node into an answer item with its symbol's
//! kind and spans.

use serde::Serialize;

use super::{Certainty, Span, error::ErrorCode, error::Failure};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        hierarchy::{
            Direction, RelatedMethod, Subject, TypeNode, related_methods, subject_at,
            subjects_of_targets, walk,
        },
        search::targets_named,
    },
    semantic::{
        names::{
            OccurrenceId,
            resolve::{Resolver, Target},
        },
        symbols::{SymbolKind, file_symbols},
    },
    syntax::TextRange,
};

/// Which way an implementations question goes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HierarchyDirection {
    /// Subtypes, implementations and overriding methods.
    #[default]
    Implementations,
    /// Base types, implemented interfaces and traits, overridden methods.
    Supertypes,
}

/// A type, impl block or method in a hierarchy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HierarchyItem {
    pub name: String,
    pub kind: SymbolKind,
    /// The class, type or impl a method is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// The whole definition.
    pub span: Span,
    /// Its name (an impl block: the type it is for).
    pub name_span: Span,
    /// `exact` when every base on the way was resolved through scopes and imports;
    /// `heuristic` when one was matched by name only (an unresolved base, Go's implicit
    /// interface satisfaction compared by method names and counts).
    pub certainty: Certainty,
    /// Levels from the subject: 1 for a direct subtype or base.
    pub depth: u32,
}

/// The answer of an implementations question.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Implementations {
    pub subject: HierarchyItem,
    pub direction: HierarchyDirection,
    /// Nearest first, then by path and position.
    pub items: Vec<HierarchyItem>,
    /// Items found in all; more than `items.len()` when truncated.
    pub total: usize,
    pub truncated: bool,
}

/// Why an implementations question has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImplementationsError {
    /// Nothing at the position or by the name is a class, interface, trait, type or method.
    #[error("{0}")]
    NoSubject(String),
    /// The name stands for several types or methods.
    #[error("{name:?} names {} definitions; give a position or a qualified name", candidates.len())]
    Ambiguous {
        name: String,
        candidates: Vec<HierarchyItem>,
    },
}

impl Failure for ImplementationsError {
    fn code(&self) -> ErrorCode {
        match self {
            ImplementationsError::NoSubject(_) => ErrorCode::NotFound,
            ImplementationsError::Ambiguous { .. } => ErrorCode::AmbiguousSymbol,
        }
    }
}

/// The implementations (or supertypes) of the type or method named at `offset` of `file`.
pub(crate) fn implementations_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
    direction: HierarchyDirection,
    limit: usize,
) -> Result<Implementations, ImplementationsError> {
    let mut resolver = Resolver::new(db, workspace);
    let subject = subject_at(&mut resolver, file, offset).ok_or_else(|| {
        let index = crate::semantic::line_index(db, file);
        let at = Span::new(&index, TextRange::empty((offset as u32).into())).start;
        ImplementationsError::NoSubject(format!(
            "{}:{}:{}: no class, interface, trait, type or method there",
            file.path(db),
            at.line,
            at.column
        ))
    })?;
    Ok(answer(&mut resolver, &subject, direction, limit))
}

/// The implementations (or supertypes) of the type or method called `name` (`Shape`,
/// `Shape.area`, `mod.Shape`).
pub(crate) fn implementations_by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    direction: HierarchyDirection,
    limit: usize,
) -> Result<Implementations, ImplementationsError> {
    let mut resolver = Resolver::new(db, workspace);
    let targets = targets_named(&mut resolver, name, None);
    let subjects = subjects_of_targets(&mut resolver, &targets);
    match subjects.as_slice() {
        [] => Err(ImplementationsError::NoSubject(format!(
            "{name:?}: no class, interface, trait, type or method of the workspace is called so"
        ))),
        [subject] => Ok(answer(&mut resolver, subject, direction, limit)),
        several => {
            let mut candidates: Vec<HierarchyItem> = several
                .iter()
                .map(|s| subject_item(db, s, Certainty::Exact, 0))
                .collect();
            candidates.sort_by(|a, b| {
                (&a.path, a.name_span.byte_start).cmp(&(&b.path, b.name_span.byte_start))
            });
            Err(ImplementationsError::Ambiguous {
                name: name.to_string(),
                candidates,
            })
        }
    }
}

/// The type named at `offset` of `file`, for a type hierarchy (methods have none).
pub(crate) fn type_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Option<HierarchyItem> {
    let mut resolver = Resolver::new(db, workspace);
    match subject_at(&mut resolver, file, offset)? {
        subject @ Subject::Type(_) => Some(subject_item(db, &subject, Certainty::Exact, 0)),
        Subject::Method { .. } => None,
    }
}

/// The definitions in the family of the method each target is: the methods it overrides
/// and those that override it, at every level, as targets (so their references can be
/// searched with its own). Targets that are no method add nothing.
pub(crate) fn method_family(resolver: &mut Resolver, targets: &[Target]) -> Vec<Target> {
    let mut found = Vec::new();
    for subject in subjects_of_targets(resolver, targets) {
        let Subject::Method { owner, name, .. } = subject else {
            continue;
        };
        for direction in [Direction::Supertypes, Direction::Subtypes] {
            for method in related_methods(resolver, owner, &name, direction) {
                for target in resolver.resolve(method.file, method.occurrence).targets {
                    if !targets.contains(&target) && !found.contains(&target) {
                        found.push(target);
                    }
                }
            }
        }
    }
    found
}

fn answer(
    resolver: &mut Resolver,
    subject: &Subject,
    direction: HierarchyDirection,
    limit: usize,
) -> Implementations {
    let db = resolver.db();
    let walk_direction = match direction {
        HierarchyDirection::Implementations => Direction::Subtypes,
        HierarchyDirection::Supertypes => Direction::Supertypes,
    };
    let mut items: Vec<HierarchyItem> = match subject {
        Subject::Type(node) => walk(resolver, *node, walk_direction)
            .into_iter()
            .map(|r| node_item(db, r.node, r.certainty, r.depth))
            .collect(),
        Subject::Method { owner, name, .. } => {
            related_methods(resolver, *owner, name, walk_direction)
                .into_iter()
                .map(|m| method_item(db, m))
                .collect()
        }
    };
    items.sort_by(|a, b| {
        (a.depth, &a.path, a.name_span.byte_start).cmp(&(b.depth, &b.path, b.name_span.byte_start))
    });
    items.dedup_by(|a, b| a.path == b.path && a.name_span == b.name_span);
    let total = items.len();
    items.truncate(limit.max(1));
    Implementations {
        subject: subject_item(db, subject, Certainty::Exact, 0),
        direction,
        truncated: total > items.len(),
        items,
        total,
    }
}

fn subject_item(db: &dyn Db, subject: &Subject, certainty: Certainty, depth: u32) -> HierarchyItem {
    match subject {
        Subject::Type(node) => node_item(db, *node, certainty, depth),
        Subject::Method {
            file, occurrence, ..
        } => occurrence_item(db, *file, *occurrence, certainty, depth),
    }
}

fn method_item(db: &dyn Db, method: RelatedMethod) -> HierarchyItem {
    occurrence_item(
        db,
        method.file,
        method.occurrence,
        method.certainty,
        method.depth,
    )
}

fn node_item(db: &dyn Db, node: TypeNode, certainty: Certainty, depth: u32) -> HierarchyItem {
    match node {
        TypeNode::Type { file, occurrence } => {
            occurrence_item(db, file, occurrence, certainty, depth)
        }
        TypeNode::Impl { file, scope } => {
            let names = crate::semantic::names::file_names(db, file);
            let scope_range = names.scopes[scope as usize].range;
            let self_type = names.impl_of(scope).map(|i| i.self_type);
            let symbols = file_symbols(db, file);
            let symbol = symbols
                .summaries
                .iter()
                .zip(symbols.positions.iter())
                .enumerate()
                .filter(|(_, (s, p))| {
                    s.kind == SymbolKind::Impl && p.range.contains_range(scope_range)
                })
                .min_by_key(|(_, (_, p))| p.range.len())
                .map(|(i, _)| i);
            match (symbol, self_type) {
                (Some(i), _) => symbol_item(db, file, i, certainty, depth),
                (None, Some(self_type)) => occurrence_item(db, file, self_type, certainty, depth),
                (None, None) => bare_item(db, file, scope_range, "impl", certainty, depth),
            }
        }
    }
}

/// The item of the definition whose name is `occurrence`: its symbol when the file's
/// symbols have one named there.
fn occurrence_item(
    db: &dyn Db,
    file: SourceFile,
    occurrence: OccurrenceId,
    certainty: Certainty,
    depth: u32,
) -> HierarchyItem {
    let names = crate::semantic::names::file_names(db, file);
    let range = names.occurrence(occurrence).range;
    let symbols = file_symbols(db, file);
    match symbols.positions.iter().position(|p| p.name_range == range) {
        Some(i) => symbol_item(db, file, i, certainty, depth),
        None => bare_item(db, file, range, names.name(occurrence), certainty, depth),
    }
}

fn symbol_item(
    db: &dyn Db,
    file: SourceFile,
    symbol: usize,
    certainty: Certainty,
    depth: u32,
) -> HierarchyItem {
    let symbols = file_symbols(db, file);
    let (summary, position) = (&symbols.summaries[symbol], &symbols.positions[symbol]);
    let text = &*file.text(db);
    HierarchyItem {
        name: summary.name.to_string(),
        kind: summary.kind,
        container: summary.container.as_deref().map(str::to_owned),
        path: file.path(db).clone(),
        span: Span::from_start(text, position.range, position.start),
        name_span: Span::from_start(text, position.name_range, position.name_start),
        certainty,
        depth,
    }
}

/// An item for a definition the file's symbols do not list (a class inside a function).
fn bare_item(
    db: &dyn Db,
    file: SourceFile,
    range: TextRange,
    name: &str,
    certainty: Certainty,
    depth: u32,
) -> HierarchyItem {
    let index = crate::semantic::line_index(db, file);
    let span = Span::new(&index, range);
    HierarchyItem {
        name: name.to_string(),
        kind: SymbolKind::Type,
        container: None,
        path: file.path(db).clone(),
        span,
        name_span: span,
        certainty,
        depth,
    }
}
