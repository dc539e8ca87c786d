//! A [`Patch`] applied to texts in memory: each file's new text, edit and hunk report.
//!
//! Invariant: a hunk's old lines match the file exactly where it applies (line contents
//! compared without their endings; with `fuzz`, only context lines at the hunk's ends may
//! be left out; an envelope chunk may also match ignoring whitespace at line ends, then
//! around lines, as Codex's `apply_patch` does, which its report says). Hunks apply in
//! order, each below the previous one; lines a patch inserts take the file's line ending,
//! lines it keeps keep theirs, and a byte-order mark stays. Any failure fails the whole
//! patch.

use std::collections::BTreeMap;

use serde::Serialize;

use super::lines::{Ending, FileLine, FileLines};
use super::search_replace::Replacement;
use super::{FileOperation, Hunk, HunkAnchor, HunkLine, OperationKind, Patch, PatchError};
use crate::ide::{
    ContentHash, FileEdit, FileSystemEdit, FileText, SourceChange, TextEncoding,
    unified_diff_labelled,
};

const BOM: char = '\u{feff}';

/// How to apply a patch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchOptions {
    /// How many context lines at each end of a unified diff's hunk may be left out when it
    /// does not match whole (as `patch --fuzz`); removed lines always match.
    pub fuzz: usize,
    /// Per path, the SHA-256 of the file the caller saw (its bytes, as `sha256sum`
    /// prints it); a file whose bytes differ, or which is gone, is a conflict. Each path
    /// must be one the patch changes.
    pub expected_sha256: BTreeMap<String, Sha256Hash>,
}

/// What a patch does to each file, in the patch's order, and the diff of it all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PatchOutcome {
    pub files: Vec<FileOutcome>,
    /// A `git diff`-style unified diff of every file's change.
    pub diff: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileOutcome {
    pub path: String,
    /// Where the file moves to.
    pub new_path: Option<String>,
    /// `None` for a file the patch creates.
    pub old_text: Option<String>,
    /// `None` for a file the patch deletes.
    pub new_text: Option<String>,
    /// How the old file's bytes were read, and the new text is written (a new file is
    /// UTF-8).
    pub encoding: TextEncoding,
    /// The executable bit the patch sets, when it sets one.
    pub executable: Option<bool>,
    /// One per hunk or search/replace block, in order.
    pub hunks: Vec<HunkReport>,
    /// The change of a file that has an old and a new text, as line edits against the old
    /// text (at `path`, before any move); `None` when the text is unchanged.
    pub edit: Option<FileEdit>,
}

/// Where a hunk applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HunkReport {
    /// The 1-based line of the text (as the hunks before left it) where the hunk's first
    /// matched line was.
    pub line: usize,
    /// Lines from the position the hunk states (unified diffs; 0 otherwise).
    pub offset: isize,
    /// Context lines left out at each end.
    pub fuzz: usize,
    /// The lines matched only when whitespace was ignored (envelope chunks).
    pub whitespace_ignored: bool,
}

