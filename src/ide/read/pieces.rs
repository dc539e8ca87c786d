//! The pieces of a `read` answer: what each target names, rendered as a header line and
//! its lines (code in a fenced block, or a file's definitions one per line).

use super::{Ambiguity, Candidate, PieceInfo, ReadRequest, ReadTarget};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        extent::definition_extent,
        search::NameScope,
        tokens::{Budget, Encoding, definition_tokens, file_tokens},
    },
    ide::{SymbolKind, navigation},
    semantic::{self, symbols::file_symbols},
    syntax::LineIndex,
};

/// What a target names.
pub(crate) enum Found {
    Piece(Piece),
    Ambiguous(Ambiguity),
    Missing(String),
}

/// A header line and body lines, each body line with the file line it stands for (for a
/// file's directory, the line its definition starts on): the unit a piece is cut by.
pub(crate) struct Piece {
    path: String,
    /// In a read across several workspaces: the one holding `path`, which the header names.
    root: Option<String>,
    kind: Option<SymbolKind>,
    name: Option<String>,
    /// A code piece's header ends with this (`function area`); a directory's is all of it.
    header: String,
    /// The piece continues one an earlier answer cut.
    continued: bool,
    /// The language id of a code block, or `None` for a directory.
    fence_language: Option<&'static str>,
    body: Vec<(u32, String)>,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) text: String,
}

impl Piece {
    fn new(
        path: String,
        header: String,
        fence_language: Option<&'static str>,
        body: Vec<(u32, String)>,
    ) -> Piece {
        let start_line = body.first().map_or(1, |(line, _)| *line);
        let end_line = body.last().map_or(start_line, |(line, _)| *line);
        let mut piece = Piece {
            path,
            root: None,
            kind: None,
            name: None,
            header,
            continued: false,
            fence_language,
            body,
            start_line,
            end_line,
            text: String::new(),
        };
        piece.text = piece.render(piece.body.len());
        piece
    }

