//! Collecting Rust's imports (what queries cannot say).
//!
//! `queries/rust/imports.scm` finds the statements; a `use` tree is expanded here into one import per leaf, with `module` the path up to the last segment and `name`
//! the last segment (`use a::b::{c, d as e}` gives `a::b: c` and `a::b: d as e`); a path of
//! one segment (`use log;`, `extern crate log;`) is a module without a name; `a::{self}` is
//! `a` itself; a glob is a wildcard of its path. `mod foo;` (no body) is the module
//! `self::foo` without a name, and `#[path = "p"] mod foo;` the module `"p"` (quotes kept)
//! with alias `foo`; a `use` never has these shapes. An import inside inline modules
//! (`mod tests { use super::*; }`) records them in `within` (`tests`), since `self` and
//! `super` count from there.

use super::ImportSummary;
use crate::semantic::small_text::SmallText;

/// The imports of one `use` declaration (`statement`), whose tree is `tree`, each with the
/// byte offset that orders it among the statement's imports.
pub(super) fn use_tree_imports(
    statement: tree_sitter::Node,
    tree: tree_sitter::Node,
    text: &str,
) -> Vec<(ImportSummary, usize)> {
    let within = inline_modules(statement, text);
    let mut leaves = Vec::new();
    expand(tree, &[], text, &mut leaves);
    let mut out = Vec::new();
    for Leaf {
        mut segments,
        alias,
        wildcard,
        at,
    } in leaves
    {
        // `a::{self}` is `a`.
        if !wildcard && segments.len() > 1 && segments.last().is_some_and(|s| s == "self") {
            segments.pop();
        }
        let (module, name) = if wildcard || is_one_segment(&segments) {
            (segments.join("::"), None)
        } else {
            let name = segments.pop();
            (segments.join("::"), name)
        };
        if module.is_empty() && name.is_none() {
            continue;
        }
        out.push((
            ImportSummary {
                module: SmallText::new(&module),
                name: name.as_deref().map(SmallText::new),
                alias: alias.as_deref().map(SmallText::new),
                wildcard,
                within: within.clone(),
                ..ImportSummary::default()
            },
            at,
        ));
    }
    out
}

/// One leaf of a use tree: its whole path (a leading `::` is an empty first segment).
struct Leaf {
    segments: Vec<String>,
    alias: Option<String>,
    wildcard: bool,
    /// Where it starts, to order the statement's imports.
    at: usize,
}

/// `["a"]`, or `["", "a"]` for `::a`.
fn is_one_segment(segments: &[String]) -> bool {
    segments.len() == 1 || (segments.len() == 2 && segments[0].is_empty())
}

/// The leaves of a use tree under `prefix`, in order.
fn expand(node: tree_sitter::Node, prefix: &[String], text: &str, leaves: &mut Vec<Leaf>) {
    let mut leaf = |segments, alias, wildcard| {
        leaves.push(Leaf {
            segments,
            alias,
            wildcard,
            at: node.start_byte(),
        })
    };
    let with = |path: Option<tree_sitter::Node>| -> Option<Vec<String>> {
        let mut segments = prefix.to_vec();
        match path {
            Some(path) => segments.extend(path_segments(path, text)?),
            None => segments.push(String::new()),
        }
        Some(segments)
    };
    match node.kind() {
        "identifier" | "self" | "super" | "crate" | "metavariable" | "scoped_identifier" => {
            if let Some(segments) = with(Some(node)) {
                leaf(segments, None, false);
            }
        }
        "use_as_clause" => {
            let alias = node
                .child_by_field_name("alias")
                .map(|a| node_text(a, text));
            if let Some(segments) = with(node.child_by_field_name("path")) {
                leaf(segments, alias, false);
            }
        }
        "use_wildcard" => {
            // `{*}` inside a group has no path of its own.
            let segments = match node.named_child(0).filter(|p| !p.is_extra()) {
                Some(path) => with(Some(path)),
                None => Some(prefix.to_vec()),
            };
            if let Some(segments) = segments {
                leaf(segments, None, true);
            }
        }
        "scoped_use_list" => {
            let path = node.child_by_field_name("path");
            let (Some(segments), Some(list)) = (with(path), node.child_by_field_name("list"))
            else {
                return;
            };
            expand(list, &segments, text, leaves);
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                expand(child, prefix, text, leaves);
            }
        }
        // Comments, and error recovery's nodes.
        _ => {}
    }
}

