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

use std::{ops::Range, sync::Arc};

use serde::Serialize;

use super::symbols::{SymbolKind, symbol_summaries};
use crate::{
    db::{Db, SourceFile, Workspace},
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

struct IndexedName {
    name: Box<str>,
    lower: Box<str>,
    mask: u64,
    /// The name's words, lowercased and concatenated (`getHTTPServer` → `gethttpserver`),
    /// with the end offset of each word: word-start matching needs no allocation.
    words: Box<str>,
    word_ends: Box<[u16]>,
    entries: Range<u32>,
}

/// Files per shard: rebuilding one costs well under a millisecond.
pub const SHARD_FILES: usize = 256;

/// Every symbol of the workspace, in shards of consecutive files (in workspace order).
#[derive(Default)]
pub struct SymbolIndex {
    shards: Vec<Arc<IndexShard>>,
}

/// The symbols of some consecutive files of the workspace, grouped by distinct name.
#[derive(Default)]
struct IndexShard {
    names: Vec<IndexedName>,
    entries: Vec<IndexEntry>,
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
    let shards = workspace.files(db).len().div_ceil(SHARD_FILES) as u32;
    Arc::new(SymbolIndex {
        shards: (0..shards)
            .map(|k| symbol_shard(db, workspace, k))
            .collect(),
    })
}

/// The shard holding the workspace's files `shard * SHARD_FILES..`.
#[salsa::tracked(returns(clone), no_eq)]
fn symbol_shard(db: &dyn Db, workspace: Workspace, shard: u32) -> Arc<IndexShard> {
    let mut all: Vec<(&str, IndexEntry)> = Vec::new();
    let files = workspace.files(db);
    let first = (shard as usize * SHARD_FILES).min(files.len());
    let last = (first + SHARD_FILES).min(files.len());
    let summaries: Vec<_> = files[first..last]
        .iter()
        .map(|&f| (f, symbol_summaries(db, f)))
        .collect();
    for (file, symbols) in &summaries {
        let lang = file.lang(db);
        for (i, s) in symbols.iter().enumerate() {
            all.push((
                &s.name,
                IndexEntry {
                    file: *file,
                    symbol: i as u32,
                    kind: s.kind,
                    lang,
                },
            ));
        }
    }
    // Stable: within a name, entries stay in workspace order.
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut index = IndexShard {
        names: Vec::new(),
        entries: Vec::with_capacity(all.len()),
    };
    let mut i = 0;
    while i < all.len() {
        let name = all[i].0;
        let start = index.entries.len() as u32;
        while i < all.len() && all[i].0 == name {
            index.entries.push(all[i].1);
            i += 1;
        }
        let lower = name.to_lowercase();
        let mut words = String::new();
        let mut word_ends = Vec::new();
        for word in split_words(name) {
            words.push_str(&word);
            word_ends.push(u16::try_from(words.len()).unwrap_or(u16::MAX));
        }
        index.names.push(IndexedName {
            mask: char_mask(&lower),
            lower: lower.into(),
            words: words.into(),
            word_ends: word_ends.into(),
            name: name.into(),
            entries: start..index.entries.len() as u32,
        });
    }
    Arc::new(index)
}

impl SymbolIndex {
    pub fn symbol_count(&self) -> usize {
        self.shards.iter().map(|s| s.entries.len()).sum()
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
            for (name_index, n) in shard.names.iter().enumerate() {
                if n.mask & mask != mask {
                    continue;
                }
                if let Some(tier) = match_tier(query, &lower, &compact, n) {
                    ranked.push((
                        tier,
                        n.name.len(),
                        &n.name,
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
            for e in shard.names[name_index as usize].entries.clone() {
                let entry = &shard.entries[e as usize];
                if keep(entry) {
                    total += 1;
                    if hits.len() < limit {
                        hits.push(SearchHit {
                            entry: *entry,
                            tier,
                        });
                    }
                }
            }
        }
        SearchResult { hits, total }
    }
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
            for n in &shard.names {
                let mut words = 0u64;
                let mut start = 0;
                for &end in n.word_ends.iter() {
                    let word = n.words.get(start..end as usize).unwrap_or_default();
                    start = end as usize;
                    let stem = word_stem(word);
                    for (i, &wanted) in stems.iter().enumerate() {
                        if stem == wanted {
                            words |= 1 << i;
                        }
                    }
                }
                let entries = &shard.entries[n.entries.start as usize..n.entries.end as usize];
                match by_name.get(&*n.name) {
                    Some(&at) => found[at].entries.extend_from_slice(entries),
                    None => {
                        names += 1;
                        if words != 0 {
                            by_name.insert(&n.name, found.len());
                            found.push(WordMatch {
                                name: &n.name,
                                words,
                                word_count: n.word_ends.len(),
                                entries: entries.to_vec(),
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

fn match_tier(query: &str, lower_query: &str, compact: &str, n: &IndexedName) -> Option<MatchTier> {
    if lower_query.is_empty() {
        return Some(MatchTier::Exact);
    }
    // Every tier implies a subsequence match; most names fail here, cheaply.
    if !is_subsequence(lower_query, &n.lower) {
        return None;
    }
    if &*n.name == query {
        return Some(MatchTier::Exact);
    }
    if *n.lower == *lower_query {
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
fn word_starts_match(n: &IndexedName, query: &str) -> bool {
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
    go(&n.words, &n.word_ends, 0, query)
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

    fn indexed(name: &str) -> IndexedName {
        let mut words = String::new();
        let mut word_ends = Vec::new();
        for w in split_words(name) {
            words.push_str(&w);
            word_ends.push(words.len() as u16);
        }
        IndexedName {
            name: name.into(),
            lower: name.to_lowercase().into(),
            mask: char_mask(&name.to_lowercase()),
            words: words.into(),
            word_ends: word_ends.into(),
            entries: 0..0,
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
        assert!(word_starts_match(&indexed("get_symbol_index"), "gsi"));
        assert!(word_starts_match(&indexed("getSymbolIndex"), "getsym"));
        assert!(!word_starts_match(&indexed("get_symbol_index"), "symidx"));
        assert!(word_starts_match(&indexed("get_symbol_index"), "symind"));
        assert!(!word_starts_match(&indexed("get_symbol_index"), "gxi"));
        assert!(word_starts_match(&indexed("Ünïcode_wörd"), "üw"));
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
