//! The workspace folders one server serves: every folder the client gives at `initialize`
//! (or `--root` alone), and every folder `workspace/didChangeWorkspaceFolders` adds later, is
//! a root of its own, a live workspace with its own index, watcher, `sextant.toml`, cache and
//! background check, as the roots of `sextant mcp --root A --root B` are.
//!
//! Invariant: a document belongs to the deepest folder holding it (`workspace::roots`), and
//! everything about it (its overlay, its diagnostics, a request naming it) goes to that
//! folder's workspace alone; a document outside every folder goes to the first, which
//! refuses it as a one-folder server does. A question over the whole workspace
//! (`workspace/symbol`, `workspace/diagnostic`) asks every folder at once and merges their
//! parts in the folders' order, each keeping only what belongs to it, so that where folders
//! nest nothing is answered twice. Every
//! change of the folders moves [`Folders::generation`], so that what was decided over the
//! folders of before (a held request) can tell.

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
    /// The deepest folder holding `uri`, if one does.
    fn holding(&self, uri: &Uri) -> Option<usize> {
        let roots = self.0.iter().map(PathBuf::as_path);
        deepest_holding(roots, |root| uri::workspace_path(root, uri).is_some())
    }

    /// Whether `uri` belongs to the folder at `root`: the deepest holding it, else the
    /// first.
    pub fn owns(&self, root: &Path, uri: &Uri) -> bool {
        self.0
            .get(self.holding(uri).unwrap_or(0))
            .map(PathBuf::as_path)
            == Some(root)
    }
}

pub struct Folders {
    folders: Vec<Arc<Folder>>,
    /// Each folder's name in messages: its directory's, with as many parents as make it
    /// unique among the folders (so adding a folder may lengthen another's).
    names: Vec<String>,
    layout: Layout,
    /// How every folder is loaded, those added later too.
    load: LoadOptions,
    generation: u64,
}

impl Folders {
    /// Starts a live workspace for each root (canonical directories, none twice, at least
    /// one), in the order given.
    pub fn start(roots: &[PathBuf], load: &LoadOptions) -> Result<Folders, String> {
        let load = LoadOptions {
            progress: None,
            ..load.clone()
        };
        let mut folders = Folders {
            folders: Vec::with_capacity(roots.len()),
            names: Vec::new(),
            layout: Layout(Arc::new([])),
            load,
            generation: 0,
        };
        for root in roots {
            folders.folders.push(folders.started(root)?);
        }
        folders.arrange();
        Ok(folders)
    }

    fn started(&self, root: &Path) -> Result<Arc<Folder>, String> {
        let live = LiveWorkspace::start(root, self.load.clone()).map_err(|e| e.to_string())?;
        Ok(Arc::new(Folder {
            live: Arc::new(live),
        }))
    }

    /// The names and the layout, after a change of folders. As each workspace names its
    /// root (and its snapshots theirs), which `Layout::owns` compares.
    fn arrange(&mut self) {
        let roots: Vec<&Path> = self.folders.iter().map(|f| f.root()).collect();
        self.names = unique_names(&roots);
        self.layout = Layout(roots.iter().map(|r| r.to_path_buf()).collect());
    }

    /// Serves `root` (a canonical directory) as a folder of its own, after the others; `None`
    /// when it is served already. Its workspace loads in the background, as at `initialize`.
    pub fn add(&mut self, root: &Path) -> Result<Option<Arc<Folder>>, String> {
        if self.served(root).is_some() {
            return Ok(None);
        }
        let folder = self.started(root)?;
        self.folders.push(folder.clone());
        self.arrange();
        self.generation += 1;
        Ok(Some(folder))
    }

    /// Stops serving the folder at `root` (as given, or canonical) and gives it back, for
    /// the caller to wind down; `None` when no folder is there.
    pub fn remove(&mut self, root: &Path) -> Option<Arc<Folder>> {
        let at = self.served(root)?;
        let folder = self.folders.remove(at);
        self.arrange();
        self.generation += 1;
        Some(folder)
    }

