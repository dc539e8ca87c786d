//! Writing a [`SourceChange`] to disk: every file or none.
//!
//! Invariant: a file is written only when its bytes on disk still hash to the text the
//! edit was computed from, decode in the edit's encoding (UTF-8, or Latin-1 for a file
//! that is not: `ide::TextEncoding`, so every byte the edit leaves comes back as it was),
//! and its real path lies inside the root. Each
//! new text goes to a temporary file in the target's own directory, is synced, takes the
//! old file's permissions and is renamed over it, so a reader (or a crash) sees the old
//! file or the new one, never a mix. When a step fails after some files were replaced,
//! those files get their old bytes back the same way before the error is returned.
//! Edits are made to the text as it is, so line endings, a byte-order mark and the
//! encoding are whatever the file had; a new character the encoding cannot hold is
//! refused. Every step goes through a [`WritableSystem`]: the
//! disk in use, a memory system (which can fail any step) in tests.
//!
//! File-system edits join the same transaction. Nothing is written until every edit is
//! planned: each path plain and workspace-relative and named once, a file deleted, moved
//! or given a new mode still holding the bytes the edit names (and not a symlink: sextant
//! never deletes or moves a file through a link to it), nothing at all where a file is
//! created or moved to, and the nearest existing directory above a new file inside the
//! root once its symlinks are resolved (nothing is created through a link leading out).
//! Then the missing directories are created and every new file staged beside its target;
//! then each step is taken, its precondition checked again just before: a new file is
//! linked into place only where nothing is (never over a file written meanwhile), a move
//! is that and then the old path's removal, a deletion remembers the bytes and mode it
//! removed, a mode change the mode it replaced. A failure part-way undoes every step taken,
//! last first, and removes the directories this write created once they are empty.

use std::{
    collections::HashMap,
    io,
    path::{Path, PathBuf},
};

use crate::ide::{
    ContentHash, EditError, ErrorCode, Failure, FileEdit, FileSystemEdit, SourceChange,
    TextEncoding,
};

use super::{
    reader::ReadRefusal,
    system::{FileKind, StagedFile, WritableSystem},
};

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The file's content is no longer the text the edit was computed from.
    #[error("{path} changed since the edit was computed; nothing was written")]
    Conflict { path: String },
    /// The file cannot be written by sextant (outside the root, not valid UTF-8, not a
    /// regular file, gone, or something already where a file would be created).
    #[error("{path}: {reason}; nothing was written")]
    Refused { path: String, reason: String },
    /// The edit itself is malformed (overlapping ranges).
    #[error("{0}; nothing was written")]
    BadEdit(EditError),
    /// Writing failed part-way; the files already replaced were restored (or, if that
    /// failed too, `restore_failures` lists them).
    #[error("writing {path} failed: {error}; {}", restored_message(.restore_failures))]
    Io {
        path: String,
        error: io::Error,
        restore_failures: Vec<String>,
    },
}

impl ApplyError {
    /// Whether the disk is as it was before the write: everything but a failure part-way
    /// whose files could not all be restored.
    pub fn wrote_nothing(&self) -> bool {
        match self {
            ApplyError::Io {
                restore_failures, ..
            } => restore_failures.is_empty(),
            _ => true,
        }
    }
}

fn restored_message(failures: &[String]) -> String {
    if failures.is_empty() {
        "every file was left as it was".to_string()
    } else {
        format!("could not restore {}", failures.join(", "))
    }
}

impl Failure for ApplyError {
    fn code(&self) -> ErrorCode {
        match self {
            ApplyError::Conflict { .. } => ErrorCode::Conflict,
            ApplyError::Refused { .. } => ErrorCode::WriteRefused,
            ApplyError::BadEdit(_) => ErrorCode::InvalidEdit,
            ApplyError::Io { .. } => ErrorCode::WriteFailed,
        }
    }
}

/// What was written, in the change's order: the files whose text was edited, and what the
/// file-system edits did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Written {
    pub files: Vec<WrittenFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub created: Vec<WrittenFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<MovedFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mode_changed: Vec<ModeChanged>,
    /// Files edited, moved or deleted under [`HardLinks::Break`] whose other hard links
    /// still hold the old text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hard_links_broken: Vec<String>,
}

impl Written {
    /// Every workspace-relative path whose file appeared, changed or vanished (both paths
    /// of a move), for whoever keeps an index of the files in step with the disk.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        let files = self
            .files
            .iter()
            .chain(&self.created)
            .map(|f| f.path.as_str());
        let moved = self
            .moved
            .iter()
            .flat_map(|m| [m.from.as_str(), m.to.as_str()]);
        files
            .chain(self.deleted.iter().map(String::as_str))
            .chain(moved)
            .chain(self.mode_changed.iter().map(|m| m.path.as_str()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WrittenFile {
    pub path: String,
    pub new_hash: ContentHash,
    /// The text now on disk.
    #[serde(skip)]
    pub text: String,
}

/// A file moved from `from` to `to`, where it now holds `text`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MovedFile {
    pub from: String,
    pub to: String,
    pub new_hash: ContentHash,
    #[serde(skip)]
    pub text: String,
}

/// A file whose executable bits were set (`executable`) or cleared.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModeChanged {
    pub path: String,
    pub executable: bool,
}

/// What a write does with a file that has other hard links. Replacing it (the only write
/// that never leaves a file half-written) gives the new text to the name the change
/// names; its other names keep the old text, which is why that is refused unless asked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HardLinks {
    /// Refuse the write (`WRITE_REFUSED`).
    #[default]
    Refuse,
    /// Replace the file at its name anyway; its other links keep the old text, and
    /// [`Written::hard_links_broken`] lists it. A deletion removes that one name; a change
    /// of mode alone is made to the file all its names share.
    Break,
}

/// Writes `change` to `system`: all files or none, refusing files with other hard links.
/// Files are read with at most `max_file_size` bytes, as the loader reads them.
pub fn apply_change(
    system: &dyn WritableSystem,
    change: &SourceChange,
    max_file_size: u64,
) -> Result<Written, ApplyError> {
    apply_change_with(system, change, max_file_size, HardLinks::Refuse)
}

