//! `sextant read` and `sextant tokens` as a user runs them: definitions with what belongs to
//! them, in priority order under a budget, a cursor to continue, exact counts; `sextant pack`
//! and `sextant bootstrap`.

mod support;

use support::{sextant, stderr, stdout};

const GEO: &str = "import math\n\n\n# Area.\n@cache\ndef area(r):\n    return math.pi * r * r\n\n\nclass Ring:\n    def inner(self):\n        return 1\n";
const LIB: &str = "/// Doc.\n#[must_use]\npub fn ring() -> u32 {\n    1\n}\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("geo.py"), GEO).unwrap();
    std::fs::write(dir.path().join("lib.rs"), LIB).unwrap();
    dir
}

#[test]
fn read_prints_definitions_lines_and_counts_on_stderr() {
    let dir = workspace();
    let out = sextant(dir.path(), &["read", "area", "lib.rs:3", "geo.py:11-12"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "geo.py:4-7 function area\n```python\n# Area.\n@cache\ndef area(r):\n    return math.pi * r * r\n```\n\n\
         lib.rs:1-5 function ring\n```rust\n/// Doc.\n#[must_use]\npub fn ring() -> u32 {\n    1\n}\n```\n\n\
         geo.py:11-12\n```python\n    def inner(self):\n        return 1\n```\n"
    );
    // Counts checked against the reference tokenizer (tests/oracle/reference_tokens.mjs).
    assert_eq!(stderr(&out), "89 tokens (o200k_base)\n");
}

#[test]
fn a_budget_leaves_targets_out_and_the_cursor_continues() {
    let dir = workspace();
    // `area` costs 33 tokens alone, `ring` about as much: only the first fits in 40.
    let cut = sextant(
        dir.path(),
        &["read", "area", "ring", "--max-tokens", "40", "--json"],
    );
    let answer: serde_json::Value = serde_json::from_slice(&cut.stdout).unwrap();
    assert_eq!(answer["status"], "with_omissions");
    assert_eq!(answer["next_cursor"], "1:1");
    assert_eq!(answer["tokens"], 33);
    assert_eq!(answer["omitted"][0]["name"], "ring");
    assert!(stderr(&cut).ends_with("left out for the budget: continue with --cursor 1:1\n"));
    let rest = sextant(dir.path(), &["read", "area", "ring", "--cursor", "1:1"]);
    assert!(
        stdout(&rest).starts_with("lib.rs:1-5 function ring\n"),
        "{}",
        stdout(&rest)
    );
}

#[test]
fn names_that_name_nothing_fail_and_ambiguous_ones_list_candidates() {
    let dir = workspace();
    std::fs::write(dir.path().join("other.py"), "def area():\n    pass\n").unwrap();
    let missing = sextant(dir.path(), &["read", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing),
        "sextant: error: NOT_FOUND: no definition named nowhere\n"
    );
    let ambiguous = sextant(dir.path(), &["read", "area"]);
    assert_eq!(
        stdout(&ambiguous),
        "`area` names 2 definitions; ask for one by path and line:\n  geo.py:6 function\n  other.py:1 function\n"
    );
    let bad = sextant(dir.path(), &["read", "geo.py:x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("INVALID_TARGET"), "{}", stderr(&bad));
}

#[test]
fn outline_lists_definitions_with_their_token_costs() {
    let dir = workspace();
    let out = sextant(dir.path(), &["read", "--outline", "geo.py"]);
    assert_eq!(
        stdout(&out),
        "geo.py: 3 definitions, 35 tokens in all\n  6-7 function area (12 tokens)\n  10-12 class Ring (12 tokens)\n    11-12 method Ring.inner (8 tokens)\n"
    );
}

#[test]
fn tokens_counts_each_file_and_the_total() {
    let dir = workspace();
    let out = sextant(dir.path(), &["tokens"]);
    assert_eq!(
        stdout(&out),
        "      35 geo.py\n      20 lib.rs\n      55 total (o200k_base)\n"
    );
    let cl100k = sextant(
        dir.path(),
        &["tokens", "--json", "--encoding", "cl100k_base", "lib.rs"],
    );
    let answer: serde_json::Value = serde_json::from_slice(&cl100k.stdout).unwrap();
    assert_eq!(answer["encoding"], "cl100k_base");
    assert_eq!(answer["files"][0]["path"], "lib.rs");
    let unknown = sextant(dir.path(), &["tokens", "--encoding", "gpt2"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// Runs git in `dir` with a fixed identity, for a fixture; panics when it fails.
fn git(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    out
}

#[test]
fn bootstrap_tells_a_new_session_what_to_read_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[[bin]]\nname = \"demo\"\n\n\
         [[bin]]\nname = \"gen-rs\"\npath = \"tools/gen.rs\"\n\n[[bin]]\nname = \"gone\"\n",
    );
    write("src/main.rs", "mod util;\nfn main() {}\n");
    write("tools/gen.rs", "fn main() {}\n");
    write("cli/index.js", "#!/usr/bin/env node\nconsole.log(1);\n");
    write(
        "pyproject.toml",
        "[project]\nname = \"demo-py\"\n\n[project.scripts]\ndemo-gen = \"tools.gen:run\"\n\
         missing = \"nowhere.mod:main\"\n",
    );
    write("src/util.rs", "pub fn helper() {}\n");
    write(
        "tools/gen.py",
        "def run():\n    pass\n\nif __name__ == \"__main__\":\n    run()\n",
    );
    write(
        "Makefile",
        ".PHONY: all\nall: build\nbuild:\n\tcargo build\nCC := cc\n",
    );
    write(
        "package.json",
        "{\"name\": \"web\", \"scripts\": {\"lint\": \"eslint .\"}, \"bin\": {\"web-cli\": \"./cli/index.js\"}}",
    );
    write("AGENTS.md", "Run make.\n");
    // A real repository (git runs here only to make it): one commit, then one file
    // changed and one new.
    git(root, &["init", "-q", "-b", "feature/x"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "start"]);
    let commit = String::from_utf8(git(root, &["rev-parse", "--short", "HEAD"]).stdout).unwrap();
    write("src/util.rs", "pub fn helper() -> u8 { 1 }\n");
    write("notes.txt", "todo\n");
    let out = sextant(root, &["bootstrap"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let git_line = format!(
        "Git: branch feature/x at {}, 1 changed, 1 untracked (notes.txt, src/util.rs)\n",
        commit.trim()
    );
    let expected = [
        git_line.as_str(),
        "Languages: javascript (1 files, 2 lines), python (1 files, 5 lines), rust (3 files, 4 lines)",
        "Read first: AGENTS.md",
        "Projects:\n  cargo demo at . (Cargo.toml)\n  python demo-py at . (pyproject.toml)\n  npm web at . (package.json)\n",
        "Commands:\n  cargo build (Cargo.toml)\n  cargo test (Cargo.toml)\n  cargo clippy --all-targets (Cargo.toml)\n  npm run lint (package.json)\n  make all (Makefile)\n  make build (Makefile)\n",
        // Declared by the manifests too: a `[[bin]]` whose file is missing is left out, as
        // is a script whose module is nowhere.
        "Entry points:\n  src/main.rs (rust binary `demo`)\n  tools/gen.rs (rust binary `gen-rs`)\n  \
         tools/gen.py (console script `demo-gen: tools.gen:run`)\n  cli/index.js (npm bin `web-cli`)\n  \
         tools/gen.py (python script)\n",
        "Layout:\n  tools/ 2 files, 6 lines, mostly python\n  src/ 2 files, 3 lines, mostly rust\n  cli/ 1 files, 2 lines, mostly javascript\n",
        "Most imported:\n  src/util.rs (1 importers)\n",
    ];
    for part in expected {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
    let tokens: usize = stderr(&out).split(' ').next().unwrap().parse().unwrap();
    let small = sextant(root, &["bootstrap", "--max-tokens", "40"]);
    let cut = stdout(&small);
    assert!(
        cut.ends_with("more lines left out for the budget)\n"),
        "{cut}"
    );
    assert!(tokens > 40);
}

#[test]
fn pack_puts_required_entries_first_and_optional_ones_by_priority() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("big.py"),
        "def big():\n    return [\n".to_string() + &"        1,\n".repeat(200) + "    ]\n",
    )
    .unwrap();
    // Required: geo.py in full and lib.rs's skeleton; optional: Ring.inner (inside geo.py,
    // so already there) and big.py, which fits only as its skeleton.
    let out = sextant(
        dir.path(),
        &[
            "pack",
            "geo.py",
            "--skeleton",
            "lib.rs",
            "--optional",
            "Ring.inner=90",
            "--optional",
            "big.py=10",
            "--max-tokens",
            "200",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let included: Vec<(String, String)> = answer["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["mode"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        included,
        [
            ("geo.py".into(), "full".into()),
            ("lib.rs".into(), "skeleton".into()),
            ("big.py".into(), "skeleton".into())
        ]
    );
    assert_eq!(answer["omitted"][0]["target"], "Ring.inner");
    assert_eq!(answer["omitted"][0]["reason"], "already_included");
    assert_eq!(
        answer["status"], "with_omissions",
        "big.py went in as a skeleton only"
    );
    assert!(answer["tokens"].as_u64().unwrap() <= 200);
    assert!(
        answer["text"]
            .as_str()
            .unwrap()
            .contains("big.py:1-203 (skeleton)\n```python\ndef big(): ...  # lines 2-203\n```\n")
    );
}

#[test]
fn pack_refuses_what_it_cannot_give_whole() {
    let dir = workspace();
    let missing = sextant(dir.path(), &["pack", "geo.py", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing),
        "sextant: error: REQUIRED_UNAVAILABLE: required entries unavailable: nowhere (not_found)\n"
    );
    let over = sextant(dir.path(), &["pack", "geo.py", "--max-tokens", "10"]);
    assert_eq!(over.status.code(), Some(2));
    assert!(
        stderr(&over)
            .starts_with("sextant: error: REQUIRED_OVER_BUDGET: the required entries take ")
    );
    assert!(stdout(&over).is_empty());
    let xml = sextant(dir.path(), &["pack", "area", "--style", "xml"]);
    assert_eq!(
        stdout(&xml),
        "<file path=\"geo.py\" lines=\"4-7\" mode=\"full\">\n# Area.\n@cache\ndef area(r):\n    return math.pi * r * r\n</file>\n"
    );
}

/// A root inside a repository sees only its own changes, named from the root.
#[test]
fn bootstrap_of_a_subdirectory_reports_its_own_changes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    for rel in ["app/main.py", "lib/util.py"] {
        std::fs::create_dir_all(repo.join(rel).parent().unwrap()).unwrap();
        std::fs::write(repo.join(rel), "x = 1\n").unwrap();
    }
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "start"]);
    std::fs::write(repo.join("lib/util.py"), "x = 2\n").unwrap();
    std::fs::remove_file(repo.join("app/main.py")).unwrap();
    std::fs::write(repo.join("app/new.py"), "y = 1\n").unwrap();
    let out = sextant(&repo.join("app"), &["bootstrap", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let git = &answer["git"];
    assert_eq!(
        (
            &git["branch"],
            &git["dirty"],
            &git["changed"],
            &git["untracked"]
        ),
        (&"main".into(), &true.into(), &1.into(), &1.into()),
        "{git}"
    );
    assert_eq!(git["listed"], serde_json::json!(["main.py", "new.py"]));
}
