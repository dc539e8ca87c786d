//! `check`: the diagnostics of some files or the whole workspace, filtered by code and
//! severity, with a summary; `explain`: a code's registry entry.
//!
//! Invariant: this is the one filter layer every front end goes through. Which codes are
//! reported, and at what severity, is decided here per file from three layers applied in
//! order: the registry's defaults, `sextant.toml`'s `[check]` table (then each
//! `[[check.overrides]]` whose `paths` match the file, in order) and the caller's own
//! selection (`--select`/`--ignore`, MCP `codes`): a layer's `select` replaces the set so
//! far, its `ignore` removes from it, its `severity` overrides per code.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use serde::{Deserialize, Serialize};

use super::Span;
use crate::{
    checks::{
        Applicability, Code, Diagnostic, Severity, recorded_diagnostics, registry,
        sx012_import_cycle as cycles,
    },
    db::{Db, SourceFile, Workspace},
    semantic,
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
    /// Other places the diagnostic refers to (an earlier definition, the next import of a cycle).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<RelatedInfo>,
    /// The edit that resolves it, when there is one (`sextant check --fix` applies it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixInfo>,
    /// The same finding as a deep check's type checkers report it, by their codes
    /// (`tsc:TS2304`): merged into this one rather than listed twice.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// A diagnostic's fix, in editor terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FixInfo {
    /// What it does: `Remove unused import 'os'`.
    pub title: String,
    /// `safe` fixes are applied by `--fix`; `unsafe` ones only with `--unsafe-fixes`.
    pub applicability: Applicability,
    /// The edits, against the text the diagnostic was found in (sorted, non-overlapping).
    #[serde(skip)]
    #[schemars(skip)]
    pub edits: Vec<super::TextEdit>,
    /// The byte range no other fix may touch when this one is applied in the same pass
    /// (see `checks::Fix::span`).
    #[serde(skip)]
    #[schemars(skip)]
    pub exclusive: (u32, u32),
}

/// A place a diagnostic refers to: in the diagnostic's file, or in the file `path` names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RelatedInfo {
    /// The file, when it is not the diagnostic's own (another import of a cycle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub span: Span,
    pub message: String,
}

/// One layer of code selection: `select` (when given) replaces the codes chosen so far,
/// `ignore` removes from them. The default layer changes nothing, so the configuration's
/// (or the registry's) choice stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodeSelection {
    select: Option<BTreeSet<&'static str>>,
    ignore: BTreeSet<&'static str>,
    /// A deep check's tool codes (`tsc:TS2322`) or prefixes of them (`tsc:`, `rustc:E0`):
    /// entries with a `:`, which name no code of sextant's.
    tool_select: Option<Vec<String>>,
    tool_ignore: Vec<String>,
}

impl CodeSelection {
    /// `select` (when not empty) replaces the default set; `ignore` removes from it. Each
    /// entry is an id (`SX005`), a name (`undefined-name`), a prefix of ids (`SX00`) or
    /// `ALL`, or a deep check's tool code or a prefix of one (`tsc:TS2322`, `rustc:`).
    /// Err names the first entry that matches no code.
    pub fn new(select: &[String], ignore: &[String]) -> Result<CodeSelection, String> {
        let mut layer = CodeSelection::default();
        let is_tool = |entry: &String| entry.contains(':');
        if !select.is_empty() {
            let mut ids = BTreeSet::new();
            let mut tools = Vec::new();
            for entry in select {
                if is_tool(entry) {
                    tools.push(entry.clone());
                } else {
                    ids.extend(matching(entry)?);
                }
            }
            // `ALL` selects every code, the tools' included.
            if !select.iter().any(|e| e.eq_ignore_ascii_case("all")) {
                layer.tool_select = Some(tools);
            }
            layer.select = Some(ids);
        }
        for entry in ignore {
            if is_tool(entry) {
                layer.tool_ignore.push(entry.clone());
            } else {
                layer.ignore.extend(matching(entry)?);
            }
        }
        Ok(layer)
    }

    /// Whether a deep check's diagnostic with this tool code is reported: selected (when
    /// any code was selected) and not ignored, by the code or a prefix of it.
    pub fn reports_tool_code(&self, code: &str) -> bool {
        let matches = |patterns: &[String]| patterns.iter().any(|p| code.starts_with(p.as_str()));
        self.tool_select.as_deref().is_none_or(matches) && !matches(&self.tool_ignore)
    }

