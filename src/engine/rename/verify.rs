//! A rename's verification: the renamed texts are analysed in a scratch database, never on
//! disk. Every renamed or aliased use must still reach the renamed definition, and every
//! other use of the new name must reach what it reached before (else a conflict, naming
//! each place); diagnostics new in the changed files are reported, unless the caller's
//! check policy is off (then the changed files' diagnostics are not computed at all).
//!
//! The scratch database holds the files checked and, transitively, what they import (Go:
//! the package directory; Rust: every crate file); the other files keep their paths with
//! empty texts. Both sides of the comparison, before and after the rename, are computed
//! there, so the files left empty affect them alike.

use std::{
    collections::{BTreeSet, HashMap, HashSet},
    path::PathBuf,
    sync::Arc,
};

use super::{Conflict, RenamedFile, directory, plan::Plan};
use crate::lang::Family;
use crate::{
    db::{Db, RootDatabase, SourceFile, Workspace},
    engine::change::{Change, FileContent, Inputs},
    semantic::{
        import_graph::file_dependencies,
        names::{
            OccurrenceId,
            identifiers::{identifier_index, whole_word_starts},
            resolve::{Resolver, Target},
            spaces::Space,
        },
    },
    syntax::{LineIndex, TextRange},
};

use crate::engine::change_check::Diagnostics;

/// What re-analysing the renamed texts found.
pub(crate) struct Verified<F> {
    pub conflicts: Vec<Conflict>,
    /// `None` when the diagnostics were not looked for.
    pub new_diagnostics: Option<Vec<F>>,
    pub warnings: Vec<String>,
}

/// What a use resolves to, comparable across databases.
type TargetKey = BTreeSet<String>;

/// The uses of one file to check: where each starts in the old text, and whether it is
/// renamed (it must reach the renamed definition afterwards) or a use of the new name (it
/// must keep its meaning).
struct CheckedFile {
    file: SourceFile,
    path: String,
    /// The text before the rename.
    text: Arc<str>,
    uses: Vec<(u32, bool)>,
    /// Moves an offset of the old text to the new one (see [`offset_map`]).
    shift: Vec<(u32, i64)>,
}

/// What the scratch database's thread needs, as plain data.
struct ScratchWork<'a, D> {
    root: PathBuf,
    /// Every workspace file, those checked (and what they import) with their texts.
    before: Change,
    /// The renamed files' new texts.
    after: Change,
    /// The renamed files, in workspace order.
    changed: Vec<String>,
    checked: &'a [CheckedFile],
    /// `None`: the diagnostics are not looked for.
    diagnostics: Option<&'a D>,
    renamed_targets: &'a HashSet<String>,
    old_name: &'a str,
    new_name: &'a str,
}

/// Re-analyses the renamed texts in a scratch database: before and after the rename, over
/// the same files, so the two sides differ only by the rename. `diagnostics` is `None`
/// when the new diagnostics are not wanted: only the meaning of names is compared then.
pub(crate) fn verify<D: Diagnostics>(
    resolver: &mut Resolver,
    diagnostics: Option<&D>,
    plan: &Plan,
    renamed_files: &[RenamedFile],
    new_name: &str,
) -> Verified<D::Finding> {
    let db = resolver.db();
    let workspace = resolver.workspace();
    let renamed_targets: HashSet<String> = plan
        .renamed
        .targets()
        .iter()
        .map(|t| target_key(db, t, None))
        .collect();
    let checked = uses_to_check(resolver, &plan.expected, renamed_files, new_name);
    let with_text = files_with_text(db, workspace, &checked);
    let edited: HashMap<SourceFile, &str> = renamed_files
        .iter()
        .map(|f| (f.file, f.new_text.as_str()))
        .collect();
    let mut before = Change::default();
    let mut after = Change::default();
    let mut changed = Vec::new();
    for &file in workspace.files(db).iter() {
        let path = file.path(db);
        let text = match with_text.contains(&file) {
            true => file.text(db).clone(),
            false => Arc::from(""),
        };
        let content = |text| FileContent {
            lang: file.lang(db),
            text,
            lossy_utf8: false,
        };
        before.set_file(path.clone(), content(text));
        if let Some(new_text) = edited.get(&file) {
            after.set_file(path.clone(), content(Arc::from(*new_text)));
            changed.push(path.clone());
        }
    }
    for manifest in workspace.manifests(db).iter() {
        let text = manifest.text(db).to_string();
        before.set_manifest(manifest.path(db).clone(), manifest.kind(db), text);
    }
    let work = ScratchWork {
        root: workspace.root(db).clone(),
        before,
        after,
        changed,
        checked: &checked,
        diagnostics,
        renamed_targets: &renamed_targets,
        old_name: &plan.old_name,
        new_name,
    };
    match crate::engine::scratch::on_scratch_thread(db, |scratch_db, request| {
        work.run(scratch_db, request)
    }) {
        Ok(verified) => verified,
        // A panic in the scratch analysis is a bug; the rename is refused rather than
        // proposed unchecked.
        Err(_) => Verified {
            conflicts: vec![Conflict {
                file: None,
                range: TextRange::default(),
                message: "checking the renamed texts failed".into(),
            }],
            new_diagnostics: None,
            warnings: Vec::new(),
        },
    }
}

