//! Loading a workspace from disk into the analysis host.
//!
//! Invariant: this is the only layer that reads the disk, and the only caller of
//! [`AnalysisHost::apply_change`]. Queries never do I/O. Every file access goes through a
//! [`System`] (the disk, or a tree in memory for tests), with editors' open documents
//! layered over it. Progress is reported as [`ProgressEvent`]s for the front end to render.

pub mod apply;
pub mod bootstrap;
mod build_outputs;
pub mod cache;
pub mod changes;
mod config;
mod error;
pub mod format;
pub mod git;
pub mod live;
mod load;
pub mod manifests;
pub mod operations;
mod process;
pub mod reader;
pub mod roots;
pub mod system;
mod texts;
pub mod typecheck;

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rayon::prelude::*;

pub use apply::{
    ApplyError, HardLinks, ModeChanged, MovedFile, Written, WrittenFile, apply_change,
    apply_change_with,
};
pub use config::{CONFIG_FILE, Config, DEFAULT_MAX_FILE_SIZE};
pub use error::LoadError;
pub use format::{
    FormatFailure, FormatPlan, FormatterSpec, FormatterTrust, Formatters, Formatting, format_file,
    plan_file,
};
pub use load::{
    LoadedFile, ReadOutcome, SkipReason, SkippedFile, decode, read_source, relative_path,
};
pub use reader::{ConfinedReader, ReadRefusal, normalize_lexically, resolves_inside};
pub use system::{
    ApplyStep, FileKind, MemorySystem, Metadata, OsSystem, OverlaySystem, StagedFile, System,
    WritableSystem,
};
pub use texts::current_texts;

use crate::{
    ide::{
        Analysis, AnalysisHost, Change, ChangeSummary, FileContent, FileId, Language, SourceChange,
    },
    lang::LangId,
};

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Overrides `max_file_size` from `sextant.toml`.
    pub max_file_size: Option<u64>,
    /// Globs to leave out, added to `sextant.toml`'s `exclude`.
    pub exclude: Vec<String>,
    /// Told how the first load advances (reading, then indexing).
    pub progress: Option<ProgressSink>,
    /// Also compute every file's diagnostics while indexing it, so that its tree is parsed
    /// once for both (what `sextant check` asks for next).
    pub check_on_load: bool,
    /// A live workspace computes every file's diagnostics in the background once it has
    /// indexed, and again after each change, so that a whole-workspace check answers from
    /// memoized results (the servers' default).
    pub check_in_background: bool,
    /// The server writes nothing in the workspace (`--read-only`): the read-your-writes
    /// markers go to a private directory outside the root instead of `.git/` or the root.
    pub read_only: bool,
    /// Leave each file's parse to the first query that needs it instead of indexing every
    /// file on all cores while loading: for commands that read only the file list and the
    /// texts (`files`, `tokens`), which would otherwise wait for a parse they never use.
    pub lazy: bool,
    /// Where the persistent cache is kept (`cache.rs`), if anywhere.
    pub cache: cache::CacheSetting,
    /// Overrides `max_memory` from `sextant.toml` (`--max-memory`, docs/memory.md).
    pub max_memory: Option<u64>,
    /// Told what the first load has indexed so far, for answers while it runs: once every
    /// file is read, and then `None` once indexing is over (so that the snapshot it handed
    /// out is dropped before the host changes).
    pub indexing: Option<IndexingSink>,
    /// Stops the load midway when its owner no longer wants it (see [`LoadStop`]).
    pub stop: Option<LoadStop>,
}

/// Stops a first load midway: set by its owner (a live workspace dropped while it loads, a
/// removed workspace folder), the load then ends at its next step with
/// [`LoadError::Stopped`]: before or between reading files, inside indexing (whose queries
/// are cancelled), or in a test hook's pause.
#[derive(Clone, Default)]
pub struct LoadStop(Arc<live::RequestCancel>);

impl LoadStop {
    pub fn stop(&self) {
        self.0.cancel();
    }

    pub fn is_stopped(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Sleeps for `pause` in short steps, ending early once the load is stopped.
    fn sleep(&self, pause: Duration) {
        let until = Instant::now() + pause;
        while !self.is_stopped() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            std::thread::sleep(left.min(Duration::from_millis(20)));
        }
    }
}

impl std::fmt::Debug for LoadStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LoadStop({})", self.is_stopped())
    }
}

