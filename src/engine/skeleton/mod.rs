//! `file_skeleton`: a file with its function and method bodies elided, each elided body
//! replaced by a marker naming the lines it stood for, so a model sees every signature,
//! type and import for a fraction of the tokens and can ask for a body by its lines.
//!
//! Which nodes are bodies is data (`queries/<lang>/skeleton.scm`, capture `@body`); how a
//! marker reads is the only per-family code: `{ /* …12-30 */ }` inside braces, and in
//! Python `...  # lines 12-30` (or the docstring's first line) in place of the block, on
//! its `def`'s line. A doc comment's rest becomes ` …`; a run of one macro's calls (Rust),
//! a line saying how many; a Rust attribute over several lines keeps its first and last
//! lines, and a lint or code-generation attribute goes whole.
//!
//! Invariant: putting back, for every elision, the original bytes in place of the marker
//! gives the file's text byte for byte (`FileSkeleton::restore`, which the tests use); only well-formed bodies
//! (no syntax error inside) are elided, and only the outermost of nested ones; a file that
//! could not be parsed is its own skeleton.

use std::{ops::Range, sync::Arc};

use tree_sitter::{Node, Tree};

use super::tokens::Encoding;
use crate::{
    db::{Db, SourceFile},
    lang::{Family, Language, QueryKind},
    semantic,
    syntax::{self, Interrupt, TextRange, TextSize},
};

/// What an elision stood for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ElisionKind {
    /// A function's, method's or closure's body.
    Body,
    /// The lines of a doc comment or docstring after its first.
    Doc,
    /// A literal written over several lines (Python's module and class data), or a run of
    /// one macro's calls (Rust).
    Data,
    /// A Rust attribute's arguments written over several lines (`#[cfg(all( … ))]`), or a
    /// lint or code-generation attribute left out whole (`#[allow(…)]`, `#[inline]`): it
    /// comes with its definition, as a doc does, so its marker names no lines.
    Attribute,
}

/// One elided body or doc comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Elision {
    pub kind: ElisionKind,
    /// The elided bytes in the file.
    pub original: TextRange,
    /// The marker's bytes in the skeleton text.
    pub in_skeleton: TextRange,
    /// 1-based lines of the elided code (blank lines around it left out).
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSkeleton {
    pub text: String,
    /// In file order.
    pub elisions: Vec<Elision>,
    /// Byte offsets in `text` where a top-level item (with the comments and attributes
    /// right above it) starts a line after a blank line: where a skeleton too long for an
    /// answer may be cut. Increasing, never inside a marker.
    pub item_starts: Vec<u32>,
}

impl FileSkeleton {
    /// The file's text: the skeleton with each marker replaced by the bytes it elided.
    #[cfg(test)]
    pub fn restore(&self, original: &str) -> String {
        let mut out = String::with_capacity(original.len());
        let mut at = 0;
        for e in &self.elisions {
            out.push_str(&self.text[at..usize::from(e.in_skeleton.start())]);
            out.push_str(&original[e.original]);
            at = e.in_skeleton.end().into();
        }
        out.push_str(&self.text[at..]);
        out
    }

    /// The file offset of a skeleton offset outside every marker (a marker's start or end
    /// included).
    pub fn original_offset(&self, in_skeleton: usize) -> usize {
        let mut offset = in_skeleton as i64;
        for e in &self.elisions {
            if usize::from(e.in_skeleton.start()) >= in_skeleton {
                break;
            }
            offset +=
                i64::from(u32::from(e.original.len())) - i64::from(u32::from(e.in_skeleton.len()));
        }
        offset.max(0) as usize
    }

