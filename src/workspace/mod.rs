//! Loading a workspace from disk into the database.
//!
//! Invariant: this is the only layer that reads the disk, and the only writer of salsa
//! inputs. Queries never do I/O.

mod config;
pub mod live;
mod load;
pub mod reader;

use std::{
    collections::HashMap,
    io::IsTerminal,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use rayon::prelude::*;

pub use config::{CONFIG_FILE, Config, DEFAULT_MAX_FILE_SIZE};
pub use load::{
    LoadedFile, ReadOutcome, SkipReason, SkippedFile, decode, read_source, relative_path,
};
pub use reader::{ConfinedReader, ReadRefusal, normalize_lexically, resolves_inside};

use crate::{
    db::{RootDatabase, SourceFile, Workspace},
    lang::Language,
    semantic::{index::symbol_index, symbols::symbol_summaries},
};

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Overrides `max_file_size` from `sextant.toml`.
    pub max_file_size: Option<u64>,
    /// Globs to leave out, added to `sextant.toml`'s `exclude`.
    pub exclude: Vec<String>,
    /// Show a progress bar on stderr if it is a terminal and indexing takes a while.
    pub progress: bool,
}

/// A database loaded with a workspace, plus what loading it found out.
pub struct Host {
    pub db: RootDatabase,
    pub workspace: Workspace,
    /// The root as given (for display) and canonicalized.
    pub root: PathBuf,
    pub config: Config,
    pub skipped: Vec<SkippedFile>,
    /// Time to walk, read, parse and index every file.
    pub index_time: Duration,
    options: LoadOptions,
    /// Shared with reader snapshots; copied only when the set of files changes.
    by_path: Arc<HashMap<String, SourceFile>>,
    /// Directories the last walk entered; events under any other directory (ignored or
    /// excluded ones, like `target/` or `node_modules/`) cannot change the index.
    walked_dirs: std::collections::HashSet<String>,
    /// Texts of documents open in an editor; they win over the disk until closed.
    overlays: HashMap<String, String>,
    /// The only way this host reads the disk.
    reader: ConfinedReader,
    /// For files reached through a symlink: path → the workspace path of the real file. A
    /// change reported for the real file refreshes these paths too.
    real_paths: HashMap<String, String>,
}

/// What [`Host::apply_disk_changes`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
    /// The whole root was walked again (new files, directories, ignore rules or config).
    pub rescanned: bool,
}

/// `sextant.toml` merged with command-line overrides.
fn effective_config(reader: &ConfinedReader, options: &LoadOptions) -> Result<Config, String> {
    let mut config = Config::load(reader)?;
    if let Some(max) = options.max_file_size {
        config.max_file_size = max;
    }
    config.exclude.extend(options.exclude.iter().cloned());
    Ok(config)
}