    fn apply(&self, ids: &mut BTreeSet<&'static str>) {
        if let Some(select) = &self.select {
            ids.clone_from(select);
        }
        for id in &self.ignore {
            ids.remove(id);
        }
    }

    /// Whether this selection over the registry's defaults (no configuration) reports `id`.
    pub fn contains(&self, id: &str) -> bool {
        let mut ids = default_ids();
        self.apply(&mut ids);
        ids.contains(id)
    }
}

/// The codes the registry enables.
fn default_ids() -> BTreeSet<&'static str> {
    registry::codes()
        .iter()
        .filter(|c| c.enabled)
        .map(|c| c.id.as_str())
        .collect()
}

/// The `[check]` table of `sextant.toml`, as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckConfig {
    /// Codes to report instead of the default set (ids, names, id prefixes or `ALL`).
    pub select: Vec<String>,
    /// Codes not to report.
    pub ignore: Vec<String>,
    /// Severity per code (id or name): `error`, `warning`, `information` or `hint`.
    pub severity: BTreeMap<String, Severity>,
    /// Per-path layers, applied in order after the table's own keys.
    pub overrides: Vec<CheckOverride>,
}

/// One `[[check.overrides]]` entry: the same keys, for the files `paths` matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckOverride {
    /// Gitignore-style globs, as `include`/`exclude` (`tests/`, `**/*_pb2.py`).
    pub paths: Vec<String>,
    #[serde(default)]
    pub select: Vec<String>,
    #[serde(default)]
    pub ignore: Vec<String>,
    #[serde(default)]
    pub severity: BTreeMap<String, Severity>,
}

/// One layer of the configuration, validated.
#[derive(Clone, Debug, Default)]
struct Layer {
    codes: CodeSelection,
    severity: BTreeMap<&'static str, Severity>,
}

impl Layer {
    fn new(
        select: &[String],
        ignore: &[String],
        severity: &BTreeMap<String, Severity>,
    ) -> Result<Layer, String> {
        let codes = CodeSelection::new(select, ignore)?;
        let mut by_id = BTreeMap::new();
        for (entry, &level) in severity {
            let code = registry::find(entry.trim()).ok_or_else(|| unknown_code(entry))?;
            by_id.insert(code.id.as_str(), level);
        }
        Ok(Layer {
            codes,
            severity: by_id,
        })
    }
}

/// `sextant.toml`'s `[check]` table, validated (every code known, every glob compiled):
/// what each file reports and at which severity.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(try_from = "CheckConfig")]
pub struct CheckSettings {
    config: CheckConfig,
    base: Layer,
    overrides: Vec<(ignore::gitignore::Gitignore, Layer)>,
}

impl PartialEq for CheckSettings {
    fn eq(&self, other: &CheckSettings) -> bool {
        self.config == other.config
    }
}

impl Eq for CheckSettings {}

impl std::hash::Hash for CheckSettings {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.config.hash(state);
    }
}

impl TryFrom<CheckConfig> for CheckSettings {
    type Error = String;

    /// Err says which key is wrong and why.
    fn try_from(config: CheckConfig) -> Result<CheckSettings, String> {
        let base = Layer::new(&config.select, &config.ignore, &config.severity)
            .map_err(|e| format!("[check]: {e}"))?;
        let mut overrides = Vec::new();
        for (i, o) in config.overrides.iter().enumerate() {
            let at = format!("[[check.overrides]] #{}", i + 1);
            if o.paths.is_empty() {
                return Err(format!("{at}: `paths` lists no glob"));
            }
            let mut globs = ignore::gitignore::GitignoreBuilder::new("");
            for glob in &o.paths {
                // Checked as `exclude` checks its globs: a gitignore line takes some
                // malformed globs (`**/[x`) silently, matching nothing.
                ignore::overrides::OverrideBuilder::new("")
                    .add(glob)
                    .map_err(|e| format!("{at}: path glob {glob:?}: {e}"))?;
                globs
                    .add_line(None, glob)
                    .map_err(|e| format!("{at}: path glob {glob:?}: {e}"))?;
            }
            let globs = globs.build().map_err(|e| format!("{at}: {e}"))?;
            let layer =
                Layer::new(&o.select, &o.ignore, &o.severity).map_err(|e| format!("{at}: {e}"))?;
            overrides.push((globs, layer));
        }
        Ok(CheckSettings {
            config,
            base,
            overrides,
        })
    }
}

