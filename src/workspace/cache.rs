//! The persistent cache on disk: one file of records per workspace root, read when a
//! workspace loads and saved after it has indexed (what a record is: `db::records`).
//!
//! Invariant: the cache is never trusted blindly and never fatal. A file that is corrupt,
//! cut short or written by another build is reported once and replaced at the next save; a
//! save that fails (a read-only or full disk) is reported and changes nothing, since a save
//! writes a temporary file and renames it over the old one. Two processes on one root take
//! turns under a lock on the directory's `lock` file, and each save merges what the other
//! saved meanwhile.

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    sync::Arc,
};

use crate::ide::{FileState, RecordCounts, RecordStore};

/// How a process has used its cache so far, for `stats` and `workspace_status`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CacheStatus {
    /// The directory of this root's cache.
    pub dir: String,
    #[serde(flatten)]
    pub counts: RecordCounts,
    /// Saves written by this process.
    pub saves: u64,
}

/// The file of records a directory holds.
const RECORDS_FILE: &str = "records";

/// Records beyond this many bytes are dropped at a save, the least recently used first.
pub const DEFAULT_MAX_BYTES: usize = 512 << 20;

/// Where and whether a workspace keeps its cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheSetting {
    /// Under the user's cache directory (`$XDG_CACHE_HOME/sextant`, else
    /// `~/.cache/sextant`), in a directory named after the root: the command line's and
    /// the servers' default.
    UserCacheDir,
    /// Under this directory, in a directory named after the root.
    In(PathBuf),
    /// No cache (a library caller's default).
    #[default]
    Off,
}

/// The cache of one workspace root.
pub struct Cache {
    dir: PathBuf,
    store: Arc<RecordStore>,
    max_bytes: usize,
    saves: std::sync::atomic::AtomicU64,
}

impl Cache {
    /// The cache of `root` (canonical) under `setting`'s directory, its file read if there
    /// is one. `None` when the setting is off or no cache directory is known.
    pub fn open(setting: &CacheSetting, root: &Path) -> Option<Cache> {
        let base = match setting {
            CacheSetting::Off => return None,
            CacheSetting::In(dir) => dir.clone(),
            CacheSetting::UserCacheDir => user_cache_dir()?.join("sextant"),
        };
        let name = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
        let dir = base.join(&name.as_str()[..16]);
        let file = fs::read(dir.join(RECORDS_FILE)).unwrap_or_default();
        Some(Cache {
            dir,
            store: Arc::new(RecordStore::read(file)),
            max_bytes: DEFAULT_MAX_BYTES,
            saves: Default::default(),
        })
    }

    /// The records, for the database.
    pub fn store(&self) -> &Arc<RecordStore> {
        &self.store
    }

    pub fn status(&self) -> CacheStatus {
        CacheStatus {
            dir: self.dir.display().to_string(),
            counts: self.store.counts(),
            saves: self.saves.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// What was first found wrong with the file, if anything, in one line (the same line
    /// however many faults follow, so that it is said once; `stats` counts them all): a file
    /// of another build is not wrong, only old.
    pub fn problem(&self) -> Option<String> {
        let path = self.dir.join(RECORDS_FILE);
        if let FileState::Corrupt(why) = self.store.state() {
            return Some(format!("{}: {why}; rebuilt", path.display()));
        }
        let faults = self.store.faults();
        let first = faults.first()?;
        Some(format!("{}: {first}; computed again", path.display()))
    }

    /// Writes the records when there is anything new to write; says whether it wrote.
    pub fn save(&self) -> Result<bool, String> {
        if !self.store.has_news() {
            return Ok(false);
        }
        let written = self
            .write()
            .map_err(|e| format!("could not save the cache in {}: {e}", self.dir.display()))?;
        self.store.saved(written);
        self.saves
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(true)
    }

    /// Writes the records file; returns what it wrote.
    fn write(&self) -> std::io::Result<Vec<u8>> {
        fs::create_dir_all(&self.dir)?;
        let _lock = lock_exclusively(&self.dir.join("lock"))?;
        // What another process saved since this one read the file.
        let newer = fs::read(self.dir.join(RECORDS_FILE))
            .ok()
            .map(RecordStore::read);
        let bytes = self.store.encode(newer.as_ref(), self.max_bytes);
        let temporary = self
            .dir
            .join(format!("{RECORDS_FILE}.{}.tmp", std::process::id()));
        let written = write_synced(&temporary, &bytes)
            .and_then(|()| fs::rename(&temporary, self.dir.join(RECORDS_FILE)));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written.map(|()| bytes)
    }
}

fn user_cache_dir() -> Option<PathBuf> {
    let set = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    set("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".cache")))
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = fs::File::create(path)?;
    if crate::testing::hooks().cache_disk_full {
        // As a full disk does: part of the file written, then the write refused.
        file.write_all(&bytes[..bytes.len() / 2])?;
        return Err(std::io::Error::from_raw_os_error(libc::ENOSPC));
    }
    file.write_all(bytes)?;
    file.sync_all()
}

/// An exclusive lock on `path` (created if missing), held until the file is dropped.
fn lock_exclusively(path: &Path) -> std::io::Result<fs::File> {
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    super::system::lock(&file, libc::LOCK_EX)?;
    Ok(file)
}
