//! `skeleton`: files, directories or the workspace with their bodies elided
//! (`engine::skeleton`), rendered as one text for a model and cut to a token budget.
//!
//! Invariant: `tokens` is the exact count of `text`, which never exceeds the budget; what
//! is cut is said (`omitted`, `next_offset`, `next_line`), never dropped silently, and
//! whole files come first: a file is cut, between top-level items, only when it is the
//! first of the page and does not fit alone.

use serde::Serialize;

use crate::{
    db::{Db, SourceFile},
    engine::{
        skeleton::{ElisionKind, FileSkeleton, file_skeleton, skeleton_tokens},
        tokens::{Budget, Encoding, file_tokens},
    },
    semantic::line_index,
};

/// Files at most listed in `omitted` (the rest are counted in `omitted_count`).
const OMITTED_LISTED: usize = 50;

/// What to show: the files under `paths` (files or directories, workspace-relative; none:
/// the whole workspace) in path order, from the `offset`-th, that one from `line`.
#[derive(Clone, Debug)]
pub struct SkeletonQuery {
    pub paths: Vec<String>,
    pub offset: usize,
    pub line: Option<u32>,
    pub budget: Budget,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SkeletonAnswer {
    /// The rendered skeletons: per file a `==> path <==` line, then its skeleton.
    pub text: String,
    /// The exact tokens of `text`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// The files shown, in order.
    pub files: Vec<SkeletonFile>,
    /// Files matched in all.
    pub file_count: usize,
    /// The first files left out, each with what its skeleton costs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<OmittedFile>,
    /// Files left out in all (the one continued at `next_line` not counted).
    pub omitted_count: usize,
    /// Ask again with this `offset` (and `line`, when given) for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// The file at `next_offset` continues at this 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_line: Option<u32>,
    /// Paths of the query under which the workspace indexes no file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_paths: Vec<String>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SkeletonFile {
    pub path: String,
    pub language: String,
    /// The 1-based lines of the file the skeleton shown covers.
    pub start_line: u32,
    pub end_line: u32,
    /// Tokens of the whole file and of its whole skeleton.
    pub file_tokens: u32,
    pub skeleton_tokens: u32,
    /// The bodies and doc comment lines elided in the part shown, by their lines.
    pub elided: Vec<ElidedLines>,
}

#[derive(Clone, Copy, Debug, Serialize, schemars::JsonSchema)]
pub struct ElidedLines {
    /// `body`, `doc` (a doc comment's lines after its first), `data` (a literal over
    /// several lines) or `attribute` (a Rust attribute's arguments over several lines, or
    /// a lint attribute left out).
    pub kind: ElisionKind,
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OmittedFile {
    pub path: String,
    pub skeleton_tokens: u32,
}

/// One file's part of the answer: its rendered text and what it covers.
struct Part {
    text: String,
    file: SkeletonFile,
}

/// Where the answer stops: the index of the first file not wholly shown, and the line it
/// continues at when it was cut.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stop {
    next: usize,
    line: Option<u32>,
}

/// The answer for `files` (path order) under `query`.
pub(crate) fn skeleton(
    db: &dyn Db,
    files: &[SourceFile],
    unmatched_paths: Vec<String>,
    query: &SkeletonQuery,
) -> SkeletonAnswer {
    let start = query.offset.min(files.len());
    let budget = query.budget;
    let mut parts = whole_files(db, &files[start..], query.line, budget);
    let mut stop = Stop {
        next: start + parts.len(),
        line: None,
    };
    while !parts.is_empty() && !budget.admits(&render(&parts, files.len(), stop)) {
        parts.pop();
        stop.next -= 1;
    }
    if parts.is_empty() && start < files.len() {
        let from = query.line.unwrap_or(1);
        if let Some((part, cut)) = cut_file(db, files[start], from, budget, files.len(), start) {
            parts.push(part);
            stop = cut;
        }
    }
    let text = render(&parts, files.len(), stop);
    answer(db, files, parts, stop, text, unmatched_paths, budget)
}

/// The whole skeletons of the first `files` whose parts' counts sum to at most the budget
/// (the first from `first_line`); the caller checks the joined text.
fn whole_files(
    db: &dyn Db,
    files: &[SourceFile],
    first_line: Option<u32>,
    budget: Budget,
) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut used = 0;
    for (i, &file) in files.iter().enumerate() {
        let skeleton = file_skeleton(db, file);
        let from = if i == 0 { first_line.unwrap_or(1) } else { 1 };
        let begin = start_offset(db, file, &skeleton, from);
        let part = part(
            db,
            file,
            &skeleton,
            begin..skeleton.text.len(),
            i > 0,
            budget.encoding,
        );
        used += budget.encoding.count(&part.text);
        if used > budget.max_tokens {
            break;
        }
        parts.push(part);
    }
    parts
}

/// Where in `skeleton` the file's 1-based line `line` starts (a line inside an elided
/// body: the line of its marker).
fn start_offset(db: &dyn Db, file: SourceFile, skeleton: &FileSkeleton, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    let index = line_index(db, file);
    let original = index.line_start(line).unwrap_or(file.text_len(db));
    skeleton.skeleton_offset(original)
}

