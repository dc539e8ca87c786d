//! A fixed set of worker threads fed by a bounded queue.
//!
//! Invariant: the pool never starts a thread after it is built, and never blocks the
//! caller: [`TaskPool::try_spawn`] refuses a job when the queue is full, and the main loop
//! answers that request at once. A panicking job takes only itself down, not its worker.

use std::{
    num::NonZeroUsize,
    panic::{AssertUnwindSafe, catch_unwind},
    thread::JoinHandle,
};

use crossbeam_channel::{Sender, bounded};

pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Jobs waiting for a worker, beyond those running.
pub const DEFAULT_QUEUE: usize = 256;

/// Workers by default: one per core, at least two (so a slow request leaves one free).
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, NonZeroUsize::get)
        .max(2)
}

/// Test hook: `SEXTANT_TEST_LSP_POOL=<workers>:<queue>` in the environment (read once, when
/// the server starts) sets the pool's size, so that tests can fill a small pool
/// deterministically. Otherwise [`default_workers`] and [`DEFAULT_QUEUE`].
pub fn size_from_env() -> (usize, usize) {
    let configured = std::env::var("SEXTANT_TEST_LSP_POOL")
        .ok()
        .and_then(|spec| {
            let (workers, queue) = spec.split_once(':')?;
            Some((workers.parse().ok()?, queue.parse().ok()?))
        });
    configured.unwrap_or((default_workers(), DEFAULT_QUEUE))
}

pub struct TaskPool {
    queue: Sender<Job>,
    capacity: usize,
    _workers: Vec<JoinHandle<()>>,
}

/// The queue was full: the job was dropped without running.
#[derive(Debug)]
pub struct QueueFull;

impl TaskPool {
    /// Starts `workers` threads (at least one) sharing a queue of `capacity` jobs.
    pub fn new(workers: usize, capacity: usize) -> std::io::Result<TaskPool> {
        let (queue, jobs) = bounded::<Job>(capacity);
        let workers = (0..workers.max(1))
            .map(|i| {
                let jobs = jobs.clone();
                std::thread::Builder::new()
                    .name(format!("sextant-lsp-{i}"))
                    .spawn(move || {
                        for job in jobs {
                            // The job answers its own panic (requests catch theirs); this
                            // only keeps the worker alive.
                            let _ = catch_unwind(AssertUnwindSafe(job));
                        }
                    })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(TaskPool {
            queue,
            capacity,
            _workers: workers,
        })
    }

    /// Queues `job`, or drops it when `capacity` jobs are already waiting.
    pub fn try_spawn(&self, job: Job) -> Result<(), QueueFull> {
        self.queue.try_send(job).map_err(|_| QueueFull)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

// Dropping the pool closes the queue: each worker finishes the jobs already queued, then
// ends. Workers are not joined, so a job that ignores cancellation cannot hold up exit.

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier, mpsc};

    use super::*;

    #[test]
    fn a_full_queue_refuses_the_job_and_the_rest_all_run() {
        let pool = TaskPool::new(1, 2).unwrap();
        let (started_tx, started) = mpsc::channel();
        let release = Arc::new(Barrier::new(2));
        let gate = release.clone();
        pool.try_spawn(Box::new(move || {
            started_tx.send(()).unwrap();
            gate.wait();
        }))
        .unwrap();
        started.recv().unwrap();
        let (done_tx, done) = mpsc::channel();
        for i in 0..2 {
            let done_tx = done_tx.clone();
            pool.try_spawn(Box::new(move || done_tx.send(i).unwrap()))
                .unwrap();
        }
        assert!(pool.try_spawn(Box::new(|| {})).is_err());
        release.wait();
        assert_eq!((done.recv().unwrap(), done.recv().unwrap()), (0, 1));
    }

    #[test]
    fn a_panicking_job_leaves_its_worker_serving() {
        let pool = TaskPool::new(1, 4).unwrap();
        pool.try_spawn(Box::new(|| panic!("job panics on purpose")))
            .unwrap();
        let (tx, rx) = mpsc::channel();
        pool.try_spawn(Box::new(move || tx.send(7).unwrap()))
            .unwrap();
        assert_eq!(rx.recv().unwrap(), 7);
    }
}
