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
                // `salsa::`: cancellation is named through `ide` (`ide::Cancelled`).
                if ["raw_database", "raw_workspace", "raw_file", "salsa::"]
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

/// The file whose "What each language supports" table [`languages_doc_table`] writes.
const LANGUAGES_DOC: &str = "docs/languages.md";
const GENERATED_START: &str = "<!-- generated:languages -->";
const GENERATED_END: &str = "<!-- /generated:languages -->";

/// What each language supports, from the language registry (its queries) and the rule table
/// (the codes checked in it), so the table cannot drift from the code.
fn languages_doc_table() -> String {
    use std::fmt::Write;
    let yes = |on: bool| if on { "yes" } else { "—" };
    let mut out = String::from(
        "Generated from `grammars/languages.toml`, `queries/<lang>/` and the rule table \
         (`src/checks/rules.rs`); do not edit by hand \
         (`UPDATE_EXPECT=1 cargo test --test tidy` regenerates it). \"Family\" is the \
         Rust code the language shares with others (where imports lead, name rules, the \
         checks; see [Adding a language](#adding-a-language)); \"names\" is \
         `locals.scm`: definitions, references, hover, call hierarchy and rename; \
         \"format\" is `indents.scm`; the codes are those checked in the language today \
         (see [diagnostics.md](diagnostics.md#where-each-code-is-checked)).\n\n\
         | language | id | family | extensions | shebangs | syntax | symbols | imports | names | format | diagnostic codes |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for lang in sextant::lang::registry().all() {
        let caps = lang.capabilities();
        let has = |cap: &str| caps.contains(&cap);
        let list = |items: &[String], prefix: &str| match items {
            [] => "—".to_string(),
            items => items
                .iter()
                .map(|i| format!("`{prefix}{i}`"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let codes: Vec<String> = sextant::ide::diagnostic_codes()
            .iter()
            .filter(|code| code.is_implemented_for(lang))
            .map(|code| code.id.clone())
            .collect();
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            lang.name,
            lang.id,
            lang.family.registry_name(),
            list(&lang.extensions, "."),
            list(&lang.shebangs, ""),
            yes(has("syntax")),
            yes(has("symbols")),
            yes(has("imports")),
            yes(has("names")),
            yes(has("format")),
            list(&codes, ""),
        );
    }
    out
}

#[test]
fn languages_doc_matches_the_registries() {
    let path = repo().join(LANGUAGES_DOC);
    let written = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (written.find(GENERATED_START), written.find(GENERATED_END))
    else {
        panic!("{LANGUAGES_DOC} keeps the markers {GENERATED_START} and {GENERATED_END}");
    };
    let generated = format!(
        "{GENERATED_START}\n{}{GENERATED_END}",
        languages_doc_table()
    );
    let current = &written[start..end + GENERATED_END.len()];
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, written.replace(current, &generated)).unwrap();
        return;
    }
    assert!(
        current == generated,
        "{LANGUAGES_DOC}'s table is out of date with the registries: regenerate it with \
         `UPDATE_EXPECT=1 cargo test --test tidy`"
    );
}

/// The MCP tools, as the `#[tool(…)]` attributes of `src/mcp/` declare them: the name of
/// the function each attribute is on.
fn mcp_tool_names() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&repo().join("src/mcp"), &mut files);
    let mut names = BTreeSet::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (at, _) in source.match_indices("#[tool(") {
            let rest = &source[at..];
            let fn_at = rest
                .find("fn ")
                .expect("a #[tool] attribute is on a function");
            let name: String = rest[fn_at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
    names
}

/// Markdown headings of a document, outside code fences.
fn headings(doc: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in doc.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(line.trim_start_matches('#').trim());
        }
    }
    out
}

#[test]
fn every_subcommand_tool_and_code_is_documented() {
    let read = |doc: &str| std::fs::read_to_string(repo().join(doc)).unwrap();
    let mut missing = Vec::new();

    let cli = read("docs/cli.md");
    let cli_headings = headings(&cli);
    let subcommands: Vec<String> = sextant::cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help")
        .collect();
    assert!(subcommands.len() >= 15, "subcommands: {subcommands:?}");
    for name in &subcommands {
        let documented = cli_headings.iter().any(|h| {
            h.split("`sextant ").skip(1).any(|rest| {
                rest.starts_with(&format!("{name} ")) || rest.starts_with(&format!("{name}`"))
            })
        });
        if !documented {
            missing.push(format!("docs/cli.md has no heading for `sextant {name}`"));
        }
    }

    let mcp = read("docs/mcp.md");
    let tools = mcp_tool_names();
    assert!(tools.len() >= 12, "MCP tools: {tools:?}");
    for tool in &tools {
        if !mcp.lines().any(|l| l.starts_with(&format!("| `{tool}` |"))) {
            missing.push(format!("docs/mcp.md's tool table has no row for `{tool}`"));
        }
    }

    let diagnostics = read("docs/diagnostics.md");
    let diagnostic_headings = headings(&diagnostics);
    for code in sextant::ide::diagnostic_codes() {
        let heading = format!("{} {}", code.id, code.name);
        if !diagnostic_headings.contains(&heading.as_str()) {
            missing.push(format!("docs/diagnostics.md has no section `{heading}`"));
        }
    }
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
}