    /// Where the folder at `root` is in the list: compared as given and as canonical, since
    /// a removed folder's directory may be gone from disk.
    fn served(&self, root: &Path) -> Option<usize> {
        let canonical = root.canonicalize().ok();
        self.folders
            .iter()
            .position(|f| f.root() == root || Some(f.root()) == canonical.as_deref())
    }

    pub fn all(&self) -> &[Arc<Folder>] {
        &self.folders
    }

    /// Every folder with its name.
    pub fn named(&self) -> impl Iterator<Item = (&str, &Arc<Folder>)> {
        self.names.iter().map(String::as_str).zip(&self.folders)
    }

    /// The first folder, where a request's test delay waits; `None` when every folder was
    /// removed.
    pub fn first(&self) -> Option<&Arc<Folder>> {
        self.folders.first()
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// How many times the folders changed since `initialize`.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The folder a request about `document` goes to: the deepest holding it, else the
    /// first (which refuses it); `None` when no folder is left.
    pub fn of(&self, document: Option<&Uri>) -> Option<&Arc<Folder>> {
        let at = document
            .and_then(|uri| self.layout.holding(uri))
            .unwrap_or(0);
        self.folders.get(at)
    }

    /// The folder holding `uri`, if one does.
    pub fn holding(&self, uri: &Uri) -> Option<&Arc<Folder>> {
        self.layout.holding(uri).map(|i| &self.folders[i])
    }

    /// Moves whenever any folder's workspace publishes a revision or finishes its first
    /// index (so one number says whether anything changed among the folders of one
    /// generation): each folder's revision, plus one once it is indexed.
    pub fn revision(&self) -> u64 {
        folders_revision(&self.folders)
    }
}

/// [`Folders::revision`] of a list of folders (a request's, taken when it arrived).
pub fn folders_revision(folders: &[Arc<Folder>]) -> u64 {
    folders
        .iter()
        .map(|f| f.live.revision() + u64::from(f.live.is_ready()))
        .sum()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_come_and_go_once_each_and_names_stay_unique() {
        let dir = tempfile::tempdir().unwrap();
        let root = |path: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(&path).unwrap();
            path.canonicalize().unwrap()
        };
        let (a, b, tools) = (root("team-a/app"), root("team-b/app"), root("tools"));
        let load = LoadOptions {
            check_in_background: false,
            ..LoadOptions::default()
        };
        let mut folders = Folders::start(std::slice::from_ref(&a), &load).unwrap();
        let names = |folders: &Folders| -> Vec<String> {
            folders.named().map(|(name, _)| name.to_string()).collect()
        };
        assert_eq!(
            (names(&folders), folders.generation()),
            (vec!["app".into()], 0)
        );

        // Adding a second `app` names both by their parents.
        assert!(folders.add(&b).unwrap().is_some());
        assert!(folders.add(&tools).unwrap().is_some());
        assert_eq!(names(&folders), ["team-a/app", "team-b/app", "tools"]);
        assert_eq!(folders.generation(), 2);

        // Served already, or not served: nothing changes.
        assert!(folders.add(&b).unwrap().is_none());
        assert!(folders.remove(&dir.path().join("elsewhere")).is_none());
        assert_eq!(folders.generation(), 2);

        let removed = folders.remove(&a).unwrap();
        assert_eq!(removed.root(), a);
        assert_eq!(names(&folders), ["app", "tools"]);
        let uri = uri::path_to_uri(&a.join("x.py")).unwrap();
        assert!(folders.holding(&uri).is_none());
        // A document outside every folder goes to the first, which refuses it.
        assert_eq!(folders.of(Some(&uri)).unwrap().root(), b);

        for root in [&b, &tools] {
            folders.remove(root).unwrap();
        }
        assert!(folders.of(Some(&uri)).is_none());
        assert!(!folders.layout().owns(&b, &uri));
        assert_eq!(folders.generation(), 5);
    }
}
