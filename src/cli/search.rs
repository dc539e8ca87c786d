//! `sextant search`: ripgrep-like text search over the files the workspace indexes, each
//! hit with its enclosing definition.
//!
//! Exit codes: 0 when a line matched, 1 when none did (as `rg`), 2 on an error (an invalid
//! pattern or glob, a path that is not in the workspace).

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, ValueEnum};

use super::{CliError, GlobalArgs, cancelled, load_workspace_unindexed, one_if, workspace_path};
use crate::ide::{self, Budget, CaseMode, Encoding, Failure as _, SearchQuery, SearchRegion};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OnlyArg {
    /// Outside comments and strings.
    Code,
    Comments,
    Strings,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// A regular expression (ripgrep's syntax), or with -F a literal text.
    pub pattern: String,
    /// Files or directories to search [default: the whole workspace].
    pub paths: Vec<PathBuf>,
    /// The pattern is a literal text, not a regular expression.
    #[arg(short = 'F', long, overrides_with = "regex")]
    pub fixed_strings: bool,
    /// The pattern is a regular expression (the default).
    #[arg(long, overrides_with = "fixed_strings")]
    pub regex: bool,
    /// Letters match in either case.
    #[arg(short = 'i', long, overrides_with = "smart_case")]
    pub ignore_case: bool,
    /// Letters match in either case unless the pattern has an upper-case letter.
    #[arg(short = 'S', long, overrides_with = "ignore_case")]
    pub smart_case: bool,
    /// Only whole-word matches.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Search only files matching GLOB, or with `!GLOB` leave them out (repeatable); a glob
    /// without `/` matches any path component (`*.py`, `!tests`).
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    pub after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    pub before_context: Option<usize>,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<usize>,
    /// Only matches in code (outside comments and strings), in comments, or in strings.
    #[arg(long, value_name = "WHERE")]
    pub only: Option<OnlyArg>,
    /// At most this many matching lines.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 10_000)]
    pub limit: usize,
    /// Skip this many matching lines first (the offset a cut answer says to continue from).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Cut the answer to this many tokens (it then ends with the offset to continue from).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<usize>,
    /// The encoding tokens are counted in: o200k_base (default) or cl100k_base.
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,
}

pub fn run(g: &GlobalArgs, args: &SearchArgs) -> Result<(String, ExitCode), CliError> {
    let encoding = match &args.encoding {
        None => Encoding::default(),
        Some(name) => Encoding::from_name(name).ok_or_else(|| {
            CliError(format!(
                "INVALID_ARGUMENT: unknown encoding {name:?} (o200k_base or cl100k_base)"
            ))
        })?,
    };
    if args.max_tokens == Some(0) {
        return Err(CliError(
            "INVALID_ARGUMENT: --max-tokens must be at least 1".into(),
        ));
    }
    let budget = Budget {
        encoding,
        max_tokens: args.max_tokens.unwrap_or(usize::MAX),
    };
    // Not indexed: a search reads the texts, and the definitions around its hits only.
    let host = load_workspace_unindexed(g)?;
    let root = std::fs::canonicalize(g.root())?;
    let mut paths = Vec::new();
    for path in &args.paths {
        paths.push(workspace_path(g, &root, path)?);
    }
    let case = if args.ignore_case {
        CaseMode::Insensitive
    } else if args.smart_case {
        CaseMode::Smart
    } else {
        CaseMode::Sensitive
    };
    let query = SearchQuery {
        pattern: args.pattern.clone(),
        fixed_strings: args.fixed_strings,
        case,
        word: args.word_regexp,
        only: args.only.map(|only| match only {
            OnlyArg::Code => SearchRegion::Code,
            OnlyArg::Comments => SearchRegion::Comments,
            OnlyArg::Strings => SearchRegion::Strings,
        }),
        paths,
        globs: args.globs.clone(),
        before: args.before_context.or(args.context).unwrap_or(0),
        after: args.after_context.or(args.context).unwrap_or(0),
        limit: args.limit,
        offset: args.offset,
    };
    let answer = match host.analysis().search(&query, budget).map_err(cancelled)? {
        Ok(answer) => answer,
        Err(error) => return Err(CliError(format!("{}: {error}", error.code()))),
    };
    eprintln!("{} tokens ({})", answer.tokens, answer.encoding.as_str());
    let out = if g.json {
        json(&answer)?
    } else {
        answer.text.clone()
    };
    Ok((out, one_if(answer.matches == 0)))
}

fn json(answer: &ide::SearchAnswer) -> Result<String, CliError> {
    Ok(serde_json::to_string_pretty(answer)? + "\n")
}
