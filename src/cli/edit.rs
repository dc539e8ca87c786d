//! `sextant edit`: a symbol-level edit (replace a definition's body or all of it, insert
//! text before or after it, delete it), made as a patch and shown or written as `apply`
//! shows and writes one.
//!
//! Exit codes: 0 edited (or would edit), 1 refused because `--check refuse` found new
//! errors, 2 an error (no such definition, a name of several, a definition still used).

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, ValueEnum};

use super::{
    CliError, GlobalArgs,
    apply::{Shown, WriteArgs, failed_at, read_input},
    cancelled, load_workspace, position,
};
use crate::ide::{SymbolEditError, SymbolEditKind, SymbolEditTarget};

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The definition: a NAME (`f`, `module.f`, `Class.method`, `Type::method`) or
    /// `FILE:LINE:COLUMN` (the innermost definition there).
    pub target: String,
    /// What to do.
    #[arg(value_enum)]
    pub operation: OperationArg,
    /// A file holding the new text; `-` reads standard input. Not for `delete`.
    #[arg(long, value_name = "FILE")]
    pub text: Option<PathBuf>,
    /// `delete` even while exact references to the definition remain.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub output: WriteArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OperationArg {
    ReplaceBody,
    ReplaceDefinition,
    InsertBefore,
    InsertAfter,
    Delete,
}

pub fn run(g: &GlobalArgs, args: &EditArgs) -> Result<(String, ExitCode), CliError> {
    let kind = match args.operation {
        OperationArg::ReplaceBody => SymbolEditKind::ReplaceBody,
        OperationArg::ReplaceDefinition => SymbolEditKind::ReplaceDefinition,
        OperationArg::InsertBefore => SymbolEditKind::InsertBefore,
        OperationArg::InsertAfter => SymbolEditKind::InsertAfter,
        OperationArg::Delete => SymbolEditKind::Delete,
    };
    let text = match (kind, &args.text) {
        (SymbolEditKind::Delete, None) => String::new(),
        (SymbolEditKind::Delete, Some(_)) => {
            return Err(CliError("INVALID_ARGUMENT: delete takes no --text".into()));
        }
        (_, None) => {
            return Err(CliError(
                "INVALID_ARGUMENT: give the new text with --text FILE (- for standard input)"
                    .into(),
            ));
        }
        (_, Some(path)) => read_input(path)?,
    };
    let host = load_workspace(g)?;
    let target = match position(g, &host, &args.target)? {
        Some((file, offset)) => SymbolEditTarget::Position {
            path: host.analysis().file_path(file).to_string(),
            offset,
        },
        None => SymbolEditTarget::Name {
            name: args.target.clone(),
            path_prefix: None,
        },
    };
    let edit = host
        .analysis()
        .edit_symbol(&target, kind, &text, args.force)
        .map_err(cancelled)?
        .map_err(edit_error)?;
    let shown = Shown {
        check: args.output.check.policy(),
        fuzz: 0,
        expected_sha256: Default::default(),
        diff: args.output.diff,
        write: args.output.write,
        hard_links: args.output.hard_links(),
        operation: None,
    };
    let mut extra = serde_json::Map::new();
    extra.insert("definition".into(), edit.definition.clone().into());
    extra.insert("path".into(), edit.path.clone().into());
    extra.insert("start_line".into(), edit.start_line.into());
    extra.insert("end_line".into(), edit.end_line.into());
    let (out, code) = shown.run(g, &host, &edit.patch, extra)?;
    let out = match g.json || args.output.diff {
        true => out,
        false => format!(
            "{}:{}-{} {}\n{out}",
            edit.path, edit.start_line, edit.end_line, edit.definition
        ),
    };
    Ok((out, code))
}

/// The error, with the places it names (candidates of an ambiguous name, uses of a
/// definition to delete) one per line.
fn edit_error(error: SymbolEditError) -> CliError {
    let places = match &error {
        SymbolEditError::Ambiguous(ambiguity) => ambiguity.candidates.clone(),
        SymbolEditError::StillReferenced { references, .. } => references.clone(),
        _ => Vec::new(),
    };
    failed_at(error, &places)
}
