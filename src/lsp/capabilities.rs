//! What the server tells the client it can do, and what of the client's capabilities
//! changes an answer ([`ClientSupport`]).
//!
//! Invariant: every capability advertised here has a handler in `main_loop`'s dispatch
//! (and nothing is dispatched that a capability does not announce, `shutdown` aside).

use lsp_types::{
    CallHierarchyServerCapability, ClientCapabilities, CodeActionKind, CodeActionOptions,
    CodeActionProviderCapability, DiagnosticOptions, DiagnosticServerCapabilities,
    FoldingRangeProviderCapability, HoverProviderCapability, ImplementationProviderCapability,
    OneOf, SelectionRangeProviderCapability, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
    WorkDoneProgressOptions, WorkspaceFoldersServerCapabilities, WorkspaceServerCapabilities,
    WorkspaceSymbolOptions,
};

use super::line_index::PositionEncoding;

/// The code action kinds the server answers (`code_action`).
pub const QUICKFIX: CodeActionKind = CodeActionKind::QUICKFIX;
pub const FIX_ALL: CodeActionKind = CodeActionKind::new("source.fixAll.sextant");
pub const ORGANIZE_IMPORTS: CodeActionKind = CodeActionKind::new("source.organizeImports.sextant");

/// The client capabilities an answer's shape depends on (the position encoding aside:
/// `PositionEncoding::negotiate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientSupport {
    /// `workspace.workspaceEdit.documentChanges`: edits may name the document version they
    /// were computed for.
    pub document_changes: bool,
    /// `textDocument.codeAction.codeActionLiteralSupport`: code actions may be answered as
    /// `CodeAction` literals (without it a client takes only `Command`s, and the server has
    /// none to give).
    pub code_action_literals: bool,
}

impl ClientSupport {
    pub fn of(capabilities: &ClientCapabilities) -> ClientSupport {
        let document_changes = capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.workspace_edit.as_ref())
            .and_then(|e| e.document_changes)
            .unwrap_or(false);
        let code_action_literals = capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.code_action.as_ref())
            .is_some_and(|c| c.code_action_literal_support.is_some());
        ClientSupport {
            document_changes,
            code_action_literals,
        }
    }
}

/// The capabilities as sent: `lsp_types`' struct, plus `typeHierarchyProvider`, which its
/// version has no field for. `folders_change`: the folders may change while the server runs
/// (not with `--root`, which fixes the one root served).
pub fn server_capabilities(encoding: PositionEncoding, folders_change: bool) -> serde_json::Value {
    let capabilities = typed_capabilities(encoding, folders_change);
    let mut capabilities = serde_json::to_value(capabilities).unwrap_or_default();
    if let Some(object) = capabilities.as_object_mut() {
        object.insert(
            "typeHierarchyProvider".into(),
            serde_json::Value::Bool(true),
        );
    }
    capabilities
}

fn typed_capabilities(encoding: PositionEncoding, folders_change: bool) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Right(WorkspaceSymbolOptions {
            work_done_progress_options: WorkDoneProgressOptions::default(),
            resolve_provider: None,
        })),
        definition_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        call_hierarchy_provider: Some(CallHierarchyServerCapability::Simple(true)),
        implementation_provider: Some(ImplementationProviderCapability::Simple(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(lsp_types::RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        selection_range_provider: Some(SelectionRangeProviderCapability::Simple(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        // Every action carries its edit: nothing is left to resolve.
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![QUICKFIX, FIX_ALL, ORGANIZE_IMPORTS]),
            work_done_progress_options: WorkDoneProgressOptions::default(),
            resolve_provider: Some(false),
        })),
        // Pull diagnostics beside the pushed ones; a file's diagnostics can change when
        // another file does (an import's module appears), and the whole workspace is
        // checked on request.
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("sextant".into()),
            inter_file_dependencies: true,
            workspace_diagnostics: true,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        // Every folder given at `initialize` is served, and the client tells which come
        // and go (`workspace/didChangeWorkspaceFolders`), unless `--root` fixes the root.
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: folders_change.then_some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    }
}
