//! The disk as a [`System`]: reads through the confined reader, walks with the `ignore`
//! crate.
//!
//! Invariant: together with `reader.rs`, the only code in `workspace` that calls the
//! operating system's file APIs, for reading and for writing (the [`WritableSystem`]
//! primitives the all-or-nothing apply is made of).

use crate::workspace::LoadError;
use std::{
    fs,
    io::{self, Write},
    path::{Path, PathBuf},
};

use super::{Candidate, FileKind, Metadata, StagedFile, System, WritableSystem};
use crate::workspace::{
    config::Config,
    load::{self, Collector, Reached},
    reader::{ConfinedReader, FileContent, ReadRefusal},
};

/// The disk under one canonical root.
#[derive(Clone, Debug)]
pub struct OsSystem {
    reader: ConfinedReader,
}

impl OsSystem {
    /// The disk under `root`, which must be canonical (see [`OsSystem::open`]). Touches
    /// nothing until asked.
    pub fn new(root: PathBuf) -> OsSystem {
        OsSystem {
            reader: ConfinedReader::new(root),
        }
    }

    /// The disk under the directory `root` (given as the user wrote it), canonicalized.
    pub fn open(root: &Path) -> Result<OsSystem, LoadError> {
        let unreadable = |source| LoadError::Root {
            path: root.to_path_buf(),
            source,
        };
        let meta = fs::metadata(root).map_err(unreadable)?;
        if !meta.is_dir() {
            return Err(LoadError::NotADirectory {
                path: root.to_path_buf(),
            });
        }
        let root = root.canonicalize().map_err(unreadable)?;
        Ok(OsSystem::new(root))
    }

    /// The system a confined reader reads (front ends that read single files make one).
    pub fn from_reader(reader: ConfinedReader) -> OsSystem {
        OsSystem { reader }
    }

    /// Creates an empty marker file (the live workspace's cookies); false when it cannot.
    pub fn create_marker(&self, path: &Path) -> bool {
        fs::File::create(path).is_ok()
    }

    /// Removes a marker file; one already gone is fine.
    pub fn remove_marker(&self, path: &Path) {
        let _ = fs::remove_file(path);
    }
}

impl System for OsSystem {
    fn root(&self) -> &Path {
        self.reader.root()
    }

    fn read(&self, path: &Path, limit: u64) -> Result<FileContent, ReadRefusal> {
        self.reader.read(path, limit)
    }

    fn metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        Ok(metadata_of(&fs::metadata(path)?))
    }

    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        Ok(metadata_of(&fs::symlink_metadata(path)?))
    }

    fn walk(&self, config: &Config) -> Result<Vec<Candidate>, LoadError> {
        let root = self.root();
        let overrides = load::overrides(root, config)?;
        let canonical_root = root.canonicalize().map_err(|source| LoadError::Root {
            path: root.to_path_buf(),
            source,
        })?;
        let collector = Collector::new(root, &canonical_root, config);
        let walker = ignore::WalkBuilder::new(root)
            .standard_filters(true)
            .require_git(false)
            .follow_links(true)
            .overrides(overrides)
            .build_parallel();
        walker.run(|| {
            let collector = &collector;
            Box::new(move |entry| {
                let descend = match entry {
                    Ok(entry) => match entry.file_type() {
                        Some(file_type) => collector.visit(
                            Ok(Reached {
                                path: entry.path(),
                                depth: entry.depth(),
                                is_dir: file_type.is_dir(),
                                is_symlink: entry.path_is_symlink(),
                            }),
                            |p| p.canonicalize().ok(),
                            |p| p.is_file(),
                        ),
                        // No file type: stdin, which a walk of a directory never yields.
                        None => true,
                    },
                    Err(err) => collector.visit(Err(err), |_| None, |_| false),
                };
                if descend {
                    ignore::WalkState::Continue
                } else {
                    ignore::WalkState::Skip
                }
            })
        });
        Ok(collector.finish())
    }
}

