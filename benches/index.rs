//! Benchmarks, each beside a baseline measured in the same run:
//!
//! - `cold_index/*`: parse + symbols + workspace index of every file, against tree-sitter
//!   parse-only of the same files, both on all cores (rayon). Texts are in memory, so disk
//!   speed is out of the picture. `generated` is a deterministic workspace (300 files per
//!   language); set `SEXTANT_BENCH_CORPUS=/some/dir` to add a real directory.
//! - `reindex_after_edit`: a one-line edit inside a function body, then everything a
//!   symbol search needs, against a tree-sitter parse of that one file.
//!   `sextant_edit_and_recheck_file` is the same edit, then that file's diagnostics;
//!   `sextant_edit_and_check_workspace` then the whole workspace's;
//!   `sextant_add_definition_and_lookup` adds a definition, then searches for it (one shard
//!   of the symbol index rebuilt).
//! - `repeated_dry_run`: a format and a rename dry run asked again of an unchanged
//!   workspace (both memoized), against a tree-sitter parse of the file they touch.
//! - `symbol_search`: ranked fuzzy search over the indexed workspace.
//! - `long_line`: symbols of a 1 MB minified JavaScript file (one line), against a
//!   tree-sitter parse of it, and against the same code with newlines; positions on a long
//!   line must cost what they cost anywhere (`benches/long_lines.py` runs the binary on
//!   2 and 10 MB files).
//!
//! - `query_walk`: the tags and imports query (`QueryKind::PerFile`) over every file's
//!   tree, parsed beforehand, on one core: `run_query`'s walk, which enters only the nodes
//!   that can hold a pattern's start, against a walk of every node (checked first to find
//!   the same matches). `kind_graph/*`: reading a grammar's `node-types.json` into the
//!   table that walk consults, once per language and process, on first use.
//!   `locals_query`: the locals query as `run_query` runs it (a cursor started at each of
//!   its roots) against one cursor over the whole tree, which would still have to decide
//!   `#scope?` from each match's ancestors (not counted): whether that is worth building.
//!
//! After the run, the ratios between each measurement and its baseline are printed.

use std::{hint::black_box, path::PathBuf, time::Duration};

use criterion::{BenchmarkId, Criterion};
use rayon::prelude::*;
use sextant::{
    checks::file_diagnostics,
    ide::{AnalysisHost, CheckQuery, FormatOptions, ReferenceQuery, RenameOptions, SymbolQuery},
    lang::{KindGraph, QueryKind, registry},
    semantic::{index::symbol_index, symbols::file_symbols},
    syntax,
    workspace::{Host, LoadOptions, LoadedFile},
};