/// The uses to check, by file (sorted by path): those renamed or reaching the symbol by an
/// alias, and every use of the new name.
fn uses_to_check(
    resolver: &mut Resolver,
    expected: &[(SourceFile, OccurrenceId)],
    renamed_files: &[RenamedFile],
    new_name: &str,
) -> Vec<CheckedFile> {
    let db = resolver.db();
    let mut uses: HashMap<SourceFile, Vec<(u32, bool)>> = HashMap::new();
    // A file's names are read for one pass and let go where memory comes first
    // (`Resolver::in_passing`): a rename of a common name checks thousands of files.
    for file_uses in expected.chunk_by(|a, b| a.0 == b.0) {
        let file = file_uses[0].0;
        let starts = resolver.in_passing(file, |_, names| {
            let start = |&(_, occurrence)| u32::from(names.occurrence(occurrence).range.start());
            file_uses.iter().map(start).collect::<Vec<_>>()
        });
        let file_uses = uses.entry(file).or_default();
        file_uses.extend(starts.into_iter().map(|start| (start, true)));
    }
    let index = identifier_index(db, resolver.workspace());
    let mut new_name_files: Vec<SourceFile> = index.files(new_name).to_vec();
    new_name_files.extend(renamed_files.iter().map(|f| f.file));
    for file in new_name_files {
        let starts = resolver.in_passing(file, |_, names| {
            let start = |id| u32::from(names.occurrence(id).range.start());
            names
                .occurrences_named(new_name)
                .map(start)
                .collect::<Vec<_>>()
        });
        let file_uses = uses.entry(file).or_default();
        file_uses.extend(starts.into_iter().map(|start| (start, false)));
    }
    let mut checked: Vec<CheckedFile> = uses
        .into_iter()
        .map(|(file, uses)| {
            let ranges = renamed_files.iter().find(|f| f.file == file);
            CheckedFile {
                file,
                path: file.path(db).clone(),
                text: file.text(db).clone(),
                uses,
                shift: ranges.map(|f| offset_map(&f.ranges)).unwrap_or_default(),
            }
        })
        .collect();
    checked.sort_by(|a, b| (&a.path, &a.uses).cmp(&(&b.path, &b.uses)));
    checked
}

