//! `explore`: one answer to a question about the code from the terms it names
//! (identifiers, definitions' names, paths, or the question in words): the definitions' source grouped by file, the
//! call paths between them and what depends on them, under one token budget (8,000 unless
//! the call says otherwise, capped by the server's limit).
//!
//! On a server of several roots, a call given no `root` explores every root: each reads
//! the terms as it would alone (a name is resolved, a question read into names, call paths
//! and dependents found within the root), and the answers of the roots the terms name
//! something in go one after the other, each after a line naming its root, under the one
//! budget, shared as `repo_map` shares it ([`roots::Roots::within_one_budget`]); when
//! the shares hold nothing of any root, the first root naming something answers alone.
//! Its definitions, files and call paths then say their root.
//!
//! While a root's first index runs, it answers after a second from the files
//! indexed so far once every term is a file or a name they define (marked `partial`,
//! call paths and dependents not searched: `ide::Analysis::explore_in_shards`), else it
//! waits for more of the index, as the lookups by name do.
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the budget;
//! terms are matched against indexed names and paths only, never opened as paths.

use std::time::Duration;

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, indexed_so_far, parse_args, read_error};
use crate::{
    ide::{Budget, Encoding, ExploreAnswer, ExploreQuery, ExploreShown as Shown},
    mcp::{
        ErrorCode, ToolError,
        answers::{Indexed, Rendered},
        budget::budget,
        roots::{self, RootPart, Share},
        schema::{input_schema, output_schema},
    },
    workspace::{
        PartialIndex,
        live::{LiveWorkspace, RequestCancel, Snapshot},
    },
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 8_000;
/// Terms one call may name.
const MAX_TERMS: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExploreArgs {
    /// What the question names: identifiers or definitions' names (`parse`,
    /// `Parser.parse`, `Type::method`), workspace-relative files, or the question in
    /// words (read into definitions' names); 1 to 50.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 1024)))]
    pub terms: Vec<String>,
    /// At most this many tokens (default 8000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// `explore`'s answer: the exploration, and with every root asked, how each took part.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExploreData {
    #[serde(flatten)]
    pub answer: ExploreAnswer,
    /// Answered while the first index runs, from the files indexed so far (summed over the
    /// roots that did so): the definitions of those files alone, call paths and dependents
    /// not searched (`not_searched`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Indexed>,
    /// Asked of every root (several roots, no `root` given): each root, in order, with
    /// `error` when it did not answer (what its terms name there is missing, and the text
    /// opens with a line saying so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

#[tool_router(router = explore_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "One read for a question (`terms`: names, files or plain words): the definitions named (source by file), call paths between them, their dependents.",
        input_schema = input_schema::<ExploreArgs>(),
        output_schema = output_schema::<ExploreData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn explore(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ExploreData>, rmcp::model::CallToolResult> {
        let args: ExploreArgs = parse_args(args)?;
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidArgument, message);
        if args.terms.is_empty() || args.terms.len() > MAX_TERMS {
            return Err(invalid(format!(
                "give 1 to {MAX_TERMS} terms, got {}",
                args.terms.len()
            ))
            .into());
        }
        if let Some(bad) = args
            .terms
            .iter()
            .find(|t| t.trim().is_empty() || t.chars().count() > 1024)
        {
            return Err(invalid(format!("a term is 1 to 1024 characters, got {:?}", bad)).into());
        }
        let budget = budget(
            &self.limits,
            args.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
            args.encoding,
        )?;
        let (term_count, terms) = (args.terms.len(), args.terms);
        let explore_within = move |live: &LiveWorkspace, cancel: &RequestCancel, tokens: usize| {
            let query = ExploreQuery {
                terms: terms.clone(),
                budget: Budget {
                    max_tokens: tokens,
                    ..budget
                },
            };
            explore_in(live, cancel, &query)
        };
        let ((answer, partial), parts) = match self.every_root {
            true => {
                let roots = self.roots.clone();
                let patience = self.limits.request_timeout() * 3 / 4;
                self.run("explore", ctx, Lane::Compute, move |cancel| {
                    let (answer, parts) =
                        explore_every_root(&roots, cancel, patience, budget, &explore_within)?;
                    let partial = roots::indexed_in_all(&parts);
                    Ok(((answer, partial), Some(parts)))
                })
                .await?
            }
            false => {
                let live = self.live.clone();
                self.run("explore", ctx, Lane::Compute, move |cancel| {
                    Ok((explore_within(&live, cancel, budget.max_tokens)?, None))
                })
                .await?
            }
        };
        if answer.not_found.len() == term_count {
            let error = ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no term names a definition or a file: {}",
                    answer.not_found.join(", ")
                ),
            );
            return Err(roots::not_defined(error, parts.as_deref().unwrap_or_default()).into());
        }
        Ok(Rendered {
            text: answer.text.clone(),
            data: ExploreData {
                answer,
                partial,
                roots: parts,
            },
        })
    }
}

