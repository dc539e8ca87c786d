//! Symbol-level edits: replace a definition's body or the whole definition, insert text
//! before or after it, or delete it, with the definition named as `read_symbol` names it,
//! so an agent never does the line arithmetic most failed patches come from.
//!
//! Invariant: an edit is a patch underneath: its change is rendered as a unified diff of
//! the file and parsed back into a [`Patch`], which the caller previews, checks and writes
//! as any patch ([`super::patch`]), so the same checks and the same writer apply. The new
//! text is re-indented to where it goes: its common indentation is removed and the place's
//! added (the definition's for a definition, the body's for a body). A name naming several
//! definitions is refused with the candidates; `delete` is refused while exact references
//! to the definition remain outside it, unless forced.

use serde::{Deserialize, Serialize};

use super::{
    Ambiguity, Candidate, ErrorCode, Failure, Patch, PatchFormat, ReferenceQuery, parse_patch,
    unified_diff,
};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::extent::definition_extent,
    ide::{
        navigation,
        read::pieces::{ambiguity, definition_sites, file_at, innermost_symbol},
    },
    semantic::{self, symbols::file_symbols},
    syntax::TextRange,
};

/// What to do to the definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolEditKind {
    /// Replace what is inside the body (between the braces, or a Python block).
    ReplaceBody,
    /// Replace the definition with its comments, decorators and attributes.
    ReplaceDefinition,
    /// Insert the text before the definition (before its comments and decorators).
    InsertBefore,
    /// Insert the text after the definition.
    InsertAfter,
    /// Remove the definition with its comments, decorators and attributes.
    Delete,
}

/// The definition an edit starts from.
#[derive(Clone, Debug)]
pub enum SymbolEditTarget {
    /// `f`, `module.f`, `Class.method`, `Type::method`; `path_prefix` narrows the search.
    Name {
        name: String,
        path_prefix: Option<String>,
    },
    /// The innermost definition around a byte offset of a file.
    Position { path: String, offset: usize },
}

/// A symbol edit as a patch, and where it applies.
#[derive(Clone, Debug)]
pub struct SymbolEdit {
    pub patch: Patch,
    pub path: String,
    /// The definition's kind and qualified name (`function geo.area`).
    pub definition: String,
    /// 1-based lines of the definition with what belongs to it.
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Clone, Debug, thiserror::Error)]
pub enum SymbolEditError {
    #[error("{0}")]
    NotFound(String),
    #[error("`{}` names {} definitions; name one by `path` and `line`", .0.name, .0.candidates.len())]
    Ambiguous(Ambiguity),
    #[error("{0} has no body to replace")]
    NoBody(String),
    /// `delete` of a definition still used; the places are listed.
    #[error("{definition} is still used in {} place{}; remove the uses first, or force the delete", .references.len(), if .references.len() == 1 { "" } else { "s" })]
    StillReferenced {
        definition: String,
        references: Vec<Candidate>,
    },
    #[error("{0}")]
    InvalidText(String),
}

impl Failure for SymbolEditError {
    fn code(&self) -> ErrorCode {
        match self {
            SymbolEditError::NotFound(_) => ErrorCode::NoSymbol,
            SymbolEditError::Ambiguous(_) => ErrorCode::AmbiguousSymbol,
            SymbolEditError::NoBody(_) => ErrorCode::InvalidArgument,
            SymbolEditError::StillReferenced { .. } => ErrorCode::StillReferenced,
            SymbolEditError::InvalidText(_) => ErrorCode::InvalidArgument,
        }
    }
}

/// The definition `target` names: its file and the index of its symbol (impact shares it).
pub(crate) fn definition(
    db: &dyn Db,
    workspace: Workspace,
    target: &SymbolEditTarget,
) -> Result<(SourceFile, usize), SymbolEditError> {
    let (file, offset) = match target {
        SymbolEditTarget::Position { path, offset } => {
            let file = file_at(db, workspace, path)
                .ok_or_else(|| SymbolEditError::NotFound(format!("{path} is not indexed")))?;
            (file, *offset)
        }
        SymbolEditTarget::Name { name, path_prefix } => {
            match definition_sites(db, workspace, name, path_prefix.as_deref()).as_slice() {
                [] => {
                    let message = format!("no definition named `{name}`");
                    return Err(SymbolEditError::NotFound(message));
                }
                [(file, offset, _)] => (*file, *offset),
                sites => return Err(SymbolEditError::Ambiguous(ambiguity(db, name, sites))),
            }
        }
    };
    match innermost_symbol(db, file, offset) {
        Some(i) => Ok((file, i)),
        None => Err(SymbolEditError::NotFound(format!(
            "no definition at {}:{}",
            file.path(db),
            semantic::line_index(db, file).line_col(offset).line
        ))),
    }
}

