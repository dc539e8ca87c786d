//! Early cutoff: an edit that changes no summary re-executes only the edited file's queries.
//! Counted with salsa `WillExecute` events.

mod support;

use std::sync::{Arc, Mutex};

use sextant::{
    db::{RootDatabase, Tally},
    ide::{
        AnalysisHost, Budget, Granularity, GraphQuery, HierarchyDirection, ImpactQuery, ImpactSeed,
        ImportStatus, ReferenceQuery, RepoMapRequest, SkeletonQuery, SymbolEditTarget, SymbolQuery,
    },
    semantic::{
        index::symbol_index,
        names::file_names,
        symbols::{file_symbols, symbol_summaries},
    },
    workspace::Host,
};
use support::{loaded, parse_fixture};

const FIXTURE: &str = r#"
//- pkg/a.py
def area(w, h):
    return w * h

class Shape:
    def scale(self, k):
        return k
//- pkg/b.py
from pkg.a import area

def unrelated():
    return 1
//- src/lib.rs
pub fn other() -> u32 {
    1
}
"#;

fn logged_host() -> (Host, Arc<Mutex<Vec<String>>>) {
    logged_host_with(FIXTURE)
}

fn logged_host_with(fixture: &str) -> (Host, Arc<Mutex<Vec<String>>>) {
    logged_host_limited(fixture, None)
}

/// [`logged_host_with`] under a memory limit (`--max-memory`), when one is given.
fn logged_host_limited(
    fixture: &str,
    memory_limit: Option<u64>,
) -> (Host, Arc<Mutex<Vec<String>>>) {
    logged_host_recording(fixture, memory_limit, |event| match event.kind {
        salsa::EventKind::WillExecute { database_key } => Some(format!("{database_key:?}")),
        _ => None,
    })
}

/// [`logged_host_limited`], logging what `record` makes of each salsa event.
fn logged_host_recording(
    fixture: &str,
    memory_limit: Option<u64>,
    record: impl Fn(&salsa::Event) -> Option<String> + Send + Sync + 'static,
) -> (Host, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let db = RootDatabase::with_event_callback(move |event| {
        if let Some(entry) = record(&event) {
            sink.lock().unwrap().push(entry);
        }
    });
    let files = parse_fixture(fixture.trim_start());
    let mut analysis = AnalysisHost::with_database(db, "/fixture".into());
    analysis.set_memory_limit(memory_limit);
    (
        Host::from_files_in(analysis, "/fixture".into(), loaded(&files)),
        log,
    )
}

/// Computes everything a symbol search and outlines need, then returns what executed.
fn compute_all(host: &Host, log: &Mutex<Vec<String>>) -> Vec<String> {
    log.lock().unwrap().clear();
    let (db, workspace) = (
        host.analysis_host().raw_database(),
        host.analysis_host().raw_workspace(),
    );
    symbol_index(db, workspace);
    for &file in workspace.files(db).iter() {
        symbol_summaries(db, file);
        file_symbols(db, file);
    }
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    executed
}

fn id_of(host: &Host, path: &str) -> String {
    let file = AnalysisHost::raw_file(host.file(path).unwrap());
    format!("{:?}", salsa::plumbing::AsId::as_id(&file))
}

/// The queries executed since the log was last cleared, sorted; `file_diagnostics`,
/// `file_dependencies`, `definer_index` and `definers` are keyed by their arguments'
/// interned id, so they are named without their key.
fn executed_checks(log: &Mutex<Vec<String>>) -> Vec<String> {
    let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
        .into_iter()
        .map(|q| {
            let name = q.split('(').next().unwrap_or_default();
            match name {
                "file_diagnostics"
                | "recorded_diagnostics"
                | "file_dependencies"
                | "definer_index"
                | "definers" => name.to_string(),
                _ => q,
            }
        })
        .collect();
    executed.sort();
    executed
}

/// Every diagnostic of the workspace as `path:line CODE`.
fn checked(host: &Host) -> Vec<String> {
    let result = host
        .analysis()
        .check(&sextant::ide::CheckQuery::default())
        .unwrap();
    result
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.path, d.span.start.line, d.code))
        .collect()
}

#[test]
fn whitespace_edit_in_a_body_reexecutes_only_that_file() {
    let (mut host, log) = logged_host();
    let first = compute_all(&host, &log);
    assert!(
        first.iter().any(|q| q.starts_with("symbol_index")),
        "cold run builds the index: {first:?}"
    );

    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return w * h", "return   w  *  h\n\n");
    host.set_file_text("pkg/a.py", &text);
    let executed = compute_all(&host, &log);

    let a_id = id_of(&host, "pkg/a.py");
    assert_eq!(
        executed,
        vec![
            format!("file_symbols({a_id})"),
            format!("symbol_summaries({a_id})")
        ],
        "only the edited file's queries may execute; the index and other files are only validated"
    );
}

#[test]
fn moving_an_imported_definition_reexecutes_only_that_files_symbols() {
    let (mut host, log) = logged_host();
    let b = host.file("pkg/b.py").unwrap();
    let line_of_area = |host: &Host| match &host.analysis().imports(b).unwrap()[0].status {
        ImportStatus::Resolved {
            path,
            definition: Some(d),
        } => (path.clone(), d.start.line),
        other => panic!("{other:?}"),
    };
    assert_eq!(line_of_area(&host), ("pkg/a.py".to_string(), 1));

    // An edit that moves `area` down a line: its position changes, no summary does.
    let a = host.file("pkg/a.py").unwrap();
    let text = format!("\n{}", host.analysis().file_text(a));
    host.set_file_text("pkg/a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(line_of_area(&host), ("pkg/a.py".to_string(), 2));
    let executed = std::mem::take(&mut *log.lock().unwrap());
    let a_id = id_of(&host, "pkg/a.py");
    assert_eq!(
        executed,
        [format!("file_symbols({a_id})")],
        "the module map and b's own imports are only validated"
    );
}

#[test]
fn renaming_a_symbol_rebuilds_the_index_but_not_other_files() {
    let (mut host, log) = logged_host();
    compute_all(&host, &log);
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("def area", "def surface");
    host.set_file_text("pkg/a.py", &text);
    let executed = compute_all(&host, &log);

    let a_id = id_of(&host, "pkg/a.py");
    let others: Vec<&String> = executed
        .iter()
        .filter(|q| {
            !q.contains(&a_id) && !q.starts_with("symbol_index") && !q.starts_with("symbol_shard")
        })
        .collect();
    assert!(others.is_empty(), "other files re-executed: {others:?}");
    assert!(
        executed.iter().any(|q| q.starts_with("symbol_index")),
        "{executed:?}"
    );

    let query = |q: &str| SymbolQuery {
        query: q.into(),
        limit: 10,
        ..Default::default()
    };
    let found = host.analysis().symbol_search(&query("surface")).unwrap();
    assert_eq!(found.symbols.len(), 1);
    assert_eq!(found.symbols[0].path, "pkg/a.py");
    assert!(
        host.analysis()
            .symbol_search(&query("area"))
            .unwrap()
            .symbols
            .is_empty()
    );
}

#[test]
fn adding_a_definition_rebuilds_one_shard_of_the_symbol_index() {
    // 600 files: three shards of `SHARD_FILES` (256) files.
    let (mut host, log) = logged_host_with(&chained_modules(600));
    compute_all(&host, &log);
    let text = host
        .analysis()
        .file_text(host.file("m599.py").unwrap())
        .to_string();
    host.set_file_text("m599.py", &format!("{text}\ndef f1():\n    return 0\n"));
    let executed = compute_all(&host, &log);
    let index: Vec<&str> = executed
        .iter()
        .filter(|q| q.starts_with("symbol_"))
        .map(|q| q.split('(').next().unwrap())
        .collect();
    assert_eq!(index, ["symbol_index", "symbol_shard", "symbol_summaries"]);

    // A name in two shards (m1.py in the first, m599.py in the third) comes in workspace
    // order, before the names it is a prefix of (`f10`, in m10.py).
    let found = host
        .analysis()
        .symbol_search(&SymbolQuery {
            query: "f1".into(),
            limit: 3,
            ..Default::default()
        })
        .unwrap();
    let listed: Vec<(&str, &str)> = found
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.path.as_str()))
        .collect();
    assert_eq!(
        listed,
        [("f1", "m1.py"), ("f1", "m599.py"), ("f10", "m10.py")]
    );
    // Every `f<i>` whose `i` has a 1 in it (a subsequence of `f1`), and the added `f1`.
    assert_eq!(found.total, 195 + 1);
}

