//! `sextant changes` on real repositories (made with git here; sextant reads them with
//! `gix`): the working tree against HEAD, a range of commits, a root inside the
//! repository, and errors with stable codes.

mod support;

use std::{path::Path, process::Command};

use support::{sextant, stderr, stdout};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const GEO: &str = "def square(x):\n    return x * x\n\n\ndef area(r):\n    return 3 * square(r)\n\n\ndef gone():\n    return 0\n";
const TEST: &str = "from geo import area\n\n\ndef test_area():\n    assert area(1) == 3\n";

/// A repository with one commit of `geo.py`, `tests/test_geo.py` and `old.py`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "geo.py", GEO);
    write(dir.path(), "tests/test_geo.py", TEST);
    write(dir.path(), "old.py", "def old():\n    pass\n");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "first"]);
    dir
}

/// The working tree's changes: `square` gets a parameter, `area` a new body, `gone` goes,
/// `cube` comes; `new.py` is untracked, `old.py` deleted.
fn change(dir: &Path) {
    let geo = GEO
        .replace("def square(x):", "def square(x, power=2):")
        .replace("return 3 * square(r)", "return 3.14 * square(r)")
        .replace(
            "\n\ndef gone():\n    return 0\n",
            "\n\ndef cube(x):\n    return x ** 3\n",
        );
    write(dir, "geo.py", &geo);
    write(
        dir,
        "new.py",
        "from geo import cube\n\n\ndef volume(x):\n    return cube(x)\n",
    );
    std::fs::remove_file(dir.join("old.py")).unwrap();
}

#[test]
fn the_working_tree_against_head() {
    let dir = repository();
    change(dir.path());
    let out = sextant(dir.path(), &["changes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "changes HEAD..working tree: 3 files, 6 changed definitions\n\
         geo.py (modified)\n  \
           1: function square signature changed (3 dependents, 1 test)\n  \
           5: function area body changed (2 dependents, 1 test)\n  \
           9: function cube added (2 dependents, 0 tests)\n  \
           9: function gone removed (0 dependents, 0 tests)\n\
         new.py (added)\n  \
           4: function volume added (0 dependents, 0 tests)\n\
         old.py (deleted)\n  \
           1: function old removed (0 dependents, 0 tests)\n\
         affected tests (1):\n  \
           tests/test_geo.py:4 function test_area [test]\n\
         impact: 3 dependents in 2 files, 1 test among them\n\
         1 step:\n  \
           new.py top level imports function cube (geo.py:9)\n  \
           tests/test_geo.py top level imports function area (geo.py:5)\n  \
           tests/test_geo.py:4 function test_area [test] uses function area (geo.py:5)\n"
    );
}

#[test]
fn a_range_of_commits_and_a_root_inside_the_repository() {
    let dir = repository();
    change(dir.path());
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "second"]);
    let out = sextant(dir.path(), &["--json", "changes", "HEAD~1..HEAD"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["revisions"], "HEAD~1..HEAD");
    let files: Vec<(String, String, Vec<String>)> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let definitions = f["definitions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    format!(
                        "{} {}",
                        d["name"].as_str().unwrap(),
                        d["change"].as_str().unwrap()
                    )
                })
                .collect();
            (
                f["path"].as_str().unwrap().into(),
                f["status"].as_str().unwrap().into(),
                definitions,
            )
        })
        .collect();
    let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        files,
        [
            (
                "geo.py".into(),
                "modified".into(),
                owned(&[
                    "square signature_changed",
                    "area body_changed",
                    "cube added",
                    "gone removed"
                ])
            ),
            ("new.py".into(), "added".into(), owned(&["volume added"])),
            ("old.py".into(), "deleted".into(), owned(&["old removed"])),
        ]
    );
    // Nothing changed since the last commit.
    assert_eq!(
        stdout(&sextant(dir.path(), &["changes"])),
        "changes HEAD..working tree: 0 files, 0 changed definitions\n\
         no test reaches the changed definitions\n\
         impact: 0 dependents in 0 files, 0 tests among them\n"
    );
    // A root inside the repository sees its own files only, by its own paths.
    write(
        dir.path(),
        "tests/test_geo.py",
        &TEST.replace("== 3", "== 3.14"),
    );
    write(dir.path(), "geo.py", &GEO.replace("x * x", "x ** 2"));
    let tests = dir.path().join("tests");
    let out = sextant(&tests, &["changes"]);
    assert_eq!(
        stdout(&out),
        "changes HEAD..working tree: 1 file, 1 changed definition\n\
         test_geo.py (modified)\n  \
           4: function test_area body changed (0 dependents, 0 tests)\n\
         affected tests (1):\n  \
           test_geo.py:4 function test_area [test]\n\
         impact: 0 dependents in 0 files, 0 tests among them\n"
    );
}

