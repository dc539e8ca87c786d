//! The confined reader: the one place where workspace content is read from disk.
//!
//! Invariant: every read of a workspace file — the walk, rescans, watcher events, on-demand
//! reads for ignored files, an editor document given back to the disk, `sextant.toml` —
//! goes through [`ConfinedReader::read`], which
//! - refuses anything that is not a regular file (FIFOs, sockets, devices, directories)
//!   before opening it, and opens without blocking, so a file swapped for a FIFO between the
//!   check and the open cannot block the caller either;
//! - checks, on the opened file itself, that its real path lies inside the root: a symlink
//!   (of a file or of any directory above it) pointing out is refused at read time, however
//!   often it was retargeted since the walk;
//! - checks the size from metadata before reading, and never reads more than the limit.

use std::{
    fs::File,
    io::{self, Read},
    path::{Path, PathBuf},
};

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadRefusal {
    /// The file does not exist (or vanished mid-read).
    #[error("no such file")]
    NotFound,
    /// Its real path (after symlinks) lies outside the workspace root.
    #[error("resolves outside the workspace, to {}", .0.display())]
    OutsideWorkspace(PathBuf),
    /// A FIFO, socket, device or directory.
    #[error("not a regular file (a {0})")]
    NotRegularFile(&'static str),
    #[error("{size} bytes, over the {limit} byte limit")]
    TooLarge { size: u64, limit: u64 },
    #[error("symlink loop")]
    SymlinkLoop,
    #[error("{0}")]
    Io(io::Error),
}

impl From<io::Error> for ReadRefusal {
    fn from(e: io::Error) -> ReadRefusal {
        match e.kind() {
            io::ErrorKind::NotFound => ReadRefusal::NotFound,
            _ if e.raw_os_error() == Some(ELOOP) => ReadRefusal::SymlinkLoop,
            _ => ReadRefusal::Io(e),
        }
    }
}

#[cfg(unix)]
const ELOOP: i32 = libc::ELOOP;
#[cfg(not(unix))]
const ELOOP: i32 = -1;

/// What a read returns: the bytes, and the file's real path (absolute; it differs from
/// the path asked for when the file was reached through a symlink).
#[derive(Debug)]
pub struct FileContent {
    pub bytes: Vec<u8>,
    pub real_path: PathBuf,
    /// Set when the bytes are an editor's open document rather than the disk's: the
    /// language the document was opened in. Such text is already in memory, so no size
    /// or binary check applies to it.
    pub open_document: Option<crate::lang::LangId>,
}

/// Reads files confined to one root.
#[derive(Clone, Debug)]
pub struct ConfinedReader {
    root: PathBuf,
}

impl ConfinedReader {
    /// `root` must be canonical (symlinks resolved), as [`Path::canonicalize`] returns it.
    pub fn new(root: PathBuf) -> ConfinedReader {
        ConfinedReader { root }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads at most `limit` bytes of the regular file at `path`, inside the root.
    pub fn read(&self, path: &Path, limit: u64) -> Result<FileContent, ReadRefusal> {
        // Follows symlinks: the kind and size of what would be opened.
        let meta = std::fs::metadata(path)?;
        check_kind(&meta)?;
        check_size(meta.len(), limit)?;
        let mut file = open_nonblocking(path)?;
        // The path may have been swapped since the stat: judge the file actually opened.
        let meta = file.metadata()?;
        check_kind(&meta)?;
        check_size(meta.len(), limit)?;
        let real_path = real_path_of(&file, path)?;
        if !real_path.starts_with(&self.root) {
            return Err(ReadRefusal::OutsideWorkspace(real_path));
        }
        let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
        (&mut file).take(limit + 1).read_to_end(&mut bytes)?;
        // The file grew after the stat.
        check_size(bytes.len() as u64, limit)?;
        Ok(FileContent {
            bytes,
            real_path,
            open_document: None,
        })
    }
}

/// Resolves `.` and `..` without touching the disk (`..` at `/` stays at `/`); `None` for a
/// relative path. Front ends normalise client paths with it before judging them.
pub fn normalize_lexically(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::RootDir => out.push(Component::RootDir),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::Prefix(_) => return None,
        }
    }
    out.has_root().then_some(out)
}

