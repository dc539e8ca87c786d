//! `rename`: every edit that renames a symbol, from the name under a cursor or a name as
//! people write it, checked before anything is written.
//!
//! Invariant: a rename is proposed only when it keeps every name meaning what it meant.
//! The edits are the symbol's references (`engine::search::search_hits`), so they share its
//! precision: `exact` ones are proposed, `heuristic` ones (members of receivers of unknown
//! type) only when asked. The renamed texts are then analysed in a scratch database, never
//! on disk: every renamed or aliased use must still reach the renamed definition, every
//! other use of the new name must reach what it reached before (else `RENAME_CONFLICT`,
//! naming each place), and diagnostics new in the changed files are listed (unless
//! `check_diagnostics` is off). What those do to a write is the front end's
//! [`CheckPolicy`], applied through [`Rename::refusal`]. The whole
//! answer is one tracked query ([`rename_plan`]), keyed on what was asked, so a repeated
//! dry run on an unchanged workspace is a lookup. The planning and the verification are
//! `engine::rename`'s; this module asks for them and answers in editor terms.

use std::sync::Arc;

use serde::Serialize;

use super::{
    CheckPolicy, CheckSettings, DiagnosticInfo, Span,
    diagnostics::SelectedDiagnostics,
    edits::{FileEdit, SourceChange, TextEdit, unified_diff},
    navigation::{Certainty, Definition, line_text, site_definition},
};
pub(crate) use crate::engine::rename::RenameSubject;
pub use crate::engine::rename::{EditOrigin, RenameOptions};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::rename::{
        self as engine_rename, Conflict, Plan, PlannedEdit, Refusal, RenamedFile, what_to_rename,
    },
    lang::Language,
    semantic::{self, names::resolve::Resolver},
    syntax::LineIndex,
};

/// One place a rename changes (or could change).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RenameEdit {
    pub path: String,
    /// The old name's place, in the text before the rename.
    pub span: Span,
    pub certainty: Certainty,
    pub origin: EditOrigin,
    /// Part of the change that applying writes.
    pub applied: bool,
    /// The source line, trimmed.
    pub line_text: String,
}

/// A place where the new name would change what a name means.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RenameConflict {
    pub path: String,
    /// In the text before the rename.
    pub span: Span,
    pub message: String,
}

/// A computed rename: the edits, the change applying writes, and its diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rename {
    pub old_name: String,
    pub new_name: String,
    /// What is renamed.
    pub definitions: Vec<Definition>,
    /// Exact edits: names in code resolved through scopes and imports, and `__all__`
    /// entries. Always applied.
    pub edits: Vec<RenameEdit>,
    /// Members matched by name only; applied with `include_heuristic`.
    pub heuristic: Vec<RenameEdit>,
    /// The old name in strings and comments; found and applied only with `include_text`.
    pub text_matches: Vec<RenameEdit>,
    /// What applying writes.
    pub change: SourceChange,
    /// Unified diffs of `change`, file after file.
    pub diff: String,
    /// Diagnostics of the changed files that the renamed texts have and the current ones
    /// do not (`None` when they were not looked for); whether they stop the write is the
    /// caller's [`CheckPolicy`] ([`Rename::refusal`]).
    pub new_diagnostics: Option<Vec<DiagnosticInfo>>,
    /// Things to know that do not stop the rename.
    pub warnings: Vec<String>,
}

/// The refusal every front end gives a rename whose new diagnostics its check policy does
/// not let through: the CLI and MCP before writing, the LSP before handing the edit to an
/// editor (which applies what it is given). One rule ([`CheckPolicy::blocking`]) and one
/// wording, so the three cannot drift apart.
pub struct NewDiagnostics(Vec<DiagnosticInfo>);

impl NewDiagnostics {
    pub const CODE: super::ErrorCode = super::ErrorCode::NewDiagnostics;
    pub const MESSAGE: &'static str = "the renamed files would have new errors";

    /// Each blocking finding as `path:line:column: CODE message`.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.0.iter().map(|d| {
            format!(
                "{}:{}:{}: {} {}",
                d.path, d.span.start.line, d.span.start.column, d.code, d.message
            )
        })
    }

    /// The new diagnostics that stop the write.
    pub fn diagnostics(&self) -> &[DiagnosticInfo] {
        &self.0
    }
}

impl Rename {
    /// Why this rename must not be applied under `policy`, if it must not: the new
    /// diagnostics the policy blocks (under [`CheckPolicy::Refuse`], the errors).
    pub fn refusal(&self, policy: CheckPolicy) -> Option<NewDiagnostics> {
        let found = self.new_diagnostics.as_deref().unwrap_or_default();
        let blocking = policy.blocking(found);
        (!blocking.is_empty()).then_some(NewDiagnostics(blocking))
    }
}

/// Why no rename is proposed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    #[error("{0}")]
    InvalidName(String),
    #[error("{message}")]
    Conflict {
        message: String,
        conflicts: Vec<RenameConflict>,
    },
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    NotRenameable(String),
    /// The rename would change files sextant never writes (not valid UTF-8: the index
    /// holds a lossy decoding of them); `places` are the edits in them.
    #[error("{message}")]
    NotUtf8 {
        message: String,
        places: Vec<RenameConflict>,
    },
}

