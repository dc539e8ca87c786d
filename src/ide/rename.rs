//! `rename`: every edit that renames a symbol, from the name under a cursor or a name as
//! people write it, checked before anything is written.
//!
//! Invariant: a rename is proposed only when it keeps every name meaning what it meant.
//! The edits are the symbol's references (`navigation::search_hits`), so they share its
//! precision: `exact` ones are proposed, `heuristic` ones (members of receivers of unknown
//! type) only when asked. The renamed texts are then analysed in a scratch database, never
//! on disk: every renamed or aliased use must still reach the renamed definition, every
//! other use of the new name must reach what it reached before (else `RENAME_CONFLICT`,
//! naming each place), and diagnostics new in the changed files are reported. The whole
//! answer is one tracked query ([`rename_plan`]), keyed on what was asked, so a repeated
//! dry run on an unchanged workspace is a lookup.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    path::PathBuf,
    sync::Arc,
};

use serde::Serialize;

use super::{
    CheckSettings, CodeSelection, DiagnosticInfo, Span,
    diagnostics::file_diagnostics_info,
    edits::{FileEdit, SourceChange, TextEdit, unified_diff},
    navigation::{
        Certainty, Definition, binding_definition, line_text, search_hits, targets_named,
    },
};
use crate::{
    db::{Db, ManifestFile, RootDatabase, SourceFile, Workspace},
    lang::{Family, Language},
    semantic::{
        self,
        import_graph::file_dependencies,
        names::{
            BindingKind, FileNames, OccurrenceId, Role, ScopeId,
            identifiers::{identifier_index, whole_word_starts},
            resolve::{Resolver, Target},
        },
    },
    syntax::{LineIndex, TextRange},
};

/// What a rename may touch beyond the exact references.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RenameOptions {
    /// Also edit members matched by name on receivers of unknown type.
    pub include_heuristic: bool,
    /// Also edit the old name where it stands as a word in strings and comments.
    pub include_text: bool,
}

/// Where an edit of a rename is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditOrigin {
    /// A name in code.
    Code,
    /// A string of a Python module's `__all__`, which exports the name.
    AllEntry,
    /// A word in a string literal.
    String,
    /// A word in a comment.
    Comment,
    /// An import of the old name from something else than what is renamed (`from _c import
    /// old`, bound in the same scope as the renamed definition): it keeps importing the old
    /// name and binds it as the new one (`old as new`).
    ImportAlias,
}

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
    /// do not; applying is refused while there are any.
    pub new_diagnostics: Vec<DiagnosticInfo>,
    /// Things to know that do not stop the rename.
    pub warnings: Vec<String>,
}

/// The refusal every front end gives a rename that would add diagnostics: the CLI and
/// MCP before writing, the LSP before handing the edit to an editor (which applies what it
/// is given). One rule and one wording, so the three cannot drift apart.
pub struct NewDiagnostics<'a>(&'a [DiagnosticInfo]);

impl NewDiagnostics<'_> {
    pub const CODE: &'static str = "NEW_DIAGNOSTICS";
    pub const MESSAGE: &'static str = "the renamed files would have new diagnostics";

    /// Each finding as `path:line:column: CODE message`.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.0.iter().map(|d| {
            format!(
                "{}:{}:{}: {} {}",
                d.path, d.span.start.line, d.span.start.column, d.code, d.message
            )
        })
    }

    pub fn diagnostics(&self) -> &[DiagnosticInfo] {
        self.0
    }
}

impl Rename {
    /// Why this rename must not be applied, if it must not.
    pub fn refusal(&self) -> Option<NewDiagnostics<'_>> {
        (!self.new_diagnostics.is_empty()).then_some(NewDiagnostics(&self.new_diagnostics))
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

impl RenameError {
    /// The stable code front ends report.
    pub fn code(&self) -> &'static str {
        match self {
            RenameError::InvalidName(_) => "INVALID_NAME",
            RenameError::Conflict { .. } => "RENAME_CONFLICT",
            RenameError::NotFound(_) => "NO_SYMBOL",
            RenameError::NotRenameable(_) => "NOT_RENAMEABLE",
            RenameError::NotUtf8 { .. } => "NOT_UTF8",
        }
    }

    /// The places that stop the rename: conflicts, or edits in files never written.
    pub fn conflicts(&self) -> &[RenameConflict] {
        match self {
            RenameError::Conflict { conflicts, .. } => conflicts,
            RenameError::NotUtf8 { places, .. } => places,
            _ => &[],
        }
    }
}

/// What to rename: the name at a position, or the definitions a written name names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, salsa::SalsaValue)]
pub(crate) enum RenameSubject {
    At {
        file: SourceFile,
        offset: u32,
    },
    Named(String),
    /// `name` as bound in one file's module scope, or in the function called `scope` (its
    /// own scope or one nested in it): source mode, where a snippet has no positions to give.
    InScope {
        file: SourceFile,
        name: String,
        scope: Option<String>,
    },
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
    if new == old {
        return Err(RenameError::InvalidName(format!(
            "`{new}` is already the name"
        )));
    }
    if !lang.is_identifier(new) {
        return Err(RenameError::InvalidName(format!(
            "`{new}` is not a {} identifier (it must match {})",
            lang.name,
            lang.identifier_pattern()
        )));
    }
    if lang.is_keyword(new) {
        return Err(RenameError::InvalidName(format!(
            "`{new}` is a {} keyword",
            lang.name
        )));
    }
    if lang.family == Family::Go {
        let exported = |name: &str| name.chars().next().is_some_and(char::is_uppercase);
        if new == "_" {
            return Err(RenameError::InvalidName(
                "`_` is Go's blank identifier: it binds nothing".into(),
            ));
        }
        if exported(old) != exported(new) {
            let (was, becomes) = match exported(old) {
                true => ("exported", "unexported"),
                false => ("unexported", "exported"),
            };
            return Err(RenameError::InvalidName(format!(
                "in Go a name's first letter decides whether other packages see it: `{old}` is \
                 {was}, `{new}` would be {becomes}; keep the case of the first letter"
            )));
        }
    }
    Ok(())
}

