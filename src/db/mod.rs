//! The salsa database and its inputs.
//!
//! Invariant: inputs are the only way facts enter the database, and they are set from one
//! writer (the workspace loader now; the live watcher later). Paths are stored as plain
//! workspace-relative strings: this layer never touches the disk.

use std::{
    any::Any,
    path::PathBuf,
    sync::{Arc, Mutex},
};

use crate::{lang::LangId, syntax::TreeCache};

pub mod records;
mod stored_text;
pub mod tally;

pub use records::{RecordKey, RecordKind, RecordStore};
pub use stored_text::StoredText;
pub use tally::{Counted, Tally};

/// The query database trait every tracked function takes.
#[salsa::db]
pub trait Db: salsa::Database {
    /// Recent tree-sitter trees of this database's files, for incremental reparsing. Not
    /// an input: reusing a tree changes how fast an answer comes, never what it is.
    fn tree_cache(&self) -> &TreeCache;

    /// A new, empty database that reports its salsa events where this one does: for work
    /// on texts that are not the workspace's (a rename's renamed texts).
    fn scratch(&self) -> RootDatabase;

    /// The scratch database the layer that makes them keeps between requests (with what
    /// it keeps beside it), so that the next request's scratch analysis starts warm: see
    /// `engine::scratch`. Shared by every clone (snapshot) of this database.
    fn kept_scratch(&self) -> &KeptScratch;

    /// Cancels this database's own token when a database it works for (see
    /// [`RootDatabase::worker`]) was cancelled, so that salsa's next check unwinds.
    fn relay_cancellation(&self);

    /// What earlier processes computed for this workspace (the persistent cache), if it is
    /// kept: like the tree cache, not an input, since a record is what its computation
    /// returns (see `records`). Scratch databases have none.
    fn records(&self) -> Option<&RecordStore>;

    /// Whether this database keeps its texts compressed once indexed (a large workspace, or
    /// a memory limit: see [`compresses_texts`]), so memory comes first: what most files
    /// need only once is read for that once and let go. Not an input: it changes what is
    /// kept, never an answer. Shared by every clone of this database.
    fn keeps_texts_compressed(&self) -> bool;

    /// Records that the texts are now kept compressed (see above).
    fn note_texts_kept_compressed(&self);

    /// The bytes this database's live name tables hold, and their budget (see
    /// [`Tally`]). Shared by every clone of this database; a scratch database has its own,
    /// with the budget of the database that made it.
    fn name_tables(&self) -> &Arc<Tally>;
}

type EventCallback = Arc<dyn Fn(salsa::Event) + Send + Sync>;

/// See [`Db::kept_scratch`]. Type-erased: the layer above decides what a kept scratch
/// database carries.
pub type KeptScratch = Mutex<Option<Box<dyn Any + Send>>>;

#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    /// Shared by every clone (snapshot) of this database, and by no other database.
    trees: Arc<TreeCache>,
    kept_scratch: Arc<KeptScratch>,
    events: Option<EventCallback>,
    /// The cancellation tokens of the databases this one is a worker clone of: each clone
    /// has a token of its own, so a request's cancellation reaches the workers of its
    /// parallel operations only through these.
    followed: Arc<[salsa::CancellationToken]>,
    records: Option<Arc<RecordStore>>,
    texts_kept_compressed: Arc<std::sync::atomic::AtomicBool>,
    name_tables: Arc<Tally>,
}

impl Default for RootDatabase {
    fn default() -> Self {
        RootDatabase::reporting_to(None)
    }
}

impl RootDatabase {
    /// A database that reports every salsa event to `callback` (tests count executions).
    pub fn with_event_callback(callback: impl Fn(salsa::Event) + Send + Sync + 'static) -> Self {
        Self::reporting_to(Some(Arc::new(callback)))
    }

    fn reporting_to(events: Option<EventCallback>) -> Self {
        let storage = match &events {
            Some(callback) => {
                let callback = callback.clone();
                salsa::Storage::new(Some(Box::new(move |event| callback(event))))
            }
            None => salsa::Storage::new(None),
        };
        RootDatabase {
            storage,
            trees: Arc::default(),
            kept_scratch: Arc::default(),
            events,
            followed: Arc::new([]),
            records: None,
            texts_kept_compressed: Arc::default(),
            name_tables: Arc::default(),
        }
    }

    /// The tree cache this database shares with its clones, for a caller that outlives a
    /// borrow of the database (a memory watch on another thread).
    pub fn shared_tree_cache(&self) -> Arc<TreeCache> {
        self.trees.clone()
    }

    /// Keeps `records` as this database's (and its later clones') persistent cache.
    pub fn set_records(&mut self, records: Option<Arc<RecordStore>>) {
        self.records = records;
    }

