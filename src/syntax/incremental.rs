//! Incremental reparsing for files being edited.
//!
//! A [`TreeCache`] (one per database, shared by its snapshots) keeps the last tree-sitter
//! tree of a few recently parsed files (keyed by the caller's file id) and,
//! when a file's text changes, describes the change to tree-sitter as one edit (common
//! prefix and suffix) so that it reuses the unchanged parts. tree-sitter guarantees the same
//! tree as a fresh parse, so callers see no difference except speed. It also remembers the
//! last few texts whose parse exceeded its budget, so that a pathological file costs one
//! budget, not one per query that reads its tree. Beside a file's tree it keeps the
//! lossless tree built from it, once an editor feature asked for one ([`TreeCache::lossless`]),
//! under the same bounds.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicU64, Ordering},
};

use tree_sitter::{InputEdit, Point, Tree};

use super::{Interrupt, Parse, floor_char_boundary, parse_tree_sitter};
use crate::lang::{LangId, Language};

/// Files kept: the ones an editor has open and is typing in.
const CAPACITY: usize = 16;
/// The texts of the trees kept, in bytes, beyond which the oldest unpinned trees go even
/// when fewer than [`CAPACITY`]. A tree takes 13 to 100 times its text (measured with the
/// allocator's counters: 25 times for most files, 70 to 100 times for Rust files made of
/// macro calls, whose token trees are all nodes). At 2 MiB, the last trees of one crate's
/// generated tests held 160 MB, the largest part of a server's peak; 256 KiB still keeps
/// sixteen files of a usual size. The newest tree is kept whatever its size, as are pinned
/// ones. An entry that also keeps a lossless tree counts a quarter more: lossless trees took
/// 6.3 and 7.1 times their text where tree-sitter trees took 23.7 and 27.5 (400 Python
/// files, 400 Rust files: `benches/tree_memory.rs`).
const TEXT_BYTES: usize = 256 << 10;

struct Entry {
    key: u64,
    lang: LangId,
    text: Arc<str>,
    tree: Tree,
    /// The lossless tree of the same text, once asked for.
    lossless: Option<Arc<Parse>>,
}

impl Entry {
    /// What the entry counts against [`TEXT_BYTES`].
    fn charged_bytes(&self) -> usize {
        let lossless = self.lossless.as_ref().map_or(0, |_| self.text.len() / 4);
        self.text.len() + lossless
    }
}

/// The recently parsed trees of one database.
#[derive(Default)]
pub struct TreeCache {
    inner: Mutex<Inner>,
    /// Parses done (full or incremental), for tests and measurements.
    parses: AtomicU64,
}

#[derive(Default)]
struct Inner {
    /// Oldest first.
    entries: Vec<Entry>,
    /// Texts whose parse exceeded its budget (`parser.rs`), oldest first: every query of
    /// such a file asks for its tree, and each would otherwise spend the whole budget again.
    not_parsed: Vec<(u64, LangId, Arc<str>)>,
    /// Keys whose trees are not evicted, with how many [`Pin`]s hold each.
    pinned: Vec<(u64, u32)>,
}

/// Keeps one file's tree in its [`TreeCache`] while it lives, so that the queries of a file
/// that pull other files' trees in between (a check reading its imports' summaries) do not
/// evict it and parse it again.
pub struct Pin<'c> {
    cache: &'c TreeCache,
    key: u64,
}

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        let mut inner = self.cache.inner.lock().unwrap();
        if let Some(i) = inner.pinned.iter().position(|(k, _)| *k == self.key) {
            inner.pinned[i].1 -= 1;
            if inner.pinned[i].1 == 0 {
                inner.pinned.swap_remove(i);
            }
        }
    }
}

impl std::fmt::Debug for TreeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TreeCache")
    }
}