/// How the renamed occurrences are found.
enum Found {
    /// Every reference of these definitions (all named `old`).
    Targets(Vec<Target>),
    /// A local name bound in one scope of one file (an import's alias): its uses there.
    Local { file: SourceFile, scope: ScopeId },
}

/// By path: the file, and its byte ranges to replace with their new texts.
type FileReplacements = BTreeMap<String, (SourceFile, Vec<(TextRange, String)>)>;

fn compute(
    db: &dyn Db,
    workspace: Workspace,
    subject: &RenameSubject,
    new_name: &str,
    options: RenameOptions,
    check_settings: &CheckSettings,
) -> Result<Rename, RenameError> {
    let mut resolver = Resolver::new(db, workspace);
    let (old_name, found) = what_to_rename(&mut resolver, subject)?;
    let lang = match &found {
        Found::Targets(targets) => match targets.first() {
            Some(Target::Symbol { file, .. }) => file.lang(db).info(),
            _ => {
                return Err(RenameError::NotFound(format!(
                    "`{old_name}` is not defined"
                )));
            }
        },
        Found::Local { file, .. } => file.lang(db).info(),
    };
    validate_name(lang, &old_name, new_name)?;

    // The occurrences to rename, and those that use the symbol under another name (an
    // alias), which must still reach it afterwards.
    let mut hits: Vec<(SourceFile, OccurrenceId, Certainty)> = match &found {
        Found::Targets(targets) => search_hits(&mut resolver, targets, None).0,
        Found::Local { file, scope } => {
            let names = resolver.names(*file);
            names
                .occurrences_named(&old_name)
                .collect::<Vec<_>>()
                .into_iter()
                .filter(|&o| resolver.binding_scope(*file, o) == Some(*scope))
                .map(|o| (*file, o, Certainty::Exact))
                .collect()
        }
    };
    let mut definitions = Vec::new();
    match &found {
        Found::Targets(targets) => {
            for target in targets {
                for (file, site) in resolver.definitions(target) {
                    definitions.push(binding_definition(db, &resolver.names(file), file, site));
                }
            }
        }
        Found::Local { file, scope } => {
            let names = resolver.names(*file);
            for &site in names.bindings(*scope, &old_name) {
                definitions.push(binding_definition(db, &names, *file, site));
            }
        }
    }
    hits.sort_by(|a, b| (a.0.path(db), a.1).cmp(&(b.0.path(db), b.1)));
    hits.dedup_by_key(|h| (h.0, h.1));

    let mut conflicts = same_scope_conflicts(&mut resolver, &found, &hits, &old_name, new_name);

    let mut edits = Vec::new();
    let mut heuristic = Vec::new();
    let mut text_matches = Vec::new();
    // Per file: the byte ranges to replace, each with its new text.
    let mut ranges: FileReplacements = BTreeMap::new();
    let add =
        |ranges: &mut FileReplacements, file: SourceFile, range: TextRange, new_text: String| {
            ranges
                .entry(file.path(db).clone())
                .or_insert_with(|| (file, Vec::new()))
                .1
                .push((range, new_text));
        };
    let renamed_targets: &[Target] = match &found {
        Found::Targets(targets) => targets,
        Found::Local { .. } => &[],
    };
    let mut module_level_renamed: HashSet<SourceFile> = HashSet::new();
    let mut aliased: HashSet<(SourceFile, OccurrenceId)> = HashSet::new();
    for &(file, occurrence, certainty) in &hits {
        let names = resolver.names(file);
        if names.name(occurrence) != old_name {
            continue;
        }
        let occ = names.occurrence(occurrence);
        let applied = certainty == Certainty::Exact || options.include_heuristic;
        let alias = match certainty {
            Certainty::Exact => import_alias(
                &mut resolver,
                file,
                occurrence,
                renamed_targets,
                &old_name,
                new_name,
            ),
            Certainty::Heuristic => None,
        };
        let origin = match alias {
            Some(_) => EditOrigin::ImportAlias,
            None => EditOrigin::Code,
        };
        if alias.is_some() {
            aliased.insert((file, occurrence));
        }
        let edit = rename_edit(db, file, occ.range, certainty, origin, applied);
        if applied {
            add(
                &mut ranges,
                file,
                occ.range,
                alias.unwrap_or_else(|| new_name.to_string()),
            );
        }
        if certainty == Certainty::Exact {
            if occ.scope == 0 && matches!(occ.role, Role::Definition(_)) {
                module_level_renamed.insert(file);
            }
            edits.push(edit);
        } else {
            heuristic.push(edit);
        }
    }
    if hits.is_empty() {
        return Err(RenameError::NotFound(format!(
            "found no occurrence of `{old_name}` to rename"
        )));
    }

    // `__all__ = ["old", …]` exports the name by string: part of the rename.
    for &file in &module_level_renamed {
        for range in all_entries(db, &resolver.names(file), file, &old_name) {
            add(&mut ranges, file, range, new_name.to_string());
            edits.push(rename_edit(
                db,
                file,
                range,
                Certainty::Exact,
                EditOrigin::AllEntry,
                true,
            ));
        }
    }
    if options.include_text {
        let code: HashSet<(SourceFile, TextRange)> = ranges
            .values()
            .flat_map(|(file, list)| list.iter().map(|(r, _)| (*file, *r)))
            .collect();
        let mut files: Vec<SourceFile> = hits.iter().map(|h| h.0).collect();
        files.dedup();
        for file in files {
            for (range, origin) in text_words(db, &resolver.names(file), file, &old_name) {
                if code.contains(&(file, range)) {
                    continue;
                }
                add(&mut ranges, file, range, new_name.to_string());
                text_matches.push(rename_edit(
                    db,
                    file,
                    range,
                    Certainty::Heuristic,
                    origin,
                    true,
                ));
            }
        }
    }
    for list in [&mut edits, &mut heuristic, &mut text_matches] {
        list.sort_by(|a, b| (&a.path, a.span.byte_start).cmp(&(&b.path, b.span.byte_start)));
    }

    let unwritable: Vec<RenameConflict> = ranges
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
    if !unwritable.is_empty() {
        let mut paths: Vec<&str> = unwritable.iter().map(|p| p.path.as_str()).collect();
        paths.dedup();
        return Err(RenameError::NotUtf8 {
            message: format!(
                "renaming `{old_name}` would change {}, which {} not valid UTF-8; sextant never \
                 writes a file it could only decode lossily",
                paths.join(", "),
                if paths.len() == 1 { "is" } else { "are" },
            ),
            places: unwritable,
        });
    }

    let mut change = SourceChange::default();
    let mut new_texts: Vec<(SourceFile, String)> = Vec::new();
    let mut diff = String::new();
    let mut renamed_ranges: HashMap<SourceFile, Vec<(TextRange, String)>> = HashMap::new();
    for (path, (file, mut list)) in ranges {
        list.sort_by_key(|(r, _)| r.start());
        list.dedup_by_key(|(r, _)| *r);
        let text = file.text(db);
        let index = semantic::line_index(db, file);
        let text_edits: Vec<TextEdit> = list
            .iter()
            .map(|(range, new_text)| TextEdit {
                range: Span::new(&index, *range),
                new_text: new_text.clone(),
            })
            .collect();
        renamed_ranges.insert(file, list);
        let edit = FileEdit::new(path.clone(), text, text_edits);
        // Whole words of one name never overlap; refuse rather than guess if they did.
        let new_text = edit.apply(text).map_err(|e| {
            RenameError::NotRenameable(format!("the edits do not fit together: {e}"))
        })?;
        diff.push_str(&unified_diff(&path, text, &new_text));
        new_texts.push((file, new_text));
        change.files.push(edit);
    }

    // An import given the new name as its alias still imports what it did: its uses are
    // checked, not the import.
    let expected: Vec<(SourceFile, OccurrenceId)> = hits
        .iter()
        .filter(|h| h.2 == Certainty::Exact && !aliased.contains(&(h.0, h.1)))
        .map(|h| (h.0, h.1))
        .collect();
    let verified = verify(
        &mut resolver,
        check_settings,
        &found,
        &expected,
        &new_texts,
        &renamed_ranges,
        &old_name,
        new_name,
    );
    conflicts.extend(verified.conflicts);
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
        old_name,
        new_name: new_name.to_string(),
        definitions,
        edits,
        heuristic,
        text_matches,
        change,
        diff,
        new_diagnostics: verified.new_diagnostics,
        warnings,
    })
}

