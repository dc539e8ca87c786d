//! Suppression comments, applied to a file's findings before they leave
//! [`super::file_diagnostics`]:
//!
//! - `# sextant: ignore[SX005]` / `// sextant: ignore[SX005, unused-import]` on the line a
//!   diagnostic starts on suppresses those codes there; a bare `sextant: ignore` suppresses
//!   every code on that line;
//! - `sextant: ignore-file[SX006]` (or bare `ignore-file`) in the file's first comment
//!   block (comments before any code) suppresses the codes in the whole file;
//! - in Python, `# noqa` suppresses every code on its line and `# noqa: F401, F821` the codes
//!   whose `pyflakes` rule in `codes.toml` is listed.
//!
//! A code named in a `sextant:` comment that suppressed nothing (or is not a code) is
//! reported as an unused suppression (SX013, off by default), unless the file has syntax
//! errors (then the other checks did not run, so nothing could have fired), or the code is
//! SX012 (import cycles, computed apart and filtered by [`remove_suppressed`]).
//!
//! Invariant: comments are the syntax tree's comment nodes, never text inside a string
//! literal; the text is searched first, so a file without `sextant:` or `noqa` is not
//! parsed again. Reads only the file's own text.

use std::collections::HashSet;

use super::{Diagnostic, registry};
use crate::{
    db::{Db, SourceFile},
    lang::Family,
    semantic::line_index,
    syntax::{ColumnUnit, TextRange, TextSize},
};

/// What one directive applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// `sextant: ignore`: the comment's line.
    Line,
    /// `sextant: ignore-file`, in the first comment block.
    File,
    /// `sextant: ignore-file` after the first comment block: suppresses nothing.
    MisplacedFile,
    /// `noqa`: the comment's line, by pyflakes rule.
    Noqa,
}

/// A code named in a directive, where it is written.
#[derive(Debug)]
struct Named {
    text: String,
    range: TextRange,
    /// `None`: not a code of the registry.
    id: Option<&'static str>,
}

#[derive(Debug)]
struct Directive {
    scope: Scope,
    /// 0-based line of the comment's start.
    line: u32,
    range: TextRange,
    /// `None`: every code.
    codes: Option<Vec<Named>>,
}

impl Directive {
    /// Whether the directive applies to a diagnostic of code `id` starting on `line`.
    fn covers(&self, id: &str, line: u32) -> bool {
        let here = match self.scope {
            Scope::File => true,
            Scope::Line | Scope::Noqa => self.line == line,
            Scope::MisplacedFile => false,
        };
        here && self.codes.as_ref().is_none_or(|codes| {
            codes.iter().any(|named| match self.scope {
                Scope::Noqa => registry::code(id)
                    .pyflakes
                    .as_deref()
                    .is_some_and(|rule| rule.eq_ignore_ascii_case(&named.text)),
                _ => named.id == Some(id),
            })
        })
    }
}

