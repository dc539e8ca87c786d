//! One function per request and per notification.
//!
//! Invariant: a request handler is a plain function of one snapshot and its typed params;
//! it runs on a worker, may be cancelled at any query (it then unwinds as
//! `HandlerError::Cancelled` and is retried or answered by its caller), and holds no
//! state. Notification handlers run on the main loop, in the order the client sent them,
//! and are the only code that changes documents. Neither reads an `ide` answer's fields
//! (`to_proto` does) nor a position (`from_proto` does).

use crate::ide::Failure as _;
use lsp_server::{ErrorCode, RequestId, Response};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyIncomingCallsParams, CallHierarchyItem,
    CallHierarchyOutgoingCall, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    CancelParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentDiagnosticParams, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, DocumentFormattingParams, DocumentHighlight,
    DocumentHighlightParams, DocumentRangeFormattingParams, DocumentSymbolParams,
    DocumentSymbolResponse, FoldingRange, FoldingRangeParams, FormattingOptions,
    FullDocumentDiagnosticReport, GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverParams,
    Location, ReferenceParams, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, SelectionRange, SelectionRangeParams,
    SymbolInformation, TypeHierarchyItem, TypeHierarchyPrepareParams, TypeHierarchySubtypesParams,
    TypeHierarchySupertypesParams, UnchangedDocumentDiagnosticReport, Uri,
    WorkspaceDiagnosticParams, WorkspaceDiagnosticReport, WorkspaceDiagnosticReportResult,
    WorkspaceDocumentDiagnosticReport, WorkspaceFullDocumentDiagnosticReport,
    WorkspaceSymbolParams, WorkspaceSymbolResponse, WorkspaceUnchangedDocumentDiagnosticReport,
    request::{GotoImplementationParams, GotoImplementationResponse},
};

use super::{
    capabilities::ClientSupport,
    documents::DocumentVersions,
    folders::Layout,
    from_proto,
    line_index::{LineIndex, PositionEncoding},
    main_loop::Server,
    to_proto, uri,
};
use crate::{
    ide::{
        CheckQuery, CodeSelection, FileId, FormatOptions, HierarchyDirection, IndentStyle,
        ReferenceQuery, SymbolRank,
    },
    workspace::{
        self, FormatFailure, FormatterTrust, Formatting, live::Snapshot, roots::merge_ordered,
    },
};

/// References (and highlights) answered at most: an editor lists them all, but a name used
/// everywhere should not stall it.
const MAX_REFERENCES: usize = 10_000;

/// What a request handler sees: one revision of one folder's workspace, the session's
/// encoding and what the client supports, the open documents' versions, and where the
/// folders lie.
pub struct RequestContext<'a> {
    pub snapshot: &'a Snapshot,
    pub encoding: PositionEncoding,
    pub formatter_trust: FormatterTrust,
    pub client: ClientSupport,
    pub versions: &'a DocumentVersions,
    pub layout: &'a Layout,
}

/// The session's side of a [`RequestContext`], taken by a request when it arrives.
pub struct RequestSettings {
    pub encoding: PositionEncoding,
    pub formatter_trust: FormatterTrust,
    pub client: ClientSupport,
    pub versions: DocumentVersions,
    pub layout: Layout,
}

impl RequestSettings {
    pub fn context<'a>(&'a self, snapshot: &'a Snapshot) -> RequestContext<'a> {
        RequestContext {
            snapshot,
            encoding: self.encoding,
            formatter_trust: self.formatter_trust,
            client: self.client,
            versions: &self.versions,
            layout: &self.layout,
        }
    }
}

