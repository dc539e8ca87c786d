//! A workspace kept fresh by a file watcher, served to concurrent readers.
//!
//! One writer thread owns the [`Host`] (and so `&mut` the database): it loads the workspace,
//! then applies file-system events in order, debounced and coalesced. Readers never touch
//! the writer's database: they take a [`Snapshot`] (a database clone plus the path map of
//! the same revision) and run queries on it. Before changing an input the writer withdraws
//! the published snapshot; salsa then cancels readers still running on older clones, and
//! [`LiveWorkspace::read`] retries them on the new revision.
//!
//! Deadlock rule: a reader must never wait for the writer while it holds a snapshot (a
//! setter waits until every clone is dropped). [`LiveWorkspace::sync`] is therefore called
//! before taking a snapshot, never while holding one.
//!
//! Events come from a file watcher on the disk ([`LiveWorkspace::start`]), or from the
//! caller over any [`System`] ([`LiveWorkspace::start_with`] and [`DiskEvents`]): tests
//! drive the writer deterministically that way.

use crate::workspace::LoadError;
use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Condvar, Mutex,
        mpsc::{self, Receiver, RecvTimeoutError, Sender},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use notify::Watcher;
use serde::Serialize;

use super::apply::{ApplyError, Written};
use super::{
    FileError, Host, LoadOptions, OsSystem, ProgressEvent, ProgressSink, SkippedFile, System,
    WritableSystem, standalone_file_in,
};
use crate::ide::{Analysis, Cancellable, FileId, SourceChange};

/// Quiet time that ends a burst of events.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// A burst is applied after this long even if events keep coming.
const MAX_BATCH_DELAY: Duration = Duration::from_millis(250);
/// More distinct paths than this in one batch: walk the root instead of reading each.
const RESCAN_THRESHOLD: usize = 2_000;
/// How long after a question the writer drops memoized answers beyond their caches'
/// bounds (see [`Writer::evict_when_idle`]); also the retry delay while readers are busy.
const EVICTION_DELAY: Duration = Duration::from_secs(1);

/// Everything a reader needs, all from one revision.
#[derive(Clone)]
pub struct Snapshot {
    pub analysis: Analysis,
    pub skipped: Arc<[SkippedFile]>,
    pub root: Arc<PathBuf>,
    pub max_file_size: u64,
    /// `sextant.toml`'s external formatters, per language id.
    pub formatters: Arc<super::Formatters>,
    /// `sextant.toml`'s `[typecheck]`, and where the deep check keeps its memo.
    pub typecheck: Arc<(super::typecheck::TypecheckConfig, Option<PathBuf>)>,
    /// Increases with every applied batch of changes.
    pub revision: u64,
    /// Second paths to indexed files (symlinks): alias → the indexed path.
    pub aliases: Arc<std::collections::HashMap<String, String>>,
    /// Counts the clones alive: the writer evicts only when the published one is alone, so
    /// that eviction (a write to salsa) never cancels a reader.
    lease: Arc<()>,
}

impl Snapshot {
    /// The host's workspace as it is now, called `revision`.
    pub(super) fn of(host: &Host, revision: u64) -> Snapshot {
        Snapshot {
            analysis: host.analysis(),
            skipped: host.skipped.clone().into(),
            root: Arc::new(host.root.clone()),
            max_file_size: host.config.max_file_size,
            formatters: Arc::new(host.config.format.clone()),
            typecheck: Arc::new((
                host.config.typecheck.clone(),
                super::typecheck::state_dir(&host.options.cache, &host.root),
            )),
            revision,
            aliases: Arc::new(host.aliases().clone()),
            lease: Arc::new(()),
        }
    }

    /// The file at `rel`, or the indexed file `rel` is a second path to.
    pub fn file(&self, rel: &str) -> Option<FileId> {
        self.analysis
            .file(rel)
            .or_else(|| self.analysis.file(self.aliases.get(rel)?))
    }
}

/// State that readers may inspect without waiting for the index.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LiveStatus {
    /// The first index is complete.
    pub ready: bool,
    /// The file watcher is running (it can fail, e.g. when inotify watches run out).
    pub watching: bool,
    /// Why the watcher or the first load failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why `sextant.toml` cannot be used, if it cannot: at start nothing is indexed (`error`
    /// says the same); after a change, the configuration before it stays in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
    pub index_ms: Option<f64>,
    /// How the first load advances, until it is ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressEvent>,
    /// While the first index runs, once every file is read: how much of the workspace the
    /// symbol index holds so far (what `lookup_symbol`'s partial answers search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed: Option<super::Indexed>,
    /// The stages of work not yet finished, in the order they run (empty when everything
    /// is done, or the load failed).
    pub unfinished: Vec<Stage>,
    pub revision: u64,
    /// Every file's diagnostics of this revision are computed: the background check has
    /// caught up (always false when it is off).
    pub checked: bool,
    /// Batches of file-system events applied since the first index.
    pub batches: u64,
    /// How many of them walked the whole root again.
    pub rescans: u64,
    /// Times the server, idle after answering, dropped memoized answers beyond their
    /// caches' bounds and gave freed memory back to the system.
    pub evictions: u64,
    /// How the persistent cache has been used so far (absent when it is off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::cache::CacheStatus>,
    pub memory: MemoryStatus,
}

/// A stage of the work a live workspace does over every file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Walking the root and reading every file: until it ends, a question waits.
    Reading,
    /// Building the symbol index: questions about one file (and text searches) are
    /// answered exactly, `lookup_symbol` from the files indexed so far, the rest wait.
    Indexing,
    /// The background check computing every file's diagnostics (answers do not wait for
    /// it; a whole-workspace `typecheck` computes what it has not).
    Checking,
}

/// The server's resident memory against its limit (`--max-memory`, docs/memory.md).
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct MemoryStatus {
    /// Resident memory now and at its peak, in bytes (absent where the system does not say).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub resident: Option<crate::ide::memory::Resident>,
    /// The limit in bytes, if one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<u64>,
    /// Where the background check stops, in bytes, if a limit is set: an eighth below it,
    /// leaving room for answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_stops_at_bytes: Option<u64>,
    /// The name tables alive, and what those kept between questions may hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_tables: Option<crate::ide::memory::NameTables>,
    /// The background check stopped because resident memory was over `check_stops_at_bytes`,
    /// even after dropping what can be recomputed; it starts again when the server is below
    /// it at its next change or idle moment. Answers are unaffected (each file's diagnostics
    /// are then computed when asked for).
    pub check_paused: bool,
}

enum Message {
    /// Paths whose content may have changed; `lost`: events were lost (only a walk can
    /// tell what changed).
    Disk {
        paths: Vec<PathBuf>,
        lost: bool,
    },
    /// Apply every change made on disk before this message was sent, then answer.
    Sync(Sender<()>),
    /// An editor's text for a workspace-relative path (`None`: closed), then answer.
    Overlay(String, Option<String>, Sender<()>),
    /// The background check ended a run (it stepped aside, was done, or was stopped):
    /// what it computed beyond the caches' bounds is dropped at once, not at the next idle
    /// moment a second after the last question, so a check of many batches waits for no
    /// timer, and one that is done holds its last batch's name tables no longer.
    CheckRunEnded,
    Shutdown,
}

struct Shared {
    snapshot: Mutex<Option<Snapshot>>,
    /// While the first index runs, once every file is read: what it has indexed so far.
    partial: Mutex<Option<super::PartialIndex>>,
    /// The persistent cache, once the first index has opened it.
    cache: std::sync::OnceLock<Arc<super::cache::Cache>>,
    /// The database's name tables, once the first index has made it.
    name_tables: std::sync::OnceLock<Arc<crate::ide::memory::Tally>>,
    /// The token of the snapshot the background check is running on, to stop it at shutdown.
    background_check: Mutex<Option<crate::ide::CancellationToken>>,
    /// Told each new revision as it is published (see [`LiveWorkspace::subscribe`]).
    subscribers: Mutex<Vec<crossbeam_channel::Sender<u64>>>,
    /// The background check is on (`LoadOptions::check_in_background`).
    checks_in_background: std::sync::atomic::AtomicBool,
    /// The disk changed under the root since the watcher started (a change the writer will
    /// apply once the first index is done): the texts the load read may be stale, so no
    /// question is answered from them early (read-your-writes, docs/mcp.md).
    changed_on_disk: std::sync::atomic::AtomicBool,
    /// Where a reader writes the cookie that tells it the watcher has reported every change
    /// made before its question (see [`LiveWorkspace::disk_unchanged`]); none without a
    /// watcher, or where no cookie can be written.
    /// The disk, the directory and this server's early cookies' name prefix.
    early_cookies: std::sync::OnceLock<(OsSystem, PathBuf, String)>,
    /// Early cookies the watcher has reported, until their reader takes them.
    early_cookies_seen: Mutex<Vec<PathBuf>>,
    early_cookie_reported: Condvar,
    /// Set when the first load failed; readers stop waiting.
    load_error: Mutex<Option<String>>,
    /// The first load was stopped before it ended (the workspace was dropped meanwhile).
    first_index_stopped: std::sync::atomic::AtomicBool,
    published: Condvar,
    status: Mutex<LiveStatus>,
}

