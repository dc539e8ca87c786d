//! Unified diffs: `diff -u` output and `git diff` output with its extended headers.
//!
//! Invariant: every file section becomes one [`FileOperation`] or an error naming the
//! patch line; a hunk holds exactly the lines its header counts. Text outside file sections
//! (a commit message, mail headers, a signature) is skipped; binary patches, copies,
//! symbolic links and quoted paths are refused, never half-read.

use super::lines::{PatchLine, patch_lines};
use super::{FileOperation, Hunk, HunkAnchor, HunkLine, OperationKind, PatchError, path};

pub(super) fn parse(text: &str) -> Result<Vec<FileOperation>, PatchError> {
    let lines = patch_lines(text);
    let mut operations = Vec::new();
    let mut at = 0;
    while let Some(line) = lines.get(at) {
        if line.text.starts_with("diff --git ") {
            at = git_section(&lines, at, &mut operations)?;
        } else if starts_plain_section(&lines, at) {
            at = plain_section(&lines, at, &mut operations)?;
        } else if is_binary_marker(line.text) {
            return Err(binary(line.number));
        } else {
            at += 1;
        }
    }
    if operations.is_empty() {
        return Err(PatchError::invalid(
            1,
            "no file in the diff: no `diff --git` or `---`/`+++` header with changes",
        ));
    }
    Ok(operations)
}

fn starts_plain_section(lines: &[PatchLine], at: usize) -> bool {
    lines
        .get(at)
        .is_some_and(|line| line.text.starts_with("--- "))
        && lines
            .get(at + 1)
            .is_some_and(|next| next.text.starts_with("+++ "))
}

fn is_binary_marker(line: &str) -> bool {
    line == "GIT binary patch" || (line.starts_with("Binary files ") && line.ends_with(" differ"))
}

fn binary(line: usize) -> PatchError {
    PatchError::invalid(line, "binary patches are not supported; only text files")
}

/// What a `git diff` section's extended header lines say.
#[derive(Default)]
struct GitHeader {
    new_file_mode: Option<u32>,
    deleted: bool,
    old_mode: Option<u32>,
    new_mode: Option<u32>,
    rename_from: Option<String>,
    rename_to: Option<String>,
}

fn git_section(
    lines: &[PatchLine],
    start: usize,
    operations: &mut Vec<FileOperation>,
) -> Result<usize, PatchError> {
    let number = lines[start].number;
    let names = lines[start].text["diff --git ".len()..].to_string();
    if names.contains('"') {
        return Err(PatchError::invalid(
            number,
            "quoted paths (names with special characters) are not supported",
        ));
    }
    let header_paths = split_git_names(&names);
    // `git diff --no-prefix` writes no `a/` and `b/`; strip them only when the header does.
    let prefixed =
        header_paths.is_some_and(|(old, new)| old.starts_with("a/") && new.starts_with("b/"));
    let mut header = GitHeader::default();
    let mut at = start + 1;
    while let Some(line) = lines.get(at) {
        if !git_header_line(line, &mut header)? {
            break;
        }
        at += 1;
    }
    let (mut old, mut new) = match header_paths {
        Some((old, new)) => (
            Some(strip(old, "a/", prefixed)),
            Some(strip(new, "b/", prefixed)),
        ),
        None => (None, None),
    };
    if starts_plain_section(lines, at) {
        old = side_path(lines[at].text, "--- ", "a/", prefixed);
        new = side_path(lines[at + 1].text, "+++ ", "b/", prefixed);
        at += 2;
    } else if header_paths.is_none() && header.rename_from.is_none() {
        return Err(PatchError::invalid(
            number,
            "cannot tell the two paths apart in this `diff --git` line",
        ));
    }
    if header.rename_from.is_some() || header.rename_to.is_some() {
        old = header.rename_from.clone();
        new = header.rename_to.clone();
    }
    if header.new_file_mode.is_some() {
        old = None;
    }
    if header.deleted {
        new = None;
    }
    let (hunks, at) = hunks(lines, at)?;
    let section = Section {
        line: number,
        old,
        new,
        hunks,
        git: Some(header),
    };
    if let Some(operation) = section.into_operation()? {
        operations.push(operation);
    }
    Ok(at)
}