/// The edit `kind` with `text` of the definition `target` names, as a patch.
pub(crate) fn edit_symbol(
    db: &dyn Db,
    workspace: Workspace,
    target: &SymbolEditTarget,
    kind: SymbolEditKind,
    text: &str,
    force: bool,
) -> Result<SymbolEdit, SymbolEditError> {
    let (file, symbol) = definition(db, workspace, target)?;
    let symbols = file_symbols(db, file);
    let position = &symbols.positions[symbol];
    let summary = &symbols.summaries[symbol];
    let label = format!("{} {}", summary.kind.as_str(), summary.qualified_name());
    let source = &*file.text(db);
    let extent = definition_extent(db, file, position.range);
    let (start, end) = (usize::from(extent.start()), usize::from(extent.end()));
    let line_start = source[..start].rfind('\n').map_or(0, |at| at + 1);
    let indent = leading_blanks(&source[line_start..]);
    let line_end = source[end..]
        .find('\n')
        .map_or(source.len(), |at| end + at + 1);
    let eol = if source.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };

    let mut new = String::with_capacity(source.len() + text.len());
    match kind {
        SymbolEditKind::ReplaceDefinition => {
            new.push_str(&source[..start]);
            new.push_str(reindented(text, indent, eol).trim_start_matches([' ', '\t']));
            new.push_str(&source[end..]);
        }
        SymbolEditKind::InsertBefore => {
            new.push_str(&source[..line_start]);
            new.push_str(&reindented(text, indent, eol));
            new.push_str(eol);
            new.push_str(eol);
            new.push_str(&source[line_start..]);
        }
        SymbolEditKind::InsertAfter => {
            new.push_str(&source[..line_end]);
            if !source[..line_end].ends_with('\n') {
                new.push_str(eol);
            }
            new.push_str(eol);
            new.push_str(&reindented(text, indent, eol));
            new.push_str(eol);
            new.push_str(&source[line_end..]);
        }
        SymbolEditKind::Delete => {
            if !force {
                let references = outside_uses(db, workspace, file, position.name_range, extent);
                if !references.is_empty() {
                    return Err(SymbolEditError::StillReferenced {
                        definition: label,
                        references,
                    });
                }
            }
            // A blank line left on both sides of the definition becomes one.
            let mut cut_end = line_end;
            let blank_before = source[..line_start].ends_with("\n\n")
                || source[..line_start].ends_with("\n\r\n")
                || line_start == 0;
            if blank_before {
                while let Some(rest) = source[cut_end..].strip_prefix(eol) {
                    cut_end = source.len() - rest.len();
                }
            }
            // At the end of the file, the blank lines before it go too.
            let mut cut_start = line_start;
            if source[cut_end..].trim().is_empty() {
                while source[..cut_start].ends_with("\n\n")
                    || source[..cut_start].ends_with("\n\r\n")
                {
                    cut_start = source[..cut_start - 1].rfind('\n').map_or(0, |at| at + 1);
                }
            }
            new.push_str(&source[..cut_start]);
            new.push_str(&source[cut_end..]);
        }
        SymbolEditKind::ReplaceBody => {
            let body = body_range(db, file, position.range)
                .ok_or_else(|| SymbolEditError::NoBody(label.clone()))?;
            let (body_start, body_end) = (usize::from(body.start()), usize::from(body.end()));
            let braced = source[body_start..].starts_with('{') && source[..body_end].ends_with('}');
            if braced {
                let inner_indent = body_indent(source, body_start + 1, body_end - 1, indent);
                new.push_str(&source[..=body_start]);
                new.push_str(eol);
                new.push_str(&reindented(text, &inner_indent, eol));
                new.push_str(eol);
                new.push_str(indent);
                new.push_str(&source[body_end - 1..]);
            } else {
                // A Python block starts at its first statement, after its indentation.
                let body_line = source[..body_start].rfind('\n').map_or(0, |at| at + 1);
                let inner_indent = match source[body_line..body_start].trim().is_empty() {
                    true => source[body_line..body_start].to_string(),
                    false => format!("{indent}    "),
                };
                let body_text = reindented(text, &inner_indent, eol);
                if source[body_line..body_start].trim().is_empty() {
                    new.push_str(&source[..body_line]);
                    new.push_str(&body_text);
                } else {
                    new.push_str(source[..body_start].trim_end_matches([' ', '\t']));
                    new.push_str(eol);
                    new.push_str(&body_text);
                }
                new.push_str(&source[body_end..]);
            }
        }
    }
    if kind != SymbolEditKind::Delete && text.trim().is_empty() {
        return Err(SymbolEditError::InvalidText(
            "`text` is empty; to remove the definition, delete it".into(),
        ));
    }
    let path = file.path(db).clone();
    let diff = unified_diff(&path, source, &new);
    let patch = parse_patch(&diff, PatchFormat::Unified).map_err(|error| {
        SymbolEditError::InvalidText(format!("the edit cannot be made as a patch: {error}"))
    })?;
    let index = semantic::line_index(db, file);
    Ok(SymbolEdit {
        patch,
        path,
        definition: label,
        start_line: index.line_col(start).line,
        end_line: index.line_col(end.saturating_sub(1).max(start)).line,
    })
}

