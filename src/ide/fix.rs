//! `check --fix`: the fixes diagnostics carry, applied until none is left to apply.
//!
//! Fixes are computed against the text their diagnostic was found in, so two fixes whose
//! edits overlap (two names of one import statement) cannot both be applied to one text.
//! Each round applies every fix it may that does not overlap an earlier one, then checks
//! the files it changed again, in a scratch database beside the workspace, for the fixes
//! their new texts carry; at most [`MAX_ROUNDS`] rounds (ruff's approach). Nothing is
//! written here: the answer is a [`SourceChange`] for the writer.
//!
//! Invariant: a fix keeps what the program does. Beyond each fix's own care, two checks
//! here hold it: a Python import another workspace file imports from this module (`from
//! pkg.mod import name`) is never removed, and the files importing a changed
//! file are checked again with the fixed texts; anything new there or in the fixed files
//! is reported as `new_diagnostics`. When one blocks under the caller's policy (a removed
//! `except … as e` whose `e` a nested function reads), the fixes of the files that may
//! cause it are withheld and named; the other files' fixes stand.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{
    CheckPolicy, CheckQuery, CheckResult, CodeSelection, DiagnosticInfo, FileEdit, SourceChange,
    diagnostics::{CheckSettings, SelectedDiagnostics, combine, file_diagnostics_info},
    format::line_edits,
    unified_diff,
};
use crate::{
    checks::{Applicability, registry::ids},
    db::{Db, SourceFile, Workspace},
    engine::{
        change::{Change, FileContent},
        change_check::{Diagnostics, added},
        scratch::on_workspace_scratch,
    },
    semantic::{import_graph::import_graph, imports::file_imports},
};

/// Rounds of fixing before the fixes still left are left to the next run.
pub const MAX_ROUNDS: usize = 100;

/// What to fix.
#[derive(Clone, Debug)]
pub struct FixQuery {
    /// Workspace-relative files or directories; empty: the whole workspace.
    pub paths: Vec<String>,
    /// The codes whose fixes apply (as `check` selects what it reports).
    pub codes: CodeSelection,
    /// Apply unsafe fixes too.
    pub unsafe_fixes: bool,
    /// Whether to look for diagnostics the fixes introduce (they should not).
    pub check: CheckPolicy,
    /// At most this many remaining diagnostics are listed.
    pub limit: usize,
}

/// One fix applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct AppliedFix {
    pub path: String,
    /// The code of the diagnostic it resolved.
    pub code: String,
    /// That diagnostic's message.
    pub message: String,
    /// What the fix did.
    pub title: String,
}

/// The fixes found, as a change not yet written.
#[derive(Clone, Debug, Default)]
pub struct FixOutcome {
    /// What writing the fixes changes: each fixed file, against the text read now.
    pub change: SourceChange,
    /// The unified diff of `change`, file after file.
    pub diff: String,
    pub applied: Vec<AppliedFix>,
    /// The diagnostics the files would have after the fixes (those `check` would report).
    pub remaining: CheckResult,
    /// Remaining diagnostics whose fix is unsafe (applied only when asked for).
    pub unsafe_fixes_left: usize,
    /// Diagnostics the fixed files, or the files importing them, would have that they do
    /// not have now (`None` when the policy is off): never one the policy blocks, whose
    /// files are `withheld` instead. A fix that introduces one is a bug.
    pub new_diagnostics: Option<Vec<DiagnosticInfo>>,
    /// Files whose fixes are left out: with them, the check found new errors (under the
    /// policy) in the file or a file importing it.
    pub withheld: Vec<WithheldFixes>,
    /// Rounds run (the last may have found nothing left to fix).
    pub rounds: usize,
}

/// A file whose fixes are not in the change, and the new diagnostics they would bring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WithheldFixes {
    pub path: String,
    pub because: Vec<DiagnosticInfo>,
}

