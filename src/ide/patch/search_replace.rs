//! Search/replace blocks: an exact old text replaced by a new one.
//!
//! ```text
//! src/app.py
//! <<<<<<< SEARCH
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//!
//! Invariant: a block's old and new texts are its lines byte for byte, each with the
//! ending it had in the patch; blocks on one file become one operation that applies them
//! in the order written. Fence lines (```` ``` ````) around a block are not part of it.

use super::lines::{PatchLine, patch_lines};
use super::{FileOperation, OperationKind, PatchError, path};

const SEARCH: &str = "<<<<<<< SEARCH";
const DIVIDER: &str = "=======";
const REPLACE: &str = ">>>>>>> REPLACE";

/// Replace `old_text`, which must occur exactly once in the file, with `new_text`. An empty
/// `old_text` on a missing file creates it with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct Replacement {
    pub old_text: String,
    pub new_text: String,
    /// The 1-based line of the patch text where the block starts, when it came as text.
    #[serde(skip)]
    pub line: Option<usize>,
}

pub(super) fn parse(text: &str) -> Result<Vec<FileOperation>, PatchError> {
    let lines = patch_lines(text);
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let mut operations = Vec::new();
    let mut at = 0;
    while let Some(line) = lines.get(at) {
        if line.text.trim_end() != SEARCH {
            at += 1;
            continue;
        }
        let name = path_before(&lines[..at]).ok_or_else(|| {
            PatchError::invalid(line.number, format!("no file path before `{SEARCH}`"))
        })?;
        let path = path::validate(name).map_err(|m| PatchError::invalid(line.number, m))?;
        let divider = find(&lines, at + 1, DIVIDER, SEARCH, line.number)?;
        let end = find(&lines, divider + 1, REPLACE, SEARCH, line.number)?;
        let block = Replacement {
            old_text: raw[at + 1..divider].concat(),
            new_text: raw[divider + 1..end].concat(),
            line: Some(line.number),
        };
        push_block(&mut operations, path, Some(line.number), block);
        at = end + 1;
    }
    if operations.is_empty() {
        return Err(PatchError::invalid(1, format!("no `{SEARCH}` block")));
    }
    Ok(operations)
}

/// The path line above a block: the nearest line that is neither blank nor a fence,
/// without surrounding backticks or emphasis.
fn path_before<'a>(lines: &[PatchLine<'a>]) -> Option<&'a str> {
    let line = lines
        .iter()
        .rev()
        .map(|line| line.text.trim())
        .find(|text| !text.is_empty() && !text.starts_with("```"))?;
    let name = line.trim_matches(|c| c == '`' || c == '*').trim();
    let is_marker = [SEARCH, DIVIDER, REPLACE].contains(&name);
    (!name.is_empty() && !is_marker).then_some(name)
}

fn find(
    lines: &[PatchLine],
    from: usize,
    marker: &str,
    opener: &str,
    block_line: usize,
) -> Result<usize, PatchError> {
    lines[from..]
        .iter()
        .position(|line| line.text.trim_end() == marker)
        .map(|at| from + at)
        .ok_or_else(|| {
            PatchError::invalid(
                block_line,
                format!("the `{opener}` block has no `{marker}` line"),
            )
        })
}

/// Adds `block` to the operation on `path`, or starts one.
pub(super) fn push_block(
    operations: &mut Vec<FileOperation>,
    path: String,
    line: Option<usize>,
    block: Replacement,
) {
    let existing = operations
        .iter_mut()
        .find(|operation| operation.path == path);
    match existing {
        Some(FileOperation {
            kind: OperationKind::Replace { blocks },
            ..
        }) => blocks.push(block),
        _ => operations.push(FileOperation {
            path,
            line,
            kind: OperationKind::Replace {
                blocks: vec![block],
            },
        }),
    }
}
