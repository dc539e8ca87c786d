//! The file-system seam: everything the workspace layer asks of a file system.
//!
//! Invariant: `workspace` reaches files only through a [`System`]. A system is confined to
//! one canonical root: [`System::read`] refuses anything whose real path lies outside it,
//! and [`System::walk`] yields the candidates of that root under the same ignore rules
//! whatever stores the files. Three implementations:
//! - [`OsSystem`]: the disk, through the confined reader and the `ignore` crate's walk;
//! - [`MemorySystem`]: a tree held in memory (files, directories, symlinks, special
//!   files), with the same ignore semantics, for deterministic tests;
//! - [`OverlaySystem`]: editors' open documents layered over another system; a document's
//!   text wins over what the system below holds until it is closed.
//!
//! [`WritableSystem`] is the write side: the primitives the all-or-nothing apply
//! (`workspace/apply.rs`) is made of: stage a new text beside a file, then replace the file
//! with it or put it where nothing is (never over anything); remove a file, change its
//! mode, create a directory and remove an empty one. The disk does it with synced
//! temporary files, renames, links and plain system calls; the memory system does it in
//! its map, gives each file a mode, and can fail any step on request
//! ([`MemorySystem::fail_at`]), so the rollback is tested without a disk.

mod memory;
mod os;
pub(crate) use os::lock;
mod overlay;

use crate::workspace::LoadError;
use std::{io, path::Path};

pub use memory::MemorySystem;
pub(crate) use os::remove_stale_temporaries;
pub use os::{OsSystem, TEMPORARY_PREFIX};
pub use overlay::OverlaySystem;

pub use super::load::Candidate;
use super::{
    config::Config,
    reader::{FileContent, ReadRefusal},
};

/// What a path names, after following symlinks where the call says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device (named like [`ReadRefusal::NotRegularFile`] names it).
    Special(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metadata {
    pub kind: FileKind,
    /// Size in bytes (of the target, for a followed symlink).
    pub len: u64,
}

/// A file system confined to one root. `Send + Sync`: the load reads files on all cores.
pub trait System: Send + Sync {
    /// The canonical root (symlinks resolved); every path given to the methods is absolute.
    fn root(&self) -> &Path;

    /// At most `limit` bytes of the regular file at `path`, refused (with the same typed
    /// reasons whatever the system) when it is not a regular file, too large, a symlink
    /// loop, or really lies outside the root.
    fn read(&self, path: &Path, limit: u64) -> Result<FileContent, ReadRefusal>;

    /// What `path` names, following symlinks; `Err(NotFound)` when nothing (or a dangling
    /// link), `Err(SymlinkLoop)` for a loop.
    fn metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal>;

    /// What `path` itself is, not following a final symlink.
    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal>;

    /// Whether `path` names anything (following symlinks).
    fn exists(&self, path: &Path) -> bool {
        self.metadata(path).is_ok()
    }

    /// Whether `path` is a directory (following symlinks).
    fn is_dir(&self, path: &Path) -> bool {
        self.metadata(path).is_ok_and(|m| m.kind == FileKind::Dir)
    }

    /// The files and directories under the root that sextant would consider, sorted by
    /// path, honouring `.gitignore`, `.ignore` and `.git/info/exclude` (in the root, its
    /// subdirectories and its parents), hidden names, and `config`'s include/exclude
    /// globs; with what had to be left out and why.
    fn walk(&self, config: &Config) -> Result<Vec<Candidate>, LoadError>;
}

/// What writing a change asks of a file system, beyond reading it. Paths are real paths
/// (symlinks resolved, as [`System::read`] reports them) inside the root, except where a
/// method says it resolves them.
pub trait WritableSystem: System {
    /// Why the regular file at `real_path` must not be replaced, as an editor would judge
    /// it (write-protected, not writable by this user), or `None`.
    fn write_protection(&self, real_path: &Path) -> Option<String>;

    /// How many names the file at `real_path` has (hard links); a replace gives the new
    /// text to this name only.
    fn hard_links(&self, real_path: &Path) -> io::Result<u64>;

    /// `bytes` made durable beside `real_path`, with its permissions, replacing nothing
    /// yet. Dropping the result without [`StagedFile::replace`] leaves no trace.
    fn stage(&self, real_path: &Path, bytes: &[u8]) -> io::Result<Box<dyn StagedFile + '_>>;

    /// `bytes` made durable in `real_path`'s directory (which must exist) with the
    /// permission bits `mode`, for a file that does not exist yet; to be put in place with
    /// [`StagedFile::link_new`]. Dropping the result leaves no trace.
    fn stage_new(
        &self,
        real_path: &Path,
        bytes: &[u8],
        mode: u32,
    ) -> io::Result<Box<dyn StagedFile + '_>>;

    /// `path` (absolute) with every symlink resolved; `Err(NotFound)` when it, or a link
    /// on the way, leads nowhere.
    fn canonicalize(&self, path: &Path) -> Result<std::path::PathBuf, ReadRefusal>;

    /// The permission bits (`0o7777`) of the file at `real_path`.
    fn mode(&self, real_path: &Path) -> io::Result<u32>;

    /// The mode a file created now gets: `0o666` less the process's umask.
    fn new_file_mode(&self) -> u32;

    /// Sets the permission bits of the file at `real_path`.
    fn set_mode(&self, real_path: &Path, mode: u32) -> io::Result<()>;

    /// Removes the file at `real_path` (not a directory).
    fn remove_file(&self, real_path: &Path) -> io::Result<()>;

    /// Creates the directory `real_path`, whose parent exists; fails when anything (a
    /// symlink too) is already there, so nothing is ever created through a link.
    fn create_directory(&self, real_path: &Path) -> io::Result<()>;

    /// Removes the directory `real_path` if it is empty; fails otherwise.
    fn remove_empty_directory(&self, real_path: &Path) -> io::Result<()>;

    /// Makes the replacements in `real_path`'s directory durable (best effort).
    fn sync_directory(&self, real_path: &Path);
}

/// A new text staged by [`WritableSystem::stage`] or [`WritableSystem::stage_new`].
pub trait StagedFile {
    /// Puts the staged text in place of the file in one step: a reader sees the old text
    /// or the new one, never a mix.
    fn replace(self: Box<Self>) -> io::Result<()>;

    /// Puts the staged file at its path in one step, only if nothing is there (not even a
    /// dangling symlink): fails with [`io::ErrorKind::AlreadyExists`] otherwise, the staged
    /// file then dropped.
    fn link_new(self: Box<Self>) -> io::Result<()>;
}

/// The steps of a write, as [`MemorySystem::fail_at`] names the one to fail. Each kind is
/// counted (0-based) in the order the write takes them, a rollback's steps included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyStep {
    /// Staging the `n`th new text (text edits first, then created and moved files).
    WriteTemporary(usize),
    /// Replacing the `n`th file with its staged text.
    Replace(usize),
    /// Putting the `n`th staged file where nothing was (a created or moved file).
    Create(usize),
    /// Removing the `n`th file (a deleted file, or a moved file's old path).
    Remove(usize),
    /// Changing the `n`th file's mode.
    SetMode(usize),
    /// Creating the `n`th missing directory.
    CreateDir(usize),
}
