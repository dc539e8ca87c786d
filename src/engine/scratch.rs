//! Scratch databases: texts that are not the workspace's (a rename's result, a patch's)
//! analysed beside it, on a database of their own, never written anywhere.
//!
//! A scratch database of the whole workspace with a few files changed (a patch's dry run,
//! the rounds of `check --fix`) is kept between requests ([`Db::kept_scratch`]): the next
//! request sets only the inputs that differ, so what the changed files import stays
//! memoized and a dry run costs the changed files' analysis, not the workspace's.
//!
//! Invariant: a kept scratch database answers as a new one would. Before each use its
//! inputs are made equal to the workspace's (plus the request's changes), so salsa
//! invalidates exactly what differs; one that a cancellation or a panic interrupted is
//! dropped, not kept.

use std::{collections::HashSet, path::PathBuf, sync::mpsc, time::Duration};

use super::change::{Change, FileContent, Inputs};
use crate::{
    db::{Db, RootDatabase, Workspace},
    semantic,
};

/// Runs `work` on a new scratch database of `db`'s on a thread of its own (salsa allows
/// one database per thread inside a query). The request's cancellation reaches the
/// scratch database: both stop, and `db`'s query unwinds as cancelled. `Err` when `work`
/// panicked.
pub(crate) fn on_scratch_thread<T: Send>(
    db: &dyn Db,
    work: impl FnOnce(RootDatabase, &salsa::CancellationToken) -> T + Send,
) -> std::thread::Result<T> {
    let scratch_db = db.scratch();
    let stop_scratch = salsa::Database::cancellation_token(&scratch_db);
    beside(db, scratch_db, stop_scratch, work)
}

/// Runs `work` on a scratch database holding the workspace's files and project files,
/// but those `left_out` names, with `changed` set over them (new files added): the kept
/// scratch database when there is one for this root, otherwise a new one, kept afterwards.
/// On a thread of its own, cancelled with the request, as [`on_scratch_thread`].
pub(crate) fn on_workspace_scratch<T: Send>(
    db: &dyn Db,
    workspace: Workspace,
    changed: Vec<(String, FileContent)>,
    left_out: &[&str],
    work: impl FnOnce(&mut Inputs) -> T + Send,
) -> std::thread::Result<T> {
    let root = workspace.root(db).clone();
    let mut change = {
        let mut leave_out: HashSet<&str> = left_out.iter().copied().collect();
        leave_out.extend(changed.iter().map(|(path, _)| path.as_str()));
        workspace_change(db, workspace, &leave_out)
    };
    for (path, content) in changed {
        change.set_file(path, content);
    }
    let kept = take_kept(db, &root);
    let inputs = kept.unwrap_or_else(|| Inputs::new(db.scratch(), root.clone()));
    let stop_scratch = salsa::Database::cancellation_token(&inputs.db);
    let (answer, inputs) = beside(db, inputs, stop_scratch, move |mut inputs, _| {
        inputs.replace_with(change);
        let answer = work(&mut inputs);
        (answer, inputs)
    })?;
    keep(db, root, inputs);
    Ok(answer)
}

/// `work` on each of `items`, in the order of `items`, spread over the cores: each thread
/// works on a clone of `db` that stops when `db` is cancelled. For the few files a change
/// touches (rayon's pool may be running the workspace's own queries, and salsa allows a
/// thread one database inside a query, so these are threads of their own).
pub(crate) fn on_all_cores<I: Sync, T: Send>(
    db: &RootDatabase,
    items: &[I],
    work: impl Fn(&RootDatabase, &I) -> T + Sync,
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(|item| work(db, item)).collect();
    }
    let work = &work;
    let mut results: Vec<Option<T>> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..threads)
            .map(|first| {
                let worker = db.worker();
                scope.spawn(move || {
                    (items.iter().enumerate().skip(first).step_by(threads))
                        .map(|(at, item)| {
                            worker.relay_cancellation();
                            (at, work(&worker, item))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut results: Vec<Option<T>> = items.iter().map(|_| None).collect();
        for thread in running {
            let done = thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (at, result) in done {
                results[at] = Some(result);
            }
        }
        results
    });
    results
        .iter_mut()
        .map(|result| result.take().expect("every item was worked on"))
        .collect()
}

/// The workspace's files (but those `leave_out` names) and manifests as one change, to
/// load into a scratch database: the texts are shared, not copied.
pub(crate) fn workspace_change(
    db: &dyn Db,
    workspace: Workspace,
    leave_out: &HashSet<&str>,
) -> Change {
    let mut scratch = Change::default();
    for &file in workspace.files(db).iter() {
        let path = file.path(db);
        if !leave_out.contains(path.as_str()) {
            let content = FileContent {
                lang: file.lang(db),
                text: file.text(db).clone(),
                lossy_utf8: file.lossy_utf8(db),
            };
            scratch.set_file(path.clone(), content);
        }
    }
    for manifest in workspace.manifests(db).iter() {
        let text = manifest.text(db).to_string();
        scratch.set_manifest(manifest.path(db).clone(), manifest.kind(db), text);
    }
    scratch
}

/// A kept scratch database and the root its workspace has (read without touching the
/// database: salsa allows the caller's thread only the database its query runs on).
struct Kept {
    root: PathBuf,
    inputs: Inputs,
}

fn take_kept(db: &dyn Db, root: &PathBuf) -> Option<Inputs> {
    let taken = db.kept_scratch().lock().ok()?.take()?;
    let kept = taken.downcast::<Kept>().ok()?;
    (kept.root == *root).then_some(kept.inputs)
}

/// Keeps `inputs` for the next request, unless another request has kept one meanwhile.
fn keep(db: &dyn Db, root: PathBuf, inputs: Inputs) {
    if let Ok(mut slot) = db.kept_scratch().lock()
        && slot.is_none()
    {
        *slot = Some(Box::new(Kept { root, inputs }));
    }
}

/// Runs `work` on `scratch` on a thread of its own, stopping it (through `stop_scratch`,
/// its database's token) when `db`'s request is cancelled.
fn beside<S: Send, T: Send>(
    db: &dyn Db,
    scratch: S,
    stop_scratch: salsa::CancellationToken,
    work: impl FnOnce(S, &salsa::CancellationToken) -> T + Send,
) -> std::thread::Result<T> {
    let request = salsa::Database::cancellation_token(db);
    let (finished, finishing) = mpsc::channel::<()>();
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _finished = finished;
            work(scratch, &request)
        });
        let mut stopped = false;
        while let Err(mpsc::RecvTimeoutError::Timeout) =
            finishing.recv_timeout(Duration::from_millis(10))
        {
            if !stopped && semantic::is_cancelled(db) {
                stop_scratch.cancel();
                stopped = true;
            }
        }
        (worker.join(), stopped)
    });
    // What a stopped scratch analysis answered is not an answer (salsa resets its token as
    // the cancelled query unwinds, so the flag is kept here).
    match outcome {
        (result, false) if !semantic::is_cancelled(db) => result,
        _ => semantic::cancelled(db),
    }
}
