//! Formatting a workspace file: the built-in layout formatter, or the external formatter
//! `sextant.toml` names for the file's language (`[format.python] command = [...]`).
//!
//! Invariant: an external formatter runs only when configured, here and never inside a
//! query (it is I/O): the file's text on its stdin, the formatted text read from its
//! stdout, in the workspace root, with a deadline. A missing program, a non-zero exit, a
//! timeout or output that is not UTF-8 is an error with a stable code, never a guess.

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    path::Path,
    process::{Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use serde::Deserialize;

use crate::ide::{Analysis, FileFormat, FileId, FormatError, FormatOptions};

/// How long an external formatter may run on one file.
const EXTERNAL_TIMEOUT: Duration = Duration::from_secs(30);
/// The most output an external formatter may produce (beyond it, it is misbehaving).
const MAX_EXTERNAL_OUTPUT: usize = 64 * 1024 * 1024;

/// `[format.<language>]`: the formatter of one language.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FormatterSpec {
    /// The program and its arguments; it reads the text on stdin and writes it formatted
    /// to stdout.
    pub command: Vec<String>,
}

/// `[format]`: language id → its external formatter.
pub type Formatters = BTreeMap<String, FormatterSpec>;

/// Why a file was not formatted.
#[derive(Debug, thiserror::Error)]
pub enum FormatFailure {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("the formatter {program:?} could not be started: {reason}")]
    NotFound { program: String, reason: String },
    #[error("the formatter {program:?} failed: {reason}")]
    Failed { program: String, reason: String },
    #[error("the analysis was cancelled")]
    Cancelled,
}

impl FormatFailure {
    /// The stable code front ends report.
    pub fn code(&self) -> &'static str {
        match self {
            FormatFailure::Format(error) => error.code(),
            FormatFailure::NotFound { .. } => "FORMATTER_NOT_FOUND",
            FormatFailure::Failed { .. } => "FORMATTER_FAILED",
            FormatFailure::Cancelled => "CANCELLED",
        }
    }
}

/// Checks `[format]` as `sextant.toml` is loaded: known language ids, non-empty commands.
pub(super) fn validate(formatters: &Formatters) -> Result<(), String> {
    for (language, spec) in formatters {
        if crate::ide::registry().by_id(language).is_none() {
            return Err(format!(
                "[format.{language}]: unknown language (known: {})",
                crate::ide::registry().ids().join(", ")
            ));
        }
        if spec
            .command
            .first()
            .is_none_or(|program| program.is_empty())
        {
            return Err(format!("[format.{language}]: command must name a program"));
        }
    }
    Ok(())
}

/// `file` formatted: by its language's configured formatter, else by the built-in one.
pub fn format_file(
    analysis: &Analysis,
    root: &Path,
    formatters: &Formatters,
    file: FileId,
    options: FormatOptions,
) -> Result<FileFormat, FormatFailure> {
    let lang = analysis.file_language(file);
    let Some(spec) = formatters.get(&lang.id) else {
        return analysis
            .format(file, options)
            .map_err(|_| FormatFailure::Cancelled)?
            .map_err(FormatFailure::Format);
    };
    if analysis.file_is_lossy(file) {
        return Err(FormatError::NotUtf8.into());
    }
    let text = analysis.file_text(file);
    let formatted = run_external(spec, root, &text)?;
    Ok(FileFormat::between(
        analysis.file_path(file),
        &text,
        formatted.into(),
    ))
}

/// Runs a configured formatter on `text`.
pub fn run_external(
    spec: &FormatterSpec,
    root: &Path,
    text: &str,
) -> Result<String, FormatFailure> {
    let program = spec.command[0].clone();
    let failed = |reason: String| FormatFailure::Failed {
        program: program.clone(),
        reason,
    };
    let mut child = Command::new(&program)
        .args(&spec.command[1..])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| FormatFailure::NotFound {
            program: program.clone(),
            reason: e.to_string(),
        })?;
    // Feed stdin and drain both pipes on threads of their own, so a formatter writing a
    // large output before reading all its input cannot deadlock with us.
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input: Arc<str> = text.into();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(pipe) = pipe {
                let _ = pipe
                    .take(MAX_EXTERNAL_OUTPUT as u64 + 1)
                    .read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > EXTERNAL_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failed(format!(
                    "still running after {} s; stopped",
                    EXTERNAL_TIMEOUT.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(failed(e.to_string())),
        }
    };
    let _ = writer.join();
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    if !status.success() {
        let message = String::from_utf8_lossy(&err);
        let first_lines: Vec<&str> = message.lines().take(5).collect();
        return Err(failed(format!("{status}: {}", first_lines.join(" / "))));
    }
    if out.len() > MAX_EXTERNAL_OUTPUT {
        return Err(failed("its output is too large".into()));
    }
    String::from_utf8(out).map_err(|_| failed("its output is not valid UTF-8".into()))
}