    /// The header and the first `lines` body lines: a code piece's header names the lines
    /// given.
    fn render(&self, lines: usize) -> String {
        let body = &self.body[..lines];
        let mut text = self
            .root
            .as_ref()
            .map(|root| format!("[{root}] "))
            .unwrap_or_default();
        text += &match (self.fence_language, body.first(), body.last()) {
            (Some(_), Some((first, _)), Some((last, _))) => {
                format!("{}:{first}-{last}{}", self.path, self.header)
            }
            (Some(_), _, _) => format!("{}:{}{}", self.path, self.start_line, self.header),
            (None, _, _) => self.header.clone(),
        };
        if self.continued {
            text.push_str(" (continued)");
        }
        text.push('\n');
        match self.fence_language {
            Some(language) => {
                let fence = fence_for(body.iter().map(|(_, line)| line.as_str()));
                text.push_str(&format!("{fence}{language}\n"));
                for (_, line) in body {
                    text.push_str(line);
                    text.push('\n');
                }
                text.push_str(&fence);
                text.push('\n');
            }
            None => {
                for (_, line) in body {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
        text
    }

    /// Names `root` as the workspace holding the piece, in its header too.
    pub(crate) fn set_root(&mut self, root: &str) {
        self.root = Some(root.to_string());
        self.text = self.render(self.body.len());
    }

    /// The piece's parts, for answers laid out otherwise than `read`'s (a pack's styles).
    pub(crate) fn block(&self) -> Block {
        Block {
            path: self.path.clone(),
            start_line: self.start_line,
            end_line: self.end_line,
            kind: self.kind,
            name: self.name.clone(),
            language: self.fence_language.unwrap_or(""),
            code: self
                .body
                .iter()
                .map(|(_, line)| format!("{line}\n"))
                .collect(),
        }
    }

    /// Whether `info` describes the same lines of the same file (asked for twice, by name
    /// and by position, say).
    pub(crate) fn repeats(&self, info: &PieceInfo) -> bool {
        info.path == self.path
            && info.root == self.root
            && info.start_line == self.start_line
            && info.end_line == self.end_line
    }

    pub(crate) fn info(&self, target: usize, encoding: Encoding) -> PieceInfo {
        PieceInfo {
            target,
            path: self.path.clone(),
            root: self.root.clone(),
            kind: self.kind,
            name: self.name.clone(),
            start_line: self.start_line,
            end_line: self.end_line,
            tokens: encoding.count(&self.text),
            cut: false,
        }
    }

    /// The longest start of the piece (at least one body line) that fits in `budget` after
    /// `before`; `None` when not even one line does.
    pub(crate) fn cut_to_fit(&self, budget: &Budget, before: &str) -> Option<CutPiece> {
        let fits = |lines: usize| {
            let text = self.render(lines);
            budget
                .admits(&super::joined(&[before.to_string()], Some(&text)))
                .then_some(text)
        };
        if self.body.is_empty() {
            return None;
        }
        fits(1)?;
        let (mut low, mut high) = (1, self.body.len());
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            if fits(mid).is_some() {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        let text = fits(low)?;
        Some(CutPiece {
            info: PieceInfo {
                target: 0,
                path: self.path.clone(),
                root: self.root.clone(),
                kind: self.kind,
                name: self.name.clone(),
                start_line: self.start_line,
                end_line: self.body[low - 1].0,
                tokens: 0,
                cut: low < self.body.len(),
            },
            end_line: self.body[low - 1].0,
            text,
        })
    }
}

/// A piece's parts: where its lines are, what they define, and the code itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) path: String,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) kind: Option<SymbolKind>,
    pub(crate) name: Option<String>,
    pub(crate) language: &'static str,
    /// The lines, each ending with a line break.
    pub(crate) code: String,
}

/// The start of a piece too large for the budget.
pub(crate) struct CutPiece {
    info: PieceInfo,
    pub(crate) end_line: u32,
    pub(crate) text: String,
}

impl CutPiece {
    pub(crate) fn info(&self, target: usize, encoding: Encoding) -> PieceInfo {
        PieceInfo {
            target,
            tokens: encoding.count(&self.text),
            ..self.info.clone()
        }
    }
}

/// A code fence longer than any run of backticks in `texts` (lines or whole blocks alike).
pub(crate) fn fence_for<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    let longest = texts.map(longest_backtick_run).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The longest run of backticks in `text`; found by jumping between backticks, since most
/// code has none and packs fence whole files.
fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut at) = (0, 0);
    while let Some(found) = text[at..].find('`') {
        let start = at + found;
        let run = text[start..].bytes().take_while(|&b| b == b'`').count();
        longest = longest.max(run);
        at = start + run;
    }
    longest
}

pub(crate) fn piece(
    db: &dyn Db,
    workspace: Workspace,
    request: &ReadRequest,
    target: &ReadTarget,
    from_line: Option<u32>,
) -> Found {
    let context = request.context_lines;
    let piece = match target {
        ReadTarget::Symbol(name) => {
            return named(db, workspace, request, name, from_line).0;
        }
        ReadTarget::At { file, offset } => at_offset(db, file.0, *offset, context),
        ReadTarget::Line { file, line } => {
            let offset = first_code_offset(db, file.0, *line);
            at_offset(db, file.0, offset, context)
        }
        ReadTarget::Lines { file, start, end } => lines(db, file.0, *start, *end, None),
        ReadTarget::File(file) => lines(db, file.0, 1, u32::MAX, None),
        ReadTarget::Directory(file) => directory(db, file.0, request.budget.encoding),
    };
    Found::Piece(resumed(piece, from_line))
}

/// The piece from `from_line` on (a cursor's line), or whole without one or with one at
/// its first line (a target an earlier answer left out whole, not one it cut).
fn resumed(piece: Piece, from_line: Option<u32>) -> Piece {
    let Some(from) = from_line.filter(|&from| from > piece.start_line) else {
        return piece;
    };
    let body: Vec<(u32, String)> = piece
        .body
        .into_iter()
        .filter(|(line, _)| *line >= from)
        .collect();
    let mut resumed = Piece::new(piece.path, piece.header, piece.fence_language, body);
    resumed.root = piece.root;
    resumed.kind = piece.kind;
    resumed.name = piece.name;
    resumed.continued = true;
    resumed.text = resumed.render(resumed.body.len());
    resumed
}

/// What a name target names (from `from_line` on, a cursor's line), and the definition as
/// a candidate when it names exactly one.
pub(crate) fn named(
    db: &dyn Db,
    workspace: Workspace,
    request: &ReadRequest,
    name: &str,
    from_line: Option<u32>,
) -> (Found, Option<Candidate>) {
    let prefix = request.path_prefix.as_deref();
    let sites = definition_sites_in(db, workspace, name, prefix, request.names);
    let found = match by_sites(db, name, &sites, request.context_lines) {
        Some(Found::Piece(piece)) => Found::Piece(resumed(piece, from_line)),
        Some(found) => found,
        None => Found::Missing(name.to_string()),
    };
    let candidate = match sites.as_slice() {
        [_] => ambiguity(db, name, &sites).candidates.pop(),
        _ => None,
    };
    (found, candidate)
}

/// The definition `name` names, with what belongs to it and no context lines.
pub(crate) fn definition_named(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
) -> Found {
    by_name(db, workspace, name, path_prefix, 0).unwrap_or_else(|| Found::Missing(name.to_string()))
}

/// A whole file.
pub(crate) fn whole_file(db: &dyn Db, file: SourceFile) -> Piece {
    lines(db, file, 1, u32::MAX, None)
}

/// How many lines `file` has, a last one without a line break included.
fn lines_in(db: &dyn Db, file: SourceFile) -> u32 {
    // The line index counts the empty line after a final line break.
    let starts = semantic::line_index(db, file).line_count() as u32;
    match file.text(db).ends_with('\n') {
        true => starts - 1,
        false => starts,
    }
}

/// A whole file as a block: [`whole_file`]'s `block()`, without splitting the text into
/// lines when it has no carriage return (a pack of many files asks for this each time).
pub(crate) fn whole_file_block(db: &dyn Db, file: SourceFile) -> Block {
    let text = &*file.text(db);
    if text.contains('\r') {
        return whole_file(db, file).block();
    }
    let mut code = text.to_string();
    if !code.is_empty() && !code.ends_with('\n') {
        code.push('\n');
    }
    Block {
        path: file.path(db).clone(),
        start_line: 1,
        end_line: lines_in(db, file).max(1),
        kind: None,
        name: None,
        language: file.lang(db).info().id.as_str(),
        code,
    }
}

/// The definition a name names; candidates when it names several; `None` when none.
fn by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
    context: u32,
) -> Option<Found> {
    by_sites(
        db,
        name,
        &definition_sites(db, workspace, name, path_prefix),
        context,
    )
}

