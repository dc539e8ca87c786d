//! `changes`: what a working tree (or a range of commits) changed, as a reviewer asks it:
//! the changed files and, inside them, the definitions added, removed, or changed in
//! their signature or their body, each with how much depends on it; then the tests that
//! can reach the change and the impact of it all, nearest first. The files' old (and, for
//! a range, new) texts come from `workspace::changes`, read from git; the definitions of
//! a text outside the database are extracted from it as the database would.
//!
//! Invariant: a definition is matched across the two texts by its kind and qualified name
//! (and its rank among definitions of that name), and compared by its head (signature)
//! and by its own text, its nested definitions cut out: an edit inside a method changes the
//! method, not its class, and a definition that only moved is unchanged.

use std::{
    collections::HashMap,
    path::Path,
    sync::{Arc, LazyLock, Mutex},
};

use serde::Serialize;

use super::{
    Budget, ContentHash, Impact, ImpactEntry,
    impact::{self, ImpactQuery, Removals},
    read::pieces::file_at,
};
use crate::{
    db::{Db, Workspace},
    engine::{
        impact::{NamedImporters, Seed, dependents, importers_by_name},
        removed::{Removed, RemovedUse, users_of_removed},
    },
    lang::{self, Language},
    semantic::symbols::{FileSymbols, SymbolKind, extract, file_symbols},
};

/// A changed file as git says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    Added,
    Modified,
    Deleted,
}

/// A changed file's texts: the old one (absent when added, or not UTF-8 text) and the new.
#[derive(Clone, Debug)]
pub struct ChangedText {
    /// Workspace-relative.
    pub path: String,
    pub status: ChangeStatus,
    pub old: Option<Arc<str>>,
    /// `None`: the workspace's text now (the working tree); `Some(None)`: none (deleted,
    /// or not UTF-8 text); `Some(Some(text))`: a revision's.
    pub new: Option<Option<Arc<str>>>,
}

/// How a definition changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionChange {
    Added,
    Removed,
    /// Its head (`def f(a, b)`, `fn f(&self) -> u32`) changed; its body may have too.
    SignatureChanged,
    /// Its own text changed, its head did not.
    BodyChanged,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangedDefinition {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Its lines in the new text (in the old one when removed), 1-based.
    pub line: u32,
    pub end_line: u32,
    pub change: DefinitionChange,
    /// Its head in the new text (the old one when removed).
    pub signature: String,
    /// What depends on it in the workspace, and the tests among them: for a removed
    /// definition, what still uses or imports it, and theirs (absent when it is only in a
    /// revision, not in the workspace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependents: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ChangedFile {
    pub path: String,
    pub status: ChangeStatus,
    /// Changed definitions in file order (removed ones where they were).
    pub definitions: Vec<ChangedDefinition>,
}

