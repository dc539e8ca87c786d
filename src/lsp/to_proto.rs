//! Conversions from `ide` answers (byte offsets, symbol kinds, folds) to LSP types.
//!
//! Invariant: this is the only module that reads the fields of `ide` answers for the LSP,
//! and, with `from_proto`, the only one that turns offsets into positions: every position
//! goes through a [`LineIndex`] in the negotiated encoding. When an answer type changes,
//! the LSP front end changes here and nowhere else.

use crate::ide::Failure as _;
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall, CodeDescription,
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, DocumentHighlight,
    DocumentHighlightKind, DocumentSymbol, FoldingRange, FoldingRangeKind, Hover, HoverContents,
    Location, MarkupContent, MarkupKind, NumberOrString, Position, Range, SelectionRange,
    SymbolInformation, SymbolKind as LspKind, TypeHierarchyItem, Uri,
};

use super::{
    line_index::{LineIndex, PositionEncoding},
    uri,
};
use crate::{
    ide::{
        self, Call, CallItem, Cancellable, Certainty, Definition, DiagnosticInfo, Fold,
        HierarchyItem, HoverInfo, Outline, OutlineNode, ReferenceRole, References, Severity, Span,
        SymbolKind, SymbolMatch,
    },
    workspace::{LoadPhase, ProgressEvent, live::Snapshot},
};

pub fn position(index: &LineIndex, offset: usize) -> Position {
    let (line, character) = index.index.line_column(offset, index.encoding.unit());
    Position { line, character }
}

/// The range of bytes `start..end`.
pub fn range(index: &LineIndex, start: usize, end: usize) -> Range {
    Range {
        start: position(index, start),
        end: position(index, end),
    }
}

/// Edits of one document, in the negotiated encoding.
pub fn text_edits<'a>(
    index: &LineIndex,
    edits: impl Iterator<Item = &'a ide::TextEdit>,
) -> Vec<lsp_types::TextEdit> {
    edits
        .map(|edit| lsp_types::TextEdit {
            range: span_range(index, &edit.range),
            new_text: edit.new_text.clone(),
        })
        .collect()
}

/// The range of a span's bytes, in the negotiated encoding (a span's own columns count
/// characters, which only UTF-32 clients share).
fn span_range(index: &LineIndex, span: &Span) -> Range {
    range(index, span.byte_start as usize, span.byte_end as usize)
}

pub fn document_symbols(index: &LineIndex, outline: &Outline) -> Vec<DocumentSymbol> {
    outline
        .symbols
        .iter()
        .map(|node| document_symbol(index, node))
        .collect()
}

#[allow(deprecated)] // `deprecated` must be spelled out; `tags` replaces it.
fn document_symbol(index: &LineIndex, node: &OutlineNode) -> DocumentSymbol {
    let children: Vec<DocumentSymbol> = node
        .children
        .iter()
        .map(|child| document_symbol(index, child))
        .collect();
    DocumentSymbol {
        name: node.name.clone(),
        detail: Some(node.signature.clone()).filter(|s| !s.is_empty()),
        kind: symbol_kind(node.kind),
        tags: None,
        deprecated: None,
        range: span_range(index, &node.span),
        selection_range: span_range(index, &node.name_span),
        children: Some(children).filter(|c| !c.is_empty()),
    }
}

/// A match of a workspace symbol search, located through its file's line table (built
/// once per file and kept by the analysis); `None` when its file has left the snapshot or
/// has no URI.
pub fn workspace_symbol(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    m: &SymbolMatch,
) -> Cancellable<Option<SymbolInformation>> {
    let (Some(file), Some(uri)) = (
        snapshot.file(&m.path),
        uri::path_to_uri(&snapshot.root.join(&m.path)),
    ) else {
        return Ok(None);
    };
    let index = LineIndex {
        index: snapshot.analysis.line_index(file)?,
        encoding,
    };
    #[allow(deprecated)]
    Ok(Some(SymbolInformation {
        name: m.name.clone(),
        kind: symbol_kind(m.kind),
        tags: None,
        deprecated: None,
        location: Location {
            uri,
            range: span_range(&index, &m.name_span),
        },
        container_name: m.container.clone(),
    }))
}

