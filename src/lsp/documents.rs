//! The documents open in the editor: their text, version and workspace path.
//!
//! Invariant: a workspace document (see `uri`) is held in the folder it belongs to
//! (`folders`), and every change to one is handed to that folder's live workspace's single
//! writer (`LiveWorkspace::set_overlay`, or without waiting while the folder is in its first
//! index) before the next message is read, so any request after it sees the new text. An open document wins over the disk until it is closed. A
//! document outside every folder is held too, its text kept up to date but given to no
//! workspace, so that a folder added later holding it gets the editor's text
//! ([`Documents::rehome`]). Workers learn a document's version from [`DocumentVersions`],
//! which pairs it with its text's hash: a request running on a snapshot whose text is
//! another version's gets no version, never a wrong one.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

use lsp_types::{
    DidChangeTextDocumentParams, TextDocumentContentChangeEvent, TextDocumentItem, Uri,
};

use super::{
    folders::Folder,
    from_proto,
    line_index::{LineIndex, PositionEncoding},
    uri,
};
use crate::ide::ContentHash;

pub struct Document {
    /// The folder holding it, if one does.
    pub folder: Option<Arc<Folder>>,
    /// Path relative to its folder (empty without one).
    pub rel: String,
    pub version: i32,
    text: String,
}

#[derive(Default)]
pub struct Documents {
    open: HashMap<Uri, Document>,
    versions: DocumentVersions,
}

/// Each open document's version with the hash of its text, shared with the workers.
#[derive(Clone, Default)]
pub struct DocumentVersions(Arc<RwLock<HashMap<Uri, (i32, ContentHash)>>>);

impl DocumentVersions {
    /// The version of the open document `uri` whose text is `text`; `None` when the
    /// document is not open or the editor holds another text now.
    pub fn version(&self, uri: &Uri, text: &str) -> Option<i32> {
        let versions = self.0.read().unwrap_or_else(|e| e.into_inner());
        let &(version, hash) = versions.get(uri)?;
        (hash == ContentHash::of(text.as_bytes())).then_some(version)
    }

    fn set(&self, uri: &Uri, version: Option<(i32, &str)>) {
        let mut versions = self.0.write().unwrap_or_else(|e| e.into_inner());
        match version {
            Some((version, text)) => {
                versions.insert(uri.clone(), (version, ContentHash::of(text.as_bytes())));
            }
            None => {
                versions.remove(uri);
            }
        }
    }
}

impl Documents {
    /// Opens a document and overlays it on `folder`, the folder holding it; true when it
    /// is a document of that folder (a URI that is not one is held for a folder added
    /// later, given to none).
    pub fn open(&mut self, folder: Option<Arc<Folder>>, item: TextDocumentItem) -> bool {
        let home = folder.and_then(|folder| {
            let rel = uri::workspace_path(folder.root(), &item.uri)?;
            overlay(&folder, &rel, Some(item.text.clone()));
            Some((folder, rel))
        });
        self.versions
            .set(&item.uri, Some((item.version, &item.text)));
        let homed = home.is_some();
        let (folder, rel) = home.map_or((None, String::new()), |(f, rel)| (Some(f), rel));
        self.open.insert(
            item.uri,
            Document {
                folder,
                rel,
                version: item.version,
                text: item.text,
            },
        );
        homed
    }

    /// Applies the changes in order and overlays the result; false for a document that is
    /// not open or that no folder holds.
    pub fn change(
        &mut self,
        encoding: PositionEncoding,
        params: DidChangeTextDocumentParams,
    ) -> bool {
        let Some(doc) = self.open.get_mut(&params.text_document.uri) else {
            return false;
        };
        for change in params.content_changes {
            apply_change(&mut doc.text, change, encoding);
        }
        doc.version = params.text_document.version;
        self.versions
            .set(&params.text_document.uri, Some((doc.version, &doc.text)));
        let Some(folder) = &doc.folder else {
            return false;
        };
        overlay(folder, &doc.rel, Some(doc.text.clone()));
        true
    }

    /// Closes a document and gives its path back to the disk; true when a folder held it.
    pub fn close(&mut self, uri: &Uri) -> bool {
        let Some(doc) = self.open.remove(uri) else {
            return false;
        };
        self.versions.set(uri, None);
        let Some(folder) = doc.folder else {
            return false;
        };
        overlay(&folder, &doc.rel, None);
        true
    }