    /// A clone for the worker threads of a parallel operation on this database (clone it
    /// once per thread): cancelling this database's token, as a request's cancellation does,
    /// stops the workers too.
    pub fn worker(&self) -> RootDatabase {
        let mut worker = self.clone();
        worker.followed = self
            .followed
            .iter()
            .cloned()
            .chain([salsa::Database::cancellation_token(self)])
            .collect();
        worker
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn tree_cache(&self) -> &TreeCache {
        &self.trees
    }

    fn scratch(&self) -> RootDatabase {
        let scratch = RootDatabase::reporting_to(self.events.clone());
        // Its name tables are kept within the budget of the database it works for.
        scratch.name_tables.set_budget(self.name_tables.budget());
        scratch
    }

    fn kept_scratch(&self) -> &KeptScratch {
        &self.kept_scratch
    }

    fn relay_cancellation(&self) {
        if self.followed.iter().any(|t| t.is_cancelled()) {
            salsa::Database::cancellation_token(self).cancel();
        }
    }

    fn records(&self) -> Option<&RecordStore> {
        self.records.as_deref()
    }

    fn keeps_texts_compressed(&self) -> bool {
        self.texts_kept_compressed
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn note_texts_kept_compressed(&self) {
        self.texts_kept_compressed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn name_tables(&self) -> &Arc<Tally> {
        &self.name_tables
    }
}

/// One source file of the workspace.
#[salsa::input(debug)]
pub struct SourceFile {
    /// Workspace-relative path with `/` separators (`src/main.rs`).
    #[returns(ref)]
    pub path: String,
    #[returns(copy)]
    pub lang: LangId,
    /// The text analysed, read with [`SourceFile::text`]. For a file that is not valid
    /// UTF-8 this is the lossy decoding (see `lossy_utf8`), and sextant never writes such a
    /// file back.
    #[returns(ref)]
    pub stored_text: StoredText,
    #[returns(copy)]
    pub lossy_utf8: bool,
}

impl SourceFile {
    /// The file's text, whole (decompressed if it was kept compressed: see [`StoredText`]).
    pub fn text(self, db: &dyn Db) -> Arc<str> {
        self.stored_text(db).text()
    }

    /// The text's length in bytes, without reading the text.
    pub fn text_len(self, db: &dyn Db) -> usize {
        self.stored_text(db).len()
    }
}

/// The set of files being analysed, sorted by path.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub root: PathBuf,
    #[returns(ref)]
    pub files: Arc<[SourceFile]>,
    /// Project files (`Cargo.toml`, `package.json`, ...) and the files tsconfigs extend,
    /// sorted by path. A field of its own: queries over source files do not depend on it.
    #[returns(ref)]
    pub manifests: Arc<[ManifestFile]>,
}

/// Below this total of text, texts stay as read: compressing them would save little
/// memory (a workspace this size takes a few hundred MB at most) and slow the readers of
/// every text (a text search decompresses each: about 2.4 times slower on the Python
/// standard library). Above it, or under a memory limit, memory comes first
/// (docs/memory.md).
pub const COMPRESS_TEXTS_OVER: usize = 64 << 20;

/// Whether the workspace's texts are kept compressed once indexed: when they total more
/// than `over` bytes (see [`StoredText`]).
pub fn compresses_texts(db: &dyn Db, workspace: Workspace, over: usize) -> bool {
    let mut total = 0usize;
    workspace.files(db).iter().any(|file| {
        total += file.text_len(db);
        total > over
    })
}

/// The workspace's file at `path` (workspace-relative), if it has one: the files are
/// sorted by path.
pub fn file_at(db: &dyn Db, workspace: Workspace, path: &str) -> Option<SourceFile> {
    let files = workspace.files(db);
    files
        .binary_search_by(|f| f.path(db).as_str().cmp(path))
        .ok()
        .map(|i| files[i])
}

/// Which project file a [`ManifestFile`] is. The file name decides, except for
/// `TsConfigBase`: a file read only because a tsconfig or jsconfig extends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ManifestKind {
    CargoToml,
    PyprojectToml,
    SetupCfg,
    /// Detected only: sextant never runs it.
    SetupPy,
    PackageJson,
    TsConfig,
    JsConfig,
    TsConfigBase,
    GoMod,
    GoWork,
}

/// One project file, as text (parsing is a query, so a malformed file is an answer, not a
/// failed load).
#[salsa::input(debug)]
pub struct ManifestFile {
    /// Workspace-relative path with `/` separators (`web/package.json`).
    #[returns(ref)]
    pub path: String,
    #[returns(copy)]
    pub kind: ManifestKind,
    #[returns(ref)]
    pub text: Arc<str>,
}
