//! The one place the `ide` tests build a database and call the analysis API.
//!
//! Invariant: test modules never touch `sextant::db` or `sextant::workspace` themselves;
//! they get a [`TestDb`] and a file from [`analysis`] and call one helper here per
//! operation. Moving to another analysis API changes this module only.

use std::sync::Arc;

use sextant::{
    ide::{
        Analysis, Definition, FileId, Fold, GraphQuery, ImportGraphView, ImportInfo, NameScope,
        Outline, ParseOptions, ParseOutput, ReferenceQuery, References, SymbolQuery, SymbolSearch,
        SyntaxError, TextRange, WorkspaceStats,
    },
    workspace::{Host, LoadOptions, MemorySystem, manifests::manifest_kind},
};

use crate::{
    fixture::{self, Cursor, DEFAULT_PATH},
    support,
};

/// An analysis of a fixture's files, and their texts as written.
pub struct TestDb {
    analysis: Analysis,
    texts: std::collections::HashMap<FileId, Arc<str>>,
}

impl TestDb {
    /// The file at `path` (workspace-relative, with or without a leading `/`).
    pub fn file(&self, path: &str) -> FileId {
        let path = path.trim_start_matches('/');
        self.analysis
            .file(path)
            .unwrap_or_else(|| panic!("{path}: not a file of the fixture"))
    }

    pub fn text(&self, file: FileId) -> &str {
        &self.texts[&file]
    }
}

/// The database for `fixture` (see [`crate::fixture`]), the file holding the cursor (else
/// the first file), and the cursor. A fixture without `//-` markers is `/main.rs`. A
/// fixture with project files (`package.json`, `tsconfig.json`, …) is loaded as a
/// workspace on disk is, so they are read as manifests.
pub fn analysis(fixture: &str) -> (TestDb, FileId, Option<Cursor>) {
    analysis_at(DEFAULT_PATH, fixture)
}

/// Like [`analysis`], naming a fixture without `//-` markers `default_path`.
pub fn analysis_at(default_path: &str, fixture: &str) -> (TestDb, FileId, Option<Cursor>) {
    let files = fixture::parse(fixture, default_path);
    let focus = files
        .iter()
        .find(|f| f.cursor.is_some())
        .unwrap_or(&files[0]);
    let (focus_path, cursor) = (focus.path.clone(), focus.cursor);
    let walked = |f: &fixture::FixtureFile| {
        manifest_kind(&f.path).is_some() || f.path == sextant::workspace::CONFIG_FILE
    };
    let analysis = if files.iter().any(walked) {
        // Project files (`package.json`, `tsconfig.json`, …) and `sextant.toml` are read by a
        // walk, as on disk.
        let system = MemorySystem::new("/fixture");
        for f in &files {
            system.write(&f.path, &f.text);
        }
        Host::load_with(Arc::new(system), &LoadOptions::default())
            .expect("the fixture loads")
            .analysis()
    } else {
        Host::from_files("/fixture".into(), support::loaded(&files)).analysis()
    };
    let texts = analysis
        .files()
        .map(|f| (f, analysis.file_text(f)))
        .collect();
    let db = TestDb { analysis, texts };
    let file = db.file(&focus_path);
    (db, file, cursor)
}

pub fn imports(db: &TestDb, file: FileId) -> Vec<ImportInfo> {
    db.analysis.imports(file).expect("not cancelled")
}

pub fn definition(db: &TestDb, file: FileId, offset: usize) -> Vec<Definition> {
    db.analysis.definition(file, offset).expect("not cancelled")
}

/// The definitions called `name` in the files `scope` says.
pub fn definitions_named(db: &TestDb, name: &str, scope: NameScope) -> Vec<Definition> {
    db.analysis
        .definition_by_name_in(name, None, scope)
        .expect("not cancelled")
}

pub fn incoming_calls(db: &TestDb, file: FileId, offset: usize) -> Vec<sextant::ide::Call> {
    db.analysis
        .incoming_calls(file, offset)
        .expect("not cancelled")
}

pub fn outgoing_calls(db: &TestDb, file: FileId, offset: usize) -> Vec<sextant::ide::Call> {
    db.analysis
        .outgoing_calls(file, offset)
        .expect("not cancelled")
}

/// The call graph from the definition at `offset` of `file` (or named there), as text.
pub fn call_graph(
    db: &TestDb,
    file: FileId,
    offset: usize,
    direction: sextant::ide::CallDirection,
    depth: u32,
) -> String {
    let query = sextant::ide::CallGraphQuery {
        target: sextant::ide::SymbolEditTarget::Position {
            path: db.analysis.file_path(file).to_string(),
            offset,
        },
        direction,
        depth,
        exact_only: false,
        max_nodes: sextant::ide::DEFAULT_CALL_GRAPH_NODES,
        budget: None,
    };
    match db.analysis.call_graph(&query).expect("not cancelled") {
        Ok(graph) => graph.text,
        Err(error) => format!("error: {error}"),
    }
}

/// What depends on the innermost definition at `offset` of `file`, as text.
pub fn impact(db: &TestDb, file: FileId, offset: usize, tests_only: bool) -> String {
    let query = sextant::ide::ImpactQuery {
        seeds: vec![sextant::ide::ImpactSeed::Definition(
            sextant::ide::SymbolEditTarget::Position {
                path: db.analysis.file_path(file).to_string(),
                offset,
            },
        )],
        max_depth: sextant::ide::DEFAULT_IMPACT_DEPTH,
        limit: sextant::ide::DEFAULT_IMPACT_LIMIT,
        tests_only,
        exact: false,
        budget: None,
    };
    match db.analysis.impact(&query).expect("not cancelled") {
        Ok(impact) => impact.text,
        Err(error) => format!("error: {error}"),
    }
}

