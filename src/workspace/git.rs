//! What git knows of the workspace: the branch, the commit checked out, and what the
//! working tree changed, read with `gix` from the repository's own files (git is never
//! run, so no hook, pager or credential prompt can fire).
//!
//! Invariant: every path reported is relative to the workspace root and inside it; a
//! repository that cannot be read gives no state at all rather than a partial one.

use std::{
    collections::BTreeSet,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use serde::Serialize;

/// At most this many changed paths are listed (all are counted).
pub const MAX_LISTED_CHANGES: usize = 20;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GitState {
    /// The branch checked out; absent when HEAD is detached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit checked out (abbreviated); absent before the first commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Whether a file under the root differs from the commit: changed, staged, deleted or
    /// untracked (ignored files do not count).
    pub dirty: bool,
    /// How many files under the root are changed, staged or deleted.
    pub changed: usize,
    /// How many untracked files are under the root.
    pub untracked: usize,
    /// The first changed and untracked paths in path order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listed: Vec<String>,
}

/// The state of the repository `root` is in; `None` when it is in none, the repository
/// cannot be read, or `interrupt` was set before the status was read whole.
pub fn git_state(root: &Path, interrupt: Arc<AtomicBool>) -> Option<GitState> {
    let (repo, prefix) = open(root)?;
    let head = repo.head().ok()?;
    let branch = head
        .referent_name()
        .filter(|_| !head.is_detached())
        .map(|name| name.shorten().to_string());
    let commit = repo.head_id().ok().map(|id| id.shorten_or_id().to_string());
    let mut state = GitState {
        branch,
        commit,
        dirty: false,
        changed: 0,
        untracked: 0,
        listed: Vec::new(),
    };
    let status = repo
        .status(gix::progress::Discard)
        .ok()?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .should_interrupt_owned(interrupt.clone())
        .into_iter(None)
        .ok()?;
    let mut listed = BTreeSet::new();
    for item in status {
        let item = item.ok()?;
        let Some(path) = under_root(&item.location().to_string(), &prefix) else {
            continue;
        };
        match is_untracked(&item) {
            true => state.untracked += 1,
            false => state.changed += 1,
        }
        // The status comes in no set order: keep the first paths in path order.
        listed.insert(path);
        if listed.len() > MAX_LISTED_CHANGES {
            listed.pop_last();
        }
    }
    // An interrupted status may end early without an error.
    if interrupt.load(Ordering::SeqCst) {
        return None;
    }
    state.listed = listed.into_iter().collect();
    state.dirty = state.changed + state.untracked > 0;
    Some(state)
}

/// The repository `root` is in, and the root's path inside its work tree (`""` at its
/// top, `/` separated); `None` without one, or for a bare repository.
pub(super) fn open(root: &Path) -> Option<(gix::Repository, String)> {
    let repo = gix::discover(root).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let prefix = root.canonicalize().ok()?;
    let prefix = prefix
        .strip_prefix(&workdir)
        .ok()?
        .to_str()?
        .replace('\\', "/");
    Some((repo, prefix))
}

pub(super) fn is_untracked(item: &gix::status::Item) -> bool {
    matches!(
        item,
        gix::status::Item::IndexWorktree(
            gix::status::index_worktree::Item::DirectoryContents { .. }
        )
    )
}

/// `path` (relative to the repository) relative to the root at `prefix` (relative to the
/// repository; empty when the root is the repository's top), when it is under it.
pub(super) fn under_root(path: &str, prefix: &str) -> Option<String> {
    if prefix.is_empty() {
        return Some(path.to_string());
    }
    let rest = path.strip_prefix(prefix)?.strip_prefix('/')?;
    (!rest.is_empty()).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupted_status_gives_no_state() {
        let dir = tempfile::tempdir().unwrap();
        gix::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("new.py"), "x = 1\n").unwrap();
        let state = git_state(dir.path(), Arc::default()).unwrap();
        assert_eq!(
            (state.untracked, state.listed),
            (1, vec!["new.py".to_string()])
        );
        assert_eq!(git_state(dir.path(), Arc::new(AtomicBool::new(true))), None);
    }

    #[test]
    fn paths_outside_the_root_are_left_out() {
        assert_eq!(under_root("src/a.rs", ""), Some("src/a.rs".into()));
        assert_eq!(
            under_root("crate/src/a.rs", "crate"),
            Some("src/a.rs".into())
        );
        assert_eq!(under_root("crate2/a.rs", "crate"), None);
        assert_eq!(under_root("other/a.rs", "crate"), None);
        assert_eq!(under_root("crate", "crate"), None);
    }
}