    /// The skeleton offset of a file offset; one inside an elided body moves to the start
    /// of the marker's line, so that a skeleton started there shows the body's signature.
    pub fn skeleton_offset(&self, original: usize) -> usize {
        let mut shift: i64 = 0;
        for e in &self.elisions {
            let (start, end) = (
                usize::from(e.original.start()),
                usize::from(e.original.end()),
            );
            if original < end && original > start {
                let marker = usize::from(e.in_skeleton.start());
                return self.text[..marker].rfind('\n').map_or(0, |i| i + 1);
            }
            if start >= original {
                break;
            }
            shift += i64::from(u32::from(e.in_skeleton.len())) - (end - start) as i64;
        }
        ((original as i64 + shift).max(0) as usize).min(self.text.len())
    }
}

/// `file`'s skeleton. Depends on the file alone: an edit elsewhere leaves it memoized.
#[salsa::tracked(returns(clone))]
pub fn file_skeleton(db: &dyn Db, file: SourceFile) -> Arc<FileSkeleton> {
    let lang = file.lang(db).info();
    let text = &*file.text(db);
    let tree = semantic::file_tree(db, file);
    let interrupt = || semantic::is_cancelled(db);
    match skeleton_of(lang, text, tree.as_ref(), &interrupt) {
        Some(skeleton) => Arc::new(skeleton),
        None => semantic::cancelled(db),
    }
}

/// The tokens of `file`'s skeleton text, memoized per file and encoding.
#[salsa::tracked(returns(copy))]
pub fn skeleton_tokens(db: &dyn Db, file: SourceFile, encoding: Encoding) -> u32 {
    encoding.count(&file_skeleton(db, file).text) as u32
}

/// The skeleton of `text` (parsed as `tree`; `None`: not parsed, nothing elided). `None`
/// when `interrupt` stopped the query.
pub(crate) fn skeleton_of(
    lang: &Language,
    text: &str,
    tree: Option<&Tree>,
    interrupt: Interrupt,
) -> Option<FileSkeleton> {
    let Some(tree) = tree else {
        return Some(FileSkeleton {
            text: text.to_string(),
            ..FileSkeleton::default()
        });
    };
    let lines = Lines(syntax::line_starts(text));
    let mut cuts = tree_cuts(lang, text, tree, &lines, interrupt, 0)?;
    cuts.sort_by_key(|c| (c.range.start, std::cmp::Reverse(c.range.end)));
    // Only the outermost: a doc comment inside an elided body goes with the body.
    let mut end = 0;
    cuts.retain(|c| {
        let outside = c.range.start >= end;
        if outside {
            end = c.range.end;
        }
        outside
    });
    let mut skeleton = assemble(text, &cuts);
    skeleton.item_starts = item_starts(tree, text, &cuts, &skeleton);
    Some(skeleton)
}

/// Macro bodies parsed as items inside macro bodies, at most this deep (as `symbols`).
const MAX_MACRO_DEPTH: usize = 4;

/// The cuts of `tree` (the file's, or a macro body's parsed alone, with the file's
/// positions), and of the item-level macro bodies in it; in no particular order, possibly
/// nested. `None` when interrupted.
fn tree_cuts(
    lang: &Language,
    text: &str,
    tree: &Tree,
    lines: &Lines,
    interrupt: Interrupt,
    depth: usize,
) -> Option<Vec<Cut>> {
    let found = captured(lang, text, tree, interrupt)?;
    // A hint is an attribute too: it goes whole rather than folded.
    let hint_ids: std::collections::HashSet<usize> = found.hints.iter().map(Node::id).collect();
    let mut cuts: Vec<Cut> = found
        .bodies
        .into_iter()
        .filter_map(|body| cut(lang.family, body, text, lines))
        .chain(doc_runs(lang, text, found.docs).filter_map(|run| doc_cut(lang, &run, text, lines)))
        .chain(
            found
                .values
                .into_iter()
                .filter_map(|v| value_cut(v, text, lines)),
        )
        .chain(call_run_cuts(found.calls, text, lines))
        .chain(found.hints.iter().map(|&hint| hint_cut(hint, text, lines)))
        .chain(
            found
                .attributes
                .into_iter()
                .filter(|a| !hint_ids.contains(&a.id()))
                .filter_map(|a| attribute_cut(a, text, lines)),
        )
        .collect();
    if depth < MAX_MACRO_DEPTH && !found.items.is_empty() {
        let mut ranges = Vec::new();
        for items in found.items {
            semantic::symbols::item_bodies(items, text, &mut ranges);
        }
        for inner in semantic::symbols::macro_item_trees(lang, &ranges, text, interrupt)? {
            cuts.extend(tree_cuts(lang, text, &inner, lines, interrupt, depth + 1)?);
        }
    }
    Some(cuts)
}