/// A place in a workspace file, through that file's line table; `None` when the file has
/// left the snapshot or has no URI.
pub fn location(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    path: &str,
    span: &Span,
) -> Cancellable<Option<Location>> {
    let (Some(file), Some(uri)) = (
        snapshot.file(path),
        uri::path_to_uri(&snapshot.root.join(path)),
    ) else {
        return Ok(None);
    };
    let index = LineIndex {
        index: snapshot.analysis.line_index(file)?,
        encoding,
    };
    Ok(Some(Location {
        uri,
        range: span_range(&index, span),
    }))
}

/// Definitions in the workspace as locations (external ones have none).
pub fn definitions(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    found: &[Definition],
) -> Cancellable<Vec<Location>> {
    let mut locations = Vec::new();
    for d in found {
        if let (Some(path), Some(span)) = (&d.path, &d.span)
            && let Some(location) = location(snapshot, encoding, path, span)?
        {
            locations.push(location);
        }
    }
    Ok(locations)
}

/// The URI and line index of a hierarchy item's file; `None` when it has left the snapshot.
fn item_place(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    path: &str,
) -> Cancellable<Option<(Uri, LineIndex)>> {
    let (Some(file), Some(uri)) = (
        snapshot.file(path),
        uri::path_to_uri(&snapshot.root.join(path)),
    ) else {
        return Ok(None);
    };
    let index = snapshot.analysis.line_index(file)?;
    Ok(Some((uri, LineIndex { index, encoding })))
}

/// A call hierarchy item; `None` when its file has left the snapshot.
pub fn call_hierarchy_item(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    item: &CallItem,
) -> Cancellable<Option<CallHierarchyItem>> {
    let Some((uri, index)) = item_place(snapshot, encoding, &item.path)? else {
        return Ok(None);
    };
    Ok(Some(CallHierarchyItem {
        name: item.name.clone(),
        kind: symbol_kind(item.kind),
        tags: None,
        detail: item.container.clone(),
        uri,
        range: span_range(&index, &item.span),
        selection_range: span_range(&index, &item.name_span),
        data: None,
    }))
}

/// A type hierarchy item; `None` when its file has left the snapshot. Its certainty goes in
/// `detail` beside the container, so a guess reads as one.
pub fn type_hierarchy_item(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    item: &HierarchyItem,
) -> Cancellable<Option<TypeHierarchyItem>> {
    let Some((uri, index)) = item_place(snapshot, encoding, &item.path)? else {
        return Ok(None);
    };
    let detail = match (item.certainty, &item.container) {
        (Certainty::Exact, container) => container.clone(),
        (Certainty::Heuristic, Some(container)) => Some(format!("{container} (heuristic)")),
        (Certainty::Heuristic, None) => Some("heuristic".into()),
    };
    Ok(Some(TypeHierarchyItem {
        name: item.name.clone(),
        kind: symbol_kind(item.kind),
        tags: None,
        detail,
        uri,
        range: span_range(&index, &item.span),
        selection_range: span_range(&index, &item.name_span),
        data: None,
    }))
}

/// Callers, each with where it calls (positions in the caller's file).
pub fn incoming_calls(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    calls: &[Call],
) -> Cancellable<Vec<CallHierarchyIncomingCall>> {
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        let (Some(from), Some(file)) = (
            call_hierarchy_item(snapshot, encoding, &call.item)?,
            snapshot.file(&call.item.path),
        ) else {
            continue;
        };
        let index = LineIndex {
            index: snapshot.analysis.line_index(file)?,
            encoding,
        };
        out.push(CallHierarchyIncomingCall {
            from,
            from_ranges: call.ranges.iter().map(|r| span_range(&index, r)).collect(),
        });
    }
    Ok(out)
}