fn generated_workspace() -> Vec<LoadedFile> {
    let mut files = Vec::new();
    let lang = |id: &str| registry().by_id(id).unwrap().lang_id;
    for i in 0..300 {
        let mut py = format!("\"\"\"Module {i}.\"\"\"\nimport os\n\nLIMIT_{i} = {i}\n\n");
        let mut rs =
            format!("//! Module {i}.\nuse std::fmt;\n\npub const LIMIT_{i}: usize = {i};\n\n");
        let mut js = format!(
            "// Module {i}\nimport {{ x }} from './m{i}.js';\n\nexport const LIMIT_{i} = {i};\n\n"
        );
        let mut ts = format!(
            "// Module {i}\nexport interface Shape{i} {{\n  area(): number;\n  name: string;\n}}\n\n"
        );
        let mut go = format!("package pkg{i}\n\nimport \"fmt\"\n\nconst Limit{i} = {i}\n\n");
        for j in 0..12 {
            py.push_str(&format!(
                "class Widget{i}_{j}(Base):\n    size: int = {j}\n\n    def __init__(self, width, height):\n        self.width = width\n        self.height = height\n\n    def area_{j}(self):\n        total = 0\n        for k in range(self.width):\n            total += k * self.height\n        return total\n\n    @property\n    def name(self):\n        return f\"widget-{{self.width}}\"\n\n\ndef make_widget_{i}_{j}(n):\n    return Widget{i}_{j}(n, n + 1)\n\n\n"
            ));
            rs.push_str(&format!(
                "pub struct Widget{i}_{j} {{\n    pub width: u32,\n    pub height: u32,\n}}\n\nimpl Widget{i}_{j} {{\n    pub fn new(width: u32, height: u32) -> Self {{\n        Self {{ width, height }}\n    }}\n\n    pub fn area_{j}(&self) -> u64 {{\n        let mut total = 0u64;\n        for k in 0..self.width {{\n            total += u64::from(k) * u64::from(self.height);\n        }}\n        total\n    }}\n}}\n\nimpl fmt::Display for Widget{i}_{j} {{\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\n        write!(f, \"{{}}x{{}}\", self.width, self.height)\n    }}\n}}\n\n"
            ));
            js.push_str(&format!(
                "export class Widget{i}_{j} extends Base {{\n  size = {j};\n  constructor(width, height) {{\n    super();\n    this.width = width;\n    this.height = height;\n  }}\n  area{j}() {{\n    let total = 0;\n    for (let k = 0; k < this.width; k++) {{\n      total += k * this.height;\n    }}\n    return total;\n  }}\n}}\n\nexport function makeWidget{i}_{j}(n) {{\n  return new Widget{i}_{j}(n, n + 1);\n}}\n\n"
            ));
            ts.push_str(&format!(
                "export class Widget{i}_{j} implements Shape{i} {{\n  name = \"w\";\n  constructor(private width: number, private height: number) {{}}\n  area(): number {{\n    let total = 0;\n    for (let k = 0; k < this.width; k++) {{\n      total += k * this.height;\n    }}\n    return total;\n  }}\n}}\n\nexport type Pair{j} = [Widget{i}_{j}, number];\nexport function makeWidget{i}_{j}(n: number): Widget{i}_{j} {{\n  return new Widget{i}_{j}(n, n + 1);\n}}\n\n"
            ));
            go.push_str(&format!(
                "type Widget{i}_{j} struct {{\n\tWidth  int\n\tHeight int\n}}\n\nfunc (w *Widget{i}_{j}) Area{j}() int {{\n\ttotal := 0\n\tfor k := 0; k < w.Width; k++ {{\n\t\ttotal += k * w.Height\n\t}}\n\treturn total\n}}\n\nfunc MakeWidget{i}_{j}(n int) *Widget{i}_{j} {{\n\tfmt.Println(n)\n\treturn &Widget{i}_{j}{{n, n + 1}}\n}}\n\n"
            ));
        }
        for (ext, id, text) in [
            ("py", "python", py),
            ("rs", "rust", rs),
            ("js", "javascript", js),
            ("ts", "typescript", ts),
            ("go", "go", go),
        ] {
            files.push(LoadedFile {
                path: format!("{id}/m{i}.{ext}"),
                lang: lang(id),
                text: text.into(),
                lossy_utf8: false,
                real_path: None,
            });
        }
    }
    files
}

/// A real directory, read the way `sextant` reads it (ignore rules, size limit).
fn corpus() -> Option<(String, Vec<LoadedFile>)> {
    let dir = PathBuf::from(std::env::var_os("SEXTANT_BENCH_CORPUS")?);
    let host = Host::load(&dir, &LoadOptions::default()).expect("SEXTANT_BENCH_CORPUS is readable");
    let analysis = host.analysis();
    let files = analysis
        .files()
        .map(|f| LoadedFile {
            path: analysis.file_path(f).to_string(),
            lang: analysis.file_language(f).lang_id,
            text: analysis.file_text(f),
            lossy_utf8: analysis.file_is_lossy(f),
            real_path: None,
        })
        .collect();
    let name = dir
        .file_name()
        .map_or("corpus".into(), |n| n.to_string_lossy().into_owned());
    Some((name, files))
}

fn clone_files(files: &[LoadedFile]) -> Vec<LoadedFile> {
    files
        .iter()
        .map(|f| LoadedFile {
            path: f.path.clone(),
            lang: f.lang,
            text: f.text.clone(),
            lossy_utf8: f.lossy_utf8,
            real_path: None,
        })
        .collect()
}

/// What `Host::load` does after reading: every file's symbols on all cores, then the index.
fn index_all(host: &Host) {
    host.analysis().prime_caches(&|_| {}).unwrap();
    black_box(());
}

fn parse_only(files: &[LoadedFile]) {
    files.par_iter().for_each(|f| {
        black_box(syntax::parse_tree_sitter(
            f.lang.info(),
            &f.text,
            None,
            syntax::NEVER,
        ));
    });
}