/// Test hooks are read in one place (`src/testing.rs`), so production code asks
/// `testing::hooks()` and a reader finds every hook in one list.
#[test]
fn test_hooks_are_read_only_in_the_testing_module() {
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let readers: Vec<String> = files
        .iter()
        .filter(|file| !file.ends_with("testing.rs"))
        .filter(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            text.contains("\"SEXTANT_TEST_") || text.contains("\"SEXTANT_INJECT")
        })
        .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    assert!(
        readers.is_empty(),
        "test hooks read outside src/testing.rs: {readers:?}"
    );
}

/// The error code table lists every `ide::ErrorCode`, in its order, and nothing else: a code
/// a front end can send is a code a client can look up.
#[test]
fn every_error_code_is_documented_once() {
    let doc = std::fs::read_to_string(repo().join("docs/mcp.md")).unwrap();
    let table = doc
        .split("## Error codes")
        .nth(1)
        .expect("docs/mcp.md has an `## Error codes` section");
    let documented: Vec<&str> = table
        .lines()
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    let codes: Vec<&str> = sextant::ide::ErrorCode::ALL
        .iter()
        .map(|code| code.as_str())
        .collect();
    assert_eq!(documented, codes, "docs/mcp.md's error code table");
}

#[test]
fn readme_fits_on_a_screen() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 320,
        "README.md has {lines} lines: keep it a front door (at most 320) and move reference \
         material into docs/"
    );
}

/// The anchor a Markdown renderer gives a heading: lower case, punctuation dropped, spaces
/// turned into hyphens.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn links_between_documents_lead_somewhere() {
    let mut docs = vec![repo().join("README.md"), repo().join("CONTRIBUTING.md")];
    let mut entries: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    entries.sort();
    docs.extend(entries);
    let mut broken = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        // Code (spans and fences: each backtick toggles) is blanked out, links are not code.
        let mut in_code = false;
        let prose: String = text
            .chars()
            .map(|c| {
                if c == '`' {
                    in_code = !in_code;
                }
                if in_code { ' ' } else { c }
            })
            .collect();
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(close) = rest.find(')') else { break };
            let link = &rest[..close];
            if link.contains("://") || link.starts_with("mailto:") || link.contains(' ') {
                continue;
            }
            let (file, fragment) = link.split_once('#').unwrap_or((link, ""));
            let target = match file {
                "" => doc.clone(),
                file => doc.parent().unwrap().join(file),
            };
            let name = doc.strip_prefix(repo()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: `{link}`: no such file"));
                continue;
            }
            if !fragment.is_empty() {
                let target_text = std::fs::read_to_string(&target).unwrap();
                if !headings(&target_text).iter().any(|h| anchor(h) == fragment) {
                    broken.push(format!("{name}: `{link}`: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "\n{}", broken.join("\n"));
}

/// One module-file style: a module with submodules is `name/mod.rs`, never `name.rs` beside
/// a `name/` directory, so a module's root is always found the same way.
#[test]
fn modules_with_submodules_live_in_mod_rs() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let beside_a_directory: Vec<String> = files
        .iter()
        .filter(|file| file.file_name().is_some_and(|name| name != "mod.rs"))
        .filter(|file| file.with_extension("").is_dir())
        .map(|file| file.display().to_string())
        .collect();
    assert_eq!(beside_a_directory, Vec::<String>::new());
}

/// The MCP tools' descriptions, as the `#[tool(description = "…")]` attributes of `src/mcp/`
/// spell them (escapes left as written).
fn mcp_tool_descriptions() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&repo().join("src/mcp"), &mut files);
    let mut found = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (at, _) in source.match_indices("#[tool(") {
            let rest = &source[at..];
            let fn_at = rest.find("fn ").unwrap();
            let name: String = rest[fn_at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let Some(start) = rest[..fn_at].find("description = \"") else {
                continue;
            };
            let text = &rest[start + "description = \"".len()..];
            let mut end = 0;
            let mut escaped = false;
            for (i, c) in text.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => {
                        end = i;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            found.push((name, text[..end].to_string()));
        }
    }
    found
}

/// Every help text of the CLI: each subcommand's about and long about, and its arguments'.
fn cli_help_texts() -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for sub in sextant::cli::command().get_subcommands() {
        let name = sub.get_name().to_string();
        let about = [sub.get_about(), sub.get_long_about()];
        for text in about.into_iter().flatten() {
            texts.push((name.clone(), text.to_string()));
        }
        for arg in sub.get_arguments() {
            for text in [arg.get_help(), arg.get_long_help()].into_iter().flatten() {
                texts.push((format!("{name} --{}", arg.get_id()), text.to_string()));
            }
        }
    }
    texts
}

