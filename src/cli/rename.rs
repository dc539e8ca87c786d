//! `sextant rename`: a dry run by default (the edits, or `--diff`), `--write` to apply.
//!
//! The renamed files' new diagnostics follow `--check` ([`CheckPolicy`]), whose default
//! here is `refuse`, not `report` as for `apply`: a rename is meant to keep the code's
//! behaviour, so a new error means it would not, and nothing is written.
//!
//! Exit codes: 0 renamed (or would rename), 1 refused with findings (conflicts named by
//! place, or new errors under `--check refuse`), 2 an error (an invalid new name, nothing
//! to rename, a file changed since the rename was computed).

use crate::ide::Failure as _;
use std::{fmt::Write as _, process::ExitCode};

use clap::Args;

use super::{
    CliError, GlobalArgs, cancelled, load_workspace,
    policy::{CheckArg, new_diagnostic_line},
    position,
};
use crate::ide::{Certainty, CheckPolicy, NewDiagnostics, Rename, RenameError, RenameOptions};

#[derive(Args, Debug)]
pub struct RenameArgs {
    /// `FILE:LINE:COLUMN` (the name there), or a NAME, optionally qualified by its module
    /// or class (`posixpath.join`, `Class.method`).
    pub target: String,
    /// The new name.
    pub new_name: String,
    /// Print the unified diff of the change instead of the list of edits.
    #[arg(long, conflicts_with = "write")]
    pub diff: bool,
    /// Write the change to disk (every file or none; refused if a file changed since).
    #[arg(long)]
    pub write: bool,
    /// Also rename members matched by name on receivers of unknown type (listed with `?`).
    #[arg(long)]
    pub include_heuristic: bool,
    /// Also rename the old name where it is a word in strings and comments.
    #[arg(long)]
    pub include_text: bool,
    /// What new diagnostics in the renamed files do: `refuse` to write when one is an error
    /// (exit 1; the default, as a rename is meant to keep the code's behaviour), `report`
    /// them and write, or `off` (not looked for; conflicts are checked either way).
    #[arg(long, value_enum, default_value_t = CheckArg::Refuse)]
    pub check: CheckArg,
}

pub fn run(g: &GlobalArgs, args: &RenameArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let policy = args.check.policy();
    let options = RenameOptions {
        include_heuristic: args.include_heuristic,
        include_text: args.include_text,
        check_diagnostics: policy != CheckPolicy::Off,
    };
    let result = {
        let analysis = host.analysis();
        match position(g, &host, &args.target)? {
            Some((file, offset)) => analysis.rename(file, offset, &args.new_name, options),
            None => analysis.rename_by_name(&args.target, &args.new_name, options),
        }
        .map_err(cancelled)?
    };
    let rename = match result {
        Ok(rename) => rename,
        Err(error @ (RenameError::Conflict { .. } | RenameError::NotUtf8 { .. })) => {
            return Ok((refusal(&error, g.json), ExitCode::from(1)));
        }
        Err(error) if g.json => return Ok((refusal(&error, true), ExitCode::from(2))),
        Err(error) => return Err(CliError(format!("{}: {error}", error.code()))),
    };
    if let Some(refusal) = rename.refusal(policy) {
        return Ok((broken(&refusal, g.json), ExitCode::from(1)));
    }
    let mut written = None;
    if args.write && !rename.change.is_empty() {
        match host.write_change(&rename.change) {
            Ok(done) => written = Some(done),
            Err(error) => return Err(CliError(format!("{}: {error}", error.code()))),
        }
    }
    let out = if g.json {
        let mut value = serde_json::to_value(&rename).unwrap_or_default();
        value["written"] = serde_json::json!(written.as_ref().map(|w| &w.files));
        format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        )
    } else if args.diff {
        rename.diff.clone()
    } else {
        human(&rename, written.is_some())
    };
    Ok((out, ExitCode::SUCCESS))
}

fn human(rename: &Rename, written: bool) -> String {
    let mut s = String::new();
    let lists = [&rename.edits, &rename.heuristic, &rename.text_matches];
    for edit in lists.into_iter().flatten() {
        let location = format!(
            "{}:{}:{}",
            edit.path, edit.span.start.line, edit.span.start.column
        );
        let mark = match (edit.certainty, edit.applied) {
            (_, false) => "(left)",
            (Certainty::Heuristic, true) => "?",
            (Certainty::Exact, true) => "",
        };
        let origin = serde_json::to_value(edit.origin).unwrap_or_default();
        writeln!(
            s,
            "{location:<40} {:<10} {}",
            format!("{}{mark}", origin.as_str().unwrap_or_default()),
            edit.line_text
        )
        .unwrap();
    }
    for d in rename.new_diagnostics.iter().flatten() {
        writeln!(s, "{}", new_diagnostic_line(d)).unwrap();
    }
    let applied = lists.into_iter().flatten().filter(|e| e.applied).count();
    let files = rename
        .change
        .files
        .iter()
        .filter(|f| !f.edits.is_empty())
        .count();
    write!(
        s,
        "`{}` → `{}`: {applied} edit{} in {files} file{}",
        rename.old_name,
        rename.new_name,
        if applied == 1 { "" } else { "s" },
        if files == 1 { "" } else { "s" },
    )
    .unwrap();
    s.push_str(if written {
        ", written\n"
    } else {
        " (dry run: --diff to see it, --write to apply)\n"
    });
    for warning in &rename.warnings {
        writeln!(s, "note: {warning}").unwrap();
    }
    s
}

fn refusal(error: &RenameError, as_json: bool) -> String {
    if as_json {
        let value = serde_json::json!({
            "error": {
                "code": error.code(),
                "message": error.to_string(),
                "conflicts": error.conflicts(),
            }
        });
        return format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
    }
    let mut s = format!("{}: {error}\n", error.code());
    for c in error.conflicts() {
        writeln!(
            s,
            "{}:{}:{}: {}",
            c.path, c.span.start.line, c.span.start.column, c.message
        )
        .unwrap();
    }
    s
}

fn broken(refusal: &NewDiagnostics, as_json: bool) -> String {
    let message = format!("{}; nothing was written", NewDiagnostics::MESSAGE);
    if as_json {
        let value = serde_json::json!({
            "error": {
                "code": NewDiagnostics::CODE,
                "message": message,
                "diagnostics": refusal.diagnostics(),
            }
        });
        return format!(
            "{}\n",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
    }
    let mut s = format!("{}: {message}\n", NewDiagnostics::CODE);
    for line in refusal.lines() {
        writeln!(s, "{line}").unwrap();
    }
    s
}