/// The exploration of `query` in `live`, with the files it had indexed when its first index
/// was still running: from the files indexed so far once every term is a file or a name
/// they define, else (a miss is no answer while files are unread) once more are indexed.
fn explore_in(
    live: &LiveWorkspace,
    cancel: &RequestCancel,
    query: &ExploreQuery,
) -> Result<Explored, ToolError> {
    let whole = |s: &Snapshot| Ok((s.analysis.explore(query)?, None));
    let partial = |p: &PartialIndex| {
        let shards = p.shards_built();
        // Every file indexed: the whole answer, call paths and dependents included.
        if p.covers_every_file(shards) {
            return Ok(None);
        }
        let found = p.snapshot.analysis.explore_in_shards(query, shards)?;
        // Nothing left out (terms naming files alone): the whole answer, unmarked.
        Ok(found.map(|answer| {
            let partial = match answer.not_searched.is_empty() {
                true => None,
                false => indexed_so_far(p, shards),
            };
            (answer, partial)
        }))
    };
    live.read_or_partial(cancel, whole, partial)
        .map_err(read_error)
}

/// An exploration, and how much of the workspace it read while the first index ran.
type Explored = (ExploreAnswer, Option<Indexed>);

/// Whether a root's exploration found anything the terms name (a definition or a file,
/// shown or left out for its budget), rather than only the note that they name nothing.
fn names_something(answer: &ExploreAnswer) -> bool {
    !answer.definitions.is_empty() || !answer.files.is_empty() || answer.truncated
}

/// What explores the terms in a root within some tokens.
type ExploreWithin =
    dyn Fn(&LiveWorkspace, &RequestCancel, usize) -> Result<Explored, ToolError> + Sync;

/// Every root's exploration as one answer within `budget` ([`across`]), the budget shared
/// by [`roots::Roots::within_one_budget`]; when the shares hold nothing of any root (each
/// too small for its first definition), the first root the terms name something in
/// explores alone within the whole budget, rather than showing nothing. Each root's part
/// says `partial` when the answer it stands by came from the files indexed so far.
fn explore_every_root(
    served: &roots::Roots,
    cancel: &RequestCancel,
    patience: Duration,
    budget: Budget,
    explore_within: &ExploreWithin,
) -> Result<(ExploreAnswer, Vec<RootPart>), ToolError> {
    let (mut answers, mut parts) = served.within_one_budget(
        cancel,
        patience,
        budget,
        explore_within,
        |(answer, _)| share(answer),
        |(answer, _)| answer.text.clear(),
    )?;
    let answer = across(&answers, &parts, budget);
    let shows_nothing =
        answer.files.is_empty() && answer.definitions.iter().all(|d| d.shown == Shown::Omitted);
    let first = answers.iter().position(|(_, (a, _))| names_something(a));
    if let Some(first) = first.filter(|_| shows_nothing) {
        let notes: String = parts.iter().filter_map(RootPart::note).collect();
        let name = answers[first].0.clone();
        let room = budget
            .max_tokens
            .saturating_sub(budget.encoding.count(&roots::opening(&name, true)))
            .saturating_sub(budget.encoding.count(&notes));
        let index = served.names().iter().position(|n| *n == name);
        // Too late for it: the answer showing nothing stands.
        if let Ok(alone) = explore_within(served.live(index.unwrap_or_default()), cancel, room) {
            answers[first].1 = alone;
            for (_, (other, _)) in answers.iter_mut().filter(|(n, _)| *n != name) {
                left_out(other);
            }
        }
    }
    for part in &mut parts {
        if let Some((_, (_, partial))) = answers.iter().find(|(root, _)| *root == part.name) {
            part.partial = *partial;
        }
    }
    Ok((across(&answers, &parts, budget), parts))
}

