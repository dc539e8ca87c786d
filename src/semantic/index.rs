//! The workspace symbol index and its ranked fuzzy search.
//!
//! The index depends only on the position-free summaries of each file, so an edit that
//! moves symbols around without renaming them leaves it valid (early cutoff). It is kept in
//! shards of [`SHARD_FILES`] consecutive files, merged at query time: an edit that adds or
//! renames a definition rebuilds its file's shard, whatever the workspace's size.
//!
//! Ranking, best first: exact name (same case first), prefix, word starts (`gsi` or
//! `getsym` for `get_symbol_index` / `getSymbolIndex`), substring, subsequence. Within a
//! tier shorter names win; ties keep workspace order (path, then position).

use std::sync::Arc;

use serde::Serialize;

use super::{
    codec::{self, span},
    persisted,
    symbols::{SymbolKind, symbol_summaries},
};
use crate::{
    db::{Db, RecordKind, SourceFile, Workspace},
    lang::LangId,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub file: SourceFile,
    /// Index into the file's symbols.
    pub symbol: u32,
    pub kind: SymbolKind,
    pub lang: LangId,
}

/// Files per shard: rebuilding one costs well under a millisecond. At most 256, so that a
/// shard names its files by one byte.
pub const SHARD_FILES: usize = 256;
const _: () = assert!(SHARD_FILES <= 256);

/// Every symbol of the workspace, in shards of consecutive files (in workspace order).
#[derive(Default)]
pub struct SymbolIndex {
    shards: Vec<Arc<IndexShard>>,
}

/// The symbols of some consecutive files of the workspace, grouped by distinct name.
pub struct IndexShard {
    /// The shard's files, in workspace order, with their languages.
    files: Vec<(SourceFile, LangId)>,
    names: NameTable,
}

/// The distinct names of a shard in sorted order, each with its search keys and its
/// definitions, as a few flat arrays (what a record holds: see [`NameTable::encode`]).
#[derive(Default, Debug, PartialEq, Eq)]
struct NameTable {
    /// The names, concatenated; `name_ends[i]` ends name `i`.
    names: String,
    name_ends: Vec<u32>,
    /// Each name lowercased, concatenated.
    lower: String,
    lower_ends: Vec<u32>,
    /// Each name's words, lowercased and concatenated (`getHTTPServer` → `gethttpserver`),
    /// so word-start matching needs no allocation; `word_ends` holds, per name, the end of
    /// each of its words within its own words (`word_ends_ends` ends each name's list).
    words: String,
    words_ends: Vec<u32>,
    word_ends: Vec<u16>,
    word_ends_ends: Vec<u32>,
    /// A bit per character class (see [`char_mask`]) of each lowercased name.
    masks: Vec<u64>,
    /// Each name's definitions, in workspace order; `entry_ends[i]` ends name `i`'s.
    entries: Vec<ShardEntry>,
    entry_ends: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShardEntry {
    /// The file's place in its shard.
    file: u8,
    kind: SymbolKind,
    /// Index into the file's symbols.
    symbol: u32,
}

/// One name of a [`NameTable`], borrowed.
struct IndexedName<'a> {
    name: &'a str,
    lower: &'a str,
    words: &'a str,
    word_ends: &'a [u16],
    entries: &'a [ShardEntry],
}

impl NameTable {
    fn len(&self) -> usize {
        self.name_ends.len()
    }

