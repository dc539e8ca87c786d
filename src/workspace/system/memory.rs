//! A file system held in memory, for tests that must not depend on the disk or on time.
//!
//! Invariant: it answers as [`OsSystem`](super::OsSystem) would for the same tree: the same
//! [`ReadRefusal`]s in the same order of checks (kind, then size, then confinement), the
//! same walk candidates and skip reasons, under the same ignore rules. Rules are matched
//! by the `ignore` crate's own gitignore and override matchers; only the traversal (which
//! the crate can do on the disk alone) is reimplemented here, following the crate's order:
//! a symlink is followed, a followed directory is checked for a loop against every
//! directory above it, then overrides, ignore files (nearest directory first; `.ignore`
//! over `.gitignore` over `.git/info/exclude`) and hidden names decide. A user's global
//! gitignore has no counterpart here.

use crate::workspace::LoadError;
use std::{
    collections::BTreeMap,
    ffi::OsStr,
    io,
    path::{Component, Path, PathBuf},
    sync::{Arc, Mutex, RwLock},
};

use ignore::{
    Match,
    gitignore::{Gitignore, GitignoreBuilder},
    overrides::Override,
};

use super::{ApplyStep, Candidate, FileKind, Metadata, StagedFile, System, WritableSystem};
use crate::workspace::{
    config::Config,
    load::{self, Collector, Reached},
    reader::{FileContent, ReadRefusal},
};

/// Symlinks followed before a path is a loop (Linux's limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// A new file's mode: `0o666` less the usual umask, `022`.
const NEW_FILE_MODE: u32 = 0o644;

#[derive(Clone, Debug)]
enum Node {
    /// The bytes and the permission bits (`0o7777`).
    File(Arc<[u8]>, u32),
    Dir,
    /// The target as written (relative to the link's directory, or absolute).
    Symlink(PathBuf),
    /// A FIFO, socket or device, named as the reader names it.
    Special(&'static str),
}

type Hook = Box<dyn FnOnce(&MemorySystem) + Send>;

/// A tree of files, directories and symlinks by absolute path, rooted at one directory.
/// Paths given to its builders are relative to the root unless absolute (a file outside
/// the root is useful as a symlink's target).
pub struct MemorySystem {
    root: PathBuf,
    tree: RwLock<BTreeMap<PathBuf, Node>>,
    /// Run once after the next walk, before any read (a file vanishing in between).
    after_walk: Mutex<Option<Hook>>,
    /// The write side: files marked read-only, the step to fail next, steps counted.
    writes: Mutex<Writes>,
}

/// What [`WritableSystem`] keeps between calls on a [`MemorySystem`].
#[derive(Debug, Default)]
struct Writes {
    read_only: std::collections::BTreeSet<PathBuf>,
    /// The steps to fail, each once.
    fail_at: Vec<(ApplyStep, String)>,
    staged: usize,
    replaced: usize,
    created: usize,
    removed: usize,
    modes_set: usize,
    directories_created: usize,
}

impl std::fmt::Debug for MemorySystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemorySystem")
            .field("root", &self.root)
            .field("tree", &self.tree.read().unwrap())
            .finish()
    }
}

impl MemorySystem {
    /// An empty directory `root` (absolute, and taken as canonical).
    pub fn new(root: impl Into<PathBuf>) -> MemorySystem {
        let root = root.into();
        assert!(root.is_absolute(), "a memory system's root is absolute");
        let system = MemorySystem {
            root: root.clone(),
            tree: RwLock::new(BTreeMap::new()),
            after_walk: Mutex::new(None),
            writes: Mutex::new(Writes::default()),
        };
        system.create_dir(&root);
        system
    }

    /// `path` made absolute: joined to the root unless it already is.
    pub fn path(&self, path: impl AsRef<Path>) -> PathBuf {
        normalize(&self.root.join(path))
    }

