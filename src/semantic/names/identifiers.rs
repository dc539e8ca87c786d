//! The identifier → files index: which files can mention a name, so a reference search
//! resolves names in those files only.
//!
//! Invariant (early cutoff): [`file_identifiers`] is position-free (a sorted set of words),
//! so it backdates whenever an edit leaves a file's words unchanged, and
//! [`identifier_index`] is not re-run. Words are found lexically, strings and comments
//! included: a superset of the names a file uses, which is all a candidate list needs
//! (and what a rename that also edits strings and comments will want).

use std::{collections::HashSet, sync::Arc};

use crate::{
    db::{Db, RecordKind, SourceFile, Workspace},
    semantic::{
        codec::{self, span},
        index::{SHARD_FILES, shard_count, shard_files},
        persisted,
    },
};

/// The distinct identifier-like words of a file, sorted (from the persistent cache when it
/// holds them: sorting a file's words costs more than reading them back).
///
/// Bounded by an LRU of 1,024 files (at least a shard's [`SHARD_FILES`]); what is evicted is
/// computed again from the text. Every file's words stay in the identifier index's shards,
/// and a file's own set is needed again only to rebuild its shard after an edit to one of
/// the shard's files, or to tell a few files apart by a word. Kept for every file, the sets
/// were a copy of what the shards hold: 33 MB of a session on a 148.9 MB tree.
#[salsa::tracked(returns(clone), lru = 1024)]
pub fn file_identifiers(db: &dyn Db, file: SourceFile) -> Arc<WordSet> {
    Arc::new(file_identifiers_unkept(db, file))
}

/// [`file_identifiers`], computed (or read back) without being kept: what a shard reads of
/// a file whose text is kept compressed (see [`word_table`]).
fn file_identifiers_unkept(db: &dyn Db, file: SourceFile) -> WordSet {
    persisted::recorded(
        db,
        RecordKind::FileIdentifiers,
        || [persisted::text_hash(db, file).to_vec()],
        || {
            let text = file.text(db);
            let mut words: Vec<&str> = words(&text).collect();
            words.sort_unstable();
            words.dedup();
            WordSet::from_sorted(words)
        },
    )
}

/// Whether a shard reads its files' words for itself alone rather than through
/// [`file_identifiers`]: where texts are kept compressed, memory comes first. Kept, every
/// file's set stayed until salsa next applied the LRU bound (at the next write): the
/// first reference search of a server on a 148.9 MB tree held 33 MB of sets beside the
/// shards that copy them, over a `--max-memory` of 400M. A file's set is then read again
/// (from the persistent cache when it holds it) when its shard is rebuilt after an edit,
/// which, with more than 1,024 files, evicted sets had to be anyway. Asked of the
/// database, not of each text: a shard that read its texts would depend on them, and run
/// again after any edit, its words changed or not.
pub fn words_read_in_passing(db: &dyn Db) -> bool {
    db.keeps_texts_compressed()
}

/// A sorted set of distinct words in one string with their end offsets: the background
/// check builds every file's set at once, and a word apiece on the heap cost about 48 bytes
/// of bookkeeping per word, three times the words' text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordSet {
    text: Box<str>,
    ends: Box<[u32]>,
}

impl WordSet {
    /// The set of `words`, which must be sorted and distinct.
    fn from_sorted<'w>(words: impl IntoIterator<Item = &'w str>) -> WordSet {
        let (mut text, mut ends) = (String::new(), Vec::new());
        for word in words {
            text.push_str(word);
            ends.push(text.len() as u32);
        }
        WordSet {
            text: text.into(),
            ends: ends.into(),
        }
    }

    /// The words in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| self.word(i))
    }

    fn word(&self, i: usize) -> &str {
        &self.text[span(&self.ends, i)]
    }

    /// Whether a word of the set starts with `prefix`: the first word not before `prefix`
    /// in order does, if any does.
    pub fn has_word_starting_with(&self, prefix: &str) -> bool {
        let first = first_not_before(self.ends.len(), |i| self.word(i), prefix);
        first < self.ends.len() && self.word(first).starts_with(prefix)
    }

    pub fn contains(&self, word: &str) -> bool {
        let first = first_not_before(self.ends.len(), |i| self.word(i), word);
        first < self.ends.len() && self.word(first) == word
    }
}