fn bench_cold_index(c: &mut Criterion) {
    let mut sets = vec![("generated".to_string(), generated_workspace())];
    sets.extend(corpus());
    let mut group = c.benchmark_group("cold_index");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, files) in &sets {
        group.bench_with_input(
            BenchmarkId::new("tree_sitter_parse_only", name),
            files,
            |b, files| b.iter(|| parse_only(files)),
        );
        group.bench_with_input(
            BenchmarkId::new("sextant_index", name),
            files,
            |b, files| {
                b.iter_with_large_drop(|| {
                    let host = Host::from_files(PathBuf::from("/bench"), clone_files(files));
                    index_all(&host);
                    host
                })
            },
        );
        // What `sextant check` does after reading: index and check each file in one pass.
        group.bench_with_input(
            BenchmarkId::new("sextant_index_and_check", name),
            files,
            |b, files| {
                b.iter_with_large_drop(|| {
                    let host = Host::from_files(PathBuf::from("/bench"), clone_files(files));
                    let priming = sextant::ide::Priming {
                        identifiers: false,
                        diagnostics: true,
                    };
                    host.analysis().prime_caches_with(priming, &|_| {}).unwrap();
                    black_box(());
                    host
                })
            },
        );
    }
    group.finish();
}

/// Each file with its tree (one core: the queries over them are timed on one core too).
fn parsed(files: &[LoadedFile]) -> Vec<(&LoadedFile, tree_sitter::Tree)> {
    files
        .iter()
        .filter_map(|f| {
            let tree = syntax::parse_tree_sitter(f.lang.info(), &f.text, None, syntax::NEVER)?;
            Some((f, tree))
        })
        .collect()
}

/// The tags and imports query over every tree of `trees`, by `run_query` (its pruned walk)
/// or by a walk of every node; the number of matches.
fn per_file_query(trees: &[(&LoadedFile, tree_sitter::Tree)], every_node: bool) -> usize {
    let mut matches = 0;
    for (file, tree) in trees {
        let lang = file.lang.info();
        let count = |_: &tree_sitter::QueryMatch| matches += 1;
        if every_node {
            syntax::run_query_entering_every_node(
                lang,
                QueryKind::PerFile,
                tree,
                &file.text,
                count,
            );
        } else {
            syntax::run_query(
                lang,
                QueryKind::PerFile,
                tree,
                &file.text,
                syntax::NEVER,
                count,
            );
        }
    }
    matches
}

fn bench_query_walk(c: &mut Criterion) {
    let mut sets = vec![("generated".to_string(), generated_workspace())];
    sets.extend(corpus());
    let mut group = c.benchmark_group("query_walk");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, files) in &sets {
        let trees = parsed(files);
        assert_eq!(per_file_query(&trees, false), per_file_query(&trees, true));
        for (id, every_node) in [("every_node", true), ("pruned", false)] {
            group.bench_with_input(BenchmarkId::new(id, name), &trees, |b, trees| {
                b.iter(|| black_box(per_file_query(trees, every_node)))
            });
        }
    }
    group.finish();
    bench_locals_cursor(c, &sets);
    let mut group = c.benchmark_group("kind_graph");
    for (name, grammar, node_types) in [
        (
            "python",
            tree_sitter_python::LANGUAGE,
            tree_sitter_python::NODE_TYPES,
        ),
        (
            "tsx",
            tree_sitter_typescript::LANGUAGE_TSX,
            tree_sitter_typescript::TSX_NODE_TYPES,
        ),
    ] {
        let grammar: tree_sitter::Language = grammar.into();
        group.bench_function(name, |b| {
            b.iter(|| black_box(KindGraph::new(&grammar, node_types, &[]).is_ok()))
        });
    }
    group.finish();
}

/// The locals query over every tree: by `run_query`, or by one cursor over each whole tree
/// with every pattern enabled (`#scope?` left undecided); the number of matches.
fn locals_query(trees: &[(&LoadedFile, tree_sitter::Tree)], one_cursor: bool) -> usize {
    use tree_sitter::StreamingIterator;
    let mut matches = 0;
    let mut cursor = tree_sitter::QueryCursor::new();
    for (file, tree) in trees {
        let lang = file.lang.info();
        if one_cursor {
            let Some(query) = lang.query(QueryKind::Locals) else {
                continue;
            };
            cursor.set_max_start_depth(Some(syntax::MAX_START_DEPTH));
            let mut found = cursor.matches(query, tree.root_node(), file.text.as_bytes());
            while found.next().is_some() {
                matches += 1;
            }
        } else {
            syntax::run_query(
                lang,
                QueryKind::Locals,
                tree,
                &file.text,
                syntax::NEVER,
                |_| matches += 1,
            );
        }
    }
    matches
}