    /// Moves the document `uri` to `folder` (the folder holding it now that the folders
    /// changed, if one does): its overlay leaves the folder it was in and its text is given
    /// to the new one, neither waiting for a folder still loading (`set_overlay_later`: a
    /// read syncs after it). Says whether it moved.
    pub fn rehome(&mut self, uri: &Uri, folder: Option<&Arc<Folder>>) -> bool {
        let Some(doc) = self.open.get_mut(uri) else {
            return false;
        };
        let same = match (&doc.folder, folder) {
            (Some(now), Some(next)) => Arc::ptr_eq(now, next),
            (None, None) => true,
            _ => false,
        };
        if same {
            return false;
        }
        if let Some(old) = doc.folder.take() {
            old.live.set_overlay_later(&doc.rel, None);
        }
        doc.rel = String::new();
        if let Some(folder) = folder
            && let Some(rel) = uri::workspace_path(folder.root(), uri)
        {
            folder.live.set_overlay_later(&rel, Some(doc.text.clone()));
            doc.folder = Some(folder.clone());
            doc.rel = rel;
        }
        true
    }

    /// The versions, for the workers.
    pub fn versions(&self) -> &DocumentVersions {
        &self.versions
    }

    /// Every open document with its URI.
    pub fn iter(&self) -> impl Iterator<Item = (&Uri, &Document)> + '_ {
        self.open.iter()
    }

    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.open.get(uri)
    }
}

/// Gives `folder`'s workspace the editor's text of `rel` (`None`: the disk's again). A
/// workspace still in its first index takes it once indexed, without holding the main loop
/// meanwhile (a folder added while the server runs may take minutes); a read syncs after it
/// either way.
fn overlay(folder: &Folder, rel: &str, text: Option<String>) {
    match folder.live.is_ready() {
        true => folder.live.set_overlay(rel, text),
        false => folder.live.set_overlay_later(rel, text),
    }
}

/// One change: the whole text, or a range (in the session's encoding, of the text as the
/// previous changes left it) replaced.
fn apply_change(
    text: &mut String,
    change: TextDocumentContentChangeEvent,
    encoding: PositionEncoding,
) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let bytes = from_proto::byte_range(&LineIndex::for_text(text, encoding), range);
            text.replace_range(bytes, &change.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use lsp_types::{Position, Range};

    use super::*;

    fn change(start: (u32, u32), end: (u32, u32), text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(
                Position::new(start.0, start.1),
                Position::new(end.0, end.1),
            )),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn a_version_is_given_only_for_its_own_text() {
        let versions = DocumentVersions::default();
        let uri: Uri = "file:///ws/a.py".parse().unwrap();
        assert_eq!(versions.version(&uri, "x = 1\n"), None);
        versions.set(&uri, Some((3, "x = 1\n")));
        assert_eq!(versions.version(&uri, "x = 1\n"), Some(3));
        // A snapshot of another text (the editor has moved on, or not yet): no version.
        assert_eq!(versions.version(&uri, "x = 2\n"), None);
        versions.set(&uri, None);
        assert_eq!(versions.version(&uri, "x = 1\n"), None);
    }

    #[test]
    fn changes_apply_in_the_negotiated_encoding() {
        let mut text = "s = '😀'; after\n".to_string();
        // `after` starts at UTF-16 column 10 (the emoji counts 2), UTF-8 column 12.
        apply_change(
            &mut text,
            change((0, 10), (0, 15), "later"),
            PositionEncoding::Utf16,
        );
        assert_eq!(text, "s = '😀'; later\n");
        apply_change(
            &mut text,
            change((0, 12), (0, 17), "after"),
            PositionEncoding::Utf8,
        );
        assert_eq!(text, "s = '😀'; after\n");
        // A reversed range inserts at its start; a range past the end appends.
        apply_change(
            &mut text,
            change((0, 3), (0, 1), "="),
            PositionEncoding::Utf8,
        );
        assert_eq!(text, "s == '😀'; after\n");
        apply_change(
            &mut text,
            change((9, 0), (9, 0), "x"),
            PositionEncoding::Utf8,
        );
        assert_eq!(text, "s == '😀'; after\nx");
    }
}