/// A removed definition's dependents are what still uses or imports it: found where it
/// still is (the old text), mapped to the workspace; a use the same change took out is not
/// one.
#[test]
fn a_removed_definition_has_the_dependents_it_breaks() {
    let dir = repository();
    write(
        dir.path(),
        "main.py",
        "from old import old\n\n\ndef run():\n    return old()\n",
    );
    write(
        dir.path(),
        "uses_gone.py",
        "from geo import gone\n\n\ndef g():\n    return gone()\n",
    );
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "users"]);
    // `square` goes but `area` still calls it; `gone` goes with its one use; `old.py` goes
    // while `main.py` still imports it.
    let geo = GEO
        .replace("def square(x):\n    return x * x\n\n\n", "")
        .replace("\n\ndef gone():\n    return 0\n", "");
    write(dir.path(), "geo.py", &geo);
    write(dir.path(), "uses_gone.py", "def g():\n    return 0\n");
    std::fs::remove_file(dir.path().join("old.py")).unwrap();
    let out = sextant(dir.path(), &["changes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "changes HEAD..working tree: 3 files, 4 changed definitions\n\
         geo.py (modified)\n  \
           1: function square removed (3 dependents, 1 test)\n  \
           9: function gone removed (0 dependents, 0 tests)\n\
         old.py (deleted)\n  \
           1: function old removed (2 dependents, 0 tests)\n\
         uses_gone.py (modified)\n  \
           1: function g body changed (0 dependents, 0 tests)\n\
         affected tests (1):\n  \
           tests/test_geo.py:4 function test_area [test]\n\
         impact: 5 dependents in 3 files, 1 test among them\n\
         1 step:\n  \
           geo.py:1 function area uses function square (geo.py:1, removed)\n  \
           main.py top level imports function old (old.py:1, removed)\n  \
           main.py:4 function run uses function old (old.py:1, removed)\n\
         2 steps:\n  \
           tests/test_geo.py top level imports function area (geo.py:1)\n  \
           tests/test_geo.py:4 function test_area [test] uses function area (geo.py:1)\n"
    );
    // The same through `--json`: the counts are the definition's own.
    let out = sextant(dir.path(), &["--json", "changes"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let old = &json["files"][1]["definitions"][0];
    assert_eq!(
        (
            &old["name"],
            &old["change"],
            &old["dependents"],
            &old["tests"]
        ),
        (
            &serde_json::json!("old"),
            &serde_json::json!("removed"),
            &serde_json::json!(2),
            &serde_json::json!(0)
        )
    );
    // `area` no longer calling `square` breaks nothing.
    write(
        dir.path(),
        "geo.py",
        &geo.replace("3 * square(r)", "3 * r * r"),
    );
    let out = sextant(dir.path(), &["changes", "--depth", "1"]);
    assert!(
        stdout(&out).contains("  1: function square removed (0 dependents, 0 tests)\n"),
        "{}",
        stdout(&out)
    );
}

/// `A...B` compares `B` with where it left `A`: what `A` did since is not `B`'s change,
/// whereas `A..B` shows it (undone).
#[test]
fn a_range_from_the_merge_base() {
    let dir = repository();
    git(dir.path(), &["branch", "-q", "-M", "main"]);
    git(dir.path(), &["checkout", "-qb", "feature"]);
    write(dir.path(), "geo.py", &GEO.replace("x * x", "x ** 2"));
    git(dir.path(), &["commit", "-qam", "feature"]);
    git(dir.path(), &["checkout", "-q", "main"]);
    write(dir.path(), "old.py", "def old():\n    return 1\n");
    git(dir.path(), &["commit", "-qam", "main moves on"]);
    let out = sextant(dir.path(), &["changes", "main...feature"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "changes main...feature: 1 file, 1 changed definition\n\
         geo.py (modified)\n  \
           1: function square body changed (3 dependents, 1 test)\n\
         affected tests (1):\n  \
           tests/test_geo.py:4 function test_area [test]\n\
         impact: 3 dependents in 2 files, 1 test among them\n\
         1 step:\n  \
           geo.py:5 function area uses function square (geo.py:1)\n\
         2 steps:\n  \
           tests/test_geo.py top level imports function area (geo.py:5)\n  \
           tests/test_geo.py:4 function test_area [test] uses function area (geo.py:5)\n"
    );
    let out = sextant(dir.path(), &["changes", "main..feature"]);
    assert!(
        stdout(&out).starts_with("changes main..feature: 2 files, 2 changed definitions\n"),
        "{}",
        stdout(&out)
    );
    // An empty side is HEAD (`main` here): nothing since the merge base on `main`'s side
    // that `main` did not do itself.
    let out = sextant(dir.path(), &["changes", "feature..."]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "changes feature...HEAD: 1 file, 1 changed definition\nold.py (modified)\n"
        ),
        "{}",
        stdout(&out)
    );
    // Unrelated histories have no merge base.
    git(dir.path(), &["checkout", "-q", "--orphan", "alone"]);
    git(dir.path(), &["commit", "-qm", "alone"]);
    let out = sextant(dir.path(), &["changes", "main...alone"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: INVALID_ARGUMENT: main...alone: the two commits have no common ancestor\n"
    );
}

#[test]
fn errors_have_codes() {
    let dir = repository();
    let out = sextant(dir.path(), &["changes", "no-such-branch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: INVALID_ARGUMENT: no-such-branch: "),
        "{}",
        stderr(&out)
    );
    let out = sextant(dir.path(), &["changes", "a...b"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: INVALID_ARGUMENT: a: "),
        "{}",
        stderr(&out)
    );
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "a.py", "x = 1\n");
    let out = sextant(plain.path(), &["changes"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: NOT_FOUND: the workspace root is in no git repository (or one that cannot be read)\n"
    );
}
