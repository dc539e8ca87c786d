//! `sextant format`: the layout of workspace files checked, shown as diffs, or written.
//!
//! The formatted texts are checked for new diagnostics as every edit is ([`CheckPolicy`]),
//! under `--diagnostics` (`--check` was taken: it lists the files that would change):
//! `report` by default. A layout change should never add one, so one reported is a
//! formatter's bug (or a configured external formatter's), shown before it is written.

use crate::ide::Failure as _;
use std::{collections::BTreeMap, fmt::Write as _, path::PathBuf, process::ExitCode};

use clap::Args;
use serde::Serialize;

use super::{
    CliError, GlobalArgs, cancelled, load_workspace,
    policy::{CheckArg, new_diagnostic_line},
    workspace_path,
};
use crate::{
    ide::{CheckPolicy, DiagnosticInfo, FormatOptions, IndentStyle, SourceChange},
    workspace::{self, FormatterTrust, Formatting},
};

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// Files or directories of the workspace (relative to the current directory or to
    /// --root) [default: the whole workspace].
    pub paths: Vec<PathBuf>,
    /// Change nothing; list the files that would change and exit 1 if any would.
    #[arg(long, conflicts_with_all = ["diff", "write"])]
    pub check: bool,
    /// Change nothing; print the unified diffs and exit 1 if any file would change.
    #[arg(long, conflicts_with = "write")]
    pub diff: bool,
    /// Write the formatted files: all or none (nothing when any file could not be
    /// formatted), after checking each is unchanged on disk.
    #[arg(long)]
    pub write: bool,
    /// Run the external formatters the workspace's sextant.toml names. They are commands
    /// from the workspace, so without this a file of such a language is refused
    /// (FORMATTER_NOT_ALLOWED).
    #[arg(long)]
    pub allow_external_formatter: bool,
    /// Indent with this many spaces instead of the language's unit (1 to 16).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=16))]
    pub tab_size: Option<u8>,
    /// What new diagnostics in the formatted files do (a formatter's bug): `report` them,
    /// `refuse` to write when one is an error (exit 1), or `off` (no check).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = CheckArg::Report)]
    pub diagnostics: CheckArg,
}

#[derive(Serialize)]
struct FileOutcome {
    path: String,
    changed: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    diff: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Failure>,
}

#[derive(Serialize)]
struct Failure {
    code: crate::ide::ErrorCode,
    message: String,
}

#[derive(Serialize)]
struct Report {
    files: Vec<FileOutcome>,
    checked: usize,
    changed: usize,
    failed: usize,
    /// The diagnostics the formatted files would have (or, written, have) that they did
    /// not have before; `null` with `--diagnostics off`.
    new_diagnostics: Option<Vec<DiagnosticInfo>>,
    written: bool,
}

/// Exit 0 when every file is formatted (or was written), 1 when `--check`/`--diff` finds a
/// file that would change or `--diagnostics refuse` a new error, 2 when a file could not be
/// formatted or written.
pub fn run(g: &GlobalArgs, args: &FormatArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let root = std::fs::canonicalize(g.root())?;
    let mut prefixes = Vec::new();
    for path in &args.paths {
        prefixes.push(workspace_path(g, &root, path)?);
    }
    let analysis = host.analysis();
    let selected = selected_files(&analysis, &prefixes);
    // As `check`: a workspace without code is 0 files, not an error; a named path under
    // which the workspace indexes no file is.
    if selected.is_empty()
        && let Some(named) = args.paths.first()
    {
        return Err(CliError(format!(
            "{}: no file the workspace indexes is there (see `sextant files`)",
            named.display()
        )));
    }
    let options = FormatOptions {
        indent: args
            .tab_size
            .map_or(IndentStyle::Language, IndentStyle::Spaces),
    };
    let formatting = Formatting {
        root: &root,
        formatters: &host.config.format,
        trust: if args.allow_external_formatter {
            FormatterTrust::Trusted
        } else {
            FormatterTrust::Untrusted
        },
        stop: &|| false,
    };
    let Formatted {
        outcomes,
        change,
        texts,
    } = format_files(&analysis, formatting, &selected, options)?;
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let policy = args.diagnostics.policy();
    let new_diagnostics = match policy {
        CheckPolicy::Off => None,
        _ if texts.is_empty() => Some(Vec::new()),
        _ => Some(analysis.new_diagnostics(&texts).map_err(cancelled)?),
    };
    let blocking = policy.blocking(new_diagnostics.as_deref().unwrap_or_default());
    let mut written = false;
    // All or none: one file that could not be formatted, or a new error under `refuse`,
    // stops every write.
    if args.write && failed == 0 && blocking.is_empty() && !change.is_empty() {
        host.write_change(&change)
            .map_err(|e| CliError(format!("{}: {e}", e.code())))?;
        written = true;
    }
    let report = Report {
        checked: outcomes.len(),
        changed: outcomes.iter().filter(|o| o.changed).count(),
        failed,
        files: outcomes,
        new_diagnostics,
        written,
    };
    let code = if report.failed > 0 {
        ExitCode::from(2)
    } else if !blocking.is_empty() || (report.changed > 0 && (args.check || args.diff)) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let out = if g.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        render(&report, args, !blocking.is_empty())
    };
    Ok((out, code))
}

