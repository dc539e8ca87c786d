//! The workspace folders one server serves: every folder the client gives at `initialize`
//! (or `--root` alone) is a root of its own, a live workspace with its own index, watcher,
//! `sextant.toml`, cache and background check, as the roots of `sextant mcp --root A
//! --root B` are.
//!
//! Invariant: a document belongs to the deepest folder holding it (`workspace::roots`), and
//! everything about it (its overlay, its diagnostics, a request naming it) goes to that
//! folder's workspace alone; a document outside every folder goes to the first, which
//! refuses it as a one-folder server does. A question over the whole workspace
//! (`workspace/symbol`, `workspace/diagnostic`) asks every folder in order, each keeping
//! only what belongs to it, so that where folders nest nothing is answered twice.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use lsp_types::Uri;

use super::uri;
use crate::workspace::{
    LoadOptions,
    live::LiveWorkspace,
    roots::{deepest_holding, unique_names},
};

/// One served folder.
pub struct Folder {
    /// The folder's name in messages: its directory's, with as many parents as make it
    /// unique among the folders.
    pub name: String,
    pub live: Arc<LiveWorkspace>,
}

impl Folder {
    pub fn root(&self) -> &Path {
        self.live.root()
    }
}

/// The folders' roots in order, which is all a worker needs to tell a URI's folder.
#[derive(Clone, Debug)]
pub struct Layout(Arc<[PathBuf]>);

impl Layout {
    /// The folder a document belongs to: the deepest holding it, else the first.
    pub fn owner(&self, uri: &Uri) -> usize {
        self.holding(uri).unwrap_or(0)
    }

    /// The deepest folder holding `uri`, if one does.
    fn holding(&self, uri: &Uri) -> Option<usize> {
        let roots = self.0.iter().map(PathBuf::as_path);
        deepest_holding(roots, |root| uri::workspace_path(root, uri).is_some())
    }

    /// Whether `uri` belongs to the folder at `root`.
    pub fn owns(&self, root: &Path, uri: &Uri) -> bool {
        self.0[self.owner(uri)] == root
    }
}

pub struct Folders {
    folders: Vec<Arc<Folder>>,
    layout: Layout,
}

impl Folders {
    /// Starts a live workspace for each root (canonical directories, none twice, at least
    /// one), in the order given.
    pub fn start(roots: &[PathBuf], load: &LoadOptions) -> Result<Folders, String> {
        let paths: Vec<&Path> = roots.iter().map(PathBuf::as_path).collect();
        let mut folders = Vec::with_capacity(roots.len());
        for (root, name) in roots.iter().zip(unique_names(&paths)) {
            let live = LiveWorkspace::start(
                root,
                LoadOptions {
                    progress: None,
                    ..load.clone()
                },
            )
            .map_err(|e| e.to_string())?;
            folders.push(Arc::new(Folder {
                name,
                live: Arc::new(live),
            }));
        }
        // As each workspace names its root (and its snapshots theirs), which `owns` compares.
        let layout = Layout(folders.iter().map(|f| f.root().to_path_buf()).collect());
        Ok(Folders { folders, layout })
    }

    pub fn all(&self) -> &[Arc<Folder>] {
        &self.folders
    }

    pub fn first(&self) -> &Arc<Folder> {
        &self.folders[0]
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The folder a request about `document` goes to (the first when it names none).
    pub fn of(&self, document: Option<&Uri>) -> &Arc<Folder> {
        &self.folders[document.map_or(0, |uri| self.layout.owner(uri))]
    }

    /// The folder holding `uri`, if one does.
    pub fn holding(&self, uri: &Uri) -> Option<&Arc<Folder>> {
        self.layout.holding(uri).map(|i| &self.folders[i])
    }

    /// Moves whenever any folder's workspace publishes a revision (the sum of theirs, which
    /// only grows), so one number says whether anything changed.
    pub fn revision(&self) -> u64 {
        self.folders.iter().map(|f| f.live.revision()).sum()
    }
}

/// The document a request is about, which picks the folder it goes to; `None` for a
/// question over the whole workspace.
pub trait Addressed {
    fn document(&self) -> Option<&Uri>;
}

macro_rules! addressed {
    ($($params:ty => |$p:ident| $uri:expr;)*) => {
        $(impl Addressed for $params {
            fn document(&self) -> Option<&Uri> {
                let $p = self;
                Some($uri)
            }
        })*
    };
}

addressed! {
    lsp_types::DocumentSymbolParams => |p| &p.text_document.uri;
    lsp_types::GotoDefinitionParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::ReferenceParams => |p| &p.text_document_position.text_document.uri;
    lsp_types::TextDocumentPositionParams => |p| &p.text_document.uri;
    lsp_types::RenameParams => |p| &p.text_document_position.text_document.uri;
    lsp_types::DocumentHighlightParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::HoverParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::CallHierarchyPrepareParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::CallHierarchyIncomingCallsParams => |p| &p.item.uri;
    lsp_types::CallHierarchyOutgoingCallsParams => |p| &p.item.uri;
    lsp_types::TypeHierarchyPrepareParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::TypeHierarchySupertypesParams => |p| &p.item.uri;
    lsp_types::TypeHierarchySubtypesParams => |p| &p.item.uri;
    lsp_types::FoldingRangeParams => |p| &p.text_document.uri;
    lsp_types::SelectionRangeParams => |p| &p.text_document.uri;
    lsp_types::DocumentFormattingParams => |p| &p.text_document.uri;
    lsp_types::DocumentRangeFormattingParams => |p| &p.text_document.uri;
    lsp_types::CodeActionParams => |p| &p.text_document.uri;
    lsp_types::DocumentDiagnosticParams => |p| &p.text_document.uri;
}

/// `shutdown` names no document; it runs on the main loop and reads no folder.
impl Addressed for () {
    fn document(&self) -> Option<&Uri> {
        None
    }
}