fn bench_locals_cursor(c: &mut Criterion, sets: &[(String, Vec<LoadedFile>)]) {
    let mut group = c.benchmark_group("locals_query");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, files) in sets {
        let trees = parsed(files);
        for (id, one_cursor) in [("cursor_at_each_root", false), ("one_cursor", true)] {
            group.bench_with_input(BenchmarkId::new(id, name), &trees, |b, trees| {
                b.iter(|| black_box(locals_query(trees, one_cursor)))
            });
        }
    }
    group.finish();
}

/// The generated file's text with one function body changed: alternating `flip` makes every
/// iteration a real change.
fn edit_body(original: &str, flip: bool) -> String {
    let marker = "        return total\n";
    let offset = original.find(marker).unwrap();
    format!(
        "{}        return total{}\n{}",
        &original[..offset],
        if flip { " + 0" } else { " + 1" },
        &original[offset + marker.len()..]
    )
}

fn bench_reindex(c: &mut Criterion) {
    let files = generated_workspace();
    let mut host = Host::from_files(PathBuf::from("/bench"), clone_files(&files));
    index_all(&host);
    let file = host.file("python/m7.py").unwrap();
    let original = host.analysis().file_text(file).to_string();
    let lang = host.analysis().file_language(file);
    let call = original.find("return Widget7_3(").unwrap() + "return ".len();
    let query = ReferenceQuery {
        limit: 1000,
        ..Default::default()
    };
    // Warm: every candidate file's names built once, as after the first request.
    black_box(host.analysis().references(file, call, &query).unwrap());
    let mut group = c.benchmark_group("reindex_after_edit");
    group.bench_function("tree_sitter_parse_of_that_file", |b| {
        b.iter(|| {
            black_box(syntax::parse_tree_sitter(
                lang,
                &original,
                None,
                syntax::NEVER,
            ))
        })
    });
    let mut flip = false;
    group.bench_function("sextant_edit_and_requery", |b| {
        b.iter(|| {
            flip = !flip;
            host.set_file_text("python/m7.py", &edit_body(&original, flip));
            let raw = host.analysis_host();
            black_box(symbol_index(raw.raw_database(), raw.raw_workspace()));
            black_box(file_symbols(
                raw.raw_database(),
                AnalysisHost::raw_file(file),
            ));
        })
    });
    // A definition added (its name alternating), then a symbol search that finds it.
    group.bench_function("sextant_add_definition_and_lookup", |b| {
        b.iter(|| {
            flip = !flip;
            let name = if flip { "added_one" } else { "added_two" };
            host.set_file_text(
                "python/m7.py",
                &format!("{original}\n\ndef {name}():\n    return 0\n"),
            );
            let found = host
                .analysis()
                .symbol_search(&SymbolQuery {
                    query: name.into(),
                    limit: 5,
                    ..Default::default()
                })
                .unwrap();
            assert_eq!(found.symbols.len(), 1);
        })
    });
    // The same edit, then that file's diagnostics (every Python check), and then the whole
    // workspace's (every other file's answer is reused).
    let raw_file = AnalysisHost::raw_file(file);
    group.bench_function("sextant_edit_and_recheck_file", |b| {
        b.iter(|| {
            flip = !flip;
            host.set_file_text("python/m7.py", &edit_body(&original, flip));
            let raw = host.analysis_host();
            black_box(file_diagnostics(
                raw.raw_database(),
                raw.raw_workspace(),
                raw_file,
            ));
        })
    });
    black_box(host.analysis().check(&CheckQuery::default()).unwrap());
    group.bench_function("sextant_edit_and_check_workspace", |b| {
        b.iter(|| {
            flip = !flip;
            host.set_file_text("python/m7.py", &edit_body(&original, flip));
            black_box(host.analysis().check(&CheckQuery::default()).unwrap());
        })
    });
    // The same edit, then the definition at a use and every reference of a function of
    // that file.
    group.bench_function("sextant_edit_definition_and_references", |b| {
        b.iter(|| {
            flip = !flip;
            host.set_file_text("python/m7.py", &edit_body(&original, flip));
            let analysis = host.analysis();
            black_box(analysis.definition(file, call).unwrap());
            black_box(analysis.references(file, call, &query).unwrap());
        })
    });
    group.finish();
}