/// The fixes of `before` (every checked file's diagnostics now, from `check`) and of the
/// texts they produce, round after round.
pub(crate) fn fix(
    db: &dyn Db,
    workspace: Workspace,
    settings: &CheckSettings,
    query: &FixQuery,
    before: CheckResult,
) -> FixOutcome {
    let by_path: HashMap<&str, SourceFile> = workspace
        .files(db)
        .iter()
        .map(|&file| (file.path(db).as_str(), file))
        .collect();
    let summary = before.summary;
    let unmatched = before.unmatched_paths;
    let mut per_file: BTreeMap<String, Vec<DiagnosticInfo>> = BTreeMap::new();
    for diagnostic in before.diagnostics {
        per_file
            .entry(diagnostic.path.clone())
            .or_default()
            .push(diagnostic);
    }

    let mut applied = Vec::new();
    let mut first_texts: Vec<(String, String)> = Vec::new();
    for (path, diagnostics) in &per_file {
        // A file that is not UTF-8 is never written (its text here is a lossy reading).
        let Some(&file) = by_path.get(path.as_str()).filter(|f| !f.lossy_utf8(db)) else {
            continue;
        };
        let text = &*file.text(db);
        let usable = usable_fixes(db, workspace, file, diagnostics, query.unsafe_fixes);
        if let Some(fixed) = apply_fixes(text, &usable, path, &mut applied) {
            first_texts.push((path.clone(), fixed));
        }
    }
    let mut rounds = 1;
    let mut outcome = FixOutcome {
        rounds,
        ..FixOutcome::default()
    };
    if first_texts.is_empty() {
        outcome.unsafe_fixes_left = unsafe_left(&per_file, query);
        outcome.remaining = finish(per_file.into_values().collect(), &summary, unmatched, query);
        outcome.new_diagnostics = (query.check != CheckPolicy::Off).then(Vec::new);
        return outcome;
    }

    // The files importing a changed file, with their diagnostics now: the fixes must not
    // add to them.
    let graph = import_graph(db, workspace);
    // The check compares what the configuration selects, whatever codes are being fixed.
    let checked_before: BTreeMap<String, Vec<DiagnosticInfo>> = match query.check {
        CheckPolicy::Off => BTreeMap::new(),
        _ => first_texts
            .iter()
            .map(|(path, _)| {
                let file = by_path[path.as_str()];
                (
                    path.clone(),
                    SelectedDiagnostics(settings).of(db, workspace, file),
                )
            })
            .collect(),
    };
    // Importer path -> its diagnostics now, and the changed files it imports.
    let mut importers: BTreeMap<String, (Vec<DiagnosticInfo>, Vec<String>)> = BTreeMap::new();
    if query.check != CheckPolicy::Off {
        for (path, _) in &first_texts {
            let Some(node) = graph.node(by_path[path.as_str()]) else {
                continue;
            };
            for &importer in &graph.graph.backward[node as usize] {
                let file = graph.graph.nodes[importer as usize];
                let importer_path = file.path(db);
                if !first_texts.iter().any(|(p, _)| p == importer_path) {
                    let entry = importers.entry(importer_path.clone()).or_insert_with(|| {
                        (
                            SelectedDiagnostics(settings).of(db, workspace, file),
                            Vec::new(),
                        )
                    });
                    entry.1.push(path.clone());
                }
            }
        }
    }

    let mut changed = Vec::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (path, text) in first_texts {
        changed.push((path.clone(), content(by_path[path.as_str()], db, &text)));
        texts.insert(path, text);
    }
    let unsafe_fixes = query.unsafe_fixes;
    let codes = &query.codes;
    let check = query.check;
    let later = on_workspace_scratch(db, workspace, changed, &[], |inputs| {
        let mut dirty: Vec<String> = texts.keys().cloned().collect();
        let mut later_applied = Vec::new();
        while rounds < MAX_ROUNDS && !dirty.is_empty() {
            rounds += 1;
            let mut next = Change::default();
            let mut next_dirty = Vec::new();
            for path in dirty {
                let Some(file) = inputs.file(&path) else {
                    continue;
                };
                let (db, workspace) = (&inputs.db, inputs.workspace);
                let diagnostics = file_diagnostics_info(db, workspace, file, settings, codes);
                let usable = usable_fixes(db, workspace, file, &diagnostics, unsafe_fixes);
                if let Some(fixed) = apply_fixes(&texts[&path], &usable, &path, &mut later_applied)
                {
                    next.set_file(path.clone(), content(file, db, &fixed));
                    texts.insert(path.clone(), fixed);
                    next_dirty.push(path);
                }
            }
            inputs.apply_change(next);
            dirty = next_dirty;
        }
        let (db, workspace) = (&inputs.db, inputs.workspace);
        let after: BTreeMap<String, Vec<DiagnosticInfo>> = texts
            .keys()
            .filter_map(|path| {
                let file = inputs.file(path)?;
                let found = file_diagnostics_info(db, workspace, file, settings, codes);
                Some((path.clone(), found))
            })
            .collect();
        // Each new diagnostic, with the fixed files that may have caused it.
        let mut new: Vec<(Vec<String>, DiagnosticInfo)> = Vec::new();
        if check != CheckPolicy::Off {
            let selected = SelectedDiagnostics(settings);
            for (path, was) in &checked_before {
                if let Some(file) = inputs.file(path) {
                    let is = selected.of(db, workspace, file);
                    let found = added::<SelectedDiagnostics>(was, &is);
                    new.extend(found.into_iter().map(|d| (vec![path.clone()], d)));
                }
            }
            for (path, (was, imported)) in &importers {
                if let Some(file) = inputs.file(path) {
                    let is = selected.of(db, workspace, file);
                    let found = added::<SelectedDiagnostics>(was, &is);
                    new.extend(found.into_iter().map(|d| (imported.clone(), d)));
                }
            }
        }
        (texts, after, later_applied, new, rounds)
    })
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let (mut texts, mut after, later_applied, new, rounds) = later;
    applied.extend(later_applied);

    // A fixed file whose fixes would introduce a blocking diagnostic (in itself or in a
    // file importing it) keeps its text: its fixes are withheld, the others stand.
    let mut withheld: BTreeMap<String, Vec<DiagnosticInfo>> = BTreeMap::new();
    let mut kept_new = Vec::new();
    for (causes, diagnostic) in new {
        if check.blocking(std::slice::from_ref(&diagnostic)).is_empty() {
            kept_new.push(diagnostic);
            continue;
        }
        for cause in causes {
            withheld.entry(cause).or_default().push(diagnostic.clone());
        }
    }
    for path in withheld.keys() {
        texts.remove(path);
        after.remove(path);
    }
    applied.retain(|fix| !withheld.contains_key(&fix.path));

    let mut files = Vec::new();
    let mut diff = String::new();
    for (path, text) in &texts {
        let original = &*by_path[path.as_str()].text(db);
        files.push(FileEdit::new(
            path.clone(),
            original,
            line_edits(original, text),
        ));
        diff.push_str(&unified_diff(path, original, text));
    }
    for (path, found) in after {
        per_file.insert(path, found);
    }
    outcome.change = SourceChange {
        files,
        file_system: Vec::new(),
    };
    outcome.diff = diff;
    outcome.applied = applied;
    outcome.unsafe_fixes_left = unsafe_left(&per_file, query);
    outcome.remaining = finish(per_file.into_values().collect(), &summary, unmatched, query);
    outcome.new_diagnostics = (check != CheckPolicy::Off).then_some(kept_new);
    outcome.withheld = withheld
        .into_iter()
        .map(|(path, because)| WithheldFixes { path, because })
        .collect();
    outcome.rounds = rounds;
    outcome
}

