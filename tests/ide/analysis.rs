//! The one place the `ide` tests build a database and call the analysis API.
//!
//! Invariant: test modules never touch `sextant::db` or `sextant::workspace` themselves;
//! they get a [`TestDb`] and a file from [`analysis`] and call one helper here per
//! operation. Moving to another analysis API changes this module only.

use sextant::{
    db::SourceFile,
    ide::{
        self, Fold, Outline, ParseOptions, ParseOutput, SymbolQuery, SymbolSearch, WorkspaceStats,
    },
    syntax::{SyntaxError, TextRange},
    workspace::Host,
};

use crate::{
    fixture::{self, Cursor, DEFAULT_PATH},
    support,
};

/// A database over a fixture's files, and their texts as written.
pub struct TestDb {
    host: Host,
}

impl TestDb {
    /// The file at `path` (workspace-relative, with or without a leading `/`).
    pub fn file(&self, path: &str) -> SourceFile {
        let path = path.trim_start_matches('/');
        self.host
            .file(path)
            .unwrap_or_else(|| panic!("{path}: not a file of the fixture"))
    }

    pub fn text(&self, file: SourceFile) -> &str {
        file.text(&self.host.db)
    }
}

/// The database for `fixture` (see [`crate::fixture`]), the file holding the cursor (else
/// the first file), and the cursor. A fixture without `//-` markers is `/main.rs`.
pub fn analysis(fixture: &str) -> (TestDb, SourceFile, Option<Cursor>) {
    analysis_at(DEFAULT_PATH, fixture)
}

/// Like [`analysis`], naming a fixture without `//-` markers `default_path`.
pub fn analysis_at(default_path: &str, fixture: &str) -> (TestDb, SourceFile, Option<Cursor>) {
    let files = fixture::parse(fixture, default_path);
    let focus = files
        .iter()
        .find(|f| f.cursor.is_some())
        .unwrap_or(&files[0]);
    let (focus_path, cursor) = (focus.path.clone(), focus.cursor);
    let loaded = support::loaded(
        &files
            .iter()
            .map(|f| support::FixtureFile {
                path: f.path.clone(),
                text: f.text.clone(),
                cursor: None,
            })
            .collect::<Vec<_>>(),
    );
    let db = TestDb {
        host: Host::from_files("/fixture".into(), loaded),
    };
    let file = db.file(&focus_path);
    (db, file, cursor)
}

pub fn folding_ranges(db: &TestDb, file: SourceFile) -> Vec<Fold> {
    ide::folding_ranges(&db.host.db, file).expect("not cancelled")
}

pub fn selection_ranges(db: &TestDb, file: SourceFile, offsets: &[usize]) -> Vec<Vec<TextRange>> {
    ide::selection_ranges(&db.host.db, file, offsets).expect("not cancelled")
}

pub fn syntax_errors(db: &TestDb, file: SourceFile) -> Vec<SyntaxError> {
    ide::syntax_errors(&db.host.db, file)
        .expect("not cancelled")
        .to_vec()
}

pub fn outline_page(db: &TestDb, file: SourceFile, offset: usize, limit: usize) -> Outline {
    ide::outline_page(&db.host.db, file, offset, limit).expect("not cancelled")
}

pub fn symbol_search(db: &TestDb, query: &SymbolQuery) -> SymbolSearch {
    ide::symbol_search(&db.host.db, db.host.workspace, query).expect("not cancelled")
}

pub fn parse_tree(db: &TestDb, file: SourceFile, options: ParseOptions) -> ParseOutput {
    ide::parse_tree(&db.host.db, file, options).expect("not cancelled")
}

pub fn workspace_stats(db: &TestDb) -> WorkspaceStats {
    ide::workspace_stats(&db.host.db, db.host.workspace).expect("not cancelled")
}
