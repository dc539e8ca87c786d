//! Tidy: keeps the structure that ARCHITECTURE.md describes true without anyone
//! remembering it.
//!
//! - Each top-level module of `src/` imports only the modules its row of the layering table
//!   in ARCHITECTURE.md ("may use") names.
//! - Front ends (`cli`, `mcp`, `lsp`) never use the raw database handles of `ide`.
//! - No `todo!`, `unimplemented!` or `dbg!` in `src/`.
//! - Every source file starts with a module doc comment (`//!`) stating what it owns.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The layering table: module → the modules it may use, read from ARCHITECTURE.md's
/// "Layers" table (first column the module, second the modules it may use, `—` for none).
fn layering_table(architecture: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let mut table = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let module = cells[1].trim_matches('`').to_string();
        let allowed = cells[2]
            .split(',')
            .map(|m| m.trim().trim_matches('`').to_string())
            .filter(|m| !m.is_empty() && m != "—")
            .collect();
        table.insert(module, allowed);
    }
    assert!(
        table.len() >= 9,
        "the layering table lists every module: {table:?}"
    );
    table
}

/// Top-level modules a file refers to through `crate::` paths, including grouped imports
/// (`use crate::{a::x, b};`). Comments are skipped.
fn crate_references(source: &str) -> BTreeSet<String> {
    let code: String = source
        .lines()
        .map(|l| match l.trim_start().starts_with("//") {
            true => "",
            false => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: split on commas outside nested braces.
            let mut depth = 0;
            let mut name = String::new();
            let mut at_name_start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        at_name_start = true;
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && at_name_start {
                    if c.is_alphanumeric() || c == '_' {
                        name.push(c);
                    } else if !name.is_empty() {
                        found.insert(std::mem::take(&mut name));
                        at_name_start = false;
                    }
                }
            }
            if !name.is_empty() {
                found.insert(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

/// The top-level module a file of `src/` belongs to (`src/ide/outline.rs` → `ide`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" => None,
        _ => Some(first.trim_end_matches(".rs").to_string()),
    }
}

#[test]
fn modules_import_only_what_the_layering_table_allows() {
    let architecture = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let table = layering_table(&architecture);
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let allowed = table
            .get(&module)
            .unwrap_or_else(|| panic!("src/{module} is not in ARCHITECTURE.md's layering table"));
        let source = std::fs::read_to_string(file).unwrap();
        for used in crate_references(&source) {
            if used != module && !allowed.contains(&used) {
                violations.push(format!(
                    "{} uses `crate::{used}`, but `{module}` may use only: {}",
                    file.strip_prefix(repo()).unwrap().display(),
                    allowed.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    assert!(violations.is_empty(), "\n{}", violations.join("\n"));
}

/// `AnalysisHost::raw_database` and friends exist for tests and benchmarks that count salsa
/// executions; a front end using them would reach past `ide` without importing `db`.
#[test]
fn front_ends_do_not_reach_the_raw_database() {
    let mut violations = Vec::new();
    for front_end in ["cli", "mcp", "lsp"] {
        let mut files = Vec::new();
        rust_files(&repo().join("src").join(front_end), &mut files);
        for file in files {
            let source = std::fs::read_to_string(&file).unwrap();
            for (n, line) in source.lines().enumerate() {
                if ["raw_database", "raw_workspace", "raw_file"]
                    .iter()
                    .any(|raw| line.contains(raw))
                {
                    violations.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(violations.is_empty(), "\n{}", violations.join("\n"));
}

#[test]
fn no_unfinished_code_markers_in_src() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let markers = [
        concat!("todo", "!("),
        concat!("unimplemented", "!("),
        concat!("dbg", "!("),
    ];
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (n, line) in source.lines().enumerate() {
            if let Some(marker) = markers.iter().find(|m| line.contains(*m)) {
                found.push(format!("{}:{}: {marker}", file.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn every_source_file_has_a_module_doc_comment() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let source = std::fs::read_to_string(f).unwrap();
            !source.trim_start().starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "no `//!` doc comment:\n{}",
        missing.join("\n")
    );
}

#[test]
fn crate_references_reads_grouped_imports() {
    let source = "use crate::{\n    ide::{self, Analysis},\n    workspace::live::X,\n};\n// crate::db in a comment\nlet x = crate::lang::registry();";
    let found: Vec<String> = crate_references(source).into_iter().collect();
    assert_eq!(found, ["ide", "lang", "workspace"]);
}

#[test]
fn diagnostics_doc_matches_the_code_registry() {
    let path = repo().join(sextant::ide::DIAGNOSTICS_DOC);
    let generated = sextant::ide::diagnostics_doc();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "{} is out of date with codes.toml: regenerate it with \
         `UPDATE_EXPECT=1 cargo test --test tidy`",
        sextant::ide::DIAGNOSTICS_DOC
    );
}