/// What the skeleton query found in one tree.
struct Captured<'t> {
    /// Without a syntax error inside, outermost only, in file order.
    bodies: Vec<Node<'t>>,
    /// In file order.
    docs: Vec<Node<'t>>,
    /// Token trees of item-level macro calls (Rust).
    items: Vec<Node<'t>>,
    /// Bracketed data written over several lines (Python).
    values: Vec<Node<'t>>,
    /// Item-level macro calls (Rust), in file order.
    calls: Vec<Node<'t>>,
    /// Attributes (Rust).
    attributes: Vec<Node<'t>>,
    /// Attributes that say nothing of an item's shape (Rust lints, `#[inline]`).
    hints: Vec<Node<'t>>,
}

/// The `@body`, `@doc` and `@items` nodes of `tree`.
fn captured<'t>(
    lang: &Language,
    text: &str,
    tree: &'t Tree,
    interrupt: Interrupt,
) -> Option<Captured<'t>> {
    let (mut bodies, mut docs, mut items) = (Vec::new(), Vec::new(), Vec::new());
    let (mut values, mut calls) = (Vec::new(), Vec::new());
    let (mut attributes, mut hints) = (Vec::new(), Vec::new());
    let Some(query) = lang.query(QueryKind::Skeleton) else {
        return Some(Captured {
            bodies,
            docs,
            items,
            values,
            calls,
            attributes,
            hints,
        });
    };
    let names = query.capture_names();
    let finished = syntax::run_query(lang, QueryKind::Skeleton, tree, text, interrupt, |m| {
        for c in m.captures().iter().filter(|c| !c.node.has_error()) {
            match names[c.index as usize] {
                "body" => bodies.push(c.node),
                "doc" => docs.push(c.node),
                "items" => items.push(c.node),
                "value" => values.push(c.node),
                "call" => calls.push(c.node),
                "attribute" => attributes.push(c.node),
                "hint" => hints.push(c.node),
                _ => {}
            }
        }
    });
    if !finished {
        return None;
    }
    bodies.sort_by_key(|n| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
    let mut outermost: Vec<Node> = Vec::with_capacity(bodies.len());
    for body in bodies {
        if outermost
            .last()
            .is_none_or(|o| body.start_byte() >= o.end_byte())
        {
            outermost.push(body);
        }
    }
    docs.sort_by_key(|n| n.start_byte());
    docs.dedup_by_key(|n| n.id());
    calls.sort_by_key(|n| n.start_byte());
    calls.dedup_by_key(|n| n.id());
    hints.dedup_by_key(|n| n.id());
    Some(Captured {
        bodies: outermost,
        docs,
        items,
        values,
        calls,
        attributes,
        hints,
    })
}

/// What replaces one elided range.
struct Cut {
    kind: ElisionKind,
    range: Range<usize>,
    marker: String,
    lines: (u32, u32),
}

/// The text's line starts, for 1-based line numbers of byte offsets.
struct Lines(Vec<u32>);

impl Lines {
    fn of(&self, offset: usize) -> u32 {
        self.0.partition_point(|&start| start as usize <= offset) as u32
    }

    /// The first and last lines of the non-blank part of `range` (not empty).
    fn span(&self, text: &str, range: &Range<usize>) -> (u32, u32) {
        let inside = &text[range.clone()];
        let first = range.start + (inside.len() - inside.trim_start().len());
        let last = range.start + inside.trim_end().len().max(1) - 1;
        (self.of(first), self.of(last.max(first)))
    }
}

