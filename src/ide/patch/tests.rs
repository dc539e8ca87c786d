//! Tests of parsing and applying patches, per format, then properties over random texts.
//!
//! Invariant: every expected text and message is written out whole; nothing is compared
//! with a value computed the same way as the code under test.

use std::collections::BTreeMap;

use super::*;
use crate::ide::{ContentHash, FileText};

fn texts(files: &[(&str, &str)]) -> impl Fn(&str) -> Option<FileText> + use<> {
    let files: BTreeMap<String, FileText> = files
        .iter()
        .map(|(path, text)| (path.to_string(), FileText::utf8(*text)))
        .collect();
    move |path: &str| files.get(path).cloned()
}

fn apply_with(
    patch: &str,
    files: &[(&str, &str)],
    options: &PatchOptions,
) -> Result<PatchOutcome, PatchError> {
    let patch = parse_patch(patch, PatchFormat::Auto)?;
    apply_to_texts(&patch, &texts(files), options)
}

fn apply(patch: &str, files: &[(&str, &str)]) -> Result<PatchOutcome, PatchError> {
    apply_with(patch, files, &PatchOptions::default())
}

/// The one file's new text.
fn new_text(patch: &str, files: &[(&str, &str)]) -> String {
    let outcome = apply(patch, files).unwrap();
    assert_eq!(outcome.files.len(), 1);
    outcome.files[0].new_text.clone().unwrap()
}

fn error(patch: &str, files: &[(&str, &str)]) -> (ErrorCode, String) {
    let error = apply(patch, files).unwrap_err();
    (error.code(), error.to_string())
}

const APP: &str = "import os\n\ndef main():\n    print('hello')\n    return 0\n\nif __name__ == '__main__':\n    main()\n";

mod unified {
    use super::*;

    #[test]
    fn a_git_diff_changes_the_file_byte_for_byte() {
        let patch = "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] Greet\n\nSay hi.\n---\n app.py | 2 +-\n\ndiff --git a/app.py b/app.py\nindex 83db48f..bf269f4 100644\n--- a/app.py\n+++ b/app.py\n@@ -2,4 +2,4 @@ import os\n \n def main():\n-    print('hello')\n+    print('hi')\n     return 0\n-- \n2.40.0\n";
        let outcome = apply(patch, &[("app.py", APP)]).unwrap();
        let file = &outcome.files[0];
        assert_eq!(
            file.new_text.as_deref(),
            Some(
                "import os\n\ndef main():\n    print('hi')\n    return 0\n\nif __name__ == '__main__':\n    main()\n"
            )
        );
        assert_eq!(
            file.hunks,
            vec![HunkReport {
                line: 2,
                offset: 0,
                fuzz: 0,
                whitespace_ignored: false
            }]
        );
        let edit = file.edit.as_ref().unwrap();
        assert_eq!(edit.base_hash, ContentHash::of(APP.as_bytes()));
        assert_eq!(edit.apply(APP).unwrap(), file.new_text.clone().unwrap());
        assert_eq!(
            outcome.diff,
            "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,7 +1,7 @@\n import os\n \n def main():\n-    print('hello')\n+    print('hi')\n     return 0\n \n if __name__ == '__main__':\n"
        );
        assert_eq!(outcome.source_change().files, vec![edit.clone()]);
    }

    #[test]
    fn a_hunk_at_the_wrong_line_applies_at_the_nearest_match_with_its_offset() {
        let patch = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    print('hello')\n+    print('hi')\n";
        let outcome = apply(patch, &[("app.py", APP)]).unwrap();
        assert_eq!(outcome.files[0].hunks[0].offset, 2);
        assert_eq!(outcome.files[0].hunks[0].line, 3);
        assert!(
            outcome.files[0]
                .new_text
                .as_deref()
                .unwrap()
                .contains("print('hi')")
        );
    }

    #[test]
    fn the_nearest_of_two_matches_wins() {
        let text = "x\na\nx\nb\nx\nc\nx\n";
        let patch = "--- a/f\n+++ b/f\n@@ -6 +6 @@\n-x\n+y\n";
        // Stated line 6 (index 5): the `x` lines are at 1, 3, 5 and 7; 5 and 7 are one away,
        // and the search looks below first.
        assert_eq!(new_text(patch, &[("f", text)]), "x\na\nx\nb\nx\nc\ny\n");
    }

    #[test]
    fn later_hunks_follow_the_line_counts_of_earlier_ones() {
        let text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let patch =
            "--- a/n\n+++ b/n\n@@ -1,2 +1,4 @@\n 1\n+1a\n+1b\n 2\n@@ -8,2 +10,1 @@\n 8\n-9\n";
        let outcome = apply(patch, &[("n", text)]).unwrap();
        assert_eq!(
            outcome.files[0].new_text.as_deref(),
            Some("1\n1a\n1b\n2\n3\n4\n5\n6\n7\n8\n")
        );
        assert_eq!(
            outcome.files[0]
                .hunks
                .iter()
                .map(|h| (h.line, h.offset))
                .collect::<Vec<_>>(),
            vec![(1, 0), (10, 0)]
        );
    }