    fn name(&self, i: usize) -> IndexedName<'_> {
        IndexedName {
            name: &self.names[span(&self.name_ends, i)],
            lower: &self.lower[span(&self.lower_ends, i)],
            words: &self.words[span(&self.words_ends, i)],
            word_ends: &self.word_ends[span(&self.word_ends_ends, i)],
            entries: &self.entries[span(&self.entry_ends, i)],
        }
    }

    /// Adds a name (greater than every name before it) and its definitions.
    fn push(&mut self, name: &str, entries: impl Iterator<Item = ShardEntry>) {
        self.names.push_str(name);
        self.name_ends.push(self.names.len() as u32);
        let lower = name.to_lowercase();
        self.masks.push(char_mask(&lower));
        self.lower.push_str(&lower);
        self.lower_ends.push(self.lower.len() as u32);
        let words_start = self.words.len();
        for word in split_words(name) {
            self.words.push_str(&word);
            let end = self.words.len() - words_start;
            self.word_ends.push(u16::try_from(end).unwrap_or(u16::MAX));
        }
        self.words_ends.push(self.words.len() as u32);
        self.word_ends_ends.push(self.word_ends.len() as u32);
        self.entries.extend(entries);
        self.entry_ends.push(self.entries.len() as u32);
    }

    /// Gives back the spare capacity the pushes left: a shard is kept for the session.
    fn shrink_to_fit(&mut self) {
        for text in [&mut self.names, &mut self.lower, &mut self.words] {
            text.shrink_to_fit();
        }
        for ends in [
            &mut self.name_ends,
            &mut self.lower_ends,
            &mut self.words_ends,
            &mut self.word_ends_ends,
            &mut self.entry_ends,
        ] {
            ends.shrink_to_fit();
        }
        self.word_ends.shrink_to_fit();
        self.masks.shrink_to_fit();
        self.entries.shrink_to_fit();
    }

    fn encode(&self) -> Vec<u8> {
        let mut w = codec::Writer::default();
        w.str(&self.names);
        w.u32s(&self.name_ends);
        w.str(&self.lower);
        w.u32s(&self.lower_ends);
        w.str(&self.words);
        w.u32s(&self.words_ends);
        w.u16s(&self.word_ends);
        w.u32s(&self.word_ends_ends);
        w.u64s(&self.masks);
        let mut entries = Vec::with_capacity(self.entries.len() * 2);
        for e in &self.entries {
            entries.push(u32::from(e.file) << 8 | e.kind as u32);
            entries.push(e.symbol);
        }
        w.u32s(&entries);
        w.u32s(&self.entry_ends);
        w.finish()
    }

    /// What [`NameTable::encode`] wrote for a shard of `files` files; `None` unless every
    /// span lies within its text at character boundaries and every entry names one of the
    /// files and a kind, so that no lookup in the table can panic.
    fn decode(bytes: &[u8], files: usize) -> Option<NameTable> {
        let mut r = codec::Reader::new(bytes);
        let mut table = NameTable {
            names: r.string()?,
            name_ends: r.u32s()?,
            lower: r.string()?,
            lower_ends: r.u32s()?,
            words: r.string()?,
            words_ends: r.u32s()?,
            word_ends: r.u16s()?,
            word_ends_ends: r.u32s()?,
            masks: r.u64s()?,
            ..NameTable::default()
        };
        let entries = r.u32s()?;
        table.entry_ends = r.u32s()?;
        if !r.is_done() || entries.len() % 2 != 0 {
            return None;
        }
        table.entries.reserve_exact(entries.len() / 2);
        for pair in entries.chunks_exact(2) {
            let file = u8::try_from(pair[0] >> 8).ok()?;
            let kind = *SymbolKind::ALL.get((pair[0] & 0xff) as usize)?;
            if usize::from(file) >= files {
                return None;
            }
            table.entries.push(ShardEntry {
                file,
                kind,
                symbol: pair[1],
            });
        }
        let names = table.len();
        let at_boundaries = |text: &str, ends: &[u32]| {
            codec::valid_ends(ends, text.len())
                && ends.iter().all(|&e| text.is_char_boundary(e as usize))
        };
        let whole = [
            &table.lower_ends,
            &table.words_ends,
            &table.word_ends_ends,
            &table.entry_ends,
        ]
        .iter()
        .all(|ends| ends.len() == names)
            && table.masks.len() == names
            && at_boundaries(&table.names, &table.name_ends)
            && at_boundaries(&table.lower, &table.lower_ends)
            && at_boundaries(&table.words, &table.words_ends)
            && codec::valid_ends(&table.word_ends_ends, table.word_ends.len())
            && codec::valid_ends(&table.entry_ends, table.entries.len())
            && (0..names).all(|i| {
                let words = &table.words[span(&table.words_ends, i)];
                at_boundaries_u16(words, &table.word_ends[span(&table.word_ends_ends, i)])
            });
        whole.then_some(table)
    }
}

