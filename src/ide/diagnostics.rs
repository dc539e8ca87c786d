//! `check`: the diagnostics of some files or the whole workspace, filtered by code and
//! severity, with a summary; `explain`: a code's registry entry.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        self,
        diagnostics::{Code, Severity, file_diagnostics, registry},
    },
};

/// One diagnostic, in editor terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DiagnosticInfo {
    pub path: String,
    /// The code's id (`SX005`); `sextant explain` tells what it means.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// The code it marks can be removed (an unused import).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unnecessary: bool,
}

/// Which codes a check reports: by default every code the registry enables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSelection {
    ids: BTreeSet<&'static str>,
}

impl Default for CodeSelection {
    fn default() -> CodeSelection {
        CodeSelection {
            ids: registry::codes()
                .iter()
                .filter(|c| c.enabled)
                .map(|c| c.id.as_str())
                .collect(),
        }
    }
}

impl CodeSelection {
    /// `select` (when not empty) replaces the default set; `ignore` removes from it. Each
    /// entry is an id (`SX005`), a name (`undefined-name`), a prefix of ids (`SX00`) or
    /// `ALL`. Err names the first entry that matches no code.
    pub fn new(select: &[String], ignore: &[String]) -> Result<CodeSelection, String> {
        let mut selection = if select.is_empty() {
            CodeSelection::default()
        } else {
            let mut ids = BTreeSet::new();
            for entry in select {
                ids.extend(matching(entry)?);
            }
            CodeSelection { ids }
        };
        for entry in ignore {
            for id in matching(entry)? {
                selection.ids.remove(id);
            }
        }
        Ok(selection)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

/// The ids an entry of `--select`/`--ignore` names.
fn matching(entry: &str) -> Result<Vec<&'static str>, String> {
    let entry = entry.trim();
    if let Some(code) = registry::find(entry) {
        return Ok(vec![code.id.as_str()]);
    }
    let prefix = entry.to_ascii_uppercase();
    let ids: Vec<&'static str> = registry::codes()
        .iter()
        .map(|c| c.id.as_str())
        .filter(|id| entry.eq_ignore_ascii_case("all") || id.starts_with(&prefix))
        .collect();
    if ids.is_empty() || entry.is_empty() {
        return Err(format!(
            "unknown diagnostic code {entry:?} (codes are SX001 to {}; see `sextant explain`)",
            registry::codes().last().map_or("", |c| c.id.as_str())
        ));
    }
    Ok(ids)
}

/// What to check and report.
#[derive(Clone, Debug)]
pub struct CheckQuery {
    /// Workspace-relative files or directories; empty: the whole workspace.
    pub paths: Vec<String>,
    pub codes: CodeSelection,
    /// Only diagnostics at least this severe.
    pub min_severity: Option<Severity>,
    /// At most this many diagnostics are listed (the summary counts them all).
    pub limit: usize,
}

impl Default for CheckQuery {
    fn default() -> CheckQuery {
        CheckQuery {
            paths: Vec::new(),
            codes: CodeSelection::default(),
            min_severity: None,
            limit: usize::MAX,
        }
    }
}

/// Counts of what a check found (all of it, whatever the limit).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckSummary {
    pub by_code: BTreeMap<String, usize>,
    pub by_file: BTreeMap<String, usize>,
    pub total: usize,
    /// Fewer diagnostics are listed than were found.
    pub truncated: bool,
    pub files_checked: usize,
}

/// A check's answer: diagnostics by path, then position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckResult {
    pub diagnostics: Vec<DiagnosticInfo>,
    pub summary: CheckSummary,
    /// Paths of the query under which the workspace indexes no file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_paths: Vec<String>,
}

/// The files `paths` names (a file, or every file under a directory), sorted; and the
/// paths that name none.
pub(crate) fn files_under(
    db: &dyn Db,
    workspace: Workspace,
    paths: &[String],
) -> (Vec<SourceFile>, Vec<String>) {
    let all = workspace.files(db);
    if paths.is_empty() {
        return (all.to_vec(), Vec::new());
    }
    let mut unmatched = Vec::new();
    let mut chosen = BTreeSet::new();
    for path in paths {
        let path = path.trim_matches('/');
        let before = chosen.len();
        for (i, &file) in all.iter().enumerate() {
            let p = file.path(db);
            let under = path.is_empty()
                || path == "."
                || p == path
                || p.strip_prefix(path).is_some_and(|r| r.starts_with('/'));
            if under {
                chosen.insert(i);
            }
        }
        if chosen.len() == before && !all.iter().any(|f| f.path(db) == path) {
            unmatched.push(path.to_string());
        }
    }
    (chosen.into_iter().map(|i| all[i]).collect(), unmatched)
}

/// One file's diagnostics in editor terms, unfiltered (the LSP shows every enabled code).
pub(crate) fn file_diagnostics_info(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    codes: &CodeSelection,
) -> Vec<DiagnosticInfo> {
    let found = file_diagnostics(db, workspace, file);
    if found.is_empty() {
        return Vec::new();
    }
    let index = semantic::line_index(db, file);
    found
        .iter()
        .filter(|d| codes.contains(d.id))
        .map(|d| {
            let code = d.code();
            DiagnosticInfo {
                path: file.path(db).clone(),
                code: d.id.to_string(),
                severity: code.severity,
                message: d.message.clone(),
                span: Span::new(&index, d.range),
                unnecessary: code.unnecessary,
            }
        })
        .collect()
}

/// Puts per-file answers (in path order) into one result: filtered by severity, counted,
/// listed up to the limit.
pub(crate) fn combine(
    per_file: Vec<Vec<DiagnosticInfo>>,
    files_checked: usize,
    unmatched_paths: Vec<String>,
    query: &CheckQuery,
) -> CheckResult {
    let mut result = CheckResult {
        unmatched_paths,
        ..CheckResult::default()
    };
    result.summary.files_checked = files_checked;
    for diagnostic in per_file.into_iter().flatten() {
        if query
            .min_severity
            .is_some_and(|min| diagnostic.severity > min)
        {
            continue;
        }
        *result
            .summary
            .by_code
            .entry(diagnostic.code.clone())
            .or_default() += 1;
        *result
            .summary
            .by_file
            .entry(diagnostic.path.clone())
            .or_default() += 1;
        result.summary.total += 1;
        if result.diagnostics.len() < query.limit {
            result.diagnostics.push(diagnostic);
        } else {
            result.summary.truncated = true;
        }
    }
    result
}

/// The registry entry of a code, by id (`SX005`) or name (`undefined-name`).
pub fn explain(code: &str) -> Option<&'static Code> {
    registry::find(code.trim())
}

/// Every registered code, by id.
pub fn diagnostic_codes() -> &'static [Code] {
    registry::codes()
}