fn metadata_of(meta: &fs::Metadata) -> Metadata {
    let file_type = meta.file_type();
    let kind = if file_type.is_file() {
        FileKind::File
    } else if file_type.is_dir() {
        FileKind::Dir
    } else if file_type.is_symlink() {
        FileKind::Symlink
    } else {
        FileKind::Special(crate::workspace::reader::file_kind(&file_type))
    };
    Metadata {
        kind,
        len: meta.len(),
    }
}

impl WritableSystem for OsSystem {
    /// Its permissions protect it (no write bit for anyone: root too respects a file marked
    /// read-only, as agents often run as root), or this user may not write it.
    fn write_protection(&self, real_path: &Path) -> Option<String> {
        use std::os::unix::fs::PermissionsExt;
        let metadata = match fs::metadata(real_path) {
            Ok(metadata) => metadata,
            Err(error) => return Some(error.to_string()),
        };
        let mode = metadata.permissions().mode();
        if mode & 0o222 == 0 {
            return Some(format!("read-only (mode {:o})", mode & 0o7777));
        }
        let c_path = std::ffi::CString::new(real_path.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: a valid NUL-terminated path; `access` only reads it.
        if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } != 0 {
            return Some(format!("not writable: {}", io::Error::last_os_error()));
        }
        None
    }

    fn hard_links(&self, real_path: &Path) -> io::Result<u64> {
        use std::os::unix::fs::MetadataExt;
        Ok(fs::metadata(real_path)?.nlink())
    }

    /// A synced temporary file in the target's own directory, locked while this process
    /// holds it, with the target's permissions.
    fn stage(&self, real_path: &Path, bytes: &[u8]) -> io::Result<Box<dyn StagedFile + '_>> {
        let permissions = fs::metadata(real_path)?.permissions();
        stage_on_disk(real_path, bytes, permissions)
    }

    fn stage_new(
        &self,
        real_path: &Path,
        bytes: &[u8],
        mode: u32,
    ) -> io::Result<Box<dyn StagedFile + '_>> {
        use std::os::unix::fs::PermissionsExt;
        stage_on_disk(real_path, bytes, fs::Permissions::from_mode(mode))
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ReadRefusal> {
        Ok(fs::canonicalize(path)?)
    }

    fn mode(&self, real_path: &Path) -> io::Result<u32> {
        use std::os::unix::fs::PermissionsExt;
        Ok(fs::metadata(real_path)?.permissions().mode() & 0o7777)
    }

    /// Read from `/proc/self/status` rather than with `umask(2)`, which can only be read by
    /// setting it, for the whole process, racing every thread that creates a file.
    fn new_file_mode(&self) -> u32 {
        0o666 & !umask()
    }

    fn set_mode(&self, real_path: &Path, mode: u32) -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(real_path, fs::Permissions::from_mode(mode))
    }

    fn remove_file(&self, real_path: &Path) -> io::Result<()> {
        fs::remove_file(real_path)
    }

    /// `mkdir` itself fails on anything already there, a dangling symlink included.
    fn create_directory(&self, real_path: &Path) -> io::Result<()> {
        fs::create_dir(real_path)
    }

    fn remove_empty_directory(&self, real_path: &Path) -> io::Result<()> {
        fs::remove_dir(real_path)
    }

    /// A directory that cannot be opened or synced (some file systems refuse) leaves the
    /// write done but not yet durable, which is no worse than an editor's save.
    fn sync_directory(&self, real_path: &Path) {
        if let Some(directory) = real_path.parent()
            && let Ok(handle) = fs::File::open(directory)
        {
            let _ = handle.sync_all();
        }
    }
}

/// The process's umask, from the `Umask:` line of `/proc/self/status`; the usual `022`
/// where there is no such line.
fn umask() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                let value = line.strip_prefix("Umask:")?.trim();
                u32::from_str_radix(value, 8).ok()
            })
        })
        .unwrap_or(0o022)
        & 0o777
}

