//! `repo_map`: the workspace (or the files under a path) as its most-used definitions'
//! signature lines, ranked by how much the rest of the code uses them, cut to a token
//! budget (4,000 tokens unless the call says otherwise).
//!
//! On a server of several roots, a call given neither `root` nor `path` maps every root:
//! one map per root, each opening with a line naming it, under the one budget, shared by
//! the roots' sizes (their definitions), what a small root leaves going to the others.
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the call's
//! budget (`mcp::budget`); the path is workspace-relative inside the root (through
//! `paths::resolve`), and one under which nothing is indexed is `NOT_FOUND`.

use rmcp::{
    RoleServer,
    handler::server::router::tool::ToolRouter,
    model::{CallToolResult, JsonObject},
    service::RequestContext,
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, paths, read_error};
use crate::{
    ide::{Budget, Encoding, RepoMap, RepoMapRequest},
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        roots::{self, RootPart, Share},
        schema::{input_schema, output_schema},
    },
    workspace::live::{LiveWorkspace, RequestCancel, Snapshot},
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 4_000;
/// Focus entries one call may name, and the length of each.
const MAX_FOCUS: usize = 100;
const MAX_FOCUS_CHARS: usize = 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    /// A workspace file or directory to map; omit for the whole workspace. Code elsewhere
    /// still counts as a user of what is shown.
    #[schemars(length(min = 1, max = 1024))]
    pub path: Option<String>,
    /// Files, directories or definitions' names (`name`, `Class.method`) to rank toward,
    /// at most 100.
    #[schemars(length(max = 100), inner(length(min = 1, max = 1024)))]
    pub focus: Option<Vec<String>>,
    /// At most this many tokens (default 4000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// The structured content: everything but the text, which is the text content.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RepoMapData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// Definitions chosen (in rank order) and under the path in all.
    pub definitions_shown: usize,
    pub definition_count: usize,
    /// Files with a line in the map, and under the path in all.
    pub files_shown: usize,
    pub file_count: usize,
    /// Whether definitions were left out for the budget.
    pub truncated: bool,
    /// Focus entries that named no file and no definition (asked of every root: in any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_focus: Vec<String>,
    /// Asked of every root: each root, in order, with `error` when it did not answer (it
    /// has no map, and the text opens with a line saying so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

impl RepoMapData {
    fn rendered(map: RepoMap) -> Rendered<RepoMapData> {
        Rendered {
            text: map.text,
            data: RepoMapData {
                tokens: map.tokens,
                encoding: map.encoding,
                max_tokens: map.max_tokens,
                definitions_shown: map.definitions.len(),
                definition_count: map.definition_count,
                files_shown: map.files_shown,
                file_count: map.file_count,
                truncated: map.truncated,
                unmatched_focus: map.unmatched_focus,
                roots: None,
            },
        }
    }

    /// Every root's map as one answer within `budget`: the notes of the roots that did not
    /// answer, then each root's map after its heading, in the roots' order; the counts
    /// summed.
    fn across(
        maps: Vec<(String, RepoMap)>,
        parts: Vec<RootPart>,
        budget: Budget,
    ) -> Rendered<Self> {
        let notes: String = parts.iter().filter_map(RootPart::note).collect();
        let mut text = notes;
        let mut data = RepoMapData {
            tokens: 0,
            encoding: budget.encoding,
            max_tokens: budget.max_tokens,
            definitions_shown: 0,
            definition_count: 0,
            files_shown: 0,
            file_count: 0,
            truncated: false,
            unmatched_focus: Vec::new(),
            roots: Some(parts),
        };
        let unmatched: Vec<&Vec<String>> = maps.iter().map(|(_, m)| &m.unmatched_focus).collect();
        if let Some(first) = unmatched.first() {
            data.unmatched_focus = first
                .iter()
                .filter(|f| unmatched.iter().all(|u| u.contains(f)))
                .cloned()
                .collect();
        }
        for (root, map) in maps {
            data.definition_count += map.definition_count;
            data.file_count += map.file_count;
            data.truncated |= map.truncated;
            // The shares add up to the budget only where tokens do not merge across the
            // parts (each ends with a line break); the budget holds whatever they do.
            // No file shown yet: no map before this one.
            let part = format!(
                "{}{}",
                roots::opening(&root, data.files_shown == 0),
                map.text
            );
            if map.text.is_empty() || !budget.admits(&format!("{text}{part}")) {
                data.truncated |= !map.definitions.is_empty();
                continue;
            }
            text.push_str(&part);
            data.definitions_shown += map.definitions.len();
            data.files_shown += map.files_shown;
        }
        data.tokens = budget.encoding.count(&text);
        Rendered { text, data }
    }
}