impl RequestContext<'_> {
    /// Whether `uri` is a document of this folder: where folders nest, a document of the
    /// inner one is the inner one's alone (and one outside every folder the first's).
    pub fn owns(&self, uri: &Uri) -> bool {
        self.layout.owns(&self.snapshot.root, uri)
    }

    /// The indexed file a document URI names: an error for a URI that is not a workspace
    /// document (outside the root, not a local file), `None` for one the index does not
    /// hold (ignored, too large, not a known language).
    pub fn file(&self, uri: &Uri) -> HandlerResult<Option<FileId>> {
        let rel = uri::workspace_path(&self.snapshot.root, uri).ok_or_else(|| {
            HandlerError::InvalidParams(format!(
                "{} is not a document of this workspace",
                uri.as_str()
            ))
        })?;
        Ok(self.snapshot.file(&rel))
    }

    pub fn line_index(&self, file: FileId) -> HandlerResult<LineIndex> {
        Ok(LineIndex {
            index: self.snapshot.analysis.line_index(file)?,
            encoding: self.encoding,
        })
    }

    /// The version of the open document `uri` (the indexed `file`) whose text this snapshot
    /// holds; `None` when it is not open, or the editor has moved on from this text.
    pub fn document_version(&self, uri: &Uri, file: FileId) -> Option<i32> {
        self.versions
            .version(uri, &self.snapshot.analysis.file_text(file))
    }

    /// A document's diagnostics as they are published and pulled: other files' places
    /// located through their own line tables.
    pub fn lsp_diagnostics(
        &self,
        index: &LineIndex,
        uri: &Uri,
        found: &[crate::ide::DiagnosticInfo],
    ) -> Vec<lsp_types::Diagnostic> {
        to_proto::diagnostics(index, uri, found, &|path, span| {
            to_proto::location(self.snapshot, self.encoding, path, span)
                .ok()
                .flatten()
        })
    }
}

#[derive(Debug)]
pub enum HandlerError {
    /// A write or the client cancelled the query.
    Cancelled(crate::ide::Cancelled),
    /// Well-formed params that name something the server does not serve (`-32602`).
    InvalidParams(String),
    /// The answer could not be made (`-32603`).
    Internal(String),
    /// The request is understood but refused, with the reason (`-32803`): a rename that
    /// would change what names mean, a file that cannot be formatted.
    RequestFailed(String),
    /// A workspace pull whose every report is unchanged since the client's: held open by
    /// the main loop until the workspace moves past `revision`, then asked again.
    NothingNew { revision: u64 },
}

impl HandlerError {
    pub fn into_response(self, id: RequestId) -> Response {
        let (code, message) = match self {
            HandlerError::Cancelled(_) => (ErrorCode::RequestCanceled, "cancelled".to_string()),
            HandlerError::InvalidParams(message) => (ErrorCode::InvalidParams, message),
            HandlerError::Internal(message) => (ErrorCode::InternalError, message),
            HandlerError::RequestFailed(message) => (ErrorCode::RequestFailed, message),
            HandlerError::NothingNew { .. } => (
                ErrorCode::ServerCancelled,
                "nothing changed since the results the client holds; ask again".to_string(),
            ),
        };
        Response::new_err(id, code as i32, message)
    }
}

impl From<crate::ide::Cancelled> for HandlerError {
    fn from(cancelled: crate::ide::Cancelled) -> HandlerError {
        HandlerError::Cancelled(cancelled)
    }
}

pub type HandlerResult<T> = Result<T, HandlerError>;

// --- requests ----------------------------------------------------------------------------

pub fn document_symbol(
    ctx: &RequestContext,
    params: DocumentSymbolParams,
) -> HandlerResult<Option<DocumentSymbolResponse>> {
    let Some(file) = ctx.file(&params.text_document.uri)? else {
        return Ok(None);
    };
    let outline = ctx.snapshot.analysis.outline(file, usize::MAX)?;
    let index = ctx.line_index(file)?;
    Ok(Some(DocumentSymbolResponse::Nested(
        to_proto::document_symbols(&index, &outline),
    )))
}

/// `textDocument/diagnostic`: the document's diagnostics (the same as those pushed), or
/// `unchanged` when they are what the client's `previousResultId` stands for.
pub fn document_diagnostic(
    ctx: &RequestContext,
    params: DocumentDiagnosticParams,
) -> HandlerResult<DocumentDiagnosticReportResult> {
    let uri = params.text_document.uri;
    let items = match ctx.file(&uri)? {
        None => Vec::new(),
        Some(file) => {
            let found = ctx
                .snapshot
                .analysis
                .diagnostics(file, &CodeSelection::default())?;
            ctx.lsp_diagnostics(&ctx.line_index(file)?, &uri, &found)
        }
    };
    let result_id = to_proto::diagnostics_result_id(&items);
    let report = if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
        DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        })
    };
    Ok(DocumentDiagnosticReportResult::Report(report))
}