    #[test]
    fn fuzz_leaves_out_differing_context_at_the_ends_only() {
        let text = "a\nb\nc\nd\ne\n";
        let patch = "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n A\n b\n-c\n+C\n d\n E\n";
        let (code, message) = error(patch, &[("f", text)]);
        assert_eq!(code, ErrorCode::PatchDoesNotApply);
        assert_eq!(
            message,
            "f: hunk 1 (`@@ -1,5 +1,5 @@`) does not apply: at line 1 it expects `A` but the file has `a`"
        );
        let fuzzy = PatchOptions {
            fuzz: 1,
            ..PatchOptions::default()
        };
        let outcome = apply_with(patch, &[("f", text)], &fuzzy).unwrap();
        assert_eq!(
            outcome.files[0].new_text.as_deref(),
            Some("a\nb\nC\nd\ne\n")
        );
        assert_eq!(outcome.files[0].hunks[0].fuzz, 1);
        // A removed line never fuzzes.
        let removed = "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n-X\n c\n";
        let fuzzy = PatchOptions {
            fuzz: 3,
            ..PatchOptions::default()
        };
        let error = apply_with(removed, &[("f", text)], &fuzzy).unwrap_err();
        assert_eq!(
            error.to_string(),
            "f: hunk 1 (`@@ -1,3 +1,2 @@`) does not apply: at line 2 it expects `X` but the file has `b`"
        );
    }

    #[test]
    fn a_hunk_past_the_file_names_the_nearest_partial_match() {
        let patch = "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n c\n-d\n+D\n";
        let (code, message) = error(patch, &[("f", "a\nb\nc\n")]);
        assert_eq!(code, ErrorCode::PatchDoesNotApply);
        assert_eq!(
            message,
            "f: hunk 1 (`@@ -2,3 +2,3 @@`) does not apply: at line 4 it expects `d` but the file has 3 lines"
        );
    }

    #[test]
    fn crlf_files_take_lf_hunks_and_keep_their_endings() {
        let text = "one\r\ntwo\r\nthree\r\n";
        let patch = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three\n";
        assert_eq!(
            new_text(patch, &[("w.txt", text)]),
            "one\r\n2\r\n2b\r\nthree\r\n"
        );
        let crlf_patch = patch.replace('\n', "\r\n");
        assert_eq!(
            new_text(&crlf_patch, &[("w.txt", text)]),
            "one\r\n2\r\n2b\r\nthree\r\n"
        );
    }

    #[test]
    fn a_new_file_keeps_each_line_s_own_ending() {
        // A regression: git's own diff of a new file holding a CRLF patch was refused as a
        // hunk mixing endings.
        let patch = "diff --git a/d b/d\nnew file mode 100644\n--- /dev/null\n+++ b/d\n\
                     @@ -0,0 +1,3 @@\n+lf\n+crlf\r\n+end\n";
        assert_eq!(new_text(patch, &[]), "lf\ncrlf\r\nend\n");
    }

    #[test]
    fn a_hunk_mixing_line_endings_is_refused() {
        let patch = "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n one\r\n-two\n+2\n";
        let error = parse_patch(patch, PatchFormat::Auto).unwrap_err();
        assert_eq!(error.code(), ErrorCode::PatchInvalid);
        assert_eq!(
            error.to_string(),
            "patch line 3: the hunk's lines mix CRLF and LF line endings"
        );
    }

    #[test]
    fn a_byte_order_mark_is_kept() {
        let text = "\u{feff}first\nsecond\n";
        let patch = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-\u{feff}first\n+1st\n second\n";
        assert_eq!(new_text(patch, &[("b.txt", text)]), "\u{feff}1st\nsecond\n");
        let without = "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-first\n+1st\n";
        assert_eq!(
            new_text(without, &[("b.txt", text)]),
            "\u{feff}1st\nsecond\n"
        );
    }

    #[test]
    fn no_newline_at_end_of_file_is_honoured_both_ways() {
        let add_newline =
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
        assert_eq!(new_text(add_newline, &[("f", "a\nb")]), "a\nb\n");
        let drop_newline =
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n";
        assert_eq!(new_text(drop_newline, &[("f", "a\nb\n")]), "a\nb");
        let append = "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n";
        assert_eq!(new_text(append, &[("f", "a")]), "a\nb");
        // The marker says the old last line ends the file; elsewhere it does not match.
        let (_, message) = error(add_newline, &[("f", "a\nb\na\nb\nc\n")]);
        assert_eq!(
            message,
            "f: hunk 1 (`@@ -1,2 +1,2 @@`) does not apply: its lines match at line 1 but must end the file (`\\ No newline at end of file`), which goes on"
        );
    }

