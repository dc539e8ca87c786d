//! `sextant impact`: what depends on definitions, files or lines, transitively and nearest
//! first, with the tests among them marked; `--tests` lists only the tests (the affected
//! tests of a change).
//!
//! Exit codes: 0 an answer (even an empty one), 2 an error (no such definition or file, a
//! name of several definitions, lines outside the file).

use std::{path::Path, process::ExitCode};

use clap::Args;

use super::{
    CliError, GlobalArgs, apply::failed_at, cancelled, load_workspace, position, workspace_path,
};
use crate::{
    ide::{
        DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT, ImpactError, ImpactQuery, ImpactSeed,
        SymbolEditTarget,
    },
    workspace::Host,
};

#[derive(Args, Debug)]
pub struct ImpactArgs {
    /// What changes: a definition's NAME (`f`, `module.f`, `Class.method`), the innermost
    /// definition at FILE:LINE:COLUMN, lines FILE:START-END, or a FILE or directory (every
    /// definition in it, and the files importing it). Several may be given.
    #[arg(required = true, value_name = "TARGET")]
    pub targets: Vec<String>,
    /// Steps to follow from the targets.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_IMPACT_DEPTH)]
    pub depth: u32,
    /// At most this many dependents listed (all are counted).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_IMPACT_LIMIT)]
    pub limit: usize,
    /// List only the tests that can reach the targets.
    #[arg(long)]
    pub tests: bool,
    /// Follow exact uses only: no call matched by name on a receiver of unknown type.
    #[arg(long)]
    pub exact: bool,
}

pub fn run(g: &GlobalArgs, args: &ImpactArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let mut seeds = Vec::new();
    for target in &args.targets {
        seeds.extend(seeds_of(g, &host, target)?);
    }
    let query = ImpactQuery {
        seeds,
        max_depth: args.depth,
        limit: args.limit,
        tests_only: args.tests,
        exact: args.exact,
        budget: None,
    };
    let impact = host
        .analysis()
        .impact(&query)
        .map_err(cancelled)?
        .map_err(impact_error)?;
    let out = match g.json {
        true => serde_json::to_string_pretty(&impact)? + "\n",
        false => impact.text,
    };
    Ok((out, ExitCode::SUCCESS))
}

/// What one argument names: lines, a position, a file or directory that exists, or else
/// a name.
fn seeds_of(g: &GlobalArgs, host: &Host, target: &str) -> Result<Vec<ImpactSeed>, CliError> {
    if let Some((path, start, end)) = line_range(target) {
        let root = std::fs::canonicalize(g.root())?;
        let path = workspace_path(g, &root, Path::new(path))?;
        return Ok(vec![ImpactSeed::Lines { path, start, end }]);
    }
    if let Some((file, offset)) = position(g, host, target)? {
        let path = host.analysis().file_path(file).to_string();
        return Ok(vec![ImpactSeed::Definition(SymbolEditTarget::Position {
            path,
            offset,
        })]);
    }
    let root = std::fs::canonicalize(g.root())?;
    if let Ok(rel) = workspace_path(g, &root, Path::new(target)) {
        return Ok(vec![ImpactSeed::Path(rel)]);
    }
    Ok(vec![ImpactSeed::Definition(SymbolEditTarget::Name {
        name: target.to_string(),
        path_prefix: None,
    })])
}

/// `FILE:START-END` (1-based lines).
fn line_range(target: &str) -> Option<(&str, u32, u32)> {
    let (path, lines) = target.rsplit_once(':')?;
    let (start, end) = lines.split_once('-')?;
    Some((path, start.parse().ok()?, end.parse().ok()?))
}

/// The error, with an ambiguous name's candidates one per line.
fn impact_error(error: ImpactError) -> CliError {
    let places = match &error {
        ImpactError::Ambiguous(ambiguity) => ambiguity.candidates.clone(),
        _ => Vec::new(),
    };
    failed_at(error, &places)
}