/// `12` or `12-30`.
fn numbers(lines: (u32, u32)) -> String {
    match lines {
        (a, b) if a == b => a.to_string(),
        (a, b) => format!("{a}-{b}"),
    }
}

fn line_span(lines: (u32, u32)) -> String {
    match lines {
        (a, b) if a == b => format!("line {a}"),
        (a, b) => format!("lines {a}-{b}"),
    }
}

/// How `body` is elided in its language, or `None` when eliding it would not shorten it.
fn cut(family: Family, body: Node, text: &str, lines: &Lines) -> Option<Cut> {
    let cut = match family {
        Family::Python => python_cut(body, text, lines)?,
        Family::Ecma { .. } | Family::Go | Family::Rust => braced_cut(body, text, lines)?,
    };
    (cut.range.len() > cut.marker.len()).then_some(cut)
}

/// The inside of a `{ … }` block, replaced by ` /* …a-b */ `: the shortest marker that
/// still reads as code elided from lines a to b (two tokens fewer than ` /* … lines a-b */ `,
/// a tenth of a Rust skeleton).
fn braced_cut(body: Node, text: &str, lines: &Lines) -> Option<Cut> {
    // The first `{` and the last `}` (a `macro_rules!` name comes before its braces).
    let mut walk = body.walk();
    let children: Vec<Node> = body.children(&mut walk).collect();
    let open = children.iter().find(|c| c.kind() == "{")?;
    let close = children.iter().rfind(|c| c.kind() == "}")?;
    if close.start_byte() <= open.start_byte() || close.is_missing() {
        return None;
    }
    let range = open.end_byte()..close.start_byte();
    if text[range.clone()].trim().is_empty() {
        return None;
    }
    let span = lines.span(text, &range);
    Some(Cut {
        kind: ElisionKind::Body,
        range,
        marker: format!(" /* …{} */ ", numbers(span)),
        lines: span,
    })
}

/// A Python block (it starts at its first statement, indented), replaced by
/// `...  # lines a-b` on the line of its `def` (`def f(x): ...  # lines 2-9`), which saves
/// a line's indentation and break per function. A one-line docstring stays and the
/// statements after it are elided on their own line; a longer one is elided with the rest
/// and the marker keeps its first line instead of `...`, which is a statement as valid as
/// `...`.
fn python_cut(body: Node, text: &str, lines: &Lines) -> Option<Cut> {
    let first = body.named_child(0)?;
    let docstring = docstring(first);
    let (start, marker_statement) = match docstring {
        Some(string) if !text[string.byte_range()].contains('\n') => {
            (first.next_sibling()?.start_byte(), "...".to_string())
        }
        Some(string) => (body.start_byte(), docstring_first_line(string, text)),
        None => (body.start_byte(), "...".to_string()),
    };
    // Back to the `:` when only blanks separate it from the block (a comment there stays).
    let colon = body.prev_sibling().filter(|c| c.kind() == ":");
    let joined = colon
        .map(|c| c.end_byte())
        .filter(|&end| start == body.start_byte() && text[end..start].trim().is_empty());
    let range = joined.unwrap_or(start)..body.end_byte();
    let span = lines.span(text, &range);
    let marker = format!("{marker_statement}  # {}", line_span(span));
    // Judged without the blanks it joins: `return w * h` stays as written.
    if body.end_byte() - start <= marker.len() {
        return None;
    }
    let space = if joined.is_some() { " " } else { "" };
    Some(Cut {
        kind: ElisionKind::Body,
        range,
        marker: format!("{space}{marker}"),
        lines: span,
    })
}

/// The string of a statement that is a string alone (a docstring when it comes first).
fn docstring(statement: Node) -> Option<Node> {
    let string = statement.named_child(0)?;
    (statement.kind() == "expression_statement"
        && statement.named_child_count() == 1
        && string.kind() == "string")
        .then_some(string)
}

