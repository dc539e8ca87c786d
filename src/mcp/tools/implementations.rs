//! `find_implementations`: the subclasses, interface implementations, trait impls and
//! overriding methods of a type or method (every level down), or with `direction:
//! "supertypes"` what it derives from, implements and overrides (every level up), each
//! `exact` or `heuristic`.
//!
//! Invariant: read-only; the target is a name or a position inside the root (through
//! `run_on_file`'s path confinement); a name naming several definitions answers
//! `AMBIGUOUS_SYMBOL` with its `candidates`, nothing there `NOT_FOUND`; the answer fits the
//! server's response limit, cut to fewer items (and marked `truncated`) when it would not.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Lane, SextantServer, in_range, largest_that_fits, offset_of, parse_args, read_error};
use crate::{
    ide::{self, HierarchyDirection, Implementations, ImplementationsError, Target},
    mcp::{
        ErrorCode, ToolError,
        answers::Json,
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
        output_schema = output_schema::<Implementations>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn find_implementations(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<Implementations>, rmcp::model::CallToolResult> {
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
        let answer = match target {
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
        self.bounded(answer)
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