/// Callees, each with where the caller (whose line table is `caller`) calls it.
pub fn outgoing_calls(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    caller: &LineIndex,
    calls: &[Call],
) -> Cancellable<Vec<CallHierarchyOutgoingCall>> {
    let mut out = Vec::with_capacity(calls.len());
    for call in calls {
        if let Some(to) = call_hierarchy_item(snapshot, encoding, &call.item)? {
            out.push(CallHierarchyOutgoingCall {
                to,
                from_ranges: call.ranges.iter().map(|r| span_range(caller, r)).collect(),
            });
        }
    }
    Ok(out)
}

/// A hover as Markdown: the signature in a code block, then the documentation, then where
/// it is defined.
pub fn hover(index: &LineIndex, info: &HoverInfo) -> Hover {
    let d = &info.definition;
    let mut parts = Vec::new();
    let head = info
        .signature
        .clone()
        .unwrap_or_else(|| format!("{} {}", d.kind, d.name));
    parts.push(format!("```{}\n{head}\n```", info.language));
    if let Some(doc) = &info.documentation {
        parts.push(doc.clone());
    }
    match (&d.path, &d.span, &d.module) {
        (Some(path), Some(span), _) => parts.push(format!("*{path}:{}*", span.start.line)),
        (_, _, Some(module)) => parts.push(format!("*from `{module}`*")),
        _ => {}
    }
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n"),
        }),
        range: Some(span_range(index, &info.range)),
    }
}

/// The references as locations, in the answer's order.
pub fn reference_locations(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    found: &References,
) -> Cancellable<Vec<Location>> {
    let mut locations = Vec::with_capacity(found.references.len());
    for r in &found.references {
        if let Some(location) = location(snapshot, encoding, &r.path, &r.span)? {
            locations.push(location);
        }
    }
    Ok(locations)
}

/// The references inside the document at `path`, as highlights.
pub fn document_highlights(
    index: &LineIndex,
    path: &str,
    found: &References,
) -> Vec<DocumentHighlight> {
    found
        .references
        .iter()
        .filter(|r| r.path == path)
        .map(|r| DocumentHighlight {
            range: span_range(index, &r.span),
            kind: Some(highlight_kind(r.role)),
        })
        .collect()
}

/// A reference's role as a highlight: writes (definitions, assignments) and reads.
fn highlight_kind(role: ReferenceRole) -> DocumentHighlightKind {
    match role {
        ReferenceRole::Definition | ReferenceRole::Write | ReferenceRole::Import => {
            DocumentHighlightKind::WRITE
        }
        ReferenceRole::Call | ReferenceRole::Read | ReferenceRole::Type => {
            DocumentHighlightKind::READ
        }
    }
}

pub fn folding_ranges(folds: &[Fold]) -> Vec<FoldingRange> {
    folds
        .iter()
        .map(|fold| FoldingRange {
            // LSP lines are 0-based.
            start_line: fold.span.start.line - 1,
            end_line: fold.span.end.line - 1,
            kind: fold.is_comment.then_some(FoldingRangeKind::Comment),
            ..Default::default()
        })
        .collect()
}

/// Each chain of enclosing ranges (innermost first) as the nested `SelectionRange` of its
/// innermost range.
pub fn selection_ranges(index: &LineIndex, chains: &[Vec<Span>]) -> Vec<SelectionRange> {
    chains
        .iter()
        .filter_map(|chain| {
            chain.iter().rev().fold(None, |parent, r| {
                Some(SelectionRange {
                    range: span_range(index, r),
                    parent: parent.map(Box::new),
                })
            })
        })
        .collect()
}

