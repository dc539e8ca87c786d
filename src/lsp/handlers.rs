//! One function per request and per notification.
//!
//! Invariant: a request handler is a plain function of one snapshot and its typed params;
//! it runs on a worker, may be cancelled at any query (it then unwinds as
//! `HandlerError::Cancelled` and is retried or answered by its caller), and holds no
//! state. Notification handlers run on the main loop, in the order the client sent them,
//! and are the only code that changes documents. Neither reads an `ide` answer's fields
//! (`to_proto` does) nor a position (`from_proto` does).

use lsp_server::{ErrorCode, RequestId, Response};
use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyIncomingCallsParams, CallHierarchyItem,
    CallHierarchyOutgoingCall, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    CancelParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentHighlight, DocumentHighlightParams, DocumentSymbolParams,
    DocumentSymbolResponse, FoldingRange, FoldingRangeParams, GotoDefinitionParams,
    GotoDefinitionResponse, Hover, HoverParams, Location, ReferenceParams, SelectionRange,
    SelectionRangeParams, Uri, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use super::{
    from_proto,
    line_index::{LineIndex, PositionEncoding},
    main_loop::Server,
    to_proto, uri,
};
use crate::{
    ide::{FileId, ReferenceQuery},
    workspace::live::Snapshot,
};

/// References (and highlights) answered at most: an editor lists them all, but a name used
/// everywhere should not stall it.
const MAX_REFERENCES: usize = 10_000;

/// What a request handler sees: one revision of the workspace, and the session's encoding.
pub struct RequestContext<'a> {
    pub snapshot: &'a Snapshot,
    pub encoding: PositionEncoding,
}

impl RequestContext<'_> {
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
}

#[derive(Debug)]
pub enum HandlerError {
    /// A write or the client cancelled the query.
    Cancelled(salsa::Cancelled),
    /// Well-formed params that name something the server does not serve (`-32602`).
    InvalidParams(String),
    /// The answer could not be made (`-32603`).
    Internal(String),
}

impl HandlerError {
    pub fn into_response(self, id: RequestId) -> Response {
        let (code, message) = match self {
            HandlerError::Cancelled(_) => (ErrorCode::RequestCanceled, "cancelled".to_string()),
            HandlerError::InvalidParams(message) => (ErrorCode::InvalidParams, message),
            HandlerError::Internal(message) => (ErrorCode::InternalError, message),
        };
        Response::new_err(id, code as i32, message)
    }
}

impl From<salsa::Cancelled> for HandlerError {
    fn from(cancelled: salsa::Cancelled) -> HandlerError {
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

pub fn workspace_symbol(
    ctx: &RequestContext,
    params: WorkspaceSymbolParams,
) -> HandlerResult<Option<WorkspaceSymbolResponse>> {
    let found = ctx
        .snapshot
        .analysis
        .symbol_search(&from_proto::symbol_query(&params))?;
    let symbols = to_proto::workspace_symbols(ctx.snapshot, ctx.encoding, &found)?;
    Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
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

// --- notifications -----------------------------------------------------------------------

pub fn did_open(server: &mut Server, params: DidOpenTextDocumentParams) {
    let uri = params.text_document.uri.clone();
    if server
        .documents
        .open(&server.live, &server.root, params.text_document)
    {
        server.diagnostics.schedule_now(uri);
    }
}

pub fn did_change(server: &mut Server, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri.clone();
    if server
        .documents
        .change(&server.live, server.encoding, params)
    {
        server.diagnostics.schedule_debounced(uri);
    }
}

pub fn did_close(server: &mut Server, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    server.documents.close(&server.live, &uri);
    server.diagnostics.clear(uri, &server.sender);
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