pub struct LiveWorkspace {
    shared: Arc<Shared>,
    tx: Sender<Message>,
    writer: Option<JoinHandle<()>>,
    _watcher: Option<notify::RecommendedWatcher>,
    root: PathBuf,
    /// What the writer reads (for files the index leaves out).
    system: Arc<dyn WritableSystem>,
    operations: super::operations::Operations,
    /// Stops the first index when the workspace is dropped before it ends.
    stop: super::LoadStop,
}

/// Feeds a [`LiveWorkspace::start_with`] workspace the changes its system went through,
/// as a file watcher would.
#[derive(Clone)]
pub struct DiskEvents {
    tx: Sender<Message>,
}

impl DiskEvents {
    /// Reports that the files or directories at `paths` (absolute) were created,
    /// modified, removed or renamed (both names, for a rename).
    pub fn changed(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let paths = paths.into_iter().collect();
        let _ = self.tx.send(Message::Disk { paths, lost: false });
    }

    /// Reports that events were lost (a watcher's queue overflowed).
    pub fn lost(&self) {
        let _ = self.tx.send(Message::Disk {
            paths: Vec::new(),
            lost: true,
        });
    }
}

/// Why a read could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The first load failed; the message says why.
    #[error("the workspace could not be loaded: {0}")]
    LoadFailed(String),
    /// The caller's own cancellation (time limit, client request).
    #[error("cancelled")]
    Cancelled,
}

impl LiveWorkspace {
    /// Starts watching `root` and indexing it in the background. Readers wait for the first
    /// index; [`LiveWorkspace::status`] does not.
    pub fn start(root: &Path, options: LoadOptions) -> Result<LiveWorkspace, LoadError> {
        let system = OsSystem::open(root)?;
        let root = system.root().to_path_buf();
        let shared = Shared::new();
        let (tx, rx) = mpsc::channel();

        // Watch before the first walk so that nothing changed during it is missed.
        let watcher_tx = tx.clone();
        let watched = shared.clone();
        let watcher = notify::recommended_watcher(move |event| {
            if let Some(message) = disk_message(event) {
                if may_change_workspace(&message) {
                    watched
                        .changed_on_disk
                        .store(true, std::sync::atomic::Ordering::Release);
                }
                watched.note_early_cookies(&message);
                let _ = watcher_tx.send(message);
            }
        })
        .and_then(|mut w| w.watch(&root, notify::RecursiveMode::Recursive).map(|()| w));
        // One watcher reports both directories, through one queue, in the order of events.
        // A read-only server that cannot have one writes no cookies (eventual freshness).
        let private = match (options.read_only, watcher) {
            (true, Ok(mut w)) => match private_cookie_directory() {
                Some(dir) => w
                    .watch(dir.path(), notify::RecursiveMode::NonRecursive)
                    .map(|()| (w, Some(Some(dir)))),
                None => Ok((w, None)),
            },
            (_, watcher) => watcher.map(|w| (w, Some(None))),
        };
        let (watcher, private) = match private {
            Ok((w, private)) => (Ok(w), private),
            Err(e) => (Err(e), None),
        };
        let watcher = match watcher {
            Ok(w) => {
                shared.status.lock().unwrap().watching = true;
                Some(w)
            }
            Err(e) => {
                shared.status.lock().unwrap().error =
                    Some(format!("file watcher unavailable: {e}"));
                None
            }
        };
        let cookies = match (&watcher, private) {
            (Some(_), Some(private)) => Some(Cookies::new(system.clone(), private)),
            _ => None,
        };
        if let Some(cookies) = &cookies {
            let prefix = format!("{}{EARLY_COOKIE}", cookies.prefix);
            let _ = shared
                .early_cookies
                .set((cookies.disk.clone(), cookies.dir.clone(), prefix));
        }
        // A read-only server writes nothing into the root, not even a removal.
        let remove_left_over_writes = !options.read_only;
        spawn(
            Arc::new(system),
            options,
            shared,
            (tx, rx),
            cookies,
            watcher,
            remove_left_over_writes,
        )
    }

    /// Starts indexing the root of `system` in the background, with no watcher: changes
    /// reach the writer through the returned [`DiskEvents`], in the order they are sent.
    /// A read sees every event sent before it (the events and the read share one queue).
    pub fn start_with(
        system: Arc<dyn WritableSystem>,
        options: LoadOptions,
    ) -> Result<(LiveWorkspace, DiskEvents), LoadError> {
        let (tx, rx) = mpsc::channel();
        let events = DiskEvents { tx: tx.clone() };
        let live = spawn(system, options, Shared::new(), (tx, rx), None, None, false)?;
        Ok((live, events))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The writes named by an `operation_id` on this root.
    pub fn operations(&self) -> &super::operations::Operations {
        &self.operations
    }

    pub fn status(&self) -> LiveStatus {
        let mut status = self.shared.status.lock().unwrap().clone();
        status.cache = self.shared.cache.get().map(|cache| cache.status());
        status.memory.resident = crate::ide::memory::resident();
        status.memory.name_tables =
            (self.shared.name_tables.get()).map(|tally| crate::ide::memory::NameTables::of(tally));
        let indexing = self.shared.partial.lock().unwrap().clone();
        if !status.ready {
            status.indexed = indexing
                .as_ref()
                .map(|indexing| indexing.indexed(indexing.shards_built()));
        }
        let checking = self
            .shared
            .checks_in_background
            .load(std::sync::atomic::Ordering::Relaxed);
        // The phase, not the partial index, which is gone while the cache is saved.
        let reading = status
            .progress
            .is_none_or(|progress| progress.phase == super::LoadPhase::Reading);
        let stages = [
            (Stage::Reading, !status.ready && reading),
            (Stage::Indexing, !status.ready),
            (Stage::Checking, checking && !status.checked),
        ];
        status.unfinished = match self.load_error() {
            Some(_) => Vec::new(),
            None => stages
                .into_iter()
                .filter_map(|(stage, unfinished)| unfinished.then_some(stage))
                .collect(),
        };
        status
    }

    /// The revision of the latest published snapshot (it increases with every applied
    /// batch of changes).
    pub fn revision(&self) -> u64 {
        self.shared.status.lock().unwrap().revision
    }

    /// A channel that receives each new revision as it is published (and a wake-up when the
    /// first index is published or fails), for a loop that sleeps until the workspace
    /// changes. It holds the latest revision only; the writer
    /// never waits for a slow receiver.
    pub fn subscribe(&self) -> crossbeam_channel::Receiver<u64> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.shared.subscribers.lock().unwrap().push(tx);
        rx
    }

    /// Whether the first index is published (cheaper than [`LiveWorkspace::status`]).
    pub fn is_ready(&self) -> bool {
        self.shared.snapshot.lock().unwrap().is_some()
    }

    /// Why the first load failed, if it did (readers then get `ReadError::LoadFailed`).
    pub fn load_error(&self) -> Option<String> {
        self.shared.load_error.lock().unwrap().clone()
    }

