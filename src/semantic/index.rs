//! The workspace symbol index and its ranked fuzzy search.
//!
//! The index depends only on the position-free summaries of each file, so an edit that
//! moves symbols around without renaming them leaves it valid (early cutoff).
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
    entries: Range<u32>,
}

/// Every symbol of the workspace, grouped by distinct name.
#[derive(Default)]
pub struct SymbolIndex {
    names: Vec<IndexedName>,
    entries: Vec<IndexEntry>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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
    let mut all: Vec<(&str, IndexEntry)> = Vec::new();
    let files = workspace.files(db);
    let summaries: Vec<_> = files.iter().map(|&f| (f, symbol_summaries(db, f))).collect();
    for (file, symbols) in &summaries {
        let lang = file.lang(db);
        for (i, s) in symbols.iter().enumerate() {
            all.push((&s.name, IndexEntry { file: *file, symbol: i as u32, kind: s.kind, lang }));
        }
    }
    // Stable: within a name, entries stay in workspace order.
    all.sort_by(|a, b| a.0.cmp(b.0));
    let mut index = SymbolIndex { names: Vec::new(), entries: Vec::with_capacity(all.len()) };
    let mut i = 0;
    while i < all.len() {
        let name = all[i].0;
        let start = index.entries.len() as u32;
        while i < all.len() && all[i].0 == name {
            index.entries.push(all[i].1);
            i += 1;
        }
        let lower = name.to_lowercase();
        index.names.push(IndexedName {
            mask: char_mask(&lower),
            lower: lower.into(),
            name: name.into(),
            entries: start..index.entries.len() as u32,
        });
    }
    Arc::new(index)
}

impl SymbolIndex {
    pub fn symbol_count(&self) -> usize {
        self.entries.len()
    }

    pub fn distinct_names(&self) -> usize {
        self.names.len()
    }

    /// Ranked search. `keep` filters entries (kind, language, path) before counting.
    pub fn search(&self, query: &str, limit: usize, keep: impl Fn(&IndexEntry) -> bool) -> SearchResult {
        let query = query.trim();
        let lower = query.to_lowercase();
        let mask = char_mask(&lower);
        let compact: String = lower.chars().filter(|c| !is_separator(*c)).collect();
        let mut scored: Vec<(MatchTier, u32, u32)> = Vec::new();
        for (name_index, n) in self.names.iter().enumerate() {
            if n.mask & mask != mask {
                continue;
            }
            let Some(tier) = match_tier(query, &lower, &compact, n) else { continue };
            for e in n.entries.clone() {
                if keep(&self.entries[e as usize]) {
                    scored.push((tier, name_index as u32, e));
                }
            }
        }
        let total = scored.len();
        let key = |&(tier, name, entry): &(MatchTier, u32, u32)| {
            (tier, self.names[name as usize].name.len(), name, entry)
        };
        if scored.len() > limit && limit > 0 {
            scored.select_nth_unstable_by_key(limit - 1, key);
            scored.truncate(limit);
        }
        scored.truncate(limit);
        scored.sort_unstable_by_key(key);
        SearchResult {
            hits: scored
                .into_iter()
                .map(|(tier, _, e)| SearchHit { entry: self.entries[e as usize], tier })
                .collect(),
            total,
        }
    }
}

fn match_tier(query: &str, lower_query: &str, compact: &str, n: &IndexedName) -> Option<MatchTier> {
    if lower_query.is_empty() {
        return Some(MatchTier::Exact);
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
    if !compact.is_empty() && word_starts_match(&n.name, compact) {
        return Some(MatchTier::WordStarts);
    }
    if n.lower.contains(lower_query) {
        return Some(MatchTier::Substring);
    }
    if is_subsequence(lower_query, &n.lower) {
        return Some(MatchTier::Subsequence);
    }
    None
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
fn words(name: &str) -> Vec<String> {
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
            Some(p) if c.is_uppercase() && p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()) => true,
            Some(p) if c.is_ascii_digit() != p.is_ascii_digit() && p.is_alphabetic() && !c.is_ascii_digit() => true,
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

/// Can `query` be split into pieces that are prefixes of words of `name`, in order
/// (words may be skipped)?
fn word_starts_match(name: &str, query: &str) -> bool {
    let words = words(name);
    if words.len() < 2 {
        return false;
    }
    fn go(words: &[String], query: &str) -> bool {
        if query.is_empty() {
            return true;
        }
        for (i, w) in words.iter().enumerate() {
            let common = w.chars().zip(query.chars()).take_while(|(a, b)| a == b).count();
            // Longest piece first; every shorter piece is also a prefix.
            for len in (1..=common).rev() {
                let cut = query.char_indices().nth(len).map_or(query.len(), |(b, _)| b);
                if go(&words[i + 1..], &query[cut..]) {
                    return true;
                }
            }
        }
        false
    }
    go(&words, query)
}

fn is_subsequence(query: &str, name: &str) -> bool {
    let mut name_chars = name.chars();
    query.chars().all(|q| name_chars.any(|c| c == q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_splitting() {
        assert_eq!(words("getHTTPServer_v2"), ["get", "http", "server", "v2"]);
        assert_eq!(words("__init__"), ["init"]);
        assert_eq!(words("SymbolIndex"), ["symbol", "index"]);
    }

    #[test]
    fn word_starts() {
        assert!(word_starts_match("get_symbol_index", "gsi"));
        assert!(word_starts_match("getSymbolIndex", "getsym"));
        assert!(word_starts_match("get_symbol_index", "symidx") == false);
        assert!(word_starts_match("get_symbol_index", "symind"));
        assert!(!word_starts_match("get_symbol_index", "gxi"));
        assert!(!word_starts_match("parse", "pa"));
    }

    #[test]
    fn subsequence() {
        assert!(is_subsequence("gsx", "get_symbol_index"));
        assert!(!is_subsequence("xg", "get_symbol_index"));
    }
}
