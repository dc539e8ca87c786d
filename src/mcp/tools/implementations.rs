//! `find_implementations`: the subclasses, interface implementations, trait impls and
//! overriding methods of a type or method (every level down), or with `direction:
//! "supertypes"` what it derives from, implements and overrides (every level up), each
//! `exact` or `heuristic`.
//!
//! On a server of several roots, a name asked of no root is looked up in every root: each
//! root's hierarchy of the name is merged into one answer, each item saying its root.
//!
//! Invariant: read-only; the target is a name or a position inside the root (through
//! `run_on_file`'s path confinement); a name naming several definitions in a root answers
//! `AMBIGUOUS_SYMBOL` with its `candidates`, nothing there `NOT_FOUND`; the answer fits the
//! server's response limit, cut to fewer items (and marked `truncated`) when it would not.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, in_range, largest_that_fits, offset_of, parse_args, read_error};
use crate::{
    ide::{self, HierarchyDirection, HierarchyItem, Implementations, ImplementationsError, Target},
    mcp::{
        ErrorCode, ToolError,
        answers::Json,
        roots::{self, RootPart},
        schema::{input_schema, output_schema},
    },
    workspace::live::{Snapshot, WhileIndexing},
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindImplementationsArgs {
    /// A type or method by name, optionally qualified (`Shape`, `Shape.area`,
    /// `shapes.Shape`). Or give `path`, `line` and `column` instead.
    #[schemars(length(min = 1, max = 1024))]
    pub name: Option<String>,
    /// Workspace file holding the type's or method's name, or a use of it (with `line` and
    /// `column`).
    pub path: Option<String>,
    /// 1-based line of the name.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// 1-based column (in characters) of any character of the name.
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// `implementations` (default): subtypes, implementations and overriding methods;
    /// `supertypes`: base types, implemented interfaces and traits, overridden methods.
    pub direction: Option<HierarchyDirection>,
    /// At most this many items (default 100).
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

/// `find_implementations`' answer: the subject and its hierarchy, every item saying its
/// root when asked of every root.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImplementationsAnswer {
    pub subject: RootedItem,
    pub direction: HierarchyDirection,
    /// Nearest first, then by path and position (asked of every root: ties in the roots'
    /// order).
    pub items: Vec<RootedItem>,
    /// Items found in all; more than `items.len()` when truncated.
    pub total: usize,
    pub truncated: bool,
    /// Asked of every root: each root's subject (the name's definition there), in the
    /// roots' order, the first being `subject`; `items` holds every one's hierarchy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subjects: Option<Vec<RootedItem>>,
    /// Asked of every root: each root, in order, with `error` when it did not answer (its
    /// items are missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

/// A type or method of the hierarchy.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RootedItem {
    #[serde(flatten)]
    pub item: HierarchyItem,
    /// Asked of every root: the root holding `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
}

impl RootedItem {
    fn new(item: HierarchyItem, root: Option<&str>) -> RootedItem {
        RootedItem {
            item,
            root: root.map(str::to_owned),
        }
    }
}

impl ImplementationsAnswer {
    fn new(found: Implementations) -> ImplementationsAnswer {
        ImplementationsAnswer {
            subject: RootedItem::new(found.subject, None),
            direction: found.direction,
            items: found
                .items
                .into_iter()
                .map(|item| RootedItem::new(item, None))
                .collect(),
            total: found.total,
            truncated: found.truncated,
            subjects: None,
            roots: None,
        }
    }

    /// Every root's answer as one: the subjects in the roots' order, the items nearest
    /// first, then by path and position, at most `limit`, `total` summed. A name some root
    /// finds ambiguous is `AMBIGUOUS_SYMBOL` with every root's candidates, each saying its
    /// root; one no root defines, `NOT_FOUND`.
    fn merged(
        name: &str,
        asked: roots::Answers<Result<Implementations, ImplementationsError>>,
        limit: usize,
    ) -> Result<ImplementationsAnswer, ToolError> {
        let (answered, parts) = roots::split(asked, |_| None);
        let (mut found, mut ambiguous, mut missing) = (Vec::new(), false, None);
        for (root, answer) in answered {
            match answer {
                Ok(hierarchy) => found.push((root, Ok(hierarchy))),
                Err(ImplementationsError::Ambiguous { candidates, .. }) => {
                    ambiguous = true;
                    found.push((root, Err(candidates)));
                }
                Err(ImplementationsError::NoSubject(message)) => {
                    missing.get_or_insert(message);
                }
            }
        }
        if ambiguous {
            let candidates: Vec<RootedItem> = found
                .into_iter()
                .flat_map(|(root, found)| {
                    let items = match found {
                        Ok(hierarchy) => vec![hierarchy.subject],
                        Err(candidates) => candidates,
                    };
                    items
                        .into_iter()
                        .map(move |item| RootedItem::new(item, Some(&root)))
                })
                .collect();
            let message = format!(
                "{name:?} names {} definitions in the roots; give a position, a qualified name or `root`",
                candidates.len()
            );
            return Err(ToolError::new(ErrorCode::AmbiguousSymbol, message)
                .with_places("candidates", Some(&candidates)));
        }
        let hierarchies: Vec<(String, Implementations)> = found
            .into_iter()
            .filter_map(|(root, found)| found.ok().map(|h| (root, h)))
            .collect();
        let Some((first_root, first)) = hierarchies.first() else {
            let message = missing.unwrap_or_else(|| format!("{name:?}: not found"));
            let error = ToolError::new(ErrorCode::NotFound, message);
            return Err(roots::not_defined(error, &parts));
        };
        let subject = RootedItem::new(first.subject.clone(), Some(first_root));
        let direction = first.direction;
        let total = hierarchies.iter().map(|(_, h)| h.total).sum();
        let (mut subjects, mut lists, mut names) = (Vec::new(), Vec::new(), Vec::new());
        for (root, hierarchy) in hierarchies {
            subjects.push(RootedItem::new(hierarchy.subject, Some(&root)));
            lists.push(hierarchy.items);
            names.push(root);
        }
        let mut items: Vec<RootedItem> = roots::merge_ordered(lists, |item: &HierarchyItem| {
            (item.depth, item.path.clone(), item.name_span.byte_start)
        })
        .into_iter()
        .map(|(root, item)| RootedItem::new(item, Some(&names[root])))
        .collect();
        items.truncate(limit);
        Ok(ImplementationsAnswer {
            subject,
            direction,
            truncated: total > items.len(),
            items,
            total,
            subjects: Some(subjects),
            roots: Some(parts),
        })
    }

    /// The answer with only its first `n` items (then `truncated`).
    fn first(&self, n: usize) -> ImplementationsAnswer {
        let mut cut = self.clone();
        cut.items.truncate(n);
        cut.truncated = cut.total > cut.items.len();
        cut
    }
}

/// The server's tools with `find_implementations`.
pub(super) fn with_implementations_tool(
    mut router: ToolRouter<SextantServer>,
) -> ToolRouter<SextantServer> {
    router.merge(SextantServer::implementations_router());
    router
}

#[tool_router(router = implementations_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Subclasses, implementations and overriding methods of a type or method, every level (or its supertypes), by `name` or at `path`+`line`+`column`.",
        input_schema = input_schema::<FindImplementationsArgs>(),
        output_schema = output_schema::<ImplementationsAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn find_implementations(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ImplementationsAnswer>, rmcp::model::CallToolResult> {
        let args: FindImplementationsArgs = parse_args(args)?;
        let direction = args.direction.unwrap_or_default();
        let limit = in_range("limit", args.limit, 1, 1000, 100)?;
        let max_chars = self.limits.max_response_chars;
        let target = Target::from_named_fields(
            "name",
            args.name.as_deref(),
            args.path.as_deref(),
            args.line,
            args.column,
        )
        .map_err(|error| ToolError::new(ErrorCode::InvalidArgument, error.message))?;
        let answer =
            match target {
                Target::Name(name) if self.every_root => {
                    let asked = name.clone();
                    let merged = self
                        .run_on_every_root(
                            "find_implementations",
                            ctx,
                            move |live, cancel| {
                                live.read(cancel, |s: &Snapshot| {
                                    s.analysis.implementations_by_name(&asked, direction, limit)
                                })
                                .map_err(read_error)
                            },
                            move |answers| ImplementationsAnswer::merged(&name, answers, limit),
                        )
                        .await?;
                    let fitted = largest_that_fits(merged.items.len().max(1), max_chars, |n| {
                        Ok(merged.first(n))
                    })
                    .expect("cutting a computed answer is never cancelled");
                    return self.bounded(fitted);
                }
                Target::Name(name) => {
                    let live = self.live.clone();
                    self.run("find_implementations", ctx, Lane::Compute, move |cancel| {
                        live.read(cancel, |s: &Snapshot| {
                            fitted(max_chars, limit, |n| {
                                s.analysis.implementations_by_name(&name, direction, n)
                            })
                        })
                        .map_err(read_error)
                    })
                    .await?
                }
                Target::Position { path, line, column } => {
                    self.run_on_file(
                        "find_implementations",
                        ctx,
                        path,
                        WhileIndexing::Wait,
                        move |analysis, file| {
                            let offset = offset_of(analysis, file, line, column)?;
                            fitted(max_chars, limit, |n| {
                                analysis.implementations(file, offset, direction, n)
                            })
                        },
                    )
                    .await?
                }
            };
        let answer = answer.map_err(implementations_error)?;
        self.bounded(ImplementationsAnswer::new(answer))
    }
}

/// The answer with as many of the first `limit` items as fit in `max_chars`; a refusal is
/// passed on as it is.
fn fitted(
    max_chars: usize,
    limit: usize,
    answer: impl Fn(usize) -> ide::Cancellable<Result<Implementations, ImplementationsError>>,
) -> ide::Cancellable<Result<Implementations, ImplementationsError>> {
    let first = answer(limit)?;
    let Ok(full) = first else {
        return Ok(first);
    };
    largest_that_fits(limit, max_chars, |n| {
        let mut cut = full.clone();
        cut.items.truncate(n);
        cut.truncated = cut.total > cut.items.len();
        Ok(cut)
    })
    .map(Ok)
}

fn implementations_error(error: ImplementationsError) -> ToolError {
    let candidates = match &error {
        ImplementationsError::Ambiguous { candidates, .. } => Some(candidates.clone()),
        ImplementationsError::NoSubject(_) => None,
    };
    ToolError::failed(error).with_places("candidates", candidates.as_ref())
}