/// Recorded as the list of its words, as the persistent cache has always held it.
impl serde::Serialize for WordSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for WordSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<WordSet, D::Error> {
        let words = Vec::<Box<str>>::deserialize(deserializer)?;
        if !words.is_sorted_by(|a, b| a < b) {
            return Err(serde::de::Error::custom("words not sorted and distinct"));
        }
        Ok(WordSet::from_sorted(words.iter().map(|w| &**w)))
    }
}

/// The index of the first of `count` sorted words (`word(i)` the `i`-th) that is not
/// before `wanted` in order, or `count` when every word is.
fn first_not_before<'w>(count: usize, word: impl Fn(usize) -> &'w str, wanted: &str) -> usize {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = (low + high) / 2;
        match word(middle) < wanted {
            true => low = middle + 1,
            false => high = middle,
        }
    }
    low
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

/// For each word, the workspace files that contain it, in shards of consecutive files (as
/// the symbol index: an edit that changes a file's words rebuilds its shard alone).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IdentifierIndex {
    shards: Vec<Arc<IdentifierShard>>,
}

impl IdentifierIndex {
    /// The files that may mention `name`, in workspace order.
    pub fn files(&self, name: &str) -> Vec<SourceFile> {
        let mut files = Vec::new();
        for shard in &self.shards {
            if let Some(i) = shard.table.find(name) {
                let places = &shard.table.places[span(&shard.table.place_ends, i)];
                files.extend(places.iter().map(|&p| shard.files[usize::from(p)]));
            }
        }
        files
    }

    /// The files holding, for each of `prefixes`, a word that starts with it as `case`
    /// compares (every file when `prefixes` is empty).
    pub fn files_with_words_starting(
        &self,
        prefixes: &[String],
        case: WordCase,
    ) -> HashSet<SourceFile> {
        let mut found = HashSet::new();
        for shard in &self.shards {
            let mut admitted = [true; SHARD_FILES];
            for prefix in prefixes {
                let mut holds = [false; SHARD_FILES];
                // The words are in byte order: without regard to case every one is read.
                let candidates = match case {
                    WordCase::Exact => shard.table.starting_with(prefix),
                    WordCase::AsciiFolded => 0..shard.table.word_ends.len(),
                };
                let words = candidates.filter(|&i| case.starts(shard.table.word(i), prefix));
                for word in words {
                    for &place in &shard.table.places[span(&shard.table.place_ends, word)] {
                        holds[usize::from(place)] = true;
                    }
                }
                for (admits, holds) in admitted.iter_mut().zip(holds) {
                    *admits &= holds;
                }
            }
            found.extend(
                (shard.files.iter().zip(admitted))
                    .filter(|(_, admits)| *admits)
                    .map(|(&file, _)| file),
            );
        }
        found
    }
}

/// How a word is compared with what it must start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordCase {
    Exact,
    /// ASCII letters in either case; a word with a character outside ASCII is taken to
    /// start with anything (a non-ASCII letter can match an ASCII one without regard to
    /// case: the Kelvin sign `K` matches `k`).
    AsciiFolded,
}

impl WordCase {
    fn starts(self, word: &str, prefix: &str) -> bool {
        match self {
            WordCase::Exact => word.starts_with(prefix),
            WordCase::AsciiFolded => {
                !word.is_ascii()
                    || word
                        .as_bytes()
                        .get(..prefix.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
            }
        }
    }
}

/// The words of some consecutive files of the workspace.
#[derive(Debug, PartialEq, Eq)]
pub struct IdentifierShard {
    files: Vec<SourceFile>,
    table: WordTable,
}

/// Distinct words in sorted order, each with the places in its shard of the files that
/// hold it, as flat arrays (what a record holds).
#[derive(Debug, Default, PartialEq, Eq)]
struct WordTable {
    /// The words, concatenated; `word_ends[i]` ends word `i`.
    words: String,
    word_ends: Vec<u32>,
    /// Each word's files by place in the shard, ascending; `place_ends[i]` ends word `i`'s.
    places: Vec<u8>,
    place_ends: Vec<u32>,
}

impl WordTable {
    fn word(&self, i: usize) -> &str {
        &self.words[span(&self.word_ends, i)]
    }