/// [`apply_change`], with files that have other hard links treated as `links` says.
pub fn apply_change_with(
    system: &dyn WritableSystem,
    change: &SourceChange,
    max_file_size: u64,
    links: HardLinks,
) -> Result<Written, ApplyError> {
    let files: Vec<&FileEdit> = change
        .files
        .iter()
        .filter(|file| !file.edits.is_empty())
        .collect();
    let (modes_with_text, tree_edits) = modes_with_text(&files, &change.file_system)?;
    each_path_once(&files, &tree_edits)?;
    let mut planned: Vec<Plan> = Vec::with_capacity(files.len());
    for file in &files {
        let executable = modes_with_text.get(file.path.as_str()).copied();
        let plan = plan(system, file, executable, max_file_size, links)?;
        // Two paths to one file (a symlink): writing both would apply the edit twice.
        if let Some(first) = planned.iter().find(|p| p.real_path == plan.real_path) {
            if first.new_bytes == plan.new_bytes {
                continue;
            }
            return Err(ApplyError::Refused {
                path: plan.path,
                reason: format!("the same file as {}, edited differently", first.path),
            });
        }
        planned.push(plan);
    }
    let mut tree_plans: Vec<TreePlan> = Vec::with_capacity(tree_edits.len());
    for edit in &tree_edits {
        tree_plans.push(plan_tree_edit(system, edit, max_file_size, links)?);
    }
    each_real_path_once(&planned, &tree_plans)?;

    // Every new text is on disk, synced, before any file is replaced.
    let mut staged = Vec::with_capacity(planned.len());
    for plan in &planned {
        pause_for_tests();
        let staging = match plan.new_mode {
            Some((_, mode)) => system.stage_new(&plan.real_path, &plan.new_bytes, mode),
            None => system.stage(&plan.real_path, &plan.new_bytes),
        };
        match staging {
            Ok(temporary) => staged.push(temporary),
            // Dropping `staged` removes the temporary files.
            Err(error) => {
                return Err(ApplyError::Io {
                    path: plan.path.clone(),
                    error,
                    restore_failures: Vec::new(),
                });
            }
        }
    }
    // Then the new files, in the directories they need (created here, and remembered so
    // that a failure removes them again).
    let mut created_directories: Vec<PathBuf> = Vec::new();
    let mut staged_new: Vec<Option<Box<dyn StagedFile + '_>>> = Vec::new();
    for tree_plan in &tree_plans {
        let Some(new) = tree_plan.new_file() else {
            staged_new.push(None);
            continue;
        };
        let staging = stage_new_file(system, new, &mut created_directories);
        match staging {
            Ok(temporary) => staged_new.push(Some(temporary)),
            Err(error) => {
                // The temporary files go first: some lie in the directories to remove.
                drop(staged_new);
                drop(staged);
                return Err(ApplyError::Io {
                    path: new.path.clone(),
                    error,
                    restore_failures: remove_directories(system, &created_directories),
                });
            }
        }
    }

    let mut done: Vec<Done> = Vec::new();
    let mut replacing = planned.iter().zip(staged);
    while let Some((plan, temporary)) = replacing.next() {
        pause_for_tests();
        let outcome = recheck(
            system,
            &plan.real_path,
            plan.base_hash,
            &plan.path,
            max_file_size,
        )
        .and_then(|()| {
            temporary
                .replace()
                .map_err(|error| io_error(&plan.path, error))
        });
        if let Err(error) = outcome {
            drop(replacing);
            drop(staged_new);
            return Err(undo(system, done, &created_directories, error, &plan.path));
        }
        done.push(Done::Replaced(plan));
    }
    let mut steps = tree_plans.iter().zip(staged_new);
    while let Some((tree_plan, temporary)) = steps.next() {
        if let Err((error, path)) = take(system, tree_plan, temporary, &mut done, max_file_size) {
            drop(steps);
            return Err(undo(system, done, &created_directories, error, &path));
        }
    }

    for plan in &planned {
        system.sync_directory(&plan.real_path);
    }
    for tree_plan in &tree_plans {
        for real_path in tree_plan.real_paths() {
            system.sync_directory(real_path);
        }
    }
    for directory in &created_directories {
        system.sync_directory(directory);
    }
    let hard_links_broken = (planned.iter())
        .filter(|plan| plan.breaks_links)
        .map(|plan| plan.path.clone())
        .chain(
            (tree_plans.iter())
                .filter(|plan| !matches!(plan, TreePlan::SetExecutable { .. }))
                .filter_map(TreePlan::source)
                .filter(|source| source.breaks_links)
                .map(|source| source.path.clone()),
        )
        .collect();
    let mut written = Written {
        hard_links_broken,
        mode_changed: planned
            .iter()
            .filter_map(|plan| {
                let (executable, _) = plan.new_mode?;
                let path = plan.path.clone();
                Some(ModeChanged { path, executable })
            })
            .collect(),
        files: planned
            .into_iter()
            .map(|plan| WrittenFile {
                path: plan.path,
                new_hash: ContentHash::of(&plan.new_bytes),
                text: plan.new_text,
            })
            .collect(),
        ..Written::default()
    };
    for tree_plan in tree_plans {
        match tree_plan {
            TreePlan::Create { new } => written.created.push(WrittenFile {
                path: new.path,
                new_hash: ContentHash::of(&new.bytes),
                text: new.text,
            }),
            TreePlan::Delete { source } => written.deleted.push(source.path),
            TreePlan::Move { source, new } => written.moved.push(MovedFile {
                from: source.path,
                to: new.path,
                new_hash: ContentHash::of(&new.bytes),
                text: new.text,
            }),
            TreePlan::SetExecutable { source, executable } => {
                written.mode_changed.push(ModeChanged {
                    path: source.path,
                    executable,
                })
            }
        }
    }
    Ok(written)
}

/// One file's write, decided before anything is written.
struct Plan {
    path: String,
    real_path: PathBuf,
    old_bytes: Vec<u8>,
    base_hash: ContentHash,
    new_text: String,
    /// `new_text` in the file's encoding.
    new_bytes: Vec<u8>,
    /// The executable bit a patch sets with the new text, the mode that makes, and
    /// (`old_mode`) the mode a rollback puts back.
    new_mode: Option<(bool, u32)>,
    old_mode: u32,
    /// The file has other hard links, which keep the old text.
    breaks_links: bool,
}

/// One file-system edit, decided before anything is written.
enum TreePlan {
    Create { new: NewFile },
    Delete { source: Source },
    Move { source: Source, new: NewFile },
    SetExecutable { source: Source, executable: bool },
}

/// An existing file an edit deletes, moves or changes the mode of, as it was planned.
struct Source {
    path: String,
    real_path: PathBuf,
    base_hash: ContentHash,
    /// The bytes and mode a rollback puts back.
    old_bytes: Vec<u8>,
    mode: u32,
    /// The file has other hard links (which keep its bytes).
    breaks_links: bool,
}

/// A file to create where nothing is.
struct NewFile {
    path: String,
    real_path: PathBuf,
    text: String,
    /// `text` in the encoding it is written in.
    bytes: Vec<u8>,
    mode: u32,
    /// The directories to create first, outermost first (real paths).
    missing_directories: Vec<PathBuf>,
}

impl TreePlan {
    fn new_file(&self) -> Option<&NewFile> {
        match self {
            TreePlan::Create { new } | TreePlan::Move { new, .. } => Some(new),
            TreePlan::Delete { .. } | TreePlan::SetExecutable { .. } => None,
        }
    }

    fn source(&self) -> Option<&Source> {
        match self {
            TreePlan::Delete { source }
            | TreePlan::Move { source, .. }
            | TreePlan::SetExecutable { source, .. } => Some(source),
            TreePlan::Create { .. } => None,
        }
    }

    /// The real paths it touches, with the workspace-relative path each was named by.
    fn named_real_paths(&self) -> impl Iterator<Item = (&Path, &str)> {
        let source = self
            .source()
            .map(|s| (s.real_path.as_path(), s.path.as_str()));
        let new = self
            .new_file()
            .map(|n| (n.real_path.as_path(), n.path.as_str()));
        source.into_iter().chain(new)
    }

    fn real_paths(&self) -> impl Iterator<Item = &Path> {
        self.named_real_paths().map(|(real, _)| real)
    }
}

/// A step taken, as a rollback undoes it.
enum Done<'a> {
    Replaced(&'a Plan),
    /// A file created, or a moved file's new path with the old one's name: when the old
    /// path cannot be restored, the new one keeps the only copy and stays.
    Created {
        path: String,
        real_path: PathBuf,
        moved_from: Option<String>,
    },
    /// A file removed (deleted, or a moved file's old path), with what it held.
    Removed {
        path: String,
        real_path: PathBuf,
        bytes: Vec<u8>,
        mode: u32,
    },
    ModeSet {
        path: String,
        real_path: PathBuf,
        old_mode: u32,
    },
}

/// For the test that kills a writing process part-way (`tests/apply_killed.rs`): a pause
/// before every step, so that a kill can land between any two of them.
fn pause_for_tests() {
    if let Some(pause) = crate::testing::hooks().apply_step_pause {
        std::thread::sleep(pause);
    }
}

/// `path` as a plain relative path: no root, no `..` or `.`, so it cannot name anything
/// outside the root before symlinks are considered.
fn plain_relative(path: &str) -> Result<&Path, ApplyError> {
    let relative = Path::new(path);
    if path.is_empty()
        || relative.is_absolute()
        || relative
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(refused(path, "not a plain workspace-relative path"));
    }
    Ok(relative)
}