#[test]
fn positions_follow_an_edit_above_a_symbol() {
    let (mut host, _log) = logged_host();
    let query = SymbolQuery {
        query: "scale".into(),
        limit: 10,
        ..Default::default()
    };
    let before = host.analysis().symbol_search(&query).unwrap();
    assert_eq!(before.symbols[0].name_span.start.line, 5);
    let a = host.file("pkg/a.py").unwrap();
    let text = format!("# header\n\n{}", host.analysis().file_text(a));
    host.set_file_text("pkg/a.py", &text);
    let after = host.analysis().symbol_search(&query).unwrap();
    assert_eq!(after.symbols[0].name_span.start.line, 7);
}

#[test]
fn an_edit_in_a_body_reresolves_only_that_file_for_references() {
    let (mut host, log) = logged_host();
    let query = ReferenceQuery {
        limit: 100,
        ..Default::default()
    };
    let references = |host: &Host| -> Vec<(String, u32)> {
        let found = host
            .analysis()
            .references_by_name("pkg.a.area", &query)
            .unwrap();
        found
            .references
            .iter()
            .map(|r| (r.path.clone(), r.span.start.line))
            .collect()
    };
    assert_eq!(
        references(&host),
        [("pkg/a.py".to_string(), 1), ("pkg/b.py".to_string(), 1)]
    );

    // Inside a function body, no new word: the identifier index and b's names stay valid.
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return w * h", "return (w * h)");
    host.set_file_text("pkg/a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(
        references(&host),
        [("pkg/a.py".to_string(), 1), ("pkg/b.py".to_string(), 1)]
    );
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    let a_id = id_of(&host, "pkg/a.py");
    assert_eq!(
        executed,
        [
            format!("file_identifiers({a_id})"),
            format!("file_names({a_id})"),
            format!("file_symbols({a_id})"),
            format!("line_index({a_id})"),
        ],
        "only the edited file's queries may execute"
    );
}

/// The workspace import graph at both granularities, then the names of the queries that
/// executed (without their ids), sorted.
fn graphs(host: &Host, log: &Mutex<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    log.lock().unwrap().clear();
    let mut cycles = Vec::new();
    for granularity in [Granularity::File, Granularity::Package] {
        let query = GraphQuery {
            granularity,
            ..Default::default()
        };
        cycles.extend(host.analysis().import_graph(&query).unwrap().cycles);
    }
    let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
        .into_iter()
        .map(|q| q.split('(').next().unwrap_or_default().to_string())
        .collect();
    executed.sort();
    (executed, cycles)
}

#[test]
fn the_import_graph_reruns_when_imports_change_not_when_bodies_do() {
    let (mut host, log) = logged_host();
    let (first, _) = graphs(&host, &log);
    assert!(first.contains(&"import_graph".to_string()), "{first:?}");
    assert!(first.contains(&"package_graph".to_string()), "{first:?}");

    // An edit inside the body of the function b imports: a's symbols move, and b's
    // resolution (which names `area`'s definition) runs again, then backdates.
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return w * h", "total = w * h\n    return total");
    host.set_file_text("pkg/a.py", &text);
    let (executed, cycles) = graphs(&host, &log);
    assert_eq!(
        executed,
        ["file_dependencies", "file_imports", "file_symbols"],
        "the graphs are only validated"
    );
    assert!(cycles.is_empty());

    // An import that closes a cycle: the graphs run again and find it.
    let text = format!("import pkg.b\n{text}");
    host.set_file_text("pkg/a.py", &text);
    let (executed, cycles) = graphs(&host, &log);
    for query in ["import_graph", "package_graph"] {
        assert!(executed.contains(&query.to_string()), "{executed:?}");
    }
    assert_eq!(
        cycles,
        [vec!["pkg/a.py".to_string(), "pkg/b.py".to_string()]],
        "a file cycle; both files are in one package, so no package cycle"
    );
}

#[test]
fn editing_a_rust_use_leaves_the_module_map_valid() {
    let (mut host, log) = logged_host();
    let lib = host.file("src/lib.rs").unwrap();
    let statuses = |host: &Host| -> Vec<String> {
        let imports = host.analysis().imports(lib).unwrap();
        imports.iter().map(|i| i.status.to_string()).collect()
    };
    host.set_file_text(
        "src/lib.rs",
        "use std::fmt;\npub fn other() -> u32 {\n    1\n}\n",
    );
    assert_eq!(statuses(&host), ["external (std)"]);

    // Another `use`: the file's imports change, its `mod` declarations do not.
    host.set_file_text(
        "src/lib.rs",
        "use core::fmt;\npub fn other() -> u32 {\n    1\n}\n",
    );
    log.lock().unwrap().clear();
    assert_eq!(statuses(&host), ["external (core)"]);
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    // The new import is resolved once: its memo is keyed by the import as written.
    let resolved = executed
        .iter()
        .filter(|q| q.starts_with("resolved("))
        .count();
    executed.retain(|q| !q.starts_with("resolved("));
    assert_eq!(resolved, 1, "{executed:?}");
    let id = id_of(&host, "src/lib.rs");
    assert_eq!(
        executed,
        [
            format!("file_imports({id})"),
            format!("file_symbols({id})"),
            format!("line_index({id})"),
            format!("rust_mod_decls({id})"),
            // Read by the new import's resolution (the file's definitions by name).
            format!("symbol_summaries({id})"),
        ],
        "the module map is only validated"
    );
}

#[test]
fn an_edit_inside_a_macro_body_reexecutes_only_that_file() {
    let (mut host, log) = logged_host();
    let body = |inside: &str| {
        format!("cfg_rt! {{\n    pub fn spawn_blocking() -> u32 {{\n        {inside}\n    }}\n}}\n")
    };
    host.set_file_text("src/lib.rs", &body("1"));
    compute_all(&host, &log);

    host.set_file_text("src/lib.rs", &body("1 + 2"));
    let executed = compute_all(&host, &log);
    let id = id_of(&host, "src/lib.rs");
    assert_eq!(
        executed,
        [
            format!("file_symbols({id})"),
            format!("symbol_summaries({id})")
        ],
        "the symbol inside the macro body did not change: the index is only validated"
    );
    let found = host.analysis().symbol_search(&SymbolQuery {
        query: "spawn_blocking".into(),
        limit: 10,
        ..Default::default()
    });
    let found = found.unwrap();
    let lines: Vec<(String, u32)> = found
        .symbols
        .iter()
        .map(|s| (s.path.clone(), s.name_span.start.line))
        .collect();
    assert_eq!(lines, [("src/lib.rs".to_string(), 2)]);
}

