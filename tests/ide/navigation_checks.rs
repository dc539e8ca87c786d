//! The checks the `navigation*` tests share: the definitions at a `$0` cursor (one fixture,
//! or several cursors in one workspace) and the references of what the cursor names.

use expect_test::Expect;
use sextant::ide::ReferenceQuery;

use crate::{analysis, render};

pub fn check_definition(fixture: &str, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.expect("a $0 cursor").offset();
    expect.assert_eq(&render::definitions(&analysis::definition(
        &db, file, offset,
    )));
}

pub fn check_references(fixture: &str, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.expect("a $0 cursor").offset();
    let query = ReferenceQuery {
        limit: 100,
        ..Default::default()
    };
    expect.assert_eq(&render::references(&analysis::references(
        &db, file, offset, &query,
    )));
}

/// The definitions at `cursor` (a snippet of `files` with `$0` where the cursor goes; the
/// snippet must occur once), rendered.
fn definitions_at(files: &str, cursor: &str) -> String {
    let plain = cursor.replace("$0", "");
    assert_eq!(files.matches(&plain).count(), 1, "{cursor:?} occurs once");
    let fixture = files.replacen(&plain, cursor, 1);
    let (db, file, at) = analysis::analysis(&fixture);
    let offset = at.expect("a $0 cursor").offset();
    render::definitions(&analysis::definition(&db, file, offset))
}

/// Each cursor with the definitions expected there.
pub fn check_definitions(files: &str, cases: &[(&str, &str)]) {
    for (cursor, expected) in cases {
        assert_eq!(definitions_at(files, cursor), *expected, "{cursor}");
    }
}

/// Every cursor's definitions in one snapshot: a line per cursor, `cursor => definitions`.
pub fn check_definitions_snapshot(files: &str, cursors: &[&str], expect: Expect) {
    let mut out = String::new();
    for cursor in cursors {
        let found = definitions_at(files, cursor);
        let found = found.trim_end().replace('\n', "; ");
        let found = if found.is_empty() { "none" } else { &found };
        out.push_str(&format!("{cursor} => {found}\n"));
    }
    expect.assert_eq(&out);
}
