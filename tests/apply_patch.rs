//! `sextant apply` as a user runs it: a patch from a file or standard input, the dry run's
//! summary with the diagnostics it would introduce, `--diff`, `--write`, `--check refuse`,
//! `--json`, and the exit codes of a patch that does not apply or is not a patch; and
//! `sextant edit`, a symbol-level edit made and shown as a patch.

mod support;

use std::{
    io::Write as _,
    path::Path,
    process::{Command, Output, Stdio},
};
use support::{sextant, stderr, stdout};

use support::{read_file as read, write_file as write};

const GEO: &str = "def area(w, h):\n    return w * h\n";
const MAIN: &str = "from app.geo import area\n\nprint(area(1, 2))\n";

/// Misspells the call: `aera` is undefined and the import goes unused.
const TYPO: &str = "--- a/app/main.py
+++ b/app/main.py
@@ -1,3 +1,3 @@
 from app.geo import area
 
-print(area(1, 2))
+print(aera(1, 2))
";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app/__init__.py", "");
    write(dir.path(), "app/geo.py", GEO);
    write(dir.path(), "app/main.py", MAIN);
    dir
}

fn with_stdin(root: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_dry_run_sums_up_the_files_and_the_new_diagnostics_and_writes_nothing() {
    let dir = workspace();
    let root = dir.path();
    let out = with_stdin(root, &["apply"], TYPO);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "M app/main.py +1 -1\n\
         app/main.py:1:21: warning SX006 'app.geo.area' imported but unused (new)\n\
         app/main.py:3:7: error SX005 undefined name 'aera' (new)\n\
         1 file (dry run: --diff to see it, --write to apply)\n"
    );
    assert_eq!(read(root, "app/main.py"), MAIN);

    let diff = with_stdin(root, &["apply", "--diff", "-"], TYPO);
    assert_eq!(
        stdout(&diff),
        format!("diff --git a/app/main.py b/app/main.py\n{TYPO}")
    );
}

#[test]
fn check_refuse_keeps_new_errors_out_and_write_writes() {
    let dir = workspace();
    let root = dir.path();
    write(root, "typo.diff", TYPO);
    let refused = sextant(
        root,
        &["apply", "typo.diff", "--check", "refuse", "--write"],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stdout(&refused)
            .ends_with("1 file, not written: the patch would introduce errors (--check refuse)\n"),
        "{}",
        stdout(&refused)
    );
    assert_eq!(read(root, "app/main.py"), MAIN);

    let written = sextant(root, &["apply", "typo.diff", "--write"]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert!(stdout(&written).ends_with("1 file, written\n"));
    assert_eq!(
        read(root, "app/main.py"),
        "from app.geo import area\n\nprint(aera(1, 2))\n"
    );

    // Applied once, the patch no longer applies: nothing is written twice.
    let again = sextant(root, &["apply", "typo.diff", "--write"]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        "sextant: error: PATCH_DOES_NOT_APPLY: app/main.py: hunk 1 (`@@ -1,3 +1,3 @@`) does \
         not apply: at line 3 it expects `print(area(1, 2))` but the file has \
         `print(aera(1, 2))`\n"
    );
}

#[test]
fn json_reports_the_files_the_diagnostics_and_the_change_id() {
    let dir = workspace();
    let root = dir.path();
    let blocks = "app/geo.py\n<<<<<<< SEARCH\n    return w * h\n=======\n    return h * w\n>>>>>>> REPLACE\n";
    let out = with_stdin(root, &["--json", "apply", "--write"], blocks);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["applied"], true);
    assert_eq!(answer["change_id"].as_str().unwrap().len(), 32);
    assert_eq!(
        answer["files"],
        serde_json::json!([{"path": "app/geo.py", "status": "modified", "lines_added": 1, "lines_removed": 1}])
    );
    assert_eq!(answer["new_diagnostics"], serde_json::json!([]));
    assert_eq!(
        read(root, "app/geo.py"),
        "def area(w, h):\n    return h * w\n"
    );
}

#[test]
fn what_is_not_a_patch_or_leaves_the_root_is_an_error() {
    let dir = workspace();
    let root = dir.path();
    let not_a_patch = with_stdin(root, &["apply"], "hello\n");
    assert_eq!(not_a_patch.status.code(), Some(2));
    assert!(
        stderr(&not_a_patch)
            .starts_with("sextant: error: PATCH_INVALID: patch line 1: not a patch"),
        "{}",
        stderr(&not_a_patch)
    );
    let escape = "*** Begin Patch\n*** Add File: ../outside.py\n+x = 1\n*** End Patch\n";
    let out = with_stdin(root, &["apply", "--write"], escape);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: PATCH_INVALID: "),
        "{}",
        stderr(&out)
    );
    assert!(!root.parent().unwrap().join("outside.py").exists());
    let missing = sextant(root, &["apply", "no-such.diff"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).starts_with("sextant: error: NOT_FOUND: no-such.diff: "),
        "{}",
        stderr(&missing)
    );
}

