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

use std::{collections::BTreeMap, path::Path, sync::Arc, time::Duration};

use serde::Deserialize;

use super::process::{self, Finished, Spawn};
use crate::ide::{
    self, Analysis, FileFormat, FileId, FormatError, FormatOptions, Language,
    external_output_refusal,
};

/// How long an external formatter may run on one file unless `timeout_ms` says otherwise.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The longest `timeout_ms` accepted.
const MAX_TIMEOUT_MS: u64 = 600_000;

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
    let spawn = Spawn {
        program: spec.program().into(),
        args: &spec.command[1..],
        cwd: root,
        env: Vec::new(),
        stdin: Some(text.into()),
        max_stdout: max_output,
        stop_on_large_stdout: true,
        // Stderr is only a diagnostic: its first bytes are enough.
        max_stderr: 64 * 1024,
    };
    let output = match process::run(spawn, spec.timeout(), stop) {
        Ok(output) => output,
        Err(e) => {
            return Err(FormatFailure::NotFound {
                program: program.clone(),
                reason: e.to_string(),
            });
        }
    };
    let (status, out, err) = match output {
        Finished::Exited {
            status, out, err, ..
        } => (status, out, err),
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