    /// Waits up to `timeout` for the first index; true when it is ready.
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut slot = self.shared.snapshot.lock().unwrap();
        while slot.is_none() && self.shared.load_error.lock().unwrap().is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            slot = self.shared.published.wait_timeout(slot, left).unwrap().0;
        }
        drop(slot);
        self.status().ready
    }

    /// Applies every change made on disk before this call (read-your-writes: a file written
    /// before the call is seen by reads after it), waiting for the first index if it is
    /// still running, unless `cancel` is cancelled first. Never call it holding a snapshot.
    fn sync(&self, cancel: &RequestCancel) {
        let (reply_tx, reply_rx) = mpsc::channel();
        if self.tx.send(Message::Sync(reply_tx)).is_err() {
            return;
        }
        while !cancel.is_cancelled() {
            match reply_rx.recv_timeout(CANCEL_POLL) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
        }
    }

    /// Makes an editor's text for `rel` the file's content (`None` gives it back to the
    /// disk). Returns once applied, so later reads see it. Never call it holding a snapshot.
    pub fn set_overlay(&self, rel: &str, text: Option<String>) {
        let (reply_tx, reply_rx) = mpsc::channel();
        if self
            .tx
            .send(Message::Overlay(rel.to_string(), text, reply_tx))
            .is_ok()
        {
            let _ = reply_rx.recv();
        }
    }

    /// [`LiveWorkspace::set_overlay`] without waiting for it to be applied (a workspace still
    /// in its first index applies it after): a read after this call still sees it, since
    /// the read's sync follows it through the writer's queue.
    pub fn set_overlay_later(&self, rel: &str, text: Option<String>) {
        let (reply_tx, _) = mpsc::channel();
        let _ = self
            .tx
            .send(Message::Overlay(rel.to_string(), text, reply_tx));
    }

    /// Runs `query` on the current snapshot as [`LiveWorkspace::read`] does; but when the
    /// first index is still running after [`PARTIAL_AFTER`], runs `partial` on what it has
    /// indexed so far instead of waiting (without the read-your-writes wait, which would
    /// last as long as the index, but only when nothing under the root changed since the
    /// load read it: see [`LiveWorkspace::disk_unchanged`]). `partial` answering `None`
    /// (a name not defined in the files indexed so far: a miss is no answer while files
    /// are unread) is asked again once more shards are built, else the whole index waited
    /// for.
    pub fn read_or_partial<T: Send>(
        &self,
        cancel: &RequestCancel,
        query: impl Fn(&Snapshot) -> Result<T, crate::ide::Cancelled>,
        partial: impl Fn(&super::PartialIndex) -> Result<Option<T>, crate::ide::Cancelled> + Sync,
    ) -> Result<T, ReadError> {
        self.read_while_indexing(
            cancel,
            Instant::now(),
            WhileIndexing::Partial,
            &query,
            partial,
        )
    }

    /// [`LiveWorkspace::read_or_partial`] for a question asked at `asked` that can do
    /// without this workspace (one of several roots): [`PARTIAL_AFTER`] counts from then,
    /// and when the first index has built no shard by that time, `None`.
    pub fn read_or_partial_since<T: Send>(
        &self,
        cancel: &RequestCancel,
        asked: Instant,
        query: impl Fn(&Snapshot) -> Result<T, crate::ide::Cancelled>,
        partial: impl Fn(&super::PartialIndex) -> Result<T, crate::ide::Cancelled> + Sync,
    ) -> Result<Option<T>, ReadError> {
        while !cancel.is_cancelled() && !self.is_ready() && self.load_error().is_none() {
            let indexing = self.shared.partial.lock().unwrap().clone();
            if indexing.is_some_and(|indexing| indexing.shards_built() > 0) {
                break;
            }
            if asked.elapsed() >= PARTIAL_AFTER {
                return Ok(None);
            }
            std::thread::sleep(CANCEL_POLL);
        }
        let when = WhileIndexing::Partial;
        self.read_while_indexing(cancel, asked, when, &query, |p| partial(p).map(Some))
            .map(Some)
    }

    /// Runs `query` as [`LiveWorkspace::read`] does; but while the first index runs, once
    /// every file is read, at once on the workspace being indexed (see
    /// [`super::PartialIndex::snapshot`]), with `when` [`WhileIndexing::Answer`]. For a
    /// question that reads no index the load builds: the answer is then exact, what the
    /// finished index answers for the files as the load read them.
    pub fn read_early<T: Send>(
        &self,
        cancel: &RequestCancel,
        when: WhileIndexing,
        query: impl Fn(&Snapshot) -> Result<T, crate::ide::Cancelled> + Sync,
    ) -> Result<T, ReadError> {
        match when {
            WhileIndexing::Wait => self.read(cancel, &query),
            _ => self.read_while_indexing(cancel, Instant::now(), when, &query, |p| {
                query(&p.snapshot).map(Some)
            }),
        }
    }

    /// The loop behind [`LiveWorkspace::read_or_partial`] and [`LiveWorkspace::read_early`]:
    /// `early` runs on the index under way when `when` allows (and is asked again, once
    /// more shards are built, when it has no answer yet), else `query` once it is done.
    /// `asked`: when the question was asked.
    fn read_while_indexing<T: Send>(
        &self,
        cancel: &RequestCancel,
        asked: Instant,
        when: WhileIndexing,
        query: impl Fn(&Snapshot) -> Result<T, crate::ide::Cancelled>,
        early: impl Fn(&super::PartialIndex) -> Result<Option<T>, crate::ide::Cancelled> + Sync,
    ) -> Result<T, ReadError> {
        // The shards built when `early` last had no answer.
        let mut unanswered_at: Option<u32> = None;
        loop {
            if cancel.is_cancelled() {
                return Err(ReadError::Cancelled);
            }
            if self.status().ready || self.load_error().is_some() {
                return self.read(cancel, &query);
            }
            let indexing = self.shared.partial.lock().unwrap().clone();
            let built = indexing
                .as_ref()
                .map_or(0, super::PartialIndex::shards_built);
            let whole = indexing
                .as_ref()
                .is_some_and(|indexing| built > 0 && indexing.covers_every_file(built));
            let answer_now = match when {
                WhileIndexing::Wait => false,
                WhileIndexing::Answer => self.disk_unchanged(),
                // Every shard built: the whole answer, after the read-your-writes wait. The
                // index's snapshot goes first: the writer the wait waits for cannot change
                // the host while a clone of it lives.
                WhileIndexing::Partial if whole => {
                    drop(indexing);
                    return self.read(cancel, &query);
                }
                // The index may be done in a moment (a warm start's is): wait that long.
                // The texts the load read must still be the disk's, as for `Answer`.
                WhileIndexing::Partial => {
                    asked.elapsed() >= PARTIAL_AFTER
                        && built > 0
                        && unanswered_at != Some(built)
                        && self.disk_unchanged()
                }
            };
            match indexing {
                Some(indexing) if answer_now => {
                    let token = indexing.snapshot.analysis.cancellation_token();
                    cancel.watch(token.clone());
                    let answered = match &*EARLY_POOL {
                        Some(pool) => {
                            // A database handle is not shared between threads: move a clone.
                            let (moved, early) = (indexing.clone(), &early);
                            pool.install(move || early(&moved))
                        }
                        None => early(&indexing),
                    };
                    match answered {
                        Ok(Some(value)) => return Ok(value),
                        Ok(None) => unanswered_at = Some(built),
                        Err(_) if cancel.is_cancelled() => return Err(ReadError::Cancelled),
                        // The first index is over and the host moves on: ask again.
                        Err(_) => {}
                    }
                }
                // Still walking, reading, or building the first shard: nothing to say yet.
                _ => std::thread::sleep(CANCEL_POLL),
            }
        }
    }

    /// The current snapshot, waiting for the first index.
    pub fn snapshot(&self) -> Result<Snapshot, ReadError> {
        let mut slot = self.shared.snapshot.lock().unwrap();
        loop {
            if let Some(snapshot) = slot.as_ref() {
                return Ok(snapshot.clone());
            }
            if let Some(error) = self.shared.load_error.lock().unwrap().clone() {
                return Err(ReadError::LoadFailed(error));
            }
            slot = self
                .shared
                .published
                .wait_timeout(slot, Duration::from_millis(100))
                .unwrap()
                .0;
        }
    }

    /// Runs `query` on a fresh snapshot after [`LiveWorkspace::sync`], retrying when a write
    /// cancels it. `cancel` stops it at any point, while waiting for the writer as well as
    /// during the query; the read then ends with [`ReadError::Cancelled`].
    pub fn read<T>(
        &self,
        cancel: &RequestCancel,
        query: impl Fn(&Snapshot) -> Result<T, crate::ide::Cancelled>,
    ) -> Result<T, ReadError> {
        self.sync(cancel);
        loop {
            if cancel.is_cancelled() {
                return Err(ReadError::Cancelled);
            }
            let snapshot = self.snapshot()?;
            let token = snapshot.analysis.cancellation_token();
            cancel.watch(token.clone());
            match query(&snapshot) {
                Ok(value) => return Ok(value),
                Err(_) if token.is_cancelled() => return Err(ReadError::Cancelled),
                // A write is pending: drop the clone so that it can proceed, then retry.
                Err(_) => drop(snapshot),
            }
        }
    }
}

