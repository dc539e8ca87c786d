//! `sextant implementations`: the subclasses, implementations and overriding methods of a
//! type or method (or, with `--supertypes`, what it derives from, implements and overrides),
//! at every level, each `exact` or `heuristic`.

use std::{fmt::Write as _, process::ExitCode};

use clap::Args;

use super::{CliError, GlobalArgs, cancelled, load_workspace, one_if, position};
use crate::ide::{Certainty, Failure as _, HierarchyDirection, HierarchyItem, Implementations};

#[derive(Args, Debug)]
pub struct ImplementationsArgs {
    /// FILE:LINE:COLUMN (1-based, columns in characters) of a type or method, or its NAME
    /// (`Shape`, `Shape.area`, `mod.Shape`).
    pub target: String,
    /// What it derives from, implements or overrides, instead of what derives from it.
    #[arg(long)]
    pub supertypes: bool,
    /// At most this many items.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 1000)]
    pub limit: usize,
}

/// Prints the items nearest first (or, with --json, the answer); exits 1 when there are
/// none.
pub fn run(g: &GlobalArgs, args: &ImplementationsArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let analysis = host.analysis();
    let direction = match args.supertypes {
        true => HierarchyDirection::Supertypes,
        false => HierarchyDirection::Implementations,
    };
    let answer = match position(g, &host, &args.target)? {
        Some((file, offset)) => analysis.implementations(file, offset, direction, args.limit),
        None => analysis.implementations_by_name(&args.target, direction, args.limit),
    }
    .map_err(cancelled)?;
    let answer = match answer {
        Ok(answer) => answer,
        Err(error) => {
            let mut message = format!("{}: {error}", error.code());
            if let crate::ide::ImplementationsError::Ambiguous { candidates, .. } = &error {
                for candidate in candidates {
                    let _ = write!(message, "\n  {}", line(candidate));
                }
            }
            return Err(CliError(message));
        }
    };
    let code = one_if(answer.items.is_empty());
    let out = match g.json {
        true => serde_json::to_string_pretty(&answer).map_err(|e| CliError(e.to_string()))? + "\n",
        false => text(&answer),
    };
    Ok((out, code))
}

fn text(answer: &Implementations) -> String {
    let mut out = format!("{}\n", line(&answer.subject));
    for item in &answer.items {
        let indent = "  ".repeat(item.depth as usize);
        let certainty = match item.certainty {
            Certainty::Exact => "exact",
            Certainty::Heuristic => "heuristic",
        };
        let _ = writeln!(out, "{indent}{}  {certainty}", line(item));
    }
    if answer.truncated {
        let _ = writeln!(out, "… {} more", answer.total - answer.items.len());
    }
    out
}

fn line(item: &HierarchyItem) -> String {
    let container = match &item.container {
        Some(container) => format!(" (in {container})"),
        None => String::new(),
    };
    format!(
        "{}:{}:{}  {} {}{container}",
        item.path,
        item.name_span.start.line,
        item.name_span.start.column,
        item.kind.as_str(),
        item.name
    )
}