/// Diagnostics of the document `uri` with their codes (`SX005`), a link to the code's
/// explanation when the repository is known ([`code_description`]), `source: "sextant"`,
/// the `Unnecessary` tag on code that can be removed (an unused import), and the places
/// they refer to (an earlier definition) as related information; `elsewhere` places those
/// in other files (an import cycle's other imports; dropped when it gives `None`).
pub fn diagnostics(
    index: &LineIndex,
    uri: &Uri,
    found: &[DiagnosticInfo],
    elsewhere: &dyn Fn(&str, &Span) -> Option<Location>,
) -> Vec<Diagnostic> {
    found
        .iter()
        .map(|d| Diagnostic {
            range: range(index, d.span.byte_start as usize, d.span.byte_end as usize),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Information => DiagnosticSeverity::INFORMATION,
                Severity::Hint => DiagnosticSeverity::HINT,
            }),
            code: Some(NumberOrString::String(d.code.clone())),
            code_description: ide::explain(&d.code)
                .and_then(|code| code_description(env!("CARGO_PKG_REPOSITORY"), code)),
            source: Some("sextant".into()),
            message: d.message.clone(),
            related_information: (!d.related.is_empty()).then(|| {
                d.related
                    .iter()
                    .filter_map(|r| {
                        let location = match &r.path {
                            Some(path) => elsewhere(path, &r.span)?,
                            None => Location {
                                uri: uri.clone(),
                                range: span_range(index, &r.span),
                            },
                        };
                        Some(DiagnosticRelatedInformation {
                            location,
                            message: r.message.clone(),
                        })
                    })
                    .collect()
            }),
            tags: d.unnecessary.then(|| vec![DiagnosticTag::UNNECESSARY]),
            ..Default::default()
        })
        .collect()
}

/// The link to a code's section of the repository's `docs/diagnostics.md`, from the
/// package's `repository` URL (`https://host/owner/sextant`), or `None` when the package
/// names no repository: a link to a guessed place, or to a local file that an installed
/// binary does not have, would be wrong.
pub fn code_description(repository: &str, code: &ide::DiagnosticCode) -> Option<CodeDescription> {
    let repository = repository.trim().trim_end_matches('/');
    if repository.is_empty() {
        return None;
    }
    let href = format!(
        "{repository}/blob/HEAD/{}#{}",
        ide::DIAGNOSTICS_DOC,
        ide::docs_anchor(code)
    );
    Some(CodeDescription {
        href: href.parse().ok()?,
    })
}

/// The result id of a document's diagnostics for pull requests: a hash of what would be
/// sent, so the same answer (memoized, or recomputed to the same items) has the same id
/// and an `unchanged` report can be given.
pub fn diagnostics_result_id(items: &[Diagnostic]) -> String {
    use std::hash::{Hash, Hasher};
    let text = serde_json::to_string(items).unwrap_or_default();
    // SipHash with fixed keys: stable within a build, which is all a result id needs.
    let mut hasher = std::hash::DefaultHasher::new();
    text.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

pub fn symbol_kind(kind: SymbolKind) -> LspKind {
    match kind {
        SymbolKind::Module => LspKind::MODULE,
        SymbolKind::Class => LspKind::CLASS,
        SymbolKind::Struct | SymbolKind::Union => LspKind::STRUCT,
        SymbolKind::Enum => LspKind::ENUM,
        SymbolKind::Variant => LspKind::ENUM_MEMBER,
        SymbolKind::Trait | SymbolKind::Interface => LspKind::INTERFACE,
        SymbolKind::Impl => LspKind::NAMESPACE,
        SymbolKind::Type => LspKind::TYPE_PARAMETER,
        SymbolKind::Function | SymbolKind::Macro => LspKind::FUNCTION,
        SymbolKind::Method => LspKind::METHOD,
        SymbolKind::Field => LspKind::FIELD,
        SymbolKind::Constant | SymbolKind::Static => LspKind::CONSTANT,
        SymbolKind::Variable => LspKind::VARIABLE,
    }
}

/// A load step as a work-done percentage and message: reading the files is the first half,
/// indexing them the second, so the percentage never goes down from one phase to the next.
pub fn load_progress(event: &ProgressEvent) -> (u32, String) {
    let (base, verb) = match event.phase {
        LoadPhase::Reading => (0, "reading"),
        LoadPhase::Indexing => (50, "indexing"),
    };
    let within = (event.done.min(event.total) * 50)
        .checked_div(event.total)
        .unwrap_or(50);
    let message = format!("{verb} {}/{} files", event.done, event.total);
    ((base + within) as u32, message)
}

/// A rename's change as the edits the client makes, by document.
// `WorkspaceEdit::changes` is keyed by `Uri`, whose interior the lint cannot see through.
#[allow(clippy::mutable_key_type)]
pub fn workspace_edit(
    snapshot: &Snapshot,
    encoding: PositionEncoding,
    change: &ide::SourceChange,
) -> Cancellable<lsp_types::WorkspaceEdit> {
    let mut changes = std::collections::HashMap::new();
    for file_edit in &change.files {
        let (Some(file), Some(uri)) = (
            snapshot.file(&file_edit.path),
            uri::path_to_uri(&snapshot.root.join(&file_edit.path)),
        ) else {
            continue;
        };
        let index = LineIndex {
            index: snapshot.analysis.line_index(file)?,
            encoding,
        };
        let edits: Vec<lsp_types::TextEdit> = file_edit
            .edits
            .iter()
            .map(|edit| lsp_types::TextEdit {
                range: span_range(&index, &edit.range),
                new_text: edit.new_text.clone(),
            })
            .collect();
        changes.insert(uri, edits);
    }
    Ok(lsp_types::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    })
}

