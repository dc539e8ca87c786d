//! The `*** Begin Patch` envelope agents write (the `apply_patch` format of Codex CLI).
//!
//! ```text
//! *** Begin Patch
//! *** Add File: PATH          every following line starts with `+`
//! *** Delete File: PATH
//! *** Update File: PATH
//! *** Move to: NEW_PATH       optional, right after the update header
//! @@ def f():                 a chunk, after the line `def f():`; `@@` alone for none
//!  context / -removed / +added
//! *** End of File             optional: the chunk ends the file
//! *** End Patch
//! ```
//!
//! Invariant: the text between `*** Begin Patch` and `*** End Patch` is read whole, each
//! line as one of the grammar's; anything else is an error naming its line. Lines before
//! the envelope (a shell heredoc's first line) and after it are ignored.

use super::lines::{PatchLine, patch_lines};
use super::{FileOperation, Hunk, HunkAnchor, HunkLine, OperationKind, PatchError, path};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

pub(super) fn parse(text: &str) -> Result<Vec<FileOperation>, PatchError> {
    let lines = patch_lines(text);
    let begin = lines
        .iter()
        .position(|line| line.text.trim() == BEGIN)
        .ok_or_else(|| PatchError::invalid(1, format!("no `{BEGIN}` line")))?;
    let mut operations = Vec::new();
    let mut at = begin + 1;
    loop {
        let Some(line) = lines.get(at) else {
            let last = lines.last().map_or(1, |line| line.number);
            return Err(PatchError::invalid(last, format!("no `{END}` line")));
        };
        let header = line.text.trim();
        if header == END {
            break;
        }
        let (operation, next) = if let Some(name) = header.strip_prefix(ADD) {
            add(&lines, at, name)?
        } else if let Some(name) = header.strip_prefix(DELETE) {
            let kind = OperationKind::Delete { hunks: Vec::new() };
            (operation(line, name, kind)?, at + 1)
        } else if let Some(name) = header.strip_prefix(UPDATE) {
            update(&lines, at, name)?
        } else {
            return Err(PatchError::invalid(
                line.number,
                format!(
                    "expected `{ADD}PATH`, `{DELETE}PATH`, `{UPDATE}PATH` or `{END}`, \
                     found `{}`",
                    line.text
                ),
            ));
        };
        operations.push(operation);
        at = next;
    }
    Ok(operations)
}

fn valid_path(line: &PatchLine, name: &str) -> Result<String, PatchError> {
    path::validate(name.trim()).map_err(|message| PatchError::invalid(line.number, message))
}

fn operation(
    line: &PatchLine,
    name: &str,
    kind: OperationKind,
) -> Result<FileOperation, PatchError> {
    Ok(FileOperation {
        path: valid_path(line, name)?,
        line: Some(line.number),
        kind,
    })
}

fn is_header(line: &PatchLine) -> bool {
    line.text.starts_with("*** ")
}

fn add(lines: &[PatchLine], at: usize, name: &str) -> Result<(FileOperation, usize), PatchError> {
    let mut text = String::new();
    let mut next = at + 1;
    while let Some(line) = lines.get(next).filter(|line| !is_header(line)) {
        let Some(content) = line.text.strip_prefix('+') else {
            return Err(PatchError::invalid(
                line.number,
                "every line of an added file starts with `+`",
            ));
        };
        text.push_str(content);
        text.push_str(if line.cr { "\r\n" } else { "\n" });
        next += 1;
    }
    let kind = OperationKind::Add {
        text,
        executable: false,
    };
    Ok((operation(&lines[at], name, kind)?, next))
}

fn update(
    lines: &[PatchLine],
    at: usize,
    name: &str,
) -> Result<(FileOperation, usize), PatchError> {
    let mut next = at + 1;
    let mut move_to = None;
    if let Some((line, new_name)) = lines
        .get(next)
        .and_then(|line| Some((line, line.text.trim().strip_prefix(MOVE)?)))
    {
        move_to = Some(valid_path(line, new_name)?);
        next += 1;
    }
    let mut hunks = Vec::new();
    while let Some(line) = lines
        .get(next)
        .filter(|line| !is_header(line) || line.text.trim() == END_OF_FILE)
    {
        if line.text.trim() == END_OF_FILE {
            return Err(PatchError::invalid(
                line.number,
                format!("`{END_OF_FILE}` outside a chunk"),
            ));
        }
        let (hunk, after) = chunk(lines, next, hunks.is_empty())?;
        hunks.push(hunk);
        next = after;
    }
    if hunks.is_empty() && move_to.is_none() {
        return Err(PatchError::invalid(
            lines[at].number,
            format!("`{UPDATE}{}` has no chunk", name.trim()),
        ));
    }
    let kind = OperationKind::Update {
        move_to,
        hunks,
        executable: None,
    };
    Ok((operation(&lines[at], name, kind)?, next))
}

/// One chunk from `at`: an `@@` header (optional for a file's first chunk), its lines, and
/// an optional `*** End of File`.
fn chunk(lines: &[PatchLine], at: usize, first: bool) -> Result<(Hunk, usize), PatchError> {
    let start = lines[at];
    let (context, mut next) = match start.text.strip_prefix("@@") {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
            let context = rest.strip_prefix(' ').filter(|c| !c.trim().is_empty());
            (context.map(str::to_string), at + 1)
        }
        _ if first => (None, at),
        _ => {
            return Err(PatchError::invalid(
                start.number,
                format!("expected a chunk header `@@`, found `{}`", start.text),
            ));
        }
    };
    let mut body = Vec::new();
    let mut cr = Vec::new();
    let mut end_of_file = false;
    while let Some(line) = lines.get(next) {
        if line.text.trim() == END_OF_FILE {
            end_of_file = true;
            next += 1;
            break;
        }
        if is_header(line) || line.text.starts_with("@@") {
            break;
        }
        body.push(match line.text.chars().next() {
            None => HunkLine::Context(String::new()),
            Some(' ') => HunkLine::Context(line.text[1..].to_string()),
            Some('-') => HunkLine::Removed(line.text[1..].to_string()),
            Some('+') => HunkLine::Added(line.text[1..].to_string()),
            Some(_) => {
                return Err(PatchError::invalid(
                    line.number,
                    format!(
                        "a chunk's lines start with ` `, `-` or `+`; found `{}`",
                        line.text
                    ),
                ));
            }
        });
        cr.push(line.cr);
        next += 1;
    }
    if body.is_empty() {
        return Err(PatchError::invalid(start.number, "the chunk has no lines"));
    }
    if cr.iter().any(|c| *c != cr[0]) {
        return Err(PatchError::invalid(
            start.number,
            "the chunk's lines mix CRLF and LF line endings",
        ));
    }
    let hunk = Hunk {
        header: if next > at && start.text.starts_with("@@") {
            start.text.to_string()
        } else {
            String::new()
        },
        line: start.number,
        anchor: HunkAnchor::Context {
            context,
            end_of_file,
        },
        lines: body,
        old_ends_without_newline: false,
        new_ends_without_newline: false,
        crlf: cr[0],
    };
    Ok((hunk, next))
}