/// A format or rename dry run asked again of an unchanged workspace: what an agent pays for
/// repeating itself. Both are memoized, so this is a lookup plus building the answer.
fn bench_repeated_edits(c: &mut Criterion) {
    let files = generated_workspace();
    let host = Host::from_files(PathBuf::from("/bench"), clone_files(&files));
    index_all(&host);
    let file = host.file("python/m7.py").unwrap();
    let original = host.analysis().file_text(file).to_string();
    let lang = host.analysis().file_language(file);
    let analysis = host.analysis();
    let options = FormatOptions::default();
    let rename = RenameOptions::default();
    // The first answers, computed once.
    black_box(analysis.format(file, options).unwrap().unwrap());
    black_box(
        analysis
            .rename_by_name("make_widget_7_3", "build_widget_7_3", rename)
            .unwrap()
            .unwrap(),
    );
    let mut group = c.benchmark_group("repeated_dry_run");
    group.bench_function("tree_sitter_parse_of_that_file", |b| {
        b.iter(|| {
            black_box(syntax::parse_tree_sitter(
                lang,
                &original,
                None,
                syntax::NEVER,
            ))
        })
    });
    group.bench_function("sextant_format_again", |b| {
        b.iter(|| black_box(analysis.format(file, options).unwrap().unwrap()))
    });
    group.bench_function("sextant_rename_again", |b| {
        b.iter(|| {
            black_box(
                analysis
                    .rename_by_name("make_widget_7_3", "build_widget_7_3", rename)
                    .unwrap()
                    .unwrap(),
            )
        })
    });
    group.finish();
}

/// What an editor waits for after a keystroke: syntax errors of a 5,000-line file.
fn bench_diagnostics(c: &mut Criterion) {
    let unit = "def handler(request, retries=3):\n    for attempt in range(retries):\n        if request.ok:\n            return request.body\n    return None\n\n";
    let text = unit.repeat(1000);
    assert!(text.lines().count() >= 5000);
    let lang = registry().by_id("python").unwrap();
    let mut host = Host::from_files(
        PathBuf::from("/bench"),
        vec![LoadedFile {
            path: "big.py".into(),
            lang: lang.lang_id,
            text: text.as_str().into(),
            lossy_utf8: false,
            real_path: None,
        }],
    );
    let file = host.file("big.py").unwrap();
    black_box(host.analysis().syntax_errors(file).unwrap());
    // A one-character edit in the middle: `retries=3` becomes `retries=4` and back.
    let offset =
        text[text.len() / 2..].find("retries=3").unwrap() + text.len() / 2 + "retries=".len();
    let mut group = c.benchmark_group("diagnostics_after_edit");
    group.bench_function("tree_sitter_parse_of_that_file", |b| {
        b.iter(|| black_box(syntax::parse_tree_sitter(lang, &text, None, syntax::NEVER)))
    });
    let mut flip = false;
    group.bench_function("sextant_edit_and_diagnose", |b| {
        b.iter(|| {
            flip = !flip;
            let edited = format!(
                "{}{}{}",
                &text[..offset],
                if flip { "4" } else { "3" },
                &text[offset + 1..]
            );
            host.set_file_text("big.py", &edited);
            black_box(host.analysis().syntax_errors(file).unwrap())
        })
    });
    group.finish();
}

fn bench_search(c: &mut Criterion) {
    let mut sets = vec![("generated".to_string(), generated_workspace())];
    sets.extend(corpus());
    let mut group = c.benchmark_group("symbol_search");
    for (name, files) in &sets {
        let host = Host::from_files(PathBuf::from("/bench"), clone_files(files));
        index_all(&host);
        for q in ["area", "mkwid", "Widget1", "xyz_nothing", "get"] {
            let query = SymbolQuery {
                query: q.into(),
                limit: 50,
                ..Default::default()
            };
            group.bench_function(BenchmarkId::new(name.as_str(), q), |b| {
                b.iter(|| black_box(host.analysis().symbol_search(&query).unwrap()))
            });
        }
    }
    group.finish();
}

