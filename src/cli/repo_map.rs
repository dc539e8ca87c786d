//! `sextant repo-map`: the workspace (or the files under a path) as its most-used
//! definitions' signature lines, ranked over the reference graph, cut to a token budget.

use std::{path::PathBuf, process::ExitCode};

use clap::Args;

use super::{CliError, GlobalArgs, cancelled, load_workspace, workspace_path};
use crate::ide::{Budget, Encoding, RepoMapRequest};

/// Focus entries one call may name.
const MAX_FOCUS: usize = 100;

#[derive(Args, Debug)]
pub struct RepoMapArgs {
    /// A file or directory of the workspace (relative to the current directory or to
    /// --root) [default: the whole workspace]; definitions elsewhere still count as users.
    pub path: Option<PathBuf>,
    /// Rank toward this workspace-relative file or directory, or definition's name (`name`,
    /// `Class.method`); repeatable.
    #[arg(long, value_name = "PATH|NAME")]
    pub focus: Vec<String>,
    /// At most this many tokens [default: 4000].
    #[arg(long, value_name = "N", default_value_t = 4000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: u64,
    /// The encoding tokens are counted in: o200k_base (default) or cl100k_base.
    #[arg(long, value_name = "NAME", value_parser = parse_encoding)]
    pub encoding: Option<Encoding>,
}

fn parse_encoding(name: &str) -> Result<Encoding, String> {
    Encoding::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
        format!("unknown encoding {name:?} (known: {})", known.join(", "))
    })
}

/// Prints the map (or, with --json, the answer) and its token count on stderr; focus
/// entries that named nothing are listed on stderr too.
pub fn run(g: &GlobalArgs, args: &RepoMapArgs) -> Result<(String, ExitCode), CliError> {
    if args.focus.len() > MAX_FOCUS {
        return Err(CliError(format!(
            "INVALID_ARGUMENT: at most {MAX_FOCUS} --focus entries, got {}",
            args.focus.len()
        )));
    }
    let host = load_workspace(g)?;
    let root = std::fs::canonicalize(g.root())?;
    let path_prefix = match &args.path {
        Some(path) => Some(workspace_path(g, &root, path)?),
        None => None,
    };
    let request = RepoMapRequest {
        path_prefix,
        focus: args.focus.clone(),
        budget: Budget {
            encoding: args.encoding.unwrap_or_default(),
            max_tokens: usize::try_from(args.max_tokens).unwrap_or(usize::MAX),
        },
    };
    let map = host.analysis().repo_map(&request).map_err(cancelled)?;
    if let Some(path) = &map.unmatched_path {
        return Err(CliError(format!(
            "NOT_FOUND: {path}: no file the workspace indexes is there (see `sextant files`)"
        )));
    }
    if map.definitions.is_empty() && map.truncated {
        return Err(CliError(format!(
            "TOO_LARGE: not even one definition fits in {} tokens",
            map.max_tokens
        )));
    }
    for focus in &map.unmatched_focus {
        eprintln!("focus {focus:?} names no file or definition");
    }
    eprintln!(
        "{} tokens ({}); {} of {} definitions, {} of {} files",
        map.tokens,
        map.encoding.as_str(),
        map.definitions.len(),
        map.definition_count,
        map.files_shown,
        map.file_count
    );
    let out = match g.json {
        true => serde_json::to_string_pretty(&map)? + "\n",
        false => map.text,
    };
    Ok((out, ExitCode::SUCCESS))
}
