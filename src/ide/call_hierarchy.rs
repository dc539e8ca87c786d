//! Call hierarchy: the functions and methods that call one (incoming), and those it calls
//! (outgoing), from the `call` references of `references` and `definition`.

use serde::Serialize;

use super::{Certainty, ReferenceQuery, ReferenceRole, Span, navigation};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        self,
        names::{OccurrenceId, Role, file_names},
        symbols::{SymbolKind, file_symbols},
    },
    syntax::TextRange,
};

/// A function or method in a call hierarchy (or, for calls at the top of a file, the
/// file as a module).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CallItem {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// The whole definition.
    pub span: Span,
    /// Its name.
    pub name_span: Span,
}

/// A caller or a callee, with where the calls are (in the caller).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Call {
    pub item: CallItem,
    pub ranges: Vec<Span>,
}

/// The function or method whose name, or a use of it, is at `offset`.
pub(crate) fn prepare(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Option<CallItem> {
    let (target, definition) = navigation::definitions_at(db, workspace, file, offset)
        .into_iter()
        .find(|(_, d)| d.certainty == Certainty::Exact)?;
    let (target, name) = (target?, definition.span?.text_range());
    let symbols = file_symbols(db, target);
    let i = symbols
        .positions
        .iter()
        .position(|p| p.name_range == name)?;
    let kind = symbols.summaries[i].kind;
    matches!(kind, SymbolKind::Function | SymbolKind::Method).then(|| item(db, target, i))
}

/// Who calls the function or method named at `offset` (of `file`), grouped by caller.
pub(crate) fn incoming(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Call> {
    let query = ReferenceQuery {
        include_family: false,
        exact_only: true,
        exclude_definitions: true,
        path_prefix: None,
        limit: usize::MAX,
    };
    let found = navigation::references(db, workspace, file, offset, &query);
    let mut calls: Vec<Call> = Vec::new();
    for r in found
        .references
        .iter()
        .filter(|r| r.role == ReferenceRole::Call)
    {
        let Some(caller_file) = file_by_path(db, workspace, &r.path) else {
            continue;
        };
        let caller = enclosing_function(db, caller_file, r.span.text_range());
        match calls.iter_mut().find(|c| c.item == caller) {
            Some(call) => call.ranges.push(r.span),
            None => calls.push(Call {
                item: caller,
                ranges: vec![r.span],
            }),
        }
    }
    calls
}

/// What the function or method named at `offset` of `file` calls, grouped by callee; calls
/// whose callee is not known exactly are left out.
pub(crate) fn outgoing(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Call> {
    let Some(caller) = prepare(db, workspace, file, offset) else {
        return Vec::new();
    };
    let Some(caller_file) = file_by_path(db, workspace, &caller.path) else {
        return Vec::new();
    };
    let body = caller.span.text_range();
    let names = file_names(db, caller_file);
    let index = semantic::line_index(db, caller_file);
    let mut calls: Vec<Call> = Vec::new();
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = names.occurrence(id);
        if !matches!(occurrence.role, Role::Call | Role::MemberCall)
            || !body.contains_range(occurrence.range)
        {
            continue;
        }
        let at = usize::from(occurrence.range.start());
        let Some(callee) = prepare(db, workspace, caller_file, at) else {
            continue;
        };
        let range = Span::new(&index, occurrence.range);
        match calls.iter_mut().find(|c| c.item == callee) {
            Some(call) => call.ranges.push(range),
            None => calls.push(Call {
                item: callee,
                ranges: vec![range],
            }),
        }
    }
    calls
}

fn file_by_path(db: &dyn Db, workspace: Workspace, path: &str) -> Option<SourceFile> {
    workspace
        .files(db)
        .iter()
        .copied()
        .find(|f| f.path(db) == path)
}

fn item(db: &dyn Db, file: SourceFile, symbol: usize) -> CallItem {
    let symbols = file_symbols(db, file);
    let (summary, position) = (&symbols.summaries[symbol], &symbols.positions[symbol]);
    let text = file.text(db);
    CallItem {
        name: summary.name.clone(),
        kind: summary.kind,
        container: summary.container.clone(),
        path: file.path(db).clone(),
        span: Span::from_start(text, position.range, position.start),
        name_span: Span::from_start(text, position.name_range, position.name_start),
    }
}

/// The innermost function or method around `range`; the file itself (as a module) when
/// the call is at its top level.
fn enclosing_function(db: &dyn Db, file: SourceFile, range: TextRange) -> CallItem {
    let symbols = file_symbols(db, file);
    let innermost = symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .enumerate()
        .filter(|(_, (s, p))| {
            matches!(s.kind, SymbolKind::Function | SymbolKind::Method)
                && p.range.contains_range(range)
        })
        .min_by_key(|(_, (_, p))| p.range.len())
        .map(|(i, _)| i);
    match innermost {
        Some(i) => item(db, file, i),
        None => {
            let index = semantic::line_index(db, file);
            let whole = TextRange::up_to((file.text(db).len() as u32).into());
            let path = file.path(db).clone();
            CallItem {
                name: path.clone(),
                kind: SymbolKind::Module,
                container: None,
                path,
                span: Span::new(&index, whole),
                name_span: Span::new(&index, TextRange::empty(0.into())),
            }
        }
    }
}
