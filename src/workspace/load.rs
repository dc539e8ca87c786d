//! Walking a root and reading its source files, in parallel.

use std::{
    path::{Path, PathBuf},
    sync::Mutex,
};

use serde::Serialize;

use super::{config::Config, reader::ReadRefusal, system::System};
use crate::lang::{LangId, registry};

/// Bytes inspected for NUL when deciding that a file is binary (as git and ripgrep do).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    TooLarge,
    Binary,
    Unreadable,
    SymlinkLoop,
    OutsideWorkspace,
    NotRegularFile,
    NonUtf8Path,
    /// A second path to a file the workspace already indexes (a symlink to it, or into its
    /// directory): indexed once, under the first path, so that no answer names one file
    /// twice and no edit writes it twice.
    SameFile,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SkippedFile {
    pub path: String,
    pub reason: SkipReason,
    pub detail: String,
}

pub struct LoadedFile {
    pub path: String,
    pub lang: LangId,
    /// Shared as the database will hold it, made on the reading thread: copying every
    /// text into its `Arc` on one thread after reading cost a tenth of a warm start.
    pub text: std::sync::Arc<str>,
    pub lossy_utf8: bool,
    /// The workspace path of the file's real location, when it was reached through a
    /// symlink (so that a change there refreshes this path too).
    pub real_path: Option<String>,
}

/// What a walk yields: a file to read, a directory entered, or a path left out.
#[derive(Debug)]
pub enum Candidate {
    File {
        abs: PathBuf,
        rel: String,
    },
    /// A directory the walk entered (so its files are subject to indexing).
    Dir(String),
    /// A project file that is not source (`package.json`, `go.mod`, ...): see `manifests`.
    Manifest(String),
    Skipped(SkippedFile),
}

/// `sextant.toml`'s include/exclude globs as the `ignore` crate's overrides: an include is
/// a whitelist (anything else is left out), an exclude an ignore rule; both take
/// precedence over ignore files and hidden names.
pub(super) fn overrides(
    root: &Path,
    config: &Config,
) -> Result<ignore::overrides::Override, super::LoadError> {
    let bad = |list, glob: &str, e: ignore::Error| super::LoadError::Glob {
        list,
        glob: glob.to_string(),
        reason: e.to_string(),
    };
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for glob in &config.include {
        overrides.add(glob).map_err(|e| bad("include", glob, e))?;
    }
    for glob in &config.exclude {
        overrides
            .add(&format!("!{glob}"))
            .map_err(|e| bad("exclude", glob, e))?;
    }
    overrides.build().map_err(|e| bad("globs", "", e))
}

/// One entry a walk reached, however the tree is stored.
pub(super) struct Reached<'a> {
    pub path: &'a Path,
    pub depth: usize,
    /// After following a symlink.
    pub is_dir: bool,
    /// The entry is a symlink (followed).
    pub is_symlink: bool,
}

/// Turns what a walk reaches into candidates. Every system's walk feeds one, so they
/// classify, report and order alike.
pub(super) struct Collector<'a> {
    root: &'a Path,
    canonical_root: &'a Path,
    /// Leave out directories of build outputs (see `build_outputs`).
    skip_build_outputs: bool,
    found: Mutex<Vec<Candidate>>,
}

impl<'a> Collector<'a> {
    pub fn new(root: &'a Path, canonical_root: &'a Path, config: &Config) -> Collector<'a> {
        Collector {
            root,
            canonical_root,
            skip_build_outputs: config.skip_build_outputs,
            found: Mutex::new(Vec::new()),
        }
    }

    /// Records one entry or walk error; false when the walk must not enter the directory.
    /// `canonical` resolves a symlinked directory's target; `is_file` says whether a path
    /// is a file (after symlinks).
    pub fn visit(
        &self,
        entry: Result<Reached<'_>, ignore::Error>,
        canonical: impl FnOnce(&Path) -> Option<PathBuf>,
        is_file: impl Fn(&Path) -> bool,
    ) -> bool {
        let root = self.root;
        let candidate = match entry {
            // FIFOs, sockets and devices too: the reader refuses them, and they are
            // reported like any file that could not be read.
            Ok(entry) if !entry.is_dir => classify(root, entry.path),
            Ok(entry) if entry.depth > 0 => {
                if self.skip_build_outputs
                    && let Some(name) = entry.path.file_name().and_then(|n| n.to_str())
                    && super::build_outputs::is_build_output(
                        name,
                        |marker| is_file(&entry.path.join(marker)),
                        |marker| {
                            entry
                                .path
                                .parent()
                                .is_some_and(|p| is_file(&p.join(marker)))
                        },
                    )
                {
                    return false;
                }
                if entry.is_symlink
                    && let Some(skipped) =
                        outside_dir_link(root, self.canonical_root, entry.path, canonical)
                {
                    self.push(Candidate::Skipped(skipped));
                    return false;
                }
                relative_path(root, entry.path).map(Candidate::Dir)
            }
            Ok(_) => None,
            Err(err) => Some(walk_error(root, err)),
        };
        if let Some(c) = candidate {
            self.push(c);
        }
        true
    }

    fn push(&self, candidate: Candidate) {
        self.found.lock().unwrap().push(candidate);
    }

    /// The candidates, sorted by path.
    pub fn finish(self) -> Vec<Candidate> {
        let mut found = self.found.into_inner().unwrap();
        found.sort_by(|a, b| sort_key(a).cmp(sort_key(b)));
        found
    }
}

