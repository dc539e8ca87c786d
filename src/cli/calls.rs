//! `sextant calls`: the call graph of a function, method or class — who calls it, what it
//! calls, to a depth — as an indented tree, JSON, Graphviz DOT or a Mermaid flowchart.
//!
//! Exit codes: 0 a graph (even one with no edges), 2 an error (no such definition, a name
//! of several, a target that is not a function, method or class).

use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{CliError, GlobalArgs, apply::failed_at, cancelled, load_workspace, position};
use crate::ide::{
    CallDirection, CallGraphError, CallGraphQuery, DEFAULT_CALL_GRAPH_NODES, MAX_CALL_DEPTH,
    SymbolEditTarget, call_graph_dot, call_graph_mermaid,
};

#[derive(Args, Debug)]
pub struct CallsArgs {
    /// The function, method or class: a NAME (`f`, `module.f`, `Class.method`,
    /// `Type::method`) or `FILE:LINE:COLUMN` (the one named there, else the innermost one
    /// around it).
    pub target: String,
    /// Only who calls it (and who calls those, to --depth).
    #[arg(long, conflicts_with = "outgoing")]
    pub incoming: bool,
    /// Only what it calls (and what those call, to --depth).
    #[arg(long)]
    pub outgoing: bool,
    /// Steps from the target, 1 to 10.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_CALL_DEPTH as i64))]
    pub depth: u32,
    /// Leave out calls matched by name alone (a method on a receiver of unknown type).
    #[arg(long)]
    pub exact: bool,
    /// At most this many definitions in the graph, the target included.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CALL_GRAPH_NODES, value_parser = parse_max_nodes)]
    pub max_nodes: usize,
    /// Output format (--json is the same as --format json).
    #[arg(long, value_enum, default_value_t = CallsFormat::Text)]
    pub format: CallsFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CallsFormat {
    Text,
    Json,
    Dot,
    Mermaid,
}

fn parse_max_nodes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a number from 1, got {text:?}")),
    }
}

pub fn run(g: &GlobalArgs, args: &CallsArgs) -> Result<(String, ExitCode), CliError> {
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
    let direction = match (args.incoming, args.outgoing) {
        (true, _) => CallDirection::Incoming,
        (_, true) => CallDirection::Outgoing,
        _ => CallDirection::Both,
    };
    let query = CallGraphQuery {
        target,
        direction,
        depth: args.depth,
        exact_only: args.exact,
        max_nodes: args.max_nodes,
        budget: None,
    };
    let graph = host
        .analysis()
        .call_graph(&query)
        .map_err(cancelled)?
        .map_err(graph_error)?;
    let format = if g.json {
        CallsFormat::Json
    } else {
        args.format
    };
    let out = match format {
        CallsFormat::Text => graph.text.clone(),
        CallsFormat::Json => serde_json::to_string_pretty(&graph)? + "\n",
        CallsFormat::Dot => call_graph_dot(&graph),
        CallsFormat::Mermaid => call_graph_mermaid(&graph),
    };
    Ok((out, ExitCode::SUCCESS))
}

/// The error, with an ambiguous name's candidates one per line.
fn graph_error(error: CallGraphError) -> CliError {
    let places = match &error {
        CallGraphError::Ambiguous(ambiguity) => ambiguity.candidates.clone(),
        _ => Vec::new(),
    };
    failed_at(error, &places)
}