/// Whether `ends` (of words within `text`) are non-decreasing character boundaries of it.
fn at_boundaries_u16(text: &str, ends: &[u16]) -> bool {
    ends.windows(2).all(|w| w[0] <= w[1])
        && ends
            .iter()
            .all(|&e| (e as usize) <= text.len() && text.is_char_boundary(e as usize))
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MatchTier {
    Exact,
    ExactIgnoreCase,
    Prefix,
    WordStarts,
    Substring,
    Subsequence,
}

#[derive(Clone, Copy, Debug)]
pub struct SearchHit {
    pub entry: IndexEntry,
    pub tier: MatchTier,
}

pub struct SearchResult {
    /// The best hits, at most `limit`.
    pub hits: Vec<SearchHit>,
    /// How many symbols matched in all.
    pub total: usize,
}

#[salsa::tracked(returns(clone), no_eq)]
pub fn symbol_index(db: &dyn Db, workspace: Workspace) -> Arc<SymbolIndex> {
    let every = shard_count(db, workspace);
    Arc::new(SymbolIndex::first_shards(db, workspace, every))
}

impl SymbolIndex {
    /// The index of the workspace's first `shards` shards (those of the files
    /// `0..shards * SHARD_FILES`), each computed unless memoized.
    pub fn first_shards(db: &dyn Db, workspace: Workspace, shards: u32) -> SymbolIndex {
        SymbolIndex {
            shards: (0..shards.min(shard_count(db, workspace)))
                .map(|k| symbol_shard(db, workspace, k))
                .collect(),
        }
    }
}

/// How many shards the workspace's files make.
pub fn shard_count(db: &dyn Db, workspace: Workspace) -> u32 {
    workspace.files(db).len().div_ceil(SHARD_FILES) as u32
}

/// The workspace's files `shard * SHARD_FILES..`, at most [`SHARD_FILES`] of them.
pub fn shard_files(db: &dyn Db, workspace: Workspace, shard: u32) -> &[SourceFile] {
    let files = workspace.files(db);
    let first = (shard as usize * SHARD_FILES).min(files.len());
    let last = (first + SHARD_FILES).min(files.len());
    &files[first..last]
}

/// The shard holding the workspace's files `shard * SHARD_FILES..` (public so that
/// priming can build the shards on all cores).
#[salsa::tracked(returns(clone), no_eq)]
pub fn symbol_shard(db: &dyn Db, workspace: Workspace, shard: u32) -> Arc<IndexShard> {
    let files = shard_files(db, workspace, shard);
    let names = persisted::recorded_shard(
        db,
        RecordKind::SymbolShard,
        files,
        || name_table(db, files),
        NameTable::encode,
        |bytes| NameTable::decode(bytes, files.len()),
    );
    Arc::new(IndexShard {
        files: files.iter().map(|&f| (f, f.lang(db))).collect(),
        names,
    })
}

fn name_table(db: &dyn Db, files: &[SourceFile]) -> NameTable {
    let summaries: Vec<_> = files.iter().map(|&f| symbol_summaries(db, f)).collect();
    let mut all: Vec<(&str, ShardEntry)> = Vec::new();
    for (file, symbols) in summaries.iter().enumerate() {
        for (i, s) in symbols.iter().enumerate() {
            let entry = ShardEntry {
                file: file as u8,
                kind: s.kind,
                symbol: i as u32,
            };
            all.push((&s.name, entry));
        }
    }
    // Stable: within a name, entries stay in workspace order.
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut table = NameTable::default();
    for group in all.chunk_by(|a, b| a.0 == b.0) {
        table.push(group[0].0, group.iter().map(|(_, e)| *e));
    }
    table.shrink_to_fit();
    table
}

impl IndexShard {
    fn entry(&self, e: &ShardEntry) -> IndexEntry {
        let (file, lang) = self.files[usize::from(e.file)];
        IndexEntry {
            file,
            symbol: e.symbol,
            kind: e.kind,
            lang,
        }
    }
}

impl SymbolIndex {
    pub fn symbol_count(&self) -> usize {
        self.shards.iter().map(|s| s.names.entries.len()).sum()
    }

    /// Every symbol, by shard and then by name (not in workspace order).
    pub fn entries(&self) -> impl Iterator<Item = IndexEntry> + '_ {
        self.shards
            .iter()
            .flat_map(|shard| shard.names.entries.iter().map(|e| shard.entry(e)))
    }

    /// The definitions of exactly `name`, in workspace order: a binary search of each
    /// shard's sorted names, not a ranked search.
    pub fn definitions_of(&self, name: &str) -> Vec<IndexEntry> {
        let mut found = Vec::new();
        for shard in &self.shards {
            let table = &shard.names;
            let at = partition_point(table.len(), |i| table.name(i).name < name);
            if at < table.len() && table.name(at).name == name {
                found.extend(table.name(at).entries.iter().map(|e| shard.entry(e)));
            }
        }
        found
    }

    /// Ranked search. `keep` filters entries (kind, language, path) before counting.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        keep: impl Fn(&IndexEntry) -> bool,
    ) -> SearchResult {
        let query = query.trim();
        let lower = query.to_lowercase();
        let mask = char_mask(&lower);
        let compact: String = lower.chars().filter(|c| !is_separator(*c)).collect();
        // Rank distinct names first (far fewer than symbols), then walk their entries in
        // order: the first `limit` kept entries are the answer, all kept ones the total. A
        // name in several shards is walked shard by shard, which is workspace order.
        let mut ranked: Vec<(MatchTier, usize, &str, u32, u32)> = Vec::new();
        for (shard_index, shard) in self.shards.iter().enumerate() {
            let table = &shard.names;
            for (name_index, &name_mask) in table.masks.iter().enumerate() {
                if name_mask & mask != mask {
                    continue;
                }
                let n = table.name(name_index);
                if let Some(tier) = match_tier(query, &lower, &compact, &n) {
                    ranked.push((
                        tier,
                        n.name.len(),
                        n.name,
                        shard_index as u32,
                        name_index as u32,
                    ));
                }
            }
        }
        ranked.sort_unstable();
        let mut hits = Vec::new();
        let mut total = 0;
        for (tier, _, _, shard_index, name_index) in ranked {
            let shard = &self.shards[shard_index as usize];
            for e in shard.names.name(name_index as usize).entries {
                let entry = shard.entry(e);
                if keep(&entry) {
                    total += 1;
                    if hits.len() < limit {
                        hits.push(SearchHit { entry, tier });
                    }
                }
            }
        }
        SearchResult { hits, total }
    }
}

