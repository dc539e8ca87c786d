//! What changed between revisions, or between a revision and the working tree, read with
//! `gix` from the repository's own files (git is never run): the files under the root that
//! differ, each with its text at the old revision and, for a range, at the new one. `ide`
//! turns them into changed definitions and their impact.
//!
//! Invariant: every path is relative to the workspace root and inside it; a text that is
//! not UTF-8 (or not a file: a submodule, a symlink) is absent rather than guessed at.

use std::{collections::BTreeSet, path::Path, sync::Arc};

use gix::bstr::ByteSlice;

use super::git::{open, under_root};
use crate::ide::{ChangeStatus, ChangedText};

/// Which two states a `changes` request compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revisions {
    /// A revision (`HEAD` when none is named) against the working tree: what is committed
    /// there against the files as they are now, staged or not, untracked included.
    ToWorkingTree(String),
    /// `OLD..NEW`: two revisions' trees.
    Between(String, String),
    /// `A...B`: what `B` changed since it left `A`, the best common ancestor of the two
    /// commits against `B` (a branch's own work, whatever `A` did meanwhile).
    FromMergeBase(String, String),
}

impl Revisions {
    /// `OLD..NEW`, `A...B`, `REV`, or nothing (`HEAD` against the working tree). An empty
    /// side of a range is `HEAD`, as git reads it.
    pub fn parse(spec: Option<&str>) -> Result<Revisions, ChangesError> {
        let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(Revisions::ToWorkingTree("HEAD".into()));
        };
        let or_head = |s: &str| if s.is_empty() { "HEAD" } else { s }.to_string();
        if let Some((a, b)) = spec.split_once("...") {
            if b.contains("..") {
                return Err(ChangesError::Revision(format!(
                    "{spec}: give one range, `A..B` or `A...B`"
                )));
            }
            return Ok(Revisions::FromMergeBase(or_head(a), or_head(b)));
        }
        match spec.split_once("..") {
            Some((old, new)) => Ok(Revisions::Between(or_head(old), or_head(new))),
            None => Ok(Revisions::ToWorkingTree(spec.to_string())),
        }
    }

    /// How the comparison reads: `HEAD..working tree`, `main..feature`.
    pub fn label(&self) -> String {
        match self {
            Revisions::ToWorkingTree(rev) => format!("{rev}..working tree"),
            Revisions::Between(old, new) => format!("{old}..{new}"),
            Revisions::FromMergeBase(a, b) => format!("{a}...{b}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChangesError {
    #[error("the workspace root is in no git repository (or one that cannot be read)")]
    NoRepository,
    #[error("{0}")]
    Revision(String),
    #[error("reading the repository failed: {0}")]
    Read(String),
}

impl crate::ide::Failure for ChangesError {
    fn code(&self) -> crate::ide::ErrorCode {
        match self {
            ChangesError::NoRepository => crate::ide::ErrorCode::NotFound,
            ChangesError::Revision(_) => crate::ide::ErrorCode::InvalidArgument,
            ChangesError::Read(_) => crate::ide::ErrorCode::Internal,
        }
    }
}

/// The files under `root` that differ between `revisions`, in path order.
pub fn changed_texts(root: &Path, revisions: &Revisions) -> Result<Vec<ChangedText>, ChangesError> {
    let (repo, prefix) = open(root).ok_or(ChangesError::NoRepository)?;
    let read = |e: &dyn std::fmt::Display| ChangesError::Read(e.to_string());
    match revisions {
        Revisions::ToWorkingTree(rev) => {
            let old = tree_of(&repo, rev)?;
            let mut paths: BTreeSet<String> = BTreeSet::new();
            // Committed at `rev` but not at HEAD, or the other way round.
            if rev != "HEAD" {
                let head = tree_of(&repo, "HEAD")?;
                for change in repo
                    .diff_tree_to_tree(old.as_ref(), head.as_ref(), None)
                    .map_err(|e| read(&e))?
                {
                    if change.entry_mode().is_blob() {
                        paths.insert(change.location().to_str_lossy().into_owned());
                        paths.insert(change.source_location().to_str_lossy().into_owned());
                    }
                }
            }
            let status = repo
                .status(gix::progress::Discard)
                .map_err(|e| read(&e))?
                .untracked_files(gix::status::UntrackedFiles::Files)
                .into_iter(None)
                .map_err(|e| read(&e))?;
            for item in status {
                let item = item.map_err(|e| read(&e))?;
                paths.insert(item.location().to_str_lossy().into_owned());
            }
            let workdir = repo
                .workdir()
                .ok_or(ChangesError::NoRepository)?
                .to_path_buf();
            let mut out = Vec::new();
            for path in paths {
                let Some(rel) = under_root(&path, &prefix) else {
                    continue;
                };
                let old_text = old.as_ref().and_then(|tree| blob_text(tree, &path));
                let on_disk =
                    std::fs::symlink_metadata(workdir.join(&path)).is_ok_and(|m| m.is_file());
                let was = old_text.is_some() || in_tree(old.as_ref(), &path);
                let status = status_of(was, on_disk);
                out.push(ChangedText {
                    path: rel,
                    status,
                    old: old_text,
                    new: None,
                });
            }
            Ok(out)
        }
        Revisions::Between(old_rev, new_rev) => {
            let (old, new) = (tree_of(&repo, old_rev)?, tree_of(&repo, new_rev)?);
            between(&repo, &prefix, old, new)
        }
        Revisions::FromMergeBase(a, b) => {
            let base = merge_base(&repo, a, b)?;
            let old = tree_of(&repo, &base.to_string())?;
            between(&repo, &prefix, old, tree_of(&repo, b)?)
        }
    }
}

/// The commit `rev` names (a tag peeled to its commit).
fn commit_of(repo: &gix::Repository, rev: &str) -> Result<gix::ObjectId, ChangesError> {
    let id = repo
        .rev_parse_single(rev)
        .map_err(|e| ChangesError::Revision(format!("{rev}: {e}")))?;
    let object = id.object().map_err(|e| ChangesError::Read(e.to_string()))?;
    let commit = object
        .peel_to_commit()
        .map_err(|e| ChangesError::Revision(format!("{rev} names no commit: {e}")))?;
    Ok(commit.id)
}

/// The best common ancestor of the commits `a` and `b` name, as `git merge-base` picks it.
fn merge_base(repo: &gix::Repository, a: &str, b: &str) -> Result<gix::ObjectId, ChangesError> {
    let (one, two) = (commit_of(repo, a)?, commit_of(repo, b)?);
    match repo.merge_base(one, two) {
        Ok(Some(base)) => Ok(base.detach()),
        Ok(None) => Err(ChangesError::Revision(format!(
            "{a}...{b}: the two commits have no common ancestor"
        ))),
        Err(e) => Err(ChangesError::Read(e.to_string())),
    }
}

/// The files under `prefix` that differ between two trees (`None`: the empty tree), with
/// their texts in both.
fn between(
    repo: &gix::Repository,
    prefix: &str,
    old: Option<gix::Tree<'_>>,
    new: Option<gix::Tree<'_>>,
) -> Result<Vec<ChangedText>, ChangesError> {
    let read = |e: &dyn std::fmt::Display| ChangesError::Read(e.to_string());
    let mut paths: BTreeSet<String> = BTreeSet::new();
    for change in repo
        .diff_tree_to_tree(old.as_ref(), new.as_ref(), None)
        .map_err(|e| read(&e))?
    {
        if change.entry_mode().is_blob() || change.source_entry_mode_and_id().0.is_blob() {
            paths.insert(change.location().to_str_lossy().into_owned());
            paths.insert(change.source_location().to_str_lossy().into_owned());
        }
    }
    let mut out = Vec::new();
    for path in paths {
        let Some(rel) = under_root(&path, prefix) else {
            continue;
        };
        let (was, is) = (in_tree(old.as_ref(), &path), in_tree(new.as_ref(), &path));
        let status = status_of(was, is);
        out.push(ChangedText {
            path: rel,
            status,
            old: old.as_ref().and_then(|tree| blob_text(tree, &path)),
            new: Some(new.as_ref().and_then(|tree| blob_text(tree, &path))),
        });
    }
    Ok(out)
}

/// The tree of revision `rev`; `None` for `HEAD` before the first commit.
fn tree_of<'repo>(
    repo: &'repo gix::Repository,
    rev: &str,
) -> Result<Option<gix::Tree<'repo>>, ChangesError> {
    let id = match repo.rev_parse_single(rev) {
        Ok(id) => id,
        Err(_) if rev == "HEAD" && repo.head_id().is_err() => return Ok(None),
        Err(e) => return Err(ChangesError::Revision(format!("{rev}: {e}"))),
    };
    let not_a_tree = |e: &dyn std::fmt::Display| {
        ChangesError::Revision(format!("{rev} names no commit or tree: {e}"))
    };
    let object = id.object().map_err(|e| not_a_tree(&e))?;
    let tree = object.peel_to_tree().map_err(|e| not_a_tree(&e))?;
    Ok(Some(tree))
}