/// Whether `path` (absolute, normalised) stays under `root` (canonical) once links are
/// followed: a link inside the root may point outside it. A path that does not exist yet
/// is judged by its nearest existing ancestor.
pub fn resolves_inside(root: &Path, path: &Path) -> bool {
    path.starts_with(root)
        && path
            .ancestors()
            .find_map(|p| p.canonicalize().ok())
            .is_some_and(|real| real.starts_with(root))
}

fn check_kind(meta: &std::fs::Metadata) -> Result<(), ReadRefusal> {
    if meta.is_file() {
        return Ok(());
    }
    Err(ReadRefusal::NotRegularFile(file_kind(&meta.file_type())))
}

fn check_size(size: u64, limit: u64) -> Result<(), ReadRefusal> {
    if size > limit {
        return Err(ReadRefusal::TooLarge { size, limit });
    }
    Ok(())
}

/// What a file that is not a regular file is, in words (`FIFO`, `socket`, `device`, …).
pub(super) fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
    }
    if t.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer. O_NOCTTY: a terminal
        // device must never become our controlling terminal.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// The real path of an open file: from the kernel where it can tell (race-free), else by
/// resolving the path again.
fn real_path_of(file: &File, path: &Path) -> Result<PathBuf, ReadRefusal> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            && real.is_absolute()
        {
            return Ok(real);
        }
    }
    let _ = file;
    Ok(path.canonicalize()?)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, ConfinedReader) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let reader = ConfinedReader::new(root.path().canonicalize().unwrap());
        (root, outside, reader)
    }

    #[test]
    fn reads_regular_files_and_links_inside() {
        let (root, _outside, reader) = setup();
        std::fs::write(root.path().join("a.py"), "x = 1\n").unwrap();
        std::os::unix::fs::symlink("a.py", root.path().join("b.py")).unwrap();
        let a = reader.read(&root.path().join("a.py"), 100).unwrap();
        assert_eq!(a.bytes, b"x = 1\n");
        let b = reader.read(&root.path().join("b.py"), 100).unwrap();
        assert_eq!(b.bytes, b"x = 1\n");
        assert_eq!(b.real_path, reader.root().join("a.py"));
    }

    #[test]
    fn refuses_file_and_directory_links_pointing_out() {
        let (root, outside, reader) = setup();
        std::fs::write(outside.path().join("secret.py"), "API_KEY = 1\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), root.path().join("f.py"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("dir")).unwrap();
        for p in ["f.py", "dir/secret.py"] {
            let err = reader.read(&root.path().join(p), 100).unwrap_err();
            assert!(
                matches!(err, ReadRefusal::OutsideWorkspace(_)),
                "{p}: {err}"
            );
        }
    }

    #[test]
    fn refuses_fifos_without_blocking() {
        let (root, _outside, reader) = setup();
        let fifo = root.path().join("pipe.py");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let err = reader.read(&fifo, 100).unwrap_err();
        assert!(matches!(err, ReadRefusal::NotRegularFile("FIFO")), "{err}");
        // Opening itself never blocks, even when the stat is skipped.
        let file = open_nonblocking(&fifo).unwrap();
        assert!(!file.metadata().unwrap().is_file());
    }

    #[test]
    fn size_is_checked_before_reading() {
        let (root, _outside, reader) = setup();
        std::fs::write(root.path().join("big.py"), "x".repeat(1000)).unwrap();
        let err = reader.read(&root.path().join("big.py"), 999).unwrap_err();
        assert!(
            matches!(
                err,
                ReadRefusal::TooLarge {
                    size: 1000,
                    limit: 999
                }
            ),
            "{err}"
        );
        assert!(matches!(
            reader.read(&root.path().join("gone.py"), 10).unwrap_err(),
            ReadRefusal::NotFound
        ));
        std::os::unix::fs::symlink("loop.py", root.path().join("loop.py")).unwrap();
        assert!(matches!(
            reader.read(&root.path().join("loop.py"), 10).unwrap_err(),
            ReadRefusal::SymlinkLoop
        ));
    }
}