/// The document an edit is for: its URI, and the version of its text the edit was
/// computed from when the client takes versioned edits (`documentChanges`) and the
/// version is known.
pub struct EditTarget<'a> {
    pub uri: &'a Uri,
    pub version: Option<i32>,
    pub document_changes: bool,
}

/// Edits of one document as a `WorkspaceEdit`: a `documentChanges` entry naming the
/// document's version when there is one to name, else `changes`.
// `WorkspaceEdit::changes` is keyed by `Uri`, whose interior the lint cannot see through.
#[allow(clippy::mutable_key_type)]
pub fn document_edit(
    target: &EditTarget,
    edits: Vec<lsp_types::TextEdit>,
) -> lsp_types::WorkspaceEdit {
    match target.version.filter(|_| target.document_changes) {
        Some(version) => lsp_types::WorkspaceEdit {
            document_changes: Some(lsp_types::DocumentChanges::Edits(vec![
                lsp_types::TextDocumentEdit {
                    text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                        uri: target.uri.clone(),
                        version: Some(version),
                    },
                    edits: edits.into_iter().map(lsp_types::OneOf::Left).collect(),
                },
            ])),
            ..Default::default()
        },
        None => lsp_types::WorkspaceEdit {
            changes: Some(std::collections::HashMap::from([(
                target.uri.clone(),
                edits,
            )])),
            ..Default::default()
        },
    }
}

/// Whether any of a document's diagnostics (those with the code `code`, when given) has a
/// safe fix: whether a fix-all action may have anything to apply.
pub fn has_safe_fix(found: &[DiagnosticInfo], code: Option<&str>) -> bool {
    found.iter().any(|d| {
        code.is_none_or(|code| d.code == code)
            && d.fix
                .as_ref()
                .is_some_and(|fix| fix.applicability == ide::Applicability::Safe)
    })
}

/// A `quickfix` action for each diagnostic with a fix whose range meets the bytes `within`
/// (touching it counts: a cursor right after a name is on it), in document order.
/// `published` are the same diagnostics as the server publishes them, in the same order,
/// so that each action names the diagnostic exactly as the client holds it. Safe fixes are
/// preferred; unsafe ones are offered, not preferred.
pub fn quick_fixes(
    index: &LineIndex,
    target: &EditTarget,
    found: &[DiagnosticInfo],
    published: Vec<Diagnostic>,
    within: std::ops::Range<usize>,
) -> Vec<lsp_types::CodeActionOrCommand> {
    found
        .iter()
        .zip(published)
        .filter_map(|(d, diagnostic)| {
            let fix = d.fix.as_ref()?;
            let meets = d.span.byte_start as usize <= within.end
                && within.start <= d.span.byte_end as usize;
            meets.then(|| {
                lsp_types::CodeActionOrCommand::CodeAction(lsp_types::CodeAction {
                    title: fix.title.clone(),
                    kind: Some(lsp_types::CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic]),
                    edit: Some(document_edit(target, text_edits(index, fix.edits.iter()))),
                    is_preferred: Some(fix.applicability == ide::Applicability::Safe),
                    ..Default::default()
                })
            })
        })
        .collect()
}

