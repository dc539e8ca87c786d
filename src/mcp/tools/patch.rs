//! `apply_patch`: a multi-file patch (unified or `git diff`, the `*** Begin Patch`
//! envelope, search/replace blocks) checked whole in memory, then shown (the default) or
//! written every file or none.
//!
//! Invariant: the patch is applied to the files as they are on disk now, and the change
//! it makes names each file's hash, so the writer (`LiveWorkspace::apply_change`) refuses
//! a file changed since (`CONFLICT`); nothing is written unless `apply` is true, and on a
//! read-only server `apply` does not exist. A retried apply with the same `operation_id`
//! answers the first result instead of applying again, even on another server after a
//! crash (`workspace::operations`).

use std::collections::BTreeMap;

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, parse_args, read_error, rename::NewDiagnosticEntry};
use crate::{
    ide::{
        CheckPolicy, Patch, PatchFormat, PatchOptions, PatchPreview, PatchedFile, Replacement,
        Sha256Hash, parse_patch,
    },
    mcp::{
        ErrorCode, ToolError,
        answers::Json,
        schema::{input_schema, output_schema},
    },
    workspace::{
        HardLinks, Written,
        live::{LiveWorkspace, RequestCancel, Snapshot},
        operations::{OperationRecord, Retry, hashes_now},
    },
};