impl PatchOutcome {
    /// The change for the all-or-nothing writer: a [`FileEdit`] per file changed in place
    /// (sorted by path), and a [`FileSystemEdit`] per file created, deleted or moved, or
    /// whose executable bit alone changes, in the patch's order. A file whose text and
    /// executable bit both change gets both.
    pub fn source_change(&self) -> SourceChange {
        let mut files = Vec::new();
        let mut file_system = Vec::new();
        for file in &self.files {
            let path = file.path.clone();
            let encoding = file.encoding;
            let hash = |text: &str| {
                let bytes = encoding
                    .encode(text)
                    .expect("a file's old text encodes back");
                ContentHash::of(&bytes)
            };
            match (&file.old_text, &file.new_text, &file.new_path) {
                (None, Some(text), _) => file_system.push(FileSystemEdit::Create {
                    path,
                    text: text.clone(),
                    executable: file.executable == Some(true),
                }),
                (Some(old), None, _) => file_system.push(FileSystemEdit::Delete {
                    path,
                    base_hash: hash(old),
                }),
                (Some(old), Some(text), Some(to)) => file_system.push(FileSystemEdit::Move {
                    from: path,
                    to: to.clone(),
                    base_hash: hash(old),
                    text: text.clone(),
                    executable: file.executable,
                    encoding,
                }),
                (Some(old), Some(_), None) => {
                    files.extend(file.edit.clone());
                    if let Some(executable) = file.executable {
                        file_system.push(FileSystemEdit::SetExecutable {
                            path,
                            base_hash: hash(old),
                            executable,
                        });
                    }
                }
                (None, None, _) => {}
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        SourceChange { files, file_system }
    }
}

/// Applies `patch` to the texts `current` gives (`None` for a missing file): the outcome of
/// every file, or the first failure.
pub fn apply_to_texts(
    patch: &Patch,
    current: &dyn Fn(&str) -> Option<FileText>,
    options: &PatchOptions,
) -> Result<PatchOutcome, PatchError> {
    check_expected_paths(patch, options)?;
    let files = patch
        .operations
        .iter()
        .map(|operation| apply_operation(operation, current, options))
        .collect::<Result<Vec<_>, _>>()?;
    let diff = files.iter().map(FileOutcome::diff).collect();
    Ok(PatchOutcome { files, diff })
}

fn apply_operation(
    operation: &FileOperation,
    current: &dyn Fn(&str) -> Option<FileText>,
    options: &PatchOptions,
) -> Result<FileOutcome, PatchError> {
    let path = operation.path.as_str();
    let old_file = current(path);
    check_expected(path, old_file.as_ref(), options)?;
    let encoding = old_file.as_ref().map_or(TextEncoding::Utf8, |f| f.encoding);
    let old = old_file.map(|file| file.text);
    let existing = || {
        old.as_deref().ok_or_else(|| {
            PatchError::does_not_apply(path, "the file does not exist; the patch changes it")
        })
    };
    let mut outcome = FileOutcome {
        path: path.to_string(),
        new_path: None,
        old_text: old.clone(),
        new_text: None,
        encoding,
        executable: None,
        hunks: Vec::new(),
        edit: None,
    };
    match &operation.kind {
        OperationKind::Add { text, executable } => {
            if old.is_some() {
                return Err(PatchError::does_not_apply(
                    path,
                    "the file exists; the patch creates it",
                ));
            }
            outcome.new_text = Some(text.clone());
            outcome.executable = executable.then_some(true);
        }
        OperationKind::Delete { hunks } => {
            let old = existing()?;
            if !hunks.is_empty() {
                let (rest, reports) = apply_hunks(path, old, hunks, options.fuzz)?;
                if !rest.is_empty() {
                    return Err(PatchError::does_not_apply(
                        path,
                        "the file has lines the patch deleting it does not show",
                    ));
                }
                outcome.hunks = reports;
            }
        }
        OperationKind::Update {
            move_to,
            hunks,
            executable,
        } => {
            let (new, reports) = apply_hunks(path, existing()?, hunks, options.fuzz)?;
            if let Some(to) = move_to.as_deref().filter(|to| current(to).is_some()) {
                return Err(PatchError::does_not_apply(
                    path,
                    format!("cannot move the file to {to}: {to} exists"),
                ));
            }
            outcome.new_path = move_to.clone();
            outcome.new_text = Some(new);
            outcome.executable = *executable;
            outcome.hunks = reports;
        }
        OperationKind::Replace { blocks } => {
            let (new, reports) = apply_blocks(path, old.as_deref(), blocks)?;
            outcome.new_text = Some(new);
            outcome.hunks = reports;
        }
    }
    if let Some(new) = &outcome.new_text
        && let Err(unencodable) = encoding.encode(new)
    {
        return Err(PatchError::does_not_apply(path, unencodable.to_string()));
    }
    if let (Some(old), Some(new)) = (&outcome.old_text, &outcome.new_text) {
        let old = FileText {
            text: old.clone(),
            encoding,
        };
        outcome.edit = (old.text != *new).then(|| super::file_edit(path, &old, new));
    }
    Ok(outcome)
}

/// A file's SHA-256, as `expected_sha256` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sha256Hash([u8; 32]);

impl Sha256Hash {
    pub fn of(bytes: &[u8]) -> Sha256Hash {
        use sha2::Digest;
        Sha256Hash(sha2::Sha256::digest(bytes).into())
    }

    /// From 64 hexadecimal digits (either case).
    pub fn from_hex(hex: &str) -> Option<Sha256Hash> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(Sha256Hash(bytes))
    }

    pub fn to_hex(self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

/// Every path `expected_sha256` names is one the patch changes: a hash of another file
/// would be checked against nothing, and a misspelt path would go unnoticed.
fn check_expected_paths(patch: &Patch, options: &PatchOptions) -> Result<(), PatchError> {
    let stray = (options.expected_sha256.keys())
        .find(|path| !patch.operations.iter().any(|op| op.path == **path));
    match stray {
        Some(path) => Err(PatchError::Invalid {
            line: None,
            message: format!("expected_sha256 names {path}, which the patch does not change"),
        }),
        None => Ok(()),
    }
}

fn check_expected(
    path: &str,
    old: Option<&FileText>,
    options: &PatchOptions,
) -> Result<(), PatchError> {
    let Some(expected) = options.expected_sha256.get(path) else {
        return Ok(());
    };
    let message = match old.map(|file| Sha256Hash::of(&file.bytes())) {
        None => "the file was expected to exist, and it does not".to_string(),
        Some(found) if found != *expected => format!(
            "the file changed: its SHA-256 is {}, not the expected {}",
            found.to_hex(),
            expected.to_hex()
        ),
        Some(_) => return Ok(()),
    };
    Err(PatchError::Conflict {
        path: path.to_string(),
        message,
    })
}

/// How strictly a line must equal a hunk's line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strictness {
    Exact,
    TrailingWhitespace,
    Whitespace,
}

impl Strictness {
    fn same(self, file: &str, hunk: &str) -> bool {
        match self {
            Strictness::Exact => file == hunk,
            Strictness::TrailingWhitespace => file.trim_end() == hunk.trim_end(),
            Strictness::Whitespace => file.trim() == hunk.trim(),
        }
    }
}

/// A hunk's place: its first matched line, and the context lines left out at each end.
#[derive(Clone, Copy)]
struct Placement {
    start: usize,
    lead: usize,
    trail: usize,
    strictness: Strictness,
}

/// Why a hunk has no place: the nearest candidate and its first differing line.
struct Miss {
    /// 0-based line of the file.
    at: usize,
    /// Index into the hunk's old lines of the first that differs; their count when all
    /// match (the hunk had to end the file and does not).
    differs: usize,
    /// The context line of an `@@ context` header, when that was not found.
    context: Option<String>,
    /// The marker by which the hunk must end the file, when it must.
    ends_file: Option<&'static str>,
}

/// The file's lines compared with a hunk's old lines, with the byte-order mark in mind.
struct Matcher<'a> {
    file: &'a FileLines,
}

impl Matcher<'_> {
    fn same(&self, at: usize, hunk_line: &str, strictness: Strictness) -> bool {
        let Some(line) = self.file.lines.get(at) else {
            return false;
        };
        // A diff of a file with a byte-order mark shows it at the start of the first line.
        let hunk_line = match (at, self.file.bom) {
            (0, true) => hunk_line.strip_prefix(BOM).unwrap_or(hunk_line),
            _ => hunk_line,
        };
        strictness.same(&line.content, hunk_line)
    }