/// The first of `0..len` for which `before` is false, `before` being true up to some point
/// and false after it.
fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        match before(middle) {
            true => low = middle + 1,
            false => high = middle,
        }
    }
    low
}

/// A distinct name of the index having some words of a question, as
/// [`SymbolIndex::names_with_words`] finds it.
pub struct WordMatch<'a> {
    pub name: &'a str,
    /// Bit `i`: one of the name's words has the stem `stems[i]`.
    pub words: u64,
    /// How many words the name has.
    pub word_count: usize,
    /// Its definitions, in workspace order.
    pub entries: Vec<IndexEntry>,
}

impl SymbolIndex {
    /// The distinct names one of whose words has a stem among `stems` (at most 64, each
    /// from [`word_stem`]); per stem, how many distinct names have it; and how many
    /// distinct names there are.
    pub fn names_with_words(&self, stems: &[&str]) -> (Vec<WordMatch<'_>>, Vec<usize>, usize) {
        let stems = &stems[..stems.len().min(64)];
        let mut found: Vec<WordMatch<'_>> = Vec::new();
        let mut by_name: std::collections::HashMap<&str, usize> = Default::default();
        let mut names = 0;
        for shard in &self.shards {
            for name_index in 0..shard.names.len() {
                let n = shard.names.name(name_index);
                let mut words = 0u64;
                let mut start = 0;
                for &end in n.word_ends {
                    let word = n.words.get(start..end as usize).unwrap_or_default();
                    start = end as usize;
                    let stem = word_stem(word);
                    for (i, &wanted) in stems.iter().enumerate() {
                        if stem == wanted {
                            words |= 1 << i;
                        }
                    }
                }
                let entries = n.entries.iter().map(|e| shard.entry(e));
                match by_name.get(n.name) {
                    Some(&at) => found[at].entries.extend(entries),
                    None => {
                        names += 1;
                        if words != 0 {
                            by_name.insert(n.name, found.len());
                            found.push(WordMatch {
                                name: n.name,
                                words,
                                word_count: n.word_ends.len(),
                                entries: entries.collect(),
                            });
                        }
                    }
                }
            }
        }
        let counts = (0..stems.len())
            .map(|i| found.iter().filter(|m| m.words & (1 << i) != 0).count())
            .collect();
        (found, counts, names)
    }
}

