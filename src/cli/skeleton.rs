//! `sextant skeleton`: files with their function and method bodies elided, each marked
//! with the lines it stood for, cut to a token budget when `--max-tokens` is given.

use std::{path::PathBuf, process::ExitCode};

use clap::Args;

use super::{
    CliError, GlobalArgs, cancelled, load_workspace, load_workspace_unindexed, workspace_path,
};
use crate::ide::{Budget, Encoding, SkeletonQuery};

#[derive(Args, Debug)]
pub struct SkeletonArgs {
    /// Files or directories of the workspace (relative to the current directory or to
    /// --root) [default: the whole workspace].
    pub paths: Vec<PathBuf>,
    /// At most this many tokens: whole files in path order while they fit (a first file
    /// too large alone is cut between top-level items), then where to continue.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// The encoding tokens are counted in: o200k_base (default) or cl100k_base.
    #[arg(long, value_name = "NAME", value_parser = parse_encoding)]
    pub encoding: Option<Encoding>,
    /// Start at this file of the list (the `offset` a cut answer names).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Start the first file at this 1-based line (the `line` a cut answer names).
    #[arg(long, value_name = "LINE", value_parser = clap::value_parser!(u32).range(1..))]
    pub line: Option<u32>,
}

fn parse_encoding(name: &str) -> Result<Encoding, String> {
    Encoding::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
        format!("unknown encoding {name:?} (known: {})", known.join(", "))
    })
}

/// Prints the rendered skeletons (or, with --json, the answer) and their token count on
/// stderr.
pub fn run(g: &GlobalArgs, args: &SkeletonArgs) -> Result<(String, ExitCode), CliError> {
    // Skeletons of some paths read those files alone: the workspace is not indexed first.
    let host = match args.paths.is_empty() {
        true => load_workspace(g)?,
        false => load_workspace_unindexed(g)?,
    };
    let root = std::fs::canonicalize(g.root())?;
    let mut paths = Vec::new();
    for path in &args.paths {
        paths.push(workspace_path(g, &root, path)?);
    }
    let query = SkeletonQuery {
        paths,
        offset: args.offset,
        line: args.line,
        budget: Budget {
            encoding: args.encoding.unwrap_or_default(),
            max_tokens: args.max_tokens.map_or(usize::MAX, |n| n as usize),
        },
    };
    let answer = host.analysis().skeleton(&query).map_err(cancelled)?;
    if let Some(path) = answer.unmatched_paths.first() {
        return Err(CliError(format!(
            "NOT_FOUND: {path}: no file the workspace indexes is there (see `sextant files`)"
        )));
    }
    if answer.files.is_empty() && answer.next_offset.is_some() {
        return Err(CliError(format!(
            "TOO_LARGE: not even one line of the skeleton fits in {} tokens",
            answer.max_tokens
        )));
    }
    eprintln!("{} tokens ({})", answer.tokens, answer.encoding.as_str());
    let out = match g.json {
        true => serde_json::to_string_pretty(&answer)? + "\n",
        false => answer.text,
    };
    Ok((out, ExitCode::SUCCESS))
}