/// `"""Summary."""`: the docstring's delimiters around its first non-blank line (without a
/// trailing backslash, which would escape the closing quote); `...` when it has none.
fn docstring_first_line(string: Node, text: &str) -> String {
    let (Some(open), Some(close)) = (
        string.child(0),
        string.child(string.child_count().saturating_sub(1)),
    ) else {
        return "...".into();
    };
    if open.kind() != "string_start" || close.kind() != "string_end" {
        return "...".into();
    }
    let content = &text[open.end_byte()..close.start_byte()];
    let line = content
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_end_matches('\\').trim_end());
    match line {
        Some(line) if !line.is_empty() => {
            format!(
                "{}{line}{}",
                &text[open.byte_range()],
                &text[close.byte_range()]
            )
        }
        _ => "...".into(),
    }
}

/// A bracketed value over several lines, ending its line (`topics = {` … `}`): its inside
/// and closing bracket become `...}  # lines a-b`, so the comment ends the line.
fn value_cut(value: Node, text: &str, lines: &Lines) -> Option<Cut> {
    let (open, close) = (
        value.child(0)?,
        value.child(value.child_count().checked_sub(1)?)?,
    );
    let rest_of_line = text[close.end_byte()..].split('\n').next().unwrap_or("");
    let ends_line = rest_of_line.trim().is_empty();
    if value.has_error() || !ends_line || open.id() == close.id() {
        return None;
    }
    let range = open.end_byte()..close.end_byte();
    if !text[range.clone()].contains('\n') {
        return None;
    }
    let inside = open.end_byte()..close.start_byte();
    let span = lines.span(text, &inside);
    let marker = format!("...{}  # {}", &text[close.byte_range()], line_span(span));
    (range.len() > marker.len()).then_some(Cut {
        kind: ElisionKind::Data,
        range,
        marker,
        lines: span,
    })
}

/// Runs of three or more calls of one macro (`@call`, in file order) with only blanks
/// between them (and their `;`): each run keeps its first call, and the others become one
/// line, `// … 41 more assert_value! calls, lines 12-52`. A call whose body is in braces is
/// never folded: its body may be items, which the skeleton shows.
fn call_run_cuts(calls: Vec<Node>, text: &str, lines: &Lines) -> Vec<Cut> {
    let mut cuts = Vec::new();
    // Each call of the current run with the end of its statement (after its `;`).
    let mut run: Vec<(Node, usize)> = Vec::new();
    for call in calls {
        let Some(name) = folded_macro_name(call, text) else {
            cuts.extend(call_run_cut(&std::mem::take(&mut run), text, lines));
            continue;
        };
        let end = call.end_byte() + usize::from(text[call.end_byte()..].starts_with(';'));
        let joins = run.last().is_some_and(|&(previous, previous_end)| {
            let gap = text.get(previous_end..call.start_byte()).unwrap_or("x");
            folded_macro_name(previous, text) == Some(name)
                && gap.trim().is_empty()
                && gap.contains('\n')
        });
        if !joins {
            cuts.extend(call_run_cut(&std::mem::take(&mut run), text, lines));
        }
        run.push((call, end));
    }
    cuts.extend(call_run_cut(&run, text, lines));
    cuts
}

/// The macro's name of a call whose body is in `( )` or `[ ]`.
fn folded_macro_name<'a>(call: Node, text: &'a str) -> Option<&'a str> {
    let name = call.child_by_field_name("macro")?;
    let mut walk = call.walk();
    let body = call
        .named_children(&mut walk)
        .find(|c| c.kind() == "token_tree")?;
    matches!(body.child(0)?.kind(), "(" | "[").then(|| &text[name.byte_range()])
}

fn call_run_cut(run: &[(Node, usize)], text: &str, lines: &Lines) -> Option<Cut> {
    let (&(first, first_end), &(second, _), &(_, last_end)) =
        (run.first()?, run.get(1)?, run.get(2).and(run.last())?);
    let name = folded_macro_name(first, text)?;
    let line_start = text[..first.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..first.start_byte()];
    let indent = if indent.trim().is_empty() { indent } else { "" };
    let range = first_end..last_end;
    let span = lines.span(text, &(second.start_byte()..last_end));
    let marker = format!(
        "\n{indent}// … {} more {name}! calls, {}",
        run.len() - 1,
        line_span(span)
    );
    (range.len() > marker.len()).then_some(Cut {
        kind: ElisionKind::Data,
        range,
        marker,
        lines: span,
    })
}

