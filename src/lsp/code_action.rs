//! `textDocument/codeAction`: the fixes diagnostics carry, one at a time (`quickfix`, one
//! per diagnostic in the range) and all together (`source.fixAll.sextant`: every safe fix
//! of the document; `source.organizeImports.sextant`: the safe fixes of unused imports,
//! which is all organizing imports means so far: nothing is sorted).
//!
//! Invariant: the server never writes: an action carries a `WorkspaceEdit` the client
//! applies, computed on the snapshot holding the open document, against its text there.
//! The edit names the document's version only when that text is the version the editor
//! holds (`DocumentVersions`). Only the fixes `check --fix` may apply are offered (one it
//! never applies, such as removing an import another file imports from this one, is
//! not); a fix-all applies only safe ones, as `check --fix` does, and is not offered when
//! its result would bring in a new error (`CheckPolicy::Refuse`): editors apply it
//! unasked, on save. Like every request it is cancelled at any query, and run again on
//! the new text when an edit arrives meanwhile.

use lsp_types::{CodeActionKind, CodeActionParams, CodeActionResponse};

use super::{
    capabilities::{FIX_ALL, ORGANIZE_IMPORTS, QUICKFIX},
    from_proto,
    handlers::{HandlerResult, RequestContext},
    to_proto::{self, EditTarget},
};
use crate::ide::{CheckPolicy, CodeSelection, FixQuery};

/// The code of unused imports, whose fixes organizing imports applies.
const UNUSED_IMPORT: &str = "SX006";

/// What a fix-all's new diagnostics do to it.
const FIX_ALL_POLICY: CheckPolicy = CheckPolicy::Refuse;

/// A source action: its kind, title, and the one code it fixes (`None`: every code).
struct SourceAction {
    kind: CodeActionKind,
    title: &'static str,
    code: Option<&'static str>,
}

const SOURCE_ACTIONS: [SourceAction; 2] = [
    SourceAction {
        kind: FIX_ALL,
        title: "Apply all safe fixes",
        code: None,
    },
    SourceAction {
        kind: ORGANIZE_IMPORTS,
        title: "Remove unused imports",
        code: Some(UNUSED_IMPORT),
    },
];

pub fn code_action(
    ctx: &RequestContext,
    params: CodeActionParams,
) -> HandlerResult<Option<CodeActionResponse>> {
    // A client that takes only commands: the server has none.
    if !ctx.client.code_action_literals {
        return Ok(None);
    }
    let uri = &params.text_document.uri;
    let Some(file) = ctx.file(uri)? else {
        return Ok(None);
    };
    let only = params.context.only.as_deref();
    let analysis = &ctx.snapshot.analysis;
    let index = ctx.line_index(file)?;
    // The fixes `check --fix` would never apply (an import another file imports from
    // this one) are not offered either.
    let found = analysis.diagnostics_with_offered_fixes(file, &CodeSelection::default())?;
    let target = EditTarget {
        uri,
        version: ctx.document_version(uri, file),
        document_changes: ctx.client.document_changes,
    };
    let mut actions = Vec::new();
    if from_proto::wants_kind(only, &QUICKFIX) {
        let published = ctx.lsp_diagnostics(&index, uri, &found);
        let within = from_proto::byte_range(&index, params.range);
        actions.extend(to_proto::quick_fixes(
            &index, &target, &found, published, within,
        ));
    }
    let path = analysis.file_path(file);
    for source in &SOURCE_ACTIONS {
        // Nothing safe to fix: no need to run the fixes to learn that.
        if !from_proto::wants_kind(only, &source.kind)
            || !to_proto::has_safe_fix(&found, source.code)
        {
            continue;
        }
        let codes = match source.code {
            Some(code) => {
                CodeSelection::new(&[code.to_string()], &[]).expect("the code is in the registry")
            }
            None => CodeSelection::default(),
        };
        let outcome = analysis.fix(&FixQuery {
            paths: vec![path.to_string()],
            codes,
            unsafe_fixes: false,
            check: FIX_ALL_POLICY,
            limit: 0,
        })?;
        actions.extend(to_proto::fix_all_action(
            &index,
            &target,
            path,
            source.title,
            source.kind.clone(),
            &outcome,
        ));
    }
    Ok(Some(actions))
}