/// Removes the findings that comments suppress from `found`, then adds an unused
/// suppression for each code a `sextant:` comment names that suppressed nothing.
pub(super) fn apply(db: &dyn Db, file: SourceFile, found: &mut Vec<Diagnostic>) {
    let text = file.text(db).clone();
    let python = reads_noqa(file.lang(db).info().family);
    let noqa_possible = python && contains_ignore_case(&text, "noqa");
    if !text.contains("sextant:") && !noqa_possible {
        return;
    }
    let directives = directives(db, file, &text, python);
    if directives.is_empty() {
        return;
    }
    let index = line_index(db, file);
    let line_of = |offset: TextSize| index.line_column(offset.into(), ColumnUnit::Utf8).0;
    let had_syntax_errors = found
        .iter()
        .any(|d| d.id == registry::ids::SYNTAX_ERROR || d.id == registry::ids::MISSING_TOKEN);
    // (directive, code) pairs that suppressed something.
    let mut used: HashSet<(usize, &'static str)> = HashSet::new();
    found.retain(|d| {
        let line = line_of(d.range.start());
        let mut suppressed = false;
        for (i, directive) in directives.iter().enumerate() {
            if directive.covers(d.id, line) {
                used.insert((i, d.id));
                suppressed = true;
            }
        }
        !suppressed
    });
    if had_syntax_errors {
        return;
    }
    let lang = file.lang(db).info();
    let mut unused = Vec::new();
    for (i, directive) in directives.iter().enumerate() {
        if directive.scope == Scope::Noqa {
            continue;
        }
        if directive.scope == Scope::MisplacedFile {
            unused.push(Diagnostic::new(
                registry::ids::UNUSED_SUPPRESSION,
                directive.range,
                "unused suppression: `sextant: ignore-file` applies only in the file's first \
                 comment block"
                    .into(),
            ));
            continue;
        }
        for named in directive.codes.iter().flatten() {
            let message = match named.id {
                None => format!(
                    "unused suppression: {:?} is not a sextant code (see `sextant explain`)",
                    named.text
                ),
                Some(id) if used.contains(&(i, id)) => continue,
                // A code not checked in this language yet may be suppressed ahead of time.
                Some(id) if id == registry::ids::UNUSED_SUPPRESSION => continue,
                // Import cycles are computed only when selected (`cycles.rs`), apart from
                // the findings here: whether their suppression was used is not known.
                Some(id) if id == registry::ids::IMPORT_CYCLE => continue,
                Some(id) if !registry::code(id).is_implemented_for(lang) => continue,
                Some(id) => {
                    let code = registry::code(id);
                    let place = match directive.scope {
                        Scope::File => "in this file",
                        _ => "on this line",
                    };
                    format!(
                        "unused suppression: {id} ({}) is not reported {place}",
                        code.name
                    )
                }
            };
            unused.push(Diagnostic::new(
                registry::ids::UNUSED_SUPPRESSION,
                named.range,
                message,
            ));
        }
    }
    // An unused suppression can itself be suppressed, by the file or by a bare `ignore`.
    unused.retain(|d| {
        let line = line_of(d.range.start());
        !directives
            .iter()
            .any(|directive| directive.scope != Scope::Noqa && directive.covers(d.id, line))
    });
    found.extend(unused);
}

/// Removes the findings that comments suppress from `found`, and adds nothing: for codes
/// computed apart from [`super::file_diagnostics`] (import cycles, on demand).
pub(super) fn remove_suppressed<T>(
    db: &dyn Db,
    file: SourceFile,
    found: &mut Vec<T>,
    diagnostic: impl Fn(&T) -> &Diagnostic,
) {
    let text = file.text(db).clone();
    let python = reads_noqa(file.lang(db).info().family);
    let noqa_possible = python && contains_ignore_case(&text, "noqa");
    if found.is_empty() || (!text.contains("sextant:") && !noqa_possible) {
        return;
    }
    let directives = directives(db, file, &text, python);
    let index = line_index(db, file);
    found.retain(|item| {
        let d = diagnostic(item);
        let line = index
            .line_column(d.range.start().into(), ColumnUnit::Utf8)
            .0;
        !directives
            .iter()
            .any(|directive| directive.covers(d.id, line))
    });
}

fn contains_ignore_case(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Whether the language's files may carry flake8's `# noqa` comments, which sextant honours
/// too.
fn reads_noqa(family: Family) -> bool {
    match family {
        Family::Python => true,
        Family::Ecma { .. } | Family::Go | Family::Rust => false,
    }
}

/// Every suppression directive in the file's comments, in document order.
fn directives(db: &dyn Db, file: SourceFile, text: &str, python: bool) -> Vec<Directive> {
    let comments = comments(db, file);
    let index = line_index(db, file);
    let mut out = Vec::new();
    // The first comment block: comments with nothing but whitespace and comments before.
    let mut header_end = 0usize;
    let mut in_header = true;
    for range in comments {
        if in_header && !text[header_end..range.start].trim().is_empty() {
            in_header = false;
        }
        header_end = range.end;
        let line = index.line_column(range.start, ColumnUnit::Utf8).0;
        let comment = &text[range.clone()];
        for mut directive in sextant_directives(comment, range.start) {
            if directive.scope == Scope::File && !in_header {
                directive.scope = Scope::MisplacedFile;
            }
            directive.line = line;
            out.push(directive);
        }
        if python && let Some(mut directive) = noqa_directive(comment, range.start) {
            directive.line = line;
            out.push(directive);
        }
    }
    out
}

/// The byte ranges of the file's comments, from its syntax tree, in document order.
fn comments(db: &dyn Db, file: SourceFile) -> Vec<std::ops::Range<usize>> {
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let is_comment = node.is_named() && node.kind().ends_with("comment");
        if is_comment {
            out.push(node.byte_range());
        }
        if !is_comment && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

fn range_at(start: usize, len: usize) -> TextRange {
    TextRange::at(TextSize::new(start as u32), TextSize::new(len as u32))
}

/// The `sextant: ignore[…]` and `sextant: ignore-file[…]` directives of one comment
/// starting at byte `base`.
fn sextant_directives(comment: &str, base: usize) -> Vec<Directive> {
    const MARKER: &str = "sextant:";
    let mut out = Vec::new();
    let mut searched = 0;
    while let Some(found) = comment[searched..].find(MARKER) {
        let start = searched + found;
        searched = start + MARKER.len();
        let after = &comment[searched..];
        let trimmed = after.trim_start();
        let mut at = searched + (after.len() - trimmed.len());
        let scope = if trimmed.starts_with("ignore-file") {
            at += "ignore-file".len();
            Scope::File
        } else if trimmed.starts_with("ignore") {
            at += "ignore".len();
            Scope::Line
        } else {
            continue;
        };
        let rest = &comment[at..];
        // `ignore` must end there (`ignored` is a word, not a directive).
        if rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            continue;
        }
        let codes = match rest.strip_prefix('[') {
            None => None,
            Some(list) => {
                // An unclosed list is not a directive: it would otherwise suppress all.
                let Some(close) = list.find(']') else {
                    continue;
                };
                let list_start = at + 1;
                let mut codes = Vec::new();
                let mut offset = 0;
                for entry in list[..close].split(',') {
                    let trimmed = entry.trim();
                    let lead = entry.len() - entry.trim_start().len();
                    if !trimmed.is_empty() {
                        codes.push(Named {
                            text: trimmed.to_string(),
                            range: range_at(base + list_start + offset + lead, trimmed.len()),
                            id: registry::find(trimmed).map(|c| c.id.as_str()),
                        });
                    }
                    offset += entry.len() + 1;
                }
                at = list_start + close + 1;
                Some(codes)
            }
        };
        out.push(Directive {
            scope,
            line: 0,
            range: range_at(base + start, at - start),
            codes,
        });
        searched = at;
    }
    out
}

/// A Python comment's `noqa` directive (`# noqa`, `# noqa: F401,F811`), as flake8 and ruff
/// read it: `#`, optional spaces, `noqa` in any case, then optionally `:` and rule codes.
fn noqa_directive(comment: &str, base: usize) -> Option<Directive> {
    let mut searched = 0;
    while let Some(found) = find_ignore_case(&comment[searched..], "noqa") {
        let start = searched + found;
        searched = start + 4;
        let before = comment[..start].trim_end_matches([' ', '\t']);
        if !before.ends_with('#') {
            continue;
        }
        let rest = &comment[searched..];
        if rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let mut end = searched;
        let codes = rest.strip_prefix(':').map(|list| {
            let mut codes = Vec::new();
            let mut i = 0;
            let list_bytes = list.as_bytes();
            loop {
                while i < list_bytes.len() && matches!(list_bytes[i], b' ' | b'\t' | b',') {
                    i += 1;
                }
                let code_start = i;
                while i < list_bytes.len() && list_bytes[i].is_ascii_uppercase() {
                    i += 1;
                }
                let letters = i - code_start;
                while i < list_bytes.len() && list_bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if letters == 0 || i - code_start == letters {
                    break;
                }
                let text = &list[code_start..i];
                codes.push(Named {
                    text: text.to_string(),
                    range: range_at(base + searched + 1 + code_start, text.len()),
                    id: None,
                });
                end = searched + 1 + i;
            }
            codes
        });
        // `# noqa:` with no codes after it is a blanket `noqa`, as flake8 reads it.
        let codes = codes.filter(|c| !c.is_empty());
        return Some(Directive {
            scope: Scope::Noqa,
            line: 0,
            range: range_at(base + start, end - start),
            codes,
        });
    }
    None
}

fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(d: &Directive) -> Option<Vec<&str>> {
        d.codes
            .as_ref()
            .map(|c| c.iter().map(|n| n.text.as_str()).collect())
    }

    #[test]
    fn sextant_directives_are_read_with_their_code_ranges() {
        let comment = "# type: ignore  # sextant: ignore[SX005,  unused-import] trailing";
        let found = sextant_directives(comment, 10);
        assert_eq!(found.len(), 1);
        let d = &found[0];
        assert_eq!(d.scope, Scope::Line);
        assert_eq!(codes(d), Some(vec!["SX005", "unused-import"]));
        let named = d.codes.as_ref().unwrap();
        let at = |r: TextRange| &comment[usize::from(r.start()) - 10..usize::from(r.end()) - 10];
        assert_eq!(at(named[0].range), "SX005");
        assert_eq!(at(named[1].range), "unused-import");
        assert_eq!(named[1].id, Some("SX006"));
        assert_eq!(at(d.range), "sextant: ignore[SX005,  unused-import]");

        let bare = sextant_directives("// sextant: ignore", 0);
        assert_eq!((bare[0].scope, codes(&bare[0])), (Scope::Line, None));
        let file = sextant_directives("# sextant:ignore-file[SX006]", 0);
        assert_eq!(file[0].scope, Scope::File);
        assert_eq!(codes(&file[0]), Some(vec!["SX006"]));
        for not_a_directive in [
            "# sextant: ignored here",
            "# sextant: ignore[SX005",
            "# sextant: check this",
            "# sextant ignore[SX005]",
        ] {
            assert!(
                sextant_directives(not_a_directive, 0).is_empty(),
                "{not_a_directive}"
            );
        }
    }

    #[test]
    fn noqa_is_read_as_flake8_reads_it() {
        let d = noqa_directive("# noqa", 0).unwrap();
        assert_eq!(codes(&d), None);
        let d = noqa_directive("# NOQA:F401,F811 because", 0).unwrap();
        assert_eq!(codes(&d), Some(vec!["F401", "F811"]));
        let d = noqa_directive("#noqa: E501 F401", 0).unwrap();
        assert_eq!(codes(&d), Some(vec!["E501", "F401"]));
        let d = noqa_directive("# type: int  # noqa: F821", 0).unwrap();
        assert_eq!(codes(&d), Some(vec!["F821"]));
        assert_eq!(codes(&noqa_directive("# noqa:", 0).unwrap()), None);
        assert!(noqa_directive("# see noqa docs", 0).is_none());
        assert!(noqa_directive("# noqaz", 0).is_none());
    }
}
