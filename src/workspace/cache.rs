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

/// Which of this process's records a save writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saving {
    /// Every record computed until the save begins.
    AllComputed,
    /// Those [`Cache::take_for_save`] took (and any a failed save left).
    Taken,
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
    /// Held through a save: one at a time, from any thread (a server saves its first
    /// index on a thread of its own, so that its first answers need not wait for the disk).
    saving: std::sync::Mutex<()>,
    /// The problems already said (see [`Cache::save_reporting`]).
    said: std::sync::Mutex<Vec<String>>,
}

impl Cache {
    /// The cache of `root` (canonical) under `setting`'s directory, its file read if there
    /// is one. `None` when the setting is off or no cache directory is known.
    pub fn open(setting: &CacheSetting, root: &Path) -> Option<Cache> {
        let dir = setting.root_dir(None, root)?;
        let store = RecordStore::read(open_records(&dir.join(RECORDS_FILE)));
        Some(Cache {
            dir,
            store: Arc::new(store),
            max_bytes: DEFAULT_MAX_BYTES,
            saves: Default::default(),
            saving: Default::default(),
            said: Default::default(),
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

    /// Saves what is not saved yet (with [`Saving::Taken`], what was taken for it), and
    /// returns what went wrong that was not said before (a corrupt file replaced, a failed
    /// save), each problem once per process.
    pub fn save_reporting(&self, what: Saving) -> Vec<String> {
        let found = [self.problem(), self.save(what).err()];
        let mut said = self.said.lock().unwrap();
        let mut new = Vec::new();
        for problem in found.into_iter().flatten() {
            if !said.contains(&problem) {
                said.push(problem.clone());
                new.push(problem);
            }
        }
        new
    }

    /// Takes the records computed so far for a save with [`Saving::Taken`] (made on
    /// another thread: what it writes is then what was computed when this was called).
    pub fn take_for_save(&self) {
        self.store.take_for_save();
    }

    /// Writes the records when there is anything new to write; says whether it wrote.
    /// Queries read and record meanwhile; a second save waits for the first.
    pub fn save(&self, what: Saving) -> Result<bool, String> {
        let _one_at_a_time = self.saving.lock().unwrap_or_else(|e| e.into_inner());
        let news = match what {
            Saving::AllComputed => {
                self.store.take_for_save();
                self.store.has_taken_news()
            }
            Saving::Taken => self.store.has_taken_news(),
        };
        if !news {
            return Ok(false);
        }
        let written = self
            .write()
            .map_err(|e| format!("could not save the cache in {}: {e}", self.dir.display()))?;
        self.store.saved(Box::new(written));
        self.saves
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(true)
    }

    /// Writes the records file; returns it, opened for reading.
    fn write(&self) -> std::io::Result<OpenRecords> {
        if let Some(pause) = crate::testing::hooks().cache_save_pause {
            std::thread::sleep(pause);
        }
        fs::create_dir_all(&self.dir)?;
        let _lock = lock_exclusively(&self.dir.join("lock"))?;
        remove_left_over_temporaries(&self.dir);
        let path = self.dir.join(RECORDS_FILE);
        // What another process saved since this one read the file.
        let newer = RecordStore::read(open_records(&path));
        let temporary = self
            .dir
            .join(format!("{RECORDS_FILE}.{}.tmp", std::process::id()));
        let written = write_synced(&temporary, |out| {
            self.store.write(Some(&newer), self.max_bytes, out)
        })
        .and_then(|()| {
            // Opened before the rename: what this process reads is what it wrote.
            let file = fs::File::open(&temporary)?;
            fs::rename(&temporary, &path)?;
            Ok(OpenRecords(file))
        });
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }
}

/// Removes the temporary files of saves that never ended (a process killed while it
/// wrote): under the lock no save is writing one, and each is the size of a whole cache.
fn remove_left_over_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&format!("{RECORDS_FILE}.")) && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A records file, read at offsets as records are asked for. A save replaces the file by
/// renaming another over it, so what an open file holds never changes under its reader.
struct OpenRecords(fs::File);

impl crate::ide::RecordFile for OpenRecords {
    fn size(&self) -> u64 {
        self.0.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&self, offset: u64, len: usize) -> Option<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0; len];
        self.0.read_exact_at(&mut bytes, offset).ok()?;
        Some(bytes)
    }
}

/// The records file at `path`, or no records when there is none (or it cannot be opened).
fn open_records(path: &Path) -> Box<dyn crate::ide::RecordFile> {
    match fs::File::open(path) {
        Ok(file) => Box::new(OpenRecords(file)),
        Err(_) => Box::new(Vec::new()),
    }
}

impl CacheSetting {
    /// The directory this setting keeps `root`'s files in, under `within` (a kind of files
    /// of its own, such as the deep check's) when given: named after a hash of the root's
    /// path. `None` when the setting is off or no cache directory is known.
    pub fn root_dir(&self, within: Option<&str>, root: &Path) -> Option<PathBuf> {
        let mut dir = match self {
            CacheSetting::Off => return None,
            CacheSetting::In(dir) => dir.clone(),
            CacheSetting::UserCacheDir => user_cache_dir()?.join("sextant"),
        };
        if let Some(within) = within {
            dir.push(within);
        }
        let name = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
        Some(dir.join(&name.as_str()[..16]))
    }
}

fn user_cache_dir() -> Option<PathBuf> {
    let set = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    set("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|home| PathBuf::from(home).join(".cache")))
}

/// Writes a file with `write` through a buffer, and syncs it.
fn write_synced(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = fs::File::create(path)?;
    let mut out = std::io::BufWriter::new(file);
    if crate::testing::hooks().cache_disk_full {
        // As a full disk does: part of the file written, then the write refused.
        write(&mut DiskFull(&mut out, 4096))?;
    } else {
        write(&mut out)?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// A writer that takes this many more bytes, then fails as a full disk does.
struct DiskFull<'a>(&'a mut dyn Write, usize);

impl Write for DiskFull<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.1 == 0 {
            return Err(std::io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let n = bytes.len().min(self.1);
        self.1 -= n;
        self.0.write(&bytes[..n])
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
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