fn refused(path: &str, reason: impl Into<String>) -> ApplyError {
    ApplyError::Refused {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// No path is the subject of two file-system edits, nor of one and a text edit: the order
/// of the steps would decide what the disk ends with.
fn each_path_once(files: &[&FileEdit], tree_edits: &[FileSystemEdit]) -> Result<(), ApplyError> {
    let mut named: Vec<(PathBuf, &str)> = Vec::new();
    let key = |path: &str| Path::new(path).components().collect::<PathBuf>();
    for file in files {
        named.push((key(&file.path), "a text edit"));
    }
    for edit in tree_edits {
        let roles: &[&str] = match edit {
            FileSystemEdit::Create { .. } => &["a create"],
            FileSystemEdit::Delete { .. } => &["a delete"],
            FileSystemEdit::Move { .. } => &["a move from", "a move to"],
            FileSystemEdit::SetExecutable { .. } => &["a change of executable bits"],
        };
        for (path, role) in edit.paths().zip(roles) {
            if let Some((_, first)) = named.iter().find(|(seen, _)| *seen == key(path)) {
                return Err(refused(path, format!("named by both {first} and {role}")));
            }
            named.push((key(path), role));
        }
    }
    Ok(())
}

/// Two names of one real file (through a symlinked directory) in a file-system edit and any
/// other: each step would undo or repeat the other.
fn each_real_path_once(planned: &[Plan], tree_plans: &[TreePlan]) -> Result<(), ApplyError> {
    let mut seen: Vec<(&Path, &str)> = planned
        .iter()
        .map(|p| (p.real_path.as_path(), p.path.as_str()))
        .collect();
    for (real_path, path) in tree_plans.iter().flat_map(TreePlan::named_real_paths) {
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == real_path) {
            return Err(refused(path, format!("the same file as {first}")));
        }
        seen.push((real_path, path));
    }
    Ok(())
}

/// A change of executable bits on a file whose text is edited too is made with the new
/// text (the staged file gets the new mode), not as a step of its own, which would find
/// the file changed; it must be computed from the same text as the edit. The other
/// file-system edits are returned as they are.
fn modes_with_text<'a>(
    files: &[&'a FileEdit],
    tree_edits: &[FileSystemEdit],
) -> Result<(HashMap<&'a str, bool>, Vec<FileSystemEdit>), ApplyError> {
    let mut modes = HashMap::new();
    let mut rest = Vec::new();
    for edit in tree_edits {
        let FileSystemEdit::SetExecutable {
            path,
            base_hash,
            executable,
        } = edit
        else {
            rest.push(edit.clone());
            continue;
        };
        let Some(file) = files.iter().find(|f| &f.path == path) else {
            rest.push(edit.clone());
            continue;
        };
        if file.base_hash != *base_hash || modes.insert(file.path.as_str(), *executable).is_some() {
            return Err(refused(
                path,
                "its text edit and its change of executable bits name different texts",
            ));
        }
    }
    Ok((modes, rest))
}

fn plan(
    system: &dyn WritableSystem,
    file: &FileEdit,
    executable: Option<bool>,
    max_file_size: u64,
    links: HardLinks,
) -> Result<Plan, ApplyError> {
    let refused = |reason: String| refused(&file.path, reason);
    let relative = plain_relative(&file.path)?;
    let content = system
        .read(&system.root().join(relative), max_file_size)
        .map_err(|refusal| refused(refusal.to_string()))?;
    // Before the hash: the index holds such a file decoded lossily, so an edit computed
    // from it never matches the bytes, and the refusal must say why, not `CONFLICT`.
    let Some(text) = file.encoding.decode(&content.bytes) else {
        return Err(refused(
            "not valid UTF-8, so an edit computed from the index never applies to it \
             (a patch reads it as Latin-1)"
                .to_string(),
        ));
    };
    if ContentHash::of(&content.bytes) != file.base_hash {
        return Err(ApplyError::Conflict {
            path: file.path.clone(),
        });
    }
    let new_text = file.apply(&text).map_err(ApplyError::BadEdit)?;
    let new_bytes = file
        .encoding
        .encode(&new_text)
        .map_err(|unencodable| refused(unencodable.to_string()))?
        .into_owned();
    let breaks_links = writable(system, &content.real_path, &file.path, links)?;
    let old_mode = match executable {
        Some(_) => system
            .mode(&content.real_path)
            .map_err(|error| refused(error.to_string()))?,
        None => 0,
    };
    Ok(Plan {
        path: file.path.clone(),
        real_path: content.real_path,
        base_hash: file.base_hash,
        old_bytes: content.bytes,
        new_text,
        new_bytes,
        new_mode: executable.map(|on| (on, with_executable(old_mode, on))),
        old_mode,
        breaks_links,
    })
}

fn plan_tree_edit(
    system: &dyn WritableSystem,
    edit: &FileSystemEdit,
    max_file_size: u64,
    links: HardLinks,
) -> Result<TreePlan, ApplyError> {
    Ok(match edit {
        FileSystemEdit::Create {
            path,
            text,
            executable,
        } => TreePlan::Create {
            new: plan_new_file(
                system,
                path,
                text,
                TextEncoding::Utf8,
                with_executable(system.new_file_mode(), *executable),
            )?,
        },
        FileSystemEdit::Delete { path, base_hash } => TreePlan::Delete {
            source: plan_source(system, path, *base_hash, max_file_size, links)?,
        },
        FileSystemEdit::Move {
            from,
            to,
            base_hash,
            text,
            executable,
            encoding,
        } => {
            let source = plan_source(system, from, *base_hash, max_file_size, links)?;
            let mode = match executable {
                Some(executable) => with_executable(source.mode, *executable),
                None => source.mode,
            };
            let new = plan_new_file(system, to, text, *encoding, mode)?;
            TreePlan::Move { source, new }
        }
        FileSystemEdit::SetExecutable {
            path,
            base_hash,
            executable,
        } => TreePlan::SetExecutable {
            source: plan_source(system, path, *base_hash, max_file_size, links)?,
            executable: *executable,
        },
    })
}

/// Refuses the file at `real_path` (named `path`) when its permissions protect it, or when
/// it has other hard links and `links` does not allow breaking them; whether it has them.
fn writable(
    system: &dyn WritableSystem,
    real_path: &Path,
    path: &str,
    links: HardLinks,
) -> Result<bool, ApplyError> {
    if let Some(reason) = system.write_protection(real_path) {
        return Err(refused(path, reason));
    }
    let count = system
        .hard_links(real_path)
        .map_err(|error| refused(path, error.to_string()))?;
    if count > 1 && links == HardLinks::Refuse {
        return Err(refused(
            path,
            format!(
                "it has {count} hard links, and replacing it would leave the others with \
                 the old text (allow that with `break_hard_links`)"
            ),
        ));
    }
    Ok(count > 1)
}

/// `mode` with the executable bit of each class that may read the file set, or with every
/// executable bit cleared.
fn with_executable(mode: u32, executable: bool) -> u32 {
    if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    }
}