    #[test]
    fn counts_default_to_one_and_zero_counts_insert() {
        let patch = "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n@@ -3,0 +4,1 @@\n+after c\n";
        assert_eq!(
            new_text(patch, &[("f", "a\nb\nc\nd\n")]),
            "a\nB\nc\nafter c\nd\n"
        );
    }

    #[test]
    fn new_deleted_renamed_and_mode_changed_files() {
        let patch = "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..e69de29\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+exit 0\ndiff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\ndiff --git a/src/a.py b/src/b.py\nsimilarity index 100%\nrename from src/a.py\nrename to src/b.py\ndiff --git a/tool b/tool\nold mode 100644\nnew mode 100755\n";
        let files = [
            ("old.txt", "gone\n"),
            ("src/a.py", "x = 1\n"),
            ("tool", "t\n"),
        ];
        let outcome = apply(patch, &files).unwrap();
        let summary: Vec<_> = outcome
            .files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.new_path.as_deref(),
                    f.new_text.as_deref(),
                    f.executable,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("run.sh", None, Some("#!/bin/sh\nexit 0\n"), Some(true)),
                ("old.txt", None, None, None),
                ("src/a.py", Some("src/b.py"), Some("x = 1\n"), None),
                ("tool", None, Some("t\n"), Some(true)),
            ]
        );
        assert_eq!(
            outcome.diff,
            "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+exit 0\n\
             diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n\
             diff --git a/src/a.py b/src/b.py\nrename from src/a.py\nrename to src/b.py\n\
             diff --git a/tool b/tool\nold mode 100644\nnew mode 100755\n"
        );
    }

    #[test]
    fn a_deletion_must_show_the_whole_file() {
        let patch = "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n";
        let (code, message) = error(patch, &[("old.txt", "gone\nstill here\n")]);
        assert_eq!(code, ErrorCode::PatchDoesNotApply);
        assert_eq!(
            message,
            "old.txt: the file has lines the patch deleting it does not show"
        );
    }

    #[test]
    fn plain_diff_paths_are_taken_as_written_unless_git_style() {
        let plain = "--- src/f.c\t2024-01-01 10:00:00.000000000 +0100\n+++ src/f.c\t2024-01-02 10:00:00.000000000 +0100\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            parse_patch(plain, PatchFormat::Unified).unwrap().operations[0].path,
            "src/f.c"
        );
        let git_style = "--- a/src/f.c\n+++ b/src/f.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            parse_patch(git_style, PatchFormat::Unified)
                .unwrap()
                .operations[0]
                .path,
            "src/f.c"
        );
        let odd = "--- a/f.c\n+++ f.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            parse_patch(odd, PatchFormat::Unified).unwrap().operations[0].path,
            "f.c"
        );
        let no_prefix = "diff --git f.c f.c\n--- f.c\n+++ f.c\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            parse_patch(no_prefix, PatchFormat::Unified)
                .unwrap()
                .operations[0]
                .path,
            "f.c"
        );
    }

    #[test]
    fn refused_sections_say_why_and_where() {
        let cases = [
            (
                "diff --git a/a b/b\nsimilarity index 90%\ncopy from a\ncopy to b\n",
                "patch line 3: copies are not supported; add the new file with its whole text instead",
            ),
            (
                "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
                "patch line 3: binary patches are not supported; only text files",
            ),
            (
                "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\n",
                "patch line 3: binary patches are not supported; only text files",
            ),
            (
                "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n",
                "patch line 2: symbolic links are not supported",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n",
                "patch line 3: the patch ends inside this hunk: 0 old and 1 new lines missing",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n*b\n",
                "patch line 5: unexpected line in a hunk that still expects 1 old and 1 new lines: `*b`",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n+b\n",
                "patch line 3: malformed hunk header `@@ -x +1 @@`; expected `@@ -A,B +C,D @@`",
            ),
            (
                "--- a/../f\n+++ b/../f\n@@ -1 +1 @@\n-a\n+b\n",
                "patch line 1: invalid path `../f`: it has a `..` component",
            ),
            (
                "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
                "patch line 1: invalid path `/etc/passwd`: it is absolute; give it relative to the workspace root",
            ),
            (
                "just some words\n",
                "patch line 1: not a patch: no `diff --git` or `---`/`+++` header, no `*** Begin Patch` and no `<<<<<<< SEARCH` block",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n--- a/f\n+++ b/f\n@@ -3 +3 @@\n-c\n+d\n",
                "patch line 6: f is named by two operations (line 1); make one operation per file",
            ),
        ];
        for (patch, message) in cases {
            let error = parse_patch(patch, PatchFormat::Auto).unwrap_err();
            assert_eq!(error.code(), ErrorCode::PatchInvalid, "{patch}");
            assert_eq!(error.to_string(), message, "{patch}");
        }
    }

    #[test]
    fn files_missing_or_present_against_the_patch_are_refused() {
        let add = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n";
        assert_eq!(
            error(add, &[("new.txt", "")]),
            (
                ErrorCode::PatchDoesNotApply,
                "new.txt: the file exists; the patch creates it".to_string()
            )
        );
        let update = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            error(update, &[]),
            (
                ErrorCode::PatchDoesNotApply,
                "f: the file does not exist; the patch changes it".to_string()
            )
        );
        let rename = "diff --git a/a b/b\nrename from a\nrename to b\n";
        assert_eq!(
            error(rename, &[("a", "1\n"), ("b", "2\n")]),
            (
                ErrorCode::PatchDoesNotApply,
                "a: cannot move the file to b: b exists".to_string()
            )
        );
    }

    #[test]
    fn an_expected_sha256_that_differs_is_a_conflict() {
        let patch = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
        // `printf 'a\n' | sha256sum`
        let of_a = "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7";
        assert_eq!(Sha256Hash::of(b"a\n").to_hex(), of_a);
        let mut options = PatchOptions::default();
        let expected = Sha256Hash::from_hex(&of_a.to_uppercase()).unwrap();
        options.expected_sha256.insert("f".to_string(), expected);
        assert!(apply_with(patch, &[("f", "a\n")], &options).is_ok());
        let error = apply_with(patch, &[("f", "a\nz\n")], &options).unwrap_err();
        assert_eq!(error.code(), ErrorCode::Conflict);
        assert_eq!(
            error.to_string(),
            format!(
                "f: the file changed: its SHA-256 is {}, not the expected {of_a}",
                Sha256Hash::of(b"a\nz\n").to_hex(),
            )
        );
        let gone = apply_with(patch, &[], &options).unwrap_err();
        assert_eq!(
            (gone.code(), gone.to_string()),
            (
                ErrorCode::Conflict,
                "f: the file was expected to exist, and it does not".to_string()
            )
        );
        options.expected_sha256.insert("g".to_string(), expected);
        let stray = apply_with(patch, &[("f", "a\n")], &options).unwrap_err();
        assert_eq!(
            (stray.code(), stray.to_string()),
            (
                ErrorCode::PatchInvalid,
                "expected_sha256 names g, which the patch does not change".to_string()
            )
        );
    }

    #[test]
    fn sha256_hex_is_64_digits() {
        assert!(Sha256Hash::from_hex("87428fc5").is_none());
        assert!(Sha256Hash::from_hex(&"g".repeat(64)).is_none());
        assert!(Sha256Hash::from_hex(&"é".repeat(32)).is_none());
        assert_eq!(
            Sha256Hash::from_hex(&"0".repeat(64)).unwrap().to_hex(),
            "0".repeat(64)
        );
    }
}