/// `workspace/diagnostic`, one folder's part: a report for every file of the folder with
/// diagnostics, and for every file of the folder the client holds a result for
/// (`unchanged` when its result id still stands, else its new items, empty when it is
/// clean now or left the workspace). Every file's check is memoized, so a second pull
/// re-checks only the files that changed.
pub fn workspace_diagnostic(
    ctx: &RequestContext,
    params: &WorkspaceDiagnosticParams,
) -> HandlerResult<Vec<WorkspaceDocumentDiagnosticReport>> {
    let snapshot = ctx.snapshot;
    let checked = snapshot.analysis.check(&CheckQuery::default())?;
    let previous: std::collections::HashMap<&str, &str> = params
        .previous_result_ids
        .iter()
        .map(|p| (p.uri.as_str(), p.value.as_str()))
        .collect();
    let mut reported = std::collections::HashSet::new();
    let mut items = Vec::new();
    let mut report = |uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>| {
        let result_id = to_proto::diagnostics_result_id(&diagnostics);
        let item = if previous.get(uri.as_str()) == Some(&result_id.as_str()) {
            WorkspaceDocumentDiagnosticReport::Unchanged(
                WorkspaceUnchangedDocumentDiagnosticReport {
                    uri,
                    version: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id,
                    },
                },
            )
        } else {
            WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
                uri,
                version: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: Some(result_id),
                    items: diagnostics,
                },
            })
        };
        items.push(item);
    };
    // `check` lists diagnostics by path: each run of one path is one file's.
    for group in checked.diagnostics.chunk_by(|a, b| a.path == b.path) {
        let path = &group[0].path;
        let (Some(file), Some(uri)) = (
            snapshot.file(path),
            uri::path_to_uri(&snapshot.root.join(path)),
        ) else {
            continue;
        };
        if !ctx.owns(&uri) {
            continue;
        }
        let diagnostics = ctx.lsp_diagnostics(&ctx.line_index(file)?, &uri, group);
        reported.insert(uri.as_str().to_string());
        report(uri, diagnostics);
    }
    for previous in &params.previous_result_ids {
        if !reported.contains(previous.uri.as_str()) && ctx.owns(&previous.uri) {
            report(previous.uri.clone(), Vec::new());
        }
    }
    Ok(items)
}

/// `workspace/diagnostic`: every folder's reports, in the folders' order. An answer that
/// says nothing would be asked again at once: the request waits for a change instead,
/// until any folder moves past where it was (the revision `on_every` gives).
pub fn workspace_diagnostic_merge(
    parts: Vec<Vec<WorkspaceDocumentDiagnosticReport>>,
) -> HandlerResult<WorkspaceDiagnosticReportResult> {
    let items: Vec<WorkspaceDocumentDiagnosticReport> = parts.into_iter().flatten().collect();
    if items
        .iter()
        .all(|item| matches!(item, WorkspaceDocumentDiagnosticReport::Unchanged(_)))
    {
        return Err(HandlerError::NothingNew { revision: 0 });
    }
    Ok(WorkspaceDiagnosticReportResult::Report(
        WorkspaceDiagnosticReport { items },
    ))
}

/// `workspace/symbol`, one folder's part: its matches of its own documents, best first,
/// each with its rank.
pub fn workspace_symbol(
    ctx: &RequestContext,
    params: &WorkspaceSymbolParams,
) -> HandlerResult<Vec<(SymbolRank, SymbolInformation)>> {
    let found = ctx
        .snapshot
        .analysis
        .symbol_search(&from_proto::symbol_query(params))?;
    ranked_symbols(ctx, &found)
}

/// `workspace/symbol`, the part of a folder still in its first index: its matches in the
/// files of the first `shards` shards of its symbol index, those built so far.
pub fn workspace_symbol_so_far(
    ctx: &RequestContext,
    params: &WorkspaceSymbolParams,
    shards: u32,
) -> HandlerResult<Vec<(SymbolRank, SymbolInformation)>> {
    let query = from_proto::symbol_query(params);
    let found = ctx
        .snapshot
        .analysis
        .symbol_search_in_shards(&query, shards)?;
    ranked_symbols(ctx, &found)
}

/// A folder's matches of its own documents, best first, each with its rank.
fn ranked_symbols(
    ctx: &RequestContext,
    found: &crate::ide::SymbolSearch,
) -> HandlerResult<Vec<(SymbolRank, SymbolInformation)>> {
    let mut ranked = Vec::with_capacity(found.symbols.len());
    for m in &found.symbols {
        if let Some(symbol) = to_proto::workspace_symbol(ctx.snapshot, ctx.encoding, m)?
            && ctx.owns(&symbol.location.uri)
        {
            ranked.push((m.rank(), symbol));
        }
    }
    Ok(ranked)
}