    /// Writes a file (replacing whatever was there), creating its parent directories.
    pub fn write(&self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> &Self {
        self.insert(path, Node::File(Arc::from(bytes.as_ref()), NEW_FILE_MODE))
    }

    /// Sets the permission bits of the file at `path` (a builder: counts as no write step).
    pub fn chmod(&self, path: impl AsRef<Path>, mode: u32) -> &Self {
        let path = self.path(path);
        if let Some(Node::File(_, old)) = self.tree.write().unwrap().get_mut(&path) {
            *old = mode;
        }
        self
    }

    /// The whole tree, one line per entry in path order: `path/ (dir)`, `path -> target`
    /// or `path (mode octal): bytes`; two systems with equal listings hold the same files.
    pub fn listing(&self) -> Vec<String> {
        self.tree
            .read()
            .unwrap()
            .iter()
            .map(|(path, node)| match node {
                Node::File(bytes, mode) => format!(
                    "{} ({mode:o}): {:?}",
                    path.display(),
                    String::from_utf8_lossy(bytes)
                ),
                Node::Dir => format!("{}/ (dir)", path.display()).replacen("//", "/", 1),
                Node::Symlink(target) => format!("{} -> {}", path.display(), target.display()),
                Node::Special(kind) => format!("{} ({kind})", path.display()),
            })
            .collect()
    }

    /// Creates a directory and its parents.
    pub fn create_dir(&self, path: impl AsRef<Path>) -> &Self {
        let path = self.path(path);
        let mut tree = self.tree.write().unwrap();
        for dir in path.ancestors() {
            tree.entry(dir.to_path_buf()).or_insert(Node::Dir);
        }
        self
    }

    /// Creates a symlink at `link` pointing to `target` (as written: relative to the
    /// link's directory, or absolute).
    pub fn symlink(&self, link: impl AsRef<Path>, target: impl AsRef<Path>) -> &Self {
        self.insert(link, Node::Symlink(target.as_ref().to_path_buf()))
    }

    /// Creates a FIFO at `path` (the reader refuses it without blocking).
    pub fn fifo(&self, path: impl AsRef<Path>) -> &Self {
        self.insert(path, Node::Special("FIFO"))
    }

    /// Removes `path` and everything under it (a symlink itself, not its target).
    pub fn remove(&self, path: impl AsRef<Path>) -> &Self {
        let path = self.path(path);
        let mut tree = self.tree.write().unwrap();
        tree.retain(|p, _| !p.starts_with(&path));
        self
    }

    /// Moves `from` (and everything under it) to `to`, replacing what was there.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> &Self {
        let (from, to) = (self.path(from), self.path(to));
        if let Some(parent) = to.parent() {
            self.create_dir(parent);
        }
        let mut tree = self.tree.write().unwrap();
        tree.retain(|p, _| !p.starts_with(&to));
        let moved: Vec<PathBuf> = tree
            .keys()
            .filter(|p| p.starts_with(&from))
            .cloned()
            .collect();
        for old in moved {
            let node = tree.remove(&old).expect("listed");
            let new = to.join(old.strip_prefix(&from).expect("under from"));
            tree.insert(new, node);
        }
        self
    }

    /// Runs `change` once, right after the next walk and before its files are read: the
    /// race of a file changing between the walk and the read, made deterministic.
    pub fn after_next_walk(&self, change: impl FnOnce(&MemorySystem) + Send + 'static) {
        *self.after_walk.lock().unwrap() = Some(Box::new(change));
    }

    /// Marks a file read-only: a write refuses it, as the disk's refuses a file with no
    /// write bit.
    pub fn set_read_only(&self, path: impl AsRef<Path>) -> &Self {
        let path = self.path(path);
        self.writes.lock().unwrap().read_only.insert(path);
        self
    }

    /// Fails `step` of the next write (counted from the next write on) with an I/O error
    /// saying `message`, once, as a full disk would.
    pub fn fail_at(&self, step: ApplyStep, message: &str) -> &Self {
        let mut writes = self.writes.lock().unwrap();
        *writes = Writes {
            read_only: std::mem::take(&mut writes.read_only),
            fail_at: vec![(step, message.to_string())],
            ..Writes::default()
        };
        self
    }

    /// Fails `step` too, in the same write as the one [`MemorySystem::fail_at`] named (a
    /// rollback's step, say, to test what a failed restore reports).
    pub fn and_fail_at(&self, step: ApplyStep, message: &str) -> &Self {
        let mut writes = self.writes.lock().unwrap();
        writes.fail_at.push((step, message.to_string()));
        self
    }