impl super::Failure for RenameError {
    fn code(&self) -> super::ErrorCode {
        use super::ErrorCode;
        match self {
            RenameError::InvalidName(_) => ErrorCode::InvalidName,
            RenameError::Conflict { .. } => ErrorCode::RenameConflict,
            RenameError::NotFound(_) => ErrorCode::NoSymbol,
            RenameError::NotRenameable(_) => ErrorCode::NotRenameable,
            RenameError::NotUtf8 { .. } => ErrorCode::NotUtf8,
        }
    }
}

impl RenameError {
    /// The places that stop the rename: conflicts, or edits in files never written.
    pub fn conflicts(&self) -> &[RenameConflict] {
        match self {
            RenameError::Conflict { conflicts, .. } => conflicts,
            RenameError::NotUtf8 { places, .. } => places,
            _ => &[],
        }
    }
}

#[salsa::interned(debug)]
pub(crate) struct RenameKey<'db> {
    pub workspace: Workspace,
    #[returns(ref)]
    pub subject: RenameSubject,
    #[returns(ref)]
    pub new_name: String,
    pub include_heuristic: bool,
    pub include_text: bool,
    pub check_diagnostics: bool,
    /// `sextant.toml`'s `[check]`: the codes the renamed texts are checked with.
    #[returns(ref)]
    pub check_settings: Arc<CheckSettings>,
}

pub(crate) type RenameOutcome = Arc<Result<Rename, RenameError>>;

/// The rename `key` asks for. Reads the files the rename touches or can be captured in,
/// and the position-free summaries around them, so an edit elsewhere leaves it valid.
/// Bounded: a plan holds every new text and its diff, and is worth keeping only until the
/// client applies what it reviewed.
#[salsa::tracked(returns(clone), lru = 32)]
pub(crate) fn rename_plan<'db>(db: &'db dyn Db, key: RenameKey<'db>) -> RenameOutcome {
    let options = RenameOptions {
        include_heuristic: *key.include_heuristic(db),
        include_text: *key.include_text(db),
        check_diagnostics: *key.check_diagnostics(db),
    };
    Arc::new(compute(
        db,
        *key.workspace(db),
        key.subject(db),
        key.new_name(db),
        options,
        key.check_settings(db),
    ))
}

pub(crate) fn rename(
    db: &dyn Db,
    workspace: Workspace,
    subject: RenameSubject,
    new_name: &str,
    options: RenameOptions,
    check_settings: Arc<CheckSettings>,
) -> RenameOutcome {
    let key = RenameKey::new(
        db,
        workspace,
        subject,
        new_name.to_string(),
        options.include_heuristic,
        options.include_text,
        options.check_diagnostics,
        check_settings,
    );
    rename_plan(db, key)
}