/// An existing file a file-system edit removes or changes: a regular file (not a symlink,
/// which would make the edit act on its target) inside the root, holding the bytes the edit
/// was computed from (any bytes: a file that is not UTF-8 may be deleted or moved too), and
/// not write-protected.
fn plan_source(
    system: &dyn WritableSystem,
    path: &str,
    base_hash: ContentHash,
    max_file_size: u64,
    links: HardLinks,
) -> Result<Source, ApplyError> {
    let at = system.root().join(plain_relative(path)?);
    match system.symlink_metadata(&at) {
        Ok(metadata) if metadata.kind == FileKind::Symlink => {
            return Err(refused(
                path,
                "a symlink, and sextant never deletes, moves or changes a file through a link to it",
            ));
        }
        Ok(_) => {}
        Err(refusal) => return Err(refused(path, refusal.to_string())),
    }
    let content = system
        .read(&at, max_file_size)
        .map_err(|refusal| refused(path, refusal.to_string()))?;
    if ContentHash::of(&content.bytes) != base_hash {
        return Err(ApplyError::Conflict {
            path: path.to_string(),
        });
    }
    let breaks_links = writable(system, &content.real_path, path, links)?;
    let mode = system
        .mode(&content.real_path)
        .map_err(|error| refused(path, error.to_string()))?;
    Ok(Source {
        path: path.to_string(),
        real_path: content.real_path,
        base_hash,
        old_bytes: content.bytes,
        mode,
        breaks_links,
    })
}

/// A file to create at `path`: nothing there (not even a dangling symlink), and the nearest
/// existing directory above it inside the root once its symlinks are resolved; the
/// directories below that one are created by the write.
fn plan_new_file(
    system: &dyn WritableSystem,
    path: &str,
    text: &str,
    encoding: TextEncoding,
    mode: u32,
) -> Result<NewFile, ApplyError> {
    let bytes = encoding
        .encode(text)
        .map_err(|unencodable| refused(path, unencodable.to_string()))?
        .into_owned();
    let root = system.root();
    let at = root.join(plain_relative(path)?);
    match system.symlink_metadata(&at) {
        Ok(metadata) => {
            let what = match metadata.kind {
                FileKind::File => "a file",
                FileKind::Dir => "a directory",
                FileKind::Symlink => "a symlink",
                FileKind::Special(kind) => kind,
            };
            return Err(refused(path, format!("{what} already exists there")));
        }
        Err(ReadRefusal::NotFound) => {}
        Err(refusal) => return Err(refused(path, refusal.to_string())),
    }
    let mut missing = Vec::new();
    let mut ancestor = at.parent();
    let existing = loop {
        let Some(directory) = ancestor else {
            return Err(refused(path, "the workspace root is gone"));
        };
        match system.canonicalize(directory) {
            Ok(real) if !real.starts_with(root) => {
                return Err(refused(
                    path,
                    ReadRefusal::OutsideWorkspace(real).to_string(),
                ));
            }
            Ok(real) if system.is_dir(&real) => break real,
            Ok(real) => {
                return Err(refused(
                    path,
                    format!("{} is not a directory", real.display()),
                ));
            }
            Err(ReadRefusal::NotFound) => {
                // A link leading nowhere: `mkdir` would refuse it anyway, and following it
                // could create a directory anywhere.
                if system.symlink_metadata(directory).is_ok() {
                    return Err(refused(
                        path,
                        format!(
                            "{} is a symlink that leads nowhere",
                            directory.strip_prefix(root).unwrap_or(directory).display()
                        ),
                    ));
                }
                missing.extend(directory.file_name());
                ancestor = directory.parent();
            }
            Err(refusal) => return Err(refused(path, refusal.to_string())),
        }
    };
    let mut missing_directories = Vec::with_capacity(missing.len());
    let mut directory = existing;
    for name in missing.into_iter().rev() {
        directory = directory.join(name);
        missing_directories.push(directory.clone());
    }
    Ok(NewFile {
        path: path.to_string(),
        real_path: directory.join(at.file_name().expect("a plain path names a file")),
        text: text.to_string(),
        bytes,
        mode,
        missing_directories,
    })
}

/// Creates the directories `new` needs that this write has not created yet, then stages
/// its text beside its target.
fn stage_new_file<'s>(
    system: &'s dyn WritableSystem,
    new: &NewFile,
    created_directories: &mut Vec<PathBuf>,
) -> io::Result<Box<dyn StagedFile + 's>> {
    for directory in &new.missing_directories {
        if created_directories.contains(directory) {
            continue;
        }
        pause_for_tests();
        system.create_directory(directory)?;
        created_directories.push(directory.clone());
    }
    pause_for_tests();
    system.stage_new(&new.real_path, &new.bytes, new.mode)
}

/// Takes the steps of one file-system edit, each after checking its precondition again,
/// recording each in `done`; on failure, the error and the path it concerns.
fn take<'p>(
    system: &dyn WritableSystem,
    tree_plan: &'p TreePlan,
    temporary: Option<Box<dyn StagedFile + '_>>,
    done: &mut Vec<Done<'p>>,
    max_file_size: u64,
) -> Result<(), (ApplyError, String)> {
    let with_path = |path: &str| {
        let path = path.to_string();
        move |error: ApplyError| (error, path)
    };
    let link_new = |new: &NewFile, temporary: Box<dyn StagedFile + '_>| {
        pause_for_tests();
        temporary.link_new().map_err(|error| {
            let error = if error.kind() == io::ErrorKind::AlreadyExists {
                refused(&new.path, "something was created there meanwhile")
            } else {
                io_error(&new.path, error)
            };
            (error, new.path.clone())
        })
    };
    let recheck_source = |source: &Source| {
        recheck(
            system,
            &source.real_path,
            source.base_hash,
            &source.path,
            max_file_size,
        )
        .map_err(with_path(&source.path))
    };
    let remove = |source: &Source, done: &mut Vec<Done<'p>>| {
        pause_for_tests();
        recheck_source(source)?;
        system
            .remove_file(&source.real_path)
            .map_err(|error| (io_error(&source.path, error), source.path.clone()))?;
        done.push(Done::Removed {
            path: source.path.clone(),
            real_path: source.real_path.clone(),
            bytes: source.old_bytes.clone(),
            mode: source.mode,
        });
        Ok(())
    };
    match tree_plan {
        TreePlan::Create { new } => {
            link_new(new, temporary.expect("a new file is staged"))?;
            done.push(Done::Created {
                path: new.path.clone(),
                real_path: new.real_path.clone(),
                moved_from: None,
            });
        }
        TreePlan::Delete { source } => remove(source, done)?,
        TreePlan::Move { source, new } => {
            recheck_source(source)?;
            link_new(new, temporary.expect("a moved file is staged"))?;
            done.push(Done::Created {
                path: new.path.clone(),
                real_path: new.real_path.clone(),
                moved_from: Some(source.path.clone()),
            });
            remove(source, done)?;
        }
        TreePlan::SetExecutable { source, executable } => {
            pause_for_tests();
            recheck_source(source)?;
            let mode = with_executable(source.mode, *executable);
            system
                .set_mode(&source.real_path, mode)
                .map_err(|error| (io_error(&source.path, error), source.path.clone()))?;
            done.push(Done::ModeSet {
                path: source.path.clone(),
                real_path: source.real_path.clone(),
                old_mode: source.mode,
            });
        }
    }
    Ok(())
}

/// The file must still hold the text the edit was computed from just before it is
/// replaced: an editor may have saved it while the others were being staged.
fn recheck(
    system: &dyn WritableSystem,
    real_path: &Path,
    base_hash: ContentHash,
    path: &str,
    max_file_size: u64,
) -> Result<(), ApplyError> {
    match system.read(real_path, max_file_size) {
        Ok(content) if ContentHash::of(&content.bytes) == base_hash => Ok(()),
        Ok(_) | Err(ReadRefusal::TooLarge { .. }) => Err(ApplyError::Conflict {
            path: path.to_string(),
        }),
        Err(refusal) => Err(refused(path, refusal.to_string())),
    }
}

fn io_error(path: &str, error: io::Error) -> ApplyError {
    ApplyError::Io {
        path: path.to_string(),
        error,
        restore_failures: Vec::new(),
    }
}

