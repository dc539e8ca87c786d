//! The edits of a rename: every occurrence the reference search finds (`exact` ones, and
//! `heuristic` ones when asked), the `__all__` strings that export the name, and with
//! `include_text` the name as a word in strings and comments; each as a byte range of its
//! file and the text replacing it.

use std::collections::{BTreeMap, HashSet};

use super::{
    Conflict, EditOrigin, Refusal, RenameOptions, RenameSubject, check_new_name,
    conflicts::same_scope_conflicts,
    subject::{Renamed, what_to_rename},
};
use crate::lang::Family;
use crate::{
    db::{Db, SourceFile},
    engine::{
        definitions::DefinitionSite,
        search::{Certainty, Hit, search_hits},
    },
    semantic::{
        self,
        names::{
            BindingKind, FileNames, OccurrenceId, Role,
            identifiers::whole_word_starts,
            resolve::{Resolver, Target},
        },
    },
    syntax::TextRange,
};

/// By path: the file, and its byte ranges to replace with their new texts.
pub(crate) type FileReplacements = BTreeMap<String, (SourceFile, Vec<(TextRange, String)>)>;

/// One place a rename changes (or could change), in the text before it.
pub(crate) struct PlannedEdit {
    pub file: SourceFile,
    pub range: TextRange,
    pub certainty: Certainty,
    pub origin: EditOrigin,
    /// Part of the change that applying writes.
    pub applied: bool,
}

/// A changed file's new text, with the ranges of its old text that were replaced (in
/// order) and their new texts.
pub(crate) struct RenamedFile {
    pub file: SourceFile,
    pub new_text: String,
    pub ranges: Vec<(TextRange, String)>,
}

/// A planned rename, before its texts are checked.
pub(crate) struct Plan {
    pub old_name: String,
    pub renamed: Renamed,
    /// The bindings renamed.
    pub definitions: Vec<DefinitionSite>,
    /// Bindings that already have the new name where a renamed one is bound.
    pub conflicts: Vec<Conflict>,
    /// Exact edits: names in code and `__all__` entries, by path and position.
    pub edits: Vec<PlannedEdit>,
    /// Members matched by name only, by path and position.
    pub heuristic: Vec<PlannedEdit>,
    /// The old name in strings and comments (with `include_text`), by path and position.
    pub text_matches: Vec<PlannedEdit>,
    /// What applying writes.
    pub replacements: FileReplacements,
    /// The uses that must still reach the renamed definitions afterwards: every exact one
    /// but imports given the new name as an alias (their uses are checked instead).
    pub expected: Vec<(SourceFile, OccurrenceId)>,
}

/// The edits that rename `subject` to `new_name`, or why there are none.
pub(crate) fn plan(
    resolver: &mut Resolver,
    subject: &RenameSubject,
    new_name: &str,
    options: RenameOptions,
) -> Result<Plan, Refusal> {
    let db = resolver.db();
    let (old_name, renamed) = what_to_rename(resolver, subject)?;
    let lang = match &renamed {
        Renamed::Targets(targets) => match targets.first() {
            Some(Target::Symbol { file, .. }) => file.lang(db).info(),
            _ => {
                return Err(Refusal::NotFound(format!("`{old_name}` is not defined")));
            }
        },
        Renamed::Local { file, .. } => file.lang(db).info(),
    };
    check_new_name(lang, &old_name, new_name)?;

    // The occurrences to rename, and those that use the symbol under another name (an
    // alias), which must still reach it afterwards.
    let hits = renamed_hits(resolver, &renamed, &old_name);
    let definitions = renamed_definitions(resolver, &renamed, &old_name);
    let conflicts = same_scope_conflicts(resolver, &renamed, &hits, &old_name, new_name);
    let mut plan = Plan {
        old_name,
        renamed,
        definitions,
        conflicts,
        edits: Vec::new(),
        heuristic: Vec::new(),
        text_matches: Vec::new(),
        replacements: BTreeMap::new(),
        expected: Vec::new(),
    };
    let (module_level_renamed, aliased) = plan.add_code_edits(resolver, &hits, new_name, options);
    if hits.is_empty() {
        return Err(Refusal::NotFound(format!(
            "found no occurrence of `{}` to rename",
            plan.old_name
        )));
    }
    plan.add_all_entries(resolver, &module_level_renamed, new_name);
    if options.include_text {
        plan.add_text_matches(resolver, &hits, new_name);
    }
    for list in [&mut plan.edits, &mut plan.heuristic, &mut plan.text_matches] {
        list.sort_by(|a, b| {
            (a.file.path(db), a.range.start()).cmp(&(b.file.path(db), b.range.start()))
        });
    }
    plan.expected = hits
        .iter()
        .filter(|h| h.2 == Certainty::Exact && !aliased.contains(&(h.0, h.1)))
        .map(|h| (h.0, h.1))
        .collect();
    Ok(plan)
}

/// Every occurrence of what is renamed, by path and position.
fn renamed_hits(resolver: &mut Resolver, renamed: &Renamed, old_name: &str) -> Vec<Hit> {
    let db = resolver.db();
    let mut hits: Vec<Hit> = match renamed {
        Renamed::Targets(targets) => search_hits(resolver, targets, None).0,
        Renamed::Local { file, scope } => {
            let names = resolver.names(*file);
            names
                .occurrences_named(old_name)
                .collect::<Vec<_>>()
                .into_iter()
                .filter(|&o| resolver.binding_scope(*file, o) == Some(*scope))
                .map(|o| (*file, o, Certainty::Exact))
                .collect()
        }
    };
    hits.sort_by(|a, b| (a.0.path(db), a.1).cmp(&(b.0.path(db), b.1)));
    hits.dedup_by_key(|h| (h.0, h.1));
    hits
}