    /// Counts `step` and fails it if it is one [`MemorySystem::fail_at`] named.
    fn write_step(
        &self,
        step: impl Fn(usize) -> ApplyStep,
        counter: fn(&mut Writes) -> &mut usize,
    ) -> io::Result<()> {
        let mut writes = self.writes.lock().unwrap();
        let n = *counter(&mut writes);
        *counter(&mut writes) += 1;
        match writes
            .fail_at
            .iter()
            .position(|(failing, _)| *failing == step(n))
        {
            Some(at) => Err(io::Error::other(writes.fail_at.remove(at).1)),
            None => Ok(()),
        }
    }

    fn insert(&self, path: impl AsRef<Path>, node: Node) -> &Self {
        let path = self.path(path);
        if let Some(parent) = path.parent() {
            self.create_dir(parent);
        }
        self.tree.write().unwrap().insert(path, node);
        self
    }

    /// The real path `path` names, its symlinks resolved (the last one only when
    /// `follow_last`), and the node there.
    fn resolve(&self, path: &Path, follow_last: bool) -> Result<(PathBuf, Node), ReadRefusal> {
        let tree = self.tree.read().unwrap();
        resolve_in(&tree, path, follow_last)
    }

    /// The entries of the real directory `dir`, by name.
    fn children(&self, dir: &Path) -> Vec<(PathBuf, Node)> {
        let tree = self.tree.read().unwrap();
        tree.range(dir.to_path_buf()..)
            .skip_while(|(p, _)| p.as_path() == dir)
            .take_while(|(p, _)| p.starts_with(dir))
            .filter(|(p, _)| p.parent() == Some(dir))
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect()
    }
}

fn resolve_in(
    tree: &BTreeMap<PathBuf, Node>,
    path: &Path,
    follow_last: bool,
) -> Result<(PathBuf, Node), ReadRefusal> {
    let mut pending: Vec<PathBuf> = components_reversed(path);
    let mut current = PathBuf::from("/");
    let mut node = Node::Dir;
    let mut hops = 0;
    while let Some(part) = pending.pop() {
        if part.as_os_str() == "/" {
            current = PathBuf::from("/");
            node = Node::Dir;
            continue;
        }
        if part.as_os_str() == ".." {
            current.pop();
            node = Node::Dir;
            continue;
        }
        if !matches!(node, Node::Dir) {
            // A file used as a directory.
            return Err(ReadRefusal::Io(io::Error::from_raw_os_error(libc::ENOTDIR)));
        }
        let next = current.join(&part);
        match tree.get(&next) {
            None => return Err(ReadRefusal::NotFound),
            Some(Node::Symlink(target)) if follow_last || !pending.is_empty() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(ReadRefusal::SymlinkLoop);
                }
                pending.extend(components_reversed(target));
                node = Node::Dir;
            }
            Some(found) => {
                node = found.clone();
                current = next;
            }
        }
    }
    Ok((current, node))
}