fn what_to_rename(
    resolver: &mut Resolver,
    subject: &RenameSubject,
) -> Result<(String, Found), RenameError> {
    match subject {
        RenameSubject::Named(written) => {
            let old = written
                .rsplit(['.', ':'])
                .find(|p| !p.is_empty())
                .unwrap_or_default()
                .to_string();
            let targets: Vec<Target> = targets_named(resolver, written, None)
                .into_iter()
                .filter(|t| matches!(t, Target::Symbol { .. }))
                .collect();
            if targets.is_empty() {
                return Err(RenameError::NotFound(format!(
                    "no definition called `{written}` in the workspace"
                )));
            }
            Ok((old, Found::Targets(targets)))
        }
        RenameSubject::InScope { file, name, scope } => {
            let offset = binding_in_scope(&resolver.names(*file), name, scope.as_deref())?;
            what_to_rename(
                resolver,
                &RenameSubject::At {
                    file: *file,
                    offset,
                },
            )
        }
        RenameSubject::At { file, offset } => {
            let (file, offset) = (*file, *offset as usize);
            let names = resolver.names(file);
            let Some(occurrence) = names.at_offset(offset) else {
                return Err(RenameError::NotFound("no name at this position".into()));
            };
            let old = names.name(occurrence).to_string();
            let resolution = resolver.resolve(file, occurrence);
            let named: Vec<Target> = resolution
                .targets
                .iter()
                .filter(|t| matches!(t, Target::Symbol { name, .. } if **name == *old))
                .cloned()
                .collect();
            if !named.is_empty() {
                return Ok((old, Found::Targets(named)));
            }
            if let Some(scope) = resolver.binding_scope(file, occurrence)
                && let Some(&binding) = names.bindings(scope, &old).first()
                && names.occurrence(binding).role == Role::Definition(BindingKind::Import)
            {
                let range = names.occurrence(binding).range;
                let aliased = resolver
                    .import_statement(file, range, |import| {
                        import.alias.as_deref() == Some(old.as_str())
                    })
                    .is_some();
                if aliased {
                    return Ok((old, Found::Local { file, scope }));
                }
                if resolution.targets.is_empty() {
                    return Err(RenameError::NotRenameable(format!(
                        "`{old}` is imported under its own name from something sextant cannot \
                         see; renaming it here would change what is imported (give it an \
                         alias instead)"
                    )));
                }
            }
            if resolution.heuristic {
                return Err(RenameError::NotFound(format!(
                    "`{old}` is a member of something whose type is not known; rename it by \
                     its qualified name (`Class.{old}`)"
                )));
            }
            match resolution.targets.first() {
                Some(Target::Module(_)) => Err(RenameError::NotRenameable(format!(
                    "`{old}` names a module: renaming it means renaming its file"
                ))),
                Some(Target::External { module, .. }) => Err(RenameError::NotRenameable(format!(
                    "`{old}` is defined outside the workspace (in `{module}`); renaming it \
                     here would change what is imported (give it an alias instead)"
                ))),
                _ => Err(RenameError::NotFound(format!(
                    "`{old}` is not bound anywhere in the workspace"
                ))),
            }
        }
    }
}

