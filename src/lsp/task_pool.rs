//! A fixed set of worker threads fed by a bounded queue.
//!
//! Invariant: the pool never starts a thread after it is built, and never blocks the
//! caller: [`TaskPool::try_spawn`] refuses a job when `capacity` jobs are waiting, and the
//! main loop answers that request at once. A job stops counting as waiting as soon as a
//! worker takes it or it is withdrawn ([`QueueSlot::release`]), so a request cancelled before
//! it started frees its place at once, not when a worker gets to it. A panicking job takes
//! only itself down, not its worker.

use std::{
    num::NonZeroUsize,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    thread::JoinHandle,
};

use crossbeam_channel::{Sender, unbounded};

pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Jobs waiting for a worker, beyond those running.
pub const DEFAULT_QUEUE: usize = 256;

/// Workers by default: one per core, at least two (so a slow request leaves one free).
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, NonZeroUsize::get)
        .max(2)
}

/// The pool's workers and queue length: [`default_workers`] and [`DEFAULT_QUEUE`], unless a
/// test sets them (`testing::TestHooks::lsp_pool`) to fill a small pool deterministically.
pub fn size() -> (usize, usize) {
    crate::testing::hooks()
        .lsp_pool
        .unwrap_or((default_workers(), DEFAULT_QUEUE))
}

pub struct TaskPool {
    queue: Sender<(Job, Arc<QueueSlot>)>,
    capacity: usize,
    waiting: Arc<AtomicUsize>,
    _workers: Vec<JoinHandle<()>>,
}

/// A job's place among the waiting ones: given back once, when a worker takes the job or
/// when its request is withdrawn before that, whichever comes first.
pub struct QueueSlot {
    held: AtomicBool,
    waiting: Arc<AtomicUsize>,
}

impl QueueSlot {
    pub fn release(&self) {
        if self.held.swap(false, Ordering::SeqCst) {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The queue was full: the job was dropped without running.
#[derive(Debug)]
pub struct QueueFull;

impl TaskPool {
    /// Starts `workers` threads (at least one) sharing a queue of `capacity` jobs.
    pub fn new(workers: usize, capacity: usize) -> std::io::Result<TaskPool> {
        // The channel is unbounded; `waiting` is the bound, so a withdrawn job still in the
        // channel does not take a place.
        let (queue, jobs) = unbounded::<(Job, Arc<QueueSlot>)>();
        let workers = (0..workers.max(1))
            .map(|i| {
                let jobs = jobs.clone();
                std::thread::Builder::new()
                    .name(format!("sextant-lsp-{i}"))
                    .spawn(move || {
                        for (job, slot) in jobs {
                            slot.release();
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
            waiting: Arc::default(),
            _workers: workers,
        })
    }

    /// Queues `job`, or drops it when `capacity` jobs are already waiting. The slot is the
    /// job's place in the queue, to give back if its request is withdrawn.
    pub fn try_spawn(&self, job: Job) -> Result<Arc<QueueSlot>, QueueFull> {
        self.waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.capacity).then_some(n + 1)
            })
            .map_err(|_| QueueFull)?;
        let slot = Arc::new(QueueSlot {
            held: AtomicBool::new(true),
            waiting: self.waiting.clone(),
        });
        if self.queue.send((job, slot.clone())).is_err() {
            slot.release();
            return Err(QueueFull);
        }
        Ok(slot)
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
    fn a_withdrawn_job_frees_its_place_before_a_worker_reaches_it() {
        let pool = TaskPool::new(1, 1).unwrap();
        let (started_tx, started) = mpsc::channel();
        let release = Arc::new(Barrier::new(2));
        let gate = release.clone();
        pool.try_spawn(Box::new(move || {
            started_tx.send(()).unwrap();
            gate.wait();
        }))
        .unwrap();
        started.recv().unwrap();
        let waiting = pool.try_spawn(Box::new(|| {})).unwrap();
        assert!(pool.try_spawn(Box::new(|| {})).is_err());
        waiting.release();
        waiting.release();
        let (done_tx, done) = mpsc::channel();
        pool.try_spawn(Box::new(move || done_tx.send(()).unwrap()))
            .unwrap();
        assert!(pool.try_spawn(Box::new(|| {})).is_err());
        release.wait();
        done.recv().unwrap();
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