/// The indexed files under any of `prefixes` (workspace-relative; all files when none).
fn selected_files(analysis: &crate::ide::Analysis, prefixes: &[String]) -> Vec<crate::ide::FileId> {
    analysis
        .files()
        .filter(|&file| {
            let path = analysis.file_path(file);
            prefixes.is_empty()
                || prefixes.iter().any(|prefix| {
                    prefix.is_empty()
                        || path == prefix
                        || path
                            .strip_prefix(prefix.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                })
        })
        .collect()
}

/// The selected files formatted.
struct Formatted {
    /// Each file's outcome.
    outcomes: Vec<FileOutcome>,
    /// One change holding every file that would change.
    change: SourceChange,
    /// The new text of each of those files, by path.
    texts: BTreeMap<String, String>,
}

fn format_files(
    analysis: &crate::ide::Analysis,
    formatting: Formatting,
    files: &[crate::ide::FileId],
    options: FormatOptions,
) -> Result<Formatted, CliError> {
    let mut outcomes = Vec::new();
    let mut change = SourceChange::default();
    let mut texts = BTreeMap::new();
    for &file in files {
        let path = analysis.file_path(file).to_string();
        match workspace::format_file(analysis, formatting, file, options) {
            Ok(formatted) => {
                let changed = formatted.changed();
                if changed {
                    texts.insert(path.clone(), formatted.formatted.to_string());
                }
                outcomes.push(FileOutcome {
                    path,
                    changed,
                    diff: formatted.diff.clone(),
                    error: None,
                });
                if changed {
                    change.files.push(formatted.edit);
                }
            }
            Err(workspace::FormatFailure::Cancelled) => {
                return Err(CliError("the analysis was cancelled".into()));
            }
            Err(error) => outcomes.push(FileOutcome {
                path,
                changed: false,
                diff: String::new(),
                error: Some(Failure {
                    code: error.code(),
                    message: error.to_string(),
                }),
            }),
        }
    }
    Ok(Formatted {
        outcomes,
        change,
        texts,
    })
}

fn render(report: &Report, args: &FormatArgs, refused: bool) -> String {
    let mut out = String::new();
    for file in &report.files {
        if let Some(error) = &file.error {
            let _ = writeln!(out, "{}: {} {}", file.path, error.code, error.message);
        } else if file.changed {
            if report.written {
                let _ = writeln!(out, "{}: formatted", file.path);
            } else if args.check || args.write {
                let _ = writeln!(out, "{}: would be formatted", file.path);
            } else {
                out.push_str(&file.diff);
            }
        }
    }
    for d in report.new_diagnostics.iter().flatten() {
        let _ = writeln!(out, "{}", new_diagnostic_line(d));
    }
    let files = |n: usize| if n == 1 { "file" } else { "files" };
    let verb = if report.written {
        "formatted"
    } else {
        "would be formatted"
    };
    let _ = write!(
        out,
        "{} of {} {} {verb}",
        report.changed,
        report.checked,
        files(report.checked)
    );
    if report.failed > 0 {
        let _ = write!(out, "; {} could not be formatted", report.failed);
        if args.write {
            out.push_str(", so none was written");
        }
    } else if refused && args.write {
        out.push_str(
            "; not written: the formatted files would have new errors (--diagnostics refuse)",
        );
    }
    out.push_str(".\n");
    out
}