/// Where `name` is first bound in the module scope (`scope` absent or `module`), or in the
/// function called `scope` or a scope nested in it.
fn binding_in_scope(
    names: &FileNames,
    name: &str,
    scope: Option<&str>,
) -> Result<u32, RenameError> {
    let within = match scope {
        None | Some("module") => None,
        Some(function) => {
            let found = (0..names.scopes.len() as ScopeId).find(|&id| {
                names.scopes[id as usize].named_by.is_some_and(|n| {
                    names.name(n) == function
                        && names.occurrence(n).role == Role::Definition(BindingKind::Function)
                })
            });
            match found {
                Some(id) => Some(names.scopes[id as usize].range),
                None => {
                    return Err(RenameError::NotFound(format!(
                        "no function called `{function}` in the source"
                    )));
                }
            }
        }
    };
    let binding = names.occurrences_named(name).find(|&o| {
        let occ = names.occurrence(o);
        let bound = matches!(occ.role, Role::Definition(_));
        match within {
            None => bound && occ.scope == 0,
            Some(range) => {
                bound
                    && occ.scope != 0
                    && range.contains_range(names.scopes[occ.scope as usize].range)
            }
        }
    });
    match binding {
        Some(o) => Ok(u32::from(names.occurrence(o).range.start())),
        None => Err(RenameError::NotFound(match scope {
            None | Some("module") => format!("`{name}` is not bound at module level"),
            Some(function) => format!("`{name}` is not bound in `{function}`"),
        })),
    }
}

/// The text that renames an import binding `old` in place of `old` itself, when the
/// import brings `old` from something else than the renamed definitions (`from _c import
/// old`, an accelerated version bound over a pure one): it keeps importing the old name
/// and binds it as the new one, so every use keeps its meaning. `None` for an import of a
/// renamed definition (it is renamed on both sides), an alias, or anything but an import.
fn import_alias(
    resolver: &mut Resolver,
    file: SourceFile,
    occurrence: OccurrenceId,
    renamed: &[Target],
    old_name: &str,
    new_name: &str,
) -> Option<String> {
    // Only Python binds an import over a definition of the same scope (`try: from _c
    // import f`); elsewhere the two are a compile error.
    if file.lang(resolver.db()).info().family != Family::Python {
        return None;
    }
    let names = resolver.names(file);
    let occ = names.occurrence(occurrence);
    if occ.role != Role::Definition(BindingKind::Import) {
        return None;
    }
    resolver.import_statement(file, occ.range, |import| {
        import.alias.is_none() && import.name.as_deref() == Some(old_name)
    })?;
    let imported = resolver.imported_by(file, occurrence).unwrap_or_default();
    if imported.iter().any(|t| renamed.contains(t)) {
        return None;
    }
    Some(format!("{old_name} as {new_name}"))
}

fn rename_edit(
    db: &dyn Db,
    file: SourceFile,
    range: TextRange,
    certainty: Certainty,
    origin: EditOrigin,
    applied: bool,
) -> RenameEdit {
    let span = Span::new(&semantic::line_index(db, file), range);
    RenameEdit {
        path: file.path(db).clone(),
        line_text: line_text(file.text(db), span.byte_start as usize),
        span,
        certainty,
        origin,
        applied,
    }
}

