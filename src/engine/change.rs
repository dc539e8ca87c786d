//! [`Change`]: a batch of new file texts, and [`Inputs`], the database inputs it sets. The
//! one way texts enter a database: the writer's host applies its changes through it, and a
//! scratch database (the renamed texts, analysed beside the workspace) is made from a
//! [`Change`] the same way ([`Inputs::from_change`]).

use std::{
    collections::{HashMap, HashSet},
    path::PathBuf,
    sync::Arc,
};

use crate::{
    db::{ManifestFile, ManifestKind, RootDatabase, SourceFile, StoredText, Workspace},
    lang::LangId,
};

/// A file's content as the writer gives it to the database.
#[derive(Clone, Debug)]
pub struct FileContent {
    pub lang: LangId,
    /// Shared, not copied: a scratch database made from a workspace's texts holds the
    /// same strings.
    pub text: Arc<str>,
    /// The text is a lossy decoding of bytes that were not valid UTF-8.
    pub lossy_utf8: bool,
}

/// A batch of file changes, applied at once (one new revision).
#[derive(Debug, Default)]
pub struct Change {
    files: Vec<(String, Option<FileContent>)>,
    manifests: Vec<(String, Option<(ManifestKind, String)>)>,
}

impl Change {
    /// Sets a workspace-relative path's content, adding the file if it is new.
    pub fn set_file(&mut self, path: impl Into<String>, content: FileContent) {
        self.files.push((path.into(), Some(content)));
    }

    pub fn remove_file(&mut self, path: impl Into<String>) {
        self.files.push((path.into(), None));
    }

    /// Sets a project file's kind and text, adding it if it is new.
    pub fn set_manifest(&mut self, path: impl Into<String>, kind: ManifestKind, text: String) {
        self.manifests.push((path.into(), Some((kind, text))));
    }

    pub fn remove_manifest(&mut self, path: impl Into<String>) {
        self.manifests.push((path.into(), None));
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.manifests.is_empty()
    }
}

/// What [`Inputs::apply_change`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangeSummary {
    pub added: usize,
    /// Files whose content actually differed.
    pub changed: usize,
    pub removed: usize,
    /// Project files added, changed or removed.
    pub manifests: usize,
}

/// A database and its inputs: the workspace, and its files and project files by path.
pub(crate) struct Inputs {
    pub(crate) db: RootDatabase,
    pub(crate) workspace: Workspace,
    /// Shared with snapshots; copied only when the set of files changes.
    pub(crate) files: Arc<HashMap<String, SourceFile>>,
    pub(crate) manifests: HashMap<String, ManifestFile>,
}

impl Inputs {
    /// An empty workspace at `root` in `db`.
    pub(crate) fn new(db: RootDatabase, root: PathBuf) -> Inputs {
        let workspace = Workspace::new(&db, root, Arc::from(Vec::new()), Arc::from(Vec::new()));
        Inputs {
            db,
            workspace,
            files: Arc::default(),
            manifests: HashMap::new(),
        }
    }

    /// A workspace at `root` in `db` (a scratch database: see `Db::scratch`) holding what
    /// `change` sets. Salsa ties a database to the thread a query runs on, so a scratch
    /// database used inside a query is made and read on a thread of its own.
    pub(crate) fn from_change(db: RootDatabase, root: PathBuf, change: Change) -> Inputs {
        let mut inputs = Inputs::new(db, root);
        inputs.apply_change(change);
        inputs
    }

    pub(crate) fn file(&self, path: &str) -> Option<SourceFile> {
        self.files.get(path).copied()
    }

    /// Makes the inputs what `change` sets, and nothing else: files and project files it
    /// does not name are removed (a kept scratch database brought up to date).
    pub(crate) fn replace_with(&mut self, mut change: Change) -> ChangeSummary {
        let named: HashSet<&str> = change.files.iter().map(|(path, _)| path.as_str()).collect();
        let gone: Vec<String> = (self.files.keys())
            .filter(|path| !named.contains(path.as_str()))
            .cloned()
            .collect();
        let named: HashSet<&str> = (change.manifests.iter())
            .map(|(path, _)| path.as_str())
            .collect();
        let gone_manifests: Vec<String> = (self.manifests.keys())
            .filter(|path| !named.contains(path.as_str()))
            .cloned()
            .collect();
        for path in gone {
            change.remove_file(path);
        }
        for path in gone_manifests {
            change.remove_manifest(path);
        }
        self.apply_change(change)
    }