/// `diagnostics` (of `file`) with the fixes [`fix`] never applies, whatever their
/// applicability, taken off (see [`FixFilter`]): the fixes an editor may offer one by one.
pub(crate) fn offered_fixes(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    mut diagnostics: Vec<DiagnosticInfo>,
) -> Vec<DiagnosticInfo> {
    let mut filter = FixFilter::new(db, workspace, file, true);
    for diagnostic in &mut diagnostics {
        if !filter.allows(diagnostic) {
            diagnostic.fix = None;
        }
    }
    diagnostics
}

fn content(file: SourceFile, db: &dyn Db, text: &str) -> FileContent {
    FileContent {
        lang: file.lang(db),
        text: text.into(),
        lossy_utf8: false,
    }
}

/// The remaining diagnostics as a check's answer over the same files.
fn finish(
    per_file: Vec<Vec<DiagnosticInfo>>,
    before: &super::CheckSummary,
    unmatched: Vec<String>,
    query: &FixQuery,
) -> CheckResult {
    let check = CheckQuery {
        paths: query.paths.clone(),
        codes: query.codes.clone(),
        min_severity: None,
        limit: query.limit,
    };
    combine(per_file, before.files_checked, unmatched, &check)
}

fn unsafe_left(remaining: &BTreeMap<String, Vec<DiagnosticInfo>>, query: &FixQuery) -> usize {
    if query.unsafe_fixes {
        return 0;
    }
    remaining
        .values()
        .flatten()
        .filter(|d| {
            d.fix
                .as_ref()
                .is_some_and(|fix| fix.applicability == Applicability::Unsafe)
        })
        .count()
}