impl LiveWorkspace {
    /// Runs `query` on the workspace file `rel`: from the index when it is indexed, else (a
    /// file the index leaves out by ignore rules or globs) read on demand through the
    /// confined reader with the same size limit. A file the walk refused (too large,
    /// binary, outside the root) is answered with the reason.
    /// `when` says whether it answers while the first index runs (see
    /// [`LiveWorkspace::read_early`]).
    pub fn read_file<T: Send>(
        &self,
        cancel: &RequestCancel,
        rel: &str,
        when: WhileIndexing,
        query: impl Fn(&Analysis, FileId) -> Cancellable<T> + Sync,
    ) -> Result<T, FileReadError> {
        enum Found<T> {
            Indexed(T),
            NotIndexed(Option<SkippedFile>, u64),
        }
        let found = self.read_early(cancel, when, |s: &Snapshot| match s.file(rel) {
            Some(file) => query(&s.analysis, file).map(Found::Indexed),
            None => Ok(Found::NotIndexed(
                s.skipped.iter().find(|k| k.path == rel).cloned(),
                s.max_file_size,
            )),
        })?;
        match found {
            Found::Indexed(value) => Ok(value),
            Found::NotIndexed(Some(skipped), _) => Err(FileReadError::Skipped(skipped)),
            Found::NotIndexed(None, max_file_size) => {
                let (analysis, file) = standalone_file_in(
                    &*self.system,
                    &self.root.join(rel),
                    rel,
                    None,
                    max_file_size,
                )?;
                cancel.watch(analysis.cancellation_token());
                query(&analysis, file).map_err(|_| FileReadError::Read(ReadError::Cancelled))
            }
        }
    }
}

impl LiveWorkspace {
    /// What a new agent session needs to know of the workspace (see [`super::bootstrap`]).
    pub fn bootstrap(
        &self,
        cancel: &RequestCancel,
        budget: &crate::ide::Budget,
    ) -> Result<super::bootstrap::Bootstrap, ReadError> {
        let facts = self.read(cancel, |s: &Snapshot| s.analysis.bootstrap_facts())?;
        let answer =
            super::bootstrap::bootstrap(&*self.system, &self.root, facts, budget, cancel.flag());
        match cancel.is_cancelled() {
            true => Err(ReadError::Cancelled),
            false => Ok(answer),
        }
    }
}

impl LiveWorkspace {
    /// The text of the workspace file `rel`, whatever its language (a README, a manifest):
    /// an indexed file's from the index, any other through the confined reader with the
    /// index's size limit. Binary files and files the walk refused are refused. Also
    /// answers the file's language id, when the registry knows it. A text is what the load
    /// read, so it answers while the first index runs too.
    pub fn read_text(
        &self,
        cancel: &RequestCancel,
        rel: &str,
    ) -> Result<(Arc<str>, Option<&'static str>), FileReadError> {
        let found = self.read_early(cancel, WhileIndexing::Answer, |s: &Snapshot| {
            Ok(match s.file(rel) {
                Some(file) => Ok((
                    s.analysis.file_text(file),
                    Some(s.analysis.file_language(file).id.as_str()),
                )),
                None => Err((
                    s.skipped.iter().find(|k| k.path == rel).cloned(),
                    s.max_file_size,
                )),
            })
        })?;
        let (skipped, max_file_size) = match found {
            Ok(indexed) => return Ok(indexed),
            Err(not_indexed) => not_indexed,
        };
        if let Some(skipped) = skipped {
            return Err(FileReadError::Skipped(skipped));
        }
        let path = self.root.join(rel);
        let refused = |refusal| FileError::Refused {
            name: rel.to_string(),
            refusal,
        };
        let bytes = self
            .system
            .read(&path, max_file_size)
            .map_err(refused)?
            .bytes;
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return Err(FileError::Binary { name: rel.into() }.into());
        }
        let language = crate::lang::registry()
            .for_path(&path, bytes.split(|&b| b == b'\n').next())
            .map(|l| l.id.as_str());
        Ok((Arc::from(super::load::decode(bytes).0), language))
    }
}

impl LiveWorkspace {
    /// The text on disk now of each of `paths` that exists (see [`super::current_texts`]),
    /// read with the index's size limit.
    pub fn current_texts<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::BTreeMap<String, crate::ide::FileText>, ApplyError> {
        let max_file_size = self
            .snapshot()
            .map(|snapshot| snapshot.max_file_size)
            .unwrap_or(super::DEFAULT_MAX_FILE_SIZE);
        super::current_texts(&*self.system, paths, max_file_size)
    }

    /// Writes `change` to disk, all files or none (see [`super::apply`]), then has the
    /// writer read every path written (created, deleted and moved ones too) back before
    /// returning, watcher or not, so every read after this call sees the new text and the
    /// new list of files. Never call it holding a snapshot.
    pub fn apply_change(&self, change: &SourceChange) -> Result<Written, ApplyError> {
        self.apply_change_with(change, super::HardLinks::Refuse)
    }

    /// [`LiveWorkspace::apply_change`], with files that have other hard links treated as
    /// `links` says.
    pub fn apply_change_with(
        &self,
        change: &SourceChange,
        links: super::HardLinks,
    ) -> Result<Written, ApplyError> {
        let max_file_size = self
            .snapshot()
            .map(|snapshot| snapshot.max_file_size)
            .unwrap_or(super::DEFAULT_MAX_FILE_SIZE);
        let written = super::apply_change_with(&*self.system, change, max_file_size, links)?;
        // Created, deleted and both paths of a moved file too: the writer reads each path
        // again, so a file gone from the disk leaves the index and a new one joins it.
        let paths = written.paths().map(|path| self.root.join(path)).collect();
        let _ = self.tx.send(Message::Disk { paths, lost: false });
        self.sync(&RequestCancel::default());
        Ok(written)
    }
}

/// Why [`LiveWorkspace::read_file`] could not answer.
#[derive(Debug, thiserror::Error)]
pub enum FileReadError {
    #[error("{0}")]
    Read(ReadError),
    /// The walk left the file out for this reason.
    #[error("{}: not analysed ({})", .0.path, .0.detail)]
    Skipped(SkippedFile),
    #[error(transparent)]
    File(#[from] FileError),
}

impl From<ReadError> for FileReadError {
    fn from(e: ReadError) -> Self {
        FileReadError::Read(e)
    }
}

/// A cookie a reader writes while the first index runs (see
/// [`LiveWorkspace::disk_unchanged`]); the writer's cookies are numbered apart.
const EARLY_COOKIE: &str = "early-";

impl Shared {
    /// Tells the readers waiting for them that their cookies were reported.
    fn note_early_cookies(&self, message: &Message) {
        let (Message::Disk { paths, .. }, Some((_, _, prefix))) =
            (message, self.early_cookies.get())
        else {
            return;
        };
        let early: Vec<&PathBuf> = paths
            .iter()
            .filter(|path| {
                path.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix.as_str()))
            })
            .collect();
        if !early.is_empty() {
            let mut seen = self.early_cookies_seen.lock().unwrap();
            seen.extend(early.into_iter().cloned());
            // A cookie's removal is reported too, after its reader is gone: keep only the
            // latest, more than readers can be waiting at once.
            let over = seen.len().saturating_sub(256);
            seen.drain(..over);
            drop(seen);
            self.early_cookie_reported.notify_all();
        }
    }
}

impl LiveWorkspace {
    /// Whether nothing under the root changed since the watcher started, every change made
    /// before this call included: the reader writes a cookie and waits until the watcher
    /// reports it (the kernel reports events in order, so every earlier change has been
    /// reported then). `false` when that cannot be known (no watcher, no cookie written or
    /// reported in time): the question then waits for the first index, after which the
    /// read-your-writes wait applies.
    fn disk_unchanged(&self) -> bool {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let changed = || {
            self.shared
                .changed_on_disk
                .load(std::sync::atomic::Ordering::Acquire)
        };
        // Known changed already: no cookie (a waiting question asks again every poll).
        let Some((disk, dir, prefix)) = self.shared.early_cookies.get().filter(|_| !changed())
        else {
            return false;
        };
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("{prefix}{n}"));
        if !disk.create_marker(&path) {
            return false;
        }
        let deadline = Instant::now() + COOKIE_TIMEOUT;
        let mut seen = self.shared.early_cookies_seen.lock().unwrap();
        let reported = loop {
            if let Some(i) = seen.iter().position(|p| *p == path) {
                seen.swap_remove(i);
                break true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break false;
            }
            seen = self
                .shared
                .early_cookie_reported
                .wait_timeout(seen, left)
                .unwrap()
                .0;
        };
        drop(seen);
        disk.remove_marker(&path);
        reported && !changed()
    }
}