/// `path`'s components, last first (a stack); the root as `/`, `.` dropped.
fn components_reversed(path: &Path) -> Vec<PathBuf> {
    let mut parts: Vec<PathBuf> = path
        .components()
        .filter_map(|c| match c {
            Component::RootDir => Some(PathBuf::from("/")),
            Component::ParentDir => Some(PathBuf::from("..")),
            Component::Normal(name) => Some(PathBuf::from(name)),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    parts.reverse();
    parts
}

/// `.` and `..` resolved without looking at the tree.
fn normalize(path: &Path) -> PathBuf {
    crate::workspace::reader::normalize_lexically(path).unwrap_or_else(|| path.to_path_buf())
}

fn metadata_of(node: &Node) -> Metadata {
    match node {
        Node::File(bytes, _) => Metadata {
            kind: FileKind::File,
            len: bytes.len() as u64,
        },
        Node::Dir => Metadata {
            kind: FileKind::Dir,
            len: 0,
        },
        Node::Symlink(target) => Metadata {
            kind: FileKind::Symlink,
            len: target.as_os_str().len() as u64,
        },
        Node::Special(kind) => Metadata {
            kind: FileKind::Special(kind),
            len: 0,
        },
    }
}

impl WritableSystem for MemorySystem {
    /// Marked read-only ([`MemorySystem::set_read_only`]) or no write bit in its mode.
    fn write_protection(&self, real_path: &Path) -> Option<String> {
        let writes = self.writes.lock().unwrap();
        if writes.read_only.contains(real_path) {
            return Some("read-only".to_string());
        }
        match self.resolve(real_path, true) {
            Ok((_, Node::File(_, mode))) if mode & 0o222 == 0 => {
                Some(format!("read-only (mode {mode:o})"))
            }
            _ => None,
        }
    }

    /// A memory tree has no hard links: each file has its one name.
    fn hard_links(&self, real_path: &Path) -> io::Result<u64> {
        self.mode(real_path).map(|_| 1)
    }

    fn stage(&self, real_path: &Path, bytes: &[u8]) -> io::Result<Box<dyn StagedFile + '_>> {
        let mode = self.mode(real_path)?;
        self.stage_new(real_path, bytes, mode)
    }

    fn stage_new(
        &self,
        real_path: &Path,
        bytes: &[u8],
        mode: u32,
    ) -> io::Result<Box<dyn StagedFile + '_>> {
        self.write_step(ApplyStep::WriteTemporary, |w| &mut w.staged)?;
        self.existing_directory(real_path.parent().unwrap_or(&self.root))?;
        Ok(Box::new(StagedInMemory {
            system: self,
            target: real_path.to_path_buf(),
            bytes: Arc::from(bytes),
            mode,
        }))
    }

    fn canonicalize(&self, path: &Path) -> Result<PathBuf, ReadRefusal> {
        self.resolve(path, true).map(|(real, _)| real)
    }

    fn mode(&self, real_path: &Path) -> io::Result<u32> {
        match self.resolve(real_path, true) {
            Ok((_, Node::File(_, mode))) => Ok(mode),
            Ok(_) => Err(io::Error::from_raw_os_error(libc::EISDIR)),
            Err(refusal) => Err(io_error(&refusal)),
        }
    }

    fn new_file_mode(&self) -> u32 {
        NEW_FILE_MODE
    }

    fn set_mode(&self, real_path: &Path, mode: u32) -> io::Result<()> {
        self.write_step(ApplyStep::SetMode, |w| &mut w.modes_set)?;
        match self.tree.write().unwrap().get_mut(real_path) {
            Some(Node::File(_, old)) => {
                *old = mode;
                Ok(())
            }
            Some(_) => Err(io::Error::from_raw_os_error(libc::EPERM)),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    fn remove_file(&self, real_path: &Path) -> io::Result<()> {
        self.write_step(ApplyStep::Remove, |w| &mut w.removed)?;
        let mut tree = self.tree.write().unwrap();
        match tree.get(real_path) {
            Some(Node::Dir) => Err(io::Error::from_raw_os_error(libc::EISDIR)),
            Some(_) => {
                tree.remove(real_path);
                Ok(())
            }
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    fn create_directory(&self, real_path: &Path) -> io::Result<()> {
        self.write_step(ApplyStep::CreateDir, |w| &mut w.directories_created)?;
        self.existing_directory(real_path.parent().unwrap_or(&self.root))?;
        let mut tree = self.tree.write().unwrap();
        if tree.contains_key(real_path) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        tree.insert(real_path.to_path_buf(), Node::Dir);
        Ok(())
    }

    /// Not a counted step: only a rollback removes directories.
    fn remove_empty_directory(&self, real_path: &Path) -> io::Result<()> {
        if !matches!(self.tree.read().unwrap().get(real_path), Some(Node::Dir)) {
            return Err(io::Error::from_raw_os_error(libc::ENOTDIR));
        }
        if !self.children(real_path).is_empty() {
            return Err(io::Error::from_raw_os_error(libc::ENOTEMPTY));
        }
        self.tree.write().unwrap().remove(real_path);
        Ok(())
    }

    fn sync_directory(&self, _real_path: &Path) {}
}

impl MemorySystem {
    /// `Ok` when the real path `dir` is a directory, as a file created in it needs.
    fn existing_directory(&self, dir: &Path) -> io::Result<()> {
        match self.tree.read().unwrap().get(dir) {
            Some(Node::Dir) => Ok(()),
            Some(_) => Err(io::Error::from_raw_os_error(libc::ENOTDIR)),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }
}

/// A staged text held aside until it replaces its file, or takes an empty path, in one map
/// update.
struct StagedInMemory<'a> {
    system: &'a MemorySystem,
    target: PathBuf,
    bytes: Arc<[u8]>,
    mode: u32,
}

impl StagedFile for StagedInMemory<'_> {
    fn replace(self: Box<Self>) -> io::Result<()> {
        self.system
            .write_step(ApplyStep::Replace, |w| &mut w.replaced)?;
        self.system
            .tree
            .write()
            .unwrap()
            .insert(self.target, Node::File(self.bytes, self.mode));
        Ok(())
    }

    fn link_new(self: Box<Self>) -> io::Result<()> {
        self.system
            .write_step(ApplyStep::Create, |w| &mut w.created)?;
        self.system
            .existing_directory(self.target.parent().unwrap_or(&self.system.root))?;
        let mut tree = self.system.tree.write().unwrap();
        if tree.contains_key(&self.target) {
            return Err(io::Error::from(io::ErrorKind::AlreadyExists));
        }
        tree.insert(self.target, Node::File(self.bytes, self.mode));
        Ok(())
    }
}

impl System for MemorySystem {
    fn root(&self) -> &Path {
        &self.root
    }

    fn read(&self, path: &Path, limit: u64) -> Result<FileContent, ReadRefusal> {
        let (real_path, node) = self.resolve(path, true)?;
        let bytes = match node {
            Node::File(bytes, _) => bytes,
            Node::Dir => return Err(ReadRefusal::NotRegularFile("directory")),
            Node::Special(kind) => return Err(ReadRefusal::NotRegularFile(kind)),
            Node::Symlink(_) => unreachable!("followed"),
        };
        let size = bytes.len() as u64;
        if size > limit {
            return Err(ReadRefusal::TooLarge { size, limit });
        }
        if !real_path.starts_with(&self.root) {
            return Err(ReadRefusal::OutsideWorkspace(real_path));
        }
        Ok(FileContent {
            bytes: bytes.to_vec(),
            real_path,
            open_document: None,
        })
    }

    fn metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        self.resolve(path, true).map(|(_, node)| metadata_of(&node))
    }

    fn symlink_metadata(&self, path: &Path) -> Result<Metadata, ReadRefusal> {
        self.resolve(path, false)
            .map(|(_, node)| metadata_of(&node))
    }

    fn walk(&self, config: &Config) -> Result<Vec<Candidate>, LoadError> {
        let overrides = load::overrides(&self.root, config)?;
        let collector = Collector::new(&self.root, &self.root, config);
        let mut chain = Vec::new();
        // The rules of the root's parents apply too, as the `ignore` crate reads them.
        for dir in self.root.ancestors().collect::<Vec<_>>().into_iter().rev() {
            chain.push(self.rules(dir, dir));
        }
        let walk = Walk {
            system: self,
            overrides: &overrides,
            collector: &collector,
        };
        walk.dir(&self.root, 0, &mut chain);
        let hook = self.after_walk.lock().unwrap().take();
        if let Some(hook) = hook {
            hook(self);
        }
        Ok(collector.finish())
    }
}

/// The ignore files of one directory the walk entered.
struct DirRules {
    /// The real directory (loops are found by comparing these).
    real: PathBuf,
    /// The directory as walked (through symlinks), for error messages.
    walked: PathBuf,
    ignore: Gitignore,
    gitignore: Gitignore,
    git_exclude: Gitignore,
}

impl MemorySystem {
    /// The rules of the directory walked as `walked` (really `real`).
    fn rules(&self, walked: &Path, real: &Path) -> DirRules {
        let has_git = self
            .resolve(&real.join(".git"), true)
            .is_ok_and(|(_, node)| matches!(node, Node::Dir));
        DirRules {
            real: real.to_path_buf(),
            walked: walked.to_path_buf(),
            ignore: self.ignore_file(walked, &real.join(".ignore")),
            gitignore: self.ignore_file(walked, &real.join(".gitignore")),
            git_exclude: if has_git {
                self.ignore_file(walked, &real.join(".git/info/exclude"))
            } else {
                Gitignore::empty()
            },
        }
    }

    /// A gitignore-style file's rules, matching paths under `dir`. Lines that are not
    /// valid UTF-8 or not valid globs are left out, as the `ignore` crate leaves them.
    fn ignore_file(&self, dir: &Path, file: &Path) -> Gitignore {
        let Ok((_, Node::File(bytes, _))) = self.resolve(file, true) else {
            return Gitignore::empty();
        };
        let mut builder = GitignoreBuilder::new(dir);
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Ok(line) = std::str::from_utf8(line) else {
                continue;
            };
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            let _ = builder.add_line(Some(file.to_path_buf()), line);
        }
        builder.build().unwrap_or_else(|_| Gitignore::empty())
    }
}

/// One walk of a memory system.
struct Walk<'a> {
    system: &'a MemorySystem,
    overrides: &'a Override,
    collector: &'a Collector<'a>,
}