/// What one file reports: its codes and their severities.
#[derive(Clone, Debug)]
pub(crate) struct FileRules {
    ids: BTreeSet<&'static str>,
    severity: BTreeMap<&'static str, Severity>,
}

impl FileRules {
    fn severity(&self, code: &Code) -> Severity {
        self.severity
            .get(code.id.as_str())
            .copied()
            .unwrap_or(code.severity)
    }
}

impl CheckSettings {
    /// The configuration as written.
    pub fn config(&self) -> &CheckConfig {
        &self.config
    }

    /// The codes and severities for the file at workspace path `path`, with the caller's
    /// own selection applied last.
    pub(crate) fn rules(&self, path: &str, caller: &CodeSelection) -> FileRules {
        let mut rules = FileRules {
            ids: default_ids(),
            severity: BTreeMap::new(),
        };
        let matching = self
            .overrides
            .iter()
            .filter(|(globs, _)| globs.matched_path_or_any_parents(path, false).is_ignore());
        for layer in std::iter::once(&self.base).chain(matching.map(|(_, layer)| layer)) {
            layer.codes.apply(&mut rules.ids);
            rules
                .severity
                .extend(layer.severity.iter().map(|(k, v)| (*k, *v)));
        }
        caller.apply(&mut rules.ids);
        rules
    }
}