    fn find(&self, word: &str) -> Option<usize> {
        let first = first_not_before(self.word_ends.len(), |i| self.word(i), word);
        (first < self.word_ends.len() && self.word(first) == word).then_some(first)
    }

    /// The words that start with `prefix`, as a range of indexes: a run from the first word
    /// not before `prefix` in order.
    fn starting_with(&self, prefix: &str) -> std::ops::Range<usize> {
        let count = self.word_ends.len();
        let first = first_not_before(count, |i| self.word(i), prefix);
        let end = (first..count)
            .find(|&i| !self.word(i).starts_with(prefix))
            .unwrap_or(count);
        first..end
    }

    fn encode(&self) -> Vec<u8> {
        let mut w = codec::Writer::default();
        w.str(&self.words);
        w.u32s(&self.word_ends);
        w.bytes(&self.places);
        w.u32s(&self.place_ends);
        w.finish()
    }

    /// What [`WordTable::encode`] wrote for a shard of `files` files; `None` unless every
    /// span is within its array at character boundaries, the words are sorted and every
    /// place names one of the files.
    fn decode(bytes: &[u8], files: usize) -> Option<WordTable> {
        let mut r = codec::Reader::new(bytes);
        let table = WordTable {
            words: r.string()?,
            word_ends: r.u32s()?,
            places: r.bytes()?.to_vec(),
            place_ends: r.u32s()?,
        };
        let words = table.word_ends.len();
        let valid = r.is_done()
            && table.place_ends.len() == words
            && codec::valid_ends(&table.word_ends, table.words.len())
            && table
                .word_ends
                .iter()
                .all(|&e| table.words.is_char_boundary(e as usize))
            && codec::valid_ends(&table.place_ends, table.places.len())
            && table.places.iter().all(|&p| usize::from(p) < files)
            && (1..words).all(|i| table.word(i - 1) < table.word(i));
        valid.then_some(table)
    }
}

#[salsa::tracked(returns(clone))]
pub fn identifier_index(db: &dyn Db, workspace: Workspace) -> Arc<IdentifierIndex> {
    Arc::new(IdentifierIndex {
        shards: (0..shard_count(db, workspace))
            .map(|k| identifier_shard(db, workspace, k))
            .collect(),
    })
}

/// The words of the workspace's files `shard * SHARD_FILES..` (public so that priming can
/// build the shards on all cores).
#[salsa::tracked(returns(clone))]
pub fn identifier_shard(db: &dyn Db, workspace: Workspace, shard: u32) -> Arc<IdentifierShard> {
    let files = shard_files(db, workspace, shard);
    let table = persisted::recorded_shard(
        db,
        RecordKind::IdentifierShard,
        files,
        || word_table(db, files),
        WordTable::encode,
        |bytes| WordTable::decode(bytes, files.len()),
    );
    Arc::new(IdentifierShard {
        files: files.to_vec(),
        table,
    })
}

fn word_table(db: &dyn Db, files: &[SourceFile]) -> WordTable {
    let in_passing = words_read_in_passing(db);
    let words: Vec<Arc<WordSet>> = files
        .iter()
        .map(|&f| match in_passing {
            true => Arc::new(file_identifiers_unkept(db, f)),
            false => file_identifiers(db, f),
        })
        .collect();
    // Each file's words are sorted and distinct: sorting the pairs by word keeps each
    // word's places ascending (a stable sort over files taken in order).
    let mut all: Vec<(&str, u8)> = Vec::new();
    for (place, words) in words.iter().enumerate() {
        all.extend(words.iter().map(|w| (w, place as u8)));
    }
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut table = WordTable::default();
    for group in all.chunk_by(|a, b| a.0 == b.0) {
        table.words.push_str(group[0].0);
        table.word_ends.push(table.words.len() as u32);
        table.places.extend(group.iter().map(|(_, place)| place));
        table.place_ends.push(table.places.len() as u32);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_the_files_with_a_word_starting_each_prefix() {
        let db = crate::db::RootDatabase::default();
        let python = crate::lang::registry().by_id("python").unwrap().lang_id;
        let texts = [
            "alpha = beta",
            "alpine(gamma)",
            "beta.gamma",
            "ALPS",
            "\u{212A}ilo",
        ];
        let files: Vec<SourceFile> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let text = crate::db::StoredText::new(Arc::from(*text));
                SourceFile::new(&db, format!("m{i}.py"), python, text, false)
            })
            .collect();
        let workspace = Workspace::new(&db, "/w".into(), files.clone().into(), Arc::from([]));
        let index = identifier_index(&db, workspace);
        let found_as = |case, prefixes: &[&str]| {
            let prefixes: Vec<String> = prefixes.iter().map(|p| p.to_string()).collect();
            let found = index.files_with_words_starting(&prefixes, case);
            let mut paths: Vec<&str> = found.iter().map(|f| f.path(&db).as_str()).collect();
            paths.sort();
            paths
        };
        let found = |prefixes: &[&str]| found_as(WordCase::Exact, prefixes);
        assert_eq!(found(&["al"]), ["m0.py", "m1.py"]);
        assert_eq!(found(&["al", "ga"]), ["m1.py"]);
        assert_eq!(found(&["gamma", "beta"]), ["m2.py"]);
        assert_eq!(found(&["alphabet"]), Vec::<&str>::new());
        assert_eq!(found(&[]), ["m0.py", "m1.py", "m2.py", "m3.py", "m4.py"]);
        // Without regard to case: `ALPS` too, and a word outside ASCII whatever it is.
        let folded = |prefixes: &[&str]| found_as(WordCase::AsciiFolded, prefixes);
        assert_eq!(folded(&["Al"]), ["m0.py", "m1.py", "m3.py", "m4.py"]);
        assert_eq!(folded(&["alpine", "GAMMA"]), ["m1.py", "m4.py"]);
        assert_eq!(folded(&["alphabet"]), ["m4.py"]);
    }

