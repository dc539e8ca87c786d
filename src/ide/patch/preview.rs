//! A patch checked against the workspace before anything is written: its outcome on the
//! files' current texts, the change the writer takes, and the diagnostics it would
//! introduce in the files it changes ([`crate::engine::change_check`]).
//!
//! [`CheckPolicy`] is the rule every edit follows, in every front end, when its result has
//! new diagnostics: report them, refuse the write when any of them is an error, or skip
//! the check. Patches, symbol edits and formats default to reporting; a rename defaults to
//! refusing, since it is meant to keep the code's behaviour and a new error says it would
//! not ([`crate::ide::Rename::refusal`]; the LSP, whose editor applies what it is given,
//! always refuses). `Off` skips the scratch analysis of the diagnostics; a rename still
//! checks in it that every name keeps its meaning.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FileOutcome, Patch, PatchError, PatchOptions, PatchOutcome, apply_to_texts};
use crate::{
    checks::registry::Severity,
    db::{Db, Workspace},
    engine::change_check::{ChangedText, new_diagnostics},
    ide::{
        CheckSettings, DiagnosticInfo, FileText, SourceChange, TextEncoding,
        diagnostics::SelectedDiagnostics,
    },
};

/// What new diagnostics in an edit's result do to its write.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CheckPolicy {
    /// Check, write anyway and report what is new.
    #[default]
    Report,
    /// Check, and write nothing when a new diagnostic is an error (`NEW_DIAGNOSTICS`).
    Refuse,
    /// Do not check.
    Off,
}

impl CheckPolicy {
    /// The new diagnostics that keep an edit from being written under this policy.
    pub fn blocking(self, new: &[DiagnosticInfo]) -> Vec<DiagnosticInfo> {
        match self {
            CheckPolicy::Refuse => new
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .cloned()
                .collect(),
            CheckPolicy::Report | CheckPolicy::Off => Vec::new(),
        }
    }
}

/// A patch as it would apply now.
#[derive(Clone, Debug)]
pub struct PatchPreview {
    pub outcome: PatchOutcome,
    /// What the writer takes; every file in it names the hash of the text read.
    pub change: SourceChange,
    /// Diagnostics the changed files would have that they do not have now (`None` when the
    /// policy is [`CheckPolicy::Off`]).
    pub new_diagnostics: Option<Vec<DiagnosticInfo>>,
}

/// `patch` applied to `texts` (each file it names, as read now; a missing file is absent),
/// checked as `check` says.
pub(crate) fn preview(
    db: &dyn Db,
    workspace: Workspace,
    settings: &CheckSettings,
    patch: &Patch,
    texts: &BTreeMap<String, FileText>,
    options: &PatchOptions,
    check: CheckPolicy,
) -> Result<PatchPreview, PatchError> {
    let outcome = apply_to_texts(patch, &|path| texts.get(path).cloned(), options)?;
    let change = outcome.source_change();
    let new_diagnostics = (check != CheckPolicy::Off).then(|| {
        let mut changed = Vec::new();
        let mut removed = Vec::new();
        for file in &outcome.files {
            match &file.new_text {
                Some(text) => changed.push(ChangedText {
                    path: file.new_path.clone().unwrap_or_else(|| file.path.clone()),
                    was: file.old_text.is_some().then(|| file.path.clone()),
                    text: text.clone(),
                }),
                None => removed.push(file.path.clone()),
            }
        }
        let selected = SelectedDiagnostics(settings);
        new_diagnostics(db, workspace, &selected, &changed, &removed)
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    Ok(PatchPreview {
        outcome,
        change,
        new_diagnostics,
    })
}

/// The diagnostics workspace files would have with the new `texts` (by path) that they do
/// not have now: the check of an edit made as whole texts (a format).
pub(crate) fn new_diagnostics_of_texts(
    db: &dyn Db,
    workspace: Workspace,
    settings: &CheckSettings,
    texts: &BTreeMap<String, String>,
) -> Vec<DiagnosticInfo> {
    let changed: Vec<ChangedText> = texts
        .iter()
        .map(|(path, text)| ChangedText {
            path: path.clone(),
            was: Some(path.clone()),
            text: text.clone(),
        })
        .collect();
    let selected = SelectedDiagnostics(settings);
    new_diagnostics(db, workspace, &selected, &changed, &[])
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// One file of a patch, summed up for a reader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PatchedFile {
    pub path: String,
    pub status: FileStatus,
    /// Where a renamed file goes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The executable bit the patch sets, when it sets one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executable: Option<bool>,
    /// The file is not UTF-8: read as Latin-1 and written back in it, every other byte as
    /// it was.
    #[serde(default, skip_serializing_if = "TextEncoding::is_utf8")]
    pub encoding: TextEncoding,
    /// Hunks that did not apply where the patch placed them, or only with fuzz or with
    /// whitespace ignored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inexact_hunks: Vec<InexactHunk>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
    /// Only the executable bit changes.
    ModeChanged,
}

impl FileStatus {
    /// The letter `git diff --name-status` shows.
    pub fn letter(self) -> char {
        match self {
            FileStatus::Added => 'A',
            FileStatus::Deleted => 'D',
            FileStatus::Modified | FileStatus::ModeChanged => 'M',
            FileStatus::Renamed => 'R',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InexactHunk {
    /// 1-based, in the order of the file's hunks.
    pub hunk: usize,
    /// The line where it applied.
    pub line: usize,
    /// The line where the patch placed it, when that is not where it applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_line: Option<usize>,
    /// Context lines left out at each end.
    pub fuzz: usize,
    pub whitespace_ignored: bool,
}

impl PatchPreview {
    /// Each file of the patch, in its order.
    pub fn files(&self) -> Vec<PatchedFile> {
        self.outcome.files.iter().map(PatchedFile::new).collect()
    }
}

impl PatchedFile {
    fn new(file: &FileOutcome) -> PatchedFile {
        let status = match (&file.old_text, &file.new_text, &file.new_path) {
            (None, _, _) => FileStatus::Added,
            (_, None, _) => FileStatus::Deleted,
            (_, _, Some(_)) => FileStatus::Renamed,
            (Some(old), Some(new), None) if old == new && file.executable.is_some() => {
                FileStatus::ModeChanged
            }
            _ => FileStatus::Modified,
        };
        let (lines_added, lines_removed) = line_counts(file);
        let inexact_hunks = file
            .hunks
            .iter()
            .enumerate()
            .filter(|(_, h)| h.offset != 0 || h.fuzz > 0 || h.whitespace_ignored)
            .map(|(at, h)| InexactHunk {
                hunk: at + 1,
                line: h.line,
                patch_line: (h.offset != 0)
                    .then(|| h.line.checked_add_signed(-h.offset))
                    .flatten(),
                fuzz: h.fuzz,
                whitespace_ignored: h.whitespace_ignored,
            })
            .collect();
        PatchedFile {
            path: file.path.clone(),
            status,
            new_path: file.new_path.clone(),
            lines_added,
            lines_removed,
            executable: file.executable,
            encoding: file.encoding,
            inexact_hunks,
        }
    }
}

/// Lines added and removed, as a line diff counts them.
fn line_counts(file: &FileOutcome) -> (usize, usize) {
    let old = file.old_text.as_deref().unwrap_or_default();
    let new = file.new_text.as_deref().unwrap_or_default();
    let mut counts = (0, 0);
    for change in similar::TextDiff::from_lines(old, new).iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => counts.0 += 1,
            similar::ChangeTag::Delete => counts.1 += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    counts
}
