//! Formatting a workspace file: the built-in layout formatter, or the external formatter
//! `sextant.toml` names for the file's language (`[format.python] command = [...]`).
//!
//! Invariant: a command named by the workspace's own configuration is code from the
//! workspace, so it runs only when the user trusts it ([`FormatterTrust::Trusted`], from
//! `--allow-external-formatter`) and never on a read-only server; otherwise a file of its
//! language is refused (`FORMATTER_NOT_ALLOWED`), never formatted another way. It runs here
//! and never inside a query (it is I/O): the file's text on its stdin, the formatted text
//! read from its stdout, in the workspace root, in a process group of its own that is
//! killed whole when it exits, at its deadline or when the request is cancelled, so no
//! process it leaves behind can hold sextant up. Its output replaces nothing until
//! [`crate::ide::external_output_refusal`] accepts it (`FORMATTER_OUTPUT_REJECTED`).

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    os::unix::process::CommandExt,
    path::Path,
    process::{Child, Command, Stdio},
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use serde::Deserialize;

use crate::ide::{
    self, Analysis, FileFormat, FileId, FormatError, FormatOptions, Language,
    external_output_refusal,
};

/// How long an external formatter may run on one file unless `timeout_ms` says otherwise.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The longest `timeout_ms` accepted.
const MAX_TIMEOUT_MS: u64 = 600_000;
/// How long the output of a formatter that has exited may take to drain: what is left is
/// what the pipe buffers, so it is read at once unless something outside the formatter's
/// process group still holds the pipe.
const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);
/// How often the wait checks the deadline and the request's cancellation.
const POLL: Duration = Duration::from_millis(5);

/// `[format.<language>]`: the formatter of one language.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FormatterSpec {
    /// The program and its arguments; it reads the text on stdin and writes it formatted
    /// to stdout.
    pub command: Vec<String>,
    /// How long it may run on one file, in milliseconds (default 30 000, at most 600 000).
    pub timeout_ms: Option<u64>,
}

impl FormatterSpec {
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    fn program(&self) -> &str {
        &self.command[0]
    }
}

/// `[format]`: language id → its external formatter.
pub type Formatters = BTreeMap<String, FormatterSpec>;

/// Whether the external formatters a workspace's `sextant.toml` names may run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FormatterTrust {
    /// The default: not run; a file of such a language is refused.
    #[default]
    Untrusted,
    /// A read-only server: never run, whatever else was asked.
    ReadOnly,
    /// The user allowed them (`--allow-external-formatter`).
    Trusted,
}

/// Why a file was not formatted.
#[derive(Debug, thiserror::Error)]
pub enum FormatFailure {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error(
        "sextant.toml names the formatter {program:?} for {language}: a command named by the workspace is code from the workspace, {}",
        if *.read_only { "and a read-only server runs none" } else { "run only when allowed (pass --allow-external-formatter)" }
    )]
    NotAllowed {
        program: String,
        language: String,
        read_only: bool,
    },
    #[error("the formatter {program:?} could not be started: {reason}")]
    NotFound { program: String, reason: String },
    #[error("the formatter {program:?} failed: {reason}")]
    Failed { program: String, reason: String },
    #[error("the output of the formatter {program:?} was not used: {reason}; nothing was changed")]
    Rejected { program: String, reason: String },
    #[error("the analysis was cancelled")]
    Cancelled,
}

impl ide::Failure for FormatFailure {
    fn code(&self) -> ide::ErrorCode {
        use ide::ErrorCode;
        match self {
            FormatFailure::Format(error) => error.code(),
            FormatFailure::NotAllowed { .. } => ErrorCode::FormatterNotAllowed,
            FormatFailure::NotFound { .. } => ErrorCode::FormatterNotFound,
            FormatFailure::Failed { .. } => ErrorCode::FormatterFailed,
            FormatFailure::Rejected { .. } => ErrorCode::FormatterOutputRejected,
            FormatFailure::Cancelled => ErrorCode::Cancelled,
        }
    }
}

/// Checks `[format]` as `sextant.toml` is loaded: known language ids, non-empty commands,
/// timeouts in range.
pub(super) fn validate(formatters: &Formatters) -> Result<(), String> {
    for (language, spec) in formatters {
        if ide::registry().by_id(language).is_none() {
            return Err(format!(
                "[format.{language}]: unknown language (known: {})",
                ide::registry().ids().join(", ")
            ));
        }
        if spec
            .command
            .first()
            .is_none_or(|program| program.is_empty())
        {
            return Err(format!("[format.{language}]: command must name a program"));
        }
        if spec
            .timeout_ms
            .is_some_and(|ms| !(1..=MAX_TIMEOUT_MS).contains(&ms))
        {
            return Err(format!(
                "[format.{language}]: timeout_ms must be between 1 and {MAX_TIMEOUT_MS}"
            ));
        }
    }
    Ok(())
}