    /// How many of `old`, laid from `start`, match.
    fn matching(&self, start: usize, old: &[&str], strictness: Strictness) -> usize {
        old.iter()
            .enumerate()
            .take_while(|(k, line)| self.same(start + k, line, strictness))
            .count()
    }

    fn fits(&self, start: usize, old: &[&str], strictness: Strictness) -> bool {
        start + old.len() <= self.file.lines.len()
            && self.matching(start, old, strictness) == old.len()
    }

    /// The candidate from `floor` on matching most of `old` from its first line, nearest
    /// to `target` among equals: what to show when nothing matches.
    fn nearest(&self, old: &[&str], target: usize, floor: usize) -> Miss {
        let last = self.file.lines.len();
        let target = target.clamp(floor.min(last), last);
        let mut best = (0, usize::MAX, target);
        for start in floor..=last {
            let matched = self.matching(start, old, Strictness::Exact);
            let distance = start.abs_diff(target);
            if matched > best.0 || (matched == best.0 && matched > 0 && distance < best.1) {
                best = (matched, distance, start);
            }
        }
        Miss {
            at: best.2,
            differs: best.0,
            context: None,
            ends_file: None,
        }
    }
}

/// The old lines of `lines`: context and removed ones, in order.
fn old_side(lines: &[HunkLine]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Removed(text) => Some(text.as_str()),
            HunkLine::Added(_) => None,
        })
        .collect()
}