/// The diagnostics of `file` whose fix may be applied (see [`FixFilter`]).
fn usable_fixes<'d>(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    diagnostics: &'d [DiagnosticInfo],
    unsafe_fixes: bool,
) -> Vec<&'d DiagnosticInfo> {
    let mut filter = FixFilter::new(db, workspace, file, unsafe_fixes);
    diagnostics.iter().filter(|d| filter.allows(d)).collect()
}

/// Which fixes of one file may be applied: safe ones, unsafe ones when asked for. A Python
/// unused import that another file imports by name from this one (or takes with `from …
/// import *`) is kept: removing it would break that file.
struct FixFilter<'db> {
    db: &'db dyn Db,
    workspace: Workspace,
    file: SourceFile,
    unsafe_fixes: bool,
    /// What other files import from this one, read the first time it is needed.
    imported_from_here: Option<Vec<String>>,
}

impl<'db> FixFilter<'db> {
    fn new(db: &'db dyn Db, workspace: Workspace, file: SourceFile, unsafe_fixes: bool) -> Self {
        FixFilter {
            db,
            workspace,
            file,
            unsafe_fixes,
            imported_from_here: None,
        }
    }

    fn allows(&mut self, d: &DiagnosticInfo) -> bool {
        let Some(fix) = &d.fix else {
            return false;
        };
        if fix.applicability == Applicability::Unsafe && !self.unsafe_fixes {
            return false;
        }
        if d.code != ids::UNUSED_IMPORT || !is_python(self.db, self.file) {
            return true;
        }
        let (db, workspace, file) = (self.db, self.workspace, self.file);
        let imported = self
            .imported_from_here
            .get_or_insert_with(|| names_imported_from(db, workspace, file));
        let bound = &file.text(db)[d.span.byte_start as usize..d.span.byte_end as usize];
        let bound = bound.split('.').next().unwrap_or(bound);
        !imported.iter().any(|name| name == bound || name == "*")
    }
}

fn is_python(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().family == crate::lang::Family::Python
}

/// The names other workspace files import from `file` by name (`from file import name`),
/// `*` for a star import (which takes every public name).
fn names_imported_from(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<String> {
    let graph = import_graph(db, workspace);
    let Some(node) = graph.node(file) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for &importer in &graph.graph.backward[node as usize] {
        let imports = file_imports(db, graph.graph.nodes[importer as usize]);
        for (target, indices) in &graph.dependencies[importer as usize].files {
            if *target != file {
                continue;
            }
            for import in indices.iter().filter_map(|&i| imports.get(i as usize)) {
                match (&import.name, import.wildcard) {
                    (_, true) => names.push("*".to_string()),
                    (Some(name), false) => names.push(name.to_string()),
                    (None, false) => {}
                }
            }
        }
    }
    names
}

/// `text` with every fix of `usable` whose exclusive range (its edits', or the block it
/// removes a statement from; an insertion's point) overlaps no fix before it applied, in
/// order of position; `None` when none applies. Each applied fix is recorded in `applied`.
fn apply_fixes(
    text: &str,
    usable: &[&DiagnosticInfo],
    path: &str,
    applied: &mut Vec<AppliedFix>,
) -> Option<String> {
    let exclusive = |d: &DiagnosticInfo| d.fix.as_ref().expect("usable fixes have a fix").exclusive;
    let mut chosen: Vec<&DiagnosticInfo> = usable.to_vec();
    chosen.sort_by_key(|d| exclusive(d));
    let mut edits = Vec::new();
    let mut end_of_last: Option<u32> = None;
    for diagnostic in chosen {
        let fix = diagnostic.fix.as_ref().expect("usable fixes have a fix");
        let (start, end) = fix.exclusive;
        // An insertion holds its point: the same import, offered by each use of a name,
        // goes in once, and the others' diagnostics are gone in the next round.
        let end = end.max(start + 1);
        if fix.edits.is_empty() || end_of_last.is_some_and(|last| start < last) {
            continue;
        }
        end_of_last = Some(end);
        edits.extend(fix.edits.iter().cloned());
        applied.push(AppliedFix {
            path: path.to_string(),
            code: diagnostic.code.clone(),
            message: diagnostic.message.clone(),
            title: fix.title.clone(),
        });
    }
    if edits.is_empty() {
        return None;
    }
    let mut fixed = text.to_string();
    for edit in edits.iter().rev() {
        fixed.replace_range(
            edit.range.byte_start as usize..edit.range.byte_end as usize,
            &edit.new_text,
        );
    }
    Some(fixed)
}