/// Minified JavaScript of about `bytes` bytes: functions, classes, object literals with
/// methods, arrow functions and IIFEs, strings in several scripts; and the same code with a
/// newline after every `;`, `{` and `}`.
fn minified_js(bytes: usize) -> (String, String) {
    let mut single = String::new();
    let mut i = 0;
    while single.len() < bytes {
        single.push_str(&format!(
            "function fmt{i}(a,b){{var s='é漢😀'+a;if(b){{return s+b;}}return s;}}\
             class Widget{i} extends Base{{size={i};constructor(w,h){{super();this.w=w;this.h=h;}}\
             area(){{let t=0;for(let k=0;k<this.w;k++){{t+=k*this.h;}}return t;}}\
             static make(n){{return new Widget{i}(n,n+1);}}get label(){{return 'w-漢{i}';}}}}\
             const api{i}={{get(u){{return fetch(u);}},post:function(u,b){{return fetch(u,b);}},\
             remove:(id)=>{{return id;}},retries:3,nested:{{deep(){{return 1;}}}}}};\
             var handler{i}=function(e){{return e.target;}};\
             let onClick{i}=(e)=>{{console.log('clické😀',e);}};\
             (function(){{function inner{i}(x){{return x*2;}}var q=inner{i}({i});}})();"
        ));
        i += 1;
    }
    let lines = single
        .replace(';', ";\n")
        .replace('{', "{\n")
        .replace('}', "}\n");
    (single, lines)
}

fn bench_long_line(c: &mut Criterion) {
    let (single, lines) = minified_js(1 << 20);
    let lang = registry().by_id("javascript").unwrap();
    let mut group = c.benchmark_group("long_line");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("tree_sitter_parse_only", |b| {
        b.iter(|| {
            black_box(syntax::parse_tree_sitter(
                lang,
                &single,
                None,
                syntax::NEVER,
            ))
        })
    });
    for (name, text) in [
        ("sextant_symbols", &single),
        ("sextant_symbols_with_newlines", &lines),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(sextant::semantic::symbols::extract(lang, text)))
        });
    }
    group.finish();
}