impl TreeCache {
    /// Keeps the tree cached under `key` (once there is one) until the pin is dropped. Pins
    /// are few (one per file a thread is working on), so the cache can hold more than
    /// [`CAPACITY`] trees only while they are.
    pub fn pin(&self, key: u64) -> Pin<'_> {
        let mut inner = self.inner.lock().unwrap();
        match inner.pinned.iter_mut().find(|(k, _)| *k == key) {
            Some((_, count)) => *count += 1,
            None => inner.pinned.push((key, 1)),
        }
        Pin { cache: self, key }
    }

    /// Drops every tree no [`Pin`] holds, the newest too; returns how many. For a memory
    /// limit: the newest tree is kept whatever its size, and one generated file's takes
    /// tens of megabytes, which a server then counts as held until its next parse.
    pub fn drop_unpinned(&self) -> usize {
        let mut inner = self.inner.lock().unwrap();
        let Inner {
            entries, pinned, ..
        } = &mut *inner;
        let before = entries.len();
        entries.retain(|e| pinned.iter().any(|(k, _)| *k == e.key));
        before - entries.len()
    }

    /// How many parses this cache has done (a cached tree handed out again is none).
    pub fn parse_count(&self) -> u64 {
        self.parses.load(Ordering::Relaxed)
    }

    /// A tree-sitter parse of `text`, reusing the previous tree cached under `key` if any.
    pub fn parse_reusing(
        &self,
        key: u64,
        lang: &Language,
        text: &Arc<str>,
        interrupt: Interrupt,
    ) -> Option<Tree> {
        let previous = {
            let mut inner = self.inner.lock().unwrap();
            let this_file = |(k, l, _): &(u64, LangId, Arc<str>)| *k == key && *l == lang.lang_id;
            let same = |(_, _, t): &(u64, LangId, Arc<str>)| Arc::ptr_eq(t, text) || **t == **text;
            inner.not_parsed.retain(|e| !this_file(e) || same(e));
            if inner.not_parsed.iter().any(this_file) {
                return None;
            }
            let position = inner
                .entries
                .iter()
                .position(|e| e.key == key && e.lang == lang.lang_id);
            position.map(|i| inner.entries.remove(i))
        };
        // The same `Arc` (the usual case: one revision's text) needs no comparison.
        let same_text = |entry: &Entry| Arc::ptr_eq(&entry.text, text) || *entry.text == **text;
        if !previous.as_ref().is_some_and(same_text) {
            self.parses.fetch_add(1, Ordering::Relaxed);
        }
        let mut lossless = None;
        let tree = match previous {
            Some(entry) if same_text(&entry) => {
                lossless = entry.lossless;
                Some(entry.tree)
            }
            Some(mut entry) => {
                entry.tree.edit(&edit_between(&entry.text, text));
                parse_tree_sitter(lang, text, Some(&entry.tree), interrupt)
            }
            None => parse_tree_sitter(lang, text, None, interrupt),
        };
        let Some(tree) = tree else {
            if !interrupt() {
                let mut inner = self.inner.lock().unwrap();
                if inner.not_parsed.len() >= CAPACITY {
                    inner.not_parsed.remove(0);
                }
                inner.not_parsed.push((key, lang.lang_id, text.clone()));
            }
            return None;
        };
        let mut inner = self.inner.lock().unwrap();
        inner.entries.push(Entry {
            key,
            lang: lang.lang_id,
            text: text.clone(),
            tree: tree.clone(),
            lossless,
        });
        inner.evict_beyond_bounds();
        Some(tree)
    }

    /// The lossless tree of `text`: the one kept beside its tree-sitter tree, else built from
    /// that tree (reparsed incrementally like any other) and kept with it. `None` when the
    /// parse gave up or was interrupted.
    pub fn lossless(
        &self,
        key: u64,
        lang: &Language,
        text: &Arc<str>,
        interrupt: Interrupt,
    ) -> Option<Arc<Parse>> {
        let tree = self.parse_reusing(key, lang, text, interrupt)?;
        let inner = self.inner.lock().unwrap();
        let this_text =
            |e: &Entry| e.key == key && e.lang == lang.lang_id && Arc::ptr_eq(&e.text, text);
        if let Some(kept) = inner
            .entries
            .iter()
            .find(|e| this_text(e))
            .and_then(|e| e.lossless.clone())
        {
            return Some(kept);
        }
        drop(inner);
        let parse = Arc::new(super::lossless_from_tree(lang, &tree, text, interrupt)?);
        let mut inner = self.inner.lock().unwrap();
        if let Some(entry) = inner.entries.iter_mut().find(|e| this_text(e)) {
            entry.lossless = Some(parse.clone());
            inner.evict_beyond_bounds();
        }
        Some(parse)
    }
}

