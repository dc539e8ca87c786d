//! `symbol_search` ranking over a multi-file fixture.

use expect_test::{Expect, expect};
use sextant::{ide::SymbolQuery, lang::registry, semantic::symbols::SymbolKind};

use crate::{analysis, render};

const WORKSPACE: &str = r#"
//- /app/models.py
class ShapeIndex:
    def rebuild_index(self):
        pass

def index():
    pass
//- /src/index.rs
pub struct Index;

impl Index {
    pub fn index_of(&self) -> usize { 0 }
}

fn reindex() {}
//- /web/index.ts
export function indexPages(): void {}
export interface IndexEntry { id: number }
//- /cmd/main.go
package main

type Indexer struct{}

func (i *Indexer) Index() {}
"#;

fn check(query: SymbolQuery, expect: Expect) {
    let (db, _, _) = analysis::analysis(WORKSPACE);
    expect.assert_eq(&render::symbol_search(&analysis::symbol_search(
        &db, &query,
    )));
}

fn query(q: &str) -> SymbolQuery {
    SymbolQuery {
        query: q.into(),
        limit: 50,
        ..Default::default()
    }
}

#[test]
fn ranks_exact_then_prefix_then_word_starts_across_languages() {
    check(
        query("index"),
        expect![[r#"
        app/models.py:5:5 function index (Exact)
        cmd/main.go:5:19 method Index in Indexer (ExactIgnoreCase)
        src/index.rs:1:12 struct Index (ExactIgnoreCase)
        cmd/main.go:3:6 struct Indexer (Prefix)
        src/index.rs:4:12 method index_of in Index (Prefix)
        web/index.ts:2:18 interface IndexEntry (Prefix)
        web/index.ts:1:17 function indexPages (Prefix)
        app/models.py:1:7 class ShapeIndex (WordStarts)
        app/models.py:2:9 method rebuild_index in ShapeIndex (WordStarts)
        src/index.rs:7:4 function reindex (Substring)
        -- 10 in all
    "#]],
    );
}

#[test]
fn limit_truncates_and_keeps_the_total() {
    check(
        SymbolQuery {
            limit: 3,
            ..query("index")
        },
        expect![[r#"
            app/models.py:5:5 function index (Exact)
            cmd/main.go:5:19 method Index in Indexer (ExactIgnoreCase)
            src/index.rs:1:12 struct Index (ExactIgnoreCase)
            -- 10 in all, truncated
        "#]],
    );
}

#[test]
fn kinds_filter_and_impl_blocks_only_when_asked() {
    check(
        SymbolQuery {
            kinds: vec![SymbolKind::Impl, SymbolKind::Struct],
            ..query("index")
        },
        expect![[r#"
            src/index.rs:1:12 struct Index (ExactIgnoreCase)
            src/index.rs:3:6 impl Index (ExactIgnoreCase)
            cmd/main.go:3:6 struct Indexer (Prefix)
            -- 3 in all
        "#]],
    );
}

#[test]
fn language_and_path_prefix_filters() {
    let go = registry().by_id("go").expect("go is registered").lang_id;
    check(
        SymbolQuery {
            language: Some(go),
            ..query("ind")
        },
        expect![[r#"
            cmd/main.go:5:19 method Index in Indexer (Prefix)
            cmd/main.go:3:6 struct Indexer (Prefix)
            -- 2 in all
        "#]],
    );
    check(
        SymbolQuery {
            path_prefix: Some("./app".into()),
            ..query("ind")
        },
        expect![[r#"
            app/models.py:5:5 function index (Prefix)
            app/models.py:1:7 class ShapeIndex (WordStarts)
            app/models.py:2:9 method rebuild_index in ShapeIndex (WordStarts)
            -- 3 in all
        "#]],
    );
}

#[test]
fn no_match_is_an_empty_answer() {
    check(
        query("zzzz"),
        expect![[r#"
        -- 0 in all
    "#]],
    );
}
