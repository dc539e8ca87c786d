//! `sextant explore`: one answer to a question about the code from the terms it names
//! (identifiers, definitions' names, paths, or the question in words): the definitions' source grouped by file, the
//! call paths between them and what depends on them, under one token budget.

use std::process::ExitCode;

use clap::Args;

use super::{CliError, GlobalArgs, cancelled, load_workspace};
use crate::ide::{Budget, Encoding, ExploreQuery};

#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// What the question names: identifiers or definitions' names (`parse`,
    /// `Parser.parse`, `Type::method`), workspace files, or the question in words.
    #[arg(required = true, value_name = "TERM")]
    pub terms: Vec<String>,
    /// At most this many tokens [default: 8000].
    #[arg(long, value_name = "N", default_value_t = 8000, value_parser = clap::value_parser!(u64).range(1..))]
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

/// Prints the answer (or, with --json, all of it) and its token count on stderr. Exits 1
/// when no term named anything.
pub fn run(g: &GlobalArgs, args: &ExploreArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let query = ExploreQuery {
        terms: args.terms.clone(),
        budget: Budget {
            encoding: args.encoding.unwrap_or_default(),
            max_tokens: usize::try_from(args.max_tokens).unwrap_or(usize::MAX),
        },
    };
    let answer = host.analysis().explore(&query).map_err(cancelled)?;
    eprintln!(
        "{} tokens ({}); the files read whole: {} tokens",
        answer.tokens,
        answer.encoding.as_str(),
        answer.files_tokens
    );
    let code = match answer.not_found.len() == args.terms.len() {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    };
    let out = match g.json {
        true => serde_json::to_string_pretty(&answer)? + "\n",
        false => answer.text,
    };
    Ok((out, code))
}