/// What formatting may use beyond the analysis: the workspace's formatters, whether they
/// may run, and the request's cancellation.
#[derive(Clone, Copy)]
pub struct Formatting<'a> {
    pub root: &'a Path,
    pub formatters: &'a Formatters,
    pub trust: FormatterTrust,
    /// Asked while an external formatter runs; true kills it (the request was cancelled).
    pub stop: &'a dyn Fn() -> bool,
}

/// A file's format decided on a snapshot: done (the built-in formatter), or an external
/// formatter still to run, which needs no snapshot (a front end should drop its snapshot
/// first, so the writer is not held up while the formatter runs).
pub enum FormatPlan {
    Done(FileFormat),
    External(ExternalJob),
}

/// An external formatter's run on one file's text.
pub struct ExternalJob {
    spec: FormatterSpec,
    lang: &'static Language,
    path: String,
    text: Arc<str>,
}

impl ExternalJob {
    pub fn run(self, root: &Path, stop: &dyn Fn() -> bool) -> Result<FileFormat, FormatFailure> {
        let formatted = run_external(&self.spec, self.lang, root, &self.text, stop)?;
        Ok(FileFormat::between(
            &self.path,
            &self.text,
            formatted.into(),
        ))
    }
}

impl FormatPlan {
    pub fn finish(self, root: &Path, stop: &dyn Fn() -> bool) -> Result<FileFormat, FormatFailure> {
        match self {
            FormatPlan::Done(format) => Ok(format),
            FormatPlan::External(job) => job.run(root, stop),
        }
    }
}

/// `file`'s format: by the built-in formatter, or the external job to run (allowed only
/// as `trust` says).
pub fn plan_file(
    analysis: &Analysis,
    formatters: &Formatters,
    trust: FormatterTrust,
    file: FileId,
    options: FormatOptions,
) -> Result<FormatPlan, FormatFailure> {
    let lang = analysis.file_language(file);
    let Some(spec) = formatters.get(&lang.id) else {
        return analysis
            .format(file, options)
            .map_err(|_| FormatFailure::Cancelled)?
            .map(FormatPlan::Done)
            .map_err(FormatFailure::Format);
    };
    allowed(spec, lang, trust)?;
    if analysis.file_is_lossy(file) {
        return Err(FormatError::NotUtf8.into());
    }
    Ok(FormatPlan::External(ExternalJob {
        spec: spec.clone(),
        lang,
        path: analysis.file_path(file).to_string(),
        text: analysis.file_text(file),
    }))
}

/// `file` formatted: by its language's configured formatter, else by the built-in one.
pub fn format_file(
    analysis: &Analysis,
    formatting: Formatting,
    file: FileId,
    options: FormatOptions,
) -> Result<FileFormat, FormatFailure> {
    plan_file(
        analysis,
        formatting.formatters,
        formatting.trust,
        file,
        options,
    )?
    .finish(formatting.root, formatting.stop)
}

/// `text` (not a workspace file) formatted as `lang`, by the same rules.
pub fn format_text(
    formatting: Formatting,
    lang: &'static Language,
    text: &str,
    options: FormatOptions,
) -> Result<String, FormatFailure> {
    match formatting.formatters.get(&lang.id) {
        Some(spec) => {
            allowed(spec, lang, formatting.trust)?;
            run_external(spec, lang, formatting.root, text, formatting.stop)
        }
        None => Ok(ide::format_source(lang, text, options)?),
    }
}

fn allowed(
    spec: &FormatterSpec,
    lang: &Language,
    trust: FormatterTrust,
) -> Result<(), FormatFailure> {
    if trust == FormatterTrust::Trusted {
        return Ok(());
    }
    Err(FormatFailure::NotAllowed {
        program: spec.program().to_string(),
        language: lang.id.clone(),
        read_only: trust == FormatterTrust::ReadOnly,
    })
}