/// Reads one extended header line into `header`; false when `line` is not one.
fn git_header_line(line: &PatchLine, header: &mut GitHeader) -> Result<bool, PatchError> {
    let text = line.text;
    let mode = |value: &str| parse_mode(value, line.number);
    if let Some(value) = text.strip_prefix("new file mode ") {
        header.new_file_mode = Some(mode(value)?);
    } else if let Some(value) = text.strip_prefix("deleted file mode ") {
        mode(value)?;
        header.deleted = true;
    } else if let Some(value) = text.strip_prefix("old mode ") {
        header.old_mode = Some(mode(value)?);
    } else if let Some(value) = text.strip_prefix("new mode ") {
        header.new_mode = Some(mode(value)?);
    } else if let Some(value) = text.strip_prefix("rename from ") {
        header.rename_from = Some(value.to_string());
    } else if let Some(value) = text.strip_prefix("rename to ") {
        header.rename_to = Some(value.to_string());
    } else if text.starts_with("copy from ") || text.starts_with("copy to ") {
        return Err(PatchError::invalid(
            line.number,
            "copies are not supported; add the new file with its whole text instead",
        ));
    } else if is_binary_marker(text) {
        return Err(binary(line.number));
    } else if !(text.starts_with("index ")
        || text.starts_with("similarity index ")
        || text.starts_with("dissimilarity index "))
    {
        return Ok(false);
    }
    Ok(true)
}

fn parse_mode(value: &str, line: usize) -> Result<u32, PatchError> {
    let mode = u32::from_str_radix(value.trim(), 8)
        .map_err(|_| PatchError::invalid(line, format!("malformed file mode `{value}`")))?;
    match mode & 0o170000 {
        0o100000 => Ok(mode),
        0o120000 => Err(PatchError::invalid(
            line,
            "symbolic links are not supported",
        )),
        0o160000 => Err(PatchError::invalid(line, "submodules are not supported")),
        _ => Err(PatchError::invalid(
            line,
            format!("file mode `{value}` is not a regular file's"),
        )),
    }
}

/// The two paths of `a/X b/Y`: with prefixes, the split whose two names agree (or the only
/// one); without, the two equal halves. `None` when that does not decide it.
fn split_git_names(names: &str) -> Option<(&str, &str)> {
    if names.starts_with("a/") {
        let splits: Vec<usize> = names.match_indices(" b/").map(|(at, _)| at).collect();
        let same = splits
            .iter()
            .find(|&&at| names[2..at] == names[at + 3..])
            .or(if splits.len() == 1 {
                splits.first()
            } else {
                None
            })?;
        return Some((&names[..*same], &names[same + 1..]));
    }
    let half = names.len() / 2;
    (names.len() % 2 == 1 && names.as_bytes()[half] == b' ' && names[..half] == names[half + 1..])
        .then(|| (&names[..half], &names[half + 1..]))
}

fn strip(path: &str, prefix: &str, prefixed: bool) -> String {
    match path.strip_prefix(prefix) {
        Some(rest) if prefixed => rest.to_string(),
        _ => path.to_string(),
    }
}

/// The path of a `---` or `+++` line, without a timestamp after a tab; `None` for
/// `/dev/null`.
fn side_path(line: &str, marker: &str, prefix: &str, prefixed: bool) -> Option<String> {
    let name = line[marker.len()..].split('\t').next().unwrap_or_default();
    (name != "/dev/null").then(|| strip(name, prefix, prefixed))
}

