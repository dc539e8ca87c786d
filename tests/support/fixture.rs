//! Fixtures: several source files written as one string, with an optional cursor.
//!
//! How to write one:
//!
//! ```text
//! //- /app/models.py
//! class Shape:
//!     def area(self):
//!         return wid$0th
//! //- /app/util.py
//! def helper(): pass
//! ```
//!
//! - The fixture is dedented first (the indentation common to its non-blank lines is
//!   removed, and a leading newline dropped), so it can be an indented raw string.
//! - A line `//- /path/to/file.ext` starts a file. The path is workspace-relative (the
//!   leading `/` is dropped) and its extension picks the language. Text before the first
//!   marker, or a fixture without any marker, is one file named by the caller.
//! - `$0` marks the cursor: it is removed from the text and returned as a byte offset into
//!   its file. Two `$0` in one file mark a selection, returned as a byte range. At most one
//!   file holds cursors.
//! - Line endings are kept as written, so `\r\n` in a (non-raw) string makes a CRLF file.
//!
//! Invariant: the text a test sees (its file's `text`) is exactly what the database holds,
//! and a cursor is always a char boundary of that text.

/// Where the `$0` markers were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cursor {
    /// One `$0`: a byte offset.
    Offset(usize),
    /// Two `$0`: the bytes between them.
    Range(usize, usize),
}

impl Cursor {
    /// The offset of a one-`$0` cursor; a selection is a mistake in the test.
    pub fn offset(self) -> usize {
        match self {
            Cursor::Offset(o) => o,
            Cursor::Range(..) => {
                panic!("the fixture marks a selection where a cursor was expected")
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureFile {
    /// Workspace-relative, without a leading `/`.
    pub path: String,
    pub text: String,
    pub cursor: Option<Cursor>,
}

/// The default file name of a fixture without `//-` markers.
pub const DEFAULT_PATH: &str = "/main.rs";

const CURSOR: &str = "$0";
const MARKER: &str = "//- ";

/// Splits a fixture into files; the text before any marker is the file `default_path`.
pub fn parse(fixture: &str, default_path: &str) -> Vec<FixtureFile> {
    let fixture = trim_indent(fixture);
    let mut files: Vec<FixtureFile> = Vec::new();
    let mut current = (default_path.to_string(), String::new());
    let mut saw_marker = false;
    for line in fixture.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix(MARKER) {
            if saw_marker || !current.1.is_empty() {
                files.push(file(current));
            }
            current = (path.trim().to_string(), String::new());
            saw_marker = true;
        } else {
            current.1.push_str(line);
        }
    }
    files.push(file(current));
    let with_cursor = files.iter().filter(|f| f.cursor.is_some()).count();
    assert!(
        with_cursor <= 1,
        "`$0` in {with_cursor} files; at most one may hold it"
    );
    files
}

fn file((path, marked): (String, String)) -> FixtureFile {
    let mut pieces = marked.split(CURSOR);
    let mut text = pieces.next().unwrap_or_default().to_string();
    let mut marks = Vec::new();
    for piece in pieces {
        marks.push(text.len());
        text.push_str(piece);
    }
    let cursor = match marks[..] {
        [] => None,
        [at] => Some(Cursor::Offset(at)),
        [start, end] => Some(Cursor::Range(start, end)),
        _ => panic!(
            "{path}: {} `$0` markers; one is a cursor, two a selection",
            marks.len()
        ),
    };
    FixtureFile {
        path: path.trim_start_matches('/').to_string(),
        text,
        cursor,
    }
}

/// Removes the indentation common to all non-blank lines, and a leading newline.
fn trim_indent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    text.split_inclusive('\n')
        .map(|line| {
            if line.len() > indent && line[..indent].bytes().all(|b| b == b' ') {
                &line[indent..]
            } else {
                line.trim_start_matches(' ')
            }
        })
        .collect()
}