/// An attribute over several lines keeps its first line and its closing brackets; the
/// rest becomes ` … ` (`#[cfg(all( … ))]`): which features or platforms an item needs is
/// a detail an agent asks for with the definition.
fn attribute_cut(attribute: Node, text: &str, lines: &Lines) -> Option<Cut> {
    let own = &text[attribute.byte_range()];
    let first_line_end = attribute.start_byte() + own.find('\n')?;
    let closing = own.trim_end_matches([')', ']', '}']).len();
    let range = first_line_end..attribute.start_byte() + closing;
    if range.start >= range.end || text[range.clone()].trim().is_empty() {
        return None;
    }
    let marker = " … ".to_string();
    (range.len() > marker.len()).then(|| Cut {
        kind: ElisionKind::Attribute,
        lines: lines.span(text, &range),
        range,
        marker,
    })
}

/// A lint or code-generation attribute (`@hint`) goes whole, with its line when it has one
/// of its own: it changes how an item is compiled or checked, not what it is.
fn hint_cut(hint: Node, text: &str, lines: &Lines) -> Cut {
    let line_start = text[..hint.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let own_line = text[line_start..hint.start_byte()].trim().is_empty();
    let rest = &text[hint.end_byte()..];
    let rest_of_line = rest.split('\n').next().unwrap_or("");
    let range = if own_line && rest_of_line.trim().is_empty() {
        line_start..hint.end_byte() + (rest_of_line.len() + 1).min(rest.len())
    } else {
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        hint.start_byte()..hint.end_byte() + spaces
    };
    Cut {
        kind: ElisionKind::Attribute,
        lines: lines.span(text, &range),
        range,
        marker: String::new(),
    }
}

/// Whether `node` is a line comment (`//`, `#`): such comments on consecutive lines make
/// one run; any other doc node (a block comment, a docstring) is a run of its own.
fn is_line_comment(lang: &Language, node: Node, text: &str) -> bool {
    let own = &text[node.byte_range()];
    lang.line_comment
        .iter()
        .any(|token| own.starts_with(token.as_str()))
}

/// The `@doc` nodes (in file order) grouped into runs: line comments on consecutive lines
/// with nothing but blanks between them make one run.
fn doc_runs<'t>(
    lang: &Language,
    text: &str,
    docs: Vec<Node<'t>>,
) -> impl Iterator<Item = Vec<Node<'t>>> {
    let mut runs: Vec<Vec<Node>> = Vec::new();
    for doc in docs {
        let joins = runs
            .last()
            .and_then(|run| run.last())
            .is_some_and(|&previous| {
                let gap = text
                    .get(previous.end_byte()..doc.start_byte())
                    .unwrap_or("x");
                let breaks = gap.matches('\n').count()
                    + usize::from(text[previous.byte_range()].ends_with('\n'));
                gap.trim().is_empty()
                    && breaks == 1
                    && is_line_comment(lang, previous, text)
                    && is_line_comment(lang, doc, text)
            });
        match runs.last_mut() {
            Some(run) if joins => run.push(doc),
            _ => runs.push(vec![doc]),
        }
    }
    runs.into_iter()
}