/// Mean time of a finished benchmark, from criterion's saved estimates.
fn mean_ns(id: &str) -> Option<f64> {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("../criterion")
        .join(id)
        .join("new/estimates.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn print_ratios() {
    let mut lines = Vec::new();
    let mut names = vec!["generated".to_string()];
    if let Some(dir) = std::env::var_os("SEXTANT_BENCH_CORPUS") {
        names.push(
            PathBuf::from(dir)
                .file_name()
                .map_or("corpus".into(), |n| n.to_string_lossy().into_owned()),
        );
    }
    for name in &names {
        if let (Some(engine), Some(parse)) = (
            mean_ns(&format!("cold_index/sextant_index/{name}")),
            mean_ns(&format!("cold_index/tree_sitter_parse_only/{name}")),
        ) {
            lines.push(format!(
                "cold index {name}: {:.1} ms vs parse-only {:.1} ms = {:.2}x",
                engine / 1e6,
                parse / 1e6,
                engine / parse
            ));
        }
        if let (Some(check), Some(parse)) = (
            mean_ns(&format!("cold_index/sextant_index_and_check/{name}")),
            mean_ns(&format!("cold_index/tree_sitter_parse_only/{name}")),
        ) {
            lines.push(format!(
                "cold index and check {name}: {:.1} ms vs parse-only {:.1} ms = {:.2}x",
                check / 1e6,
                parse / 1e6,
                check / parse
            ));
        }
    }
    if let (Some(edit), Some(parse)) = (
        mean_ns("reindex_after_edit/sextant_edit_and_requery"),
        mean_ns("reindex_after_edit/tree_sitter_parse_of_that_file"),
    ) {
        lines.push(format!(
            "re-index after edit: {:.3} ms, that file's parse {:.3} ms, beyond the parse {:.3} ms",
            edit / 1e6,
            parse / 1e6,
            (edit - parse) / 1e6
        ));
    }
    if let (Some(lookup), Some(parse)) = (
        mean_ns("reindex_after_edit/sextant_add_definition_and_lookup"),
        mean_ns("reindex_after_edit/tree_sitter_parse_of_that_file"),
    ) {
        lines.push(format!(
            "symbol search after adding a definition: {:.3} ms, that file's parse {:.3} ms, \
             beyond the parse {:.3} ms",
            lookup / 1e6,
            parse / 1e6,
            (lookup - parse) / 1e6
        ));
    }
    for (id, what) in [
        ("sextant_edit_and_recheck_file", "re-check of that file"),
        ("sextant_edit_and_check_workspace", "whole-workspace check"),
    ] {
        if let (Some(check), Some(parse)) = (
            mean_ns(&format!("reindex_after_edit/{id}")),
            mean_ns("reindex_after_edit/tree_sitter_parse_of_that_file"),
        ) {
            lines.push(format!(
                "{what} after an edit: {:.3} ms, that file's parse {:.3} ms",
                check / 1e6,
                parse / 1e6
            ));
        }
    }
    if let (Some(navigation), Some(parse)) = (
        mean_ns("reindex_after_edit/sextant_edit_definition_and_references"),
        mean_ns("reindex_after_edit/tree_sitter_parse_of_that_file"),
    ) {
        lines.push(format!(
            "definition and references after an edit: {:.3} ms, that file's parse {:.3} ms, \
             beyond the parse {:.3} ms",
            navigation / 1e6,
            parse / 1e6,
            (navigation - parse) / 1e6
        ));
    }
    if let (Some(diag), Some(parse)) = (
        mean_ns("diagnostics_after_edit/sextant_edit_and_diagnose"),
        mean_ns("diagnostics_after_edit/tree_sitter_parse_of_that_file"),
    ) {
        lines.push(format!(
            "diagnostics after an edit in a 5,000-line file: {:.2} ms (its parse alone {:.2} ms)",
            diag / 1e6,
            parse / 1e6
        ));
    }
    for (id, what) in [
        ("sextant_format_again", "format dry run asked again"),
        ("sextant_rename_again", "rename dry run asked again"),
    ] {
        if let (Some(again), Some(parse)) = (
            mean_ns(&format!("repeated_dry_run/{id}")),
            mean_ns("repeated_dry_run/tree_sitter_parse_of_that_file"),
        ) {
            lines.push(format!(
                "{what}: {:.1} µs, that file's parse {:.1} µs",
                again / 1e3,
                parse / 1e3
            ));
        }
    }
    if let (Some(one_line), Some(parse), Some(with_newlines)) = (
        mean_ns("long_line/sextant_symbols"),
        mean_ns("long_line/tree_sitter_parse_only"),
        mean_ns("long_line/sextant_symbols_with_newlines"),
    ) {
        lines.push(format!(
            "symbols of a 1 MB single line: {:.1} ms vs its parse-only {:.1} ms = {:.2}x; \
             same code with newlines {:.1} ms ({:.2}x)",
            one_line / 1e6,
            parse / 1e6,
            one_line / parse,
            with_newlines / 1e6,
            one_line / with_newlines
        ));
    }
    for name in &names {
        if let (Some(every_node), Some(pruned)) = (
            mean_ns(&format!("query_walk/every_node/{name}")),
            mean_ns(&format!("query_walk/pruned/{name}")),
        ) {
            lines.push(format!(
                "tags and imports query {name}: walk of every node {:.1} ms vs pruned walk \
                 {:.1} ms = {:.2}x",
                every_node / 1e6,
                pruned / 1e6,
                every_node / pruned
            ));
        }
    }
    for name in &names {
        if let (Some(each_root), Some(one_cursor)) = (
            mean_ns(&format!("locals_query/cursor_at_each_root/{name}")),
            mean_ns(&format!("locals_query/one_cursor/{name}")),
        ) {
            lines.push(format!(
                "locals query {name}: a cursor at each root {:.1} ms vs one cursor over the \
                 tree {:.1} ms, #scope? undecided = {:.2}x",
                each_root / 1e6,
                one_cursor / 1e6,
                each_root / one_cursor
            ));
        }
    }
    if !lines.is_empty() {
        println!("\nratios (medians, same run):");
        for l in lines {
            println!("  {l}");
        }
    }
}

fn main() {
    // The allocator the binary's tree-sitter uses, so that parses cost here what they cost
    // there.
    sextant::allocator::use_for_tree_sitter();
    let mut c = Criterion::default().configure_from_args();
    bench_cold_index(&mut c);
    bench_reindex(&mut c);
    bench_diagnostics(&mut c);
    bench_repeated_edits(&mut c);
    bench_search(&mut c);
    bench_long_line(&mut c);
    bench_query_walk(&mut c);
    c.final_summary();
    print_ratios();
}
