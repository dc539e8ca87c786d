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

mod memory;
mod os;
mod overlay;

use crate::workspace::LoadError;
use std::path::Path;

pub use memory::MemorySystem;
pub use os::OsSystem;
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