fn apply_hunks(
    path: &str,
    text: &str,
    hunks: &[Hunk],
    fuzz: usize,
) -> Result<(String, Vec<HunkReport>), PatchError> {
    let mut file = FileLines::parse(text);
    let mut reports = Vec::with_capacity(hunks.len());
    let mut floor = 0usize;
    // Lines the hunks so far added minus those they removed, and the last hunk's offset:
    // a unified diff's positions are the original file's.
    let mut delta = 0isize;
    let mut carried = 0isize;
    for (index, hunk) in hunks.iter().enumerate() {
        let matcher = Matcher { file: &file };
        let (placement, stated) = match &hunk.anchor {
            HunkAnchor::Line(line) => {
                let stated = (*line as isize + delta).max(0);
                let target = (stated + carried).max(0) as usize;
                (
                    place_by_line(&matcher, hunk, target, floor, fuzz),
                    Some(stated),
                )
            }
            HunkAnchor::Context {
                context,
                end_of_file,
            } => (
                place_by_context(&matcher, hunk, context.as_deref(), *end_of_file, floor),
                None,
            ),
        };
        let placement = placement.map_err(|miss| hunk_error(path, &file, index, hunk, miss))?;
        let offset = stated.map_or(0, |stated| {
            placement.start as isize - placement.lead as isize - stated
        });
        carried = if stated.is_some() { offset } else { 0 };
        reports.push(HunkReport {
            line: placement.start + 1,
            offset,
            fuzz: placement.lead.max(placement.trail),
            whitespace_ignored: placement.strictness != Strictness::Exact,
        });
        let written = splice(&mut file, hunk, placement);
        floor = placement.start + written;
        delta += hunk.new_line_count() as isize - hunk.old_lines().count() as isize;
    }
    Ok((file.to_text(), reports))
}

/// The lines of `hunk` without the context left out by `placement`.
fn trimmed(hunk: &Hunk, lead: usize, trail: usize) -> &[HunkLine] {
    &hunk.lines[lead..hunk.lines.len() - trail]
}

fn context_run<'a>(lines: impl Iterator<Item = &'a HunkLine>) -> usize {
    lines
        .take_while(|line| matches!(line, HunkLine::Context(_)))
        .count()
}

fn place_by_line(
    matcher: &Matcher,
    hunk: &Hunk,
    target: usize,
    floor: usize,
    fuzz: usize,
) -> Result<Placement, Miss> {
    let (leading, trailing) = (
        context_run(hunk.lines.iter()),
        context_run(hunk.lines.iter().rev()),
    );
    let len = matcher.file.lines.len();
    let mut tried = Vec::new();
    for allowed in 0..=fuzz {
        let lead = allowed.min(leading);
        let trail = allowed.min(trailing).min(hunk.lines.len() - lead);
        if tried.contains(&(lead, trail)) {
            continue;
        }
        tried.push((lead, trail));
        let old = old_side(trimmed(hunk, lead, trail));
        let must_end_file = hunk.old_ends_without_newline && trail == 0;
        let Some(last_start) = len.checked_sub(old.len()).filter(|last| *last >= floor) else {
            continue;
        };
        let want = (target + lead).clamp(floor, last_start);
        let found = if must_end_file {
            matcher
                .fits(last_start, &old, Strictness::Exact)
                .then_some(last_start)
        } else {
            nearest_fit(matcher, &old, want, floor, last_start)
        };
        if let Some(start) = found {
            return Ok(Placement {
                start,
                lead,
                trail,
                strictness: Strictness::Exact,
            });
        }
    }
    let mut miss = matcher.nearest(&old_side(&hunk.lines), target, floor);
    if hunk.old_ends_without_newline {
        miss.ends_file = Some("\\ No newline at end of file");
    }
    Err(miss)
}

/// The start in `floor..=last` nearest to `want` (searching outward, below first on ties)
/// where `old` matches exactly.
fn nearest_fit(
    matcher: &Matcher,
    old: &[&str],
    want: usize,
    floor: usize,
    last: usize,
) -> Option<usize> {
    (0..=last - floor).find_map(|distance| {
        let below = want.checked_add(distance).filter(|at| *at <= last);
        let above = want
            .checked_sub(distance)
            .filter(|at| *at >= floor && distance > 0);
        [below, above]
            .into_iter()
            .flatten()
            .find(|at| matcher.fits(*at, old, Strictness::Exact))
    })
}

const STRICTNESS: [Strictness; 3] = [
    Strictness::Exact,
    Strictness::TrailingWhitespace,
    Strictness::Whitespace,
];

