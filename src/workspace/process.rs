//! Running an outside program (an external formatter, a type checker) so that it can never
//! hold sextant up: in a process group of its own, killed whole at its exit, at its
//! deadline or when the request is cancelled, its input fed and its output read on threads
//! and bounded.
//!
//! Invariant: when [`run`] returns, no process of the group is left running (the group is
//! killed before the leader is reaped, so its id cannot have been reused by then), and no
//! more than the given limits of output were kept.

use std::{
    ffi::OsString,
    io::{Read, Write},
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

/// How long the output of a program that has exited may take to drain: what is left is
/// what the pipe buffers, so it is read at once unless something outside the program's
/// process group still holds the pipe.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// How often the wait checks the deadline and the request's cancellation.
const POLL: Duration = Duration::from_millis(5);

/// A program to run and what it may take and give.
pub(crate) struct Spawn<'a> {
    pub program: PathBuf,
    pub args: &'a [String],
    pub cwd: &'a Path,
    /// Variables set on top of sextant's own environment.
    pub env: Vec<(String, OsString)>,
    /// Written to its stdin; `None` gives it no stdin at all.
    pub stdin: Option<Arc<str>>,
    /// More stdout than this stops the program ([`Finished::OutputTooLarge`]) when
    /// `stop_on_large_stdout`, else the rest is read and dropped (`stdout_cut`).
    pub max_stdout: usize,
    pub stop_on_large_stdout: bool,
    /// Stderr past this is read and dropped, so a verbose program never blocks on it.
    pub max_stderr: usize,
}

/// How a run ended.
pub(crate) enum Finished {
    Exited {
        status: ExitStatus,
        out: Vec<u8>,
        err: Vec<u8>,
        /// Output was dropped past the limits (only without `stop_on_large_stdout`).
        cut: bool,
    },
    TimedOut,
    Cancelled,
    OutputTooLarge,
    OutputNotClosed,
}

/// Runs `spawn` until it exits, `timeout` passes or `stop` says the request was cancelled.
/// `Err` only when it could not be started (`NotFound` and the like) or waited for.
pub(crate) fn run(
    spawn: Spawn,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> std::io::Result<Finished> {
    let max_stdout = spawn.max_stdout;
    let max_stderr = spawn.max_stderr;
    let mut command = Command::new(&spawn.program);
    command
        .args(spawn.args)
        .current_dir(spawn.cwd)
        .envs(spawn.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spawn.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // Its own group no longer gets the terminal's Ctrl-C, so it is killed when sextant
    // dies instead (Linux's parent-death signal, sent when the spawning thread ends).
    // SAFETY: prctl is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = command.spawn()?;
    if let Some(input) = spawn.stdin {
        // Never joined: a process holding stdin without reading it would block the write
        // until the group is killed, which ends the write with an error.
        let mut stdin = child.stdin.take().expect("stdin is piped");
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
    }
    let out = drain(
        child.stdout.take().expect("stdout is piped"),
        max_stdout,
        !spawn.stop_on_large_stdout,
    );
    let err = drain(
        child.stderr.take().expect("stderr is piped"),
        max_stderr,
        true,
    );
    let limits = (max_stdout, spawn.stop_on_large_stdout, max_stderr);
    finish(child, out, err, limits, timeout, stop)
}

/// Waits for the child, then kills its whole group: at its exit (what it started has no
/// say in the answer), at the deadline, or when `stop` says the request was cancelled.
fn finish(
    mut child: Child,
    out_rx: mpsc::Receiver<Vec<u8>>,
    err_rx: mpsc::Receiver<Vec<u8>>,
    (max_stdout, stop_on_large_stdout, max_stderr): (usize, bool, usize),
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> std::io::Result<Finished> {
    let started = Instant::now();
    let mut early_out = None;
    let ended = loop {
        if exited(&child) {
            break None;
        }
        if early_out.is_none()
            && let Ok(out) = out_rx.try_recv()
        {
            if out.len() > max_stdout {
                break Some(Finished::OutputTooLarge);
            }
            early_out = Some(out);
        }
        if stop() {
            break Some(Finished::Cancelled);
        }
        if started.elapsed() > timeout {
            break Some(Finished::TimedOut);
        }
        std::thread::sleep(POLL);
    };
    kill_group(&child);
    let status = child.wait()?;
    if let Some(ended) = ended {
        return Ok(ended);
    }
    let deadline = Instant::now() + DRAIN_AFTER_EXIT;
    let mut out = match early_out {
        Some(out) => out,
        None => match out_rx.recv_timeout(DRAIN_AFTER_EXIT) {
            Ok(out) => out,
            Err(_) => return Ok(Finished::OutputNotClosed),
        },
    };
    let mut err = err_rx
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .unwrap_or_default();
    let mut cut = false;
    // A drain keeps one byte past its limit, so that going over can be told apart.
    if out.len() > max_stdout {
        if stop_on_large_stdout {
            return Ok(Finished::OutputTooLarge);
        }
        out.truncate(max_stdout);
        cut = true;
    }
    if err.len() > max_stderr {
        err.truncate(max_stderr);
        cut = true;
    }
    Ok(Finished::Exited {
        status,
        out,
        err,
        cut,
    })
}

/// Reads `pipe` on a thread of its own, keeping at most `limit + 1` bytes; then stops, or
/// with `discard_rest` reads on to the end without keeping anything.
fn drain(
    mut pipe: impl Read + Send + 'static,
    limit: usize,
    discard_rest: bool,
) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = (&mut pipe).take(limit as u64 + 1).read_to_end(&mut bytes);
        if discard_rest {
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        }
        let _ = tx.send(bytes);
    });
    rx
}

/// Whether the child has exited, without reaping it (`WNOWAIT`): until it is reaped its
/// process id, and so its group's id, stays taken.
fn exited(child: &Child) -> bool {
    // SAFETY: siginfo_t is plain old data, for which all-zero bytes are a valid value.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `info` is a valid, writable siginfo_t; waitid only writes into it.
    let result = unsafe {
        libc::waitid(
            libc::P_PID,
            child.id(),
            &mut info,
            libc::WEXITED | libc::WNOWAIT | libc::WNOHANG,
        )
    };
    // An error (the child already reaped) counts as exited: waiting on will say more.
    // SAFETY: waitid succeeded and filled `info` (si_pid is 0 when nothing has exited).
    result != 0 || unsafe { info.si_pid() } != 0
}

/// Kills every process of the child's group (the child leads it: `process_group(0)`).
fn kill_group(child: &Child) {
    // SAFETY: killpg only sends a signal; the group id is the unreaped child's own id.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
    }
}
