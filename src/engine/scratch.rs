//! Scratch databases: texts that are not the workspace's (a rename's result, a patch's)
//! analysed beside it, on a database of their own, never written anywhere.

use std::{sync::mpsc, time::Duration};

use crate::{
    db::{Db, RootDatabase},
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
    let request = salsa::Database::cancellation_token(db);
    let stop_scratch = salsa::Database::cancellation_token(&scratch_db);
    let (finished, finishing) = mpsc::channel::<()>();
    let outcome = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _finished = finished;
            work(scratch_db, &request)
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