/// The name a rename at `offset` would rename (its place), or why none would be: what an
/// editor asks before it offers a rename.
pub(crate) fn prepare(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Result<Span, RenameError> {
    let mut resolver = Resolver::new(db, workspace);
    let subject = RenameSubject::At {
        file,
        offset: offset as u32,
    };
    what_to_rename(&mut resolver, &subject)?;
    let names = resolver.names(file);
    let occurrence = names
        .at_offset(offset)
        .ok_or_else(|| RenameError::NotFound("no name at this position".into()))?;
    let index = semantic::line_index(db, file);
    Ok(Span::new(&index, names.occurrence(occurrence).range))
}

/// Whether `new` can replace `old` as a name of `lang`; warnings that do not refuse it.
pub fn validate_name(lang: &Language, old: &str, new: &str) -> Result<(), RenameError> {
    engine_rename::check_new_name(lang, old, new).map_err(RenameError::from)
}

impl From<Refusal> for RenameError {
    fn from(refusal: Refusal) -> RenameError {
        match refusal {
            Refusal::InvalidName(message) => RenameError::InvalidName(message),
            Refusal::NotFound(message) => RenameError::NotFound(message),
            Refusal::NotRenameable(message) => RenameError::NotRenameable(message),
        }
    }
}

fn compute(
    db: &dyn Db,
    workspace: Workspace,
    subject: &RenameSubject,
    new_name: &str,
    options: RenameOptions,
    check_settings: &CheckSettings,
) -> Result<Rename, RenameError> {
    let mut resolver = Resolver::new(db, workspace);
    let plan = engine_rename::plan(&mut resolver, subject, new_name, options)?;
    refuse_lossy_files(db, &plan)?;
    let (change, diff, renamed_files) = source_change(db, &plan)?;
    let selected = SelectedDiagnostics(check_settings);
    let verified = engine_rename::verify(
        &mut resolver,
        options.check_diagnostics.then_some(&selected),
        &plan,
        &renamed_files,
        new_name,
    );
    let old_name = &plan.old_name;
    let mut conflicts: Vec<RenameConflict> = plan
        .conflicts
        .iter()
        .chain(&verified.conflicts)
        .map(|c| rename_conflict(db, c))
        .collect();
    if !conflicts.is_empty() {
        // One place, one reason: a binding that is already taken is that, first.
        conflicts.sort_by(|a, b| (&a.path, a.span.byte_start).cmp(&(&b.path, b.span.byte_start)));
        conflicts.dedup_by(|later, kept| later.path == kept.path && later.span == kept.span);
        return Err(RenameError::Conflict {
            message: format!(
                "renaming `{old_name}` to `{new_name}` would change what {} name{} mean{}",
                conflicts.len(),
                if conflicts.len() == 1 { "" } else { "s" },
                if conflicts.len() == 1 { "s" } else { "" },
            ),
            conflicts,
        });
    }
    let edits = |list: &[PlannedEdit]| list.iter().map(|e| rename_edit(db, e)).collect();
    let heuristic: Vec<RenameEdit> = edits(&plan.heuristic);
    let mut warnings = verified.warnings;
    if !heuristic.is_empty() && !options.include_heuristic {
        warnings.push(format!(
            "{} heuristic match{} (members on receivers of unknown type) left unchanged; \
             include them with include_heuristic",
            heuristic.len(),
            if heuristic.len() == 1 { "" } else { "es" }
        ));
    }
    Ok(Rename {
        old_name: old_name.clone(),
        new_name: new_name.to_string(),
        definitions: plan
            .definitions
            .iter()
            .map(|d| site_definition(db, d))
            .collect(),
        edits: edits(&plan.edits),
        heuristic,
        text_matches: edits(&plan.text_matches),
        change,
        diff,
        new_diagnostics: verified.new_diagnostics,
        warnings,
    })
}

/// Refuses a rename that would change files sextant never writes (not valid UTF-8).
fn refuse_lossy_files(db: &dyn Db, plan: &Plan) -> Result<(), RenameError> {
    let unwritable: Vec<RenameConflict> = plan
        .replacements
        .values()
        .filter(|(file, _)| file.lossy_utf8(db))
        .flat_map(|(file, list)| {
            let index = semantic::line_index(db, *file);
            list.iter().map(move |&(range, _)| RenameConflict {
                path: file.path(db).clone(),
                span: Span::new(&index, range),
                message: "a reference in a file that is not valid UTF-8".to_string(),
            })
        })
        .collect();
    if unwritable.is_empty() {
        return Ok(());
    }
    let mut paths: Vec<&str> = unwritable.iter().map(|p| p.path.as_str()).collect();
    paths.dedup();
    Err(RenameError::NotUtf8 {
        message: format!(
            "renaming `{}` would change {}, which {} not valid UTF-8; sextant never writes a \
             file it could only decode lossily",
            plan.old_name,
            paths.join(", "),
            if paths.len() == 1 { "is" } else { "are" },
        ),
        places: unwritable,
    })
}

/// What applying the plan writes, its diff, and each changed file's new text.
fn source_change(
    db: &dyn Db,
    plan: &Plan,
) -> Result<(SourceChange, String, Vec<RenamedFile>), RenameError> {
    let mut change = SourceChange::default();
    let mut diff = String::new();
    let mut renamed_files = Vec::new();
    for (path, (file, list)) in &plan.replacements {
        let mut list = list.clone();
        list.sort_by_key(|(r, _)| r.start());
        list.dedup_by_key(|(r, _)| *r);
        let text = &*file.text(db);
        let index = semantic::line_index(db, *file);
        let text_edits: Vec<TextEdit> = list
            .iter()
            .map(|(range, new_text)| TextEdit {
                range: Span::new(&index, *range),
                new_text: new_text.clone(),
            })
            .collect();
        let edit = FileEdit::new(path.clone(), text, text_edits);
        // Whole words of one name never overlap; refuse rather than guess if they did.
        let new_text = edit.apply(text).map_err(|e| {
            RenameError::NotRenameable(format!("the edits do not fit together: {e}"))
        })?;
        diff.push_str(&unified_diff(path, text, &new_text));
        renamed_files.push(RenamedFile {
            file: *file,
            new_text,
            ranges: list,
        });
        change.files.push(edit);
    }
    Ok((change, diff, renamed_files))
}

fn rename_conflict(db: &dyn Db, conflict: &Conflict) -> RenameConflict {
    let (path, span) = match conflict.file {
        Some(file) => {
            let index = semantic::line_index(db, file);
            (file.path(db).clone(), Span::new(&index, conflict.range))
        }
        None => (
            String::new(),
            Span::new(&LineIndex::new(""), conflict.range),
        ),
    };
    RenameConflict {
        path,
        span,
        message: conflict.message.clone(),
    }
}

fn rename_edit(db: &dyn Db, edit: &PlannedEdit) -> RenameEdit {
    let file = edit.file;
    let span = Span::new(&semantic::line_index(db, file), edit.range);
    RenameEdit {
        path: file.path(db).clone(),
        line_text: line_text(&file.text(db), span.byte_start as usize),
        span,
        certainty: edit.certainty,
        origin: edit.origin,
        applied: edit.applied,
    }
}