/// The definition at the one site a name names; candidates when it names several; `None`
/// when none.
fn by_sites(
    db: &dyn Db,
    name: &str,
    sites: &[(SourceFile, usize, String)],
    context: u32,
) -> Option<Found> {
    match sites {
        [] => None,
        [(file, offset, _)] => Some(Found::Piece(at_offset(db, *file, *offset, context))),
        sites => Some(Found::Ambiguous(ambiguity(db, name, sites))),
    }
}

/// Where the definitions `name` names are: each file, the byte offset of its name, and its
/// kind, once each.
pub(crate) fn definition_sites(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
) -> Vec<(SourceFile, usize, String)> {
    definition_sites_in(db, workspace, name, path_prefix, NameScope::Workspace)
}

/// [`definition_sites`] in the files `scope` says.
pub(crate) fn definition_sites_in(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
    scope: NameScope,
) -> Vec<(SourceFile, usize, String)> {
    let mut sites: Vec<(SourceFile, usize, String)> = Vec::new();
    for definition in navigation::definition_by_name(db, workspace, name, path_prefix, scope) {
        let (Some(path), Some(span)) = (&definition.path, definition.span) else {
            continue;
        };
        let Some(file) = file_at(db, workspace, path) else {
            continue;
        };
        let site = (file, span.byte_start as usize, definition.kind);
        if !sites.iter().any(|s| s.0 == site.0 && s.1 == site.1) {
            sites.push(site);
        }
    }
    sites
}

/// `name` naming each of `sites`, as candidates to choose from.
pub(crate) fn ambiguity(
    db: &dyn Db,
    name: &str,
    sites: &[(SourceFile, usize, String)],
) -> Ambiguity {
    Ambiguity {
        name: name.to_string(),
        candidates: sites
            .iter()
            .map(|(file, offset, kind)| Candidate {
                path: file.path(db).clone(),
                root: None,
                line: semantic::line_index(db, *file).line_col(*offset).line,
                kind: kind.clone(),
            })
            .collect(),
    }
}

pub(crate) use crate::db::file_at;

/// The index (in `file_symbols`) of the innermost definition whose range holds `offset`.
pub(crate) fn innermost_symbol(db: &dyn Db, file: SourceFile, offset: usize) -> Option<usize> {
    file_symbols(db, file)
        .positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.range.contains_inclusive((offset as u32).into()))
        .min_by_key(|(_, p)| p.range.len())
        .map(|(i, _)| i)
}

/// The innermost definition around `offset` with its extent and `context` lines around;
/// the line of `offset` alone when no definition holds it.
fn at_offset(db: &dyn Db, file: SourceFile, offset: usize, context: u32) -> Piece {
    let symbols = file_symbols(db, file);
    let innermost = innermost_symbol(db, file, offset).map(|i| (i, &symbols.positions[i]));
    let index = semantic::line_index(db, file);
    let Some((i, position)) = innermost else {
        let line = index.line_col(offset).line;
        return lines(db, file, line.saturating_sub(context), line + context, None);
    };
    let extent = definition_extent(db, file, position.range);
    let start = index.line_col(extent.start().into()).line;
    let end = last_line(&index, extent.end().into());
    let summary = &symbols.summaries[i];
    let label = format!("{} {}", summary.kind.as_str(), summary.qualified_name());
    let mut piece = lines(
        db,
        file,
        start.saturating_sub(context),
        end.saturating_add(context),
        Some(&label),
    );
    piece.kind = Some(summary.kind);
    piece.name = Some(summary.qualified_name());
    piece
}