impl Inner {
    /// Drops the oldest unpinned trees (never the newest) while more than [`CAPACITY`] are
    /// kept or their texts exceed [`TEXT_BYTES`].
    fn evict_beyond_bounds(&mut self) {
        let Inner {
            entries, pinned, ..
        } = self;
        let mut bytes: usize = entries.iter().map(Entry::charged_bytes).sum();
        let mut i = 0;
        while (entries.len() > CAPACITY || bytes > TEXT_BYTES) && i + 1 < entries.len() {
            if pinned.iter().any(|(k, _)| *k == entries[i].key) {
                i += 1;
                continue;
            }
            bytes -= entries.remove(i).charged_bytes();
        }
    }
}

/// The single edit turning `old` into `new`: everything between their common prefix and
/// common suffix was replaced.
fn edit_between(old: &str, new: &str) -> InputEdit {
    let max = old.len().min(new.len());
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    prefix = floor_char_boundary(old, prefix.min(max));
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point(old, prefix),
        old_end_position: point(old, old_end),
        new_end_position: point(new, new_end),
    }
}

fn point(text: &str, offset: usize) -> Point {
    let before = &text.as_bytes()[..offset];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Point {
        row,
        column: offset - line_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::registry;

    #[test]
    fn a_lossless_tree_is_kept_beside_its_tree_until_its_text_changes() {
        let lang = registry().by_id("python").unwrap();
        let cache = TreeCache::default();
        let first: Arc<str> = Arc::from("def f():\n    return 1\n");
        let built = cache
            .lossless(1, lang, &first, crate::syntax::NEVER)
            .unwrap();
        let again = cache
            .lossless(1, lang, &first, crate::syntax::NEVER)
            .unwrap();
        assert!(Arc::ptr_eq(&built, &again));
        assert_eq!(cache.parse_count(), 1);

        let edited: Arc<str> = Arc::from("def f():\n    return 12\n");
        let rebuilt = cache
            .lossless(1, lang, &edited, crate::syntax::NEVER)
            .unwrap();
        let fresh = crate::syntax::parse(lang, &edited);
        assert_eq!(rebuilt.green, fresh.green);
        assert_eq!(cache.parse_count(), 2);

        // A lossless tree counts a quarter of its text more against the bound: two files
        // whose texts fit it alone do not fit it with their lossless trees.
        let large: Arc<str> = Arc::from("x = 1\n".repeat(TEXT_BYTES * 9 / 20 / 6));
        let small: Arc<str> = Arc::from("x = 1\n".repeat(TEXT_BYTES / 4 / 6));
        let keys = |cache: &TreeCache| -> Vec<(u64, bool)> {
            let inner = cache.inner.lock().unwrap();
            inner
                .entries
                .iter()
                .map(|e| (e.key, e.lossless.is_some()))
                .collect()
        };
        cache
            .parse_reusing(2, lang, &large, crate::syntax::NEVER)
            .unwrap();
        cache
            .parse_reusing(3, lang, &large, crate::syntax::NEVER)
            .unwrap();
        assert_eq!(keys(&cache), vec![(1, true), (2, false), (3, false)]);
        cache
            .lossless(3, lang, &large, crate::syntax::NEVER)
            .unwrap();
        assert_eq!(keys(&cache), vec![(3, true)]);
        cache
            .parse_reusing(4, lang, &small, crate::syntax::NEVER)
            .unwrap();
        assert_eq!(keys(&cache), vec![(3, true), (4, false)]);
    }

    #[test]
    fn reparsing_after_edits_equals_a_fresh_parse() {
        let lang = registry().by_id("rust").unwrap();
        let texts = [
            "fn main() {\n    let x = 1;\n}\n",
            "fn main() {\n    let x = 12;\n}\n",
            "fn main() {\n    let é = 12;\n}\nfn other() {}\n",
            "fn main() {\n    let é = \n}\nfn other() {}\n",
            "",
            "struct S;\n",
        ];
        let cache = TreeCache::default();
        for text in texts {
            let text: Arc<str> = Arc::from(text);
            let reused = cache
                .parse_reusing(7, lang, &text, crate::syntax::NEVER)
                .unwrap();
            let fresh = parse_tree_sitter(lang, &text, None, crate::syntax::NEVER).unwrap();
            assert_eq!(
                reused.root_node().to_sexp(),
                fresh.root_node().to_sexp(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_pinned_tree_outlives_eviction_and_an_unpinned_one_does_not() {
        let lang = registry().by_id("python").unwrap();
        let cache = TreeCache::default();
        let text: Arc<str> = Arc::from("def f():\n    return 1\n");
        let parse = |key: u64| {
            cache
                .parse_reusing(key, lang, &text, crate::syntax::NEVER)
                .unwrap()
        };
        let parsed_again = |key: u64| {
            let before = cache.parse_count();
            parse(key);
            cache.parse_count() > before
        };
        let pinned = cache.pin(1);
        parse(1);
        parse(2);
        for key in 10..10 + 2 * CAPACITY as u64 {
            parse(key);
        }
        assert!(!parsed_again(1), "the pinned tree was evicted");
        assert!(parsed_again(2), "the unpinned tree stayed");
        drop(pinned);
        for key in 100..100 + 2 * CAPACITY as u64 {
            parse(key);
        }
        assert!(parsed_again(1), "the unpinned tree stayed");
    }

    #[test]
    fn trees_of_large_texts_are_dropped_by_bytes_but_the_newest_and_pinned_stay() {
        let lang = registry().by_id("python").unwrap();
        let cache = TreeCache::default();
        // Each text a little over a third of the bound: three of them exceed it.
        let large = |n: usize| -> Arc<str> {
            let line = format!("x{n} = 1\n");
            Arc::from(line.repeat(TEXT_BYTES / 3 / line.len() + 1))
        };
        let texts: Vec<Arc<str>> = (0..4).map(large).collect();
        let parse = |key: u64| {
            let before = cache.parse_count();
            cache.parse_reusing(key, lang, &texts[key as usize], crate::syntax::NEVER);
            cache.parse_count() > before
        };
        let pinned = cache.pin(0);
        assert!(parse(0));
        assert!(parse(1));
        assert!(parse(2));
        // Three texts over the bound: the oldest unpinned (1) went, the pinned one stayed.
        assert!(!parse(0), "the pinned tree was dropped");
        assert!(!parse(2), "the newest tree was dropped");
        assert!(parse(1), "the bound in bytes was not kept");
        drop(pinned);
        assert!(parse(3));
        // Unpinned, 0 went when 3 came: 1 and 3 are kept, 0 is parsed again.
        assert!(!parse(3));
        assert!(!parse(1));
        assert!(parse(0));
    }

    #[test]
    fn dropping_the_unpinned_trees_keeps_the_pinned_ones_alone() {
        let lang = registry().by_id("python").unwrap();
        let cache = TreeCache::default();
        let texts: Vec<Arc<str>> = (0..3).map(|n| Arc::from(format!("x{n} = 1\n"))).collect();
        let parse = |key: u64| {
            let before = cache.parse_count();
            cache.parse_reusing(key, lang, &texts[key as usize], crate::syntax::NEVER);
            cache.parse_count() > before
        };
        let pinned = cache.pin(1);
        assert_eq!([parse(0), parse(1), parse(2)], [true; 3]);
        // The newest (2) goes too: it is kept whatever its size only by the bounds.
        assert_eq!(cache.drop_unpinned(), 2);
        assert_eq!([parse(1), parse(0), parse(2)], [false, true, true]);
        drop(pinned);
        assert_eq!(cache.drop_unpinned(), 3);
        assert_eq!(cache.drop_unpinned(), 0);
    }

    #[test]
    fn a_text_over_the_parse_budget_is_refused_once() {
        let lang = registry().by_id("python").unwrap();
        let cache = TreeCache::default();
        // Each comment line at column 0 inside the block re-reads the run (the one shape
        // the vendored scanner patch leaves quadratic).
        let run = "# pad\n".repeat(5_000);
        let costly: Arc<str> = Arc::from(format!("def f():\n    x = 1\n{run}    y = 2\n"));
        let never = crate::syntax::NEVER;
        assert!(cache.parse_reusing(1, lang, &costly, never).is_none());
        assert!(cache.parse_reusing(1, lang, &costly, never).is_none());
        assert_eq!(cache.parse_count(), 1);
        let fixed: Arc<str> = Arc::from(format!("def f():\n    x = 1\n{run}y = 2\n"));
        assert!(cache.parse_reusing(1, lang, &fixed, never).is_some());
        assert_eq!(cache.parse_count(), 2);
    }

    #[test]
    fn edits_cover_the_change() {
        let e = edit_between("abcXYZdef", "abcQdef");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 6, 4));
        let e = edit_between("a\nb", "a\nb\nc");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (3, 3, 5));
        assert_eq!(e.start_position, Point { row: 1, column: 1 });
    }
}