mod envelope {
    use super::*;

    const CLASSES: &str = "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n";

    #[test]
    fn a_context_header_picks_the_chunk_s_place() {
        let patch = "*** Begin Patch\n*** Update File: m.py\n@@ class B:\n     def run(self):\n-        return 1\n+        return 2\n*** End Patch\n";
        assert_eq!(
            new_text(patch, &[("m.py", CLASSES)]),
            "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 2\n"
        );
        let without_header = patch.replace("@@ class B:\n", "");
        assert_eq!(
            new_text(&without_header, &[("m.py", CLASSES)]),
            "class A:\n    def run(self):\n        return 2\n\nclass B:\n    def run(self):\n        return 1\n"
        );
    }

    #[test]
    fn add_delete_update_and_move_in_one_envelope() {
        let patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+\n+text\n*** Delete File: old.md\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF\n";
        let files = [("old.md", "bye\n"), ("src/a.py", "x = 1\ny = 2\n")];
        let outcome = apply(patch, &files).unwrap();
        let summary: Vec<_> = outcome
            .files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.new_path.as_deref(),
                    f.new_text.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("docs/new.md", None, Some("# New\n\ntext\n")),
                ("old.md", None, None),
                ("src/a.py", Some("src/b.py"), Some("x = 2\ny = 2\n")),
            ]
        );
    }

    #[test]
    fn end_of_file_anchors_the_chunk_at_the_end() {
        let patch =
            "*** Begin Patch\n*** Update File: f\n@@\n-x\n+z\n*** End of File\n*** End Patch\n";
        assert_eq!(new_text(patch, &[("f", "x\ny\nx\n")]), "x\ny\nz\n");
        let (code, message) = error(patch, &[("f", "x\ny\n")]);
        assert_eq!(code, ErrorCode::PatchDoesNotApply);
        assert_eq!(
            message,
            "f: hunk 1 (`@@`) does not apply: its lines match at line 1 but must end the file (`*** End of File`), which goes on"
        );
    }

    #[test]
    fn whitespace_is_ignored_only_when_nothing_matches_exactly() {
        let patch = "*** Begin Patch\n*** Update File: f\n@@\n-    foo\n+    bar\n*** End Patch\n";
        let outcome = apply(patch, &[("f", "    foo  \n")]).unwrap();
        assert_eq!(outcome.files[0].new_text.as_deref(), Some("    bar\n"));
        assert!(outcome.files[0].hunks[0].whitespace_ignored);
        let exact = apply(patch, &[("f", "  foo\n    foo\n")]).unwrap();
        assert_eq!(exact.files[0].new_text.as_deref(), Some("  foo\n    bar\n"));
        assert!(!exact.files[0].hunks[0].whitespace_ignored);
    }

    #[test]
    fn chunks_apply_in_order_and_keep_crlf() {
        let patch =
            "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n@@\n-a\n+A\n\n*** End Patch\n";
        // The second chunk's `a` must come after the first chunk; its trailing blank line
        // stands for nothing in the file.
        assert_eq!(
            new_text(patch, &[("f", "a\r\nb\r\na\r\n")]),
            "a\r\nB\r\nA\r\n"
        );
    }

    #[test]
    fn malformed_envelopes_name_their_line() {
        let cases = [
            (
                "*** Begin Patch\n*** Add File: a\n+x\n",
                "patch line 3: no `*** End Patch` line",
            ),
            (
                "*** Begin Patch\n*** Add File: a\nx\n*** End Patch\n",
                "patch line 3: every line of an added file starts with `+`",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n x\n?y\n*** End Patch\n",
                "patch line 5: a chunk's lines start with ` `, `-` or `+`; found `?y`",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
                "patch line 2: `*** Update File: a` has no chunk",
            ),
            (
                "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n",
                "patch line 2: expected `*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` or `*** End Patch`, found `*** Frobnicate File: a`",
            ),
            (
                "*** Begin Patch\n*** Delete File: C:\\x\n*** End Patch\n",
                "patch line 2: invalid path `C:\\\\x`: it contains `\\`; separate components with `/`",
            ),
            (
                "*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch\n",
                "patch line 3: a is named by two operations (line 2); make one operation per file",
            ),
        ];
        for (patch, message) in cases {
            let error = parse_patch(patch, PatchFormat::Auto).unwrap_err();
            assert_eq!(error.code(), ErrorCode::PatchInvalid, "{patch}");
            assert_eq!(error.to_string(), message, "{patch}");
        }
    }

    #[test]
    fn a_missing_context_line_is_named() {
        let patch = "*** Begin Patch\n*** Update File: m.py\n@@ class C:\n-        return 1\n+        return 3\n*** End Patch\n";
        assert_eq!(
            error(patch, &[("m.py", CLASSES)]),
            (
                ErrorCode::PatchDoesNotApply,
                "m.py: hunk 1 (`@@ class C:`) does not apply: its context line `class C:` is not in the file after line 0".to_string()
            )
        );
    }
}

