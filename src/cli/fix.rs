//! `sextant check --fix` / `--diff`: the diagnostics' fixes applied (every file or none)
//! or shown as a diff, then what remains reported as `check` reports it.
//!
//! Exit codes (ruff's): with `--fix`, 1 while diagnostics remain, else 0; with `--diff`,
//! 1 when there is something to fix, else 0; 2 an error (a file changed since it was
//! read). A file whose fixes would introduce a new error keeps its text and is named.

use std::{fmt::Write as _, process::ExitCode};

use super::{CliError, apply::failed, cancelled, render};
use crate::{
    ide::{FixOutcome, FixQuery},
    workspace::Host,
};

pub(super) fn run(
    host: &Host,
    query: &FixQuery,
    diff_only: bool,
    json: bool,
) -> Result<(String, ExitCode), CliError> {
    let outcome = host.analysis().fix(query).map_err(cancelled)?;
    if let Some(path) = outcome.remaining.unmatched_paths.first() {
        return Err(CliError(format!(
            "{path}: no file the workspace indexes is there (see `sextant files`)"
        )));
    }
    let written = !diff_only && !outcome.change.is_empty();
    if written {
        host.write_change(&outcome.change).map_err(failed)?;
    }
    let code = match diff_only {
        true if outcome.applied.is_empty() => ExitCode::SUCCESS,
        true => ExitCode::from(1),
        false if outcome.remaining.summary.total == 0 => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    };
    let out = if json {
        json_answer(&outcome, written)
    } else if diff_only {
        let mut out = outcome.diff.clone();
        let _ = writeln!(out, "{}", fixed_line(&outcome, "Would fix"));
        withheld_lines(&mut out, &outcome);
        out
    } else {
        let mut out = render::check(&outcome.remaining, false);
        let _ = writeln!(out, "{}", fixed_line(&outcome, "Fixed"));
        withheld_lines(&mut out, &outcome);
        out
    };
    Ok((out, code))
}

/// `Fixed 3 diagnostics in 2 files (SX006 3).`, with the unsafe fixes left over.
fn fixed_line(outcome: &FixOutcome, verb: &str) -> String {
    let count = outcome.applied.len();
    let files: std::collections::BTreeSet<&str> =
        outcome.applied.iter().map(|f| f.path.as_str()).collect();
    let mut by_code = std::collections::BTreeMap::<&str, usize>::new();
    for fix in &outcome.applied {
        *by_code.entry(&fix.code).or_default() += 1;
    }
    let mut line = if count == 0 {
        "Nothing to fix.".to_string()
    } else {
        let codes: Vec<String> = by_code.iter().map(|(c, n)| format!("{c} {n}")).collect();
        format!(
            "{verb} {count} diagnostic{} in {} file{} ({}).",
            plural(count),
            files.len(),
            plural(files.len()),
            codes.join(", ")
        )
    };
    if outcome.unsafe_fixes_left > 0 {
        let _ = write!(
            line,
            " {} more fixable with --unsafe-fixes.",
            outcome.unsafe_fixes_left
        );
    }
    line
}

/// The files whose fixes were left out, each with what they would have introduced.
fn withheld_lines(out: &mut String, outcome: &FixOutcome) {
    for file in &outcome.withheld {
        let _ = writeln!(
            out,
            "Left {} unfixed: its fixes would introduce:",
            file.path
        );
        for d in &file.because {
            let _ = writeln!(
                out,
                "  {}:{}:{}: {} {}",
                d.path, d.span.start.line, d.span.start.column, d.code, d.message
            );
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn json_answer(outcome: &FixOutcome, written: bool) -> String {
    let value = serde_json::json!({
        "written": written,
        "change_id": outcome.change.id(),
        "fixed": outcome.applied,
        "unsafe_fixes_left": outcome.unsafe_fixes_left,
        "new_diagnostics": outcome.new_diagnostics,
        "withheld": outcome.withheld,
        "diff": outcome.diff,
        "remaining": outcome.remaining,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    )
}