fn place_by_context(
    matcher: &Matcher,
    hunk: &Hunk,
    context: Option<&str>,
    end_of_file: bool,
    floor: usize,
) -> Result<Placement, Miss> {
    let len = matcher.file.lines.len();
    let mut from = floor;
    if let Some(context) = context {
        let found = STRICTNESS
            .iter()
            .find_map(|strictness| (from..len).find(|at| matcher.same(*at, context, *strictness)));
        let Some(at) = found else {
            return Err(Miss {
                at: from,
                differs: 0,
                context: Some(context.to_string()),
                ends_file: None,
            });
        };
        from = at + 1;
    }
    // Agents often end a chunk with a blank line that stands for the gap before the next
    // header; try without it too.
    let blank_end = matches!(hunk.lines.last(), Some(HunkLine::Context(text)) if text.is_empty());
    let trails: &[usize] = if blank_end && hunk.lines.len() > 1 {
        &[0, 1]
    } else {
        &[0]
    };
    for &trail in trails {
        let old = old_side(trimmed(hunk, 0, trail));
        let Some(last_start) = len.checked_sub(old.len()).filter(|last| *last >= from) else {
            continue;
        };
        if old.is_empty() {
            // A chunk that only adds goes after its context line, or at the end.
            let start = if context.is_some() && !end_of_file {
                from
            } else {
                len
            };
            return Ok(Placement {
                start,
                lead: 0,
                trail,
                strictness: Strictness::Exact,
            });
        }
        for strictness in STRICTNESS {
            let found = if end_of_file {
                matcher
                    .fits(last_start, &old, strictness)
                    .then_some(last_start)
            } else {
                (from..=last_start).find(|at| matcher.fits(*at, &old, strictness))
            };
            if let Some(start) = found {
                return Ok(Placement {
                    start,
                    lead: 0,
                    trail,
                    strictness,
                });
            }
        }
    }
    let target = if end_of_file {
        len.saturating_sub(old_side(&hunk.lines).len())
    } else {
        from
    };
    let mut miss = matcher.nearest(&old_side(&hunk.lines), target, from);
    if end_of_file {
        miss.ends_file = Some("*** End of File");
    }
    Err(miss)
}

/// Replaces the lines `placement` names with the hunk's new side; the number of lines
/// written.
fn splice(file: &mut FileLines, hunk: &Hunk, placement: Placement) -> usize {
    let ending = file.ending().unwrap_or(Ending::of_crlf(hunk.crlf));
    let lines = trimmed(hunk, placement.lead, placement.trail);
    let end = placement.start + old_side(lines).len();
    let mut kept = file.lines[placement.start..end].iter();
    let mut written: Vec<FileLine> = Vec::new();
    for line in lines {
        match line {
            HunkLine::Context(_) => written.extend(kept.next().cloned()),
            HunkLine::Removed(_) => {
                kept.next();
            }
            HunkLine::Added(text) => {
                let text = match (placement.start + written.len(), file.bom) {
                    (0, true) => text.strip_prefix(BOM).unwrap_or(text),
                    _ => text,
                };
                written.push(FileLine {
                    content: text.to_string(),
                    ending,
                });
            }
        }
    }
    let ends_file = end == file.lines.len() && placement.trail == 0;
    if let (true, Some(last)) = (ends_file, written.last_mut()) {
        if hunk.new_ends_without_newline {
            last.ending = Ending::None;
        } else if hunk.old_ends_without_newline {
            last.ending = ending;
        }
    }
    let count = written.len();
    file.lines.splice(placement.start..end, written);
    // Only the last line of a file may lack an ending: lines added after it give it one.
    let last = file.lines.len().saturating_sub(1);
    for line in &mut file.lines[..last] {
        if line.ending == Ending::None {
            line.ending = ending;
        }
    }
    count
}

fn hunk_error(path: &str, file: &FileLines, index: usize, hunk: &Hunk, miss: Miss) -> PatchError {
    let name = match hunk.header.as_str() {
        "" => format!("hunk {}", index + 1),
        header => format!("hunk {} (`{header}`)", index + 1),
    };
    let old = old_side(&hunk.lines);
    let line = miss.at + miss.differs + 1;
    let why = if let Some(context) = miss.context {
        format!(
            "its context line `{context}` is not in the file after line {}",
            miss.at
        )
    } else if miss.differs == old.len() {
        format!(
            "its lines match at line {} but must end the file (`{}`), which goes on",
            miss.at + 1,
            miss.ends_file.unwrap_or_default()
        )
    } else {
        let expected = old[miss.differs];
        match file.lines.get(miss.at + miss.differs) {
            Some(found) => format!(
                "at line {line} it expects `{expected}` but the file has `{}`",
                found.content
            ),
            None => format!(
                "at line {line} it expects `{expected}` but the file has {} lines",
                file.lines.len()
            ),
        }
    };
    PatchError::does_not_apply(path, format!("{name} does not apply: {why}"))
}