/// What a read does while the first index runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhileIndexing {
    /// Waits for it: the question reads an index it is building, or writes.
    Wait,
    /// Answers at once, once every file is read: the question reads no index the load
    /// builds, so computing what it needs on demand gives the finished index's answer.
    Answer,
    /// Answers after [`PARTIAL_AFTER`] from the shards built so far, its caller marking the
    /// answer partial (see [`LiveWorkspace::read_or_partial`]).
    Partial,
}

/// Threads for the parallel work of answers given while the first index runs (a search's
/// scan of every text): the index keeps every thread of the global pool busy, and a pool
/// takes work from outside only when its threads find nothing else to do, so on the global
/// pool such an answer waited for the whole index. Half the cores, at least one.
static EARLY_POOL: std::sync::LazyLock<Option<rayon::ThreadPool>> =
    std::sync::LazyLock::new(|| {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.div_ceil(2))
            .thread_name(|i| format!("sextant-early-{i}"))
            .build()
            .ok()
    });

/// How often a waiting reader checks whether its request was cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// How long a read waits for the first index before answering from what is indexed so far:
/// long enough for a warm start's index (read from the persistent cache) to finish, so that
/// only a long first index gives partial answers.
pub const PARTIAL_AFTER: Duration = Duration::from_secs(1);

/// Cancels one request's work wherever it is: waiting for the writer, or running queries on
/// any number of database handles (each attempt's token is handed to [`RequestCancel::watch`]).
#[derive(Default)]
pub struct RequestCancel {
    /// Shared with work that polls a flag of its own (the git status).
    cancelled: Arc<std::sync::atomic::AtomicBool>,
    tokens: Mutex<Vec<crate::ide::CancellationToken>>,
}

impl RequestCancel {
    pub fn cancel(&self) {
        let tokens = self.tokens.lock().unwrap();
        self.cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
        tokens.iter().for_each(|t| t.cancel());
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// A flag set when the request is cancelled, for work that polls one.
    pub fn flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.cancelled.clone()
    }

    /// Cancels `token` with this request (at once if the request is already cancelled).
    pub fn watch(&self, token: crate::ide::CancellationToken) {
        let mut tokens = self.tokens.lock().unwrap();
        if self.is_cancelled() {
            token.cancel();
        }
        tokens.push(token);
    }
}

/// Test hook: a delay spent inside a query of its own, in short sleeps that each check for
/// cancellation, reporting on stderr when it starts and how it ended, so that a test sees
/// what stops the work it delays: `SEXTANT_TEST_DELAY_MS` (an LSP request) and
/// `SEXTANT_TEST_PART_DELAY_MS` (one folder's or root's part of a question over the whole
/// workspace). Inert unless a test sets one.
pub struct TestDelay {
    /// What it delays, as its reports name it: a method, or a question's part in a root.
    pub what: String,
    steps: u64,
}

impl TestDelay {
    const STEP: Duration = Duration::from_millis(10);

    pub fn new(what: String, delay: Duration) -> TestDelay {
        TestDelay {
            what,
            steps: (delay.as_millis() as u64).div_ceil(Self::STEP.as_millis() as u64),
        }
    }

    /// The delay a test asked for in the part of `question` asked of the root at `root`
    /// (`testing::TestHooks::part_delay`), if any.
    pub fn of_part(question: &str, root: &Path) -> Option<TestDelay> {
        let (dir, delay) = crate::testing::hooks().part_delay.as_ref()?;
        crate::testing::named(root, dir)
            .then(|| TestDelay::new(format!("{question} in {dir}"), *delay))
    }

    /// Waits in a snapshot of `live`, read under `cancel`; `note` ends each report (which
    /// request it is). A wait stopped before it started reports that too, so that every
    /// delay asked for says how it ended.
    pub fn wait_in(
        &self,
        live: &LiveWorkspace,
        cancel: &RequestCancel,
        note: &str,
    ) -> Result<(), ReadError> {
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        let what = &self.what;
        let started = AtomicBool::new(false);
        let waited = live.read(cancel, |s| {
            started.store(true, Ordering::Relaxed);
            eprintln!("sextant: test delay: {what} started, {} steps ({note})", self.steps);
            let done = AtomicU64::new(0);
            let outcome = s
                .analysis
                .slow_query_for_tests(self.steps, Self::STEP, &done);
            let done = done.load(Ordering::Relaxed);
            match &outcome {
                Ok(()) => eprintln!("sextant: test delay: {what} finished ({note})"),
                Err(_) => eprintln!(
                    "sextant: test delay: {what} stopped by cancellation after {done} of {} steps ({note})",
                    self.steps
                ),
            }
            outcome
        });
        if matches!(waited, Err(ReadError::Cancelled)) && !started.load(Ordering::Relaxed) {
            eprintln!(
                "sextant: test delay: {what} stopped by cancellation before it started ({note})"
            );
        }
        waited
    }
}

impl LiveWorkspace {
    /// Stops the workspace as dropping it does, and says whether that cut its first index
    /// short.
    pub fn stop(mut self) -> bool {
        self.wind_down();
        self.shared
            .first_index_stopped
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Stops the writer, its first index too if it is still running (nobody will read it),
    /// and the background check, and waits for the writer to end.
    fn wind_down(&mut self) {
        self.stop.stop();
        let _ = self.tx.send(Message::Shutdown);
        if let Some(token) = self.shared.background_check.lock().unwrap().as_ref() {
            token.cancel();
        }
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl Drop for LiveWorkspace {
    fn drop(&mut self) {
        self.wind_down();
    }
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            snapshot: Mutex::new(None),
            partial: Mutex::new(None),
            cache: std::sync::OnceLock::new(),
            name_tables: std::sync::OnceLock::new(),
            background_check: Mutex::new(None),
            subscribers: Mutex::new(Vec::new()),
            checks_in_background: std::sync::atomic::AtomicBool::new(false),
            changed_on_disk: std::sync::atomic::AtomicBool::new(false),
            early_cookies: std::sync::OnceLock::new(),
            early_cookies_seen: Mutex::new(Vec::new()),
            early_cookie_reported: Condvar::new(),
            load_error: Mutex::new(None),
            first_index_stopped: std::sync::atomic::AtomicBool::new(false),
            published: Condvar::new(),
            status: Mutex::new(LiveStatus {
                ready: false,
                watching: false,
                error: None,
                config_error: None,
                index_ms: None,
                progress: None,
                indexed: None,
                unfinished: Vec::new(),
                revision: 0,
                checked: false,
                batches: 0,
                rescans: 0,
                evictions: 0,
                cache: None,
                memory: MemoryStatus::default(),
            }),
        })
    }
}

/// Starts the writer thread over `system`, fed by `channel`.
fn spawn(
    system: Arc<dyn WritableSystem>,
    mut options: LoadOptions,
    shared: Arc<Shared>,
    channel: (Sender<Message>, Receiver<Message>),
    cookies: Option<Cookies>,
    watcher: Option<notify::RecommendedWatcher>,
    remove_left_over_writes: bool,
) -> Result<LiveWorkspace, LoadError> {
    let (tx, rx) = channel;
    let root = system.root().to_path_buf();
    let operations = super::operations::Operations::open(&options.cache, &root);
    // Its own, even if the options were cloned from another workspace's.
    let stop = super::LoadStop::default();
    options.stop = Some(stop.clone());
    let writer_shared = shared.clone();
    let writer_system = system.clone();
    let writer_tx = tx.clone();
    let writer = std::thread::Builder::new()
        .name("sextant-writer".into())
        .spawn(move || {
            let disk = Disk {
                cookies,
                remove_left_over_writes,
            };
            writer_loop(
                writer_system,
                options,
                &writer_shared,
                (writer_tx, &rx),
                disk,
            )
        })
        .map_err(LoadError::Thread)?;
    Ok(LiveWorkspace {
        shared,
        tx,
        writer: Some(writer),
        _watcher: watcher,
        root,
        system,
        operations,
        stop,
    })
}

/// A watcher's event as the writer takes it: the paths whose content may have changed;
/// `None` for an event that changes nothing (a read). The watcher reports every open of a
/// file under the root, and a build or a test run reading the tree opens thousands: each
/// would otherwise wake the writer and re-arm its eviction.
fn disk_message(event: notify::Result<notify::Event>) -> Option<Message> {
    match event {
        Ok(event) => {
            let lost = event.need_rescan();
            let changes = changes_content(&event.kind);
            (lost || changes).then(|| Message::Disk {
                lost,
                paths: if changes { event.paths } else { Vec::new() },
            })
        }
        Err(_) => Some(Message::Disk {
            paths: Vec::new(),
            lost: true,
        }),
    }
}