    #[test]
    fn a_word_set_finds_the_words_a_prefix_starts() {
        let set = WordSet::from_sorted(["join", "joined", "os", "path"]);
        let starts = |p| set.has_word_starting_with(p);
        assert_eq!(
            [
                "jo", "join", "joine", "joint", "o", "p", "pathname", "", "z", "a"
            ]
            .map(starts),
            [
                true, true, true, false, true, true, false, true, false, false
            ]
        );
        assert!(!WordSet::default().has_word_starting_with(""));
        let contains = |w| set.contains(w);
        assert_eq!(
            ["join", "joined", "jo", "joint", "a", "path", "paths", ""].map(contains),
            [true, true, false, false, false, true, false, false]
        );
    }

    #[test]
    fn words_are_identifier_shaped() {
        let found: Vec<&str> = words("os.path.join(a1, 2x, $el, _p, naïve) # note").collect();
        assert_eq!(
            found,
            ["os", "path", "join", "a1", "$el", "_p", "naïve", "note"]
        );
    }

    #[test]
    fn a_word_table_reads_back_from_its_record_and_a_bad_one_is_refused() {
        let table = WordTable {
            words: "abcnaïve".into(),
            word_ends: vec![1, 3, 8],
            places: vec![0, 2, 1, 0, 1],
            place_ends: vec![2, 3, 5],
        };
        assert_eq!(table.find("bc"), Some(1));
        assert_eq!(table.find("b"), None);
        let bytes = table.encode();
        assert_eq!(WordTable::decode(&bytes, 3), Some(table));
        assert_eq!(WordTable::decode(&bytes, 2), None, "a place past the files");
        for len in 0..bytes.len() {
            assert_eq!(WordTable::decode(&bytes[..len], 3), None, "cut at {len}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x80;
            if let Some(t) = WordTable::decode(&flipped, 3) {
                for i in 0..t.word_ends.len() {
                    let _ = (t.find(t.word(i)), &t.places[span(&t.place_ends, i)]);
                }
            }
        }
    }
}