fn apply_blocks(
    path: &str,
    old: Option<&str>,
    blocks: &[Replacement],
) -> Result<(String, Vec<HunkReport>), PatchError> {
    let mut text: Option<String> = old.map(str::to_string);
    let mut reports = Vec::with_capacity(blocks.len());
    for (index, block) in blocks.iter().enumerate() {
        let name = format!("block {}", index + 1);
        let Some(current) = text.as_deref() else {
            if !block.old_text.is_empty() {
                return Err(PatchError::does_not_apply(
                    path,
                    format!(
                        "{name}: the file does not exist; only an empty search text creates it"
                    ),
                ));
            }
            text = Some(block.new_text.clone());
            reports.push(block_report(1));
            continue;
        };
        if block.old_text.is_empty() {
            return Err(PatchError::does_not_apply(
                path,
                format!("{name}: the search text is empty but the file exists"),
            ));
        }
        let (search, replace) = in_file_endings(current, block);
        let starts: Vec<usize> = current
            .match_indices(search.as_str())
            .map(|(at, _)| at)
            .collect();
        let line_of = |at: usize| current[..at].matches('\n').count() + 1;
        let [start] = starts[..] else {
            let lines: Vec<String> = starts.iter().map(|at| line_of(*at).to_string()).collect();
            let at = match lines.len() {
                0 => String::new(),
                _ => format!(", at lines {}", lines.join(", ")),
            };
            return Err(PatchError::does_not_apply(
                path,
                format!(
                    "{name}: the search text must match exactly once; it matches {} times{at}",
                    starts.len()
                ),
            ));
        };
        reports.push(block_report(line_of(start)));
        let mut next = String::with_capacity(current.len() + replace.len());
        next.push_str(&current[..start]);
        next.push_str(&replace);
        next.push_str(&current[start + search.len()..]);
        text = Some(next);
    }
    Ok((text.unwrap_or_default(), reports))
}

fn block_report(line: usize) -> HunkReport {
    HunkReport {
        line,
        offset: 0,
        fuzz: 0,
        whitespace_ignored: false,
    }
}

/// A block's texts with `\r\n` endings when the file has them and the block has none.
fn in_file_endings(file: &str, block: &Replacement) -> (String, String) {
    let crlf = FileLines::parse(file).ending() == Some(Ending::CrLf);
    let bare = !block.old_text.contains('\r') && !block.new_text.contains('\r');
    if crlf && bare {
        (
            block.old_text.replace('\n', "\r\n"),
            block.new_text.replace('\n', "\r\n"),
        )
    } else {
        (block.old_text.clone(), block.new_text.clone())
    }
}

impl FileOutcome {
    /// This file's part of the outcome's diff, `git diff`-style.
    fn diff(&self) -> String {
        let old_path = &self.path;
        let new_path = self.new_path.as_deref().unwrap_or(old_path);
        let mut header = format!("diff --git a/{old_path} b/{new_path}\n");
        let (old_label, new_label) = match (&self.old_text, &self.new_text) {
            (None, _) => {
                let mode = if self.executable == Some(true) {
                    "100755"
                } else {
                    "100644"
                };
                header.push_str(&format!("new file mode {mode}\n"));
                ("/dev/null".to_string(), format!("b/{new_path}"))
            }
            (_, None) => {
                header.push_str("deleted file mode 100644\n");
                (format!("a/{old_path}"), "/dev/null".to_string())
            }
            _ => (format!("a/{old_path}"), format!("b/{new_path}")),
        };
        if let (Some(_), Some(_), Some(executable)) =
            (&self.old_text, &self.new_text, self.executable)
        {
            let (old_mode, new_mode) = if executable {
                ("100644", "100755")
            } else {
                ("100755", "100644")
            };
            header.push_str(&format!("old mode {old_mode}\nnew mode {new_mode}\n"));
        }
        if self.new_path.is_some() {
            header.push_str(&format!("rename from {old_path}\nrename to {new_path}\n"));
        }
        let old = self.old_text.as_deref().unwrap_or_default();
        let new = self.new_text.as_deref().unwrap_or_default();
        let body = unified_diff_labelled(&old_label, &new_label, old, new);
        let changes_file = self.old_text.is_none() || self.new_text.is_none();
        if body.is_empty() && !changes_file && self.new_path.is_none() && self.executable.is_none()
        {
            return String::new();
        }
        header + &body
    }
}
