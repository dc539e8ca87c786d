//! The identifier → files index: which files can mention a name, so a reference search
//! resolves names in those files only.
//!
//! Invariant (early cutoff): [`file_identifiers`] is position-free (a sorted set of words),
//! so it backdates whenever an edit leaves a file's words unchanged, and
//! [`identifier_index`] is not re-run. Words are found lexically, strings and comments
//! included: a superset of the names a file uses, which is all a candidate list needs
//! (and what a rename that also edits strings and comments will want).

use std::sync::Arc;

use foldhash::HashMap;

use crate::{
    db::{Db, RecordKind, SourceFile, Workspace},
    semantic::persisted,
};

/// The distinct identifier-like words of a file, sorted (from the persistent cache when it
/// holds them: sorting a file's words costs more than reading them back).
#[salsa::tracked(returns(clone))]
pub fn file_identifiers(db: &dyn Db, file: SourceFile) -> Arc<[Box<str>]> {
    let text = file.text(db);
    let words: Vec<Box<str>> = persisted::recorded(
        db,
        RecordKind::FileIdentifiers,
        || [persisted::text_hash(db, file).to_vec()],
        || {
            let mut words: Vec<Box<str>> = words(text).map(Box::from).collect();
            words.sort_unstable();
            words.dedup();
            words
        },
    );
    words.into()
}

/// Whether `c` may be part of an identifier in one of the registry's languages.
pub fn is_identifier_part(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Every word of `text` that could be an identifier in one of the registry's languages:
/// a letter, `_` or `$`, then letters, digits, `_` or `$`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_identifier_part(c))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_numeric()))
}

/// Where `word` stands in `text` as a whole word (no identifier character touching it on
/// either side): the byte offsets of its starts.
pub fn whole_word_starts<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let end = at + word.len();
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(is_identifier_part)
                && !text[end..].chars().next().is_some_and(is_identifier_part)
        })
}

/// For each word, the workspace files that contain it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IdentifierIndex {
    files: HashMap<Box<str>, Vec<SourceFile>>,
}

impl IdentifierIndex {
    /// The files that may mention `name`, in workspace order.
    pub fn files(&self, name: &str) -> &[SourceFile] {
        self.files.get(name).map_or(&[], Vec::as_slice)
    }
}

#[salsa::tracked(returns(clone))]
pub fn identifier_index(db: &dyn Db, workspace: Workspace) -> Arc<IdentifierIndex> {
    let mut index = IdentifierIndex::default();
    for &file in workspace.files(db).iter() {
        for word in file_identifiers(db, file).iter() {
            match index.files.get_mut(word) {
                Some(files) => files.push(file),
                None => {
                    index.files.insert(word.clone(), vec![file]);
                }
            }
        }
    }
    Arc::new(index)
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_are_identifier_shaped() {
        let found: Vec<&str> = words("os.path.join(a1, 2x, $el, _p, naïve) # note").collect();
        assert_eq!(
            found,
            ["os", "path", "join", "a1", "$el", "_p", "naïve", "note"]
        );
    }
}