/// What a first load has indexed so far (see [`LoadOptions::indexing`]).
#[derive(Clone)]
pub struct PartialIndex {
    /// The workspace being indexed, every file read: the revision the finished index
    /// publishes first, so a query that reads no index the load is still building (one
    /// file's outline, text, skeleton) answers on it exactly what it answers then.
    pub snapshot: live::Snapshot,
    /// How many shards of the symbol index, from the first, are built.
    pub shards: Arc<std::sync::atomic::AtomicU32>,
}

impl PartialIndex {
    pub fn shards_built(&self) -> u32 {
        self.shards.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether `shards` shards hold every file of the workspace.
    pub fn covers_every_file(&self, shards: u32) -> bool {
        self.indexed(shards).files_indexed >= self.snapshot.analysis.file_count()
    }

    /// How much of the workspace the first `shards` shards of the symbol index hold.
    pub fn indexed(&self, shards: u32) -> Indexed {
        let analysis = &self.snapshot.analysis;
        Indexed {
            files_indexed: analysis.files_in_shards(shards),
            files_total: analysis.file_count(),
        }
    }
}

/// How much of the workspace the symbol index holds while the first index runs (what a
/// partial answer searched).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Indexed {
    /// Files whose symbols are indexed (the first ones in path order).
    pub files_indexed: usize,
    pub files_total: usize,
}

#[derive(Clone)]
pub struct IndexingSink(pub Arc<dyn Fn(Option<PartialIndex>) + Send + Sync>);

impl std::fmt::Debug for IndexingSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IndexingSink")
    }
}

/// One step of loading: `done` of `total` files through `phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ProgressEvent {
    pub phase: LoadPhase,
    pub done: usize,
    pub total: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadPhase {
    Reading,
    Indexing,
}

impl LoadPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadPhase::Reading => "reading",
            LoadPhase::Indexing => "indexing",
        }
    }
}

/// Where progress events go (a terminal bar, LSP `$/progress`, the live status).
#[derive(Clone)]
pub struct ProgressSink(pub Arc<dyn Fn(ProgressEvent) + Send + Sync>);

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Counts files through a phase and reports each step to the sink.
struct Progress<'a> {
    sink: Option<&'a ProgressSink>,
    phase: LoadPhase,
    total: usize,
    done: std::sync::atomic::AtomicUsize,
}

impl<'a> Progress<'a> {
    fn new(sink: Option<&'a ProgressSink>, phase: LoadPhase, total: usize) -> Progress<'a> {
        let progress = Progress {
            sink,
            phase,
            total,
            done: 0.into(),
        };
        progress.report(0);
        progress
    }

    fn inc(&self) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.report(done);
    }

    fn report(&self, done: usize) {
        if let Some(sink) = self.sink {
            (sink.0)(ProgressEvent {
                phase: self.phase,
                done,
                total: self.total,
            });
        }
    }
}

/// The analysis host loaded with a workspace, plus what loading it found out.
pub struct Host {
    analysis: AnalysisHost,
    /// The root as given (for display) and canonicalized.
    pub root: PathBuf,
    pub config: Config,
    pub skipped: Vec<SkippedFile>,
    /// Time to walk, read, parse and index every file.
    pub index_time: Duration,
    options: LoadOptions,
    /// Directories the last walk entered; events under any other directory (ignored or
    /// excluded ones, like `target/` or `node_modules/`) cannot change the index.
    walked_dirs: std::collections::HashSet<String>,
    /// The only way this host reaches files: the workspace's system, with the documents
    /// open in an editor over it (they win over the system's files until closed).
    system: OverlaySystem,
    /// For files reached through a symlink: path → the workspace path of the real file. A
    /// change reported for the real file refreshes these paths too.
    real_paths: HashMap<String, String>,
    /// Second paths to indexed files (see [`split_aliases`]): alias → the indexed path.
    aliases: HashMap<String, String>,
    /// Why `sextant.toml` could not be used when it last changed; the configuration before
    /// it stays in force meanwhile.
    pub config_error: Option<String>,
    /// The persistent cache, when kept (shared with a live workspace's status).
    cache: Option<Arc<cache::Cache>>,
}

/// What [`Host::apply_disk_changes`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    /// Project files added, changed or removed.
    pub manifests: usize,
    /// The whole root was walked again (new files, directories, ignore rules or config).
    pub rescanned: bool,
}

impl Applied {
    fn new(summary: ChangeSummary, rescanned: bool) -> Applied {
        Applied {
            changed: summary.changed,
            added: summary.added,
            removed: summary.removed,
            manifests: summary.manifests,
            rescanned,
        }
    }
}