/// Undoes every step in `done`, last first, and removes the directories this write
/// created; `error` (which stopped the write at `path`) as returned, with what could not be
/// restored.
fn undo(
    system: &dyn WritableSystem,
    done: Vec<Done>,
    created_directories: &[PathBuf],
    error: ApplyError,
    path: &str,
) -> ApplyError {
    let mut restore_failures: Vec<String> = Vec::new();
    for step in done.into_iter().rev() {
        let (path, restored) = match step {
            Done::Replaced(plan) => {
                let staging = match plan.new_mode {
                    Some(_) => system.stage_new(&plan.real_path, &plan.old_bytes, plan.old_mode),
                    None => system.stage(&plan.real_path, &plan.old_bytes),
                };
                let restored = staging.and_then(|temporary| temporary.replace());
                (plan.path.clone(), restored)
            }
            Done::Created {
                path,
                moved_from: Some(from),
                ..
            } if restore_failures.contains(&from) => {
                restore_failures.push(path);
                continue;
            }
            Done::Created {
                path, real_path, ..
            } => (path, system.remove_file(&real_path)),
            Done::Removed {
                path,
                real_path,
                bytes,
                mode,
            } => (
                path,
                system
                    .stage_new(&real_path, &bytes, mode)
                    .and_then(|temporary| temporary.link_new()),
            ),
            Done::ModeSet {
                path,
                real_path,
                old_mode,
            } => (path, system.set_mode(&real_path, old_mode)),
        };
        if restored.is_err() {
            restore_failures.push(path);
        }
    }
    restore_failures.extend(remove_directories(system, created_directories));
    match error {
        ApplyError::Io { path, error, .. } => ApplyError::Io {
            path,
            error,
            restore_failures,
        },
        other if restore_failures.is_empty() => other,
        other => ApplyError::Io {
            path: path.to_string(),
            error: io::Error::other(other.to_string()),
            restore_failures,
        },
    }
}