#[derive(Clone, Debug)]
pub struct ChangesQuery {
    /// How the compared states are named in the answer (`HEAD..working tree`).
    pub revisions: String,
    pub files: Vec<ChangedText>,
    /// Steps the impact follows, and the dependents it lists.
    pub max_depth: u32,
    pub limit: usize,
    /// The text is cut to this budget: the impact's farthest entries first.
    pub budget: Option<Budget>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Changes {
    pub revisions: String,
    pub files: Vec<ChangedFile>,
    /// The tests that can reach a changed definition.
    pub affected_tests: Vec<ImpactEntry>,
    /// What depends on the changed definitions (the seeds), nearest first.
    pub impact: Impact,
    /// Files (and the affected tests) were left out for the budget; `impact.truncated`
    /// says the same of the dependents.
    pub truncated: bool,
    #[serde(skip)]
    pub text: String,
    #[serde(skip)]
    pub tokens: Option<usize>,
}

pub(crate) fn changes(
    db: &dyn Db,
    workspace: Workspace,
    query: &ChangesQuery,
) -> Result<Changes, ChangesError> {
    let mut files = Vec::new();
    let mut seeds = Vec::new();
    // Each changed definition's importers are searched once, for its own count and for
    // the combined impact.
    let mut importers = NamedImporters::new();
    // The removed definitions, and where each is listed (file, definition).
    let mut removed: Vec<Removed> = Vec::new();
    let mut removed_at: Vec<(usize, usize)> = Vec::new();
    for changed in &query.files {
        let (file, definitions, file_removed) =
            changed_definitions(db, workspace, changed, query.max_depth, &mut importers);
        seeds.extend(file);
        for (at, definition) in file_removed {
            removed_at.push((files.len(), at));
            removed.push(definition);
        }
        files.push(ChangedFile {
            path: changed.path.clone(),
            status: changed.status,
            definitions,
        });
    }
    // What breaks when a definition goes is what still uses it: found where it still is,
    // in one scratch search for them all.
    let mut removals = Removals {
        uses: users_of_removed(db, workspace, &removed),
        titles: Vec::new(),
    };
    for (i, &(file, at)) in removed_at.iter().enumerate() {
        let own: Vec<RemovedUse> = (removals.uses.iter())
            .filter(|u| u.removed == i as u32)
            .copied()
            .collect();
        let (reached, graph) = dependents(db, workspace, &[], query.max_depth, &[], &own, false);
        let ChangedFile {
            path, definitions, ..
        } = &mut files[file];
        let definition = &mut definitions[at];
        definition.dependents = Some(reached.len());
        definition.tests = Some(
            (reached.iter())
                .filter(|r| impact::is_test(db, &graph, r.node))
                .count(),
        );
        let name = match &definition.container {
            Some(container) => format!("{container}.{}", definition.name),
            None => definition.name.clone(),
        };
        removals.titles.push(format!(
            "{} {name} ({}:{}, removed)",
            definition.kind, path, definition.line
        ));
    }
    for file in &mut files {
        file.definitions
            .sort_by_key(|d| (d.line, d.change == DefinitionChange::Removed));
    }
    let walk = ImpactQuery {
        seeds: Vec::new(),
        max_depth: query.max_depth,
        limit: query.limit,
        tests_only: false,
        exact: false,
        budget: None,
    };
    let mut impact = impact::impact_with(db, workspace, &seeds, &importers, &removals, &walk);
    let affected_tests: Vec<ImpactEntry> = impact
        .seeds
        .iter()
        .chain(impact.dependents.iter())
        .filter(|e| e.test)
        .cloned()
        .collect();
    let mut answer = Changes {
        revisions: query.revisions.clone(),
        files,
        affected_tests,
        impact: impact.clone(),
        truncated: false,
        text: String::new(),
        tokens: None,
    };
    let listed = impact.dependents.len();
    let render_first = |n: usize| {
        let mut cut = answer.clone();
        cut.impact.dependents.truncate(n);
        cut.impact.truncated = impact.truncated || n < listed;
        render(&cut)
    };
    let Some(budget) = &query.budget else {
        answer.text = render_first(listed);
        return Ok(answer);
    };
    if let Some((kept, text)) = budget.most_that_fit(listed, render_first) {
        impact.dependents.truncate(kept);
        impact.truncated |= kept < listed;
        answer.impact = impact;
        answer.tokens = Some(budget.encoding.count(&text));
        answer.text = text;
        return Ok(answer);
    }
    // Not even the changed definitions with the tests fit: the first files' do, with no
    // tests and no dependents listed (all still counted).
    impact.dependents.clear();
    impact.truncated = true;
    answer.impact = impact;
    answer.affected_tests.clear();
    answer.truncated = true;
    let files = answer.files.clone();
    let render_files = |n: usize| {
        let mut cut = answer.clone();
        cut.files.truncate(n);
        render(&cut)
    };
    let (kept, text) = budget
        .most_that_fit(files.len(), render_files)
        .ok_or(ChangesError::OverBudget(budget.max_tokens))?;
    answer.files.truncate(kept);
    answer.tokens = Some(budget.encoding.count(&text));
    answer.text = text;
    Ok(answer)
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChangesError {
    #[error("not even the first line of the answer fits in {0} tokens")]
    OverBudget(usize),
}

impl super::Failure for ChangesError {
    fn code(&self) -> super::ErrorCode {
        match self {
            ChangesError::OverBudget(_) => super::ErrorCode::TooLarge,
        }
    }
}

/// Texts outside the database extracted so far, by language and content: a review asks for
/// the same changes again and again, and the old texts are the same each time. Keyed by
/// content, an entry is never stale; the map is emptied when it reaches its bound.
static EXTRACTED: LazyLock<Mutex<ExtractedTexts>> = LazyLock::new(Default::default);
type ExtractedTexts = HashMap<(String, ContentHash), Arc<FileSymbols>>;
const MAX_EXTRACTED: usize = 1024;

/// The definitions of `text`, a file of `lang` outside the database, as the database would
/// find them.
fn extracted(lang: &Language, text: &str) -> Arc<FileSymbols> {
    let key = (lang.id.clone(), ContentHash::of(text.as_bytes()));
    let cache = || {
        EXTRACTED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    if let Some(found) = cache().get(&key) {
        return found.clone();
    }
    let symbols = Arc::new(extract(lang, text).symbols);
    let mut map = cache();
    if map.len() >= MAX_EXTRACTED {
        map.clear();
    }
    map.insert(key, symbols.clone());
    symbols
}

/// A definition as matched across the two texts.
struct Def {
    key: (SymbolKind, String),
    /// Its rank among definitions with the same key in its file.
    rank: usize,
    index: usize,
    signature: String,
    own_text: String,
    line: u32,
    end_line: u32,
}

/// The definitions of `symbols` over `text`, each with its own text: its range with its
/// nested definitions' ranges cut out, and each line's indentation dropped (a definition
/// moved into a block is not changed).
fn definitions(symbols: &FileSymbols, text: &str) -> Vec<Def> {
    let mut ranks: HashMap<(SymbolKind, String), usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, (summary, position)) in symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .enumerate()
    {
        let key = (summary.kind, summary.qualified_name());
        let rank = ranks.entry(key.clone()).or_default();
        let (start, end) = (
            usize::from(position.range.start()),
            usize::from(position.range.end()),
        );
        let mut own = String::new();
        let mut at = start;
        for (child, child_position) in symbols.summaries.iter().zip(symbols.positions.iter()) {
            let (c_start, c_end) = (
                usize::from(child_position.range.start()),
                usize::from(child_position.range.end()),
            );
            if child.parent() == Some(i as u32) && c_start >= at && c_end <= end {
                own.push_str(&text[at..c_start]);
                own.push('\u{0}');
                at = c_end;
            }
        }
        own.push_str(&text[at..end]);
        let own_text = own
            .lines()
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("\n");
        out.push(Def {
            key,
            rank: *rank,
            index: i,
            signature: symbols.signatures.get(i).to_owned(),
            own_text,
            line: position.start.line,
            end_line: position.end.line,
        });
        *rank += 1;
    }
    out
}

/// The changed definitions of one file (not yet in file order), the seeds they give impact
/// (the ones in the workspace now), and the removed ones with where each is listed.
fn changed_definitions(
    db: &dyn Db,
    workspace: Workspace,
    changed: &ChangedText,
    max_depth: u32,
    all_importers: &mut NamedImporters,
) -> (Vec<Seed>, Vec<ChangedDefinition>, Vec<(usize, Removed)>) {
    let Some(lang) = lang::registry().for_path(Path::new(&changed.path), None) else {
        return (Vec::new(), Vec::new(), Vec::new());
    };
    let in_workspace = file_at(db, workspace, &changed.path);
    let old = changed
        .old
        .as_ref()
        .map(|text| (extracted(lang, text), text.clone()));
    let new: Option<(Arc<FileSymbols>, Arc<str>)> = match &changed.new {
        None => in_workspace.map(|f| (file_symbols(db, f), f.text(db).clone())),
        Some(Some(text)) => Some((extracted(lang, text), text.clone())),
        Some(None) => None,
    };
    let old_defs = old
        .as_ref()
        .map(|(s, t)| definitions(s, t))
        .unwrap_or_default();
    let new_defs = new
        .as_ref()
        .map(|(s, t)| definitions(s, t))
        .unwrap_or_default();
    let old_by_key: HashMap<(&(SymbolKind, String), usize), &Def> =
        old_defs.iter().map(|d| ((&d.key, d.rank), d)).collect();
    let new_keys: std::collections::HashSet<(&(SymbolKind, String), usize)> =
        new_defs.iter().map(|d| (&d.key, d.rank)).collect();
    // The workspace's definitions by key, for impact: the new text's own when it is the
    // workspace's, else matched by key.
    let current = in_workspace.map(|f| (f, file_symbols(db, f)));
    let current_index = |def: &Def| -> Option<u32> {
        let (_, symbols) = current.as_ref()?;
        if changed.new.is_none() {
            return Some(def.index as u32);
        }
        let mut rank = 0;
        for (i, summary) in symbols.summaries.iter().enumerate() {
            if (summary.kind, summary.qualified_name()) == def.key {
                if rank == def.rank {
                    return Some(i as u32);
                }
                rank += 1;
            }
        }
        None
    };
    let mut seeds = Vec::new();
    let mut out = Vec::new();
    for def in &new_defs {
        let change = match old_by_key.get(&(&def.key, def.rank)) {
            None => DefinitionChange::Added,
            Some(old) if old.signature != def.signature => DefinitionChange::SignatureChanged,
            Some(old) if old.own_text != def.own_text => DefinitionChange::BodyChanged,
            Some(_) => continue,
        };
        let (mut dependents_count, mut tests) = (None, None);
        if let (Some((file, _)), Some(symbol)) = (&current, current_index(def)) {
            let seed = Seed::Definition {
                file: *file,
                symbol: Some(symbol),
            };
            let importers = importers_by_name(db, workspace, &[seed]);
            let (reached, graph) =
                dependents(db, workspace, &[seed], max_depth, &importers, &[], false);
            all_importers.extend(importers);
            let users: Vec<_> = reached.iter().filter(|r| r.distance > 0).collect();
            dependents_count = Some(users.len());
            tests = Some(
                users
                    .iter()
                    .filter(|r| impact::is_test(db, &graph, r.node))
                    .count(),
            );
            seeds.push(seed);
        }
        out.push(ChangedDefinition {
            name: def
                .key
                .1
                .rsplit('.')
                .next()
                .unwrap_or(&def.key.1)
                .to_string(),
            kind: def.key.0,
            container: def.key.1.rsplit_once('.').map(|(c, _)| c.to_string()),
            line: def.line,
            end_line: def.end_line,
            change,
            signature: def.signature.clone(),
            dependents: dependents_count,
            tests,
        });
    }
    let mut removed = Vec::new();
    for def in old_defs
        .iter()
        .filter(|d| !new_keys.contains(&(&d.key, d.rank)))
    {
        if let Some((_, text)) = &old {
            let name = def.key.1.rsplit('.').next().unwrap_or(&def.key.1);
            let definition = Removed {
                path: changed.path.clone(),
                old_text: text.clone(),
                symbol: def.index as u32,
                name: name.to_string(),
            };
            removed.push((out.len(), definition));
        }
        out.push(ChangedDefinition {
            name: def
                .key
                .1
                .rsplit('.')
                .next()
                .unwrap_or(&def.key.1)
                .to_string(),
            kind: def.key.0,
            container: def.key.1.rsplit_once('.').map(|(c, _)| c.to_string()),
            line: def.line,
            end_line: def.end_line,
            change: DefinitionChange::Removed,
            signature: def.signature.clone(),
            dependents: None,
            tests: None,
        });
    }
    (seeds, out, removed)
}

/// The answer as text: each file with its changed definitions, the affected tests, then
/// the impact's dependents by distance.
fn render(changes: &Changes) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let definitions: usize = changes.files.iter().map(|f| f.definitions.len()).sum();
    let _ = writeln!(
        out,
        "changes {}: {} file{}, {} changed definition{}",
        changes.revisions,
        changes.files.len(),
        if changes.files.len() == 1 { "" } else { "s" },
        definitions,
        if definitions == 1 { "" } else { "s" }
    );
    for file in &changes.files {
        let status = match file.status {
            ChangeStatus::Added => "added",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Deleted => "deleted",
        };
        let _ = writeln!(out, "{} ({status})", file.path);
        for def in &file.definitions {
            let change = match def.change {
                DefinitionChange::Added => "added",
                DefinitionChange::Removed => "removed",
                DefinitionChange::SignatureChanged => "signature changed",
                DefinitionChange::BodyChanged => "body changed",
            };
            let name = match &def.container {
                Some(container) => format!("{container}.{}", def.name),
                None => def.name.clone(),
            };
            let _ = write!(out, "  {}: {} {name} {change}", def.line, def.kind);
            if let (Some(dependents), Some(tests)) = (def.dependents, def.tests) {
                let _ = write!(
                    out,
                    " ({dependents} dependent{}, {tests} test{})",
                    if dependents == 1 { "" } else { "s" },
                    if tests == 1 { "" } else { "s" }
                );
            }
            out.push('\n');
        }
    }
    if changes.truncated {
        out.push_str("(cut to the budget: ask with a larger max_tokens for every file, the tests and the impact)\n");
        return out;
    }
    if changes.affected_tests.is_empty() {
        out.push_str("no test reaches the changed definitions\n");
    } else {
        let _ = writeln!(out, "affected tests ({}):", changes.affected_tests.len());
        for test in &changes.affected_tests {
            let _ = writeln!(out, "  {}", impact::line_of(test));
        }
    }
    out.push_str("impact: ");
    out.push_str(&impact::render_dependents(&changes.impact, false));
    out
}