mod search_replace {
    use super::*;

    #[test]
    fn blocks_on_one_file_apply_in_order() {
        let patch = "Here is the change.\n\napp.py\n```python\n<<<<<<< SEARCH\ndef main():\n    print('hello')\n=======\ndef main():\n    print('hi')\n>>>>>>> REPLACE\n```\n\napp.py\n```python\n<<<<<<< SEARCH\n    print('hi')\n    return 0\n=======\n    print('hi')\n    return 1\n>>>>>>> REPLACE\n```\n";
        let outcome = apply(patch, &[("app.py", APP)]).unwrap();
        assert_eq!(
            outcome.files[0].new_text.as_deref(),
            Some(
                "import os\n\ndef main():\n    print('hi')\n    return 1\n\nif __name__ == '__main__':\n    main()\n"
            )
        );
        assert_eq!(
            outcome.files[0]
                .hunks
                .iter()
                .map(|h| h.line)
                .collect::<Vec<_>>(),
            vec![3, 4]
        );
    }

    #[test]
    fn a_search_text_must_match_once() {
        let twice = "f\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
        assert_eq!(
            error(twice, &[("f", "x\na\nx\n")]),
            (
                ErrorCode::PatchDoesNotApply,
                "f: block 1: the search text must match exactly once; it matches 2 times, at lines 1, 3".to_string()
            )
        );
        assert_eq!(
            error(twice, &[("f", "a\n")]),
            (
                ErrorCode::PatchDoesNotApply,
                "f: block 1: the search text must match exactly once; it matches 0 times"
                    .to_string()
            )
        );
    }

