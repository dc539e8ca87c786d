//! The uses, in the workspace, of definitions it no longer has: a function deleted from a
//! file (or with its file) breaks exactly the code that still calls or imports it, yet in
//! the workspace that code's names resolve to nothing, so no graph of the workspace holds
//! the edge. The old texts of the files are put back on the kept scratch database (the
//! workspace with those files at their old texts), the removed definitions' references
//! are searched there, and each user is mapped back to the workspace.
//!
//! Invariant: a user in a file the scratch database does not change has the same text in
//! both databases, so it is the same definition by index. A user in a file put back at its
//! old text is matched in the workspace by kind, qualified name and rank, and kept only if
//! its text there still names the removed definition: an edit that removed a function and
//! the calls of it breaks nothing.

use std::{collections::HashSet, path::Path, sync::Arc};

use super::{
    calls::{Callable, targets_of},
    change::FileContent,
    reference_graph::{Enclosing, is_use},
    scratch::on_workspace_scratch,
    search::{Certainty, search_uses},
};
use crate::{
    db::{Db, SourceFile, Workspace, file_at},
    lang::registry,
    semantic::{
        names::{BindingKind, Role, resolve::Resolver},
        symbols::{FileSymbols, SymbolKind, file_symbols},
    },
};

/// A definition of a file's old text that the workspace no longer has.
#[derive(Clone, Debug)]
pub struct Removed {
    /// Workspace-relative.
    pub path: String,
    pub old_text: Arc<str>,
    /// Its index among the old text's definitions, as `file_symbols` finds them.
    pub symbol: u32,
    /// Its own name, as code naming it spells it.
    pub name: String,
}

/// `user` (a definition of `file`; `None`: its top level) uses or imports the removed
/// definition `removed` (an index into the slice [`users_of_removed`] was given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemovedUse {
    pub removed: u32,
    pub file: SourceFile,
    pub user: Option<u32>,
    pub imports: bool,
}

/// A definition of a file by kind, qualified name and rank among those of both.
type Key = (SymbolKind, String, usize);

/// A user as the scratch database finds it, named so that the workspace can find it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum User {
    /// In a file of the same text in both: by index, or the top level.
    Same(Option<u32>),
    /// In a file put back at its old text.
    Old(Option<Key>),
}

/// The direct users in the workspace of each of `removed`, in the order found; each
/// (removed, user, imports) once.
pub fn users_of_removed(db: &dyn Db, workspace: Workspace, removed: &[Removed]) -> Vec<RemovedUse> {
    if removed.is_empty() {
        return Vec::new();
    }
    let mut texts: Vec<(String, FileContent)> = Vec::new();
    for r in removed {
        if texts.iter().any(|(path, _)| *path == r.path) {
            continue;
        }
        let first_line = r.old_text.lines().next().map(str::as_bytes);
        if let Some(lang) = registry().for_path(Path::new(&r.path), first_line) {
            let content = FileContent {
                lang: lang.lang_id,
                text: r.old_text.clone(),
                lossy_utf8: false,
            };
            texts.push((r.path.clone(), content));
        }
    }
    let swapped: HashSet<String> = texts.iter().map(|(path, _)| path.clone()).collect();
    let found = on_workspace_scratch(db, workspace, texts, &[], |inputs| {
        let scratch: &dyn Db = &inputs.db;
        let mut resolver = Resolver::new(scratch, inputs.workspace);
        let mut found: Vec<(u32, String, User, bool)> = Vec::new();
        let mut seen = HashSet::new();
        for (i, r) in removed.iter().enumerate() {
            let Some(source) = inputs.file(&r.path) else {
                continue;
            };
            if file_symbols(scratch, source).summaries.len() <= r.symbol as usize {
                continue;
            }
            let callable = Callable {
                file: source,
                symbol: Some(r.symbol),
            };
            let targets = targets_of(&mut resolver, callable);
            let (exact_uses, _) = search_uses(&mut resolver, &targets, None, |_, names, hits| {
                hits.iter()
                    .filter(|(_, certainty)| *certainty == Certainty::Exact)
                    .map(|&(occurrence, _)| {
                        let found = names.occurrence(occurrence);
                        (occurrence, (found.role, found.range.start()))
                    })
                    .collect()
            });
            for (file, _, (role, start)) in exact_uses {
                let imports =
                    matches!(role, Role::Definition(BindingKind::Import) | Role::Imported);
                if (imports && file == source) || (!imports && !is_use(role)) {
                    continue;
                }
                let symbols = file_symbols(scratch, file);
                let user = match imports {
                    true => None,
                    false => {
                        Enclosing::new(&symbols.summaries, &symbols.positions).innermost(start)
                    }
                };
                let path = file.path(scratch).clone();
                let user = match swapped.contains(&path) {
                    true => User::Old(user.map(|u| key_of(&symbols, u))),
                    false => User::Same(user),
                };
                let use_ = (i as u32, path, user, imports);
                if seen.insert(use_.clone()) {
                    found.push(use_);
                }
            }
        }
        found
    })
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let mut uses = Vec::new();
    let mut seen = HashSet::new();
    for (removed_index, path, user, imports) in found {
        let Some(file) = file_at(db, workspace, &path) else {
            continue;
        };
        let user = match user {
            User::Same(user) => user,
            User::Old(key) => {
                let name = &removed[removed_index as usize].name;
                let symbols = file_symbols(db, file);
                let text = &*file.text(db);
                match key {
                    None if names(text, name) => None,
                    None => continue,
                    Some(key) => match index_of(&symbols, &key) {
                        Some(u) => {
                            let range = symbols.positions[u as usize].range;
                            let own = &text[usize::from(range.start())..usize::from(range.end())];
                            if !names(own, name) {
                                continue;
                            }
                            Some(u)
                        }
                        None => continue,
                    },
                }
            }
        };
        let use_ = RemovedUse {
            removed: removed_index,
            file,
            user,
            imports,
        };
        if seen.insert((removed_index, file, user, imports)) {
            uses.push(use_);
        }
    }
    uses
}

fn key_of(symbols: &FileSymbols, index: u32) -> Key {
    let summary = &symbols.summaries[index as usize];
    let (kind, name) = (summary.kind, summary.qualified_name());
    let rank = symbols.summaries[..index as usize]
        .iter()
        .filter(|s| s.kind == kind && s.qualified_name() == name)
        .count();
    (kind, name, rank)
}

fn index_of(symbols: &FileSymbols, key: &Key) -> Option<u32> {
    let (kind, name, rank) = key;
    symbols
        .summaries
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == *kind && s.qualified_name() == *name)
        .nth(*rank)
        .map(|(i, _)| i as u32)
}

/// Whether `text` has `name` as a whole word (not inside a longer identifier).
fn names(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn names_are_whole_words() {
        assert!(names("return gone()", "gone"));
        assert!(names("gone", "gone"));
        assert!(!names("return gone_too()", "gone"));
        assert!(!names("undergone", "gone"));
        assert!(!names("$gone", "gone"));
    }
}