/// `workspace/symbol`: every folder's matches as one list ranked as each folder's is, ties
/// in the folders' order, at most [`from_proto::WORKSPACE_SYMBOL_LIMIT`] in all.
pub fn workspace_symbol_merge(
    parts: Vec<Vec<(SymbolRank, SymbolInformation)>>,
) -> HandlerResult<Option<WorkspaceSymbolResponse>> {
    let mut merged = merge_ordered(parts, |(rank, _)| rank.clone());
    merged.truncate(from_proto::WORKSPACE_SYMBOL_LIMIT);
    Ok(Some(WorkspaceSymbolResponse::Flat(
        merged.into_iter().map(|(_, (_, symbol))| symbol).collect(),
    )))
}

pub fn goto_definition(
    ctx: &RequestContext,
    params: GotoDefinitionParams,
) -> HandlerResult<Option<GotoDefinitionResponse>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    let found = ctx.snapshot.analysis.definition(file, offset)?;
    let locations = to_proto::definitions(ctx.snapshot, ctx.encoding, &found)?;
    Ok((!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations)))
}

pub fn prepare_call_hierarchy(
    ctx: &RequestContext,
    params: CallHierarchyPrepareParams,
) -> HandlerResult<Option<Vec<CallHierarchyItem>>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    let Some(item) = ctx.snapshot.analysis.call_hierarchy_item(file, offset)? else {
        return Ok(None);
    };
    Ok(to_proto::call_hierarchy_item(ctx.snapshot, ctx.encoding, &item)?.map(|i| vec![i]))
}

/// An item of a call hierarchy, found again by the position of its name.
fn call_item_position(
    ctx: &RequestContext,
    item: &CallHierarchyItem,
) -> HandlerResult<Option<(FileId, usize)>> {
    let Some(file) = ctx.file(&item.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, item.selection_range.start);
    Ok(Some((file, offset)))
}

pub fn incoming_calls(
    ctx: &RequestContext,
    params: CallHierarchyIncomingCallsParams,
) -> HandlerResult<Option<Vec<CallHierarchyIncomingCall>>> {
    let Some((file, offset)) = call_item_position(ctx, &params.item)? else {
        return Ok(None);
    };
    let calls = ctx.snapshot.analysis.incoming_calls(file, offset)?;
    Ok(Some(to_proto::incoming_calls(
        ctx.snapshot,
        ctx.encoding,
        &calls,
    )?))
}

pub fn outgoing_calls(
    ctx: &RequestContext,
    params: CallHierarchyOutgoingCallsParams,
) -> HandlerResult<Option<Vec<CallHierarchyOutgoingCall>>> {
    let Some((file, offset)) = call_item_position(ctx, &params.item)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let calls = ctx.snapshot.analysis.outgoing_calls(file, offset)?;
    Ok(Some(to_proto::outgoing_calls(
        ctx.snapshot,
        ctx.encoding,
        &index,
        &calls,
    )?))
}

/// Implementations in editors: the subtypes and overriding methods of what is at the
/// position, every level down, exact and heuristic alike (as `definition` answers a guess
/// when nothing surer is known); nothing when nothing there is a type or method.
pub fn goto_implementation(
    ctx: &RequestContext,
    params: GotoImplementationParams,
) -> HandlerResult<Option<GotoImplementationResponse>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    let Ok(found) = ctx.snapshot.analysis.implementations(
        file,
        offset,
        HierarchyDirection::Implementations,
        MAX_REFERENCES,
    )?
    else {
        return Ok(None);
    };
    let mut locations = Vec::with_capacity(found.items.len());
    for item in &found.items {
        if let Some(location) =
            to_proto::location(ctx.snapshot, ctx.encoding, &item.path, &item.name_span)?
        {
            locations.push(location);
        }
    }
    Ok(Some(GotoImplementationResponse::Array(locations)))
}

pub fn prepare_type_hierarchy(
    ctx: &RequestContext,
    params: TypeHierarchyPrepareParams,
) -> HandlerResult<Option<Vec<TypeHierarchyItem>>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    let Some(item) = ctx.snapshot.analysis.type_hierarchy_item(file, offset)? else {
        return Ok(None);
    };
    Ok(to_proto::type_hierarchy_item(ctx.snapshot, ctx.encoding, &item)?.map(|i| vec![i]))
}