/// Whether a watcher's message may change what the workspace holds: lost events may, and so
/// does any path outside `.git/` but a cookie (git's own files and other servers' cookies
/// are never workspace content; the writer's ignore rules are not known here, so an
/// ignored file counts, which only makes early answers wait).
fn may_change_workspace(message: &Message) -> bool {
    match message {
        Message::Disk { lost: true, .. } => true,
        Message::Disk { paths, .. } => paths
            .iter()
            .any(|path| !is_cookie(path) && !path.components().any(|c| c.as_os_str() == ".git")),
        _ => false,
    }
}

/// What the writer does on the real disk (nothing, over a test's memory system).
struct Disk {
    /// `None` when there is no watcher to send cookies through.
    cookies: Option<Cookies>,
    /// Remove the temporary files of writes killed while staging, found by the first walk.
    remove_left_over_writes: bool,
}

fn writer_loop(
    system: Arc<dyn WritableSystem>,
    options: LoadOptions,
    shared: &Arc<Shared>,
    // A sender of the writer's own channel, for the background check alone: the writer
    // keeps none, as its loop also ends once the workspace's are gone.
    (tx, rx): (Sender<Message>, &Receiver<Message>),
    disk: Disk,
) {
    let started = Instant::now();
    let background_check = options
        .check_in_background
        .then(|| spawn_background_check(shared.clone(), tx))
        .flatten();
    shared.checks_in_background.store(
        background_check.is_some(),
        std::sync::atomic::Ordering::Relaxed,
    );
    let Some(mut host) = first_index(&system, options, shared) else {
        return;
    };
    if disk.remove_left_over_writes {
        remove_left_over_writes(&*system, &host);
    }
    {
        let mut status = shared.status.lock().unwrap();
        status.ready = true;
        status.progress = None;
        status.index_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut writer = Writer {
        revision: 0,
        pending: Vec::new(),
        rescan: false,
        overlays: Vec::new(),
        overlay_waiters: Vec::new(),
        uncovered: Vec::new(),
        covered: Vec::new(),
        cookies: disk.cookies,
        background_check,
        eviction_at: Some(Instant::now() + EVICTION_DELAY),
    };
    publish(&host, shared, writer.revision, true);
    writer.check_in_background();
    loop {
        let Ok(first) = writer.first_of_batch(&mut host, shared, rx) else {
            return;
        };
        if writer.gather_batch(first, rx).is_err() {
            return;
        }
        writer.apply(&mut host, shared);
    }
}

/// The first index of `system`, its progress reported in the status; `None` (the error
/// published to readers) when the workspace cannot be loaded.
fn first_index(
    system: &Arc<dyn WritableSystem>,
    mut options: LoadOptions,
    shared: &Arc<Shared>,
) -> Option<Host> {
    let outer = options.progress.take();
    let partial_shared = shared.clone();
    options.indexing = Some(super::IndexingSink(Arc::new(move |partial| {
        *partial_shared.partial.lock().unwrap() = partial;
    })));
    let status_shared = shared.clone();
    options.progress = Some(ProgressSink(Arc::new(move |event: ProgressEvent| {
        status_shared.status.lock().unwrap().progress = Some(event);
        if let Some(outer) = &outer {
            (outer.0)(event);
        }
    })));
    match Host::load_with(system.clone(), &options) {
        Ok(host) => {
            let _ = shared
                .name_tables
                .set(host.analysis.analysis().name_tables());
            if let Some(cache) = host.cache() {
                let _ = shared.cache.set(cache.clone());
                // Saved now, not only once the background check is done: a short session
                // (an agent's) may end before then. On a thread of its own: rewriting the
                // file takes about as long as a warm start's index, and the first answers
                // need none of it (queries read and record while it writes; a later save,
                // the one at exit included, waits for it).
                cache.take_for_save();
                let cache = cache.clone();
                let saver = std::thread::Builder::new()
                    .name("sextant-save".into())
                    .spawn(move || {
                        for problem in cache.save_reporting(super::cache::Saving::Taken) {
                            eprintln!("sextant: warning: {problem}");
                        }
                    });
                if saver.is_err() {
                    for problem in host.save_cache() {
                        eprintln!("sextant: warning: {problem}");
                    }
                }
            }
            Some(host)
        }
        Err(e) => {
            if matches!(e, LoadError::Stopped) {
                shared
                    .first_index_stopped
                    .store(true, std::sync::atomic::Ordering::Release);
            }
            let config_error = e.is_config().then(|| e.to_string());
            let e = e.to_string();
            shared.status.lock().unwrap().config_error = config_error;
            shared.status.lock().unwrap().error = Some(e.clone());
            *shared.load_error.lock().unwrap() = Some(e);
            let _guard = shared.snapshot.lock().unwrap();
            shared.published.notify_all();
            // A loop waiting for this workspace learns that it will not come.
            wake_subscribers(shared, 0);
            None
        }
    }
}

/// Removes the temporary files a killed writer left in the root and the directories the
/// walk entered. The walk skips hidden names, so it never saw them: each directory is
/// listed again, off the writer's thread (a directory listing each, nothing read).
fn remove_left_over_writes(system: &dyn WritableSystem, host: &Host) {
    let root = system.root().to_path_buf();
    let directories: Vec<PathBuf> = std::iter::once(root.clone())
        .chain(host.walked_directories().map(|d| root.join(d)))
        .collect();
    let _ = std::thread::Builder::new()
        .name("sextant-cleanup".into())
        .spawn(move || {
            for directory in directories {
                super::system::remove_stale_temporaries(&directory);
            }
        });
}

/// The writer's channel closed (or it was told to stop): the writer ends.
struct Closed;

/// The writer's state between batches.
struct Writer {
    revision: u64,
    /// Paths reported by the watcher since the last batch.
    pending: Vec<PathBuf>,
    /// The watcher lost events: only a walk can tell what changed.
    rescan: bool,
    overlays: Vec<(String, Option<String>)>,
    overlay_waiters: Vec<Sender<()>>,
    /// Readers waiting for the disk, for whom no cookie was written yet.
    uncovered: Vec<Sender<()>>,
    /// Readers whose cookie is on its way (or has arrived).
    covered: Vec<Sender<()>>,
    /// `None` when there is no watcher to send cookies through.
    cookies: Option<Cookies>,
    /// Revisions for the background check to check (`None` when it is off).
    background_check: Option<Sender<u64>>,
    /// When to evict next: set by the first message since the last eviction.
    eviction_at: Option<Instant>,
}

impl Writer {
    /// Waits for the first message of a batch, evicting memos once idle; `None` when
    /// readers are still waiting, so a batch starts at once.
    fn first_of_batch(
        &mut self,
        host: &mut Host,
        shared: &Arc<Shared>,
        rx: &Receiver<Message>,
    ) -> Result<Option<Message>, Closed> {
        loop {
            if self.has_waiters() {
                return Ok(None);
            }
            let Some(at) = self.eviction_at else {
                return rx.recv().map(Some).map_err(|_| Closed);
            };
            // Timed from the first question since the last eviction, not from the last
            // one: a client polling `workspace_status` must not postpone it for ever.
            match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(first) => return Ok(Some(first)),
                Err(RecvTimeoutError::Timeout) => self.evict_when_idle(host, shared),
                Err(RecvTimeoutError::Disconnected) => return Err(Closed),
            }
        }
    }

    /// Takes `first` and what follows until quiet, or until the waiting readers' cookie
    /// has come back.
    fn gather_batch(
        &mut self,
        first: Option<Message>,
        rx: &Receiver<Message>,
    ) -> Result<(), Closed> {
        let batch_started = Instant::now();
        let mut next = first;
        loop {
            if let Some(message) = next.take()
                && !self.take(message)
            {
                return Err(Closed);
            }
            if self.has_waiters() {
                // Take what is already queued first: readers arriving together share a
                // cookie, and an editor's burst of changes is applied at once.
                if let Ok(m) = rx.try_recv() {
                    next = Some(m);
                    continue;
                }
                if self.cookie_deadline().is_none() {
                    if self.has_answerable() {
                        return Ok(());
                    }
                    self.cover_waiters();
                    if self.cookie_deadline().is_none() {
                        return Ok(());
                    }
                }
            }
            let wait = match self.cookie_deadline() {
                Some(deadline) => deadline.saturating_duration_since(Instant::now()),
                None => DEBOUNCE.min(MAX_BATCH_DELAY.saturating_sub(batch_started.elapsed())),
            };
            if wait.is_zero() {
                // A cookie that never came (the watcher is stuck or lost it): answer anyway.
                self.give_up_cookie();
                return Ok(());
            }
            match rx.recv_timeout(wait) {
                Ok(m) => next = Some(m),
                Err(RecvTimeoutError::Timeout) if self.cookie_deadline().is_some() => {}
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => return Err(Closed),
            }
        }
    }

    /// Records one message; false on shutdown.
    fn take(&mut self, message: Message) -> bool {
        self.eviction_at
            .get_or_insert_with(|| Instant::now() + EVICTION_DELAY);
        match message {
            Message::Shutdown => return false,
            Message::CheckRunEnded => self.eviction_at = Some(Instant::now()),
            Message::Sync(reply) => self.uncovered.push(reply),
            Message::Overlay(rel, text, reply) => {
                self.overlays.push((rel, text));
                self.overlay_waiters.push(reply);
            }
            Message::Disk { paths, lost } => {
                self.rescan |= lost;
                for path in paths {
                    if !is_cookie(&path) {
                        self.pending.push(path);
                    } else if let Some(cookies) = &mut self.cookies {
                        cookies.arrived(&path);
                    }
                }
            }
        }
        true
    }

    /// Asks the background check (if on) to check the revision just published.
    fn check_in_background(&self) {
        if let Some(check) = &self.background_check {
            let _ = check.send(self.revision);
        }
    }

    fn has_waiters(&self) -> bool {
        !self.uncovered.is_empty() || self.has_answerable()
    }

    /// Readers that the next apply answers (when no cookie is outstanding).
    fn has_answerable(&self) -> bool {
        !self.covered.is_empty() || !self.overlay_waiters.is_empty()
    }

    /// Writes one cookie for every reader that has none yet. Without a watcher (or when the
    /// cookie cannot be written) they are answered with what has been received.
    fn cover_waiters(&mut self) {
        if let Some(cookies) = &mut self.cookies {
            cookies.send();
        }
        self.covered.append(&mut self.uncovered);
    }

    fn give_up_cookie(&mut self) {
        if let Some(cookies) = &mut self.cookies {
            cookies.give_up();
        }
    }

    fn cookie_deadline(&self) -> Option<Instant> {
        self.cookies
            .as_ref()
            .and_then(|c| c.outstanding.as_ref())
            .map(|(_, deadline)| *deadline)
    }

    /// Drops the memoized answers beyond their caches' bounds (salsa's LRU limits apply only
    /// at a write, and a server that only answers questions never writes), then returns the
    /// freed memory to the system. Reads memoize freely (a rename's search computes the name
    /// tables of hundreds of files; the background check, of every file), so without this a
    /// server that is only asked keeps the largest working set it ever had. Done only when
    /// no reader holds a snapshot (the background check included): eviction is a write, and
    /// must not cancel anyone.
    fn evict_when_idle(&mut self, host: &mut Host, shared: &Shared) {
        {
            let mut slot = shared.snapshot.lock().unwrap();
            match slot.as_ref() {
                Some(snapshot) if Arc::strong_count(&snapshot.lease) == 1 => {
                    slot.take();
                }
                // A reader is still at work: try again a little later.
                Some(_) => {
                    self.eviction_at = Some(Instant::now() + EVICTION_DELAY);
                    return;
                }
                None => {}
            }
        }
        host.evict_unused();
        crate::allocator::release_freed_memory();
        self.eviction_at = None;
        let unchecked = {
            let mut status = shared.status.lock().unwrap();
            status.evictions += 1;
            !status.checked
        };
        // A quiet moment: keep what was computed for the next start (once the background
        // check is done, so that its diagnostics are kept too).
        if !unchecked || self.background_check.is_none() {
            for problem in host.save_cache() {
                eprintln!("sextant: warning: {problem}");
            }
        }
        publish(host, shared, self.revision, false);
        // The background check skips a revision whose snapshot is withdrawn, as it was here
        // for a moment: ask again (a revision it has checked is a memoized no-op).
        if unchecked && self.background_check.is_some() {
            self.check_in_background();
            self.eviction_at = Some(Instant::now() + EVICTION_DELAY);
        }
    }

    /// Applies the batch, publishes a snapshot and answers the readers it covers.
    fn apply(&mut self, host: &mut Host, shared: &Shared) {
        if !self.pending.is_empty() || self.rescan || !self.overlays.is_empty() {
            self.pending.sort();
            self.pending.dedup();
            let force = self.rescan || self.pending.len() > RESCAN_THRESHOLD;
            // Withdraw the published snapshot: the setters below wait for every clone.
            shared.snapshot.lock().unwrap().take();
            let applied = if !self.pending.is_empty() || force {
                host.apply_disk_changes(&self.pending, force)
            } else {
                Default::default()
            };
            self.pending.clear();
            self.rescan = false;
            let edited = !self.overlays.is_empty();
            for (rel, text) in self.overlays.drain(..) {
                host.set_overlay(&rel, text);
            }
            let changed = applied != Default::default() || edited;
            if changed {
                self.revision += 1;
            }
            {
                let mut status = shared.status.lock().unwrap();
                status.batches += 1;
                status.rescans += u64::from(applied.rescanned);
            }
            publish(host, shared, self.revision, false);
            if changed {
                self.check_in_background();
            }
        }
        for waiter in self.overlay_waiters.drain(..) {
            let _ = waiter.send(());
        }
        if self.cookie_deadline().is_none() {
            for waiter in self.covered.drain(..) {
                let _ = waiter.send(());
            }
        }
    }
}

