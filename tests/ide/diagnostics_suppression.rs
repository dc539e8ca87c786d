//! Suppression comments and `sextant.toml`'s `[check]` table: what they hide, what they
//! change, and the unused suppressions they leave.

use expect_test::{Expect, expect};

use crate::analysis;

/// `path:line:column: CODE severity message` per diagnostic, with the codes `select` adds
/// as `--select` would (none: the configuration's choice).
fn check(fixture: &str, select: &[&str], expect: Expect) {
    let result = analysis::check_selecting(fixture, select);
    let mut out = String::new();
    for d in &result.diagnostics {
        out.push_str(&format!(
            "{}:{}:{}: {} {} {}\n",
            d.path,
            d.span.start.line,
            d.span.start.column,
            d.code,
            d.severity.as_str(),
            d.message
        ));
    }
    expect.assert_eq(&out);
}

const LINE_COMMENTS: &str = r##"
//- /m.py
import os  # sextant: ignore[SX006]
import sys  # noqa: F401
import json  # NOQA
import re  # noqa: F821
import abc  # sextant: ignore[undefined-name]
x = "# noqa"; import csv
s = "# sextant: ignore"; import io
print(undefined)  # sextant: ignore
print(other)  # type: ignore  # sextant: ignore[SX006, SX005]
print(third)  # sextant: ignore[SX999]
# sextant: ignore[SX005]
print(next_line)
"##;

#[test]
fn line_comments_suppress_the_codes_they_name_on_their_line() {
    // Strings are not comments; `noqa` with another rule, and a comment on the line
    // above, suppress nothing.
    check(
        LINE_COMMENTS,
        &[],
        expect![[r#"
            m.py:4:8: SX006 warning 're' imported but unused
            m.py:5:8: SX006 warning 'abc' imported but unused
            m.py:6:22: SX006 warning 'csv' imported but unused
            m.py:7:33: SX006 warning 'io' imported but unused
            m.py:10:7: SX005 error undefined name 'third'
            m.py:12:7: SX005 error undefined name 'next_line'
        "#]],
    );
}

#[test]
fn unused_suppressions_are_reported_when_selected() {
    check(
        LINE_COMMENTS,
        &["SX013"],
        expect![[r#"
            m.py:5:31: SX013 warning unused suppression: SX005 (undefined-name) is not reported on this line
            m.py:9:49: SX013 warning unused suppression: SX006 (unused-import) is not reported on this line
            m.py:10:33: SX013 warning unused suppression: "SX999" is not a sextant code (see `sextant explain`)
            m.py:11:19: SX013 warning unused suppression: SX005 (undefined-name) is not reported on this line
        "#]],
    );
}

#[test]
fn file_comments_apply_in_the_first_comment_block_only() {
    check(
        r#"
        //- /m.py
        #!/usr/bin/env python
        # Copyright notice.

        # sextant: ignore-file[SX006, SX013]
        """Docstring."""
        import os
        import sys  # sextant: ignore[SX006]

        def f():
            # sextant: ignore-file[SX005]
            return undefined
        //- /n.py
        import os
        # sextant: ignore-file[SX006]
        "#,
        &["ALL"],
        expect![[r#"
            m.py:11:12: SX005 error undefined name 'undefined'
            n.py:1:8: SX006 warning 'os' imported but unused
            n.py:2:3: SX013 warning unused suppression: `sextant: ignore-file` applies only in the file's first comment block
        "#]],
    );
}

#[test]
fn other_languages_use_their_own_comments_and_syntax_errors_are_suppressible() {
    check(
        r#"
        //- /a.js
        let x = ;  // sextant: ignore[SX001]
        //- /b.js
        let y = ;  /* sextant: ignore */
        //- /c.rs
        fn main() {
            let z = ; // sextant: ignore[syntax-error]
        }
        //- /d.go
        package main
        func main() { x := } // sextant: ignore[SX005]
        "#,
        &["ALL"],
        expect![[r#"
            d.go:2:19: SX002 error missing identifier
        "#]],
    );
}

#[test]
fn a_file_with_syntax_errors_reports_no_unused_suppression() {
    // The other checks did not run, so nothing could have fired.
    check(
        r#"
        //- /m.py
        import os  # sextant: ignore[SX006]
        def f(:
            pass
        "#,
        &["ALL"],
        expect![[r#"
            m.py:2:7: SX002 error missing `)`
        "#]],
    );
}

const CONFIGURED: &str = r#"
//- /app.py
import os
print(x)
//- /sextant.toml
[check]
ignore = ["SX006"]
severity = { undefined-name = "warning" }

[[check.overrides]]
paths = ["tests/"]
ignore = ["SX005"]

[[check.overrides]]
paths = ["legacy/**/*.py"]
select = ["unused-import"]
severity = { SX006 = "error" }
//- /tests/test_a.py
import os
print(y)
//- /legacy/old/m.py
import os
print(z)
"#;

#[test]
fn the_check_table_selects_codes_and_severities_per_path() {
    check(
        CONFIGURED,
        &[],
        expect![[r#"
            app.py:2:7: SX005 warning undefined name 'x'
            legacy/old/m.py:1:8: SX006 error 'os' imported but unused
        "#]],
    );
}

#[test]
fn the_callers_selection_comes_last() {
    check(
        CONFIGURED,
        &["SX006"],
        expect![[r#"
            app.py:1:8: SX006 warning 'os' imported but unused
            legacy/old/m.py:1:8: SX006 error 'os' imported but unused
            tests/test_a.py:1:8: SX006 warning 'os' imported but unused
        "#]],
    );
}

#[test]
fn a_wrong_check_table_is_a_clear_error() {
    let cases = [
        "[check]\nselect = [\"SX999\"]\n",
        "[check]\nseverity = { SX005 = \"fatal\" }\n",
        "[check]\nseverity = { nope = \"error\" }\n",
        "[check]\nselct = [\"SX005\"]\n",
        "[[check.overrides]]\nselect = [\"SX005\"]\n",
        "[[check.overrides]]\npaths = []\n",
        "[[check.overrides]]\npaths = [\"a/**\"]\nignore = [\"unused\"]\n",
    ];
    let errors: Vec<String> = cases
        .iter()
        .map(|toml| {
            analysis::load_error(&format!("//- /m.py\nimport os\n//- /sextant.toml\n{toml}"))
        })
        .collect();
    expect![[r#"
        [
            "/fixture/sextant.toml: [check]: unknown diagnostic code \"SX999\" (codes are SX001 to SX013; see `sextant explain`)",
            "/fixture/sextant.toml: unknown variant `fatal`, expected one of `error`, `warning`, `information`, `hint`",
            "/fixture/sextant.toml: [check]: unknown diagnostic code \"nope\" (codes are SX001 to SX013; see `sextant explain`)",
            "/fixture/sextant.toml: unknown field `selct`, expected one of `select`, `ignore`, `severity`, `overrides`",
            "/fixture/sextant.toml: missing field `paths`",
            "/fixture/sextant.toml: [[check.overrides]] #1: `paths` lists no glob",
            "/fixture/sextant.toml: [[check.overrides]] #1: unknown diagnostic code \"unused\" (codes are SX001 to SX013; see `sextant explain`)",
        ]
    "#]]
    .assert_debug_eq(&errors);
}