fn plain_section(
    lines: &[PatchLine],
    at: usize,
    operations: &mut Vec<FileOperation>,
) -> Result<usize, PatchError> {
    let name = |line: &str, marker: &str| {
        line[marker.len()..]
            .split('\t')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let (old, new) = (
        name(lines[at].text, "--- "),
        name(lines[at + 1].text, "+++ "),
    );
    let git_style = |name: &str, prefix: &str| name == "/dev/null" || name.starts_with(prefix);
    let prefixed = git_style(&old, "a/") && git_style(&new, "b/");
    let section_hunks = hunks(lines, at + 2)?;
    let section = Section {
        line: lines[at].number,
        old: side_path(lines[at].text, "--- ", "a/", prefixed),
        new: side_path(lines[at + 1].text, "+++ ", "b/", prefixed),
        hunks: section_hunks.0,
        git: None,
    };
    if let Some(operation) = section.into_operation()? {
        operations.push(operation);
    }
    Ok(section_hunks.1)
}

/// One file's section: its paths (`None` for `/dev/null`), hunks and git headers.
struct Section {
    line: usize,
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<Hunk>,
    git: Option<GitHeader>,
}

impl Section {
    fn into_operation(self) -> Result<Option<FileOperation>, PatchError> {
        let valid =
            |path: &str| path::validate(path).map_err(|m| PatchError::invalid(self.line, m));
        let git = self.git.unwrap_or_default();
        let operation = |path: String, kind| FileOperation {
            path,
            line: Some(self.line),
            kind,
        };
        match (self.old, self.new) {
            (None, None) => Err(PatchError::invalid(
                self.line,
                "both sides of the file header are /dev/null",
            )),
            (None, Some(new)) => {
                let text = added_text(&self.hunks)?;
                let executable = git.new_file_mode.is_some_and(|mode| mode & 0o111 != 0);
                Ok(Some(operation(
                    valid(&new)?,
                    OperationKind::Add { text, executable },
                )))
            }
            (Some(old), None) => Ok(Some(operation(
                valid(&old)?,
                OperationKind::Delete { hunks: self.hunks },
            ))),
            (Some(old), Some(new)) => {
                let executable = match (git.old_mode, git.new_mode) {
                    (Some(old), Some(new)) if (old & 0o111 != 0) != (new & 0o111 != 0) => {
                        Some(new & 0o111 != 0)
                    }
                    _ => None,
                };
                let renamed = git.rename_from.is_some() || git.rename_to.is_some();
                // A plain diff of `file.orig` and `file` patches the file it produces.
                let (path, move_to) = if renamed && old != new {
                    (valid(&old)?, Some(valid(&new)?))
                } else {
                    (valid(&new)?, None)
                };
                if move_to.is_none() && executable.is_none() && self.hunks.is_empty() {
                    return Ok(None);
                }
                Ok(Some(operation(
                    path,
                    OperationKind::Update {
                        move_to,
                        hunks: self.hunks,
                        executable,
                    },
                )))
            }
        }
    }
}

/// A new file's text: its hunks' added lines.
fn added_text(hunks: &[Hunk]) -> Result<String, PatchError> {
    let mut text = String::new();
    for hunk in hunks {
        let ending = if hunk.crlf { "\r\n" } else { "\n" };
        let count = hunk.lines.len();
        for (at, line) in hunk.lines.iter().enumerate() {
            let HunkLine::Added(content) = line else {
                return Err(PatchError::invalid(
                    hunk.line,
                    "a new file's hunk may only add lines",
                ));
            };
            text.push_str(content);
            if !(at + 1 == count && hunk.new_ends_without_newline) {
                text.push_str(ending);
            }
        }
    }
    Ok(text)
}

/// The hunks from `at` on, and the index of the first line after them.
fn hunks(lines: &[PatchLine], mut at: usize) -> Result<(Vec<Hunk>, usize), PatchError> {
    let mut hunks = Vec::new();
    while lines
        .get(at)
        .is_some_and(|line| line.text.starts_with("@@ "))
    {
        let (hunk, next) = hunk(lines, at)?;
        hunks.push(hunk);
        at = next;
    }
    Ok((hunks, at))
}

/// `(start, count)` of one side of a hunk header, `-3,4` or `+3` (count 1).
fn hunk_range(range: &str, sign: char) -> Option<(usize, usize)> {
    let range = range.strip_prefix(sign)?;
    let (start, count) = range.split_once(',').unwrap_or((range, "1"));
    Some((start.parse().ok()?, count.parse().ok()?))
}

fn hunk(lines: &[PatchLine], at: usize) -> Result<(Hunk, usize), PatchError> {
    let header = lines[at];
    let malformed = || {
        PatchError::invalid(
            header.number,
            format!(
                "malformed hunk header `{}`; expected `@@ -A,B +C,D @@`",
                header.text
            ),
        )
    };
    let ranges = header.text[3..].split_once(" @@").ok_or_else(malformed)?.0;
    let mut parts = ranges.split(' ');
    let (Some(old), Some(new), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(malformed());
    };
    let (old_start, old_count) = hunk_range(old, '-').ok_or_else(malformed)?;
    let (_, new_count) = hunk_range(new, '+').ok_or_else(malformed)?;
    let index = match old_count {
        0 => old_start,
        _ => old_start.checked_sub(1).ok_or_else(malformed)?,
    };
    let mut body = HunkBody::new(old_count, new_count);
    let mut next = at + 1;
    while body.wants_more() {
        let Some(line) = lines.get(next) else {
            return Err(PatchError::invalid(
                header.number,
                format!(
                    "the patch ends inside this hunk: {} old and {} new lines missing",
                    body.old_left, body.new_left
                ),
            ));
        };
        body.take(line)?;
        next += 1;
    }
    if let Some(line) = lines.get(next).filter(|line| line.text.starts_with('\\')) {
        body.take(line)?;
        next += 1;
    }
    let crlf = match body.crlf(header.number) {
        Ok(crlf) => crlf,
        // A hunk that only adds lines (a new file's) matches nothing: its lines keep the
        // endings they came with, as `git apply` writes them.
        Err(_) if old_count == 0 => {
            body.keep_carriage_returns();
            false
        }
        Err(error) => return Err(error),
    };
    Ok((
        Hunk {
            header: header.text.to_string(),
            line: header.number,
            anchor: HunkAnchor::Line(index),
            lines: body.lines,
            old_ends_without_newline: body.old_without_newline,
            new_ends_without_newline: body.new_without_newline,
            crlf,
        },
        next,
    ))
}

/// A hunk's lines as they are read, against the counts of its header.
struct HunkBody {
    old_left: usize,
    new_left: usize,
    lines: Vec<HunkLine>,
    /// Per line, whether it came with `\r\n`.
    cr: Vec<bool>,
    /// Lines followed by a `\ No newline` marker, whose ending says nothing.
    unterminated: Vec<usize>,
    old_without_newline: bool,
    new_without_newline: bool,
}

impl HunkBody {
    fn new(old_left: usize, new_left: usize) -> HunkBody {
        HunkBody {
            old_left,
            new_left,
            lines: Vec::new(),
            cr: Vec::new(),
            unterminated: Vec::new(),
            old_without_newline: false,
            new_without_newline: false,
        }
    }

    fn wants_more(&self) -> bool {
        self.old_left > 0 || self.new_left > 0
    }

    fn take(&mut self, line: &PatchLine) -> Result<(), PatchError> {
        let text = line.text;
        let (kind, rest) = match text.chars().next() {
            // Some tools strip the space of an empty context line.
            None => (' ', ""),
            Some(first @ (' ' | '-' | '+' | '\\')) => (first, &text[1..]),
            Some(_) => return Err(self.unexpected(line)),
        };
        let (old, new) = match kind {
            ' ' => (1, 1),
            '-' => (1, 0),
            '+' => (0, 1),
            _ => return self.marker(line),
        };
        if self.old_left < old || self.new_left < new {
            return Err(self.unexpected(line));
        }
        self.old_left -= old;
        self.new_left -= new;
        let content = rest.to_string();
        self.lines.push(match kind {
            ' ' => HunkLine::Context(content),
            '-' => HunkLine::Removed(content),
            _ => HunkLine::Added(content),
        });
        self.cr.push(line.cr);
        Ok(())
    }

    fn marker(&mut self, line: &PatchLine) -> Result<(), PatchError> {
        let Some(last) = self.lines.last() else {
            return Err(PatchError::invalid(
                line.number,
                "a `\\ No newline at end of file` marker before any line of the hunk",
            ));
        };
        match last {
            HunkLine::Context(_) => {
                self.old_without_newline = true;
                self.new_without_newline = true;
            }
            HunkLine::Removed(_) => self.old_without_newline = true,
            HunkLine::Added(_) => self.new_without_newline = true,
        }
        self.unterminated.push(self.lines.len() - 1);
        Ok(())
    }

    fn unexpected(&self, line: &PatchLine) -> PatchError {
        PatchError::invalid(
            line.number,
            format!(
                "unexpected line in a hunk that still expects {} old and {} new lines: `{}`",
                self.old_left, self.new_left, line.text
            ),
        )
    }

    /// Puts back the `\r` of each added line that came with `\r\n`.
    fn keep_carriage_returns(&mut self) {
        for (at, line) in self.lines.iter_mut().enumerate() {
            if let HunkLine::Added(text) = line
                && self.cr[at]
                && !self.unterminated.contains(&at)
            {
                text.push('\r');
            }
        }
    }

    /// Whether the hunk's lines end with `\r\n`; refused when they mix both endings.
    fn crlf(&self, header_line: usize) -> Result<bool, PatchError> {
        let mut endings = self
            .cr
            .iter()
            .enumerate()
            .filter(|(at, _)| !self.unterminated.contains(at))
            .map(|(_, cr)| *cr);
        let first = endings.next().unwrap_or(false);
        if endings.any(|cr| cr != first) {
            return Err(PatchError::invalid(
                header_line,
                "the hunk's lines mix CRLF and LF line endings",
            ));
        }
        Ok(first)
    }
}