/// Read-your-writes through the watcher, as Watchman does it: to learn that every change
/// made before a moment has been delivered, write a marker file (a cookie) and wait for the
/// watcher to report it. The kernel queues events in order, so everything written before
/// the cookie has arrived by then.
struct Cookies {
    /// The disk the watcher watches (cookies are files on it).
    disk: OsSystem,
    dir: PathBuf,
    /// A read-only server's own directory for cookies, removed when the server ends.
    _private: Option<tempfile::TempDir>,
    prefix: String,
    next: u64,
    /// The cookie on its way, and when to stop waiting for it.
    outstanding: Option<(PathBuf, Instant)>,
    /// Cookies could not be written (a read-only root): readers get eventual freshness.
    disabled: bool,
}

/// A directory only this user can enter, outside the workspace, for a read-only server's
/// cookies; `None` when none can be made.
fn private_cookie_directory() -> Option<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("sextant-cookies-")
        .tempdir()
        .ok()
}

/// Every cookie's name starts so, whichever server wrote it: none is ever workspace content.
const COOKIE_PREFIX: &str = ".sextant-cookie-";

fn is_cookie(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(COOKIE_PREFIX))
}

/// How long to wait for a cookie before answering anyway.
const COOKIE_TIMEOUT: Duration = Duration::from_secs(2);

impl Cookies {
    fn new(disk: OsSystem, private: Option<tempfile::TempDir>) -> Cookies {
        // Inside `.git` when it is a directory of the root (not a link to elsewhere, which the
        // watcher does not see), so that `git status` never shows a cookie.
        let git = disk.root().join(".git");
        let dir = match (&private, disk.symlink_metadata(&git)) {
            (Some(private), _) => private.path().to_path_buf(),
            (None, Ok(meta)) if meta.kind == super::FileKind::Dir => git,
            (None, _) => disk.root().to_path_buf(),
        };
        Cookies {
            disk,
            dir,
            _private: private,
            prefix: format!("{COOKIE_PREFIX}{}-", std::process::id()),
            next: 0,
            outstanding: None,
            disabled: false,
        }
    }

    fn send(&mut self) {
        if self.disabled {
            return;
        }
        self.next += 1;
        let path = self.dir.join(format!("{}{}", self.prefix, self.next));
        if self.disk.create_marker(&path) {
            self.outstanding = Some((path, Instant::now() + COOKIE_TIMEOUT));
        } else {
            self.disabled = true;
        }
    }

    /// A cookie was reported: ours (the one awaited, or an older one) or another server's.
    fn arrived(&mut self, path: &Path) {
        if self.outstanding.as_ref().is_some_and(|(p, _)| p == path) {
            self.outstanding = None;
        }
        let ours = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&self.prefix));
        if ours {
            // Creation and removal both report the path; removing twice is harmless.
            self.disk.remove_marker(path);
        }
    }

    fn give_up(&mut self) {
        if let Some((path, _)) = self.outstanding.take() {
            self.disk.remove_marker(&path);
        }
    }
}