/// A lowercased word without its commonest English endings, so that a question's
/// `queued actions` meets `queue_action`: `flushes`, `flushed`, `flushing` → `flush`;
/// `queue`, `queued`, `queues` → `queu`.
pub fn word_stem(word: &str) -> &str {
    let mut stem = word;
    for (suffix, min_len) in [("ing", 6), ("ed", 5), ("es", 5)] {
        if stem.len() >= min_len
            && let Some(rest) = stem.strip_suffix(suffix)
        {
            stem = rest;
            break;
        }
    }
    if stem.len() == word.len()
        && stem.len() >= 4
        && !stem.ends_with("ss")
        && let Some(rest) = stem.strip_suffix('s')
    {
        stem = rest;
    }
    match stem.len() >= 4 {
        true => stem.strip_suffix('e').unwrap_or(stem),
        false => stem,
    }
}

fn match_tier(
    query: &str,
    lower_query: &str,
    compact: &str,
    n: &IndexedName<'_>,
) -> Option<MatchTier> {
    if lower_query.is_empty() {
        return Some(MatchTier::Exact);
    }
    // Every tier implies a subsequence match; most names fail here, cheaply.
    if !is_subsequence(lower_query, n.lower) {
        return None;
    }
    if n.name == query {
        return Some(MatchTier::Exact);
    }
    if n.lower == lower_query {
        return Some(MatchTier::ExactIgnoreCase);
    }
    if n.lower.starts_with(lower_query) {
        return Some(MatchTier::Prefix);
    }
    if !compact.is_empty() && n.word_ends.len() >= 2 && word_starts_match(n, compact) {
        return Some(MatchTier::WordStarts);
    }
    if n.lower.contains(lower_query) {
        return Some(MatchTier::Substring);
    }
    Some(MatchTier::Subsequence)
}

fn is_separator(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | '$' | ':' | ' ')
}

/// A bit per ASCII letter, digit and `_`: a name can only match a query whose bits it has.
fn char_mask(lower: &str) -> u64 {
    let mut mask = 0u64;
    for b in lower.bytes() {
        let bit = match b {
            b'a'..=b'z' => b - b'a',
            b'0'..=b'9' => 26 + (b - b'0'),
            b'_' => 36,
            _ => continue,
        };
        mask |= 1 << bit;
    }
    mask
}

/// Lowercased words of an identifier: `getHTTPServer_v2` → `get`, `http`, `server`, `v2`.
pub(crate) fn split_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if is_separator(c) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if c.is_uppercase() && p.is_lowercase() => true,
            Some(p)
                if c.is_uppercase()
                    && p.is_uppercase()
                    && next.is_some_and(|n| n.is_lowercase()) =>
            {
                true
            }
            Some(p)
                if c.is_ascii_digit() != p.is_ascii_digit()
                    && p.is_alphabetic()
                    && !c.is_ascii_digit() =>
            {
                true
            }
            _ => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Can `query` be split into pieces that are prefixes of the name's words, in order