/// A source action of `kind` making the fixes `outcome` applied to the document at
/// `path` (the edits against the text the snapshot holds); `None` when they change nothing
/// there, or when a diagnostic they would bring in blocks them under `policy` (an editor
/// may apply a fix-all unasked, on save).
pub fn fix_all_action(
    index: &LineIndex,
    target: &EditTarget,
    path: &str,
    title: &str,
    kind: lsp_types::CodeActionKind,
    outcome: &ide::FixOutcome,
) -> Option<lsp_types::CodeActionOrCommand> {
    // A file whose fixes would bring in an error is withheld: not in the change.
    let file = outcome
        .change
        .files
        .iter()
        .find(|f| f.path == path && !f.edits.is_empty())?;
    Some(lsp_types::CodeActionOrCommand::CodeAction(
        lsp_types::CodeAction {
            title: title.to_string(),
            kind: Some(kind),
            edit: Some(document_edit(target, text_edits(index, file.edits.iter()))),
            ..Default::default()
        },
    ))
}

/// Why a rename is refused, as an editor shows it: the reason, then each place.
pub fn rename_refusal(error: &ide::RenameError) -> String {
    let mut message = format!("{}: {error}", error.code());
    for c in error.conflicts() {
        message.push_str(&format!(
            "\n{}:{}:{}: {}",
            c.path, c.span.start.line, c.span.start.column, c.message
        ));
    }
    message
}

/// Diagnostics a rename would introduce, as a refusal.
pub fn rename_breaks(refusal: &ide::NewDiagnostics) -> String {
    let mut message = format!(
        "{}: {}",
        ide::NewDiagnostics::CODE,
        ide::NewDiagnostics::MESSAGE
    );
    for line in refusal.lines() {
        message.push('\n');
        message.push_str(&line);
    }
    message
}