/// The part of `file` showing `range` of its skeleton.
fn part(
    db: &dyn Db,
    file: SourceFile,
    skeleton: &FileSkeleton,
    range: std::ops::Range<usize>,
    after_another: bool,
    encoding: Encoding,
) -> Part {
    let index = line_index(db, file);
    let line_of = |skeleton_offset: usize| {
        index
            .line_col(skeleton.original_offset(skeleton_offset))
            .line
    };
    let start_line = line_of(range.start);
    let end_line = line_of(range.end.saturating_sub(1).max(range.start));
    let shown = &skeleton.text[range.clone()];
    let path = file.path(db);
    let mut text = String::with_capacity(shown.len() + path.len() + 32);
    if after_another {
        text.push('\n');
    }
    text.push_str("==> ");
    text.push_str(path);
    if start_line > 1 {
        text.push_str(&format!(" (from line {start_line})"));
    }
    text.push_str(" <==\n");
    text.push_str(shown);
    if !shown.is_empty() && !shown.ends_with('\n') {
        text.push('\n');
    }
    let elided = skeleton
        .elisions
        .iter()
        .filter(|e| range.contains(&usize::from(e.in_skeleton.start())))
        .map(|e| ElidedLines {
            kind: e.kind,
            start_line: e.start_line,
            end_line: e.end_line,
        })
        .collect();
    Part {
        text,
        file: SkeletonFile {
            path: path.to_string(),
            language: file.lang(db).info().id.clone(),
            start_line,
            end_line,
            file_tokens: file_tokens(db, file, encoding),
            skeleton_tokens: skeleton_tokens(db, file, encoding),
            elided,
        },
    }
}

/// The first file alone does not fit: as many of its top-level items as do from `line`
/// (or, when not even one item does, as many lines), and the line it continues at.
fn cut_file(
    db: &dyn Db,
    file: SourceFile,
    line: u32,
    budget: Budget,
    file_count: usize,
    index: usize,
) -> Option<(Part, Stop)> {
    let skeleton = file_skeleton(db, file);
    let begin = start_offset(db, file, &skeleton, line);
    let after = |offsets: &mut dyn Iterator<Item = usize>| -> Vec<usize> {
        offsets.filter(|&o| o > begin).collect()
    };
    let items = after(&mut skeleton.item_starts.iter().map(|&o| o as usize));
    let lines = after(&mut skeleton.text.match_indices('\n').map(|(i, _)| i + 1));
    let fits = |end: usize| {
        let part = part(db, file, &skeleton, begin..end, false, budget.encoding);
        let stop = match end < skeleton.text.len() {
            true => Stop {
                next: index,
                line: Some(
                    line_index(db, file)
                        .line_col(skeleton.original_offset(end))
                        .line,
                ),
            },
            false => Stop {
                next: index + 1,
                line: None,
            },
        };
        let text = render(std::slice::from_ref(&part), file_count, stop);
        budget.admits(&text).then_some((part, stop))
    };
    [items, lines]
        .iter()
        .find_map(|ends| largest_fitting(ends, &fits))
}

/// The answer for the largest of the increasing `ends` that `fits` (fewer ends fit less).
fn largest_fitting<T>(ends: &[usize], fits: &dyn Fn(usize) -> Option<T>) -> Option<T> {
    let (mut low, mut high) = (0, ends.len());
    // Invariant: ends[..low] fit, ends[high..] do not.
    while low < high {
        let mid = low + (high - low) / 2;
        if fits(ends[mid]).is_some() {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    fits(*ends.get(low.checked_sub(1)?)?)
}

/// The text of an answer showing `parts` and stopping at `stop`.
fn render(parts: &[Part], file_count: usize, stop: Stop) -> String {
    let mut text: String = parts.iter().map(|p| p.text.as_str()).collect();
    let left = file_count.saturating_sub(stop.next);
    match stop.line {
        Some(line) => text.push_str(&format!(
            "\n[cut: continue with offset {} and line {line}; {left} files left]\n",
            stop.next
        )),
        None if left > 0 => text.push_str(&format!(
            "\n[cut: continue with offset {}; {left} files left]\n",
            stop.next
        )),
        None => {}
    }
    text
}

fn answer(
    db: &dyn Db,
    files: &[SourceFile],
    parts: Vec<Part>,
    stop: Stop,
    text: String,
    unmatched_paths: Vec<String>,
    budget: Budget,
) -> SkeletonAnswer {
    let omitted_from = stop.next + usize::from(stop.line.is_some());
    let omitted = files
        .get(omitted_from..)
        .unwrap_or_default()
        .iter()
        .take(OMITTED_LISTED)
        .map(|&file| OmittedFile {
            path: file.path(db).to_string(),
            skeleton_tokens: skeleton_tokens(db, file, budget.encoding),
        })
        .collect();
    let more = stop.line.is_some() || stop.next < files.len();
    SkeletonAnswer {
        tokens: budget.encoding.count(&text),
        text,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        files: parts.into_iter().map(|p| p.file).collect(),
        file_count: files.len(),
        omitted,
        omitted_count: files.len().saturating_sub(omitted_from),
        next_offset: more.then_some(stop.next),
        next_line: stop.line,
        unmatched_paths,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_fitting_end_is_found_or_none() {
        let ends = [3, 5, 8, 13, 21];
        let under = |limit: usize| move |end: usize| (end <= limit).then_some(end);
        assert_eq!(largest_fitting(&ends, &under(14)), Some(13));
        assert_eq!(largest_fitting(&ends, &under(21)), Some(21));
        assert_eq!(largest_fitting(&ends, &under(3)), Some(3));
        assert_eq!(largest_fitting(&ends, &under(2)), None);
        assert_eq!(largest_fitting(&[], &under(100)), None);
    }

    #[test]
    fn a_cut_answer_says_where_to_continue() {
        let stop = |next, line| Stop { next, line };
        assert_eq!(render(&[], 3, stop(3, None)), "");
        assert_eq!(
            render(&[], 3, stop(1, None)),
            "\n[cut: continue with offset 1; 2 files left]\n"
        );
        assert_eq!(
            render(&[], 3, stop(1, Some(40))),
            "\n[cut: continue with offset 1 and line 40; 2 files left]\n"
        );
    }
}
