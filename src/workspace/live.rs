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

use std::{
    collections::HashMap,
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

use super::{Host, LoadOptions, SkippedFile};
use crate::db::{RootDatabase, SourceFile, Workspace};

/// Quiet time that ends a burst of events.
const DEBOUNCE: Duration = Duration::from_millis(40);
/// A burst is applied after this long even if events keep coming.
const MAX_BATCH_DELAY: Duration = Duration::from_millis(250);
/// More distinct paths than this in one batch: walk the root instead of reading each.
const RESCAN_THRESHOLD: usize = 2_000;

/// Everything a reader needs, all from one revision.
#[derive(Clone)]
pub struct Snapshot {
    pub db: RootDatabase,
    pub workspace: Workspace,
    pub files: Arc<HashMap<String, SourceFile>>,
    pub skipped: Arc<[SkippedFile]>,
    pub root: Arc<PathBuf>,
    pub max_file_size: u64,
    /// Increases with every applied batch of changes.
    pub revision: u64,
}

impl Snapshot {
    pub fn file(&self, rel: &str) -> Option<SourceFile> {
        self.files.get(rel).copied()
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
    pub index_ms: Option<f64>,
    pub revision: u64,
    /// Batches of file-system events applied since the first index.
    pub batches: u64,
    /// How many of them walked the whole root again.
    pub rescans: u64,
}

enum Message {
    Fs(notify::Result<notify::Event>),
    /// Apply every event received so far, then answer.
    Sync(Sender<()>),
    /// An editor's text for a workspace-relative path (`None`: closed), then answer.
    Overlay(String, Option<String>, Sender<()>),
    Shutdown,
}

struct Shared {
    snapshot: Mutex<Option<Snapshot>>,
    /// Set when the first load failed; readers stop waiting.
    load_error: Mutex<Option<String>>,
    published: Condvar,
    status: Mutex<LiveStatus>,
}

pub struct LiveWorkspace {
    shared: Arc<Shared>,
    tx: Sender<Message>,
    writer: Option<JoinHandle<()>>,
    _watcher: Option<notify::RecommendedWatcher>,
    root: PathBuf,
}

/// Why a read could not be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The first load failed; the message says why.
    LoadFailed(String),
    /// The caller's own cancellation (time limit, client request).
    Cancelled,
}

impl LiveWorkspace {
    /// Starts watching `root` and indexing it in the background. Readers wait for the first
    /// index; [`LiveWorkspace::status`] does not.
    pub fn start(root: &Path, options: LoadOptions) -> Result<LiveWorkspace, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", root.display()))?;
        if !root.is_dir() {
            return Err(format!("{}: not a directory", root.display()));
        }
        let shared = Arc::new(Shared {
            snapshot: Mutex::new(None),
            load_error: Mutex::new(None),
            published: Condvar::new(),
            status: Mutex::new(LiveStatus {
                ready: false,
                watching: false,
                error: None,
                index_ms: None,
                revision: 0,
                batches: 0,
                rescans: 0,
            }),
        });
        let (tx, rx) = mpsc::channel();

        // Watch before the first walk so that nothing changed during it is missed.
        let watcher_tx = tx.clone();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = watcher_tx.send(Message::Fs(event));
        })
        .and_then(|mut w| w.watch(&root, notify::RecursiveMode::Recursive).map(|()| w));
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

        let writer_shared = shared.clone();
        let writer_root = root.clone();
        let writer = std::thread::Builder::new()
            .name("sextant-writer".into())
            .spawn(move || writer_loop(&writer_root, options, &writer_shared, &rx))
            .map_err(|e| e.to_string())?;
        Ok(LiveWorkspace {
            shared,
            tx,
            writer: Some(writer),
            _watcher: watcher,
            root,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn status(&self) -> LiveStatus {
        self.shared.status.lock().unwrap().clone()
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

    /// Applies every change the watcher has reported so far (waiting for the first index if
    /// it is still running). Call it before taking a snapshot, never while holding one.
    pub fn sync(&self) {
        let (reply_tx, reply_rx) = mpsc::channel();
        if self.tx.send(Message::Sync(reply_tx)).is_ok() {
            let _ = reply_rx.recv();
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

    /// Runs `query` on a fresh snapshot, retrying when a write cancels it. `on_start` receives
    /// each attempt's cancellation token, so the caller can cancel the query itself; such a
    /// cancellation ends the read with [`ReadError::Cancelled`].
    pub fn read<T>(
        &self,
        on_start: impl Fn(salsa::CancellationToken),
        query: impl Fn(&Snapshot) -> Result<T, salsa::Cancelled>,
    ) -> Result<T, ReadError> {
        self.sync();
        loop {
            let snapshot = self.snapshot()?;
            let token = salsa::Database::cancellation_token(&snapshot.db);
            on_start(token.clone());
            match query(&snapshot) {
                Ok(value) => return Ok(value),
                Err(_) if token.is_cancelled() => return Err(ReadError::Cancelled),
                // A write is pending: drop the clone so that it can proceed, then retry.
                Err(_) => drop(snapshot),
            }
        }
    }
}

impl Drop for LiveWorkspace {
    fn drop(&mut self) {
        let _ = self.tx.send(Message::Shutdown);
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

fn writer_loop(root: &Path, options: LoadOptions, shared: &Shared, rx: &Receiver<Message>) {
    let started = Instant::now();
    let mut host = match Host::load(root, &options) {
        Ok(host) => host,
        Err(e) => {
            shared.status.lock().unwrap().error = Some(e.clone());
            *shared.load_error.lock().unwrap() = Some(e);
            let _guard = shared.snapshot.lock().unwrap();
            shared.published.notify_all();
            return;
        }
    };
    {
        let mut status = shared.status.lock().unwrap();
        status.ready = true;
        status.index_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut revision = 0;
    publish(&host, shared, revision);

    let mut pending: Vec<PathBuf> = Vec::new();
    let mut rescan = false;
    let mut waiters: Vec<Sender<()>> = Vec::new();
    let mut overlays: Vec<(String, Option<String>)> = Vec::new();
    loop {
        // Wait for the first message of a batch, then gather until quiet.
        let first = match rx.recv() {
            Ok(m) => m,
            Err(_) => return,
        };
        let batch_started = Instant::now();
        let mut next = Some(first);
        loop {
            match next.take() {
                Some(Message::Shutdown) => return,
                Some(Message::Sync(reply)) => waiters.push(reply),
                Some(Message::Overlay(rel, text, reply)) => {
                    overlays.push((rel, text));
                    waiters.push(reply);
                }
                Some(Message::Fs(Ok(event))) => {
                    if event.need_rescan() {
                        rescan = true;
                    }
                    if changes_content(&event.kind) {
                        pending.extend(event.paths);
                    }
                }
                // The watcher lost events (queue overflow): only a walk can tell what changed.
                Some(Message::Fs(Err(_))) => rescan = true,
                None => {}
            }
            // A reader is waiting: apply what we have now rather than wait for quiet.
            if !waiters.is_empty() {
                match rx.try_recv() {
                    Ok(m) => {
                        next = Some(m);
                        continue;
                    }
                    Err(_) => break,
                }
            }
            let remaining = MAX_BATCH_DELAY.saturating_sub(batch_started.elapsed());
            if remaining.is_zero() {
                break;
            }
            match rx.recv_timeout(DEBOUNCE.min(remaining)) {
                Ok(m) => next = Some(m),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }

        if !pending.is_empty() || rescan || !overlays.is_empty() {
            pending.sort();
            pending.dedup();
            let force = rescan || pending.len() > RESCAN_THRESHOLD;
            // Withdraw the published snapshot: the setters below wait for every clone.
            shared.snapshot.lock().unwrap().take();
            let applied = if !pending.is_empty() || force {
                host.apply_disk_changes(&pending, force)
            } else {
                Default::default()
            };
            pending.clear();
            rescan = false;
            let edited = !overlays.is_empty();
            for (rel, text) in overlays.drain(..) {
                host.set_overlay(&rel, text);
            }
            if applied != Default::default() || edited {
                revision += 1;
            }
            {
                let mut status = shared.status.lock().unwrap();
                status.batches += 1;
                status.rescans += u64::from(applied.rescanned);
            }
            publish(&host, shared, revision);
        }
        for waiter in waiters.drain(..) {
            let _ = waiter.send(());
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

fn publish(host: &Host, shared: &Shared, revision: u64) {
    let snapshot = Snapshot {
        db: host.db.clone(),
        workspace: host.workspace,
        files: host.file_map(),
        skipped: host.skipped.clone().into(),
        root: Arc::new(host.root.clone()),
        max_file_size: host.config.max_file_size,
        revision,
    };
    *shared.snapshot.lock().unwrap() = Some(snapshot);
    shared.status.lock().unwrap().revision = revision;
    shared.published.notify_all();
}