/// `--expected-sha256` holds a patch to the file it was made for: the hash is of the
/// file's bytes as they are on disk (a byte-order mark and CRLF endings included), as
/// `sha256sum` prints it.
#[test]
fn expected_sha256_refuses_a_file_that_is_not_the_one_the_patch_was_made_for() {
    use sha2::Digest;
    let dir = workspace();
    let root = dir.path();
    let main = "\u{feff}from app.geo import area\r\n\r\nprint(area(1, 2))\r\n";
    write(root, "app/main.py", main);
    let sha256 = |text: &str| -> String {
        let digest = sha2::Sha256::digest(text.as_bytes());
        digest.iter().map(|byte| format!("{byte:02x}")).collect()
    };
    let matching = format!("app/main.py={}", sha256(main));
    let out = with_stdin(
        root,
        &["apply", "--write", "--expected-sha256", &matching],
        TYPO,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let patched = main.replace("print(area", "print(aera");
    assert_eq!(read(root, "app/main.py"), patched);

    // The same hash again: the file is no longer the one it names.
    let back = TYPO
        .replace("-print(area", "-PRINT")
        .replace("+print(aera", "-print(aera")
        .replace("-PRINT", "+print(area");
    let out = with_stdin(
        root,
        &["apply", "--write", "--expected-sha256", &matching],
        &back,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "sextant: error: CONFLICT: app/main.py: the file changed: its SHA-256 is {}, not the expected {}\n",
            sha256(&patched),
            sha256(main)
        )
    );
    assert_eq!(read(root, "app/main.py"), patched, "nothing was written");

    let stray = format!("app/geo.py={}", sha256(GEO));
    let out = with_stdin(root, &["apply", "--expected-sha256", &stray], &back);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: PATCH_INVALID: expected_sha256 names app/geo.py, which the patch does not change\n"
    );
    let out = with_stdin(
        root,
        &["apply", "--expected-sha256", "app/main.py=abc"],
        &back,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a SHA-256 is 64 hexadecimal digits"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn edit_replaces_a_body_reindented_and_refuses_to_delete_a_used_definition() {
    let dir = workspace();
    let root = dir.path();
    let body = "area = w * h\nreturn area\n";
    let dry = with_stdin(
        root,
        &["edit", "app.geo.area", "replace-body", "--text", "-"],
        body,
    );
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert_eq!(
        stdout(&dry),
        "app/geo.py:1-2 function area\n\
         M app/geo.py +2 -1\n\
         1 file (dry run: --diff to see it, --write to apply)\n"
    );
    assert_eq!(read(root, "app/geo.py"), GEO);
    let args = [
        "edit",
        "app/geo.py:1:5",
        "replace-body",
        "--text",
        "-",
        "--write",
    ];
    let written = with_stdin(root, &args, body);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    assert_eq!(
        read(root, "app/geo.py"),
        "def area(w, h):\n    area = w * h\n    return area\n"
    );

    let refused = sextant(root, &["edit", "app.geo.area", "delete", "--write"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "sextant: error: STILL_REFERENCED: function area is still used in 2 places; remove the \
         uses first, or force the delete\n  app/main.py:1 import\n  app/main.py:3 call\n"
    );
    assert_eq!(
        read(root, "app/geo.py"),
        "def area(w, h):\n    area = w * h\n    return area\n"
    );
    let forced = sextant(
        root,
        &["edit", "app.geo.area", "delete", "--force", "--write"],
    );
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_eq!(read(root, "app/geo.py"), "");
}

#[test]
fn edit_follows_each_language_s_indentation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let rust = "impl Rect {\n    /// The area.\n    pub fn area(&self) -> u32 {\n        self.w * self.w\n    }\n}\n";
    write(root, "src/lib.rs", rust);
    let go = "package main\n\nfunc area(w int) int {\n\treturn w * w\n}\n";
    write(root, "cmd/main.go", go);
    let body = with_stdin(
        root,
        &[
            "edit",
            "Rect::area",
            "replace-body",
            "--text",
            "-",
            "--write",
        ],
        "let a = self.w;\na * a\n",
    );
    assert_eq!(body.status.code(), Some(0), "{}", stderr(&body));
    let after = with_stdin(
        root,
        &[
            "edit",
            "Rect::area",
            "insert-after",
            "--text",
            "-",
            "--write",
        ],
        "fn half(&self) -> u32 {\n    self.w / 2\n}\n",
    );
    assert_eq!(after.status.code(), Some(0), "{}", stderr(&after));
    assert_eq!(
        read(root, "src/lib.rs"),
        "impl Rect {\n    /// The area.\n    pub fn area(&self) -> u32 {\n        let a = self.w;\n        \
         a * a\n    }\n\n    fn half(&self) -> u32 {\n        self.w / 2\n    }\n}\n"
    );
    let tabs = with_stdin(
        root,
        &[
            "edit",
            "cmd/main.go:3:6",
            "replace-body",
            "--text",
            "-",
            "--write",
        ],
        "    sq := w * w\n    return sq\n",
    );
    assert_eq!(tabs.status.code(), Some(0), "{}", stderr(&tabs));
    assert_eq!(
        read(root, "cmd/main.go"),
        "package main\n\nfunc area(w int) int {\n\tsq := w * w\n\treturn sq\n}\n"
    );
}