    #[test]
    fn an_empty_search_creates_a_missing_file_only() {
        let create = "new/file.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n";
        assert_eq!(new_text(create, &[]), "hello\n");
        assert_eq!(
            error(create, &[("new/file.txt", "x\n")]),
            (
                ErrorCode::PatchDoesNotApply,
                "new/file.txt: block 1: the search text is empty but the file exists".to_string()
            )
        );
    }

    #[test]
    fn crlf_files_take_lf_blocks() {
        let patch = "f\n<<<<<<< SEARCH\nb\nc\n=======\nB\n>>>>>>> REPLACE\n";
        assert_eq!(new_text(patch, &[("f", "a\r\nb\r\nc\r\n")]), "a\r\nB\r\n");
    }

    #[test]
    fn structured_blocks_are_checked_like_text() {
        let block = |old: &str, new: &str| Replacement {
            old_text: old.to_string(),
            new_text: new.to_string(),
            line: None,
        };
        let patch = Patch::from_replacements(vec![
            ("f".to_string(), block("a", "b")),
            ("f".to_string(), block("b", "c")),
        ])
        .unwrap();
        let outcome =
            apply_to_texts(&patch, &texts(&[("f", "a\n")]), &PatchOptions::default()).unwrap();
        assert_eq!(outcome.files[0].new_text.as_deref(), Some("c\n"));
        let bad = Patch::from_replacements(vec![("/f".to_string(), block("a", "b"))]).unwrap_err();
        assert_eq!(
            (bad.code(), bad.to_string()),
            (
                ErrorCode::PatchInvalid,
                "invalid path `/f`: it is absolute; give it relative to the workspace root"
                    .to_string()
            )
        );
    }

    #[test]
    fn an_unterminated_block_is_refused() {
        let error =
            parse_patch("f\n<<<<<<< SEARCH\nx\n=======\ny\n", PatchFormat::Auto).unwrap_err();
        assert_eq!(
            error.to_string(),
            "patch line 2: the `<<<<<<< SEARCH` block has no `>>>>>>> REPLACE` line"
        );
    }
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    const CASES: u32 = 256;

