//! `parse`: a bounded s-expression outline of a file's tree, and its syntax errors.

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile},
    semantic,
    syntax::{MISSING, SyntaxElement, WHITESPACE},
};

#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Nodes deeper than this are shown as `(kind …)`.
    pub max_depth: usize,
    /// At most this many tree lines; the rest is cut and `truncated` set.
    pub max_nodes: usize,
    /// At most this many errors listed.
    pub max_errors: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: usize::MAX,
            max_nodes: 5_000,
            max_errors: 200,
        }
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SyntaxErrorInfo {
    pub message: String,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ParseOutput {
    pub path: String,
    pub language: String,
    /// The file is not valid UTF-8; invalid bytes were replaced for analysis.
    pub lossy_utf8: bool,
    /// Indented s-expression, one node or token per line, with `line:col-line:col` spans.
    pub tree: String,
    pub node_count: usize,
    pub truncated: bool,
    pub error_count: usize,
    pub errors: Vec<SyntaxErrorInfo>,
    pub errors_truncated: bool,
}

const MAX_TOKEN_TEXT: usize = 40;

pub(crate) fn parse_tree(db: &dyn Db, file: SourceFile, options: ParseOptions) -> ParseOutput {
    let parse = semantic::parse(db, file);
    let index = semantic::line_index(db, file);
    let root = parse.syntax();

    let mut tree = String::new();
    let mut lines = 0usize;
    let mut truncated = false;
    let mut depth = 0usize;
    let mut walk = root.preorder_with_tokens();
    while let Some(event) = walk.next() {
        let (element, enter) = match event {
            rowan::WalkEvent::Enter(e) => (e, true),
            rowan::WalkEvent::Leave(e) => (e, false),
        };
        let is_node = element.as_node().is_some();
        if !enter {
            if is_node {
                depth -= 1;
            }
            continue;
        }
        let this_depth = depth;
        if is_node {
            depth += 1;
            // Nothing below the depth limit is shown: do not walk it.
            if this_depth >= options.max_depth {
                walk.skip_subtree();
            }
        }
        let kind = element.kind();
        if kind == WHITESPACE || this_depth > options.max_depth {
            continue;
        }
        if lines >= options.max_nodes {
            // The rest of a large file is not shown: stop rather than walk it.
            truncated = true;
            break;
        }
        lines += 1;
        let span = Span::new(&index, element.text_range());
        let name = parse.kind_name(kind);
        for _ in 0..this_depth {
            tree.push_str("  ");
        }
        match &element {
            SyntaxElement::Node(node) => {
                let elided =
                    this_depth == options.max_depth && node.first_child_or_token().is_some();
                let dots = if elided { " …" } else { "" };
                tree.push_str(&format!("({name} {span}{dots})\n"));
            }
            SyntaxElement::Token(_) if kind == MISSING => {
                // The token is empty; the error at this offset says what is missing.
                let offset = element.text_range().start();
                let what = parse
                    .errors
                    .iter()
                    .find(|e| e.range.start() == offset && e.message.starts_with("missing "))
                    .map_or("", |e| e.message.trim_start_matches("missing "));
                tree.push_str(&format!("(MISSING {what} {span})\n"));
            }
            SyntaxElement::Token(token) if parse.kind_is_named(kind) => {
                tree.push_str(&format!("({name} {} {span})\n", quote(token.text())));
            }
            SyntaxElement::Token(token) => {
                tree.push_str(&format!("{} {span}\n", quote(token.text())));
            }
        }
    }

    let errors: Vec<SyntaxErrorInfo> = parse
        .errors
        .iter()
        .take(options.max_errors)
        .map(|e| SyntaxErrorInfo {
            message: e.message.clone(),
            span: Span::new(&index, e.range),
        })
        .collect();
    ParseOutput {
        path: file.path(db).clone(),
        language: file.lang(db).info().id.clone(),
        lossy_utf8: file.lossy_utf8(db),
        tree,
        node_count: lines,
        truncated,
        error_count: parse.errors.len(),
        errors_truncated: parse.errors.len() > options.max_errors,
        errors,
    }
}

/// A token's text as a short, one-line, quoted string.
fn quote(text: &str) -> String {
    let mut short: String = text.chars().take(MAX_TOKEN_TEXT).collect();
    if text.chars().count() > MAX_TOKEN_TEXT {
        short.push('…');
    }
    format!("{short:?}")
}