#[test]
fn an_edit_in_a_body_rechecks_only_that_file() {
    let (mut host, log) = logged_host();
    assert_eq!(
        checked(&host),
        ["pkg/b.py:1 SX006"],
        "b imports area unused"
    );

    // A new undefined name inside a body of a: a is checked again, b's answer is reused.
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return w * h", "return w * hh");
    host.set_file_text("pkg/a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(checked(&host), ["pkg/a.py:2 SX005", "pkg/b.py:1 SX006"]);
    let executed = executed_checks(&log);
    let a_id = id_of(&host, "pkg/a.py");
    let b_id = id_of(&host, "pkg/b.py");
    // `file_diagnostics` is keyed by (workspace, file), an interned id of its own: one run.
    // The first undefined name asks who provides it (for the fix importing it): the index
    // is built from every file's definitions, once.
    assert_eq!(
        executed,
        [
            "definer_index".to_string(),
            "definers".to_string(),
            // b's unused import names a fix only if no file imports it from b: the import
            // graph is brought up to date (a's imports read again, equal, so it stands).
            "file_dependencies".to_string(),
            "file_diagnostics".to_string(),
            format!("file_imports({a_id})"),
            format!("file_names({a_id})"),
            format!("file_symbols({a_id})"),
            format!("line_index({a_id})"),
            // b's import of `area` reads a's names: re-computed, equal, so b is not re-checked.
            format!("module_names({a_id})"),
            format!("python_definitions({a_id})"),
            format!("python_definitions({b_id})"),
            // What every check reads: a's, from its new diagnostics (no persistent cache).
            "recorded_diagnostics".to_string(),
            format!("syntax_errors({a_id})"),
        ],
        "only the edited file is checked again"
    );
}

#[test]
fn an_edit_in_a_callees_body_does_not_recheck_its_callers() {
    // b's call is judged by a's signature (SX010), read through the position-free
    // `python_signatures`: a body edit in a re-runs that, finds the same signature, and
    // b's answer is reused.
    let (mut host, log) = logged_host_with(
        r#"
//- a.py
def area(w, h):
    return w * h
//- b.py
from a import area
area(1)
"#,
    );
    let check = |host: &Host| -> Vec<String> {
        let result = host
            .analysis()
            .check(&sextant::ide::CheckQuery::default())
            .unwrap();
        result
            .diagnostics
            .iter()
            .map(|d| format!("{}:{} {} {}", d.path, d.span.start.line, d.code, d.message))
            .collect()
    };
    assert_eq!(
        check(&host),
        ["b.py:2 SX010 area() missing 1 required positional argument: 'h'"]
    );
    let a = host.file("a.py").unwrap();
    let text = host.analysis().file_text(a).replace("w * h", "h * w");
    host.set_file_text("a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(
        check(&host),
        ["b.py:2 SX010 area() missing 1 required positional argument: 'h'"]
    );
    let executed = executed_checks(&log);
    let a_id = id_of(&host, "a.py");
    assert_eq!(
        executed,
        [
            "file_diagnostics".to_string(),
            format!("file_names({a_id})"),
            format!("file_symbols({a_id})"),
            // b's import of `area` reads a's names too: equal, so b is not re-checked.
            format!("module_names({a_id})"),
            format!("python_signatures({a_id})"),
            format!("syntax_errors({a_id})"),
        ],
        "a is checked again, b is not"
    );

    // A changed signature re-checks b.
    let text = host
        .analysis()
        .file_text(a)
        .replace("def area(w, h)", "def area(w, h=1)");
    host.set_file_text("a.py", &text);
    assert_eq!(check(&host), Vec::<String>::new());
}

#[test]
fn an_edit_in_a_typescript_body_rechecks_only_that_file() {
    let (mut host, log) = logged_host_with(
        r#"
//- src/a.ts
export function area(w: number, h: number): number {
    return w * h;
}
export const spare = 1;
//- src/b.ts
import { area } from "./a";
import { spare } from "./a";
export const twice = area(2, 2) * 2 + appVersion;
//- src/env.d.ts
declare const appVersion: number;
"#,
    );
    assert_eq!(checked(&host), ["src/b.ts:2 SX006"]);

    // A new undefined name inside a body of a: a is checked again (its global names and
    // exports, read by other files' checks, are the same), b's answer is reused.
    let a = host.file("src/a.ts").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return w * h", "return w * hh");
    host.set_file_text("src/a.ts", &text);
    log.lock().unwrap().clear();
    assert_eq!(checked(&host), ["src/a.ts:2 SX005", "src/b.ts:2 SX006"]);
    let executed = executed_checks(&log);
    let a_id = id_of(&host, "src/a.ts");
    let b_id = id_of(&host, "src/b.ts");
    assert_eq!(
        executed,
        [
            // The first undefined name asks who exports it (for the fix importing it).
            "definer_index".to_string(),
            "definers".to_string(),
            // b's call of `area` (SX010) reads a's signatures: equal, so b is not re-checked.
            format!("ecmascript_signatures({a_id})"),
            "file_diagnostics".to_string(),
            format!("file_imports({a_id})"),
            format!("file_imports({b_id})"),
            format!("file_names({a_id})"),
            format!("file_symbols({a_id})"),
            format!("line_index({a_id})"),
            format!("module_facts({a_id})"),
            "recorded_diagnostics".to_string(),
            format!("syntax_errors({a_id})"),
        ],
        "only the edited file is checked again"
    );

    // A changed signature re-checks b.
    let text = host
        .analysis()
        .file_text(a)
        .replace("area(w: number, h: number)", "area(w: number)");
    host.set_file_text("src/a.ts", &text);
    assert_eq!(
        checked(&host),
        ["src/a.ts:2 SX005", "src/b.ts:2 SX006", "src/b.ts:3 SX010"]
    );
}

#[test]
fn a_go_package_is_checked_across_files_from_summaries() {
    let (mut host, log) = logged_host_with(
        r#"
//- pkg/a.go
package pkg

var Shared = 1

func Area(w, h int) int {
	return w * h
}
//- pkg/b.go
package pkg

var Shared = 2

func use() int {
	return Area(1)
}
"#,
    );
    assert_eq!(
        checked(&host),
        ["pkg/a.go:3 SX009", "pkg/b.go:3 SX009", "pkg/b.go:6 SX010"]
    );
    let executed = |log: &Mutex<Vec<String>>| {
        let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
            .into_iter()
            .map(|q| match q.strip_prefix("file_diagnostics(") {
                Some(_) => "file_diagnostics".to_string(),
                None => q,
            })
            .collect();
        executed.sort();
        executed
    };

    // An edit inside a body of a: b's check reads a's package-level names and function
    // signatures only, which did not change, so b's answer is reused.
    let text = host
        .analysis()
        .file_text(host.file("pkg/a.go").unwrap())
        .replace("w * h", "w * h * 2");
    host.set_file_text("pkg/a.go", &text);
    log.lock().unwrap().clear();
    assert_eq!(
        checked(&host),
        ["pkg/a.go:3 SX009", "pkg/b.go:3 SX009", "pkg/b.go:6 SX010"]
    );
    let a_id = id_of(&host, "pkg/a.go");
    assert_eq!(
        executed(&log),
        [
            "file_diagnostics".to_string(),
            format!("file_symbols({a_id})"),
            format!("go_file_facts({a_id})"),
            format!("go_signatures({a_id})"),
            format!("line_index({a_id})"),
            format!("symbol_summaries({a_id})"),
            format!("syntax_errors({a_id})"),
        ],
        "only the edited file is checked again"
    );

    // A parameter fewer for `Area`: b's call of it is judged again, and now fits.
    let text = host
        .analysis()
        .file_text(host.file("pkg/a.go").unwrap())
        .replace(
            "func Area(w, h int) int {\n\treturn w * h * 2",
            "func Area(w int) int {\n\treturn w",
        );
    host.set_file_text("pkg/a.go", &text);
    log.lock().unwrap().clear();
    assert_eq!(checked(&host), ["pkg/a.go:3 SX009", "pkg/b.go:3 SX009"]);
    let reruns = executed(&log)
        .iter()
        .filter(|q| *q == "file_diagnostics")
        .count();
    assert_eq!(reruns, 2, "a and b are both checked again");

    // Renaming a's `Shared` changes its package-level names: both files are checked again.
    let text = host
        .analysis()
        .file_text(host.file("pkg/a.go").unwrap())
        .replace("var Shared", "var Own");
    host.set_file_text("pkg/a.go", &text);
    log.lock().unwrap().clear();
    assert_eq!(checked(&host), Vec::<String>::new());
    let reruns = executed(&log)
        .iter()
        .filter(|q| *q == "file_diagnostics")
        .count();
    assert_eq!(reruns, 2, "a and b are both checked again");
}

#[test]
fn renaming_an_imported_definition_rechecks_the_importer() {
    let (mut host, log) = logged_host();
    assert_eq!(checked(&host), ["pkg/b.py:1 SX006"]);

    // a no longer binds `area`: b's module-level names summary of a changed, so b is
    // checked again and its import is reported.
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("def area(", "def surface(");
    host.set_file_text("pkg/a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(
        checked(&host),
        ["pkg/b.py:1 SX004", "pkg/b.py:1 SX006"],
        "b imports a name a no longer binds"
    );
    let executed = std::mem::take(&mut *log.lock().unwrap());
    let runs = executed
        .iter()
        .filter(|q| q.starts_with("file_diagnostics("))
        .count();
    assert_eq!(runs, 2, "both files are checked again: {executed:?}");
}

#[test]
fn import_cycles_are_built_only_when_selected_and_a_body_edit_rechecks_only_that_file() {
    let (mut host, log) = logged_host_with(
        r#"
//- pkg/a.py
from pkg import b

def f():
    return b.g()
//- pkg/b.py
from pkg import a

def g():
    return a
//- pkg/c.py
def h():
    return 1
"#,
    );
    let cycles = sextant::ide::CheckQuery {
        codes: sextant::ide::CodeSelection::new(&["SX012".to_string()], &[]).unwrap(),
        ..sextant::ide::CheckQuery::default()
    };
    let check = |host: &Host, query: &sextant::ide::CheckQuery| -> Vec<String> {
        host.analysis()
            .check(query)
            .unwrap()
            .diagnostics
            .iter()
            .map(|d| format!("{}:{} {} {}", d.path, d.span.start.line, d.code, d.message))
            .collect()
    };
    // Queries keyed by (workspace, file), an interned id of their own, named without it.
    let executed = |log: &Mutex<Vec<String>>| -> Vec<String> {
        let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
            .into_iter()
            .map(|q| {
                for keyed in [
                    "file_diagnostics(",
                    "cycle_edges(",
                    "file_import_cycles(",
                    "file_dependencies(",
                ] {
                    if q.starts_with(keyed) {
                        return keyed.trim_end_matches('(').to_string();
                    }
                }
                q
            })
            .collect();
        executed.sort();
        executed
    };

    log.lock().unwrap().clear();
    assert_eq!(
        check(&host, &sextant::ide::CheckQuery::default()),
        Vec::<String>::new()
    );
    let default_run = executed(&log);
    assert!(
        default_run.iter().all(|q| !q.starts_with("import_cycles")
            && !q.starts_with("cycle_edges")
            && !q.starts_with("file_import_cycles")
            && !q.starts_with("file_dependencies")),
        "a default check builds no import graph: {default_run:?}"
    );

    assert_eq!(
        check(&host, &cycles),
        [
            "pkg/a.py:1 SX012 import cycle: pkg/a.py → pkg/b.py → pkg/a.py",
            "pkg/b.py:1 SX012 import cycle: pkg/b.py → pkg/a.py → pkg/b.py",
        ]
    );

    // An edit inside a body of a: a's queries run again; the cycles and b's answer are
    // reused.
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("return b.g()", "return b.g() + 1");
    host.set_file_text("pkg/a.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(check(&host, &cycles).len(), 2);
    let a_id = id_of(&host, "pkg/a.py");
    assert_eq!(
        executed(&log),
        [
            "cycle_edges".to_string(),
            "file_diagnostics".to_string(),
            "file_import_cycles".to_string(),
            // a's imports, re-read and equal: `file_dependencies` and `import_cycles` are
            // validated, not run.
            format!("file_imports({a_id})"),
            format!("file_names({a_id})"),
            format!("file_symbols({a_id})"),
            format!("line_index({a_id})"),
            format!("syntax_errors({a_id})"),
        ],
        "only the edited file is checked again"
    );
}

#[test]
fn a_repeated_rename_is_a_lookup_and_an_unrelated_edit_leaves_it_valid() {
    let (mut host, log) = logged_host();
    let rename = |host: &Host| {
        host.analysis()
            .rename_by_name("pkg.a.area", "size", Default::default())
            .unwrap()
            .expect("the rename is proposed")
    };
    let executed_renames = |log: &Mutex<Vec<String>>| -> usize {
        std::mem::take(&mut *log.lock().unwrap())
            .iter()
            .filter(|q| q.starts_with("rename_plan"))
            .count()
    };
    let first = rename(&host);
    assert_eq!(first.change.files.len(), 2);
    assert_eq!(executed_renames(&log), 1, "the first dry run computes");

    log.lock().unwrap().clear();
    assert_eq!(rename(&host), first);
    assert_eq!(
        std::mem::take(&mut *log.lock().unwrap()),
        Vec::<String>::new(),
        "asking again on an unchanged workspace executes nothing"
    );

    // An edit inside a function body of a file the rename does not touch or read.
    host.set_file_text("src/lib.rs", "pub fn other() -> u32 {\n    2\n}\n");
    assert_eq!(rename(&host), first);
    assert_eq!(
        executed_renames(&log),
        0,
        "an unrelated edit leaves the rename valid"
    );

    // An edit to a file the rename edits: computed again, against the new text.
    let b = host.file("pkg/b.py").unwrap();
    let text = format!("{}\nprint(area(2, 3))\n", host.analysis().file_text(b));
    host.set_file_text("pkg/b.py", &text);
    let again = rename(&host);
    assert_eq!(executed_renames(&log), 1);
    assert_eq!(again.edits.len(), first.edits.len() + 1);
}

/// A workspace of `count` Python modules, each importing the next three, so that checking
/// one reads summaries of modules not yet checked.
fn chained_modules(count: usize) -> String {
    (0..count)
        .map(|i| {
            let imports: String = (1..=3)
                .map(|d| format!("from m{} import f{}\n", (i + d) % count, (i + d) % count))
                .collect();
            let calls: String = (1..=3)
                .map(|d| format!("    f{}()\n", (i + d) % count))
                .collect();
            format!("//- m{i}.py\n{imports}\ndef f{i}():\n{calls}    return {i}\n")
        })
        .collect()
}

#[test]
fn name_tables_beyond_their_bound_are_evicted_and_recomputed_only_when_asked() {
    // `file_names`'s LRU bound (semantic/names/mod.rs): small tables, at most 256 of them.
    name_tables_are_kept_up_to(None, |_| 256);
}

#[test]
fn under_a_memory_limit_fewer_name_tables_are_kept() {
    // A sixty-fourth of 8 MiB: as many tables of these modules' size as fit 128 KiB.
    name_tables_are_kept_up_to(Some(8 << 20), |tables| {
        let fit = tables.budget() / (tables.bytes() / tables.values());
        assert_eq!(tables.budget(), 128 << 10);
        assert!((4..256).contains(&fit), "{fit} tables fit");
        fit
    });
}

/// Computes every file's names, and asks `bound` how many the next eviction keeps, given
/// the tally of them all.
fn name_tables_are_kept_up_to(memory_limit: Option<u64>, bound: impl Fn(&Tally) -> usize) {
    const FILES: usize = 600;
    let (mut host, log) = logged_host_limited(&chained_modules(FILES), memory_limit);
    let names_of_every_file = |host: &Host| {
        let (db, workspace) = (
            host.analysis_host().raw_database(),
            host.analysis_host().raw_workspace(),
        );
        for &file in workspace.files(db).iter() {
            file_names(db, file);
        }
    };
    let executed_names = |log: &Mutex<Vec<String>>| -> usize {
        std::mem::take(&mut *log.lock().unwrap())
            .iter()
            .filter(|q| q.starts_with("file_names("))
            .count()
    };
    names_of_every_file(&host);
    let diagnostics = checked(&host);
    assert_eq!(executed_names(&log), FILES);
    let bound = bound(&host.analysis().name_tables());

    // What a server does when idle: without a change, salsa would keep every table.
    host.evict_unused();
    log.lock().unwrap().clear();
    assert_eq!(checked(&host), diagnostics);
    assert_eq!(
        std::mem::take(&mut *log.lock().unwrap()),
        Vec::<String>::new(),
        "the checks stay valid: an evicted table keeps its dependencies"
    );
    names_of_every_file(&host);
    assert_eq!(
        executed_names(&log),
        FILES - bound,
        "the tables over the bound were dropped"
    );
    names_of_every_file(&host);
    assert_eq!(
        executed_names(&log),
        0,
        "and are kept again until the next eviction"
    );
}

fn parses(host: &Host) -> u64 {
    use sextant::db::Db;
    host.analysis().raw_database().tree_cache().parse_count()
}

#[test]
fn a_cold_check_parses_each_file_about_once() {
    const FILES: usize = 80;
    let fixture = chained_modules(FILES);
    // Indexing and then checking: the index's trees are gone when the check starts.
    let (apart, _) = logged_host_with(&fixture);
    apart.analysis().prime_caches(&|_| {}).unwrap();
    let checked = apart.analysis().check(&Default::default()).unwrap();
    assert_eq!(checked.summary.total, 0, "{:?}", checked.diagnostics);
    assert!(parses(&apart) >= (FILES * 2) as u64, "{}", parses(&apart));
    // Checking each file as it is indexed (what `sextant check` does), each file's tree
    // kept while its check reads the modules it imports.
    let (together, _) = logged_host_with(&fixture);
    let priming = sextant::ide::Priming {
        identifiers: false,
        diagnostics: true,
    };
    together
        .analysis()
        .prime_caches_with(priming, &|_| {})
        .unwrap();
    let parsed = parses(&together);
    let checked = together.analysis().check(&Default::default()).unwrap();
    assert_eq!(checked.summary.total, 0, "{:?}", checked.diagnostics);
    assert_eq!(
        parses(&together),
        parsed,
        "the check after priming parsed again"
    );
    // A module read before its own turn may be parsed twice when the two fall in different
    // workers' shares (measured: 106-112 parses here, 182-188 apart).
    assert!(
        parsed <= (FILES * 8 / 5) as u64,
        "{parsed} parses of {FILES} files"
    );
}

/// Formats the two files through `Analysis::format` and returns the queries that executed.
fn formatted(host: &Host, log: &Mutex<Vec<String>>) -> (Vec<bool>, Vec<String>) {
    log.lock().unwrap().clear();
    let analysis = host.analysis();
    let changed = ["src/lib.rs", "pkg/a.py"]
        .iter()
        .map(|path| {
            let file = analysis.file(path).unwrap();
            let result = analysis.format(file, Default::default()).unwrap().unwrap();
            result.changed()
        })
        .collect();
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    (changed, executed)
}

#[test]
fn format_results_are_memoized_and_an_edit_elsewhere_keeps_them() {
    let (mut host, log) = logged_host();
    let (changed, cold) = formatted(&host, &log);
    assert_eq!(changed, [false, false]);
    let formats = |executed: &[String]| {
        executed
            .iter()
            .filter(|q| q.starts_with("file_format("))
            .count()
    };
    assert_eq!(formats(&cold), 2, "{cold:?}");

    let (_, again) = formatted(&host, &log);
    assert_eq!(again, Vec::<String>::new(), "asking twice is a lookup");

    let b = host.analysis().file_text(host.file("pkg/b.py").unwrap());
    host.set_file_text("pkg/b.py", &format!("{b}\n\n\n\nx  = 1   \n"));
    let (changed, after_other_edit) = formatted(&host, &log);
    assert_eq!(changed, [false, false]);
    assert_eq!(
        after_other_edit,
        Vec::<String>::new(),
        "an edit to another file re-executes no format"
    );

    host.set_file_text("src/lib.rs", "pub fn other() -> u32 {\n1\n}\n");
    let (changed, after_own_edit) = formatted(&host, &log);
    assert_eq!(changed, [true, false]);
    assert_eq!(formats(&after_own_edit), 1, "{after_own_edit:?}");
}

/// The skeletons of every file through `Analysis::skeleton`, and the skeleton queries that
/// executed.
fn skeletons(host: &Host, log: &Mutex<Vec<String>>) -> (String, Vec<String>) {
    log.lock().unwrap().clear();
    let query = SkeletonQuery {
        paths: Vec::new(),
        offset: 0,
        line: None,
        budget: Budget {
            encoding: Default::default(),
            max_tokens: 100_000,
        },
    };
    let answer = host.analysis().skeleton(&query).unwrap();
    let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
        .into_iter()
        .filter(|q| q.starts_with("file_skeleton("))
        .collect();
    executed.sort();
    (answer.text, executed)
}

#[test]
fn skeletons_are_memoized_per_file_and_an_edit_reruns_only_that_file() {
    let (mut host, log) = logged_host();
    let (text, cold) = skeletons(&host, &log);
    assert_eq!(cold.len(), 3, "{cold:?}");
    // A body no longer than its marker stays.
    assert!(
        text.contains("def area(w, h):\n    return w * h\n"),
        "{text}"
    );

    let (again, warm) = skeletons(&host, &log);
    assert_eq!(
        (again, warm),
        (text.clone(), Vec::new()),
        "asking twice is a lookup"
    );

    host.set_file_text(
        "src/lib.rs",
        "pub fn other() -> u32 {\n    let two = 1 + 1;\n    two\n}\n",
    );
    let (edited, after_edit) = skeletons(&host, &log);
    assert_eq!(
        after_edit,
        [format!("file_skeleton({})", id_of(&host, "src/lib.rs"))]
    );
    assert!(
        edited.contains("pub fn other() -> u32 { /* …2-3 */ }"),
        "{edited}"
    );
}

/// The repo map's text, and the reference-graph queries that executed for it, by name
/// (`file_references` is keyed by (workspace, file), an interned id of its own).
/// A repo map of the whole workspace, large enough for every definition.
fn whole_repo_map() -> RepoMapRequest {
    RepoMapRequest {
        path_prefix: None,
        focus: Vec::new(),
        budget: Budget {
            encoding: Default::default(),
            max_tokens: 100_000,
        },
    }
}

fn repo_map(host: &Host, log: &Mutex<Vec<String>>) -> (String, Vec<String>) {
    log.lock().unwrap().clear();
    let map = host.analysis().repo_map(&whole_repo_map()).unwrap();
    let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
        .into_iter()
        .map(|q| q.split('(').next().unwrap_or_default().to_string())
        .filter(|q| {
            ["file_references", "reference_graph", "definition_ranks"].contains(&q.as_str())
        })
        .collect();
    executed.sort();
    (map.text, executed)
}

#[test]
fn reference_edges_are_memoized_per_file_and_ranks_rerun_only_when_edges_change() {
    let (mut host, log) = logged_host();
    let (text, cold) = repo_map(&host, &log);
    assert_eq!(
        cold.len(),
        5,
        "three files' edges, the graph, the ranks: {cold:?}"
    );
    assert_eq!(
        repo_map(&host, &log),
        (text.clone(), Vec::new()),
        "a lookup"
    );

    // A body edit in a file nothing refers to: its edges alone run again and backdate, so
    // the graph and the ranks are only validated.
    host.set_file_text(
        "src/lib.rs",
        "pub fn other() -> u32 {\n    let two = 1 + 1;\n    two\n}\n",
    );
    let (_, after_body_edit) = repo_map(&host, &log);
    assert_eq!(after_body_edit, ["file_references"]);

    // A new use changes that file's edges: the graph and the ranks run again, the other
    // files' edges do not.
    let b = host.file("pkg/b.py").unwrap();
    let text = host
        .analysis()
        .file_text(b)
        .replace("return 1", "return area(1, 2)");
    host.set_file_text("pkg/b.py", &text);
    let (map, after_new_use) = repo_map(&host, &log);
    assert_eq!(
        after_new_use,
        ["definition_ranks", "file_references", "reference_graph"]
    );
    assert!(
        map.starts_with("pkg/a.py:\n1: def area(w, h)\n"),
        "area is used now: {map}"
    );
}

/// The fixes of app/main.py's diagnostics, as `code: title`.
fn fixes_of_main(host: &Host) -> Vec<String> {
    let result = host
        .analysis()
        .check(&sextant::ide::CheckQuery::default())
        .unwrap();
    result
        .diagnostics
        .iter()
        .filter(|d| d.path == "app/main.py")
        .map(|d| {
            let title = d.fix.as_ref().map_or("no fix", |f| f.title.as_str());
            format!("{}: {title}", d.code)
        })
        .collect()
}

#[test]
fn the_missing_import_index_is_not_rebuilt_by_an_edit_that_keeps_definitions() {
    let (mut host, log) = logged_host_with(
        r#"
//- pkg/shapes.py
def area(w, h):
    return w * h
//- pkg/other.py
def unrelated():
    return 1
//- app/main.py
print(area(1, 2))
"#,
    );
    let import = "SX005: Import 'area' from 'pkg.shapes'";
    assert_eq!(fixes_of_main(&host), [import]);

    // A blank line and a body edit in the module providing `area`: its definitions are the
    // same, so neither the index nor main.py's check runs again.
    let shapes = host.file("pkg/shapes.py").unwrap();
    let text = host.analysis().file_text(shapes);
    let text = format!("\n{}", text.replace("w * h", "h * w"));
    host.set_file_text("pkg/shapes.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(fixes_of_main(&host), [import]);
    let shapes_id = id_of(&host, "pkg/shapes.py");
    assert_eq!(
        executed_checks(&log),
        [
            "file_diagnostics".to_string(),
            format!("file_imports({shapes_id})"),
            format!("file_names({shapes_id})"),
            format!("file_symbols({shapes_id})"),
            format!("python_definitions({shapes_id})"),
            format!("syntax_errors({shapes_id})"),
        ],
        "only the edited file is checked again"
    );

    // A new definition of another name rebuilds the index, but `area`'s answer is the same:
    // main.py is not checked again.
    let other = host.file("pkg/other.py").unwrap();
    let text = format!(
        "{}def perimeter(s):\n    return s\n",
        host.analysis().file_text(other)
    );
    host.set_file_text("pkg/other.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(fixes_of_main(&host), [import]);
    let executed = executed_checks(&log);
    assert_eq!(
        executed.iter().filter(|q| *q == "file_diagnostics").count(),
        1,
        "only pkg/other.py is checked again: {executed:?}"
    );
    assert!(
        executed.iter().any(|q| q == "definer_index"),
        "{executed:?}"
    );

    // A second `area` makes the name ambiguous: main.py is checked again, without a fix.
    let text = format!("{text}def area(w, h):\n    return 0\n");
    host.set_file_text("pkg/other.py", &text);
    assert_eq!(fixes_of_main(&host), ["SX005: no fix"]);
}

/// A dry run's scratch database is kept for the next one: only the changed file's queries
/// run again there, and it follows the workspace (a stale one would miss an edit).
#[test]
fn a_dry_runs_scratch_database_is_kept_warm_and_follows_the_workspace() {
    let (mut host, log) = logged_host();
    let b_with = |call: &str, arg: u32| {
        let text =
            format!("from pkg.a import {call}\n\ndef unrelated():\n    return {call}({arg}, 2)\n");
        std::collections::BTreeMap::from([("pkg/b.py".to_string(), text)])
    };
    let new_diagnostics = |host: &Host, texts| -> Vec<String> {
        let found = host.analysis().new_diagnostics(&texts).unwrap();
        found
            .iter()
            .map(|d| format!("{}:{} {}", d.path, d.span.start.line, d.code))
            .collect()
    };
    assert_eq!(
        new_diagnostics(&host, b_with("area", 1)),
        Vec::<String>::new()
    );
    log.lock().unwrap().clear();
    assert_eq!(
        new_diagnostics(&host, b_with("area", 2)),
        Vec::<String>::new()
    );
    // Only b's queries ran (its id in the scratch database is not the workspace's): a's
    // names, which b imports, were kept from the first run.
    let executed = executed_checks(&log);
    let ids: std::collections::BTreeSet<&str> = executed
        .iter()
        .filter_map(|q| Some(q.split_once('(')?.1))
        .collect();
    assert_eq!(ids.len(), 1, "one file's queries: {executed:?}");
    let names: Vec<&str> = executed
        .iter()
        .map(|q| q.split('(').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "file_diagnostics",
            "file_names",
            "file_symbols",
            "syntax_errors"
        ]
    );

    // The workspace's a renames `area`: the kept scratch database sees it (a stale one
    // would call `surface` unknown, a new diagnostic).
    let a = host.file("pkg/a.py").unwrap();
    let text = host
        .analysis()
        .file_text(a)
        .replace("def area", "def surface");
    host.set_file_text("pkg/a.py", &text);
    assert_eq!(
        new_diagnostics(&host, b_with("surface", 3)),
        Vec::<String>::new()
    );
    assert_eq!(
        new_diagnostics(&host, b_with("volume", 3)),
        ["pkg/b.py:1 SX004"],
        "importing a name a does not define is new"
    );
}

/// The impact of `area` as text, and the impact queries that executed for it, by name.
fn impact_of_area(host: &Host, log: &Mutex<Vec<String>>) -> (String, Vec<String>) {
    log.lock().unwrap().clear();
    let query = ImpactQuery {
        seeds: vec![ImpactSeed::Definition(SymbolEditTarget::Name {
            name: "area".into(),
            path_prefix: None,
        })],
        max_depth: 20,
        limit: 100,
        tests_only: false,
        exact: false,
        budget: None,
    };
    let impact = host.analysis().impact(&query).unwrap().unwrap();
    let mut executed: Vec<String> = std::mem::take(&mut *log.lock().unwrap())
        .into_iter()
        .map(|q| q.split('(').next().unwrap_or_default().to_string())
        .filter(|q| ["file_references", "reference_graph", "file_tests"].contains(&q.as_str()))
        .collect();
    executed.sort();
    (impact.text, executed)
}

#[test]
fn impact_reads_memoized_graphs_and_an_edit_reruns_only_that_files_facts() {
    let (mut host, log) = logged_host();
    let (text, cold) = impact_of_area(&host, &log);
    assert_eq!(
        cold,
        [
            "file_references",
            "file_references",
            "file_references",
            "file_tests",
            "file_tests",
            "reference_graph"
        ],
        "three files' edges, the graph, and the tests of the seed's file and its importer's"
    );
    assert_eq!(impact_of_area(&host, &log), (text.clone(), Vec::new()));
    // A body edit elsewhere: that file's edges run again and backdate; the graph is only
    // validated and the seed's tests are untouched.
    host.set_file_text(
        "src/lib.rs",
        "pub fn other() -> u32 {\n    let two = 1 + 1;\n    two\n}\n",
    );
    assert_eq!(
        impact_of_area(&host, &log),
        (text, vec!["file_references".to_string()])
    );
    // A new use of `area`: b.py's edges and the graph run again; b.py's tests are its own
    // query, which backdates (b.py's symbols kept their names).
    let b = host.file("pkg/b.py").unwrap();
    let new_text = host
        .analysis()
        .file_text(b)
        .replace("return 1", "return area(1, 2)");
    host.set_file_text("pkg/b.py", &new_text);
    let (text, after_use) = impact_of_area(&host, &log);
    assert_eq!(
        after_use,
        ["file_references", "file_tests", "reference_graph"]
    );
    assert_eq!(
        text,
        "impact of pkg/a.py:1 function area\n2 dependents in 1 file, 0 tests among them\n\
         1 step:\n  pkg/b.py top level imports function area (pkg/a.py:1)\n  \
         pkg/b.py:3 function unrelated uses function area (pkg/a.py:1)\n"
    );
}

#[test]
fn implementations_are_memoized_and_a_body_edit_reruns_only_that_files_facts() {
    let fixture = r#"
//- base.py
class Shape:
    def area(self):
        return 0
//- square.py
from base import Shape

class Square(Shape):
    def area(self):
        return 4
//- circle.py
import base

class Circle(base.Shape):
    def area(self):
        return 3
"#;
    let (mut host, log) = logged_host_with(fixture);
    let subclasses = |host: &Host| -> Vec<(String, u32)> {
        let answer = host
            .analysis()
            .implementations_by_name("Shape", HierarchyDirection::Implementations, 100)
            .unwrap()
            .unwrap();
        answer
            .items
            .iter()
            .map(|i| (i.path.clone(), i.name_span.start.line))
            .collect()
    };
    let expected = [("circle.py".to_string(), 3), ("square.py".to_string(), 3)];
    assert_eq!(subclasses(&host), expected);

    // Asked again on the same revision: every fact is a lookup.
    log.lock().unwrap().clear();
    assert_eq!(subclasses(&host), expected);
    assert_eq!(*log.lock().unwrap(), Vec::<String>::new());

    // Inside a method body, no new word: only square.py's facts run again.
    let square = host.file("square.py").unwrap();
    let text = host
        .analysis()
        .file_text(square)
        .replace("return 4", "return (4)");
    host.set_file_text("square.py", &text);
    log.lock().unwrap().clear();
    assert_eq!(subclasses(&host), expected);
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    let id = id_of(&host, "square.py");
    assert_eq!(
        executed,
        [
            format!("file_hierarchy({id})"),
            format!("file_identifiers({id})"),
            format!("file_names({id})"),
            format!("file_symbols({id})"),
        ],
        "only the edited file's queries may execute"
    );

    // A new subclass written in that file is found at once.
    let text = format!("{text}\n\nclass Triangle(Shape):\n    pass\n");
    host.set_file_text("square.py", &text);
    assert_eq!(
        subclasses(&host),
        [
            ("circle.py".to_string(), 3),
            ("square.py".to_string(), 3),
            ("square.py".to_string(), 8),
        ]
    );
}

/// A crate whose modules import each other's names with star imports (`libc` has hundreds),
/// and a file reading `unbound` names that nothing defines.
fn star_imports_crate(unbound: usize) -> String {
    let modules = ["a", "b", "c", "d", "e"];
    let mut fixture = String::from("//- src/lib.rs\n");
    for m in modules {
        fixture.push_str(&format!("mod {m};\npub use {m}::*;\n"));
    }
    fixture.push_str("mod user;\n");
    for m in modules {
        fixture.push_str(&format!(
            "//- src/{m}.rs\nuse crate::*;\npub fn in_{m}() -> u32 {{\n    1\n}}\n"
        ));
    }
    fixture.push_str("//- src/user.rs\nuse crate::*;\npub fn user() -> u32 {\n");
    for i in 0..unbound {
        fixture.push_str(&format!("    let _ = unbound_{i};\n"));
    }
    fixture.push_str("    in_a() + in_e()\n}\n");
    fixture
}

#[test]
fn names_no_module_binds_resolve_no_imports_through_star_imports() {
    let resolutions = |unbound: usize| {
        let (host, log) = logged_host_with(&star_imports_crate(unbound));
        host.analysis().repo_map(&whole_repo_map()).unwrap();
        // The names the crate does define still resolve through the star imports.
        let user = host.file("src/user.rs").unwrap();
        let text = host.analysis().file_text(user);
        for (call, defined_in) in [("in_a()", "src/a.rs"), ("in_e()", "src/e.rs")] {
            let offset = text.find(call).unwrap();
            let found = host.analysis().definition(user, offset).unwrap();
            let paths: Vec<_> = found.iter().map(|d| d.path.as_deref()).collect();
            assert_eq!(paths, [Some(defined_in)], "{call}");
        }
        let mut counts = std::collections::BTreeMap::<String, usize>::new();
        for query in log.lock().unwrap().iter() {
            let name = query.split('(').next().unwrap_or_default();
            if ["resolved", "rust_star_closure"].contains(&name) {
                *counts.entry(name.to_string()).or_default() += 1;
            }
        }
        counts
    };
    // Each import resolved once (11 star imports, 6 `mod`s) and a star closure listed once
    // for each file a name was looked for in, however many names are left unbound. Before,
    // each unbound name was looked for as a path from every module the star imports reach:
    // names times modules resolutions (minutes on `libc`).
    let few = resolutions(2);
    assert_eq!(few, resolutions(40));
    assert_eq!(
        few,
        [
            ("resolved".to_string(), 17),
            ("rust_star_closure".to_string(), 6)
        ]
        .into_iter()
        .collect()
    );
}

/// Files of every family, each importing or calling into others of its family, and each
/// using a name `helper` it does not define (the fix adding an import asks which files
/// define it).
const FAMILIES: &str = r#"
//- pkg/a.py
def area(w, h):
    return w * h
//- pkg/b.py
from pkg.a import area

area(1)
helper()
//- web/shapes.ts
export function total(n: number): number { return n; }
//- web/main.ts
import { total } from './shapes';
total();
helper();
//- cmd/main.go
package main

func main() { area(1) }
//- cmd/util.go
package main

func area(w int, h int) int { return w * h }
//- src/lib.rs
mod util;
use crate::util::double;
//- src/util.rs
pub fn double(x: u32) -> u32 { x * 2 }
"#;

#[test]
fn a_check_reads_nothing_of_another_familys_files() {
    // The persistent cache keys a file's diagnostics by its own family's texts and every
    // file's path and language only (`checks/recorded.rs`): changing every fact of one
    // family's files (a new definition `helper`, a new signature) must re-check those files
    // alone.
    let families: [(&str, &[&str], &str); 4] = [
        (
            "python",
            &["pkg/a.py", "pkg/b.py"],
            "\ndef helper(x):\n    return x\n",
        ),
        (
            "ecmascript",
            &["web/shapes.ts", "web/main.ts"],
            "\nexport function helper(x: number) { return x; }\n",
        ),
        (
            "go",
            &["cmd/main.go", "cmd/util.go"],
            "\nfunc helper(x int) int { return x }\n",
        ),
        (
            "rust",
            &["src/lib.rs", "src/util.rs"],
            "\npub fn helper(x: u32) -> u32 { x }\n",
        ),
    ];
    for (family, paths, added) in families {
        let (mut host, log) = logged_host_with(FAMILIES);
        let before = checked(&host);
        for path in paths {
            let file = host.file(path).unwrap();
            let text = format!("{}{added}", host.analysis().file_text(file));
            host.set_file_text(path, &text);
        }
        log.lock().unwrap().clear();
        let after = checked(&host);
        let rechecked = executed_checks(&log)
            .iter()
            .filter(|q| *q == "file_diagnostics")
            .count();
        assert_eq!(rechecked, paths.len(), "{family}: {before:?} -> {after:?}");
    }
}

/// A workspace of `users` Python modules that import and call `helper` from `lib.py`, each
/// long enough for its text to be kept compressed.
fn users_of_one_helper(users: usize) -> String {
    let filler = "# a line that makes the text long enough to be kept compressed\n".repeat(10);
    let mut fixture = String::from("//- lib.py\ndef helper():\n    return 1\n");
    for i in 0..users {
        fixture += &format!(
            "//- u{i:03}.py\nfrom lib import helper\n\ndef f{i}():\n    return helper()\n{filler}"
        );
    }
    fixture
}

#[test]
fn a_reference_search_over_many_compressed_texts_keeps_a_bounded_number_of_name_tables() {
    // `TABLES_KEPT_IN_PASSING` (semantic/names/resolve.rs): where texts are kept compressed
    // the resolver keeps that many tables, the defining file's among them, and reads the
    // other files in passing; where they are kept whole, it keeps every table. The same for
    // the identifier index the search builds (`words_read_in_passing`): its shards read a
    // compressed text's words without keeping them.
    const USERS: usize = 150;
    const KEPT: usize = 64;
    let query = ReferenceQuery {
        limit: 1000,
        ..Default::default()
    };
    let search = |host: &Host| {
        let found = host
            .analysis()
            .references_by_name("helper", &query)
            .unwrap();
        let mut lines: Vec<String> = found
            .references
            .iter()
            .map(|r| format!("{}:{} {:?}", r.path, r.span.start.line, r.role))
            .collect();
        lines.sort();
        (found.total, found.files_searched, lines)
    };
    // Name tables and word sets (`file_identifiers`) computed and kept since last asked.
    let executed = |log: &Mutex<Vec<String>>| -> (usize, usize) {
        let log = std::mem::take(&mut *log.lock().unwrap());
        let count = |query: &str| log.iter().filter(|q| q.starts_with(query)).count();
        (count("file_names("), count("file_identifiers("))
    };

    let (whole, log) = logged_host_with(&users_of_one_helper(USERS));
    log.lock().unwrap().clear();
    let answer = search(&whole);
    assert_eq!(
        executed(&log),
        (1 + USERS, 1 + USERS),
        "texts kept whole: every table and every file's words"
    );

    // Under a memory limit, the server's idle moment compresses every text worth it.
    let (mut compressed, log) = logged_host_limited(&users_of_one_helper(USERS), Some(1 << 40));
    compressed.evict_unused();
    let (db, workspace) = (
        compressed.analysis_host().raw_database(),
        compressed.analysis_host().raw_workspace(),
    );
    let kept_compressed = workspace.files(db).iter();
    let kept_compressed = kept_compressed.filter(|f| f.stored_text(db).is_compressed());
    assert_eq!(
        kept_compressed.count(),
        USERS,
        "lib.py is too short to compress"
    );
    log.lock().unwrap().clear();
    let (total, files_searched, lines) = search(&compressed);
    assert_eq!(
        executed(&log),
        (KEPT, 0),
        "only the kept tables are memoized, and no file's words (its shard reads them)"
    );
    assert_eq!(
        (total, files_searched, &lines),
        (answer.0, answer.1, &answer.2)
    );
    assert_eq!((total, files_searched), (1 + 2 * USERS, 1 + USERS));
    assert_eq!(lines.len(), total);
    assert_eq!(lines[0], "lib.py:1 Definition");
    assert_eq!(lines[1], "u000.py:1 Import");
    assert_eq!(lines[2], "u000.py:4 Call");
    assert_eq!(
        lines[lines.len() - 1],
        format!("u{:03}.py:4 Call", USERS - 1)
    );

    // Asked again: the kept tables are lookups, the others are read in passing again, and
    // the answer is the same.
    assert_eq!(search(&compressed), (total, files_searched, lines));
    assert_eq!(executed(&log), (0, 0));
}

#[test]
fn a_reference_search_keeps_no_more_name_tables_than_their_budget_in_bytes() {
    // As above, but the resolver stops keeping tables before `TABLES_KEPT_IN_PASSING` once
    // they hold the budget for kept tables (a sixty-fourth of the limit: 32 KiB of 2 MiB).
    const USERS: usize = 150;
    let (mut host, log) = logged_host_limited(&users_of_one_helper(USERS), Some(2 << 20));
    host.evict_unused();
    let tables = host.analysis().name_tables();
    assert_eq!((tables.budget(), tables.values()), (32 << 10, 0));
    log.lock().unwrap().clear();
    let query = ReferenceQuery {
        limit: 1000,
        ..Default::default()
    };
    let found = host
        .analysis()
        .references_by_name("helper", &query)
        .unwrap();
    assert_eq!(
        (found.total, found.files_searched),
        (1 + 2 * USERS, 1 + USERS)
    );
    let log = std::mem::take(&mut *log.lock().unwrap());
    // The tables computed through the database are the ones the resolver kept, alive in
    // its memo after the request; the others were read in passing and are gone.
    let kept = log.iter().filter(|q| q.starts_with("file_names(")).count();
    assert_eq!(tables.values(), kept);
    assert!((2..64).contains(&kept), "{kept} tables kept");
    // The last one kept took them to the budget.
    let mean = tables.bytes() / kept;
    assert!(tables.bytes() >= tables.budget() && tables.bytes() - mean < tables.budget());
}

#[test]
fn the_name_tables_kept_between_questions_fit_their_budget_in_bytes() {
    // `fit_name_tables` (semantic/names/mod.rs): salsa bounds the tables by a count, which
    // the host sets from the bytes the live tables hold. Forty files of one shape, each
    // table the same size; under a limit of 64 MiB the kept tables may hold 1 MiB.
    const FILES: usize = 40;
    let mut fixture = String::new();
    for file in 0..FILES {
        fixture += &format!("//- m{file:02}.py\n");
        for function in 0..200 {
            fixture += &format!("def f{function}(a, b):\n    c = a + b\n    return len(c)\n");
        }
    }
    let (mut host, log) = logged_host_limited(&fixture, Some(64 << 20));
    let tables = host.analysis().name_tables();
    assert_eq!(tables.budget(), 1 << 20);
    let checked = host.analysis().check(&Default::default()).unwrap();
    assert_eq!(checked.diagnostics.len(), 0);
    assert_eq!(
        tables.values(),
        FILES,
        "the check computed every table, all kept so far"
    );
    let each = tables.bytes() / FILES;
    assert_eq!(
        tables.bytes(),
        each * FILES,
        "tables of one shape have one size"
    );

    host.evict_unused();
    let kept = (1 << 20) / each;
    assert!((4..FILES).contains(&kept), "{each} bytes a table");
    assert_eq!((tables.values(), tables.bytes()), (kept, kept * each));

    // Each file's names asked again (what `c` in `return len(c)` is): the kept tables are
    // lookups, the others are computed again.
    log.lock().unwrap().clear();
    let analysis = host.analysis();
    for file in 0..FILES {
        let file = analysis.file(&format!("m{file:02}.py")).unwrap();
        let offset = analysis.file_text(file).find("len(c)").unwrap() + 4;
        let found = analysis.definition(file, offset).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].kind.as_str(), found[0].span.unwrap().start.line),
            ("variable", 2)
        );
    }
    let log = std::mem::take(&mut *log.lock().unwrap());
    let computed = log.iter().filter(|q| q.starts_with("file_names(")).count();
    assert_eq!(computed, FILES - kept);
}

