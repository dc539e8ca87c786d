//! `textDocument/prepareRename` and `textDocument/rename`.
//!
//! Invariant: the server never writes: a rename answers a `WorkspaceEdit` the client
//! applies to its documents, computed (and checked for conflicts and new diagnostics) on
//! the snapshot holding the open documents. An editor applies what it is given, so the
//! check policy is always `refuse`: a rename whose renamed files would have new errors is
//! refused (new warnings are not). A refusal is a `RequestFailed` error whose message
//! gives the stable code, the reason and each conflicting place.

use lsp_types::{PrepareRenameResponse, RenameParams, TextDocumentPositionParams, WorkspaceEdit};

use super::{
    from_proto,
    handlers::{HandlerError, HandlerResult, RequestContext},
    to_proto,
};
use crate::ide::{CheckPolicy, RenameOptions};

pub fn prepare_rename(
    ctx: &RequestContext,
    params: TextDocumentPositionParams,
) -> HandlerResult<Option<PrepareRenameResponse>> {
    let Some(file) = ctx.file(&params.text_document.uri)? else {
        return Ok(None);
    };
    let index = ctx.line_index(file)?;
    let offset = from_proto::offset(&index, params.position);
    match ctx.snapshot.analysis.prepare_rename(file, offset)? {
        Ok(span) => Ok(Some(to_proto::prepare_rename(&index, &span))),
        Err(error) => Err(HandlerError::RequestFailed(to_proto::rename_refusal(
            &error,
        ))),
    }
}

pub fn rename(ctx: &RequestContext, params: RenameParams) -> HandlerResult<Option<WorkspaceEdit>> {
    let at = params.text_document_position;
    let Some(file) = ctx.file(&at.text_document.uri)? else {
        return Ok(None);
    };
    let offset = from_proto::offset(&ctx.line_index(file)?, at.position);
    // Editors apply what they are given: heuristic matches and strings stay out.
    let computed =
        ctx.snapshot
            .analysis
            .rename(file, offset, &params.new_name, RenameOptions::default())?;
    let rename =
        computed.map_err(|error| HandlerError::RequestFailed(to_proto::rename_refusal(&error)))?;
    if let Some(refusal) = rename.refusal(CheckPolicy::Refuse) {
        return Err(HandlerError::RequestFailed(to_proto::rename_breaks(
            &refusal,
        )));
    }
    Ok(Some(to_proto::workspace_edit(
        ctx.snapshot,
        ctx.encoding,
        &rename.change,
    )?))
}