/// A renamed definition whose scope already binds the new name: the two would be one
/// name (a redefinition), which no later check can tell from a rename that went well.
fn same_scope_conflicts(
    resolver: &mut Resolver,
    found: &Found,
    hits: &[(SourceFile, OccurrenceId, Certainty)],
    old_name: &str,
    new_name: &str,
) -> Vec<RenameConflict> {
    let db = resolver.db();
    let mut scopes: Vec<(SourceFile, ScopeId)> = Vec::new();
    for &(file, occurrence, certainty) in hits {
        let names = resolver.names(file);
        let occ = names.occurrence(occurrence);
        if certainty == Certainty::Exact
            && names.name(occurrence) == old_name
            && matches!(occ.role, Role::Definition(_))
        {
            let scope = match names.declaration(occ.scope, old_name) {
                Some(Role::Global) => 0,
                _ => occ.scope,
            };
            scopes.push((file, scope));
        }
    }
    if let Found::Targets(targets) = found {
        for target in targets {
            if let Target::Symbol { file, scope, .. } = target {
                scopes.push((*file, *scope));
            }
        }
    }
    let mut conflicts = Vec::new();
    let mut seen: HashSet<(SourceFile, ScopeId)> = HashSet::new();
    scopes.retain(|s| seen.insert(*s));
    for (file, scope) in scopes {
        let names = resolver.names(file);
        let mut taken: Vec<OccurrenceId> = names.bindings(scope, new_name).to_vec();
        // A class's members include the attributes its methods assign on instances.
        if names.scopes[scope as usize].is_class {
            let range = names.scopes[scope as usize].range;
            taken.extend(names.occurrences_named(new_name).filter(|&o| {
                let occ = names.occurrence(o);
                occ.role == Role::MemberDefinition && range.contains_range(occ.range)
            }));
        }
        let index = semantic::line_index(db, file);
        // A Go package's top-level names are one scope across its directory's files.
        if scope == 0 && file.lang(db).info().family == Family::Go {
            let dir = directory(file.path(db));
            for &other in resolver.workspace().files(db).iter() {
                if other == file
                    || other.lang(db).info().family != Family::Go
                    || directory(other.path(db)) != dir
                {
                    continue;
                }
                let other_names = resolver.names(other);
                let other_index = semantic::line_index(db, other);
                for &site in other_names.bindings(0, new_name) {
                    conflicts.push(RenameConflict {
                        path: other.path(db).clone(),
                        span: Span::new(&other_index, other_names.occurrence(site).range),
                        message: format!(
                            "`{new_name}` is already defined here, in the same package"
                        ),
                    });
                }
            }
        }
        for site in taken {
            conflicts.push(RenameConflict {
                path: file.path(db).clone(),
                span: Span::new(&index, names.occurrence(site).range),
                message: format!("`{new_name}` is already defined here, in the same scope"),
            });
        }
    }
    conflicts
}

/// The strings of a Python module's `__all__` that are exactly `name`.
fn all_entries(db: &dyn Db, names: &FileNames, file: SourceFile, name: &str) -> Vec<TextRange> {
    if file.lang(db).info().family != Family::Python {
        return Vec::new();
    }
    let text = file.text(db);
    let mut found = Vec::new();
    for id in names.occurrences_named("__all__") {
        let occ = names.occurrence(id);
        if occ.scope != 0 || !matches!(occ.role, Role::Definition(_) | Role::Write) {
            continue;
        }
        let start = usize::from(occ.range.end());
        let end = (occ.effective as usize).min(text.len());
        let Some(statement) = text.get(start..end) else {
            continue;
        };
        for quote in ['"', '\''] {
            let literal = format!("{quote}{name}{quote}");
            for (at, _) in statement.match_indices(&literal) {
                let begin = (start + at + 1) as u32;
                found.push(TextRange::new(
                    begin.into(),
                    (begin + name.len() as u32).into(),
                ));
            }
        }
    }
    found.sort_by_key(|r| r.start());
    found
}

/// `name` as a whole word inside strings and comments of `file` (not a name in code).
fn text_words(
    db: &dyn Db,
    names: &FileNames,
    file: SourceFile,
    name: &str,
) -> Vec<(TextRange, EditOrigin)> {
    let Some(tree) = semantic::file_tree(db, file) else {
        return Vec::new();
    };
    let text = file.text(db);
    let code: HashSet<TextRange> = names
        .occurrences_named(name)
        .map(|o| names.occurrence(o).range)
        .collect();
    let mut found = Vec::new();
    for at in whole_word_starts(text, name) {
        let end = at + name.len();
        let range = TextRange::new((at as u32).into(), (end as u32).into());
        if code.contains(&range) {
            continue;
        }
        let Some(mut node) = tree.root_node().descendant_for_byte_range(at, end) else {
            continue;
        };
        let mut origin = None;
        for _ in 0..4 {
            let kind = node.kind();
            if kind.contains("comment") {
                origin = Some(EditOrigin::Comment);
                break;
            }
            if kind.contains("string") || kind.contains("template") {
                origin = Some(EditOrigin::String);
                break;
            }
            match node.parent() {
                Some(parent) => node = parent,
                None => break,
            }
        }
        if let Some(origin) = origin {
            found.push((range, origin));
        }
    }
    found
}

/// What re-analysing the renamed texts found.
struct Verified {
    conflicts: Vec<RenameConflict>,
    new_diagnostics: Vec<DiagnosticInfo>,
    warnings: Vec<String>,
}

/// What a use resolves to, comparable across databases.
type TargetKey = BTreeSet<String>;