/// The server's tools with `repo_map`.
pub(super) fn with_repo_map_tool(
    mut router: ToolRouter<SextantServer>,
) -> ToolRouter<SextantServer> {
    router.merge(SextantServer::repo_map_router());
    router
}

#[tool_router(router = repo_map_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Most-used definitions' signatures, ranked by resolved references (PageRank, biased to `focus`), grouped by file, cut to `max_tokens`.",
        input_schema = input_schema::<RepoMapArgs>(),
        output_schema = output_schema::<RepoMapData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn repo_map(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<RepoMapData>, CallToolResult> {
        let args: RepoMapArgs = super::parse_args(args)?;
        let max_tokens = args.max_tokens.or(Some(DEFAULT_MAX_TOKENS));
        let budget = budget(&self.limits, max_tokens, args.encoding)?;
        let focus = args.focus.unwrap_or_default();
        check_focus(&focus)?;
        if self.every_root {
            return self.repo_map_of_every_root(ctx, focus, budget).await;
        }
        let live = self.live.clone();
        self.run("repo_map", ctx, Lane::Compute, move |cancel| {
            let path_prefix = match &args.path {
                Some(path) => Some(paths::resolve(live.root(), path)?.0),
                None => None,
            };
            let request = RepoMapRequest {
                path_prefix,
                focus,
                budget,
            };
            let map = live
                .read(cancel, |s: &Snapshot| s.analysis.repo_map(&request))
                .map_err(read_error)?;
            refusal(&map).map_or(Ok(RepoMapData::rendered(map)), Err)
        })
        .await
    }
}

impl SextantServer {
    /// One map per root under `budget`, shared by the roots' sizes (their definitions:
    /// [`roots::Roots::within_one_budget`]): each root maps itself within all the budget
    /// leaves after the headings and notes; a root whose map does not fit its share maps
    /// itself again within that share.
    async fn repo_map_of_every_root(
        &self,
        ctx: RequestContext<RoleServer>,
        focus: Vec<String>,
        budget: Budget,
    ) -> Result<Rendered<RepoMapData>, CallToolResult> {
        let roots = self.roots.clone();
        let patience = self.limits.request_timeout() * 3 / 4;
        self.run("repo_map", ctx, Lane::Compute, move |cancel| {
            let map_within = |live: &LiveWorkspace, cancel: &RequestCancel, tokens: usize| {
                let request = RepoMapRequest {
                    path_prefix: None,
                    focus: focus.clone(),
                    budget: Budget {
                        max_tokens: tokens,
                        ..budget
                    },
                };
                live.read(cancel, |s: &Snapshot| s.analysis.repo_map(&request))
                    .map_err(read_error)
            };
            let share = |map: &RepoMap| Share {
                tokens: map.tokens,
                truncated: map.truncated,
                shows: !map.text.is_empty(),
                weight: map.definition_count,
            };
            let (maps, parts) =
                roots.within_one_budget(cancel, patience, budget, map_within, share, |map| {
                    map.text.clear()
                })?;
            let rendered = RepoMapData::across(maps, parts, budget);
            match rendered.data.definitions_shown == 0 && rendered.data.truncated {
                true => Err(ToolError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "not even one definition fits in {} tokens",
                        budget.max_tokens
                    ),
                )),
                false => Ok(rendered),
            }
        })
        .await
    }
}

fn check_focus(focus: &[String]) -> Result<(), ToolError> {
    let invalid = |message: String| Err(ToolError::new(ErrorCode::InvalidArgument, message));
    if focus.len() > MAX_FOCUS {
        return invalid(format!(
            "at most {MAX_FOCUS} focus entries, got {}",
            focus.len()
        ));
    }
    match focus
        .iter()
        .find(|f| f.is_empty() || f.chars().count() > MAX_FOCUS_CHARS)
    {
        Some(bad) => invalid(format!(
            "a focus entry is 1 to {MAX_FOCUS_CHARS} characters, got {}",
            bad.chars().count()
        )),
        None => Ok(()),
    }
}

/// Why a map cannot be given: a path under which nothing is indexed, or a budget too
/// small for even one definition.
fn refusal(map: &RepoMap) -> Option<ToolError> {
    if let Some(path) = &map.unmatched_path {
        let message = format!("{path:?}: no file the workspace indexes is there");
        return Some(ToolError::new(ErrorCode::NotFound, message));
    }
    (map.definitions.is_empty() && map.truncated).then(|| {
        ToolError::new(
            ErrorCode::TooLarge,
            format!("not even one definition fits in {} tokens", map.max_tokens),
        )
    })
}