fn unknown_code(entry: &str) -> String {
    format!(
        "unknown diagnostic code {entry:?} (codes are SX001 to {}; see `sextant explain`)",
        registry::codes().last().map_or("", |c| c.id.as_str())
    )
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
        return Err(unknown_code(entry));
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

/// One file's diagnostics in editor terms: the codes `settings` and then `codes` select
/// for its path, at the severities they set.
pub(crate) fn file_diagnostics_info(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    settings: &CheckSettings,
    codes: &CodeSelection,
) -> Vec<DiagnosticInfo> {
    let found = recorded_diagnostics(db, workspace, file);
    let path = file.path(db);
    let rules = settings.rules(path, codes);
    // Import cycles read the whole workspace's import graph: built only when selected.
    let cycles = if rules.ids.contains(registry::ids::IMPORT_CYCLE) {
        cycles::file_import_cycles(db, workspace, file)
    } else {
        Arc::new([])
    };
    if found.is_empty() && cycles.is_empty() {
        return Vec::new();
    }
    let index = semantic::line_index(db, file);
    let info = |d: &Diagnostic, related: Vec<RelatedInfo>| {
        let code = d.code();
        DiagnosticInfo {
            path: path.clone(),
            code: d.id.to_string(),
            severity: rules.severity(code),
            message: d.message.clone(),
            span: Span::new(&index, d.range),
            unnecessary: code.unnecessary,
            related: d
                .related
                .iter()
                .map(|(range, message)| RelatedInfo {
                    path: None,
                    span: Span::new(&index, *range),
                    message: message.clone(),
                })
                .chain(related)
                .collect(),
            also: Vec::new(),
            fix: d.fix.as_ref().map(|fix| FixInfo {
                title: fix.title.clone(),
                applicability: fix.applicability,
                edits: fix
                    .edits
                    .iter()
                    .map(|(range, new_text)| super::TextEdit {
                        range: Span::new(&index, *range),
                        new_text: new_text.clone(),
                    })
                    .collect(),
                exclusive: fix
                    .span()
                    .map_or((0, 0), |span| (span.start().into(), span.end().into())),
            }),
        }
    };
    let mut out: Vec<DiagnosticInfo> = found
        .iter()
        .filter(|d| rules.ids.contains(d.id))
        .map(|d| info(d, Vec::new()))
        .collect();
    if !cycles.is_empty() {
        out.extend(
            cycles
                .iter()
                .map(|c| info(&c.diagnostic, elsewhere(db, &c.others))),
        );
        out.sort_by_key(|d| (d.span.byte_start, d.span.byte_end));
    }
    out
}

/// The places of other files' imports (an import cycle's), from those files' own imports and
/// line tables, read now rather than in a memoized query, so no file's check depends on
/// where another file's imports stand.
fn elsewhere(db: &dyn Db, hops: &[(cycles::Hop, String)]) -> Vec<RelatedInfo> {
    hops.iter()
        .filter_map(|(hop, message)| {
            let symbols = semantic::symbols::file_symbols(db, hop.file);
            let range = *symbols.imports.statements.get(hop.import as usize)?;
            Some(RelatedInfo {
                path: Some(hop.file.path(db).clone()),
                span: Span::new(&semantic::line_index(db, hop.file), range),
                message: message.clone(),
            })
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

/// The repository file that explains every code (generated by [`diagnostics_doc`]).
pub const DIAGNOSTICS_DOC: &str = "docs/diagnostics.md";

/// The anchor of a code's section in [`DIAGNOSTICS_DOC`] (`sx005-undefined-name`: its
/// heading `SX005 undefined-name` as Markdown renderers turn headings into anchors).
pub fn docs_anchor(code: &Code) -> String {
    format!("{}-{}", code.id.to_ascii_lowercase(), code.name)
}

/// The heading of [`DIAGNOSTICS_DOC`]'s code × language table, which the other docs link to.
const CHECKED_IN_HEADING: &str = "Where each code is checked";

/// [`DIAGNOSTICS_DOC`]'s text, from the registry and the rule table: an index, the code ×
/// language table, then one section per code.
pub fn diagnostics_doc() -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "# Diagnostic codes\n\n\
         Generated from `src/checks/codes.toml` and the rule table (`src/checks/rules.rs`); \
         do not edit by hand (`UPDATE_EXPECT=1 cargo test --test tidy` regenerates it). \
         `sextant explain CODE` prints the same explanations.\n\n\
         | code | name | title | default severity |\n|---|---|---|---|\n",
    );
    for code in registry::codes() {
        let _ = writeln!(
            out,
            "| [{}](#{}) | `{}` | {} | {}{} |",
            code.id,
            docs_anchor(code),
            code.name,
            code.title.replace('|', "\\|"),
            code.severity.as_str(),
            if code.enabled { "" } else { " (off)" }
        );
    }
    let languages: Vec<_> = crate::lang::registry().all().collect();
    let _ = write!(
        out,
        "\n## {CHECKED_IN_HEADING}\n\n\
         From the rule table: \"yes\", the code is checked in the language's files today; \
         \"planned\", it applies to the language but is not checked there yet; \"—\", it \
         does not apply.\n\n| code |{}\n|---|{}\n",
        languages
            .iter()
            .map(|lang| format!(" {} |", lang.name))
            .collect::<String>(),
        "---|".repeat(languages.len()),
    );
    for code in registry::codes() {
        let _ = write!(out, "| [{}](#{}) |", code.id, docs_anchor(code));
        for lang in &languages {
            let cell = if code.is_implemented_for(lang) {
                "yes"
            } else if code.applies_to(&lang.id) {
                "planned"
            } else {
                "—"
            };
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    for code in registry::codes() {
        fn list<S: AsRef<str>>(langs: &[S]) -> String {
            match langs {
                [] => "none yet".to_string(),
                [all] if all.as_ref() == "*" => "every language".to_string(),
                langs => langs
                    .iter()
                    .map(AsRef::as_ref)
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        }
        let _ = write!(
            out,
            "\n## {} {}\n\n**{}**\n\n- category: {}\n- default severity: {}{}\n\
             - languages: {}\n- checked in: {}\n",
            code.id,
            code.name,
            code.title,
            code.category,
            code.severity.as_str(),
            if code.enabled {
                ""
            } else {
                " (off by default: select it to see it)"
            },
            list(&code.languages),
            list(code.implemented()),
        );
        if let Some(rule) = &code.pyflakes {
            let _ = writeln!(out, "- pyflakes/ruff rule: `{rule}`");
        }
        let _ = write!(
            out,
            "\n{}\n\nExample:\n\n```\n{}\n```\n\nFix:\n\n```\n{}\n```\n\n{}\n",
            code.description.trim(),
            code.example.trim_end(),
            code.fix.trim_end(),
            code.help.trim()
        );
    }
    out
}

/// The diagnostics an edit's check compares (a rename's, a patch's): those `sextant.toml`'s
/// `[check]` selects.
pub(crate) struct SelectedDiagnostics<'a>(pub &'a CheckSettings);

impl crate::engine::change_check::Diagnostics for SelectedDiagnostics<'_> {
    type Finding = DiagnosticInfo;

    fn of(&self, db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<DiagnosticInfo> {
        file_diagnostics_info(db, workspace, file, self.0, &CodeSelection::default())
    }

    fn code_and_message(finding: &DiagnosticInfo) -> (&str, &str) {
        (&finding.code, &finding.message)
    }
}
