//! The disk as a [`System`]: reads through the confined reader, walks with the `ignore`
//! crate.
//!
//! Invariant: together with `reader.rs`, the only code in `workspace` that calls the
//! operating system's file APIs.

use crate::workspace::LoadError;
use std::{
    fs,
    path::{Path, PathBuf},
};

use super::{Candidate, FileKind, Metadata, System};
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
        let collector = Collector::new(root, &canonical_root);
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
                        ),
                        // No file type: stdin, which a walk of a directory never yields.
                        None => true,
                    },
                    Err(err) => collector.visit(Err(err), |_| None),
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