/// Runs a configured formatter on `text` and judges its output.
fn run_external(
    spec: &FormatterSpec,
    lang: &Language,
    root: &Path,
    text: &str,
    stop: &dyn Fn() -> bool,
) -> Result<String, FormatFailure> {
    let program = spec.program().to_string();
    let failed = |reason: String| FormatFailure::Failed {
        program: program.clone(),
        reason,
    };
    let max_output = ide::format_output_limit(text);
    let output = Running::start(spec, root, text, max_output)?
        .finish(spec.timeout(), stop)
        .map_err(|e| failed(e.to_string()))?;
    let (status, out, err) = match output {
        Finished::Exited { status, out, err } => (status, out, err),
        Finished::TimedOut => {
            return Err(failed(format!(
                "still running after {} ms; stopped",
                spec.timeout().as_millis()
            )));
        }
        Finished::Cancelled => return Err(FormatFailure::Cancelled),
        Finished::OutputTooLarge => {
            return Err(failed(format!(
                "its output exceeds {max_output} bytes; stopped"
            )));
        }
        Finished::OutputNotClosed => {
            return Err(failed(
                "it exited but something it started kept its output open".into(),
            ));
        }
    };
    if !status.success() {
        let message = String::from_utf8_lossy(&err);
        let first_lines: Vec<&str> = message.lines().take(5).collect();
        return Err(failed(format!("{status}: {}", first_lines.join(" / "))));
    }
    let out = String::from_utf8(out).map_err(|_| failed("its output is not valid UTF-8".into()))?;
    match external_output_refusal(lang, text, &out) {
        Some(reason) => Err(FormatFailure::Rejected { program, reason }),
        None => Ok(out),
    }
}

/// How a formatter's run ended.
enum Finished {
    Exited {
        status: std::process::ExitStatus,
        out: Vec<u8>,
        err: Vec<u8>,
    },
    TimedOut,
    Cancelled,
    OutputTooLarge,
    OutputNotClosed,
}

/// A formatter started in a process group of its own, its input fed and its output read on
/// threads (a formatter writing before it has read all its input cannot deadlock with us).
struct Running {
    child: Child,
    out: mpsc::Receiver<Vec<u8>>,
    err: mpsc::Receiver<Vec<u8>>,
    max_output: usize,
}

impl Running {
    fn start(
        spec: &FormatterSpec,
        root: &Path,
        text: &str,
        max_output: usize,
    ) -> Result<Running, FormatFailure> {
        let mut command = Command::new(spec.program());
        command
            .args(&spec.command[1..])
            .current_dir(root)
            .stdin(Stdio::piped())
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
        let mut child = command.spawn().map_err(|e| FormatFailure::NotFound {
            program: spec.program().to_string(),
            reason: e.to_string(),
        })?;
        // Never joined: a process holding stdin without reading it would block the write
        // until the group is killed, which ends the write with an error.
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let input: Arc<str> = text.into();
        std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        // Output past the limit stops the formatter; stderr is only a diagnostic, so past
        // its first bytes it is read and dropped (a verbose formatter must not block on it).
        let out = drain(
            child.stdout.take().expect("stdout is piped"),
            max_output,
            false,
        );
        let err = drain(
            child.stderr.take().expect("stderr is piped"),
            64 * 1024,
            true,
        );
        Ok(Running {
            child,
            out,
            err,
            max_output,
        })
    }

    /// Waits for the formatter, then kills its whole group: at its exit (what it started
    /// has no say in the answer), at the deadline, or when `stop` says the request was
    /// cancelled. The group is killed before the formatter is reaped, so its id cannot
    /// have been reused by then.
    fn finish(mut self, timeout: Duration, stop: &dyn Fn() -> bool) -> std::io::Result<Finished> {
        let started = Instant::now();
        let mut early_out = None;
        let ended = loop {
            if exited(&self.child) {
                break None;
            }
            if early_out.is_none()
                && let Ok(out) = self.out.try_recv()
            {
                if out.len() > self.max_output {
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
        kill_group(&self.child);
        let status = self.child.wait()?;
        if let Some(ended) = ended {
            return Ok(ended);
        }
        let deadline = Instant::now() + DRAIN_AFTER_EXIT;
        let out = match early_out {
            Some(out) => out,
            None => match self.out.recv_timeout(DRAIN_AFTER_EXIT) {
                Ok(out) => out,
                Err(_) => return Ok(Finished::OutputNotClosed),
            },
        };
        if out.len() > self.max_output {
            return Ok(Finished::OutputTooLarge);
        }
        let err = self
            .err
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_default();
        Ok(Finished::Exited { status, out, err })
    }
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
