//! What a file's trees, line table and name table take in memory, as multiples of its
//! text: the tree-sitter tree, the lossless (rowan) tree built from it, the line table, and
//! the name table, beside what the name tables' tally counts for them (the bytes their
//! budget is kept in: `FileNames::heap_bytes`). These ratios size the tree cache's bound in
//! bytes (`syntax/incremental.rs`), the line tables' LRU (`semantic::line_index`) and the
//! name tables' budget (docs/memory.md).
//!
//! `cargo bench --bench tree_memory -- DIR...` measures the first 400 Python, Rust,
//! JavaScript, TypeScript and Go files of each directory (in path order); without a
//! directory, this repository's `src`. Each kind of structure is built for every file and
//! held, and the growth of the process's resident memory (after the allocator gave freed
//! pages back) is divided by the files' text. Linux only (`/proc/self/statm`).

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use sextant::{
    lang::registry,
    semantic::names::file_names_unkept,
    syntax,
    workspace::{Host, LoadedFile},
};

const FILES: usize = 400;

fn main() {
    sextant::allocator::use_for_tree_sitter();
    let mut dirs: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    }
    for dir in dirs {
        measure(&dir);
    }
}

fn measure(dir: &Path) {
    let texts = source_texts(dir);
    let text_bytes: usize = texts.iter().map(|(_, text)| text.len()).sum();
    if text_bytes == 0 {
        println!("{}: no source files", dir.display());
        return;
    }
    let ratio = |grown: usize| grown as f64 / text_bytes as f64;
    let before = resident();
    let trees: Vec<_> = texts
        .iter()
        .map(|(lang, text)| {
            syntax::parse_tree_sitter(registry().by_id(lang).unwrap(), text, None, syntax::NEVER)
        })
        .collect();
    let with_trees = resident();
    let lossless: Vec<_> = texts
        .iter()
        .zip(&trees)
        .filter_map(|((lang, text), tree)| {
            syntax::lossless_from_tree(
                registry().by_id(lang).unwrap(),
                tree.as_ref()?,
                text,
                syntax::NEVER,
            )
        })
        .collect();
    let with_lossless = resident();
    let tables: Vec<_> = texts
        .iter()
        .map(|(_, text)| syntax::LineIndex::new(text))
        .collect();
    let with_tables = resident();
    drop((trees, lossless, tables));
    let (names_grew, names_counted) = name_tables(&texts);
    println!(
        "{}: {} files, {} bytes of text; tree-sitter trees {:.1}×, lossless trees {:.1}×, line tables {:.3}×, name tables {:.1}× (counted {:.1}×)",
        dir.display(),
        texts.len(),
        text_bytes,
        ratio(with_trees.saturating_sub(before)),
        ratio(with_lossless.saturating_sub(with_trees)),
        ratio(with_tables.saturating_sub(with_lossless)),
        ratio(names_grew),
        ratio(names_counted),
    );
}

/// Every file's name table, held: how much resident memory grew, and what the tables
/// count themselves at.
fn name_tables(texts: &[(&'static str, Arc<str>)]) -> (usize, usize) {
    let files = texts
        .iter()
        .enumerate()
        .map(|(i, (lang, text))| LoadedFile {
            path: format!("f{i}.{}", registry().by_id(lang).unwrap().extensions[0]),
            lang: registry().by_id(lang).unwrap().lang_id,
            text: text.clone(),
            lossy_utf8: false,
            real_path: None,
        })
        .collect();
    let host = Host::from_files(PathBuf::from("/bench"), files);
    let analysis = host.analysis_host();
    let (db, workspace) = (analysis.raw_database(), analysis.raw_workspace());
    let before = resident();
    let names: Vec<_> = workspace
        .files(db)
        .iter()
        .map(|&file| file_names_unkept(db, file))
        .collect();
    // The tree cache keeps the last trees the tables were built from: not the tables'.
    analysis.analysis().tree_cache().drop_unpinned();
    let grew = resident().saturating_sub(before);
    let counted = names.iter().map(|names| names.counted_bytes()).sum();
    (grew, counted)
}

/// Resident bytes, after the allocator gave back what was freed.
fn resident() -> usize {
    sextant::allocator::release_freed_memory();
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// The first [`FILES`] source files under `dir`, in path order, with their language.
fn source_texts(dir: &Path) -> Vec<(&'static str, Arc<str>)> {
    let mut texts = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        // Depth first, in path order: subdirectories are taken from the end of `pending`.
        for path in paths.iter().rev().filter(|p| p.is_dir()) {
            pending.push(path.clone());
        }
        for path in paths.iter().filter(|p| p.is_file()) {
            let lang = match path.extension().and_then(|e| e.to_str()) {
                Some("py") => "python",
                Some("rs") => "rust",
                Some("js") => "javascript",
                Some("ts") => "typescript",
                Some("go") => "go",
                _ => continue,
            };
            if let Ok(text) = std::fs::read_to_string(path) {
                texts.push((lang, Arc::from(text)));
            }
            if texts.len() == FILES {
                return texts;
            }
        }
    }
    texts
}