/// A root's exploration left out of an answer asked of every root: nothing of it shown.
fn left_out(answer: &mut ExploreAnswer) {
    answer.text.clear();
    answer.files.clear();
    for definition in &mut answer.definitions {
        definition.shown = Shown::Omitted;
    }
}

/// How a root's exploration takes part in the budget of an answer asked of every root: a
/// root the terms name nothing in takes none, one naming more gets more.
fn share(answer: &ExploreAnswer) -> Share {
    let names = names_something(answer);
    Share {
        tokens: if names { answer.tokens } else { 0 },
        truncated: answer.truncated,
        shows: names,
        weight: answer.definitions.len() + answer.files.len(),
    }
}

/// Every root's exploration as one answer within `budget`: the notes of the roots that did
/// not answer, then each root's text after its opening, in the roots' order, for the roots
/// the terms name something in (a root whose text does not fit, or shows none of it, is
/// left out, its definitions `omitted`); definitions, files, call paths and counts say
/// their root, counts are summed, a section not searched in one root is not searched, and
/// a term names nothing when it names nothing in any root that answered.
fn across(answers: &[(String, Explored)], parts: &[RootPart], budget: Budget) -> ExploreAnswer {
    let answers = answers.iter().map(|(root, (answer, _))| (root, answer));
    let answers: Vec<(&String, ExploreAnswer)> = answers
        .map(|(root, answer)| (root, answer.clone()))
        .collect();
    let mut text: String = parts.iter().filter_map(RootPart::note).collect();
    let not_found = match answers.first() {
        Some((_, first)) => first
            .not_found
            .iter()
            .filter(|term| answers.iter().all(|(_, a)| a.not_found.contains(term)))
            .cloned()
            .collect(),
        None => Vec::new(),
    };
    let mut merged = ExploreAnswer {
        text: String::new(),
        tokens: 0,
        files_tokens: 0,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        definitions: Vec::new(),
        files: Vec::new(),
        call_paths: Vec::new(),
        dependents_shown: 0,
        dependents: 0,
        not_found,
        more_named: Vec::new(),
        words_used: Vec::new(),
        words_dropped: Vec::new(),
        truncated: false,
        not_searched: Vec::new(),
    };
    // The words dropped by every root that read the question into names.
    let mut dropped: Option<Vec<String>> = None;
    let mut none_shown = true;
    for (root, answer) in answers {
        if !names_something(&answer) {
            continue;
        }
        let part = format!("{}{}", roots::opening(root, none_shown), answer.text);
        // A text whose share held none of what the terms name is left out whole.
        let shows = !answer.files.is_empty()
            || answer.definitions.iter().any(|d| d.shown != Shown::Omitted);
        let shown = shows && budget.admits(&format!("{text}{part}"));
        none_shown &= !shown;
        merged.truncated |= answer.truncated || !shown;
        merged.files_tokens += answer.files_tokens;
        merged.dependents += answer.dependents;
        for section in answer.not_searched {
            if !merged.not_searched.contains(&section) {
                merged.not_searched.push(section);
            }
        }
        for mut definition in answer.definitions {
            definition.root = Some(root.clone());
            if !shown {
                definition.shown = Shown::Omitted;
            }
            merged.definitions.push(definition);
        }
        for mut more in answer.more_named {
            more.root = Some(root.clone());
            merged.more_named.push(more);
        }
        if !answer.words_used.is_empty() {
            dropped = Some(match dropped {
                None => answer.words_dropped,
                Some(before) => before
                    .into_iter()
                    .filter(|word| answer.words_dropped.contains(word))
                    .collect(),
            });
        }
        for used in answer.words_used {
            if !merged.words_used.contains(&used) {
                merged.words_used.push(used);
            }
        }
        if shown {
            text.push_str(&part);
            merged
                .files
                .extend(answer.files.into_iter().map(|file| file.in_root(root)));
            merged
                .call_paths
                .extend(answer.call_paths.into_iter().map(|path| path.in_root(root)));
            merged.dependents_shown += answer.dependents_shown;
        }
    }
    merged.words_dropped = dropped.unwrap_or_default();
    merged.tokens = budget.encoding.count(&text);
    merged.text = text;
    merged
}