fn target_key(db: &dyn Db, target: &Target, rename: Option<(&str, &str)>) -> String {
    match target {
        Target::Symbol { file, scope, name } => {
            let name = match rename {
                Some((old, new)) if **name == *old => new,
                _ => name,
            };
            format!("symbol {} {scope} {name}", file.path(db))
        }
        Target::Module(file) => format!("module {}", file.path(db)),
        Target::External { module, name } => {
            format!("external {module} {}", name.as_deref().unwrap_or(""))
        }
    }
}

/// Re-analyses the renamed texts in a scratch database: before and after the rename, over
/// the same files, so the two sides differ only by the rename. The scratch database runs
/// on its own thread: salsa allows one database per thread inside a query.
#[allow(clippy::too_many_arguments)]
fn verify(
    resolver: &mut Resolver,
    check_settings: &CheckSettings,
    found: &Found,
    expected: &[(SourceFile, OccurrenceId)],
    new_texts: &[(SourceFile, String)],
    renamed: &HashMap<SourceFile, Vec<(TextRange, String)>>,
    old_name: &str,
    new_name: &str,
) -> Verified {
    let db = resolver.db();
    let workspace = resolver.workspace();
    let renamed_targets: HashSet<String> = match found {
        Found::Targets(targets) => targets.iter().map(|t| target_key(db, t, None)).collect(),
        Found::Local { .. } => HashSet::new(),
    };
    let edited: HashMap<SourceFile, &str> =
        new_texts.iter().map(|(f, t)| (*f, t.as_str())).collect();
    // The uses to check: those renamed or reaching the symbol by an alias (they must reach
    // it afterwards), and every use of the new name (it must keep its meaning).
    let mut checks: HashMap<SourceFile, Vec<(u32, bool)>> = HashMap::new();
    for &(file, occurrence) in expected {
        let start = resolver.names(file).occurrence(occurrence).range.start();
        checks.entry(file).or_default().push((start.into(), true));
    }
    let index = identifier_index(db, workspace);
    let mut new_name_files: Vec<SourceFile> = index.files(new_name).to_vec();
    new_name_files.extend(edited.keys().copied());
    for file in new_name_files {
        let names = resolver.names(file);
        for id in names.occurrences_named(new_name) {
            let start = names.occurrence(id).range.start();
            checks.entry(file).or_default().push((start.into(), false));
        }
    }
    // The files the scratch database gets the texts of: those checked and, transitively,
    // what they import; the rest keep their paths with empty texts.
    let mut with_text: HashSet<SourceFile> = checks.keys().copied().collect();
    let mut queue: Vec<SourceFile> = with_text.iter().copied().collect();
    let any_rust = with_text
        .iter()
        .any(|f| f.lang(db).info().family == Family::Rust);
    let all_files = workspace.files(db).clone();
    let checked_dirs: HashSet<String> = with_text
        .iter()
        .filter(|f| f.lang(db).info().family == Family::Go)
        .map(|f| directory(f.path(db)).to_string())
        .collect();
    for &file in all_files.iter() {
        // A Go package spans its directory; a Rust crate's module tree spans its files.
        let needed = match file.lang(db).info().family {
            Family::Go => checked_dirs.contains(directory(file.path(db))),
            Family::Rust => any_rust,
            Family::Python | Family::Ecma { .. } => false,
        };
        if needed && with_text.insert(file) {
            queue.push(file);
        }
    }
    while let Some(file) = queue.pop() {
        for (dependency, _) in file_dependencies(db, workspace, file).files.iter() {
            if with_text.insert(*dependency) {
                queue.push(*dependency);
            }
        }
    }
    let scratch_files: Vec<ScratchFile> = all_files
        .iter()
        .map(|&file| ScratchFile {
            path: file.path(db).clone(),
            lang: file.lang(db),
            text: match with_text.contains(&file) {
                true => file.text(db).clone(),
                false => Arc::from(""),
            },
            new_text: edited.get(&file).map(|t| Arc::from(*t)),
            renamed: renamed.get(&file).cloned().unwrap_or_default(),
        })
        .collect();
    let manifests: Vec<(String, crate::db::ManifestKind, Arc<str>)> = workspace
        .manifests(db)
        .iter()
        .map(|m| (m.path(db).clone(), m.kind(db), m.text(db).clone()))
        .collect();
    let mut checks: Vec<(String, Vec<(u32, bool)>)> = checks
        .into_iter()
        .map(|(file, list)| (file.path(db).clone(), list))
        .collect();
    checks.sort();
    let root = workspace.root(db).clone();
    let scratch_db = db.scratch();
    let request = salsa::Database::cancellation_token(db);
    let stop_scratch = salsa::Database::cancellation_token(&scratch_db);
    let (finished, finishing) = std::sync::mpsc::channel::<()>();
    let scratch = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _finished = finished;
            scratch_check(
                scratch_db,
                &request,
                root,
                check_settings,
                &scratch_files,
                &manifests,
                &checks,
                &renamed_targets,
                old_name,
                new_name,
            )
        });
        // The request's cancellation reaches the scratch database: both stop.
        let mut stopped = false;
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            finishing.recv_timeout(std::time::Duration::from_millis(10))
        {
            if !stopped && semantic::is_cancelled(db) {
                stop_scratch.cancel();
                stopped = true;
            }
        }
        (worker.join(), stopped)
    });
    // What a stopped scratch analysis answered is not an answer (salsa resets its token as
    // the cancelled query unwinds, so the flag is kept here).
    let scratch = match scratch {
        (result, false) if !semantic::is_cancelled(db) => result,
        _ => semantic::cancelled(db),
    };
    match scratch {
        Ok(verified) => verified,
        // A panic in the scratch analysis is a bug; the rename is refused rather than
        // proposed unchecked.
        Err(_) => Verified {
            conflicts: vec![RenameConflict {
                path: String::new(),
                span: Span::new(&LineIndex::new(Arc::from("")), TextRange::default()),
                message: "checking the renamed texts failed".into(),
            }],
            new_diagnostics: Vec::new(),
            warnings: Vec::new(),
        },
    }
}

