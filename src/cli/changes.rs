//! `sextant changes`: what the working tree changed against HEAD (or a revision, or what a
//! range of commits changed): the changed files, the definitions added, removed or changed
//! in them, the tests that can reach them and everything that depends on them. Read from
//! the repository with `gix`; git is never run.
//!
//! Exit codes: 0 an answer (even an empty one), 2 an error (no repository, an unknown
//! revision).

use std::process::ExitCode;

use clap::Args;

use super::{CliError, GlobalArgs, apply::failed, cancelled, load_workspace};
use crate::{
    ide::{ChangesQuery, DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT},
    workspace::changes::{Revisions, changed_texts},
};

#[derive(Args, Debug)]
pub struct ChangesArgs {
    /// `REV` (its commit against the working tree), `OLD..NEW` (two commits) or `A...B`
    /// (`B` against its merge base with `A`) [default: HEAD against the working tree,
    /// staged, unstaged and untracked files alike].
    #[arg(value_name = "REV_RANGE")]
    pub revisions: Option<String>,
    /// Steps the impact follows from the changed definitions.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_IMPACT_DEPTH)]
    pub depth: u32,
    /// At most this many dependents listed (all are counted).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_IMPACT_LIMIT)]
    pub limit: usize,
}

pub fn run(g: &GlobalArgs, args: &ChangesArgs) -> Result<(String, ExitCode), CliError> {
    let revisions = Revisions::parse(args.revisions.as_deref()).map_err(failed)?;
    let root = std::fs::canonicalize(g.root())?;
    let files = changed_texts(&root, &revisions).map_err(failed)?;
    let host = load_workspace(g)?;
    let query = ChangesQuery {
        revisions: revisions.label(),
        files,
        max_depth: args.depth,
        limit: args.limit,
        budget: None,
    };
    let changes = host
        .analysis()
        .changes(&query)
        .map_err(cancelled)?
        .map_err(failed)?;
    let out = match g.json {
        true => serde_json::to_string_pretty(&changes)? + "\n",
        false => changes.text,
    };
    Ok((out, ExitCode::SUCCESS))
}
