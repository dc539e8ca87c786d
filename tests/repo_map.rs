//! `sextant repo-map` as a user runs it: definitions ranked by how much the rest of the
//! code uses them (resolved references, not names), focus moving the ranking, a budget
//! never exceeded and counted exactly.

mod support;

use support::{sextant, stderr, stdout};

/// `parse` is used from three files, `render` and `Config` from one each, `clamp` twice
/// from one TypeScript file; `unused` and `__init__` by nothing.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "app/core.py",
            "class Config:\n    def __init__(self, name):\n        self.name = name\n\n\n\
             def parse(text):\n    return text.split()\n\n\n\
             def render(tree):\n    return \" \".join(tree)\n",
        ),
        (
            "app/a.py",
            "from app.core import parse, render\n\n\ndef first(text):\n    return render(parse(text))\n",
        ),
        (
            "app/b.py",
            "from app.core import parse\n\n\ndef second(text):\n    return parse(text)\n",
        ),
        (
            "app/c.py",
            "from app.core import Config, parse\n\n\ndef third(text):\n    return parse(text), Config(\"c\")\n",
        ),
        (
            "web/util.ts",
            "export function clamp(x: number): number {\n  return Math.max(0, x);\n}\n\nexport function unused(): void {}\n",
        ),
        (
            "web/main.ts",
            "import { clamp } from \"./util\";\n\nexport function main(): number {\n  return clamp(1) + clamp(2);\n}\n",
        ),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn json(dir: &tempfile::TempDir, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "repo-map"];
    all.extend_from_slice(args);
    let out = sextant(dir.path(), &all);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn names(answer: &serde_json::Value) -> Vec<&str> {
    answer["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect()
}

#[test]
fn the_whole_map_groups_ranked_definitions_by_file() {
    let dir = workspace();
    let out = sextant(dir.path(), &["repo-map"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/core.py:\n1: class Config\n2:   def __init__(self, name)\n6: def parse(text)\n10: def render(tree)\n\n\
         web/util.ts:\n1: function clamp(x: number): number\n5: function unused(): void\n\n\
         app/a.py:\n4: def first(text)\n\napp/b.py:\n4: def second(text)\n\napp/c.py:\n4: def third(text)\n\n\
         web/main.ts:\n3: function main(): number\n"
    );
    // 94: the reference tokenizer's count of that text (tests/oracle/reference_tokens.mjs).
    assert_eq!(
        stderr(&out),
        "94 tokens (o200k_base); 10 of 10 definitions, 6 of 6 files\n"
    );
}

#[test]
fn rank_follows_use_and_focus_moves_it() {
    let dir = workspace();
    let plain = json(&dir, &[]);
    // Used from three files, then twice from one, then once (ties: path, then file order).
    assert_eq!(
        names(&plain),
        [
            "parse", "clamp", "Config", "render", "first", "second", "third", "__init__", "main",
            "unused"
        ]
    );
    let focused = json(&dir, &["--focus", "render"]);
    assert_eq!(names(&focused)[..3], ["render", "parse", "clamp"]);
    let on_file = json(&dir, &["--focus", "web/main.ts"]);
    assert_eq!(names(&on_file)[..3], ["main", "clamp", "parse"]);
    let nothing = sextant(dir.path(), &["repo-map", "--focus", "nowhere"]);
    assert!(stderr(&nothing).starts_with("focus \"nowhere\" names no file or definition\n"));
}

#[test]
fn a_budget_cuts_the_rank_order_and_counts_exactly() {
    let dir = workspace();
    let cut = json(&dir, &["--max-tokens", "60"]);
    assert_eq!(
        cut["text"],
        "app/core.py:\n1: class Config\n6: def parse(text)\n10: def render(tree)\n\n\
         web/util.ts:\n1: function clamp(x: number): number\n\n\
         … 6 more definitions (raise max_tokens, narrow the path or focus)\n"
    );
    // The reference tokenizer's count of that text.
    assert_eq!(cut["tokens"], 51);
    assert_eq!(cut["truncated"], true);
    assert_eq!(names(&cut), ["parse", "clamp", "Config", "render"]);
    let plain = json(&dir, &[]);
    let all = names(&plain);
    for budget in [10u64, 17, 26, 33, 45, 75, 93] {
        let answer = json(&dir, &["--max-tokens", &budget.to_string()]);
        let tokens = answer["tokens"].as_u64().unwrap();
        assert!(tokens <= budget, "{budget}: {tokens}");
        let shown = names(&answer);
        assert_eq!(
            shown,
            all[..shown.len()],
            "{budget}: a prefix of the rank order"
        );
    }
    // Too small for the note: the first definition alone.
    let tiny = json(&dir, &["--max-tokens", "12"]);
    assert_eq!(tiny["text"], "app/core.py:\n6: def parse(text)\n");
    assert_eq!(tiny["tokens"], 10);
    let none = sextant(dir.path(), &["repo-map", "--max-tokens", "5"]);
    assert_eq!(
        stderr(&none),
        "sextant: error: TOO_LARGE: not even one definition fits in 5 tokens\n"
    );
}

#[test]
fn a_path_maps_its_files_only_and_a_missing_one_fails() {
    let dir = workspace();
    let web = sextant(dir.path(), &["repo-map", "web"]);
    assert_eq!(
        stdout(&web),
        "web/util.ts:\n1: function clamp(x: number): number\n5: function unused(): void\n\n\
         web/main.ts:\n3: function main(): number\n"
    );
    let missing = sextant(dir.path(), &["repo-map", "nowhere"]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("NOT_FOUND"),
        "{}",
        stderr(&missing)
    );
}