/// `a::b::c` → `["a", "b", "c"]`; `::a` → `["", "a"]`. `None` for a path with generic
/// arguments or other shapes a `use` cannot have.
fn path_segments(node: tree_sitter::Node, text: &str) -> Option<Vec<String>> {
    match node.kind() {
        "identifier" | "self" | "super" | "crate" | "metavariable" => {
            Some(vec![node_text(node, text)])
        }
        "scoped_identifier" => {
            let mut segments = match node.child_by_field_name("path") {
                Some(path) => path_segments(path, text)?,
                None => vec![String::new()],
            };
            segments.push(node_text(node.child_by_field_name("name")?, text));
            Some(segments)
        }
        _ => None,
    }
}

/// A `mod name;` declaration (`statement`): `self::name`, or with `#[path = "p"]` the
/// module `"p"` aliased `name`.
pub(super) fn mod_declaration(
    statement: tree_sitter::Node,
    name: tree_sitter::Node,
    text: &str,
) -> (ImportSummary, usize) {
    let name_text = node_text(name, text);
    let summary = match path_attribute(statement, text) {
        Some(path) => ImportSummary {
            module: SmallText::new(&format!("\"{path}\"")),
            alias: Some(SmallText::new(&name_text)),
            ..ImportSummary::default()
        },
        None => ImportSummary {
            module: SmallText::new(&format!("self::{name_text}")),
            ..ImportSummary::default()
        },
    };
    let summary = ImportSummary {
        within: inline_modules(statement, text),
        ..summary
    };
    (summary, name.start_byte())
}

/// The string of a `#[path = "…"]` attribute among the item's outer attributes.
fn path_attribute(item: tree_sitter::Node, text: &str) -> Option<String> {
    let mut sibling = item.prev_named_sibling();
    while let Some(node) = sibling {
        match node.kind() {
            "attribute_item" => {
                let attribute = node.named_child(0).filter(|a| a.kind() == "attribute");
                if let Some(attribute) = attribute {
                    let is_path = attribute
                        .named_child(0)
                        .is_some_and(|n| n.kind() == "identifier" && node_text(n, text) == "path");
                    let value = attribute.child_by_field_name("value");
                    if let (true, Some(value)) = (is_path, value) {
                        return string_content(value, text);
                    }
                }
            }
            "line_comment" | "block_comment" => {}
            _ => return None,
        }
        sibling = node.prev_named_sibling();
    }
    None
}

/// The content of a plain string literal without escapes.
fn string_content(literal: tree_sitter::Node, text: &str) -> Option<String> {
    if literal.kind() != "string_literal" || literal.named_child_count() > 1 {
        return None;
    }
    Some(match literal.named_child(0) {
        Some(content) if content.kind() == "string_content" => node_text(content, text),
        Some(_) => return None,
        None => String::new(),
    })
}

/// The inline modules (`mod a { mod b { … } }`) around `node` in its file: `a::b`.
fn inline_modules(node: tree_sitter::Node, text: &str) -> Option<SmallText> {
    let mut names = Vec::new();
    let mut parent = node.parent();
    while let Some(p) = parent {
        if p.kind() == "mod_item" && p.child_by_field_name("body").is_some() {
            names.extend(p.child_by_field_name("name").map(|n| node_text(n, text)));
        }
        parent = p.parent();
    }
    names.reverse();
    (!names.is_empty()).then(|| SmallText::new(&names.join("::")))
}

fn node_text(node: tree_sitter::Node, text: &str) -> String {
    text.get(node.byte_range()).unwrap_or_default().to_string()
}