    /// Lines from a small alphabet, so texts repeat lines and hunks have look-alikes.
    fn repetitive_lines() -> impl Strategy<Value = Vec<&'static str>> {
        prop::collection::vec(
            prop::sample::select(vec!["a", "b", "c", "", "  x", "é", "a b", "\t}"]),
            0..24,
        )
    }

    fn text_of(lines: &[&str], ending: &str, final_newline: bool) -> String {
        let mut text = lines.join(ending);
        if final_newline && !lines.is_empty() {
            text.push_str(ending);
        }
        text
    }

    fn apply_one(patch: &str, path: &str, old: &str) -> Result<Option<String>, PatchError> {
        let patch = parse_patch(patch, PatchFormat::Auto)?;
        let outcome = apply_to_texts(&patch, &texts(&[(path, old)]), &PatchOptions::default())?;
        Ok(outcome.files[0].new_text.clone())
    }

    /// The envelope form of the change from `old` to `new` (whose lines are `\n`-ended):
    /// one chunk per group of changes, headed by the line above it when there is one.
    fn envelope(path: &str, old: &str, new: &str) -> String {
        let diff = similar::TextDiff::from_lines(old, new);
        let old_lines: Vec<&str> = old.lines().collect();
        let mut out = format!("*** Begin Patch\n*** Update File: {path}\n");
        for group in diff.grouped_ops(2) {
            let first_old = group[0].old_range().start;
            match first_old.checked_sub(1).map(|at| old_lines[at]) {
                Some(above) => out.push_str(&format!("@@ {above}\n")),
                None => out.push_str("@@\n"),
            }
            for op in &group {
                for change in diff.iter_changes(op) {
                    let sign = match change.tag() {
                        similar::ChangeTag::Equal => ' ',
                        similar::ChangeTag::Delete => '-',
                        similar::ChangeTag::Insert => '+',
                    };
                    out.push(sign);
                    out.push_str(change.value().trim_end_matches('\n'));
                    out.push('\n');
                }
            }
        }
        out.push_str("*** End Patch\n");
        out
    }

    /// Tokens that steer the parsers into their every branch.
    fn patch_like_line() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "diff --git a/x b/x",
                "diff --git a/x b/y",
                "--- a/x",
                "+++ b/x",
                "--- /dev/null",
                "+++ /dev/null",
                "@@ -1,2 +1,2 @@",
                "@@ -0,0 +1 @@",
                "@@ -3 +3,0 @@ f",
                "@@ -99999999999999999999,1 +1 @@",
                " a",
                "-a",
                "+b",
                "",
                "\\ No newline at end of file",
                "new file mode 100755",
                "deleted file mode 100644",
                "old mode 100644",
                "new mode 100755",
                "rename from x",
                "rename to y",
                "*** Begin Patch",
                "*** End Patch",
                "*** Add File: x",
                "*** Update File: x",
                "*** Delete File: y",
                "*** Move to: y",
                "*** End of File",
                "@@",
                "@@ a",
                "x",
                "<<<<<<< SEARCH",
                "=======",
                ">>>>>>> REPLACE",
                "\u{feff}a",
            ])
            .prop_map(str::to_string),
            "[ -~é\r\t]{0,12}",
        ]
    }

    fn mutate(patch: &str, seed: &[(u8, usize)]) -> String {
        let mut lines: Vec<String> = patch.split('\n').map(str::to_string).collect();
        for (kind, at) in seed {
            if lines.is_empty() {
                break;
            }
            let at = at % lines.len();
            match kind % 5 {
                0 => {
                    lines.remove(at);
                }
                1 => {
                    let copy = lines[at].clone();
                    lines.insert(at, copy);
                }
                2 => lines[at] = lines[at].replace('1', "7"),
                3 => lines[at].push('\r'),
                _ => lines.truncate(at),
            }
        }
        lines.join("\n")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(CASES))]

        #[test]
        fn a_unified_diff_of_two_texts_turns_the_first_into_the_second(
            old in repetitive_lines(),
            new in repetitive_lines(),
            crlf in any::<bool>(),
            old_final in any::<bool>(),
            new_final in any::<bool>(),
        ) {
            let ending = if crlf { "\r\n" } else { "\n" };
            let (old, new) = (text_of(&old, ending, old_final), text_of(&new, ending, new_final));
            prop_assume!(old != new);
            let diff = crate::ide::unified_diff("dir/f.txt", &old, &new);
            prop_assert_eq!(apply_one(&diff, "dir/f.txt", &old)?, Some(new.clone()), "{}", diff);
        }

        #[test]
        fn an_outcome_s_diff_and_edit_redo_the_outcome(
            old in repetitive_lines(),
            new in repetitive_lines(),
            old_final in any::<bool>(),
            new_final in any::<bool>(),
        ) {
            let (old, new) = (text_of(&old, "\n", old_final), text_of(&new, "\n", new_final));
            prop_assume!(old != new);
            let diff = crate::ide::unified_diff("f", &old, &new);
            let patch = parse_patch(&diff, PatchFormat::Auto)?;
            let outcome = apply_to_texts(&patch, &texts(&[("f", &old)]), &PatchOptions::default())?;
            let edit = outcome.files[0].edit.clone().expect("the texts differ");
            prop_assert_eq!(edit.apply(&old).unwrap(), new.clone());
            prop_assert_eq!(apply_one(&outcome.diff, "f", &old)?, Some(new));
        }

        #[test]
        fn an_envelope_of_two_texts_turns_the_first_into_the_second(
            old in prop::collection::btree_set(0u16..60, 0..20),
            edits in prop::collection::vec((0u8..3, 0usize..40, 100u16..200), 1..8),
        ) {
            // Distinct lines: a chunk is placed at the first match after the previous one,
            // so the texts must not repeat what a chunk shows.
            let old_lines: Vec<String> = old.iter().map(|n| format!("line {n}")).collect();
            let mut new_lines = old_lines.clone();
            for (kind, at, fresh) in edits {
                let at = at % (new_lines.len() + 1);
                match (kind, at < new_lines.len()) {
                    (0, true) => { new_lines.remove(at); }
                    (1, true) => new_lines[at] = format!("new {fresh}"),
                    _ => new_lines.insert(at, format!("new {fresh}")),
                }
            }
            let old = text_of(&old_lines.iter().map(String::as_str).collect::<Vec<_>>(), "\n", true);
            let new = text_of(&new_lines.iter().map(String::as_str).collect::<Vec<_>>(), "\n", true);
            prop_assume!(old != new && !old.is_empty());
            let patch = envelope("src/m.py", &old, &new);
            prop_assert_eq!(apply_one(&patch, "src/m.py", &old)?, Some(new), "{}", patch);
        }

        #[test]
        fn no_patch_text_makes_the_parser_or_the_applier_panic(
            lines in prop::collection::vec(patch_like_line(), 0..30),
            crlf in any::<bool>(),
            file in repetitive_lines(),
            fuzz in 0usize..3,
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            let file = text_of(&file, "\n", true);
            let options = PatchOptions { fuzz, ..PatchOptions::default() };
            for format in [
                PatchFormat::Auto,
                PatchFormat::Unified,
                PatchFormat::Envelope,
                PatchFormat::SearchReplace,
            ] {
                if let Ok(patch) = parse_patch(&text, format) {
                    let _ = apply_to_texts(&patch, &texts(&[("x", &file)]), &options);
                }
            }
        }

        #[test]
        fn no_mutated_diff_makes_the_parser_or_the_applier_panic(
            old in repetitive_lines(),
            new in repetitive_lines(),
            seed in prop::collection::vec((any::<u8>(), any::<usize>()), 1..4),
        ) {
            let (old, new) = (text_of(&old, "\n", true), text_of(&new, "\n", false));
            let diff = crate::ide::unified_diff("x", &old, &new);
            let mutated = mutate(&diff, &seed);
            if let Ok(patch) = parse_patch(&mutated, PatchFormat::Auto) {
                let _ = apply_to_texts(&patch, &texts(&[("x", &old)]), &PatchOptions { fuzz: 2, ..PatchOptions::default() });
            }
        }
    }
}