/// A file that is not UTF-8 is patched as Latin-1: the patch may be UTF-8 text (as an
/// agent writes it) or the file's own bytes (as `git diff` prints them), every byte the
/// patch does not touch stays, and a character Latin-1 cannot hold is refused.
#[test]
fn a_latin_1_file_is_patched_in_latin_1() {
    use sha2::Digest;
    let dir = workspace();
    let root = dir.path();
    let legacy: &[u8] = b"# -*- coding: latin-1 -*-\r\nNAME = 'Jos\xe9'\r\nSIGN = '\x80'\r\n";
    std::fs::write(root.join("app/legacy.py"), legacy).unwrap();
    let utf8_patch = "--- a/app/legacy.py\n+++ b/app/legacy.py\n@@ -2 +2 @@\n\
                      -NAME = 'Jos\u{e9}'\n+NAME = 'Andr\u{e9}'\n";
    let out = with_stdin(root, &["apply"], utf8_patch);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "M app/legacy.py (latin-1) +1 -1\n1 file (dry run: --diff to see it, --write to apply)\n"
    );
    let sha256: String = sha2::Sha256::digest(legacy)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let expected = format!("app/legacy.py={sha256}");
    let out = with_stdin(
        root,
        &["apply", "--write", "--expected-sha256", &expected],
        utf8_patch,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let andre: &[u8] = b"# -*- coding: latin-1 -*-\r\nNAME = 'Andr\xe9'\r\nSIGN = '\x80'\r\n";
    assert_eq!(std::fs::read(root.join("app/legacy.py")).unwrap(), andre);

    // The file's own bytes, as `git diff` prints a Latin-1 file.
    let raw_patch: &[u8] = b"--- a/app/legacy.py\n+++ b/app/legacy.py\n@@ -2 +2 @@\n\
                             -NAME = 'Andr\xe9'\n+NAME = '\xc9lise'\n";
    std::fs::write(root.join("raw.diff"), raw_patch).unwrap();
    let out = sextant(root, &["apply", "--write", "raw.diff"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let elise: &[u8] = b"# -*- coding: latin-1 -*-\r\nNAME = '\xc9lise'\r\nSIGN = '\x80'\r\n";
    assert_eq!(std::fs::read(root.join("app/legacy.py")).unwrap(), elise);

    let euro = "--- a/app/legacy.py\n+++ b/app/legacy.py\n@@ -3 +3 @@\n\
                -SIGN = '\u{80}'\n+SIGN = '\u{20ac}'\n";
    let out = with_stdin(root, &["apply", "--write"], euro);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: PATCH_DOES_NOT_APPLY: app/legacy.py: line 3 has '€' (U+20AC), \
         which Latin-1, the file's encoding, cannot hold\n"
    );
    assert_eq!(std::fs::read(root.join("app/legacy.py")).unwrap(), elise);
}

/// A file with other hard links is refused unless `--break-hard-links`; then the name the
/// patch names gets the new text, the other keeps the old, and the output says so.
#[test]
fn a_file_with_other_hard_links_is_written_only_with_break_hard_links() {
    let dir = workspace();
    let root = dir.path();
    std::fs::hard_link(root.join("app/main.py"), root.join("app/copy.py")).unwrap();
    let out = with_stdin(root, &["apply", "--write"], TYPO);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: WRITE_REFUSED: app/main.py: it has 2 hard links, and replacing it \
         would leave the others with the old text (allow that with `break_hard_links`); \
         nothing was written\n"
    );
    assert_eq!(read(root, "app/main.py"), MAIN);
    let out = with_stdin(root, &["apply", "--break-hard-links"], TYPO);
    assert_eq!(out.status.code(), Some(2), "it goes with --write");
    let out = with_stdin(root, &["apply", "--write", "--break-hard-links"], TYPO);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "M app/main.py +1 -1\n\
         app/main.py:1:21: warning SX006 'app.geo.area' imported but unused (new)\n\
         app/main.py:3:7: error SX005 undefined name 'aera' (new)\n\
         1 file, written\n\
         app/main.py: its other hard links keep the old text\n"
    );
    assert_eq!(
        read(root, "app/main.py"),
        MAIN.replace("print(area", "print(aera")
    );
    assert_eq!(read(root, "app/copy.py"), MAIN);
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// Edits both files of [`workspace`]: `app/geo.py` first, as the writer takes them.
const BOTH: &str = "--- a/app/geo.py
+++ b/app/geo.py
@@ -1,2 +1,2 @@
-def area(w, h):
+def area(w, h=1):
     return w * h