/// `explore` of `terms` under `max_tokens`.
pub fn explore(db: &TestDb, terms: &[&str], max_tokens: usize) -> sextant::ide::ExploreAnswer {
    let query = sextant::ide::ExploreQuery {
        terms: terms.iter().map(|t| t.to_string()).collect(),
        budget: sextant::ide::Budget {
            encoding: Default::default(),
            max_tokens,
        },
    };
    db.analysis.explore(&query).expect("not cancelled")
}

pub fn hover(db: &TestDb, file: FileId, offset: usize) -> Option<sextant::ide::HoverInfo> {
    db.analysis.hover(file, offset).expect("not cancelled")
}

pub fn references(db: &TestDb, file: FileId, offset: usize, query: &ReferenceQuery) -> References {
    db.analysis
        .references(file, offset, query)
        .expect("not cancelled")
}

pub fn references_by_name(db: &TestDb, name: &str, query: &ReferenceQuery) -> References {
    db.analysis
        .references_by_name(name, query)
        .expect("not cancelled")
}

pub fn rename(
    db: &TestDb,
    file: FileId,
    offset: usize,
    new_name: &str,
    options: sextant::ide::RenameOptions,
) -> Result<sextant::ide::Rename, sextant::ide::RenameError> {
    db.analysis
        .rename(file, offset, new_name, options)
        .expect("not cancelled")
}

pub fn rename_by_name(
    db: &TestDb,
    name: &str,
    new_name: &str,
    options: sextant::ide::RenameOptions,
) -> Result<sextant::ide::Rename, sextant::ide::RenameError> {
    db.analysis
        .rename_by_name(name, new_name, options)
        .expect("not cancelled")
}

pub fn import_graph(db: &TestDb, query: &GraphQuery) -> ImportGraphView {
    db.analysis.import_graph(query).expect("not cancelled")
}

pub fn folding_ranges(db: &TestDb, file: FileId) -> Vec<Fold> {
    db.analysis.folding_ranges(file).expect("not cancelled")
}

pub fn selection_ranges(db: &TestDb, file: FileId, offsets: &[usize]) -> Vec<Vec<TextRange>> {
    db.analysis
        .selection_ranges(file, offsets)
        .expect("not cancelled")
        .into_iter()
        .map(|chain| chain.iter().map(|span| span.text_range()).collect())
        .collect()
}

pub fn syntax_errors(db: &TestDb, file: FileId) -> Vec<SyntaxError> {
    db.analysis
        .syntax_errors(file)
        .expect("not cancelled")
        .to_vec()
}

pub fn outline_page(db: &TestDb, file: FileId, offset: usize, limit: usize) -> Outline {
    db.analysis
        .outline_page(file, offset, limit)
        .expect("not cancelled")
}

pub fn symbol_search(db: &TestDb, query: &SymbolQuery) -> SymbolSearch {
    db.analysis.symbol_search(query).expect("not cancelled")
}

pub fn parse_tree(db: &TestDb, file: FileId, options: ParseOptions) -> ParseOutput {
    db.analysis
        .parse_tree(file, options)
        .expect("not cancelled")
}

pub fn workspace_stats(db: &TestDb) -> WorkspaceStats {
    db.analysis.workspace_stats().expect("not cancelled")
}

/// Why a fixture (with a `sextant.toml`) does not load.
pub fn load_error(fixture: &str) -> String {
    let system = MemorySystem::new("/fixture");
    for f in fixture::parse(fixture, DEFAULT_PATH) {
        system.write(&f.path, &f.text);
    }
    match Host::load_with(Arc::new(system), &LoadOptions::default()) {
        Ok(_) => panic!("the fixture loads"),
        Err(e) => e.to_string(),
    }
}

/// The diagnostics `query` asks for (by path, then position).
pub fn check_query(db: &TestDb, query: &sextant::ide::CheckQuery) -> sextant::ide::CheckResult {
    db.analysis.check(query).expect("not cancelled")
}

/// Every file's diagnostics of `fixture`, with the codes `select` adds as `--select` would
/// (none: the configuration's choice).
pub fn check_selecting(fixture: &str, select: &[&str]) -> sextant::ide::CheckResult {
    let (db, _, _) = analysis(fixture);
    let select: Vec<String> = select.iter().map(|s| s.to_string()).collect();
    let query = sextant::ide::CheckQuery {
        codes: sextant::ide::CodeSelection::new(&select, &[]).unwrap(),
        ..sextant::ide::CheckQuery::default()
    };
    check_query(&db, &query)
}

/// Every file's diagnostics with the default codes (by path, then position).
pub fn check(db: &TestDb) -> sextant::ide::CheckResult {
    db.analysis
        .check(&sextant::ide::CheckQuery::default())
        .expect("not cancelled")
}

pub fn implementations(
    db: &TestDb,
    file: FileId,
    offset: usize,
    direction: sextant::ide::HierarchyDirection,
) -> Result<sextant::ide::Implementations, sextant::ide::ImplementationsError> {
    db.analysis
        .implementations(file, offset, direction, 100)
        .expect("not cancelled")
}

pub fn implementations_by_name(
    db: &TestDb,
    name: &str,
    direction: sextant::ide::HierarchyDirection,
) -> Result<sextant::ide::Implementations, sextant::ide::ImplementationsError> {
    db.analysis
        .implementations_by_name(name, direction, 100)
        .expect("not cancelled")
}