/// The files the scratch database gets the texts of: those checked and, transitively,
/// what they import; a Go package spans its directory, a Rust crate's module tree its files.
fn files_with_text(
    db: &dyn Db,
    workspace: Workspace,
    checked: &[CheckedFile],
) -> HashSet<SourceFile> {
    let mut with_text: HashSet<SourceFile> = checked.iter().map(|c| c.file).collect();
    let mut queue: Vec<SourceFile> = with_text.iter().copied().collect();
    let any_rust = with_text
        .iter()
        .any(|f| f.lang(db).info().family == Family::Rust);
    let checked_dirs: HashSet<String> = with_text
        .iter()
        .filter(|f| f.lang(db).info().family == Family::Go)
        .map(|f| directory(f.path(db)).to_string())
        .collect();
    for &file in workspace.files(db).iter() {
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
    with_text
}

impl<D: Diagnostics> ScratchWork<'_, D> {
    fn run(mut self, db: RootDatabase, request: &salsa::CancellationToken) -> Verified<D::Finding> {
        let files = std::mem::take(&mut self.before);
        let mut inputs = Inputs::from_change(db, self.root.clone(), files);
        let changed: Vec<SourceFile> = self
            .changed
            .iter()
            .map(|path| {
                inputs
                    .file(path)
                    .expect("renamed files are workspace files")
            })
            .collect();
        let diagnostics_of = |inputs: &Inputs| -> Option<Vec<Vec<D::Finding>>> {
            let diagnostics = self.diagnostics?;
            Some(
                changed
                    .iter()
                    .map(|&file| diagnostics.of(&inputs.db, inputs.workspace, file))
                    .collect(),
            )
        };
        let renaming = Some((self.old_name, self.new_name));
        let before = resolve_uses(&inputs, self.checked, renaming, false);
        let diagnostics_before = diagnostics_of(&inputs);
        // Between the two halves, without waiting for the request's thread to notice: the
        // second half re-parses every changed file.
        if request.is_cancelled() {
            std::panic::resume_unwind(Box::new(salsa::Cancelled::Local));
        }
        inputs.apply_change(std::mem::take(&mut self.after));
        let after = resolve_uses(&inputs, self.checked, None, true);
        let diagnostics_after = diagnostics_of(&inputs);
        let (conflicts, partial) = self.changes_of_meaning(&before, &after);
        Verified {
            conflicts,
            new_diagnostics: diagnostics_before
                .zip(diagnostics_after)
                .map(|(before, after)| {
                    new_diagnostics::<D>(&before, &after, self.old_name, self.new_name)
                }),
            warnings: partial_warning(&partial, self.old_name),
        }
    }

    /// The uses whose meaning the rename changes, as conflicts; and the renamed uses that
    /// keep the renamed definition but lose others they also meant (`path:line`).
    fn changes_of_meaning(
        &self,
        before: &[Vec<Option<TargetKey>>],
        after: &[Vec<Option<TargetKey>>],
    ) -> (Vec<Conflict>, Vec<String>) {
        let (old_name, new_name) = (self.old_name, self.new_name);
        let mut conflicts = Vec::new();
        let mut partial: Vec<String> = Vec::new();
        for (checked, (before_row, after_row)) in self.checked.iter().zip(before.iter().zip(after))
        {
            let mut index = None;
            let mut reported: HashSet<u32> = HashSet::new();
            let rows = before_row.iter().zip(after_row);
            for (&(start, renamed), (was, is)) in checked.uses.iter().zip(rows) {
                let is = &self.without_outside_lookups(renamed, was, is);
                if was == is || !reported.insert(start) {
                    continue;
                }
                // An alias's use or a renamed name that reaches the symbol still, among
                // other things it may also reach, is not a change of meaning.
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
                    let index = index.get_or_insert_with(|| LineIndex::new(&checked.text));
                    let line = index.line_col(start as usize).line;
                    partial.push(format!("{}:{line}", checked.path));
                    continue;
                }
                conflicts.push(Conflict {
                    file: Some(checked.file),
                    range,
                    message: self.conflict_message(renamed, is, &captured_by),
                });
            }
        }
        (conflicts, partial)
    }

    /// A renamed member of a module outside the workspace (`_frozen_c.old` when the module
    /// is either that or a workspace file) is only a lookup of a name nothing here defines:
    /// that module keeps the old name, like a definition left alone.
    fn without_outside_lookups(
        &self,
        renamed: bool,
        was: &Option<TargetKey>,
        is: &Option<TargetKey>,
    ) -> Option<TargetKey> {
        is.as_ref().map(|keys| {
            keys.iter()
                .filter(|k| {
                    !(renamed
                        && k.starts_with("external ")
                        && was.as_ref().is_some_and(|w| {
                            k.strip_suffix(self.new_name).is_some_and(|module| {
                                w.contains(&format!("{module}{}", self.old_name))
                            })
                        }))
                })
                .cloned()
                .collect::<TargetKey>()
        })
    }

    fn conflict_message(
        &self,
        renamed: bool,
        is: &Option<TargetKey>,
        captured_by: &[String],
    ) -> String {
        let (old_name, new_name) = (self.old_name, self.new_name);
        if renamed && captured_by.is_empty() {
            format!("this use of `{old_name}` would no longer refer to the renamed definition")
        } else if renamed {
            format!(
                "this use of `{old_name}` would be captured by another `{new_name}`{}",
                describe(captured_by)
            )
        } else if is.as_ref().is_some_and(|keys| {
            keys.iter().any(|k| {
                self.renamed_targets
                    .contains(&retarget(k, new_name, old_name))
            })
        }) {
            format!("this `{new_name}` would refer to the renamed `{old_name}` instead")
        } else {
            format!(
                "this `{new_name}` would change meaning{}",
                describe(captured_by)
            )
        }
    }
}