/// (words may be skipped)?
fn word_starts_match(n: &IndexedName<'_>, query: &str) -> bool {
    fn go(words: &str, ends: &[u16], from_word: usize, query: &str) -> bool {
        if query.is_empty() {
            return true;
        }
        for i in from_word..ends.len() {
            let start = if i == 0 { 0 } else { ends[i - 1] as usize };
            let word = &words[start..ends[i] as usize];
            let common: usize = word
                .chars()
                .zip(query.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.len_utf8())
                .sum();
            // Longest piece first; every shorter piece is also a prefix.
            let mut cut = common;
            while cut > 0 {
                if query.is_char_boundary(cut) && go(words, ends, i + 1, &query[cut..]) {
                    return true;
                }
                cut -= 1;
            }
        }
        false
    }
    go(n.words, n.word_ends, 0, query)
}

fn is_subsequence(query: &str, name: &str) -> bool {
    if query.is_ascii() {
        // ASCII bytes never occur inside multi-byte characters: compare bytes.
        let mut rest = name.as_bytes();
        for &q in query.as_bytes() {
            match rest.iter().position(|&b| b == q) {
                Some(i) => rest = &rest[i + 1..],
                None => return false,
            }
        }
        return true;
    }
    let mut name_chars = name.chars();
    query.chars().all(|q| name_chars.any(|c| c == q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(name: &str) -> NameTable {
        let mut table = NameTable::default();
        table.push(name, std::iter::empty());
        table
    }

    #[test]
    fn a_name_table_reads_back_from_its_record_and_a_bad_one_is_refused() {
        let mut table = NameTable::default();
        let entry = |file, symbol| ShardEntry {
            file,
            kind: SymbolKind::Method,
            symbol,
        };
        table.push("getHTTPServer", [entry(0, 3), entry(1, 0)].into_iter());
        table.push("naïve_wörd", [entry(1, 7)].into_iter());
        let bytes = table.encode();
        assert_eq!(NameTable::decode(&bytes, 2), Some(table));
        // An entry naming a file the shard does not have.
        assert_eq!(NameTable::decode(&bytes, 1), None);
        for len in 0..bytes.len() {
            assert_eq!(NameTable::decode(&bytes[..len], 2), None, "cut at {len}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x80;
            // Whatever decodes must be usable without a panic.
            if let Some(t) = NameTable::decode(&flipped, 2) {
                for i in 0..t.len() {
                    let n = t.name(i);
                    let _ = word_starts_match(&n, "gh");
                }
            }
        }
    }

    #[test]
    fn word_splitting() {
        assert_eq!(
            split_words("getHTTPServer_v2"),
            ["get", "http", "server", "v2"]
        );
        assert_eq!(split_words("__init__"), ["init"]);
        assert_eq!(split_words("SymbolIndex"), ["symbol", "index"]);
    }

    #[test]
    fn word_starts() {
        assert!(word_starts_match(
            &indexed("get_symbol_index").name(0),
            "gsi"
        ));
        assert!(word_starts_match(
            &indexed("getSymbolIndex").name(0),
            "getsym"
        ));
        assert!(!word_starts_match(
            &indexed("get_symbol_index").name(0),
            "symidx"
        ));
        assert!(word_starts_match(
            &indexed("get_symbol_index").name(0),
            "symind"
        ));
        assert!(!word_starts_match(
            &indexed("get_symbol_index").name(0),
            "gxi"
        ));
        assert!(word_starts_match(&indexed("Ünïcode_wörd").name(0), "üw"));
    }

    #[test]
    fn stems() {
        fn stem<'a>(words: &[&'a str]) -> Vec<&'a str> {
            words.iter().map(|w| word_stem(w)).collect()
        }
        assert_eq!(
            stem(&["flush", "flushes", "flushed", "flushing"]),
            ["flush"; 4]
        );
        assert_eq!(stem(&["queue", "queued", "queues"]), ["queu"; 3]);
        assert_eq!(
            stem(&["action", "actions", "class", "classes"]),
            ["action", "action", "class", "class"]
        );
        assert_eq!(stem(&["use", "is", "io"]), ["use", "is", "io"]);
    }

    #[test]
    fn subsequence() {
        assert!(is_subsequence("gsx", "get_symbol_index"));
        assert!(!is_subsequence("xg", "get_symbol_index"));
    }
}