/// Reads the walked candidates for which `should_read(rel)` holds, in parallel.
fn read_candidates(
    reader: &ConfinedReader,
    candidates: Vec<load::Candidate>,
    config: &Config,
    progress: &Progress,
    should_read: impl Fn(&str) -> bool + Sync,
) -> (Vec<LoadedFile>, Vec<SkippedFile>) {
    let mut skipped = Vec::new();
    let mut to_read = Vec::new();
    for c in candidates {
        match c {
            load::Candidate::File { abs, rel } if should_read(&rel) => to_read.push((abs, rel)),
            load::Candidate::File { .. } | load::Candidate::Dir(_) => {}
            load::Candidate::Skipped(s) => skipped.push(s),
        }
    }
    progress.phase("reading", to_read.len());
    let outcomes: Vec<ReadOutcome> = to_read
        .par_iter()
        .map(|(abs, rel)| {
            let outcome = read_source(reader, abs, rel, config.max_file_size);
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

impl Host {
    /// Walks `root`, reads and indexes every source file on all cores.
    pub fn load(root: &Path, options: &LoadOptions) -> Result<Host, String> {
        let started = Instant::now();
        let meta = std::fs::metadata(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if !meta.is_dir() {
            return Err(format!("{}: not a directory", root.display()));
        }
        let root = root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", root.display()))?;
        let reader = ConfinedReader::new(root.clone());
        let config = effective_config(&reader, options)?;
        let candidates = load::walk(&root, &config)?;
        let walked_dirs = walked_dirs(&candidates);
        let progress = Progress::new(options.progress);
        let (loaded, skipped) = read_candidates(&reader, candidates, &config, &progress, |_| true);

        let mut host = Host::from_files(root, loaded);
        host.config = config;
        host.options = options.clone();
        host.walked_dirs = walked_dirs;
        host.skipped = skipped;
        host.index(&progress);
        progress.finish();
        host.index_time = started.elapsed();
        Ok(host)
    }

    /// A database over the given files, not yet indexed (queries compute on demand).
    pub fn from_files(root: PathBuf, files: Vec<LoadedFile>) -> Host {
        let db = RootDatabase::default();
        Host::from_files_in(db, root, files)
    }

    /// Like [`Host::from_files`], in a caller-made database (tests pass one that logs events).
    pub fn from_files_in(db: RootDatabase, root: PathBuf, mut files: Vec<LoadedFile>) -> Host {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        let mut by_path = HashMap::with_capacity(files.len());
        let mut real_paths = HashMap::new();
        let inputs: Vec<SourceFile> = files
            .into_iter()
            .map(|f| {
                if let Some(real) = &f.real_path {
                    real_paths.insert(f.path.clone(), real.clone());
                }
                let file =
                    SourceFile::new(&db, f.path.clone(), f.lang, Arc::from(f.text), f.lossy_utf8);
                by_path.insert(f.path, file);
                file
            })
            .collect();
        let workspace = Workspace::new(&db, root.clone(), Arc::from(inputs));
        Host {
            db,
            workspace,
            root: root.clone(),
            config: Config::default(),
            skipped: Vec::new(),
            index_time: Duration::ZERO,
            options: LoadOptions::default(),
            by_path: Arc::new(by_path),
            walked_dirs: Default::default(),
            overlays: HashMap::new(),
            reader: ConfinedReader::new(root),
            real_paths,
        }
    }

    /// Sets (`Some`) or removes (`None`) an editor's text for `rel`. While set, the disk
    /// version is ignored; once removed, the disk decides again. Returns false for a path no
    /// registered language handles.
    pub fn set_overlay(&mut self, rel: &str, text: Option<String>) -> bool {
        // Front ends normalize paths; this is the last line of defence against `../x`.
        if !is_workspace_relative(rel) {
            return false;
        }
        match text {
            Some(text) => {
                let abs = self.root.join(rel);
                let lang = match self.by_path.get(rel) {
                    Some(file) => file.lang(&self.db),
                    None => match crate::lang::registry()
                        .for_path(&abs, text.lines().next().map(str::as_bytes))
                    {
                        Some(l) => l.lang_id,
                        None => return false,
                    },
                };
                self.overlays.insert(rel.to_string(), text.clone());
                let loaded = LoadedFile {
                    path: rel.to_string(),
                    lang,
                    text,
                    lossy_utf8: false,
                    real_path: None,
                };
                match self.by_path.get(rel) {
                    Some(&file) => {
                        self.update_text(file, loaded);
                    }
                    None => {
                        let file = SourceFile::new(
                            &self.db,
                            rel.to_string(),
                            lang,
                            Arc::from(loaded.text),
                            false,
                        );
                        Arc::make_mut(&mut self.by_path).insert(rel.to_string(), file);
                        self.publish_file_set();
                    }
                }
                true
            }
            None => {
                self.overlays.remove(rel);
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
                    || (!self.by_path.contains_key(rel) && self.under_walked_dir(rel) && {
                        let abs = self.root.join(rel);
                        // A new source file, or a directory created, removed or renamed.
                        abs.is_dir()
                            || !abs.exists()
                            || crate::lang::Registry::needs_shebang(&abs)
                            || crate::lang::registry().for_path(&abs, None).is_some()
                    })
            });
        if rescan {
            return self.rescan(&touched);
        }
        let mut applied = Applied::default();
        let mut removed = Vec::new();
        for rel in &touched {
            let Some(&file) = self.by_path.get(rel) else {
                continue;
            };
            if self.overlays.contains_key(rel) {
                continue;
            }
            match read_source(
                &self.reader,
                &self.root.join(rel),
                rel,
                self.config.max_file_size,
            ) {
                ReadOutcome::Loaded(f) => applied.changed += usize::from(self.update_text(file, f)),
                ReadOutcome::Skipped(s) => {
                    self.skipped.retain(|k| k.path != s.path);
                    self.skipped.push(s);
                    removed.push(rel.clone());
                }
                ReadOutcome::Ignored => removed.push(rel.clone()),
            }
        }
        if !removed.is_empty() {
            applied.removed = removed.len();
            for rel in &removed {
                Arc::make_mut(&mut self.by_path).remove(rel);
                self.real_paths.remove(rel);
            }
            self.publish_file_set();
        }
        applied
    }

    fn rescan(&mut self, touched: &[String]) -> Applied {
        let mut applied = Applied {
            rescanned: true,
            ..Applied::default()
        };
        let config = match effective_config(&self.reader, &self.options) {
            Ok(c) => c,
            // A half-written sextant.toml: keep the last good configuration.
            Err(_) => self.config.clone(),
        };
        let Ok(candidates) = load::walk(&self.root, &config) else {
            return applied;
        };
        self.walked_dirs = walked_dirs(&candidates);
        let present: std::collections::HashSet<String> = candidates
            .iter()
            .filter_map(|c| match c {
                load::Candidate::File { rel, .. } => Some(rel.clone()),
                load::Candidate::Skipped(_) | load::Candidate::Dir(_) => None,
            })
            .collect();
        let touched: std::collections::HashSet<&str> = touched.iter().map(String::as_str).collect();
        let known = &self.by_path;
        let (loaded, skipped) = read_candidates(
            &self.reader,
            candidates,
            &config,
            &Progress::new(false),
            |rel| !known.contains_key(rel) || touched.contains(rel),
        );
        let overlays = &self.overlays;
        let mut gone: Vec<String> = self
            .by_path
            .keys()
            .filter(|rel| !present.contains(*rel) && !overlays.contains_key(*rel))
            .cloned()
            .collect();
        gone.extend(
            skipped
                .iter()
                .filter(|s| self.by_path.contains_key(&s.path))
                .map(|s| s.path.clone()),
        );
        for rel in &gone {
            self.real_paths.remove(rel);
            if Arc::make_mut(&mut self.by_path).remove(rel).is_some() {
                applied.removed += 1;
            }
        }
        for f in loaded {
            if self.overlays.contains_key(&f.path) {
                continue;
            }
            match self.by_path.get(&f.path) {
                Some(&file) => applied.changed += usize::from(self.update_text(file, f)),
                None => {
                    self.track_real_path(&f);
                    let file = SourceFile::new(
                        &self.db,
                        f.path.clone(),
                        f.lang,
                        Arc::from(f.text),
                        f.lossy_utf8,
                    );
                    Arc::make_mut(&mut self.by_path).insert(f.path, file);
                    applied.added += 1;
                }
            }
        }
        self.config = config;
        self.skipped = skipped;
        if applied.added > 0 || applied.removed > 0 {
            self.publish_file_set();
        }
        applied
    }

    /// Whether `rel`'s directory was entered by the last walk (or is the root). A new
    /// directory's parent was; a build tree's (ignored) subdirectories were not.
    fn under_walked_dir(&self, rel: &str) -> bool {
        match rel.rsplit_once('/') {
            None => true,
            Some((dir, _)) => self.walked_dirs.contains(dir),
        }
    }

    fn track_real_path(&mut self, loaded: &LoadedFile) {
        match &loaded.real_path {
            Some(real) => self.real_paths.insert(loaded.path.clone(), real.clone()),
            None => self.real_paths.remove(&loaded.path),
        };
    }

    /// Sets a file's text (and encoding flag) if it differs; true when it did.
    fn update_text(&mut self, file: SourceFile, loaded: LoadedFile) -> bool {
        use salsa::Setter;
        self.track_real_path(&loaded);
        if **file.text(&self.db) == *loaded.text && file.lossy_utf8(&self.db) == loaded.lossy_utf8 {
            return false;
        }
        file.set_text(&mut self.db).to(Arc::from(loaded.text));
        if file.lossy_utf8(&self.db) != loaded.lossy_utf8 {
            file.set_lossy_utf8(&mut self.db).to(loaded.lossy_utf8);
        }
        if file.lang(&self.db) != loaded.lang {
            file.set_lang(&mut self.db).to(loaded.lang);
        }
        true
    }

    fn publish_file_set(&mut self) {
        use salsa::Setter;
        let mut files: Vec<(&String, &SourceFile)> = self.by_path.iter().collect();
        files.sort_by(|a, b| a.0.cmp(b.0));
        let files: Arc<[SourceFile]> = files.into_iter().map(|(_, f)| *f).collect();
        self.workspace.set_files(&mut self.db).to(files);
    }

    /// Workspace-relative path of an absolute path under the root, without touching the disk
    /// (the file may be gone).
    fn relative_lexically(&self, path: &Path) -> Option<String> {
        relative_path(&self.root, path).filter(|r| !r.is_empty())
    }

    /// Path → file map, shared with reader snapshots of the same revision.
    pub fn file_map(&self) -> Arc<HashMap<String, SourceFile>> {
        self.by_path.clone()
    }

    /// Computes every file's symbols in parallel, then the workspace symbol index.
    fn index(&self, progress: &Progress) {
        let files = self.workspace.files(&self.db).clone();
        progress.phase("indexing", files.len());
        // `RootDatabase` is `Send` but not `Sync`: each worker takes its own clone.
        let template = std::sync::Mutex::new(self.db.clone());
        files.par_iter().for_each_init(
            || template.lock().unwrap().clone(),
            |db, &file| {
                symbol_summaries(db, file);
                progress.inc();
            },
        );
        drop(template);
        symbol_index(&self.db, self.workspace);
    }

    pub fn file(&self, path: &str) -> Option<SourceFile> {
        self.by_path.get(path.trim_start_matches("./")).copied()
    }

    pub fn files(&self) -> &[SourceFile] {
        self.workspace.files(&self.db)
    }

    /// Replaces a file's text (the single writer's job; used by tests and benchmarks until
    /// the file watcher exists).
    pub fn set_file_text(&mut self, file: SourceFile, text: &str) {
        use salsa::Setter;
        file.set_text(&mut self.db).to(Arc::from(text));
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

/// A database holding just one file read through `reader` (for `parse` and `outline`, which
/// need no workspace), answering under the path `name`. `language` overrides detection by
/// extension and shebang.
pub fn load_single_file(
    reader: &ConfinedReader,
    path: &Path,
    name: &str,
    language: Option<&Language>,
    max_file_size: u64,
) -> Result<(Host, SourceFile), FileError> {
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
    let bytes = reader
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
    source_host(name.to_string(), lang, bytes)
}

/// A database holding one in-memory source (`sextant parse -` reads stdin).
pub fn source_host(
    path: String,
    lang: &Language,
    bytes: Vec<u8>,
) -> Result<(Host, SourceFile), FileError> {
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(FileError::Binary { name: path });
    }
    let (text, lossy_utf8) = decode(bytes);
    let host = Host::from_files(
        PathBuf::from("."),
        vec![LoadedFile {
            path: path.clone(),
            lang: lang.lang_id,
            text,
            lossy_utf8,
            real_path: None,
        }],
    );
    let file = host.file(&path).expect("just added");
    Ok((host, file))
}

/// Whether `rel` is a plain workspace-relative path: not absolute, no `.` or `..`
/// components, no empty segments.
fn is_workspace_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\0')
        && rel.split('/').all(|part| !matches!(part, "" | "." | ".."))
}

/// A progress bar on stderr that only appears once indexing has taken a moment, and never
/// when stderr is not a terminal.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    shown: std::sync::atomic::AtomicBool,
}

const PROGRESS_DELAY: Duration = Duration::from_millis(300);

impl Progress {
    fn new(enabled: bool) -> Progress {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::hidden(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg:8} {bar:30} {pos}/{len} files {elapsed}",
                )
                .expect("valid template"),
            );
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: false.into(),
        }
    }

    fn phase(&self, name: &'static str, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(name);
            bar.set_length(total as u64);
            bar.set_position(0);
        }
    }

    fn inc(&self) {
        let Some(bar) = &self.bar else { return };
        if !self.shown.load(std::sync::atomic::Ordering::Relaxed)
            && self.started.elapsed() > PROGRESS_DELAY
        {
            self.shown.store(true, std::sync::atomic::Ordering::Relaxed);
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.inc(1);
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
