//! Editors' open documents layered over a [`System`].
//!
//! Invariant: while a document is open, every read, stat and walk of its path answers with
//! the editor's text, whatever the system below holds (a different text, nothing at all, a
//! file too large or ignored); once it is closed, the system below answers again.

use crate::workspace::LoadError;
use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
};

use super::{Candidate, FileKind, Metadata, System, WritableSystem};
use crate::{
    lang::LangId,
    workspace::{
        config::Config,
        load::{relative_path, sort_key},
        reader::{FileContent, ReadRefusal},
    },
};

/// An open document: the editor's text and the language it was opened in.
struct Document {
    text: String,
    lang: LangId,
}

/// Open documents (by workspace-relative path) over a base system.
pub struct OverlaySystem {
    base: Arc<dyn WritableSystem>,
    documents: HashMap<String, Document>,
}

impl OverlaySystem {
    pub fn new(base: Arc<dyn WritableSystem>) -> OverlaySystem {
        OverlaySystem {
            base,
            documents: HashMap::new(),
        }
    }

    /// The system below the documents.
    pub fn base(&self) -> &Arc<dyn WritableSystem> {
        &self.base
    }

    /// Opens `rel` (or replaces its text): from now on it reads as `text`.
    pub fn open(&mut self, rel: &str, text: String, lang: LangId) {
        self.documents
            .insert(rel.to_string(), Document { text, lang });
    }

    /// Closes `rel`: the base system answers for it again.
    pub fn close(&mut self, rel: &str) {
        self.documents.remove(rel);
    }

    pub fn is_open(&self, rel: &str) -> bool {
        self.documents.contains_key(rel)
    }

    fn document(&self, path: &Path) -> Option<&Document> {
        if self.documents.is_empty() {
            return None;
        }
        self.documents
            .get(relative_path(self.base.root(), path)?.as_str())
    }
}

impl System for OverlaySystem {
    fn root(&self) -> &Path {
        self.base.root()
    }

    fn read(&self, path: &Path, limit: u64) -> Result<FileContent, ReadRefusal> {
        match self.document(path) {
            Some(doc) => Ok(FileContent {
                bytes: doc.text.as_bytes().to_vec(),
                real_path: path.to_path_buf(),
                open_document: Some(doc.lang),
            }),
            None => self.base.read(path, limit),
        }
    }

    fn metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        match self.document(path) {
            Some(doc) => Ok(document_metadata(doc)),
            None => self.base.metadata(path),
        }
    }

    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        match self.document(path) {
            Some(doc) => Ok(document_metadata(doc)),
            None => self.base.symlink_metadata(path),
        }
    }

    /// The base walk, where every open document is a file to read, wherever it lies and
    /// whatever the base walk made of its path.
    fn walk(&self, config: &Config) -> Result<Vec<Candidate>, LoadError> {
        let mut candidates = self.base.walk(config)?;
        if self.documents.is_empty() {
            return Ok(candidates);
        }
        candidates.retain(|c| match c {
            Candidate::File { rel, .. } => !self.documents.contains_key(rel),
            Candidate::Skipped(s) => !self.documents.contains_key(&s.path),
            Candidate::Dir(_) | Candidate::Manifest(_) => true,
        });
        let root: PathBuf = self.root().to_path_buf();
        candidates.extend(self.documents.keys().map(|rel| Candidate::File {
            abs: root.join(rel),
            rel: rel.clone(),
        }));
        candidates.sort_by(|a, b| sort_key(a).cmp(sort_key(b)));
        Ok(candidates)
    }
}

fn document_metadata(doc: &Document) -> Metadata {
    Metadata {
        kind: FileKind::File,
        len: doc.text.len() as u64,
    }
}