/// What each checked use resolves to in the scratch database; `after` the rename, offsets
/// are moved to the new texts. `renaming` writes the old name of a target as the new one,
/// so the two sides compare.
fn resolve_uses(
    inputs: &Inputs,
    checked: &[CheckedFile],
    renaming: Option<(&str, &str)>,
    after: bool,
) -> Vec<Vec<Option<TargetKey>>> {
    let db = &inputs.db;
    let mut resolver = Resolver::new(db, inputs.workspace);
    let mut keys = Vec::new();
    for checked in checked {
        let file = inputs
            .file(&checked.path)
            .expect("checked files are workspace files");
        let names = resolver.names(file);
        let mut row = Vec::new();
        for &(start, _) in &checked.uses {
            let at = match after {
                true => moved(&checked.shift, start),
                false => start,
            };
            let key = names.at_offset(at as usize).map(|occurrence| {
                resolver
                    .resolve(file, occurrence)
                    .targets
                    .iter()
                    .map(|t| target_key(db, t, renaming))
                    .collect::<TargetKey>()
            });
            row.push(key);
        }
        keys.push(row);
    }
    keys
}

/// The diagnostics the renamed texts have and the old ones do not. A diagnostic the
/// rename only renames (`redefinition of unused 'old'`) is not new.
fn new_diagnostics<D: Diagnostics>(
    before: &[Vec<D::Finding>],
    after: &[Vec<D::Finding>],
    old_name: &str,
    new_name: &str,
) -> Vec<D::Finding> {
    let mut new = Vec::new();
    for (was, is) in before.iter().zip(after) {
        let was_renamed: Vec<(&str, String)> = was
            .iter()
            .map(|d| {
                let (code, message) = D::code_and_message(d);
                (code, with_word_replaced(message, old_name, new_name))
            })
            .collect();
        let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
        for (code, message) in &was_renamed {
            *seen.entry((code, message.as_str())).or_default() += 1;
        }
        for d in is {
            match seen.get_mut(&D::code_and_message(d)) {
                Some(count) if *count > 0 => *count -= 1,
                _ => new.push(d.clone()),
            }
        }
    }
    new
}

fn partial_warning(partial: &[String], old_name: &str) -> Vec<String> {
    if partial.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "{} renamed use{} also referred to other definitions of `{old_name}`, which keep \
         the old name (for example {})",
        partial.len(),
        if partial.len() == 1 { "" } else { "s" },
        partial[..partial.len().min(3)].join(", ")
    )]
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

fn target_key(db: &dyn Db, target: &Target, rename: Option<(&str, &str)>) -> String {
    match target {
        Target::Symbol {
            file,
            scope,
            name,
            space,
        } => {
            let name = match rename {
                Some((old, new)) if **name == *old => new,
                _ => name,
            };
            // The name stays last, for `retarget`.
            let meaning = match space {
                Space::All => "",
                Space::Value => "/value",
                Space::Type => "/type",
            };
            format!("symbol {} {scope}{meaning} {name}", file.path(db))
        }
        Target::Module(file) => format!("module {}", file.path(db)),
        Target::External { module, name } => {
            format!("external {module} {}", name.as_deref().unwrap_or(""))
        }
    }
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

/// Where each renamed range ends in the old text, with the length change of the renames up
/// to it: moves an offset of the old text to the new one.
fn offset_map(renamed: &[(TextRange, String)]) -> Vec<(u32, i64)> {
    let mut total = 0i64;
    renamed
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