/// The bindings renamed.
fn renamed_definitions(
    resolver: &mut Resolver,
    renamed: &Renamed,
    old_name: &str,
) -> Vec<DefinitionSite> {
    let binding = |(file, occurrence)| DefinitionSite::Binding { file, occurrence };
    match renamed {
        Renamed::Targets(targets) => targets
            .iter()
            .flat_map(|target| resolver.definitions(target))
            .map(binding)
            .collect(),
        Renamed::Local { file, scope } => {
            let names = resolver.names(*file);
            names
                .bindings(*scope, old_name)
                .iter()
                .map(|&site| binding((*file, site)))
                .collect()
        }
    }
}

impl Plan {
    fn replace(&mut self, db: &dyn Db, file: SourceFile, range: TextRange, new_text: String) {
        self.replacements
            .entry(file.path(db).clone())
            .or_insert_with(|| (file, Vec::new()))
            .1
            .push((range, new_text));
    }

    /// The edits of the names in code; returns the files where a module-level definition
    /// is renamed, and the imports that keep the old name under the new one as an alias.
    fn add_code_edits(
        &mut self,
        resolver: &mut Resolver,
        hits: &[Hit],
        new_name: &str,
        options: RenameOptions,
    ) -> (HashSet<SourceFile>, HashSet<(SourceFile, OccurrenceId)>) {
        let mut module_level_renamed: HashSet<SourceFile> = HashSet::new();
        let mut aliased: HashSet<(SourceFile, OccurrenceId)> = HashSet::new();
        // One pass per file (the hits are sorted by path), its names let go after it where
        // memory comes first: a rename of a common name edits thousands of files.
        for file_hits in hits.chunk_by(|a, b| a.0 == b.0) {
            resolver.in_passing(file_hits[0].0, |resolver, names| {
                for &hit in file_hits {
                    let (file, occurrence, certainty) = hit;
                    let Some(origin) = self.add_code_edit(resolver, names, hit, new_name, options)
                    else {
                        continue;
                    };
                    if origin == EditOrigin::ImportAlias {
                        aliased.insert((file, occurrence));
                    }
                    let occ = names.occurrence(occurrence);
                    if certainty == Certainty::Exact
                        && occ.scope == 0
                        && matches!(occ.role, Role::Definition(_))
                    {
                        module_level_renamed.insert(file);
                    }
                }
            });
        }
        (module_level_renamed, aliased)
    }

    /// Adds the edit of one hit to the plan and returns its origin; `None` where the hit is
    /// not the old name.
    fn add_code_edit(
        &mut self,
        resolver: &mut Resolver,
        names: &FileNames,
        (file, occurrence, certainty): Hit,
        new_name: &str,
        options: RenameOptions,
    ) -> Option<EditOrigin> {
        let db = resolver.db();
        if names.name(occurrence) != self.old_name {
            return None;
        }
        let occ = names.occurrence(occurrence);
        let applied = certainty == Certainty::Exact || options.include_heuristic;
        let alias = match certainty {
            Certainty::Exact => import_alias(
                resolver,
                file,
                occurrence,
                self.renamed.targets(),
                &self.old_name,
                new_name,
            ),
            Certainty::Heuristic => None,
        };
        let origin = match alias {
            Some(_) => EditOrigin::ImportAlias,
            None => EditOrigin::Code,
        };
        let edit = PlannedEdit {
            file,
            range: occ.range,
            certainty,
            origin,
            applied,
        };
        if applied {
            let new_text = alias.unwrap_or_else(|| new_name.to_string());
            self.replace(db, file, occ.range, new_text);
        }
        match certainty {
            Certainty::Exact => self.edits.push(edit),
            Certainty::Heuristic => self.heuristic.push(edit),
        }
        Some(origin)
    }

    /// `__all__ = ["old", …]` exports the name by string: part of the rename.
    fn add_all_entries(
        &mut self,
        resolver: &mut Resolver,
        module_level_renamed: &HashSet<SourceFile>,
        new_name: &str,
    ) {
        let db = resolver.db();
        for &file in module_level_renamed {
            let entries = resolver.in_passing(file, |_, names| {
                all_entries(db, names, file, &self.old_name)
            });
            for range in entries {
                self.replace(db, file, range, new_name.to_string());
                self.edits.push(PlannedEdit {
                    file,
                    range,
                    certainty: Certainty::Exact,
                    origin: EditOrigin::AllEntry,
                    applied: true,
                });
            }
        }
    }

    /// The old name as a word in strings and comments of the files renamed in.
    fn add_text_matches(&mut self, resolver: &mut Resolver, hits: &[Hit], new_name: &str) {
        let db = resolver.db();
        let code: HashSet<(SourceFile, TextRange)> = self
            .replacements
            .values()
            .flat_map(|(file, list)| list.iter().map(|(r, _)| (*file, *r)))
            .collect();
        let mut files: Vec<SourceFile> = hits.iter().map(|h| h.0).collect();
        files.dedup();
        for file in files {
            let words =
                resolver.in_passing(file, |_, names| text_words(db, names, file, &self.old_name));
            for (range, origin) in words {
                if code.contains(&(file, range)) {
                    continue;
                }
                self.replace(db, file, range, new_name.to_string());
                self.text_matches.push(PlannedEdit {
                    file,
                    range,
                    certainty: Certainty::Heuristic,
                    origin,
                    applied: true,
                });
            }
        }
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

/// The strings of a Python module's `__all__` that are exactly `name`.
fn all_entries(db: &dyn Db, names: &FileNames, file: SourceFile, name: &str) -> Vec<TextRange> {
    if file.lang(db).info().family != Family::Python {
        return Vec::new();
    }
    let text = &*file.text(db);
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
    let text = &*file.text(db);
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