/// `sextant.toml` merged with command-line overrides.
fn effective_config(system: &dyn System, options: &LoadOptions) -> Result<Config, LoadError> {
    let mut config = Config::load(system)?;
    if let Some(max) = options.max_file_size {
        config.max_file_size = max;
    }
    if let Some(max) = options.max_memory {
        config.max_memory = Some(max);
    }
    config.exclude.extend(options.exclude.iter().cloned());
    Ok(config)
}

/// Reads the walked candidates for which `should_read(rel)` holds, in parallel.
fn read_candidates(
    system: &dyn System,
    candidates: Vec<load::Candidate>,
    config: &Config,
    progress: Option<&ProgressSink>,
    should_read: impl Fn(&str) -> bool + Sync,
    stopped: &(dyn Fn() -> bool + Sync),
) -> (Vec<LoadedFile>, Vec<SkippedFile>) {
    let mut skipped = Vec::new();
    let mut to_read = Vec::new();
    for c in candidates {
        match c {
            load::Candidate::File { abs, rel } if should_read(&rel) => to_read.push((abs, rel)),
            load::Candidate::File { .. }
            | load::Candidate::Dir(_)
            | load::Candidate::Manifest(_) => {}
            load::Candidate::Skipped(s) => skipped.push(s),
        }
    }
    let progress = Progress::new(progress, LoadPhase::Reading, to_read.len());
    let outcomes: Vec<ReadOutcome> = to_read
        .par_iter()
        .map(|(abs, rel)| {
            if stopped() {
                return ReadOutcome::Ignored;
            }
            let outcome = read_source(system, abs, rel, config.max_file_size);
            progress.inc();
            outcome
        })
        .collect();
    let mut loaded = Vec::new();
    for outcome in outcomes {
        match outcome {
            ReadOutcome::Loaded(f) => loaded.push(f),
            ReadOutcome::Skipped(s) => skipped.push(s),
            ReadOutcome::Ignored => {}
        }
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    (loaded, skipped)
}

/// Leaves out the files that are second paths to a file indexed anyway: a symlink to a
/// file, or a file under a symlinked directory, whose real file `loaded` holds or
/// `stays_indexed` says is kept. A file reached only through a link (its real location
/// ignored) stays, under the link's path. Returns the files to index and the aliases
/// (alias → indexed path), each also reported as skipped.
fn split_aliases(
    loaded: Vec<LoadedFile>,
    stays_indexed: impl Fn(&str) -> bool,
) -> (Vec<LoadedFile>, Vec<(String, String)>) {
    let paths: std::collections::HashSet<String> =
        loaded.iter().map(|file| file.path.clone()).collect();
    let mut kept = Vec::with_capacity(loaded.len());
    let mut aliases = Vec::new();
    for file in loaded {
        match &file.real_path {
            Some(real) if paths.contains(real) || stays_indexed(real) => {
                aliases.push((file.path, real.clone()));
            }
            _ => kept.push(file),
        }
    }
    (kept, aliases)
}

fn alias_skipped(alias: &str, real: &str) -> SkippedFile {
    SkippedFile {
        path: alias.to_string(),
        reason: SkipReason::SameFile,
        detail: format!("the same file as {real}"),
    }
}

fn walked_dirs(candidates: &[load::Candidate]) -> std::collections::HashSet<String> {
    candidates
        .iter()
        .filter_map(|c| match c {
            load::Candidate::Dir(rel) => Some(rel.clone()),
            _ => None,
        })
        .collect()
}

/// Files whose change can alter which files are indexed.
fn affects_file_set(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    matches!(name, ".gitignore" | ".ignore" | CONFIG_FILE) || rel == ".git/info/exclude"
}

/// The test hook `SEXTANT_TEST_INDEX_SHARD_PAUSE_MS`: to its readers, the first index
/// takes `pause` longer per shard. Each shard is told built `pause` after the one before
/// it, one at a time even when several are completed together (a later shard, smaller,
/// may be built first), and the load ends when the last is told; the thread pool is not
/// held meanwhile (a thread sleeping in it would hold up the parallel work of the
/// questions answered while the index runs, a test's artefact).
struct SlowedShards {
    pause: Duration,
    /// When the last shard told of is told built, and how many shards are told by then.
    last: Mutex<(Instant, u32)>,
}

impl SlowedShards {
    fn new(pause: Duration) -> SlowedShards {
        SlowedShards {
            pause,
            last: Mutex::new((Instant::now(), 0)),
        }
    }

    fn tell_later(&self, shards: &Arc<std::sync::atomic::AtomicU32>, built: u32) {
        let mut last = self.last.lock().unwrap();
        let (mut at, told) = *last;
        for shard in told + 1..=built {
            at = at.max(Instant::now()) + self.pause;
            let shards = shards.clone();
            std::thread::spawn(move || {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                shards.fetch_max(shard, std::sync::atomic::Ordering::Release);
            });
        }
        *last = (at, told.max(built));
    }

    fn wait_for_the_last(&self, stop: &LoadStop) {
        let (last, _) = *self.last.lock().unwrap();
        stop.sleep(last.saturating_duration_since(Instant::now()));
    }
}

/// What a command computed, loading included, is kept for the next start when it ends (a
/// server also saves after its first index and when idle: `live.rs`).
impl Drop for Host {
    fn drop(&mut self) {
        for problem in self.save_cache() {
            eprintln!("sextant: warning: {problem}");
        }
    }
}

impl Host {
    /// Walks the directory `root` on disk, reads and indexes every source file on all
    /// cores.
    pub fn load(root: &Path, options: &LoadOptions) -> Result<Host, LoadError> {
        let started = Instant::now();
        let system = OsSystem::open(root)?;
        let mut host = Host::load_with(Arc::new(system), options)?;
        host.index_time = started.elapsed();
        Ok(host)
    }

    /// Walks the root of `system`, reads and indexes every source file on all cores.
    pub fn load_with(
        system: Arc<dyn WritableSystem>,
        options: &LoadOptions,
    ) -> Result<Host, LoadError> {
        let started = Instant::now();
        let root = system.root().to_path_buf();
        let stopped = || options.stop.as_ref().is_some_and(LoadStop::is_stopped);
        let config = effective_config(&*system, options)?;
        let candidates = system.walk(&config)?;
        let found_manifests = manifests::found(&candidates);
        let walked_dirs = walked_dirs(&candidates);
        let progress = options.progress.as_ref();
        let (loaded, mut skipped) =
            read_candidates(&*system, candidates, &config, progress, |_| true, &stopped);
        if stopped() {
            return Err(LoadError::Stopped);
        }
        let (loaded, aliases) = split_aliases(loaded, |_| false);

        let mut host = Host::from_files_over(system, AnalysisHost::new(root.clone()), root, loaded);
        host.cache = cache::Cache::open(&options.cache, &host.root).map(Arc::new);
        host.analysis
            .set_records(host.cache.as_ref().map(|c| c.store().clone()));
        host.analysis.set_check_settings(config.check.clone());
        host.analysis.set_memory_limit(config.max_memory);
        host.config = config;
        host.options = options.clone();
        host.walked_dirs = walked_dirs;
        host.set_aliases(aliases, &mut skipped);
        host.skipped = skipped;
        host.load_manifests(found_manifests);
        if !options.lazy {
            let total = host.analysis.file_count();
            let indexing = Progress::new(progress, LoadPhase::Indexing, total);
            // Identifiers wait for a reference search, or a server's background check.
            let priming = crate::ide::Priming {
                identifiers: false,
                diagnostics: options.check_on_load,
            };
            let shards = Arc::new(std::sync::atomic::AtomicU32::new(0));
            if let Some(sink) = &options.indexing {
                (sink.0)(Some(PartialIndex {
                    snapshot: live::Snapshot::of(&host, 0),
                    shards: shards.clone(),
                }));
            }
            let slowed = crate::testing::hooks()
                .index_shard_pause
                .map(SlowedShards::new);
            let paused = crate::testing::hooks()
                .load_pause
                .as_ref()
                .filter(|(name, _)| crate::testing::named(&host.root, name))
                .map(|(_, pause)| *pause);
            let on_shard = |built: u32| {
                // Paused: the first shard alone is told built until the pause is over.
                let built = if paused.is_some() {
                    built.min(1)
                } else {
                    built
                };
                match &slowed {
                    Some(slowed) => slowed.tell_later(&shards, built),
                    None => shards.store(built, std::sync::atomic::Ordering::Release),
                }
            };
            // Only readers of the partial index hold this host's snapshots, and they never
            // write: the priming is cancelled only when the load is stopped.
            let analysis = host.analysis();
            let stop = options.stop.clone().unwrap_or_default();
            stop.0.watch(analysis.cancellation_token());
            let _ = analysis.prime_caches_by_shard(priming, &|_| indexing.inc(), &on_shard);
            drop(analysis);
            if let Some(slowed) = &slowed {
                slowed.wait_for_the_last(&stop);
            }
            if let Some(pause) = paused {
                stop.sleep(pause);
            }
            if let Some(sink) = &options.indexing {
                (sink.0)(None);
            }
            if stopped() {
                return Err(LoadError::Stopped);
            }
        }
        host.index_time = started.elapsed();
        Ok(host)
    }

    /// Saves what the persistent cache has not saved yet (nothing when it is off). Returns
    /// what went wrong that was not said before (a corrupt file replaced, a failed save).
    pub fn save_cache(&self) -> Vec<String> {
        self.cache.as_ref().map_or_else(Vec::new, |cache| {
            cache.save_reporting(cache::Saving::AllComputed)
        })
    }

    /// How this process used the persistent cache, and where it is; `None` when it is off.
    pub fn cache_status(&self) -> Option<cache::CacheStatus> {
        self.cache.as_deref().map(cache::Cache::status)
    }

    /// The persistent cache, when kept.
    pub fn cache(&self) -> Option<&Arc<cache::Cache>> {
        self.cache.as_ref()
    }

    /// A host over the given files, not yet indexed (queries compute on demand).
    pub fn from_files(root: PathBuf, files: Vec<LoadedFile>) -> Host {
        Host::from_files_in(AnalysisHost::new(root.clone()), root, files)
    }

    /// Like [`Host::from_files`], in a caller-made analysis host (tests pass one whose
    /// database logs events).
    pub fn from_files_in(analysis: AnalysisHost, root: PathBuf, files: Vec<LoadedFile>) -> Host {
        let system = Arc::new(OsSystem::new(root.clone()));
        Host::from_files_over(system, analysis, root, files)
    }

    fn from_files_over(
        system: Arc<dyn WritableSystem>,
        analysis: AnalysisHost,
        root: PathBuf,
        files: Vec<LoadedFile>,
    ) -> Host {
        let mut host = Host {
            analysis,
            root: root.clone(),
            config: Config::default(),
            skipped: Vec::new(),
            index_time: Duration::ZERO,
            options: LoadOptions::default(),
            walked_dirs: Default::default(),
            system: OverlaySystem::new(system),
            real_paths: HashMap::new(),
            aliases: HashMap::new(),
            config_error: None,
            cache: None,
        };
        let mut change = Change::default();
        for f in files {
            host.track_real_path(&f);
            change.set_file(f.path, content(f.lang, f.text, f.lossy_utf8));
        }
        host.analysis.apply_change(change);
        host
    }

    /// Sets (`Some`) or removes (`None`) an editor's text for `rel`. While set, the disk
    /// version is ignored; once removed, the disk decides again. Returns false for a path no
    /// registered language handles.
    pub fn set_overlay(&mut self, rel: &str, text: Option<String>) -> bool {
        // Front ends normalize paths; this is the last line of defence against `../x`.
        if !is_workspace_relative(rel) {
            return false;
        }
        // An editor that opened a second path to an indexed file edits that file.
        let rel = &self.indexed_path(rel).to_string();
        match text {
            Some(text) => {
                let abs = self.root.join(rel);
                let lang = match self.analysis.file(rel) {
                    Some(file) => self.analysis.file_language(file),
                    None => match crate::lang::registry()
                        .for_path(&abs, text.lines().next().map(str::as_bytes))
                    {
                        Some(l) => l.lang_id,
                        None => return false,
                    },
                };
                self.system.open(rel, text.clone(), lang);
                self.real_paths.remove(rel);
                let mut change = Change::default();
                change.set_file(rel, content(lang, text.into(), false));
                self.analysis.apply_change(change);
                true
            }
            None => {
                self.system.close(rel);
                let abs = self.root.join(rel);
                self.apply_disk_changes(&[abs], false);
                true
            }
        }
    }

    /// Brings the database in line with the disk after the watcher reported `paths` (absolute,
    /// created, modified, removed or renamed). Known files are reread; anything that may
    /// change the set of files (a new file, a directory, an ignore file, `sextant.toml`)
    /// walks the root again, reading only new and touched files. A file that vanished
    /// mid-read is simply gone.
    pub fn apply_disk_changes(&mut self, paths: &[PathBuf], force_rescan: bool) -> Applied {
        let mut touched: Vec<String> = paths
            .iter()
            .filter_map(|p| self.relative_lexically(p))
            .collect();
        // Paths that reach a touched file through a symlink changed with it.
        if !self.real_paths.is_empty() {
            let touched_set: std::collections::HashSet<&String> = touched.iter().collect();
            let links: Vec<String> = self
                .real_paths
                .iter()
                .filter(|(_, real)| touched_set.contains(real))
                .map(|(link, _)| link.clone())
                .collect();
            touched.extend(links);
        }
        touched.sort();
        touched.dedup();
        let rescan = force_rescan
            || touched.iter().any(|rel| {
                (affects_file_set(rel)
                    && (self.under_walked_dir(rel) || rel == ".git/info/exclude"))
                    || self.marks_build_output(rel)
                    || self.is_new_manifest(rel)
                    || (!self.analysis.contains(rel) && self.under_walked_dir(rel) && {
                        let abs = self.root.join(rel);
                        // A new source file, or a directory created, removed or renamed.
                        self.system.is_dir(&abs)
                            || !self.system.exists(&abs)
                            || crate::lang::Registry::needs_shebang(&abs)
                            || crate::lang::registry().for_path(&abs, None).is_some()
                    })
            });
        if rescan {
            return self.rescan(&touched);
        }
        let mut change = Change::default();
        for rel in &touched {
            // An open document reads as the editor's text: the disk's is ignored.
            if !self.analysis.contains(rel) {
                continue;
            }
            match read_source(
                &self.system,
                &self.root.join(rel),
                rel,
                self.config.max_file_size,
            ) {
                ReadOutcome::Loaded(f) => {
                    self.track_real_path(&f);
                    change.set_file(f.path, content(f.lang, f.text, f.lossy_utf8));
                }
                ReadOutcome::Skipped(s) => {
                    self.skipped.retain(|k| k.path != s.path);
                    self.skipped.push(s);
                    self.real_paths.remove(rel);
                    change.remove_file(rel.clone());
                }
                ReadOutcome::Ignored => {
                    self.real_paths.remove(rel);
                    change.remove_file(rel.clone());
                }
            }
        }
        let touched_set = touched.iter().map(String::as_str).collect();
        self.refresh_manifests(None, &touched_set, &mut change);
        Applied::new(self.analysis.apply_change(change), false)
    }

    /// The configuration `sextant.toml` gives now, and the walk by it. One that cannot be
    /// used (a half-written file, a bad glob) is kept in `config_error` for the front ends to
    /// show, and the last good configuration walks instead. `None` if the walk fails.
    fn walk_by_config(&mut self) -> Option<(Config, Vec<load::Candidate>)> {
        let fresh = effective_config(&self.system, &self.options)
            .and_then(|config| Ok((self.system.walk(&config)?, config)));
        match fresh {
            Ok((candidates, config)) => {
                self.config_error = None;
                Some((config, candidates))
            }
            Err(e) if e.is_config() => {
                self.config_error = Some(e.to_string());
                let config = self.config.clone();
                let candidates = self.system.walk(&config).ok()?;
                Some((config, candidates))
            }
            Err(_) => None,
        }
    }

    fn rescan(&mut self, touched: &[String]) -> Applied {
        // Open documents are among the candidates, whatever the rules say of their paths.
        let Some((config, candidates)) = self.walk_by_config() else {
            return Applied {
                rescanned: true,
                ..Applied::default()
            };
        };
        self.walked_dirs = walked_dirs(&candidates);
        let found_manifests = manifests::found(&candidates);
        let present: std::collections::HashSet<String> = candidates
            .iter()
            .filter_map(|c| match c {
                load::Candidate::File { rel, .. } => Some(rel.clone()),
                load::Candidate::Skipped(_)
                | load::Candidate::Dir(_)
                | load::Candidate::Manifest(_) => None,
            })
            .collect();
        let touched: std::collections::HashSet<&str> = touched.iter().map(String::as_str).collect();
        // The host is not `Sync`; the parallel readers consult a plain set.
        let known: std::collections::HashSet<&str> = self.analysis.paths().collect();
        // A new size limit applies to every file, not only to those read anyway.
        let reread_all = config.max_file_size != self.config.max_file_size;
        let (loaded, mut skipped) = read_candidates(
            &self.system,
            candidates,
            &config,
            None,
            |rel| reread_all || !known.contains(rel) || touched.contains(rel),
            &|| false,
        );
        let mut gone: Vec<String> = self
            .analysis
            .paths()
            .filter(|rel| !present.contains(*rel))
            .map(str::to_string)
            .collect();
        gone.extend(
            skipped
                .iter()
                .filter(|s| self.analysis.contains(&s.path))
                .map(|s| s.path.clone()),
        );
        let stays_indexed = |rel: &str| {
            known.contains(rel) && present.contains(rel) && !gone.iter().any(|g| g == rel)
        };
        let (loaded, mut aliases) = split_aliases(loaded, stays_indexed);
        // A link indexed while its real file was not (ignored, or not there yet) becomes an
        // alias once the real file is indexed.
        let loaded_paths: std::collections::HashSet<&str> =
            loaded.iter().map(|f| f.path.as_str()).collect();
        for (link, real) in &self.real_paths {
            if known.contains(link.as_str())
                && !gone.contains(link)
                && (loaded_paths.contains(real.as_str()) || stays_indexed(real))
            {
                aliases.push((link.clone(), real.clone()));
            }
        }
        gone.extend(aliases.iter().map(|(alias, _)| alias.clone()));
        self.set_aliases(aliases, &mut skipped);
        let mut change = Change::default();
        for rel in gone {
            self.real_paths.remove(&rel);
            change.remove_file(rel);
        }
        for f in loaded {
            self.track_real_path(&f);
            change.set_file(f.path, content(f.lang, f.text, f.lossy_utf8));
        }
        self.analysis.set_check_settings(config.check.clone());
        self.analysis.set_memory_limit(config.max_memory);
        self.config = config;
        self.skipped = skipped;
        self.refresh_manifests(Some(found_manifests), &touched, &mut change);
        Applied::new(self.analysis.apply_change(change), true)
    }

    /// Whether `rel`'s directory was entered by the last walk (or is the root). A new
    /// directory's parent was; a build tree's (ignored) subdirectories were not.
    /// A build output's marker was added to a walked directory, or removed from one the
    /// walk left out for it (whose parent was walked).
    fn marks_build_output(&self, rel: &str) -> bool {
        let Some((dir, name)) = rel.rsplit_once('/') else {
            return false;
        };
        build_outputs::MARKER_FILES.contains(&name)
            && (self.walked_dirs.contains(dir) || self.under_walked_dir(dir))
    }

    fn under_walked_dir(&self, rel: &str) -> bool {
        match rel.rsplit_once('/') {
            None => true,
            Some((dir, _)) => self.walked_dirs.contains(dir),
        }
    }

    /// Records the aliases a walk found, each reported as skipped (sorted by path).
    fn set_aliases(&mut self, aliases: Vec<(String, String)>, skipped: &mut Vec<SkippedFile>) {
        skipped.extend(
            aliases
                .iter()
                .map(|(alias, real)| alias_skipped(alias, real)),
        );
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        self.aliases = aliases.into_iter().collect();
    }

    /// The indexed path of `rel`: itself, or the file it is a second path to.
    pub fn indexed_path<'a>(&'a self, rel: &'a str) -> &'a str {
        self.aliases.get(rel).map_or(rel, String::as_str)
    }

    /// Second paths to indexed files: alias → the indexed path.
    pub fn aliases(&self) -> &HashMap<String, String> {
        &self.aliases
    }

    fn track_real_path(&mut self, loaded: &LoadedFile) {
        match &loaded.real_path {
            Some(real) => self.real_paths.insert(loaded.path.clone(), real.clone()),
            None => self.real_paths.remove(&loaded.path),
        };
    }

    /// Workspace-relative path of an absolute path under the root, without touching the disk
    /// (the file may be gone).
    fn relative_lexically(&self, path: &Path) -> Option<String> {
        relative_path(&self.root, path).filter(|r| !r.is_empty())
    }

    /// A snapshot of the current revision.
    /// What a new agent session needs to know of the workspace (see [`bootstrap`]).
    pub fn bootstrap(
        &self,
        budget: &crate::ide::Budget,
    ) -> Result<bootstrap::Bootstrap, crate::ide::Cancelled> {
        let facts = self.analysis().bootstrap_facts()?;
        Ok(bootstrap::bootstrap(
            &self.system,
            &self.root,
            facts,
            budget,
            Default::default(),
        ))
    }

    pub fn analysis(&self) -> Analysis {
        self.analysis.analysis()
    }

    /// The system this host reads (below the editors' documents).
    pub fn system(&self) -> &Arc<dyn WritableSystem> {
        self.system.base()
    }

    /// Writes `change` through this host's system, all files or none, reading each file
    /// with the size limit the index read it with. The write goes to the system below the
    /// editors' open documents, and each file's hash is checked against the bytes there.
    pub fn write_change(&self, change: &SourceChange) -> Result<Written, ApplyError> {
        self.write_change_with(change, HardLinks::Refuse)
    }

    /// [`Host::write_change`], with files that have other hard links treated as `links`
    /// says.
    pub fn write_change_with(
        &self,
        change: &SourceChange,
        links: HardLinks,
    ) -> Result<Written, ApplyError> {
        let system = &**self.system.base();
        apply_change_with(system, change, self.config.max_file_size, links)
    }

    /// The writes named by an `operation_id` on this root (see [`operations`]).
    pub fn operations(&self) -> operations::Operations {
        operations::Operations::open(&self.options.cache, &self.root)
    }

    /// The text on disk now of each of `paths` that exists (see [`current_texts`]).
    pub fn current_texts<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<std::collections::BTreeMap<String, crate::ide::FileText>, ApplyError> {
        current_texts(&**self.system.base(), paths, self.config.max_file_size)
    }

    /// The directories below the root the last walk entered, workspace-relative.
    pub fn walked_directories(&self) -> impl Iterator<Item = &str> {
        self.walked_dirs.iter().map(String::as_str)
    }

    /// Drops memoized answers beyond their caches' bounds; see [`AnalysisHost::evict_unused`].
    pub fn evict_unused(&mut self) {
        self.analysis.evict_unused();
    }

    /// The analysis host itself (tests and benchmarks drive the database through it).
    pub fn analysis_host(&self) -> &AnalysisHost {
        &self.analysis
    }

    pub fn file(&self, path: &str) -> Option<FileId> {
        self.analysis.file(path.trim_start_matches("./"))
    }

    /// Replaces a file's text as if an editor or the disk had changed it (tests and
    /// benchmarks).
    pub fn set_file_text(&mut self, path: &str, text: &str) {
        let file = self.analysis.file(path).expect("a known file");
        let lang = self.analysis.file_language(file);
        let mut change = Change::default();
        change.set_file(path, content(lang, text.into(), false));
        self.analysis.apply_change(change);
    }
}

fn content(lang: LangId, text: Arc<str>, lossy_utf8: bool) -> FileContent {
    FileContent {
        lang,
        text,
        lossy_utf8,
    }
}

/// Why a single file could not be loaded for analysis.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{name}: {refusal}")]
    Refused { name: String, refusal: ReadRefusal },
    #[error("{name}: unknown language (known: {})", crate::lang::registry().ids().join(", "))]
    UnknownLanguage { name: String },
    #[error("{name}: binary file (contains NUL bytes)")]
    Binary { name: String },
}