/// `tests/fixtures/patches/<case>/`: a patch made by git, the tree it was made from and the
/// tree it makes (texts byte for byte; `feature`'s trees have one more first line in
/// `src/app.py` than the diff knows of, so its hunk applies one line lower).
mod fixtures {
    use std::path::Path;

    use super::*;

    fn tree(root: &Path) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        let mut dirs = vec![root.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    let relative = path.strip_prefix(root).unwrap().to_str().unwrap();
                    files.insert(
                        relative.to_string(),
                        std::fs::read_to_string(&path).unwrap(),
                    );
                }
            }
        }
        files
    }

    /// The outcome of the case's patch, the tree it makes of `before/`, and `after/`.
    fn run(
        case: &str,
    ) -> (
        PatchOutcome,
        BTreeMap<String, String>,
        BTreeMap<String, String>,
    ) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/patches")
            .join(case);
        let before = tree(&dir.join("before"));
        let text = std::fs::read_to_string(dir.join("patch.diff")).unwrap();
        let patch = parse_patch(&text, PatchFormat::Auto).unwrap();
        let current = |path: &str| before.get(path).map(FileText::utf8);
        let outcome = apply_to_texts(&patch, &current, &PatchOptions::default()).unwrap();
        let mut after = before.clone();
        for file in &outcome.files {
            after.remove(&file.path);
            if let Some(text) = &file.new_text {
                let path = file.new_path.as_ref().unwrap_or(&file.path);
                after.insert(path.clone(), text.clone());
            }
        }
        (outcome, after, tree(&dir.join("after")))
    }

    fn modes(outcome: &PatchOutcome) -> Vec<(&str, Option<bool>)> {
        outcome
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.executable))
            .collect()
    }

    #[test]
    fn a_mailed_patch_adds_deletes_and_changes_files_one_line_lower() {
        let (outcome, after, expected) = run("feature");
        assert_eq!(after, expected);
        assert_eq!(
            modes(&outcome),
            vec![
                ("NOTES.txt", None),
                ("src/app.py", None),
                ("src/util.py", None)
            ]
        );
        assert_eq!(
            outcome.files[1].hunks,
            vec![HunkReport {
                line: 2,
                offset: 1,
                fuzz: 0,
                whitespace_ignored: false
            }]
        );
    }

    #[test]
    fn renames_and_mode_changes_move_and_mark_files() {
        let (outcome, after, expected) = run("rename-and-mode");
        assert_eq!(after, expected);
        assert_eq!(
            modes(&outcome),
            vec![
                ("lib/parser.rs", None),
                ("scripts/build.sh", Some(true)),
                ("scripts/test.sh", Some(true)),
                ("lib/version.rs", None),
            ]
        );
        let moves: Vec<_> = outcome
            .files
            .iter()
            .map(|file| file.new_path.as_deref())
            .collect();
        assert_eq!(
            moves,
            vec![Some("lib/parse.rs"), None, None, Some("src_version.rs")]
        );
    }

    #[test]
    fn line_endings_byte_order_marks_and_final_newlines_survive() {
        let (_, after, expected) = run("line-endings");
        assert_eq!(after, expected);
        assert_eq!(
            after["main.bas"],
            "Option Explicit\r\nSub Main()\r\n    MsgBox \"hello\"\r\n    MsgBox \"bye\"\r\nEnd Sub\r\n"
        );
        assert_eq!(after["data.csv"], "\u{feff}name,value\nalpha,1\nbeta,3\n");
        assert_eq!(after["strip.txt"], "keep\nends without newline");
        assert_eq!(after["tail.txt"], "first\nlast line, now with newline\n");
    }
}