/// A synced temporary file in `real_path`'s directory, locked while this process holds it,
/// with `permissions`.
fn stage_on_disk(
    real_path: &Path,
    bytes: &[u8],
    permissions: fs::Permissions,
) -> io::Result<Box<dyn StagedFile>> {
    let directory = real_path.parent().unwrap_or(Path::new("."));
    remove_stale_temporaries(directory);
    let mut temporary = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .tempfile_in(directory)?;
    // Held until the file is closed, by this process only: a temporary file nobody holds
    // was left by a writer that died (kill -9 while staging).
    lock(temporary.as_file(), libc::LOCK_EX)?;
    temporary.write_all(bytes)?;
    temporary.as_file().set_permissions(permissions)?;
    temporary.as_file().sync_all()?;
    Ok(Box::new(StagedOnDisk {
        temporary,
        target: real_path.to_path_buf(),
    }))
}

/// A staged text on disk; dropped without [`StagedFile::replace`], its file is removed.
struct StagedOnDisk {
    temporary: tempfile::NamedTempFile,
    target: PathBuf,
}

impl StagedFile for StagedOnDisk {
    fn replace(self: Box<Self>) -> io::Result<()> {
        self.temporary
            .persist(&self.target)
            .map(drop)
            .map_err(|error| error.error)
    }

    /// A rename that replaces nothing (`RENAME_NOREPLACE`, or a hard link and an unlink
    /// where the file system has no such rename): the check that nothing is there and the
    /// file's appearance are one step, so nothing written meanwhile is overwritten.
    fn link_new(self: Box<Self>) -> io::Result<()> {
        self.temporary
            .persist_noclobber(&self.target)
            .map(drop)
            .map_err(|error| error.error)
    }
}

/// The name every temporary file of a write starts with; the walk never indexes such a file.
pub const TEMPORARY_PREFIX: &str = ".sextant-write-";

/// `flock(2)` on `file`; the lock goes with the file's last descriptor.
pub(crate) fn lock(file: &fs::File, operation: libc::c_int) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this `File` owns.
    match unsafe { libc::flock(file.as_raw_fd(), operation) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}

/// Removes the temporary files a killed writer left in `directory` (full copies of new
/// texts); those a live writer holds locked stay.
pub(crate) fn remove_stale_temporaries(directory: &Path) {
    let Ok(entries) = fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let is_temporary = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(TEMPORARY_PREFIX));
        let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
        if is_temporary
            && is_file
            && let Ok(file) = fs::File::open(entry.path())
            && lock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok()
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_text_replaces_its_file_or_leaves_no_trace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let file = root.join("a.py");
        fs::write(&file, "x = 1\n").unwrap();
        let system = OsSystem::new(root.clone());
        drop(system.stage(&file, b"x = 2\n").unwrap());
        let names = || -> Vec<_> {
            fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect()
        };
        assert_eq!(names(), ["a.py"]);
        assert_eq!(fs::read_to_string(&file).unwrap(), "x = 1\n");
        system.stage(&file, b"x = 3\n").unwrap().replace().unwrap();
        assert_eq!(names(), ["a.py"]);
        assert_eq!(fs::read_to_string(&file).unwrap(), "x = 3\n");
    }

    #[test]
    fn temporary_files_a_killed_writer_left_are_removed_and_held_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".sextant-write-left");
        fs::write(&stale, "x = 2\n").unwrap();
        let held = dir.path().join(".sextant-write-held");
        fs::write(&held, "x = 3\n").unwrap();
        let holder = fs::File::open(&held).unwrap();
        lock(&holder, libc::LOCK_EX).unwrap();
        remove_stale_temporaries(dir.path());
        assert!(!stale.exists());
        assert!(held.exists(), "a live writer's temporary file stays");
    }
}