pub fn prepare_rename(index: &LineIndex, span: &Span) -> lsp_types::PrepareRenameResponse {
    lsp_types::PrepareRenameResponse::Range(span_range(index, span))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{ide, lsp::from_proto};

    #[test]
    fn code_descriptions_link_the_repository_docs_or_nothing() {
        let code = ide::explain("SX005").unwrap();
        assert_eq!(code_description("", code), None);
        assert_eq!(code_description("  ", code), None);
        let link = code_description("https://example.org/team/sextant/", code).unwrap();
        assert_eq!(
            link.href.as_str(),
            "https://example.org/team/sextant/blob/HEAD/docs/diagnostics.md#sx005-undefined-name"
        );
    }

    #[test]
    fn result_ids_follow_the_items() {
        let a = vec![Diagnostic {
            message: "a".into(),
            ..Default::default()
        }];
        let b = vec![Diagnostic {
            message: "b".into(),
            ..Default::default()
        }];
        assert_eq!(diagnostics_result_id(&a), diagnostics_result_id(&a.clone()));
        assert_ne!(diagnostics_result_id(&a), diagnostics_result_id(&b));
        assert_ne!(diagnostics_result_id(&a), diagnostics_result_id(&[]));
    }

    #[test]
    fn related_places_are_locations_in_the_same_document() {
        let text = "def f(): pass\ndef f(): pass\n";
        let index = index(text, PositionEncoding::Utf16);
        let line_index = ide::LineIndex::new(text);
        let span = |start: u32, end: u32| {
            Span::new(&line_index, ide::TextRange::new(start.into(), end.into()))
        };
        let uri: Uri = "file:///ws/m.py".parse().unwrap();
        let found = diagnostics(
            &index,
            &uri,
            &[DiagnosticInfo {
                path: "m.py".into(),
                code: "SX008".into(),
                severity: Severity::Warning,
                message: "redefinition of unused 'f'".into(),
                span: span(18, 19),
                unnecessary: false,
                also: Vec::new(),
                related: vec![ide::RelatedInfo {
                    path: None,
                    span: span(4, 5),
                    message: "'f' first defined here".into(),
                }],
                fix: None,
            }],
            &|_, _| None,
        );
        let related = found[0].related_information.as_ref().unwrap();
        assert_eq!(related.len(), 1);
        assert_eq!(related[0].location.uri, uri);
        assert_eq!(
            related[0].location.range,
            Range {
                start: Position {
                    line: 0,
                    character: 4
                },
                end: Position {
                    line: 0,
                    character: 5
                },
            }
        );
        assert_eq!(related[0].message, "'f' first defined here");
        assert_eq!(
            found[0].code_description.is_some(),
            !env!("CARGO_PKG_REPOSITORY").is_empty(),
            "a link only to the repository the package names"
        );
    }

    #[test]
    fn only_asks_for_a_kind_and_the_kinds_below_it() {
        use crate::lsp::capabilities::{FIX_ALL, ORGANIZE_IMPORTS, QUICKFIX};
        let wants = |only: &[&'static str], kind| {
            let only: Vec<lsp_types::CodeActionKind> = only.iter().map(|&k| k.into()).collect();
            from_proto::wants_kind(Some(&only), &kind)
        };
        assert!(from_proto::wants_kind(None, &FIX_ALL));
        assert!(wants(&["source"], FIX_ALL) && wants(&["source"], ORGANIZE_IMPORTS));
        assert!(wants(&["source.fixAll"], FIX_ALL) && !wants(&["source.fixAll"], QUICKFIX));
        assert!(wants(&["source.fixAll.sextant"], FIX_ALL));
        assert!(wants(&["refactor", "quickfix"], QUICKFIX));
        // A prefix of a kind's name that is not a whole part of it, or a longer kind.
        assert!(!wants(&["source.fix"], FIX_ALL) && !wants(&["quick"], QUICKFIX));
        assert!(!wants(&["source.fixAll.sextant.more"], FIX_ALL));
        assert!(!wants(&[], QUICKFIX) && !wants(&[""], QUICKFIX));
    }

    #[test]
    fn a_fix_all_is_the_change_to_its_own_file() {
        let text = "import os\nprint(1)\n";
        let index = index(text, PositionEncoding::Utf16);
        let line_index = ide::LineIndex::new(text);
        let span = |start: u32, end: u32| {
            Span::new(&line_index, ide::TextRange::new(start.into(), end.into()))
        };
        let uri: Uri = "file:///ws/m.py".parse().unwrap();
        let target = EditTarget {
            uri: &uri,
            version: Some(3),
            document_changes: false,
        };
        let new = |severity| DiagnosticInfo {
            path: "m.py".into(),
            code: "SX005".into(),
            severity,
            message: "undefined name 'os'".into(),
            span: span(16, 17),
            unnecessary: false,
            related: Vec::new(),
            fix: None,
            also: Vec::new(),
        };
        let outcome = |new_diagnostics| ide::FixOutcome {
            change: ide::SourceChange {
                files: vec![ide::FileEdit::new(
                    "m.py",
                    text,
                    vec![ide::TextEdit {
                        range: span(0, 10),
                        new_text: String::new(),
                    }],
                )],
                file_system: Vec::new(),
            },
            new_diagnostics: Some(new_diagnostics),
            ..Default::default()
        };
        let action = |outcome: &ide::FixOutcome, path| {
            fix_all_action(
                &index,
                &target,
                path,
                "Apply all safe fixes",
                crate::lsp::capabilities::FIX_ALL,
                outcome,
            )
        };
        let Some(lsp_types::CodeActionOrCommand::CodeAction(offered)) =
            action(&outcome(vec![new(Severity::Warning)]), "m.py")
        else {
            panic!("a fix-all with an edit to the file is offered");
        };
        // Not versioned: the client does not take `documentChanges`.
        let edits = &offered.edit.unwrap().changes.unwrap()[&uri];
        assert_eq!(
            edits,
            &[lsp_types::TextEdit {
                range: Range::new(Position::new(0, 0), Position::new(1, 0)),
                new_text: String::new(),
            }]
        );
        assert_eq!(action(&outcome(Vec::new()), "other.py"), None);
    }

    fn index(text: &str, encoding: PositionEncoding) -> LineIndex {
        LineIndex {
            index: Arc::new(ide::LineIndex::new(text)),
            encoding,
        }
    }

    #[test]
    fn utf16_and_utf8_columns_both_ways() {
        let text = "aé😀x\nz";
        let x = text.find('x').unwrap();
        let utf16 = index(text, PositionEncoding::Utf16);
        let utf8 = index(text, PositionEncoding::Utf8);
        assert_eq!(position(&utf16, x), Position::new(0, 4));
        assert_eq!(from_proto::offset(&utf16, Position::new(0, 4)), x);
        assert_eq!(position(&utf8, x), Position::new(0, 7));
        assert_eq!(from_proto::offset(&utf8, Position::new(0, 7)), x);
        // Past the line's end: its end; past the last line: the text's end.
        assert_eq!(from_proto::offset(&utf16, Position::new(1, 99)), text.len());
        assert_eq!(from_proto::offset(&utf16, Position::new(9, 0)), text.len());
        // A UTF-16 column between the two halves of a surrogate pair: after the emoji.
        let emoji = text.find('😀').unwrap();
        assert_eq!(
            from_proto::offset(&utf16, Position::new(0, 3)),
            emoji + '😀'.len_utf8()
        );
    }

    /// What the conversions must agree with: count along the line.
    fn naive_position(text: &str, offset: usize, encoding: PositionEncoding) -> Position {
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..offset];
        Position::new(
            text[..offset].matches('\n').count() as u32,
            match encoding {
                PositionEncoding::Utf8 => before.len(),
                PositionEncoding::Utf16 => before.encode_utf16().count(),
            } as u32,
        )
    }

    #[test]
    fn positions_far_along_one_long_line_are_exact() {
        // A minified-looking line of ~1 MB with characters of 1 to 4 bytes (and 1 or 2
        // UTF-16 units) throughout, then a short second line.
        let unit = "function é漢😀(a){return 'x';};var y=1;";
        let line = unit.repeat(1 << 20 >> 5);
        let text = format!("{line}\nz = '😀';");
        let marks: Vec<usize> = text.match_indices("return").map(|(i, _)| i).collect();
        let far: Vec<usize> = marks.iter().rev().step_by(997).copied().collect();
        for encoding in [PositionEncoding::Utf8, PositionEncoding::Utf16] {
            let lines = index(&text, encoding);
            for &offset in far.iter().chain(&[0, line.len(), text.len()]) {
                let expected = naive_position(&text, offset, encoding);
                assert_eq!(
                    position(&lines, offset),
                    expected,
                    "{encoding:?} at {offset}"
                );
                assert_eq!(from_proto::offset(&lines, expected), offset);
            }
        }
        let utf16 = index(&text, PositionEncoding::Utf16);
        assert_eq!(
            from_proto::offset(&utf16, Position::new(0, u32::MAX)),
            line.len()
        );
    }

    #[test]
    fn load_progress_never_goes_down_across_phases() {
        let steps = [
            (LoadPhase::Reading, 0, 4),
            (LoadPhase::Reading, 2, 4),
            (LoadPhase::Reading, 4, 4),
            (LoadPhase::Indexing, 0, 3),
            (LoadPhase::Indexing, 3, 3),
        ];
        let percentages: Vec<u32> = steps
            .iter()
            .map(|&(phase, done, total)| load_progress(&ProgressEvent { phase, done, total }).0)
            .collect();
        assert_eq!(percentages, [0, 25, 50, 50, 100]);
        let empty = ProgressEvent {
            phase: LoadPhase::Reading,
            done: 0,
            total: 0,
        };
        assert_eq!(load_progress(&empty), (50, "reading 0/0 files".to_string()));
    }
}