/// The clauses of `text` that name a diagnostic (a code's id, or its name in words:
/// "undefined names") and a language: a hand-typed copy of part of the rule table.
fn clauses_retyping_the_rule_table(text: &str) -> Vec<String> {
    let mut languages: Vec<String> = sextant::lang::registry()
        .all()
        .map(|l| l.name.clone())
        .collect();
    languages.extend(["JS", "TS"].map(String::from));
    let words = |clause: &str| -> Vec<String> {
        clause
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    };
    let mut found = Vec::new();
    for clause in text.split(['.', ';', '(', ')', '\n']) {
        let lower = clause.to_lowercase();
        let names_code = sextant::ide::diagnostic_codes().iter().any(|code| {
            lower.contains(&code.id.to_lowercase()) || lower.contains(&code.name.replace('-', " "))
        });
        let names_language = words(clause).iter().any(|w| languages.contains(w));
        if names_code && names_language {
            found.push(clause.trim().to_string());
        }
    }
    found
}

/// Which code runs in which language is the rule table's (`src/checks/rules.rs`): `sextant
/// explain`, MCP `explain_diagnostic` and docs/diagnostics.md read it. A help text or tool
/// description that lists it again drifts (two did), so they point to those instead, and
/// no line of `src/` outside `checks/` names a code's id beside a language.
#[test]
fn only_the_rule_table_says_which_code_runs_in_which_language() {
    let mut copies = Vec::new();
    let (cli, mcp) = (cli_help_texts(), mcp_tool_descriptions());
    assert!(
        cli.iter()
            .any(|(name, text)| name == "check" && text.contains("summary"))
    );
    assert!(mcp.iter().any(|(name, _)| name == "typecheck"));
    let texts = cli
        .into_iter()
        .map(|(name, text)| (format!("`sextant {name}` help"), text))
        .chain(
            mcp.into_iter()
                .map(|(name, text)| (format!("MCP `{name}` description"), text)),
        );
    for (place, text) in texts {
        for clause in clauses_retyping_the_rule_table(&text.replace("\\n", "\n")) {
            copies.push(format!("{place}: {clause:?}"));
        }
    }
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let checks = repo().join("src/checks");
    for file in files.iter().filter(|f| !f.starts_with(&checks)) {
        let source = std::fs::read_to_string(file).unwrap();
        for (n, line) in source.lines().enumerate() {
            let has_id = line.match_indices("SX").any(|(at, _)| {
                let digits = &line.as_bytes()[at + 2..];
                digits.len() >= 3 && digits[..3].iter().all(u8::is_ascii_digit)
            });
            if has_id && !clauses_retyping_the_rule_table(line).is_empty() {
                let path = file.strip_prefix(repo()).unwrap().display();
                copies.push(format!("{path}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        copies.is_empty(),
        "these name the languages a code is checked in; point to `sextant explain` or \
         docs/diagnostics.md instead (the rule table, src/checks/rules.rs, is the one \
         source):\n{}",
        copies.join("\n")
    );
}

#[test]
fn a_retyped_rule_table_is_found() {
    let old_check_help = "Syntax errors in every language; undefined names, unused imports \
        and missing workspace modules in Python, JavaScript and TypeScript";
    assert_eq!(
        clauses_retyping_the_rule_table(old_check_help),
        [
            "undefined names, unused imports and missing workspace modules in Python, JavaScript and TypeScript"
        ]
    );
    let old_tool = "Diagnostics with stable codes (syntax errors; undefined names, unused and \
        missing imports in Python, JS, TS) for files or the whole workspace.";
    assert_eq!(clauses_retyping_the_rule_table(old_tool).len(), 1);
    assert!(clauses_retyping_the_rule_table("Go to the definition of a name").is_empty());
}