/// Removes the directories this write created, innermost first; those it could not remove
/// (as `dir/`).
fn remove_directories(system: &dyn WritableSystem, created: &[PathBuf]) -> Vec<String> {
    created
        .iter()
        .rev()
        .filter(|directory| system.remove_empty_directory(directory).is_err())
        .map(|directory| {
            let relative = directory.strip_prefix(system.root()).unwrap_or(directory);
            format!("{}/", relative.display())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::{FileText, LineIndex, Span, TextEdit, TextRange};
    use crate::workspace::{ApplyStep, MemorySystem, OsSystem, System};
    use std::fs;

    fn disk(root: &Path) -> OsSystem {
        OsSystem::new(root.to_path_buf())
    }

    fn replace(path: &str, base: &str, from: &str, to: &str) -> FileEdit {
        let start = base.find(from).unwrap() as u32;
        let range = TextRange::new(start.into(), (start + from.len() as u32).into());
        let edit = TextEdit {
            range: Span::new(&LineIndex::new(base), range),
            new_text: to.to_string(),
        };
        FileEdit::new(path, base, vec![edit])
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        (dir, root)
    }

    fn read(root: &Path, path: &str) -> String {
        fs::read_to_string(root.join(path)).unwrap()
    }

    const LIMIT: u64 = 1 << 20;

    #[test]
    fn every_file_is_written_and_keeps_crlf_bom_and_permissions() {
        let a = "\u{feff}def f():\r\n    return 1\r\n";
        let (_dir, root) = workspace(&[("a.py", a), ("pkg/b.py", "from a import f\n")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(root.join("a.py"), fs::Permissions::from_mode(0o751)).unwrap();
        }
        let change = SourceChange {
            files: vec![
                replace("a.py", a, "f(", "g("),
                replace("pkg/b.py", "from a import f\n", "f\n", "g\n"),
            ],
            file_system: Vec::new(),
        };
        let applied = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(applied.files.len(), 2);
        assert_eq!(read(&root, "a.py"), "\u{feff}def g():\r\n    return 1\r\n");
        assert_eq!(read(&root, "pkg/b.py"), "from a import g\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(root.join("a.py"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o751);
        }
        let leftovers: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with(".sextant-write-"))
            .collect();
        assert_eq!(leftovers, Vec::<String>::new());
    }

    #[test]
    fn a_file_changed_since_the_edit_was_computed_stops_every_write() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "z"),
                replace("b.py", "y = 0\n", "y", "z"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "CONFLICT");
        assert_eq!(
            error.to_string(),
            "b.py changed since the edit was computed; nothing was written"
        );
        assert_eq!(read(&root, "a.py"), "x = 1\n");
    }

    fn memory(files: &[(&str, &str)]) -> MemorySystem {
        let system = MemorySystem::new("/ws");
        for (path, text) in files {
            system.write(path, text);
        }
        system
    }

    fn read_memory(system: &MemorySystem, path: &str) -> String {
        let content = system.read(&system.path(path), LIMIT).unwrap();
        String::from_utf8(content.bytes).unwrap()
    }

    #[test]
    fn a_failure_at_any_step_leaves_every_file_as_it_was() {
        let files = [
            ("a.py", "a = 1\n"),
            ("b.py", "b = 1\n"),
            ("c.py", "c = 1\n"),
        ];
        let change = SourceChange {
            files: files
                .iter()
                .map(|(path, text)| replace(path, text, "1", "2"))
                .collect(),
            file_system: Vec::new(),
        };
        let steps = (0..3).flat_map(|n| [ApplyStep::WriteTemporary(n), ApplyStep::Replace(n)]);
        for step in steps {
            let system = memory(&files);
            system.fail_at(step, "disk full");
            let error = apply_change(&system, &change, LIMIT).unwrap_err();
            assert_eq!(error.code().as_str(), "WRITE_FAILED", "{step:?}");
            let (ApplyStep::WriteTemporary(n) | ApplyStep::Replace(n)) = step else {
                unreachable!("only text edits")
            };
            let failed = ["a.py", "b.py", "c.py"][n];
            assert_eq!(
                error.to_string(),
                format!("writing {failed} failed: disk full; every file was left as it was"),
                "{step:?}"
            );
            for (path, text) in files {
                assert_eq!(read_memory(&system, path), text, "{path} after {step:?}");
            }
        }
        let system = memory(&files);
        apply_change(&system, &change, LIMIT).unwrap();
        assert_eq!(read_memory(&system, "b.py"), "b = 2\n");
    }

    #[test]
    fn a_read_only_file_in_memory_is_refused_before_anything_is_written() {
        let system = memory(&[("a.py", "x = 1\n"), ("ro.py", "x = 1\n")]);
        system.set_read_only("ro.py");
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "y"),
                replace("ro.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&system, &change, LIMIT).unwrap_err();
        assert_eq!(error.to_string(), "ro.py: read-only; nothing was written");
        assert_eq!(read_memory(&system, "a.py"), "x = 1\n");
    }

    #[test]
    fn invalid_utf8_and_paths_leaving_the_root_are_refused() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n")]);
        fs::write(root.join("bad.py"), b"x = '\xff'\n").unwrap();
        // An edit computed from the text the index holds (decoded lossily), as a rename
        // through the file computes it; a regression: this was refused as a `CONFLICT`.
        let lossy = "x = '\u{fffd}'\n";
        let change = SourceChange {
            files: vec![replace("bad.py", lossy, "x", "y")],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        let change = SourceChange {
            files: vec![FileEdit {
                base_hash: ContentHash::of(b"x = '\xff'\n"),
                ..replace("bad.py", lossy, "x", "y")
            }],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        assert_eq!(
            error.to_string(),
            "bad.py: not valid UTF-8, so an edit computed from the index never applies to it \
             (a patch reads it as Latin-1); nothing was written"
        );
        let escape = SourceChange {
            files: vec![replace("../a.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        assert_eq!(
            apply_change(&disk(&root), &escape, LIMIT)
                .unwrap_err()
                .code()
                .as_str(),
            "WRITE_REFUSED"
        );
    }

    #[test]
    fn a_latin_1_file_is_edited_in_latin_1_and_every_other_byte_stays() {
        let old: &[u8] = b"# -*- coding: latin-1 -*-\r\nname = 'Jos\xe9'\r\nsign = '\x80'\r\n";
        let (_dir, root) = workspace(&[]);
        fs::write(root.join("old.py"), old).unwrap();
        fs::write(root.join("moved.py"), old).unwrap();
        let base = FileText::decode(old.to_vec());
        assert_eq!(base.encoding, TextEncoding::Latin1);
        let at = base.text.find("Jos").unwrap() as u32;
        let edit = |new_text: &str| {
            let index = LineIndex::new(&base.text);
            let range = TextRange::new(at.into(), (at + "Jos\u{e9}".len() as u32).into());
            FileEdit::of_file(
                "old.py",
                &base,
                vec![TextEdit {
                    range: Span::new(&index, range),
                    new_text: new_text.to_string(),
                }],
            )
        };
        let unencodable = SourceChange {
            files: vec![edit("Jos\u{e9} \u{20ac}")],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &unencodable, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "old.py: line 2 has '€' (U+20AC), which Latin-1, the file's encoding, cannot hold; \
             nothing was written"
        );
        assert_eq!(fs::read(root.join("old.py")).unwrap(), old);
        let change = SourceChange {
            files: vec![edit("Andr\u{e9}")],
            file_system: vec![FileSystemEdit::Move {
                from: "moved.py".into(),
                to: "new/moved.py".into(),
                base_hash: ContentHash::of(old),
                text: format!("{}# \u{fc}\n", base.text),
                executable: None,
                encoding: TextEncoding::Latin1,
            }],
        };
        let written = apply_change(&disk(&root), &change, LIMIT).unwrap();
        let new: &[u8] = b"# -*- coding: latin-1 -*-\r\nname = 'Andr\xe9'\r\nsign = '\x80'\r\n";
        assert_eq!(fs::read(root.join("old.py")).unwrap(), new);
        assert_eq!(written.files[0].new_hash, ContentHash::of(new));
        let moved = [old, b"# \xfc\n"].concat();
        assert_eq!(fs::read(root.join("new/moved.py")).unwrap(), moved);
        assert_eq!(written.moved[0].new_hash, ContentHash::of(&moved));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_written_through_its_link() {
        let (_dir, root) = workspace(&[("real.py", "x = 1\n")]);
        std::os::unix::fs::symlink(root.join("real.py"), root.join("link.py")).unwrap();
        let change = SourceChange {
            files: vec![replace("link.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(read(&root, "real.py"), "y = 1\n");
        assert!(
            fs::symlink_metadata(root.join("link.py"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn two_paths_to_one_file_write_it_once() {
        let (_dir, root) = workspace(&[("real.py", "x = 1\n")]);
        std::os::unix::fs::symlink("real.py", root.join("link.py")).unwrap();
        let same = SourceChange {
            files: vec![
                replace("link.py", "x = 1\n", "x", "y"),
                replace("real.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        apply_change(&disk(&root), &same, LIMIT).unwrap();
        assert_eq!(read(&root, "real.py"), "y = 1\n");
        let different = SourceChange {
            files: vec![
                replace("link.py", "y = 1\n", "y", "a"),
                replace("real.py", "y = 1\n", "1", "2"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &different, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "real.py: the same file as link.py, edited differently; nothing was written"
        );
        assert_eq!(read(&root, "real.py"), "y = 1\n");
    }

    #[test]
    fn read_only_files_and_files_with_hard_links_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("ro.py", "x = 1\n")]);
        fs::set_permissions(root.join("ro.py"), fs::Permissions::from_mode(0o444)).unwrap();
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "y"),
                replace("ro.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        assert_eq!(
            error.to_string(),
            "ro.py: read-only (mode 444); nothing was written"
        );
        assert_eq!(read(&root, "a.py"), "x = 1\n");

        fs::hard_link(root.join("a.py"), root.join("b.py")).unwrap();
        let change = SourceChange {
            files: vec![replace("a.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.py: it has 2 hard links, and replacing it would leave the others with the old \
             text (allow that with `break_hard_links`); nothing was written"
        );
        assert_eq!(read(&root, "b.py"), "x = 1\n");

        // Asked to: the name edited gets the new text, the other keeps the old one, and so
        // does a third name of a file moved away.
        fs::write(root.join("c.py"), "z = 1\n").unwrap();
        fs::hard_link(root.join("c.py"), root.join("d.py")).unwrap();
        let change = SourceChange {
            files: vec![replace("a.py", "x = 1\n", "x", "y")],
            file_system: vec![moved("c.py", "e.py", "z = 1\n", "z = 2\n", None)],
        };
        let written = apply_change_with(&disk(&root), &change, LIMIT, HardLinks::Break).unwrap();
        assert_eq!(written.hard_links_broken, ["a.py", "c.py"]);
        assert_eq!(read(&root, "a.py"), "y = 1\n");
        assert_eq!(read(&root, "b.py"), "x = 1\n");
        assert_eq!(read(&root, "e.py"), "z = 2\n");
        assert_eq!(read(&root, "d.py"), "z = 1\n");
        assert!(!root.join("c.py").exists());
    }

    fn create(path: &str, text: &str, executable: bool) -> FileSystemEdit {
        FileSystemEdit::Create {
            path: path.into(),
            text: text.into(),
            executable,
        }
    }

    fn delete(path: &str, old: &[u8]) -> FileSystemEdit {
        FileSystemEdit::Delete {
            path: path.into(),
            base_hash: ContentHash::of(old),
        }
    }

    fn moved(
        from: &str,
        to: &str,
        old: &str,
        text: &str,
        executable: Option<bool>,
    ) -> FileSystemEdit {
        FileSystemEdit::Move {
            from: from.into(),
            to: to.into(),
            base_hash: ContentHash::of(old.as_bytes()),
            text: text.into(),
            executable,
            encoding: TextEncoding::Utf8,
        }
    }

    fn set_executable(path: &str, old: &str, executable: bool) -> FileSystemEdit {
        FileSystemEdit::SetExecutable {
            path: path.into(),
            base_hash: ContentHash::of(old.as_bytes()),
            executable,
        }
    }

    fn tree_change(file_system: Vec<FileSystemEdit>) -> SourceChange {
        SourceChange {
            files: Vec::new(),
            file_system,
        }
    }

    fn mode(root: &Path, path: &str) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(root.join(path)).unwrap().permissions().mode() & 0o7777
    }

    fn chmod(root: &Path, path: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(root.join(path), fs::Permissions::from_mode(mode)).unwrap();
    }

    /// The names under `root`, directories with a trailing `/`, recursively and sorted.
    fn tree(root: &Path) -> Vec<String> {
        let mut names = Vec::new();
        let mut pending = vec![root.to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let name = entry
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .display()
                    .to_string();
                if entry.file_type().unwrap().is_dir() {
                    names.push(format!("{name}/"));
                    pending.push(entry.path());
                } else {
                    names.push(name);
                }
            }
        }
        names.sort();
        names
    }

    #[test]
    fn a_file_is_created_in_new_directories_with_a_new_files_mode() {
        let (dir, root) = workspace(&[("a.py", "x = 1\n")]);
        // What this process's umask gives a new file, judged by the system itself.
        let probe = dir.path().join("probe");
        fs::File::create(&probe).unwrap();
        let new_mode = mode(dir.path(), "probe");
        fs::remove_file(probe).unwrap();
        let change = tree_change(vec![
            create("pkg/sub/new.py", "y = 2\n", false),
            create("pkg/run", "#!/bin/sh\n", true),
        ]);
        let written = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(read(&root, "pkg/sub/new.py"), "y = 2\n");
        assert_eq!(read(&root, "pkg/run"), "#!/bin/sh\n");
        assert_eq!(mode(&root, "pkg/sub/new.py"), new_mode);
        assert_eq!(mode(&root, "pkg/run"), new_mode | ((new_mode & 0o444) >> 2));
        assert_eq!(
            tree(&root),
            ["a.py", "pkg/", "pkg/run", "pkg/sub/", "pkg/sub/new.py"]
        );
        let created: Vec<(&str, &str)> = written
            .created
            .iter()
            .map(|file| (file.path.as_str(), file.text.as_str()))
            .collect();
        assert_eq!(
            created,
            [("pkg/sub/new.py", "y = 2\n"), ("pkg/run", "#!/bin/sh\n")]
        );
        assert_eq!(written.created[0].new_hash, ContentHash::of(b"y = 2\n"));
        assert_eq!(
            written.paths().collect::<Vec<_>>(),
            ["pkg/sub/new.py", "pkg/run"]
        );
    }

    #[test]
    fn a_file_is_deleted_whatever_its_bytes() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("old.py", "y = 1\n")]);
        fs::write(root.join("bin.dat"), b"\xff\x00\xfe").unwrap();
        let change = tree_change(vec![
            delete("old.py", b"y = 1\n"),
            delete("bin.dat", b"\xff\x00\xfe"),
        ]);
        let written = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(written.deleted, ["old.py", "bin.dat"]);
        assert_eq!(tree(&root), ["a.py"]);
    }

    #[test]
    fn a_moved_file_keeps_its_permissions_and_takes_its_new_text() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("tool.py", "t = 1\n")]);
        chmod(&root, "a.py", 0o640);
        chmod(&root, "tool.py", 0o640);
        let change = tree_change(vec![
            moved("a.py", "lib/b.py", "x = 1\n", "x = 2\n", None),
            moved("tool.py", "bin/tool", "t = 1\n", "t = 1\n", Some(true)),
        ]);
        let written = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(tree(&root), ["bin/", "bin/tool", "lib/", "lib/b.py"]);
        assert_eq!(read(&root, "lib/b.py"), "x = 2\n");
        assert_eq!(mode(&root, "lib/b.py"), 0o640);
        assert_eq!(mode(&root, "bin/tool"), 0o750);
        assert_eq!(
            written.moved[0],
            MovedFile {
                from: "a.py".into(),
                to: "lib/b.py".into(),
                new_hash: ContentHash::of(b"x = 2\n"),
                text: "x = 2\n".into(),
            }
        );
        assert_eq!(
            written.paths().collect::<Vec<_>>(),
            ["a.py", "lib/b.py", "tool.py", "bin/tool"]
        );
    }

    #[test]
    fn executable_bits_follow_the_read_bits_and_the_text_stays() {
        let (_dir, root) = workspace(&[("run.sh", "echo hi\n")]);
        chmod(&root, "run.sh", 0o640);
        let on = tree_change(vec![set_executable("run.sh", "echo hi\n", true)]);
        let written = apply_change(&disk(&root), &on, LIMIT).unwrap();
        assert_eq!(mode(&root, "run.sh"), 0o750);
        assert_eq!(read(&root, "run.sh"), "echo hi\n");
        assert_eq!(
            written.mode_changed,
            [ModeChanged {
                path: "run.sh".into(),
                executable: true
            }]
        );
        let off = tree_change(vec![set_executable("run.sh", "echo hi\n", false)]);
        apply_change(&disk(&root), &off, LIMIT).unwrap();
        assert_eq!(mode(&root, "run.sh"), 0o640);
    }

    #[test]
    fn a_text_edit_and_an_executable_bit_on_one_file_are_one_step() {
        let (_dir, root) = workspace(&[("run.sh", "echo hi\n"), ("b.py", "x = 1\n")]);
        chmod(&root, "run.sh", 0o644);
        let change = SourceChange {
            files: vec![replace("run.sh", "echo hi\n", "hi", "bye")],
            file_system: vec![set_executable("run.sh", "echo hi\n", true)],
        };
        let written = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(read(&root, "run.sh"), "echo bye\n");
        assert_eq!(mode(&root, "run.sh"), 0o755);
        assert_eq!(
            written.mode_changed,
            [ModeChanged {
                path: "run.sh".into(),
                executable: true
            }]
        );

        // A failure after the file was replaced puts back its text and its mode.
        let system = memory(&[("run.sh", "echo hi\n"), ("z.py", "x = 1\n")]);
        system.chmod("run.sh", 0o644);
        let before = system.listing();
        let change = SourceChange {
            files: vec![
                replace("run.sh", "echo hi\n", "hi", "bye"),
                replace("z.py", "x = 1\n", "1", "2"),
            ],
            file_system: vec![set_executable("run.sh", "echo hi\n", true)],
        };
        system.fail_at(ApplyStep::Replace(1), "disk full");
        let error = apply_change(&system, &change, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "writing z.py failed: disk full; every file was left as it was"
        );
        assert_eq!(system.listing(), before);

        // Computed from another text than the edit: refused.
        let stale = SourceChange {
            files: vec![replace("run.sh", "echo bye\n", "bye", "hi")],
            file_system: vec![set_executable("run.sh", "echo hi\n", false)],
        };
        assert_eq!(
            refusal(&root, &stale),
            (
                "WRITE_REFUSED".to_string(),
                "run.sh: its text edit and its change of executable bits name different texts; \
                 nothing was written"
                    .to_string()
            )
        );
    }

    fn refusal(root: &Path, change: &SourceChange) -> (String, String) {
        let error = apply_change(&disk(root), change, LIMIT).unwrap_err();
        (error.code().as_str().to_string(), error.to_string())
    }

    #[test]
    fn nothing_is_created_over_a_file_or_a_dangling_symlink() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        std::os::unix::fs::symlink("missing.py", root.join("dangling.py")).unwrap();
        for (path, what) in [("a.py", "a file"), ("dangling.py", "a symlink")] {
            let change = tree_change(vec![
                create("new/ok.py", "", false),
                create(path, "y\n", false),
            ]);
            assert_eq!(
                refusal(&root, &change),
                (
                    "WRITE_REFUSED".to_string(),
                    format!("{path}: {what} already exists there; nothing was written")
                )
            );
            let change = tree_change(vec![moved("b.py", path, "y = 1\n", "y\n", None)]);
            assert_eq!(
                refusal(&root, &change).1,
                format!("{path}: {what} already exists there; nothing was written")
            );
        }
        assert_eq!(read(&root, "a.py"), "x = 1\n");
        assert!(!root.join("missing.py").exists());
        assert_eq!(read(&root, "b.py"), "y = 1\n");
        assert_eq!(tree(&root), ["a.py", "b.py", "dangling.py"]);
    }

    #[test]
    fn a_symlink_is_never_deleted_moved_or_changed_through() {
        let (_dir, root) = workspace(&[("real.py", "x = 1\n")]);
        std::os::unix::fs::symlink("real.py", root.join("link.py")).unwrap();
        let refused = "link.py: a symlink, and sextant never deletes, moves or changes a file \
                       through a link to it; nothing was written";
        for edit in [
            delete("link.py", b"x = 1\n"),
            moved("link.py", "b.py", "x = 1\n", "x = 1\n", None),
            set_executable("link.py", "x = 1\n", true),
        ] {
            assert_eq!(
                refusal(&root, &tree_change(vec![edit])),
                ("WRITE_REFUSED".to_string(), refused.to_string())
            );
        }
        assert_eq!(tree(&root), ["link.py", "real.py"]);
        assert_eq!(mode(&root, "real.py") & 0o111, 0);
    }

    #[test]
    fn a_file_changed_since_its_deletion_was_computed_is_kept() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("old.py", "y = 2\n")]);
        let change = SourceChange {
            files: vec![replace("a.py", "x = 1\n", "x", "z")],
            file_system: vec![delete("old.py", b"y = 1\n")],
        };
        assert_eq!(
            refusal(&root, &change),
            (
                "CONFLICT".to_string(),
                "old.py changed since the edit was computed; nothing was written".to_string()
            )
        );
        assert_eq!(read(&root, "a.py"), "x = 1\n");
        assert_eq!(read(&root, "old.py"), "y = 2\n");
    }

    #[test]
    fn nothing_is_created_through_a_directory_link_leading_out() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n")]);
        let outside = tempfile::tempdir().unwrap();
        let outside_path = outside.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(&outside_path, root.join("linkdir")).unwrap();
        for path in ["linkdir/x.py", "linkdir/deep/er/x.py"] {
            let change = tree_change(vec![
                create("fine/new.py", "", false),
                create(path, "y\n", false),
            ]);
            assert_eq!(
                refusal(&root, &change),
                (
                    "WRITE_REFUSED".to_string(),
                    format!(
                        "{path}: resolves outside the workspace, to {}; nothing was written",
                        outside_path.display()
                    )
                )
            );
        }
        let out = tempfile::tempdir().unwrap();
        fs::write(out.path().join("o.py"), "o\n").unwrap();
        std::os::unix::fs::symlink(out.path().join("o.py"), root.join("o.py")).unwrap();
        // A move out through a linked directory is refused like a create.
        let change = tree_change(vec![moved(
            "a.py",
            "linkdir/a.py",
            "x = 1\n",
            "x = 1\n",
            None,
        )]);
        assert_eq!(refusal(&root, &change).0, "WRITE_REFUSED");
        assert_eq!(fs::read_dir(&outside_path).unwrap().count(), 0);
        assert_eq!(tree(&root), ["a.py", "linkdir", "o.py"]);
    }

    #[test]
    fn a_path_named_twice_is_refused_naming_both_edits() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        let cases = [
            (
                SourceChange {
                    files: vec![replace("a.py", "x = 1\n", "x", "z")],
                    file_system: vec![delete("a.py", b"x = 1\n")],
                },
                "a.py: named by both a text edit and a delete; nothing was written",
            ),
            (
                tree_change(vec![
                    moved("b.py", "c.py", "y = 1\n", "y = 1\n", None),
                    create("./c.py", "z\n", false),
                ]),
                "./c.py: not a plain workspace-relative path; nothing was written",
            ),
            (
                tree_change(vec![
                    moved("b.py", "c.py", "y = 1\n", "y = 1\n", None),
                    create("c.py", "z\n", false),
                ]),
                "c.py: named by both a move to and a create; nothing was written",
            ),
            (
                tree_change(vec![moved("b.py", "b.py", "y = 1\n", "y = 1\n", None)]),
                "b.py: named by both a move from and a move to; nothing was written",
            ),
        ];
        for (change, message) in cases {
            assert_eq!(
                refusal(&root, &change),
                ("WRITE_REFUSED".to_string(), message.to_string())
            );
        }
        // Two names of one file through a directory link.
        fs::create_dir(root.join("pkg")).unwrap();
        fs::write(root.join("pkg/m.py"), "m\n").unwrap();
        std::os::unix::fs::symlink("pkg", root.join("alias")).unwrap();
        let change = tree_change(vec![
            delete("pkg/m.py", b"m\n"),
            set_executable("alias/m.py", "m\n", true),
        ]);
        assert_eq!(
            refusal(&root, &change).1,
            "alias/m.py: the same file as pkg/m.py; nothing was written"
        );
        assert_eq!(tree(&root), ["a.py", "alias", "b.py", "pkg/", "pkg/m.py"]);
    }

    /// A text edit, a file created in a new directory, a deletion, a move into another new
    /// directory and a mode change, in memory.
    fn mixed() -> (MemorySystem, SourceChange) {
        let system = memory(&[
            ("a.py", "a = 1\n"),
            ("old.py", "old = 1\n"),
            ("m.py", "m = 1\n"),
            ("run.sh", "echo\n"),
        ]);
        system.chmod("m.py", 0o600);
        let change = SourceChange {
            files: vec![replace("a.py", "a = 1\n", "1", "2")],
            file_system: vec![
                create("pkg/new/n.py", "n = 1\n", false),
                delete("old.py", b"old = 1\n"),
                moved("m.py", "lib/m.py", "m = 1\n", "m = 2\n", Some(true)),
                set_executable("run.sh", "echo\n", true),
            ],
        };
        (system, change)
    }

    #[test]
    fn a_failure_at_any_step_of_a_mixed_change_leaves_the_tree_as_it_was() {
        type Step = fn(usize) -> ApplyStep;
        // Each kind of step and how many of it the change takes: failing the one after the
        // last must let the write through, so no step is missed.
        let kinds: [(Step, usize); 6] = [
            (ApplyStep::WriteTemporary, 3),
            (ApplyStep::CreateDir, 3),
            (ApplyStep::Replace, 1),
            (ApplyStep::Create, 2),
            (ApplyStep::Remove, 2),
            (ApplyStep::SetMode, 1),
        ];
        let (fresh, change) = mixed();
        let before = fresh.listing();
        for (kind, count) in kinds {
            for n in 0..count {
                let (system, _) = mixed();
                system.fail_at(kind(n), "disk full");
                let error = apply_change(&system, &change, LIMIT).unwrap_err();
                assert_eq!(error.code().as_str(), "WRITE_FAILED", "{:?}", kind(n));
                assert!(
                    error
                        .to_string()
                        .ends_with(" failed: disk full; every file was left as it was"),
                    "{:?}: {error}",
                    kind(n)
                );
                assert_eq!(system.listing(), before, "after a failure at {:?}", kind(n));
            }
            let (system, _) = mixed();
            system.fail_at(kind(count), "disk full");
            apply_change(&system, &change, LIMIT).unwrap();
        }
        let (system, _) = mixed();
        let written = apply_change(&system, &change, LIMIT).unwrap();
        assert_eq!(
            system.listing(),
            [
                "/ (dir)",
                "/ws/ (dir)",
                "/ws/a.py (644): \"a = 2\\n\"",
                "/ws/lib/ (dir)",
                "/ws/lib/m.py (700): \"m = 2\\n\"",
                "/ws/pkg/ (dir)",
                "/ws/pkg/new/ (dir)",
                "/ws/pkg/new/n.py (644): \"n = 1\\n\"",
                "/ws/run.sh (755): \"echo\\n\"",
            ]
        );
        assert_eq!(
            written.paths().collect::<Vec<_>>(),
            [
                "a.py",
                "pkg/new/n.py",
                "old.py",
                "m.py",
                "lib/m.py",
                "run.sh"
            ]
        );
    }

    #[test]
    fn a_failed_restore_is_reported_and_a_moved_file_keeps_a_copy() {
        let (system, change) = mixed();
        // The last step fails; undoing the move, last step first, puts `m.py` back (its
        // third staging, its third creation), which fails too: then `lib/m.py`, holding
        // the only copy, stays, and so does its directory.
        system
            .fail_at(ApplyStep::SetMode(0), "disk full")
            .and_fail_at(ApplyStep::Create(2), "disk full");
        let error = apply_change(&system, &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_FAILED");
        assert_eq!(
            error.to_string(),
            "writing run.sh failed: disk full; could not restore m.py, lib/m.py, lib/"
        );
        assert_eq!(
            system.listing(),
            [
                "/ (dir)",
                "/ws/ (dir)",
                "/ws/a.py (644): \"a = 1\\n\"",
                "/ws/lib/ (dir)",
                "/ws/lib/m.py (700): \"m = 2\\n\"",
                "/ws/old.py (644): \"old = 1\\n\"",
                "/ws/run.sh (644): \"echo\\n\"",
            ]
        );
    }
}