pub(super) fn sort_key(c: &Candidate) -> &str {
    match c {
        Candidate::File { rel, .. } | Candidate::Dir(rel) | Candidate::Manifest(rel) => rel,
        Candidate::Skipped(s) => &s.path,
    }
}

/// `path` relative to `root` with `/` separators; `None` when it is not under `root` or
/// not valid UTF-8.
pub fn relative_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

fn classify(root: &Path, path: &Path) -> Option<Candidate> {
    let Some(rel) = relative_path(root, path) else {
        return Some(Candidate::Skipped(SkippedFile {
            path: path
                .strip_prefix(root)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned(),
            reason: SkipReason::NonUtf8Path,
            detail: "path is not valid UTF-8".into(),
        }));
    };
    // A write's temporary file (its writer killed, or still at work) is no source.
    if path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with(super::system::TEMPORARY_PREFIX))
    {
        return None;
    }
    // Extensionless files are classified later, from their shebang line.
    if !crate::lang::Registry::needs_shebang(path) && registry().for_path(path, None).is_none() {
        return super::manifests::candidate(rel);
    }
    // Where a symlinked file points is checked when it is read (it can be retargeted).
    Some(Candidate::File {
        abs: path.to_path_buf(),
        rel,
    })
}

/// A symlinked directory pointing outside the root is not entered (its files would be
/// refused one by one when read; a link to `/` would make that a walk of the machine).
fn outside_dir_link(
    root: &Path,
    canonical_root: &Path,
    path: &Path,
    canonical: impl FnOnce(&Path) -> Option<PathBuf>,
) -> Option<SkippedFile> {
    let target = canonical(path)?;
    if target.starts_with(canonical_root) {
        return None;
    }
    Some(SkippedFile {
        path: relative_path(root, path).unwrap_or_else(|| path.to_string_lossy().into_owned()),
        reason: SkipReason::OutsideWorkspace,
        detail: format!("directory symlink to {}", target.display()),
    })
}

fn walk_error(root: &Path, err: ignore::Error) -> Candidate {
    let mut path = None;
    let mut is_loop = false;
    let mut current = &err;
    loop {
        match current {
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert_with(|| p.clone());
                current = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                current = err
            }
            ignore::Error::Loop { child, .. } => {
                path.get_or_insert_with(|| child.clone());
                is_loop = true;
                break;
            }
            _ => break,
        }
    }
    let path =
        path.map(|p| relative_path(root, &p).unwrap_or_else(|| p.to_string_lossy().into_owned()));
    Candidate::Skipped(SkippedFile {
        path: path.unwrap_or_default(),
        reason: if is_loop {
            SkipReason::SymlinkLoop
        } else {
            SkipReason::Unreadable
        },
        detail: err.to_string(),
    })
}

pub enum ReadOutcome {
    Loaded(LoadedFile),
    Skipped(SkippedFile),
    /// Not a source file sextant knows (an extensionless file without a known shebang), or
    /// a file that vanished between the walk and the read.
    Ignored,
}

/// Reads one source file through the system (so confined to its root), enforcing the size
/// limit and rejecting binary content. An editor's open document is taken as it is, in
/// the language it was opened with.
pub fn read_source(system: &dyn System, abs: &Path, rel: &str, max_file_size: u64) -> ReadOutcome {
    let skipped = |reason, detail: String| {
        ReadOutcome::Skipped(SkippedFile {
            path: rel.to_string(),
            reason,
            detail,
        })
    };
    let content = match system.read(abs, max_file_size) {
        Ok(content) => content,
        Err(ReadRefusal::NotFound) => return ReadOutcome::Ignored,
        // An extensionless file sextant cannot read is not known to be source at all.
        Err(_) if crate::lang::Registry::needs_shebang(abs) => return ReadOutcome::Ignored,
        Err(refusal) => {
            let reason = match refusal {
                ReadRefusal::NotFound => unreachable!("handled above"),
                ReadRefusal::OutsideWorkspace(_) => SkipReason::OutsideWorkspace,
                ReadRefusal::NotRegularFile(_) => SkipReason::NotRegularFile,
                ReadRefusal::TooLarge { .. } => SkipReason::TooLarge,
                ReadRefusal::SymlinkLoop => SkipReason::SymlinkLoop,
                ReadRefusal::Io(_) => SkipReason::Unreadable,
            };
            return skipped(reason, refusal.to_string());
        }
    };
    let bytes = content.bytes;
    let lang = match content.open_document {
        Some(lang) => lang,
        None => {
            let first_line = bytes.split(|&b| b == b'\n').next();
            let Some(lang) = registry().for_path(abs, first_line) else {
                return ReadOutcome::Ignored;
            };
            if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
                return skipped(SkipReason::Binary, "contains NUL bytes".into());
            }
            lang.lang_id
        }
    };
    let real_path = relative_path(system.root(), &content.real_path).filter(|real| real != rel);
    let (text, lossy_utf8) = decode(bytes);
    ReadOutcome::Loaded(LoadedFile {
        path: rel.to_string(),
        lang,
        text: text.into(),
        lossy_utf8,
        real_path,
    })
}

/// UTF-8 text, or its lossy decoding and `true` when the bytes are not valid UTF-8.
pub fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}