    /// Keeps every text compressed that is worth it (see `StoredText`) when the workspace's
    /// texts total more than `over` bytes: the ones edited or read by a warm start since the
    /// last time. Not a change: the texts stay the same.
    pub(crate) fn compact_texts(&self, over: usize) {
        use rayon::prelude::*;
        if !crate::db::compresses_texts(&self.db, self.workspace, over) {
            return;
        }
        crate::db::Db::note_texts_kept_compressed(&self.db);
        let files = self.workspace.files(&self.db);
        let texts: Vec<&StoredText> = files.iter().map(|f| f.stored_text(&self.db)).collect();
        texts.par_iter().for_each(|text| text.compact());
    }

    /// Applies a batch of changes. Setting a file to the content it has is not a change, so
    /// nothing that depends on it is invalidated.
    pub(crate) fn apply_change(&mut self, change: Change) -> ChangeSummary {
        use salsa::Setter;
        // A change starts a revision, where salsa evicts beyond each LRU's bound.
        crate::semantic::names::fit_name_tables(&mut self.db);
        let mut summary = ChangeSummary::default();
        let mut file_set_changed = false;
        for (path, content) in change.files {
            match (content, self.files.get(&path).copied()) {
                (Some(content), Some(file)) => {
                    summary.changed += usize::from(self.set_content(file, content));
                }
                (Some(content), None) => {
                    let file = SourceFile::new(
                        &self.db,
                        path.clone(),
                        content.lang,
                        StoredText::new(content.text),
                        content.lossy_utf8,
                    );
                    Arc::make_mut(&mut self.files).insert(path, file);
                    summary.added += 1;
                    file_set_changed = true;
                }
                (None, Some(_)) => {
                    Arc::make_mut(&mut self.files).remove(&path);
                    summary.removed += 1;
                    file_set_changed = true;
                }
                (None, None) => {}
            }
        }
        if file_set_changed {
            let files = sorted_by_path(&self.files);
            self.workspace.set_files(&mut self.db).to(files);
        }
        summary.manifests = self.apply_manifests(change.manifests);
        summary
    }

    /// Sets the project files that differ; returns how many did.
    fn apply_manifests(
        &mut self,
        manifests: Vec<(String, Option<(ManifestKind, String)>)>,
    ) -> usize {
        use salsa::Setter;
        let mut count = 0;
        let mut set_changed = false;
        for (path, content) in manifests {
            match (content, self.manifests.get(&path).copied()) {
                (Some((kind, text)), Some(file)) => {
                    let mut changed = false;
                    if file.kind(&self.db) != kind {
                        file.set_kind(&mut self.db).to(kind);
                        changed = true;
                    }
                    if **file.text(&self.db) != *text {
                        file.set_text(&mut self.db).to(Arc::from(text));
                        changed = true;
                    }
                    count += usize::from(changed);
                }
                (Some((kind, text)), None) => {
                    let file = ManifestFile::new(&self.db, path.clone(), kind, Arc::from(text));
                    self.manifests.insert(path, file);
                    count += 1;
                    set_changed = true;
                }
                (None, Some(_)) => {
                    self.manifests.remove(&path);
                    count += 1;
                    set_changed = true;
                }
                (None, None) => {}
            }
        }
        if set_changed {
            let files = sorted_by_path(&self.manifests);
            self.workspace.set_manifests(&mut self.db).to(files);
        }
        count
    }

    /// Sets the inputs that differ; true when any did.
    fn set_content(&mut self, file: SourceFile, content: FileContent) -> bool {
        use salsa::Setter;
        let db = &mut self.db;
        let same_text = file.stored_text(db).is(&content.text);
        let mut changed = false;
        if !same_text {
            file.set_stored_text(db).to(StoredText::new(content.text));
            changed = true;
        }
        if file.lossy_utf8(db) != content.lossy_utf8 {
            file.set_lossy_utf8(db).to(content.lossy_utf8);
            changed = true;
        }
        if file.lang(db) != content.lang {
            file.set_lang(db).to(content.lang);
            changed = true;
        }
        changed
    }
}

/// The inputs of `by_path` in path order: the workspace's lists are sorted, so that the same
/// files give an equal list (and salsa backdates) whatever order they arrived in.
fn sorted_by_path<T: Copy>(by_path: &HashMap<String, T>) -> Arc<[T]> {
    let mut entries: Vec<(&String, &T)> = by_path.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries.into_iter().map(|(_, input)| *input).collect()
}