#[test]
fn a_rename_over_many_compressed_texts_keeps_a_bounded_number_of_name_tables() {
    // As a reference search (above): a rename's plan reads the names of every file it
    // edits, and where texts are kept compressed its resolver keeps `TABLES_KEPT_IN_PASSING`
    // of them and reads the others for one pass. Its verification runs on scratch
    // databases, on threads of their own: only the tables of the request's thread count.
    const USERS: usize = 150;
    const KEPT: usize = 64;
    let rename = |host: &Host| {
        let change = host
            .analysis()
            .rename_by_name("lib.helper", "assist", Default::default())
            .unwrap()
            .expect("the rename is proposed")
            .change;
        let edits: Vec<String> = change
            .files
            .iter()
            .flat_map(|file| {
                file.edits.iter().map(move |e| {
                    let (start, end) = (e.range.byte_start, e.range.byte_end);
                    format!("{} {start}..{end} {}", file.path, e.new_text)
                })
            })
            .collect();
        edits
    };
    let logged_host =
        |memory_limit| {
            let request_thread = std::thread::current().id();
            logged_host_recording(&users_of_one_helper(USERS), memory_limit, move |event| {
                match event.kind {
                    salsa::EventKind::WillExecute { database_key }
                        if event.thread_id == request_thread =>
                    {
                        Some(format!("{database_key:?}"))
                    }
                    _ => None,
                }
            })
        };
    let executed_tables = |log: &Mutex<Vec<String>>| -> usize {
        let log = std::mem::take(&mut *log.lock().unwrap());
        log.iter().filter(|q| q.starts_with("file_names(")).count()
    };

    let (whole, log) = logged_host(None);
    log.lock().unwrap().clear();
    let edits = rename(&whole);
    assert_eq!(
        executed_tables(&log),
        1 + USERS,
        "texts kept whole: every table kept"
    );
    assert_eq!(edits.len(), 1 + 2 * USERS);
    assert_eq!(edits[0], "lib.py 4..10 assist");
    assert_eq!(edits[1], "u000.py 16..22 assist");
    assert_eq!(edits[2], "u000.py 45..51 assist");

    let (mut compressed, log) = logged_host(Some(1 << 40));
    compressed.evict_unused();
    log.lock().unwrap().clear();
    assert_eq!(rename(&compressed), edits);
    assert_eq!(
        executed_tables(&log),
        KEPT,
        "only the kept tables are memoized"
    );
}

#[test]
fn a_check_tells_the_largest_files_done_first_and_every_file_once() {
    // A memory limit is looked at as each file is told done (`watch_memory` in
    // workspace/live.rs): the largest files (`LARGE_FILE_BYTES`, 256 KiB, and over),
    // checked first, must be told as they end.
    let large = |lines: usize| "x = 1\n".repeat(lines);
    let fixture = format!(
        "//- big.py\n{}//- bigger.py\n{}//- a.py\nA = 1\n//- b.py\nB = 2\n//- c.py\nC = 3\n",
        large(50_000),
        large(60_000)
    );
    let (host, _) = logged_host_with(&fixture);
    let told = Mutex::new(Vec::new());
    let priming = sextant::ide::Priming {
        identifiers: false,
        diagnostics: true,
    };
    host.analysis()
        .prime_caches_with(priming, &|bytes| told.lock().unwrap().push(bytes))
        .unwrap();
    let told = told.into_inner().unwrap();
    assert_eq!(told[..2], [360_000, 300_000], "the largest first: {told:?}");
    let mut rest = told[2..].to_vec();
    rest.sort();
    assert_eq!(rest, [6, 6, 6], "then each other file, once");
}