/// An analysis of just one file read through `reader` (for `parse` and `outline` of a file
/// the index left out, or outside any workspace), answering under the path `name`.
/// `language` overrides detection by extension and shebang.
pub fn standalone_file(
    reader: &ConfinedReader,
    path: &Path,
    name: &str,
    language: Option<&Language>,
    max_file_size: u64,
) -> Result<(Analysis, FileId), FileError> {
    let system = OsSystem::from_reader(reader.clone());
    standalone_file_in(&system, path, name, language, max_file_size)
}

/// [`standalone_file`] read through any system.
pub fn standalone_file_in(
    system: &dyn System,
    path: &Path,
    name: &str,
    language: Option<&Language>,
    max_file_size: u64,
) -> Result<(Analysis, FileId), FileError> {
    let registry = crate::lang::registry();
    // Known from the extension alone: no need to read a file that cannot be analysed.
    if language.is_none()
        && !crate::lang::Registry::needs_shebang(path)
        && registry.for_path(path, None).is_none()
    {
        return Err(FileError::UnknownLanguage {
            name: name.to_string(),
        });
    }
    let bytes = system
        .read(path, max_file_size)
        .map_err(|refusal| FileError::Refused {
            name: name.to_string(),
            refusal,
        })?
        .bytes;
    let first_line = bytes.split(|&b| b == b'\n').next();
    let lang = match language {
        Some(l) => l,
        None => registry
            .for_path(path, first_line)
            .ok_or_else(|| FileError::UnknownLanguage {
                name: name.to_string(),
            })?,
    };
    standalone_source(name.to_string(), lang, bytes)
}

/// An analysis of one in-memory source (`sextant parse -` reads stdin; MCP `parse_source`).
pub fn standalone_source(
    path: String,
    lang: &Language,
    bytes: Vec<u8>,
) -> Result<(Analysis, FileId), FileError> {
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(FileError::Binary { name: path });
    }
    let (text, lossy_utf8) = decode(bytes);
    let mut host = AnalysisHost::new(PathBuf::from("."));
    let mut change = Change::default();
    change.set_file(path.clone(), content(lang.lang_id, text.into(), lossy_utf8));
    host.apply_change(change);
    let file = host.file(&path).expect("just added");
    Ok((host.analysis(), file))
}

/// Whether `rel` is a plain workspace-relative path: not absolute, no `.` or `..`
/// components, no empty segments.
fn is_workspace_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\0')
        && rel.split('/').all(|part| !matches!(part, "" | "." | ".."))
}