/// The offset of the first character of 1-based `line` that is not a space or a tab (the
/// line's end when there is none; the text's end past the last line).
fn first_code_offset(db: &dyn Db, file: SourceFile, line: u32) -> usize {
    let index = semantic::line_index(db, file);
    let start = index.offset(line.saturating_sub(1), 0, crate::syntax::ColumnUnit::Chars);
    let rest = &file.text(db)[start..];
    start + (rest.len() - rest.trim_start_matches([' ', '\t']).len())
}

/// The line a range ending at `end` ends on (a range ending just after a newline ends on
/// the line before).
fn last_line(index: &LineIndex, end: usize) -> u32 {
    let position = index.line_col(end);
    if position.column == 1 && position.line > 1 {
        position.line - 1
    } else {
        position.line
    }
}

/// Lines `start..=end` (1-based, clamped to the file) as a code block, headed by the path,
/// the lines given and `label`.
fn lines(db: &dyn Db, file: SourceFile, start: u32, end: u32, label: Option<&str>) -> Piece {
    let language = file.lang(db).info().id.as_str();
    text_lines(
        file.path(db),
        Some(language),
        &file.text(db),
        start,
        end,
        label,
    )
}

/// Lines `start..=end` (1-based, clamped) of any text, as [`lines`] gives a file's.
pub(crate) fn text_lines(
    path: &str,
    language: Option<&'static str>,
    text: &str,
    start: u32,
    end: u32,
    label: Option<&str>,
) -> Piece {
    let start = start.max(1);
    let body: Vec<(u32, String)> = text
        .split_inclusive('\n')
        .zip(1u32..)
        .skip(start as usize - 1)
        .take_while(|(_, n)| *n <= end)
        .map(|(line, n)| (n, line.trim_end_matches(['\n', '\r']).to_string()))
        .collect();
    let header = label.map_or_else(String::new, |label| format!(" {label}"));
    Piece::new(path.to_string(), header, Some(language.unwrap_or("")), body)
}

/// A file's definitions, one line each: line range, kind, qualified name and tokens,
/// indented by nesting.
fn directory(db: &dyn Db, file: SourceFile, encoding: Encoding) -> Piece {
    let symbols = file_symbols(db, file);
    let tokens = definition_tokens(db, file, encoding);
    let mut depths: Vec<usize> = Vec::with_capacity(symbols.summaries.len());
    let mut body = Vec::new();
    for (i, (summary, position)) in symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .enumerate()
    {
        let depth = summary.parent().map_or(0, |p| depths[p as usize] + 1);
        depths.push(depth);
        body.push((
            position.start.line,
            format!(
                "{}{}-{} {} {} ({} tokens)",
                "  ".repeat(depth + 1),
                position.start.line,
                position.end.line,
                summary.kind.as_str(),
                summary.qualified_name(),
                tokens[i]
            ),
        ));
    }
    let path = file.path(db).clone();
    let header = format!(
        "{path}: {} definitions, {} tokens in all",
        body.len(),
        file_tokens(db, file, encoding)
    );
    Piece::new(path, header, None, body)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{db::RootDatabase, lang::registry};

    /// The shortcut a pack takes for whole files gives exactly the block the line-by-line
    /// path gives, whatever the text's ends and backticks.
    #[test]
    fn whole_file_block_is_the_whole_file_piece_block() {
        let db = RootDatabase::default();
        let python = registry().by_id("python").unwrap().lang_id;
        for text in [
            "",
            "x = 1\n",
            "x = 1",
            "a\n\n\nb\n",
            "s = '``` ````'\n",
            "a\r\nb\r\n",
            "a\rb\n",
            "\n",
        ] {
            let file = SourceFile::new(
                &db,
                "m.py".into(),
                python,
                crate::db::StoredText::new(Arc::from(text)),
                false,
            );
            let (fast, slow) = (whole_file_block(&db, file), whole_file(&db, file).block());
            assert_eq!(
                (fast.start_line, fast.end_line, &fast.code, fast.language),
                (slow.start_line, slow.end_line, &slow.code, slow.language),
                "{text:?}"
            );
        }
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        assert_eq!(fence_for(["no ticks"].into_iter()), "```");
        assert_eq!(fence_for(["a ` b", "``"].into_iter()), "```");
        assert_eq!(fence_for(["x ```` y", "`````"].into_iter()), "``````");
        assert_eq!(fence_for(["é````é"].into_iter()), "`````");
    }
}