impl Walk<'_> {
    /// Hands an error met at `depth` to the collector, as the `ignore` crate's walker would.
    fn report(&self, err: ignore::Error, depth: usize) {
        self.collector.visit(
            Err(ignore::Error::WithDepth {
                depth,
                err: Box::new(err),
            }),
            |_| None,
            |_| false,
        );
    }

    /// Visits the entries of the directory walked as `walked`, whose rules (and those of
    /// every directory above it) are `chain`.
    fn dir(&self, walked: &Path, depth: usize, chain: &mut Vec<DirRules>) {
        let real = chain
            .last()
            .expect("the directory's own rules")
            .real
            .clone();
        for (real_child, node) in self.system.children(&real) {
            let name = real_child.file_name().expect("a child has a name");
            let path = walked.join(name);
            let child_depth = depth + 1;
            let (is_dir, is_symlink, real_target) = match node {
                Node::Symlink(_) => match self.system.resolve(&real_child, true) {
                    Ok((target, node)) => (matches!(node, Node::Dir), true, target),
                    Err(refusal) => {
                        // A link that cannot be followed is reported unless the rules
                        // leave the link itself out.
                        if self.skips(chain, &path, false) {
                            continue;
                        }
                        let err = ignore::Error::WithPath {
                            path: path.clone(),
                            err: Box::new(ignore::Error::Io(io_error(&refusal))),
                        };
                        self.report(err, child_depth);
                        continue;
                    }
                },
                Node::Dir => (true, false, real_child.clone()),
                Node::File(..) | Node::Special(_) => (false, false, real_child.clone()),
            };
            if is_symlink
                && is_dir
                && let Some(ancestor) = chain.iter().find(|r| r.real == real_target)
            {
                let err = ignore::Error::Loop {
                    ancestor: ancestor.walked.clone(),
                    child: path.clone(),
                };
                self.report(err, child_depth);
                continue;
            }
            if self.skips(chain, &path, is_dir) {
                continue;
            }
            let reached = Reached {
                path: &path,
                depth: child_depth,
                is_dir,
                is_symlink,
            };
            let descend = self.collector.visit(
                Ok(reached),
                |p| self.system.resolve(p, true).ok().map(|(r, _)| r),
                |p| matches!(self.system.resolve(p, true), Ok((_, Node::File(..)))),
            );
            if is_dir && descend {
                chain.push(self.system.rules(&path, &real_target));
                self.dir(&path, child_depth, chain);
                chain.pop();
            }
        }
    }

    /// Whether the rules leave `path` out: overrides first, then the nearest ignore file
    /// of each kind, then hidden names.
    fn skips(&self, chain: &[DirRules], path: &Path, is_dir: bool) -> bool {
        let decided = self.overrides.matched(path, is_dir);
        if !decided.is_none() {
            return decided.is_ignore();
        }
        let nearest = |pick: fn(&DirRules) -> &Gitignore| {
            chain
                .iter()
                .rev()
                .map(|rules| pick(rules).matched(path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        let matched = match nearest(|r| &r.ignore) {
            Match::None => match nearest(|r| &r.gitignore) {
                Match::None => nearest(|r| &r.git_exclude),
                m => m,
            },
            m => m,
        };
        match matched {
            Match::Ignore(_) => true,
            Match::Whitelist(_) => false,
            Match::None => is_hidden(path),
        }
    }
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .map(OsStr::as_encoded_bytes)
        .is_some_and(|name| name.starts_with(b"."))
}

/// The operating system's error for a refusal, so that messages read as the disk's do.
fn io_error(refusal: &ReadRefusal) -> io::Error {
    let code = match refusal {
        ReadRefusal::SymlinkLoop => libc::ELOOP,
        ReadRefusal::Io(e) => e.raw_os_error().unwrap_or(libc::EIO),
        _ => libc::ENOENT,
    };
    io::Error::from_raw_os_error(code)
}