/// The exact uses of the definition named at `name` that lie outside `extent`.
fn outside_uses(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: TextRange,
    extent: TextRange,
) -> Vec<Candidate> {
    let query = ReferenceQuery {
        include_family: false,
        exact_only: true,
        exclude_definitions: true,
        path_prefix: None,
        limit: usize::MAX,
    };
    let found = navigation::references(db, workspace, file, usize::from(name.start()), &query);
    let path = file.path(db);
    found
        .references
        .iter()
        .filter(|r| {
            let inside = &r.path == path
                && extent.contains_inclusive((r.span.byte_start).into())
                && extent.contains_inclusive((r.span.byte_end).into());
            !inside
        })
        .map(|r| Candidate {
            path: r.path.clone(),
            root: None,
            line: r.span.start.line,
            kind: format!("{:?}", r.role).to_lowercase(),
        })
        .collect()
}

/// The definition's `body` field node (a block, a class or impl body), when it has one.
fn body_range(db: &dyn Db, file: SourceFile, definition: TextRange) -> Option<TextRange> {
    let tree = semantic::file_tree(db, file);
    let tree = tree.as_ref()?;
    let (start, end) = (
        usize::from(definition.start()),
        usize::from(definition.end()),
    );
    let mut node = tree.root_node().descendant_for_byte_range(start, end)?;
    // The smallest node spanning the definition may be one of several with that range.
    while node.start_byte() == start && node.end_byte() == end {
        if let Some(body) = node.child_by_field_name("body") {
            return Some(TextRange::new(
                (body.start_byte() as u32).into(),
                (body.end_byte() as u32).into(),
            ));
        }
        node = node.parent()?;
    }
    None
}

/// The indentation of the first non-blank line between `start` and `end` (a braced body's
/// inside); the definition's indentation and four spaces (a tab where it uses tabs) when
/// the body is empty or on one line.
fn body_indent(source: &str, start: usize, end: usize, indent: &str) -> String {
    let inside = &source[start..end];
    let found = inside
        .split('\n')
        .skip(1)
        .find(|line| !line.trim().is_empty())
        .map(leading_blanks);
    match found {
        Some(blanks) if blanks.len() > indent.len() => blanks.to_string(),
        _ if indent.starts_with('\t') => format!("{indent}\t"),
        _ => format!("{indent}    "),
    }
}

fn leading_blanks(line: &str) -> &str {
    let width = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..width]
}

/// `text` with its common indentation removed and `indent` put before each non-blank line,
/// lines joined by `eol`, no line break at the end.
fn reindented(text: &str, indent: &str, eol: &str) -> String {
    let lines: Vec<&str> = text
        .trim_matches(|c| c == '\n' || c == '\r')
        .lines()
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    let common = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| leading_blanks(line).len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|line| match line.trim().is_empty() {
            true => String::new(),
            false => format!("{indent}{}", &line[common..]),
        })
        .collect::<Vec<_>>()
        .join(eol)
}

#[cfg(test)]
mod tests {
    use super::reindented;

    #[test]
    fn text_is_moved_to_the_indentation_of_its_place() {
        let text = "\n        if x:\n            return 1\n\n        return 2\n";
        assert_eq!(
            reindented(text, "    ", "\n"),
            "    if x:\n        return 1\n\n    return 2"
        );
        assert_eq!(reindented("a\nb", "\t", "\r\n"), "\ta\r\n\tb");
    }
}