/// A doc run longer than a line keeps its first line with words (and a block comment's or
/// docstring's closing delimiter); the rest becomes ` …`. Unlike a body's marker it names
/// no lines: a doc comes whole with its definition, which is how an agent asks for it.
fn doc_cut(lang: &Language, run: &[Node], text: &str, lines: &Lines) -> Option<Cut> {
    let (first, last) = (run.first()?, run.last()?);
    let mut end = last.end_byte();
    if text[..end].ends_with('\n') {
        end -= 1;
    }
    let closing = if is_line_comment(lang, *last, text) {
        0
    } else {
        let own = &text[first.start_byte()..end];
        own.len() - own.trim_end_matches(['*', '/', '"', '\'']).len()
    };
    let (delimited_end, region_start) = (end - closing.min(3), first.start_byte());
    let region = &text[region_start..delimited_end];
    let mut line_start = 0;
    let kept_end = region.split_inclusive('\n').find_map(|line| {
        line_start += line.len();
        has_words(line).then(|| region_start + line_start - usize::from(line.ends_with('\n')))
    })?;
    let range = kept_end..delimited_end;
    if !text[range.clone()].contains('\n') || text[range.clone()].trim().is_empty() {
        return None;
    }
    let span = lines.span(text, &range);
    let space = if closing > 0 { " " } else { "" };
    let marker = format!(" …{space}");
    (range.len() > marker.len()).then_some(Cut {
        kind: ElisionKind::Doc,
        marker,
        range,
        lines: span,
    })
}

/// Whether a line of a comment or docstring says something besides its delimiters.
fn has_words(line: &str) -> bool {
    let line = line.trim();
    let unprefixed = line.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let line = match unprefixed.starts_with(['"', '\'']) {
        true => unprefixed,
        false => line,
    };
    !line
        .trim_matches(['/', '*', '!', '#', '"', '\'', ' ', '\t', '\r', '\n'])
        .is_empty()
}

/// The skeleton text from `text` and its cuts (in order, not overlapping).
fn assemble(text: &str, cuts: &[Cut]) -> FileSkeleton {
    let kept: usize = cuts.iter().map(|c| c.range.len()).sum();
    let mut out = String::with_capacity(text.len() - kept + cuts.len() * 24);
    let mut elisions = Vec::with_capacity(cuts.len());
    let mut at = 0;
    for cut in cuts {
        out.push_str(&text[at..cut.range.start]);
        let marker_start = out.len();
        out.push_str(&cut.marker);
        elisions.push(Elision {
            kind: cut.kind,
            original: range_of(cut.range.clone()),
            in_skeleton: range_of(marker_start..out.len()),
            start_line: cut.lines.0,
            end_line: cut.lines.1,
        });
        at = cut.range.end;
    }
    out.push_str(&text[at..]);
    FileSkeleton {
        text: out,
        elisions,
        item_starts: Vec::new(),
    }
}

fn range_of(range: Range<usize>) -> TextRange {
    TextRange::new(
        TextSize::new(range.start as u32),
        TextSize::new(range.end as u32),
    )
}

/// Where the skeleton may be cut between top-level items: the start of each top-level
/// node's line that follows a blank line (so a doc comment or attribute stays with its
/// item), outside every cut, in skeleton offsets.
fn item_starts(tree: &Tree, text: &str, cuts: &[Cut], skeleton: &FileSkeleton) -> Vec<u32> {
    let root = tree.root_node();
    let mut walk = root.walk();
    let mut starts: Vec<u32> = Vec::new();
    let mut cut_index = 0;
    let mut shift: i64 = 0;
    for item in root.named_children(&mut walk) {
        let line_start = text[..item.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[..line_start];
        let after_blank = before.is_empty()
            || before
                .strip_suffix('\n')
                .map(|b| b.rsplit('\n').next().unwrap_or(b))
                .is_some_and(|previous| previous.trim().is_empty());
        if !after_blank {
            continue;
        }
        while let Some(cut) = cuts.get(cut_index).filter(|c| c.range.end <= line_start) {
            shift += cut.marker.len() as i64 - cut.range.len() as i64;
            cut_index += 1;
        }
        if cuts
            .get(cut_index)
            .is_some_and(|c| c.range.start < line_start)
        {
            continue;
        }
        let offset = (line_start as i64 + shift) as u32;
        if starts.last() != Some(&offset) && (offset as usize) < skeleton.text.len() {
            starts.push(offset);
        }
    }
    starts
}

#[cfg(test)]
mod tests;