--- a/app/main.py
+++ b/app/main.py
@@ -3 +3 @@
-print(area(1, 2))
+print(area(3))
";

/// `sextant apply --write --operation-id op` started with a pause before each step of its
/// write, killed once `until` holds.
fn killed_apply(root: &Path, cache: &Path, until: impl Fn() -> bool) {
    std::fs::write(root.join("both.diff"), BOTH).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .arg("--cache-dir")
        .arg(cache)
        .args(["apply", "--write", "--operation-id", "op", "both.diff"])
        .env("SEXTANT_TEST_APPLY_STEP_PAUSE_MS", "400")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !until() {
        assert!(child.try_wait().unwrap().is_none(), "the write ended first");
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A retry of a named write after the writer was killed: before it wrote anything, it
/// writes (and a second retry prints the first result); between its two files, it is
/// refused, naming the file written, and nothing more is written.
#[test]
fn a_named_write_killed_part_way_is_retried_safely() {
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_string();
    let cached = |args: &[&'static str]| -> Vec<String> {
        let cache_args = ["--cache-dir", cache_dir.as_str()];
        cache_args
            .iter()
            .chain(args)
            .map(|a| a.to_string())
            .collect()
    };
    // The record is written, synced and renamed into place before the first step.
    let recorded = || {
        let Ok(roots) = std::fs::read_dir(cache.path().join("operations")) else {
            return false;
        };
        let mut files = roots
            .flatten()
            .flat_map(|root| std::fs::read_dir(root.path()));
        files.any(|entries| {
            (entries.flatten()).any(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
    };

    let dir = workspace();
    let root = dir.path();
    killed_apply(root, cache.path(), recorded);
    assert_eq!(
        read(root, "app/geo.py"),
        GEO,
        "killed before its first step"
    );
    let args = cached(&["apply", "--write", "--operation-id", "op", "both.diff"]);
    let args = strs(&args);
    let first = sextant(root, &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(
        stdout(&first),
        "M app/geo.py +1 -1\nM app/main.py +1 -1\n2 files, written\n"
    );
    assert_eq!(
        read(root, "app/main.py"),
        "from app.geo import area\n\nprint(area(3))\n"
    );
    write(root, "app/main.py", MAIN);
    let again = sextant(root, &args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&first));
    assert_eq!(
        stderr(&again),
        "sextant: operation \"op\" was written before; its first result follows, and nothing \
         was written now\n"
    );
    assert_eq!(read(root, "app/main.py"), MAIN, "nothing written again");
    let other_args = cached(&["apply", "--write", "--operation-id", "op", "-"]);
    let other = with_stdin(root, &strs(&other_args), TYPO);
    assert_eq!(other.status.code(), Some(2));
    assert_eq!(
        stderr(&other),
        "sextant: error: INVALID_ARGUMENT: operation_id \"op\" was used for another request\n"
    );

    let cache = tempfile::tempdir().unwrap();
    let dir = workspace();
    let root = dir.path();
    killed_apply(root, cache.path(), || read(root, "app/geo.py") != GEO);
    assert_eq!(
        read(root, "app/main.py"),
        MAIN,
        "killed between its two files"
    );
    let args = ["--cache-dir", cache.path().to_str().unwrap()];
    let args = [
        &args[..],
        &["apply", "--write", "--operation-id", "op", "both.diff"],
    ]
    .concat();
    let retry = sextant(root, &args);
    assert_eq!(retry.status.code(), Some(2));
    assert_eq!(
        stderr(&retry),
        "sextant: error: CONFLICT: operation_id \"op\" was interrupted part-way (written: \
         app/geo.py; its other files are as they were); nothing was written\n"
    );
    assert_eq!(read(root, "app/main.py"), MAIN);
}