/// The arguments a read-only server leaves out of the schema and refuses.
pub const WRITING_ARGUMENTS: &[(&str, &str)] = &[
    ("apply_patch", "apply"),
    ("apply_patch", "expected_change_id"),
    ("apply_patch", "operation_id"),
    ("apply_patch", "break_hard_links"),
    ("edit_symbol", "apply"),
    ("edit_symbol", "expected_change_id"),
    ("edit_symbol", "break_hard_links"),
];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The patch: `git diff`/`diff -u` output, a `*** Begin Patch` … `*** End Patch`
    /// envelope, or search/replace blocks (a path line, `<<<<<<< SEARCH`, old lines,
    /// `=======`, new lines, `>>>>>>> REPLACE`). Or give `replacements`.
    pub patch: Option<String>,
    /// The patch's format (default: detected from the text).
    pub format: Option<PatchFormat>,
    /// Search/replace edits as data: each `old_text` must occur exactly once in its file
    /// (as the edits before it in the list left it).
    pub replacements: Option<Vec<ReplacementArg>>,
    /// Context lines a unified diff's hunk may leave out at each end when it does not
    /// match whole (0–3, default 0); the answer reports every hunk that needed it.
    #[schemars(range(min = 0, max = 3))]
    pub fuzz: Option<u8>,
    /// Per workspace-relative path, the SHA-256 (64 hexadecimal digits, as `sha256sum`
    /// prints it) of the file the patch was made for: a file whose bytes differ now is a
    /// `CONFLICT`, and nothing is written. Each path must be one the patch changes.
    pub expected_sha256: Option<BTreeMap<String, String>>,
    /// Check the result for new diagnostics: `report` (default) reports them, `refuse`
    /// writes nothing when one is an error (`NEW_DIAGNOSTICS`), `off` skips the check.
    pub check: Option<CheckPolicy>,
    /// Write the change (default false: a dry run returning the diff). `CONFLICT` when a
    /// file changed since it was read.
    pub apply: Option<bool>,
    /// With `apply`: the `change_id` of the dry run that was reviewed; the change is
    /// written only if the one computed now is the same.
    pub expected_change_id: Option<String>,
    /// With `apply`: names this write, so that a retry answers the first result
    /// (`replayed: true`) instead of applying again.
    #[schemars(length(min = 1, max = 200))]
    pub operation_id: Option<String>,
    /// With `apply`: write a file that has other hard links at the path the patch names;
    /// its other links keep the old text (default false: such a file is refused).
    pub break_hard_links: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplacementArg {
    /// Workspace-relative path of the file.
    pub path: String,
    /// The text to replace; it must occur exactly once.
    pub old_text: String,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PatchAnswer {
    /// The change was written.
    pub applied: bool,
    /// This answer is the first one of an earlier call with the same `operation_id`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// Names this exact change; pass it back as `expected_change_id` with `apply`.
    pub change_id: String,
    /// One entry per file, in the patch's order.
    pub files: Vec<PatchedFile>,
    /// The diagnostics the changed files would have (or, applied, have) that they did not
    /// have before; absent when `check` is `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_diagnostics: Option<Vec<NewDiagnosticEntry>>,
    /// A `git diff`-style unified diff of the whole change.
    pub diff: String,
    /// The diff was cut to fit the answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub diff_truncated: bool,
    /// Files written under `break_hard_links` whose other hard links keep the old text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hard_links_broken: Vec<String>,
}

impl PatchAnswer {
    fn new(preview: &PatchPreview, applied: bool) -> PatchAnswer {
        PatchAnswer {
            applied,
            replayed: false,
            change_id: preview.change.id(),
            files: preview.files(),
            new_diagnostics: preview
                .new_diagnostics
                .as_ref()
                .map(|found| found.iter().map(NewDiagnosticEntry::new).collect()),
            diff: preview.outcome.diff.clone(),
            diff_truncated: false,
            hard_links_broken: Vec::new(),
        }
    }
}

#[tool_router(router = patch_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Apply a patch (git diff, `*** Begin Patch` envelope, search/replace): checked dry run with diff and new diagnostics unless `apply`; all files or none.",
        input_schema = input_schema::<ApplyPatchArgs>(),
        output_schema = output_schema::<PatchAnswer>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn apply_patch(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<PatchAnswer>, rmcp::model::CallToolResult> {
        let args: ApplyPatchArgs = parse_args(args)?;
        let apply = args.apply.unwrap_or(false);
        let writing_option = args.expected_change_id.is_some()
            || args.operation_id.is_some()
            || args.break_hard_links.is_some();
        if (apply || writing_option) && self.limits.read_only {
            return Err(invalid("this server is read-only: `apply` is not available").into());
        }
        if writing_option && !apply {
            return Err(invalid(
                "`expected_change_id`, `operation_id` and `break_hard_links` go with `apply: true`",
            )
            .into());
        }
        let (patch, patch_key) = parsed(&args)?;
        let options = PatchOptions {
            fuzz: usize::from(args.fuzz.unwrap_or(0).min(3)),
            expected_sha256: expected_sha256(&args)?,
        };
        let check = args.check.unwrap_or_default();
        let live = self.live.clone();
        let write = Write {
            apply,
            check,
            expected_change_id: args.expected_change_id.clone(),
            hard_links: hard_links(args.break_hard_links),
            operation: args.operation_id.clone().map(|id| {
                // Everything that decides what the call writes: a retry must repeat it.
                let request = format!(
                    "mcp apply_patch {patch_key} fuzz {} check {check:?} sha256 {:?} links {:?}",
                    options.fuzz,
                    (options.expected_sha256.iter())
                        .map(|(path, hash)| (path, hash.to_hex()))
                        .collect::<Vec<_>>(),
                    args.break_hard_links.unwrap_or(false),
                );
                (id, request)
            }),
        };
        let answer = self
            .run("apply_patch", ctx, Lane::Compute, move |cancel| {
                write.run(&live, cancel, &patch, &options)
            })
            .await?;
        self.fitted_patch(answer)
    }
}

/// What a call asks of a patch after it is computed: show it, or write it under a policy.
pub(super) struct Write {
    pub apply: bool,
    pub check: CheckPolicy,
    pub expected_change_id: Option<String>,
    pub hard_links: HardLinks,
    /// With `apply`: the call's `operation_id`, and what names its request.
    pub operation: Option<(String, String)>,
}

/// The policy for files with other hard links a call's `break_hard_links` asks for.
pub(super) fn hard_links(break_hard_links: Option<bool>) -> HardLinks {
    match break_hard_links {
        Some(true) => HardLinks::Break,
        Some(false) | None => HardLinks::Refuse,
    }
}

impl Write {
    /// `patch` previewed on the files as they are on disk now and, when asked and allowed,
    /// written every file or none.
    pub(super) fn run(
        &self,
        live: &LiveWorkspace,
        cancel: &RequestCancel,
        patch: &Patch,
        options: &PatchOptions,
    ) -> Result<PatchAnswer, ToolError> {
        let _turn = self.operation.as_ref().map(|_| live.operations().turn());
        let texts = live
            .current_texts(patch.paths())
            .map_err(ToolError::failed)?;
        if let Some((id, request)) = &self.operation {
            let now = |paths: &[&str]| hashes_now(paths, &texts);
            let retry = live.operations().retry(id, request, now);
            if let Retry::Replay(first) = retry.map_err(ToolError::failed)? {
                let mut answer: PatchAnswer = serde_json::from_value(first)
                    .map_err(|e| ToolError::new(ErrorCode::Internal, e.to_string()))?;
                answer.replayed = true;
                return Ok(answer);
            }
        }
        let preview = live
            .read(cancel, |s: &Snapshot| {
                s.analysis.preview_patch(patch, &texts, options, self.check)
            })
            .map_err(read_error)?
            .map_err(ToolError::failed)?;
        if let Some(expected) = &self.expected_change_id {
            super::reviewed(expected, &preview.change)?;
        }
        if !self.apply {
            return Ok(PatchAnswer::new(&preview, false));
        }
        let found = preview.new_diagnostics.as_deref().unwrap_or(&[]);
        let blocking = self.check.blocking(found);
        if !blocking.is_empty() {
            let listed: Vec<NewDiagnosticEntry> =
                blocking.iter().map(NewDiagnosticEntry::new).collect();
            return Err(ToolError::new(
                ErrorCode::NewDiagnostics,
                "the changed files would have new errors; nothing was written",
            )
            .with_detail(
                "diagnostics",
                serde_json::to_value(listed).unwrap_or_default(),
            ));
        }
        let answer = PatchAnswer::new(&preview, true);
        let answered = |written: &Written| PatchAnswer {
            hard_links_broken: written.hard_links_broken.clone(),
            ..answer.clone()
        };
        let write = || live.apply_change_with(&preview.change, self.hard_links);
        let written = match &self.operation {
            None => write().map_err(ToolError::failed)?,
            Some((id, request)) => {
                let first = serde_json::to_value(&answer).unwrap_or_default();
                let pending = OperationRecord::pending(id, request, &preview.outcome, first);
                let value =
                    |written: &Written| serde_json::to_value(answered(written)).unwrap_or_default();
                (live.operations())
                    .write_recorded(pending, write, value)
                    .map_err(ToolError::failed)?
            }
        };
        Ok(answered(&written))
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}

fn expected_sha256(args: &ApplyPatchArgs) -> Result<BTreeMap<String, Sha256Hash>, ToolError> {
    let given = args.expected_sha256.iter().flatten();
    given
        .map(|(path, hex)| match Sha256Hash::from_hex(hex) {
            Some(hash) => Ok((path.clone(), hash)),
            None => Err(invalid(&format!(
                "expected_sha256 for {path}: a SHA-256 is 64 hexadecimal digits"
            ))),
        })
        .collect()
}

/// The patch the arguments give, and a key naming it (for `operation_id` retries).
fn parsed(args: &ApplyPatchArgs) -> Result<(Patch, String), ToolError> {
    match (&args.patch, &args.replacements) {
        (Some(text), None) => {
            let patch =
                parse_patch(text, args.format.unwrap_or_default()).map_err(ToolError::failed)?;
            Ok((patch, blake3::hash(text.as_bytes()).to_hex().to_string()))
        }
        (None, Some(replacements)) => {
            if args.format.is_some() || args.fuzz.is_some() {
                return Err(invalid("`format` and `fuzz` go with `patch`"));
            }
            let mut key = blake3::Hasher::new();
            let blocks = replacements
                .iter()
                .map(|r| {
                    for part in [&r.path, &r.old_text, &r.new_text] {
                        key.update(&(part.len() as u64).to_le_bytes());
                        key.update(part.as_bytes());
                    }
                    (
                        r.path.clone(),
                        Replacement {
                            old_text: r.old_text.clone(),
                            new_text: r.new_text.clone(),
                            line: None,
                        },
                    )
                })
                .collect();
            let patch = Patch::from_replacements(blocks).map_err(ToolError::failed)?;
            Ok((patch, key.finalize().to_hex().to_string()))
        }
        _ => Err(invalid("give exactly one of `patch` and `replacements`")),
    }
}

impl SextantServer {
    /// The answer within the response limit: a diff too long is cut (and says so).
    fn fitted_patch(
        &self,
        mut answer: PatchAnswer,
    ) -> Result<Json<PatchAnswer>, rmcp::model::CallToolResult> {
        let limit = self.limits.max_response_chars;
        if let Some(keep) = super::diff_to_fit(&answer, &answer.diff, limit) {
            answer.diff.truncate(keep);
            answer.diff_truncated = true;
        }
        self.bounded(answer)
    }
}