pub fn supertypes(
    ctx: &RequestContext,
    params: TypeHierarchySupertypesParams,
) -> HandlerResult<Option<Vec<TypeHierarchyItem>>> {
    type_hierarchy_level(ctx, &params.item, HierarchyDirection::Supertypes)
}

pub fn subtypes(
    ctx: &RequestContext,
    params: TypeHierarchySubtypesParams,
) -> HandlerResult<Option<Vec<TypeHierarchyItem>>> {
    type_hierarchy_level(ctx, &params.item, HierarchyDirection::Implementations)
}

/// One level of a type hierarchy from `item` (found again by the position of its name):
/// the editor expands each level itself.
fn type_hierarchy_level(
    ctx: &RequestContext,
    item: &TypeHierarchyItem,
    direction: HierarchyDirection,
) -> HandlerResult<Option<Vec<TypeHierarchyItem>>> {
    let Some(file) = ctx.file(&item.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, item.selection_range.start);
    let Ok(found) =
        ctx.snapshot
            .analysis
            .implementations(file, offset, direction, MAX_REFERENCES)?
    else {
        return Ok(None);
    };
    let mut items = Vec::new();
    for related in found.items.iter().filter(|i| i.depth == 1) {
        items.extend(to_proto::type_hierarchy_item(
            ctx.snapshot,
            ctx.encoding,
            related,
        )?);
    }
    Ok(Some(items))
}

pub fn hover(ctx: &RequestContext, params: HoverParams) -> HandlerResult<Option<Hover>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let offset = from_proto::offset(&index, at.position);
    let found = ctx.snapshot.analysis.hover(file, offset)?;
    Ok(found.map(|info| to_proto::hover(&index, &info)))
}

/// References in editors: exact ones only (a guess in a list of references reads as a
/// fact), the declaration as the client asks.
pub fn references(
    ctx: &RequestContext,
    params: ReferenceParams,
) -> HandlerResult<Option<Vec<Location>>> {
    let at = params.text_document_position;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    let query = ReferenceQuery {
        include_family: false,
        exact_only: true,
        exclude_definitions: !params.context.include_declaration,
        path_prefix: None,
        limit: MAX_REFERENCES,
    };
    let found = ctx.snapshot.analysis.references(file, offset, &query)?;
    Ok(Some(to_proto::reference_locations(
        ctx.snapshot,
        ctx.encoding,
        &found,
    )?))
}

pub fn document_highlight(
    ctx: &RequestContext,
    params: DocumentHighlightParams,
) -> HandlerResult<Option<Vec<DocumentHighlight>>> {
    let at = params.text_document_position_params;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let offset = from_proto::offset(&index, at.position);
    let path = ctx.snapshot.analysis.file_path(file).to_string();
    let query = ReferenceQuery {
        include_family: false,
        exact_only: true,
        exclude_definitions: false,
        path_prefix: Some(path.clone()),
        limit: MAX_REFERENCES,
    };
    let found = ctx.snapshot.analysis.references(file, offset, &query)?;
    Ok(Some(to_proto::document_highlights(&index, &path, &found)))
}

pub fn folding_range(
    ctx: &RequestContext,
    params: FoldingRangeParams,
) -> HandlerResult<Option<Vec<FoldingRange>>> {
    let Some(file) = ctx.file(&params.text_document.uri)? else {
        return Ok(None);
    };
    let folds = ctx.snapshot.analysis.folding_ranges(file)?;
    Ok(Some(to_proto::folding_ranges(&folds)))
}

pub fn selection_range(
    ctx: &RequestContext,
    params: SelectionRangeParams,
) -> HandlerResult<Option<Vec<SelectionRange>>> {
    let Some(file) = ctx.file(&params.text_document.uri)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let offsets: Vec<usize> = params
        .positions
        .iter()
        .map(|&position| from_proto::offset(&index, position))
        .collect();
    let chains = ctx.snapshot.analysis.selection_ranges(file, &offsets)?;
    Ok(Some(to_proto::selection_ranges(&index, &chains)))
}

/// `textDocument/formatting`: the whole document's layout fixed (see `format_edits`).
pub fn formatting(
    ctx: &RequestContext,
    params: DocumentFormattingParams,
) -> HandlerResult<Option<Vec<lsp_types::TextEdit>>> {
    format_edits(ctx, &params.text_document.uri, &params.options, None)
}