/// Whether an event may change what a file says. Reads (our own included: a rescan reads
/// files) and permission changes do not; counting them would make every rescan trigger
/// another.
fn changes_content(kind: &notify::EventKind) -> bool {
    use notify::{EventKind, event::ModifyKind};
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
    )
}

/// How many files the background check works through between two reads of the resident
/// memory, when a limit is set.
const MEMORY_CHECK_EVERY: u32 = 32;
/// How many files the background check works through before it steps aside (stops, its
/// work so far memoized) so that the idle writer can apply the caches' bounds: salsa drops
/// values beyond an LRU's bound only at a write, and a check of every file computes every
/// file's name tables (three times the text of the Python standard library, measured), all
/// held until then. The writer asks again once it has evicted (`evict_when_idle`).
const CHECK_BATCH: u32 = 2048;
/// What the name tables a background check computes may hold before it steps aside (as
/// after [`CHECK_BATCH`] files): a table is three times its text for hand-written Python
/// and sixteen times for short generated functions (measured), so 2,048 generated files
/// of a megabyte would hold gigabytes. Stepping aside costs little (the writer evicts as
/// soon as the run ends): on a tree of 10,770 files the check's tables reached 73 MB at a
/// poll with 128 MiB allowed, at most 48 MB with this, and the check took no longer.
const CHECK_TABLE_BYTES: usize = 32 << 20;
/// Under a memory limit, the check's tables hold at most this share of it (25 MiB of 400M),
/// and no more than without one.
const CHECK_TABLES_SHARE_OF_LIMIT: u64 = 16;

/// What the name tables one run of the background check computes may hold, under
/// `memory_limit` or without one.
fn check_tables_allowed(memory_limit: Option<u64>) -> usize {
    match (crate::testing::hooks().check_table_bytes, memory_limit) {
        (Some(bytes), _) => bytes,
        (None, Some(limit)) => usize::try_from(limit / CHECK_TABLES_SHARE_OF_LIMIT)
            .map_or(CHECK_TABLE_BYTES, |share| share.min(CHECK_TABLE_BYTES)),
        (None, None) => CHECK_TABLE_BYTES,
    }
}

/// Starts the thread that computes every file's diagnostics of each revision it is sent,
/// on all cores, so that a whole-workspace check finds them memoized. A write cancels it
/// like any reader (it then waits for the next revision); it ends with the writer.
fn spawn_background_check(shared: Arc<Shared>, writer: Sender<Message>) -> Option<Sender<u64>> {
    let (tx, rx) = mpsc::channel::<u64>();
    std::thread::Builder::new()
        .name("sextant-check".into())
        .spawn(move || {
            // Files of the revision checked before the check last stepped aside (see
            // `CHECK_BATCH`): a run passes them first, as memoized no-ops.
            let mut resume = (u64::MAX, 0u32);
            while let Ok(mut revision) = rx.recv() {
                while let Ok(newer) = rx.try_recv() {
                    revision = newer;
                }
                // Withdrawn (a write is being applied, and will send its revision) or
                // already replaced by a newer one that is on its way.
                let Some(snapshot) = shared.snapshot.lock().unwrap().clone() else {
                    continue;
                };
                if snapshot.revision != revision {
                    continue;
                }
                let limit = shared.status.lock().unwrap().memory.check_stops_at_bytes;
                let trees = snapshot.analysis.tree_cache();
                // Over the mark, the recent trees go first: the check takes the largest
                // files first, and the last one's tree (tens of megabytes for a generated
                // file) stayed until the next parse, so the check stopped, and the answers
                // after it started from there.
                let over_limit = || {
                    limit.is_some_and(|limit| {
                        crate::allocator::release_freed_memory();
                        if !crate::ide::memory::over(limit) {
                            return false;
                        }
                        trees.drop_unpinned();
                        crate::allocator::release_freed_memory();
                        crate::ide::memory::over(limit)
                    })
                };
                let paused =
                    |paused: bool| shared.status.lock().unwrap().memory.check_paused = paused;
                if over_limit() {
                    paused(true);
                    continue;
                }
                let token = snapshot.analysis.cancellation_token();
                *shared.background_check.lock().unwrap() = Some(token.clone());
                // The run steps aside once its name tables grew by their allowance from
                // what the tables held when it started (those kept between questions).
                let tables = snapshot.analysis.name_tables();
                let tables_step_aside_at =
                    tables.bytes().saturating_add(check_tables_allowed(limit));
                let stopped_for_memory = std::sync::atomic::AtomicBool::new(false);
                let files_done = std::sync::atomic::AtomicU32::new(0);
                if resume.0 != revision {
                    resume = (revision, 0);
                }
                let batch = crate::testing::hooks().check_batch.unwrap_or(CHECK_BATCH);
                let step_aside_at = std::sync::atomic::AtomicU32::new(resume.1 + batch);
                // A batch whose every result came from the persistent cache built no name
                // table, so there is nothing for the writer to drop: it goes on, instead of
                // waiting for the writer's next idle moment (a second per batch).
                let cache = shared.cache.get();
                let computed = || cache.map(|cache| cache.store().counts().computed);
                let computed_before = computed();
                // Resident memory is read every few files: a file's check is milliseconds,
                // a read of the kernel's counters microseconds. After a large file it is read
                // at once: the largest are checked first, one at a time, and one can take
                // tens of megabytes while it is checked.
                let watch_memory = |bytes: usize| {
                    let done = files_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let due = done.is_multiple_of(MEMORY_CHECK_EVERY)
                        || bytes >= crate::ide::LARGE_FILE_BYTES;
                    if due && over_limit() {
                        stopped_for_memory.store(true, std::sync::atomic::Ordering::Relaxed);
                        token.cancel();
                    }
                    let at = step_aside_at.load(std::sync::atomic::Ordering::Relaxed);
                    if tables.bytes() > tables_step_aside_at {
                        token.cancel();
                    } else if done + 1 == at {
                        match computed_before {
                            Some(before) if computed() == Some(before) => {
                                step_aside_at
                                    .store(at + batch, std::sync::atomic::Ordering::Relaxed);
                            }
                            _ => token.cancel(),
                        }
                    }
                };
                let checked = snapshot
                    .analysis
                    .prime_caches_with(
                        crate::ide::Priming {
                            identifiers: true,
                            diagnostics: true,
                        },
                        &watch_memory,
                    )
                    .is_ok();
                *shared.background_check.lock().unwrap() = None;
                drop(snapshot);
                let _ = writer.send(Message::CheckRunEnded);
                resume.1 = resume
                    .1
                    .max(files_done.into_inner().min(step_aside_at.into_inner()));
                paused(stopped_for_memory.into_inner());
                if checked {
                    let mut status = shared.status.lock().unwrap();
                    status.checked = status.revision == revision;
                }
            }
        })
        .ok()
        .map(|_| tx)
}

/// Publishes a snapshot of `revision`; `first`: the first index's. A snapshot withdrawn and
/// published again at the same revision (an eviction, a batch that changed nothing) is no
/// change: what was checked of it stays checked, and no subscriber is woken.
fn publish(host: &Host, shared: &Shared, revision: u64, first: bool) {
    shared
        .snapshot
        .lock()
        .unwrap()
        .replace(Snapshot::of(host, revision));
    let changed = {
        let mut status = shared.status.lock().unwrap();
        // The first index wakes subscribers too: a reader left waiting for it may answer.
        let changed = status.revision != revision || first;
        status.checked &= !changed;
        status.revision = revision;
        status.config_error = host.config_error.clone();
        // `sextant.toml` may have changed the limit: the next check reads it from here.
        status.memory.limit_bytes = host.config.max_memory;
        status.memory.check_stops_at_bytes = host
            .config
            .max_memory
            .map(crate::ide::memory::check_stops_at);
        changed
    };
    if changed {
        wake_subscribers(shared, revision);
    }
    shared.published.notify_all();
}

/// Tells every [`LiveWorkspace::subscribe`]r of `revision`.
fn wake_subscribers(shared: &Shared, revision: u64) {
    // A full channel already holds a wake-up; a closed one lost its receiver.
    shared.subscribers.lock().unwrap().retain(|tx| {
        !matches!(
            tx.try_send(revision),
            Err(crossbeam_channel::TrySendError::Disconnected(_))
        )
    });
}
