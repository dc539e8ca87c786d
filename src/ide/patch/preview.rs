//! A patch checked against the workspace before anything is written: its outcome on the
//! files' current texts, the change the writer takes, and the diagnostics it would
//! introduce in the files it changes ([`crate::engine::change_check`]).
//!
//! [`CheckPolicy`] is the one rule every edit path follows when its result has new
//! diagnostics: report them (the default), refuse the write when any of them is an error,
//! or skip the check.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Patch, PatchError, PatchOptions, PatchOutcome, apply_to_texts};
use crate::{
    checks::registry::Severity,
    db::{Db, Workspace},
    engine::change_check::{ChangedText, new_diagnostics},
    ide::{CheckSettings, DiagnosticInfo, SourceChange, diagnostics::SelectedDiagnostics},
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
    texts: &BTreeMap<String, String>,
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
