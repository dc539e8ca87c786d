//! Ranked symbol search through the analysis API.

mod support;

use sextant::ide::SymbolQuery;
use support::{host, parse_fixture};

const FIXTURE: &str = r#"
//- app/index.py
def get_symbol_index():
    pass

def getSymbolIndex():
    pass

def symbol_index():
    pass

def index():
    pass

def Index():
    pass

def reindex_all():
    pass

def i_n_d_e_x_spread():
    pass
//- lib/other.py
def index():
    pass

class Indexer:
    def run(self):
        pass
"#;

fn search(q: &str, limit: usize) -> Vec<String> {
    let host = host(&parse_fixture(FIXTURE.trim_start()));
    let query = SymbolQuery {
        query: q.into(),
        limit,
        ..Default::default()
    };
    let out = host.analysis().symbol_search(&query).unwrap();
    out.symbols
        .iter()
        .map(|s| format!("{} {} {:?}", s.path, s.name, s.tier))
        .collect()
}

#[test]
fn tiers_rank_exact_prefix_word_starts_substring_subsequence() {
    assert_eq!(
        search("index", 20),
        [
            "app/index.py index Exact",
            "lib/other.py index Exact",
            "app/index.py Index ExactIgnoreCase",
            "lib/other.py Indexer Prefix",
            // `index` is a later word of these names.
            "app/index.py symbol_index WordStarts",
            "app/index.py getSymbolIndex WordStarts",
            "app/index.py get_symbol_index WordStarts",
            "app/index.py i_n_d_e_x_spread WordStarts",
            // Inside a word.
            "app/index.py reindex_all Substring",
        ]
    );
}

#[test]
fn subsequence_is_the_last_resort() {
    assert_eq!(search("rdxl", 10), ["app/index.py reindex_all Subsequence"]);
}

#[test]
fn word_starts_beat_substrings() {
    let hits = search("gsi", 10);
    assert_eq!(
        hits[..2],
        [
            "app/index.py getSymbolIndex WordStarts",
            "app/index.py get_symbol_index WordStarts"
        ]
    );
    let hits = search("symind", 10);
    assert_eq!(hits[0], "app/index.py symbol_index WordStarts");
}

#[test]
fn limit_truncates_and_reports_the_total() {
    let host = host(&parse_fixture(FIXTURE.trim_start()));
    let query = SymbolQuery {
        query: "index".into(),
        limit: 2,
        ..Default::default()
    };
    let out = host.analysis().symbol_search(&query).unwrap();
    assert_eq!(out.symbols.len(), 2);
    assert!(out.truncated);
    assert_eq!(out.total, 9);
}

#[test]
fn filters_by_kind_and_path() {
    let host = host(&parse_fixture(FIXTURE.trim_start()));
    let kinds = vec![sextant::semantic::symbols::SymbolKind::Method];
    let query = SymbolQuery {
        query: "".into(),
        kinds,
        limit: 10,
        ..Default::default()
    };
    let out = host.analysis().symbol_search(&query).unwrap();
    let names: Vec<_> = out
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.container.as_deref()))
        .collect();
    assert_eq!(names, [("run", Some("Indexer"))]);

    let query = SymbolQuery {
        query: "index".into(),
        path_prefix: Some("lib/".into()),
        limit: 10,
        ..Default::default()
    };
    let out = host.analysis().symbol_search(&query).unwrap();
    assert!(out.symbols.iter().all(|s| s.path.starts_with("lib/")));
    assert_eq!(out.symbols.len(), 2);
}