/// `textDocument/rangeFormatting`: the edits of a whole-document format that lie within
/// the lines of the range (an edit reaching outside them is left out).
pub fn range_formatting(
    ctx: &RequestContext,
    params: DocumentRangeFormattingParams,
) -> HandlerResult<Option<Vec<lsp_types::TextEdit>>> {
    format_edits(
        ctx,
        &params.text_document.uri,
        &params.options,
        Some(params.range),
    )
}

/// The client's tab size and spaces-or-tabs replace the language's unit, except where the
/// language's own convention is a tab (Go): an editor's default of spaces would fight it.
fn format_options(
    ctx: &RequestContext,
    file: FileId,
    options: &FormattingOptions,
) -> FormatOptions {
    let lang = ctx.snapshot.analysis.file_language(file);
    let indent = if lang.indent_unit == "\t" || !options.insert_spaces {
        IndentStyle::Tabs
    } else {
        IndentStyle::Spaces(options.tab_size.clamp(1, 16) as u8)
    };
    FormatOptions { indent }
}

fn format_edits(
    ctx: &RequestContext,
    uri: &Uri,
    options: &FormattingOptions,
    range: Option<lsp_types::Range>,
) -> HandlerResult<Option<Vec<lsp_types::TextEdit>>> {
    let Some(file) = ctx.file(uri)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let within = match range {
        Some(range) if range.end < range.start => {
            return Err(HandlerError::InvalidParams(format!(
                "the range ends ({}:{}) before it starts ({}:{})",
                range.end.line, range.end.character, range.start.line, range.start.character
            )));
        }
        range => range.map(|range| from_proto::line_span(&index, range)),
    };
    let options = format_options(ctx, file, options);
    // An external formatter runs holding the snapshot: it is stopped when the request is
    // cancelled, and when an edit waits for the snapshot (the request then runs again on
    // the new text), so that neither the writer nor the main loop waits for it.
    let formatting = Formatting {
        root: &ctx.snapshot.root,
        formatters: &ctx.snapshot.formatters,
        trust: ctx.formatter_trust,
        stop: &|| ctx.snapshot.analysis.is_cancelled(),
    };
    let formatted = workspace::format_file(&ctx.snapshot.analysis, formatting, file, options)
        .map_err(|failure| match failure {
            // The request's own cancellation: answered `RequestCancelled` like any query's.
            FormatFailure::Cancelled => HandlerError::Cancelled(crate::ide::Cancelled::Local),
            failure => HandlerError::RequestFailed(format!("{}: {failure}", failure.code())),
        })?;
    let edits = formatted.edit.edits.iter().filter(|edit| {
        within.as_ref().is_none_or(|lines| {
            lines.start <= edit.range.byte_start as usize
                && edit.range.byte_end as usize <= lines.end
        })
    });
    Ok(Some(to_proto::text_edits(&index, edits)))
}

// --- notifications -----------------------------------------------------------------------

pub fn did_open(server: &mut Server, params: DidOpenTextDocumentParams) {
    let uri = params.text_document.uri.clone();
    let folder = server.folders.holding(&uri).cloned();
    if server.documents.open(folder, params.text_document) {
        server.diagnostics.schedule_now(uri);
    }
}

pub fn did_change(server: &mut Server, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri.clone();
    if server.documents.change(server.encoding, params) {
        server.diagnostics.schedule_debounced(uri);
    }
}

/// The overlay already holds the saved text; a save is when the deep check runs.
pub fn did_save(server: &mut Server, params: lsp_types::DidSaveTextDocumentParams) {
    server.saved(&params.text_document.uri);
}

pub fn did_close(server: &mut Server, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    server.documents.close(&uri);
    server.diagnostics.clear(uri, &server.sender);
}

/// `workspace/didChangeWorkspaceFolders`: removed folders stop, added ones start.
pub fn did_change_workspace_folders(
    server: &mut Server,
    params: lsp_types::DidChangeWorkspaceFoldersParams,
) {
    server.change_folders(&params.event.removed, &params.event.added);
}

pub fn cancel(server: &mut Server, params: CancelParams) {
    server.cancel_request(from_proto::request_id(params.id));
}

/// `shutdown`: answered on the main loop; from now on requests are refused and `exit`
/// means success.
pub fn shutdown(server: &mut Server, (): ()) -> HandlerResult<()> {
    server.shut_down = true;
    Ok(())
}

pub fn exit(server: &mut Server, (): ()) {
    server.exit = true;
}