fn directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

struct ScratchFile {
    path: String,
    lang: crate::lang::LangId,
    text: Arc<str>,
    new_text: Option<Arc<str>>,
    /// The renamed ranges of the old text, in order, each with its new text.
    renamed: Vec<(TextRange, String)>,
}

#[allow(clippy::too_many_arguments)]
fn scratch_check(
    mut db: RootDatabase,
    request: &salsa::CancellationToken,
    root: PathBuf,
    settings: &CheckSettings,
    files: &[ScratchFile],
    manifests: &[(String, crate::db::ManifestKind, Arc<str>)],
    checks: &[(String, Vec<(u32, bool)>)],
    renamed_targets: &HashSet<String>,
    old_name: &str,
    new_name: &str,
) -> Verified {
    use salsa::Setter;
    let inputs: Vec<SourceFile> = files
        .iter()
        .map(|f| SourceFile::new(&db, f.path.clone(), f.lang, f.text.clone(), false))
        .collect();
    let by_path: HashMap<&str, SourceFile> = files
        .iter()
        .zip(&inputs)
        .map(|(f, &input)| (f.path.as_str(), input))
        .collect();
    let manifest_inputs: Vec<ManifestFile> = manifests
        .iter()
        .map(|(path, kind, text)| ManifestFile::new(&db, path.clone(), *kind, text.clone()))
        .collect();
    let workspace = Workspace::new(&db, root, inputs.clone().into(), manifest_inputs.into());
    let codes = CodeSelection::default();
    let changed: Vec<(usize, SourceFile)> = files
        .iter()
        .zip(&inputs)
        .enumerate()
        .filter(|(_, (f, _))| f.new_text.is_some())
        .map(|(i, (_, &input))| (i, input))
        .collect();

    let resolve_all = |db: &RootDatabase, rename: Option<(&str, &str)>, after: bool| {
        let mut resolver = Resolver::new(db, workspace);
        let mut keys: Vec<Vec<Option<TargetKey>>> = Vec::new();
        for (path, list) in checks {
            let file = by_path[path.as_str()];
            let names = resolver.names(file);
            let shift = match after {
                true => offset_map(&files[index_of(files, path)]),
                false => Vec::new(),
            };
            let mut row = Vec::new();
            for &(start, _) in list {
                let at = moved(&shift, start);
                let key = names.at_offset(at as usize).map(|occurrence| {
                    resolver
                        .resolve(file, occurrence)
                        .targets
                        .iter()
                        .map(|t| target_key(db, t, rename))
                        .collect::<TargetKey>()
                });
                row.push(key);
            }
            keys.push(row);
        }
        keys
    };
    let diagnostics_of = |db: &RootDatabase| -> Vec<Vec<DiagnosticInfo>> {
        changed
            .iter()
            .map(|&(_, file)| file_diagnostics_info(db, workspace, file, settings, &codes))
            .collect()
    };

    let before = resolve_all(&db, Some((old_name, new_name)), false);
    let diagnostics_before = diagnostics_of(&db);
    // Between the two halves, without waiting for the request's thread to notice: the
    // second half re-parses every changed file.
    if request.is_cancelled() {
        std::panic::resume_unwind(Box::new(salsa::Cancelled::Local));
    }
    for &(i, file) in &changed {
        if let Some(text) = &files[i].new_text {
            file.set_text(&mut db).to(text.clone());
        }
    }
    let after = resolve_all(&db, None, true);
    let diagnostics_after = diagnostics_of(&db);

    let mut conflicts = Vec::new();
    let mut partial: Vec<String> = Vec::new();
    for ((path, list), (before_row, after_row)) in checks.iter().zip(before.iter().zip(&after)) {
        let file = &files[index_of(files, path)];
        let index = LineIndex::new(file.text.clone());
        let mut reported: HashSet<u32> = HashSet::new();
        for (&(start, renamed), (was, is)) in list.iter().zip(before_row.iter().zip(after_row)) {
            // A renamed member of a module outside the workspace (`_frozen_c.old` when the
            // module is either that or a workspace file) is only a lookup of a name nothing
            // here defines: that module keeps the old name, like a definition left alone.
            let is = &is.as_ref().map(|keys| {
                keys.iter()
                    .filter(|k| {
                        !(renamed
                            && k.starts_with("external ")
                            && was.as_ref().is_some_and(|w| {
                                k.strip_suffix(new_name).is_some_and(|module| {
                                    w.contains(&format!("{module}{old_name}"))
                                })
                            }))
                    })
                    .cloned()
                    .collect::<TargetKey>()
            });
            if was == is || !reported.insert(start) {
                continue;
            }
            // An alias's use or a renamed name that reaches the symbol still, among other
            // things it may also reach, is not a change of meaning.
            let length = if renamed {
                old_name.len()
            } else {
                new_name.len()
            };
            let range = TextRange::new(start.into(), (start + length as u32).into());
            let captured_by = is
                .as_ref()
                .map(|keys| {
                    keys.iter()
                        .filter(|k| was.as_ref().is_none_or(|w| !w.contains(*k)))
                        .cloned()
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let still_reaches = is.as_ref().is_some_and(|keys| {
                !keys.is_empty() && was.as_ref().is_some_and(|w| keys.is_subset(w))
            });
            if renamed && captured_by.is_empty() && still_reaches {
                // A use that meant several definitions (`os.path` is `posixpath` or
                // `ntpath`) keeps the renamed one and loses those that keep the old name.
                partial.push(format!("{path}:{}", index.line_col(start as usize).line));
                continue;
            }
            let message = if renamed && captured_by.is_empty() {
                format!("this use of `{old_name}` would no longer refer to the renamed definition")
            } else if renamed {
                format!(
                    "this use of `{old_name}` would be captured by another `{new_name}`{}",
                    describe(&captured_by)
                )
            } else if is.as_ref().is_some_and(|keys| {
                keys.iter()
                    .any(|k| renamed_targets.contains(&retarget(k, new_name, old_name)))
            }) {
                format!("this `{new_name}` would refer to the renamed `{old_name}` instead")
            } else {
                format!(
                    "this `{new_name}` would change meaning{}",
                    describe(&captured_by)
                )
            };
            conflicts.push(RenameConflict {
                path: path.clone(),
                span: Span::new(&index, range),
                message,
            });
        }
    }

    let mut new_diagnostics = Vec::new();
    for (was, is) in diagnostics_before.iter().zip(&diagnostics_after) {
        // A diagnostic the rename only renames (`redefinition of unused 'old'`) is not new.
        let was_renamed: Vec<String> = was
            .iter()
            .map(|d| with_word_replaced(&d.message, old_name, new_name))
            .collect();
        let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
        for (d, message) in was.iter().zip(&was_renamed) {
            *seen.entry((d.code.as_str(), message.as_str())).or_default() += 1;
        }
        for d in is {
            match seen.get_mut(&(d.code.as_str(), d.message.as_str())) {
                Some(count) if *count > 0 => *count -= 1,
                _ => new_diagnostics.push(d.clone()),
            }
        }
    }
    let mut warnings = Vec::new();
    if !partial.is_empty() {
        warnings.push(format!(
            "{} renamed use{} also referred to other definitions of `{old_name}`, which keep \
             the old name (for example {})",
            partial.len(),
            if partial.len() == 1 { "" } else { "s" },
            partial[..partial.len().min(3)].join(", ")
        ));
    }
    Verified {
        conflicts,
        new_diagnostics,
        warnings,
    }
}

/// `text` with each whole word `old` (not part of a longer identifier) written `new`.
fn with_word_replaced(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for at in whole_word_starts(text, old) {
        out.push_str(&text[copied..at]);
        out.push_str(new);
        copied = at + old.len();
    }
    out.push_str(&text[copied..]);
    out
}

/// A key of the new database written with the old name, to compare with the renamed
/// targets' keys.
fn retarget(key: &str, new_name: &str, old_name: &str) -> String {
    match key.strip_suffix(new_name) {
        Some(rest) if key.starts_with("symbol ") => format!("{rest}{old_name}"),
        _ => key.to_string(),
    }
}

fn describe(keys: &[String]) -> String {
    let places: Vec<String> = keys
        .iter()
        .filter_map(|k| {
            let mut parts = k.splitn(4, ' ');
            match (parts.next(), parts.next()) {
                (Some("symbol"), Some(path)) => Some(path.to_string()),
                (Some("external"), Some(module)) => {
                    Some(format!("{module} (outside the workspace)"))
                }
                _ => None,
            }
        })
        .collect();
    match places.is_empty() {
        true => String::new(),
        false => format!(" (defined in {})", places.join(", ")),
    }
}

fn index_of(files: &[ScratchFile], path: &str) -> usize {
    files
        .iter()
        .position(|f| f.path == path)
        .expect("checked files are workspace files")
}

/// Where each renamed range of `file` ends in the old text, with the length change of the
/// renames up to it: moves an offset of the old text to the new one.
fn offset_map(file: &ScratchFile) -> Vec<(u32, i64)> {
    let mut total = 0i64;
    file.renamed
        .iter()
        .map(|(range, new_text)| {
            total += new_text.len() as i64 - i64::from(u32::from(range.len()));
            (u32::from(range.end()), total)
        })
        .collect()
}

fn moved(map: &[(u32, i64)], offset: u32) -> u32 {
    let shift = map
        .iter()
        .take_while(|(end, _)| *end <= offset)
        .last()
        .map_or(0, |(_, total)| *total);
    (offset as i64 + shift) as u32
}

#[cfg(test)]
mod tests {
    use super::with_word_replaced;

    #[test]
    fn only_whole_words_are_replaced() {
        assert_eq!(
            with_word_replaced(
                "redefinition of unused 'reduce' (reduce_all, reduce)",
                "reduce",
                "fold"
            ),
            "redefinition of unused 'fold' (reduce_all, fold)"
        );
        assert_eq!(
            with_word_replaced("'m.area' x", "area", "size"),
            "'m.size' x"
        );
    }
}