fn in_tree(tree: Option<&gix::Tree<'_>>, path: &str) -> bool {
    tree.is_some_and(|tree| tree.lookup_entry_by_path(path).ok().flatten().is_some())
}

/// The text of the file at `path` in `tree`, when it is a file of UTF-8 text.
fn blob_text(tree: &gix::Tree<'_>, path: &str) -> Option<Arc<str>> {
    let entry = tree.lookup_entry_by_path(path).ok()??;
    if !entry.mode().is_blob() {
        return None;
    }
    let object = entry.object().ok()?;
    std::str::from_utf8(&object.data).ok().map(Arc::from)
}

/// A path's change from whether it was there before and is there now.
fn status_of(was: bool, is: bool) -> ChangeStatus {
    match (was, is) {
        (false, _) => ChangeStatus::Added,
        (true, false) => ChangeStatus::Deleted,
        (true, true) => ChangeStatus::Modified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revision_specs() {
        let head = Revisions::ToWorkingTree("HEAD".into());
        assert_eq!(Revisions::parse(None), Ok(head.clone()));
        assert_eq!(Revisions::parse(Some(" ")), Ok(head));
        assert_eq!(
            Revisions::parse(Some("main")),
            Ok(Revisions::ToWorkingTree("main".into()))
        );
        assert_eq!(
            Revisions::parse(Some("main..feature")),
            Ok(Revisions::Between("main".into(), "feature".into()))
        );
        assert_eq!(
            Revisions::parse(Some("v1..")),
            Ok(Revisions::Between("v1".into(), "HEAD".into()))
        );
        assert_eq!(
            Revisions::parse(Some("main...feature")),
            Ok(Revisions::FromMergeBase("main".into(), "feature".into()))
        );
        assert_eq!(
            Revisions::parse(Some("main...")),
            Ok(Revisions::FromMergeBase("main".into(), "HEAD".into()))
        );
        assert!(Revisions::parse(Some("a...b..c")).is_err());
    }
}
