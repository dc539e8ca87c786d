//! The node kinds at which a query's patterns can start matching.
//!
//! Running a query cursor over a whole tree costs about half a parse even for one trivial
//! pattern (the cursor inspects every node). When every pattern is rooted at named node
//! kinds, a plain tree walk can find the candidate roots instead and start the cursor only
//! there, with a start depth of 0 so that it descends no further than the pattern needs.
//! The walk itself need not enter a node whose kind can hold no root (`kinds.rs`).

use std::collections::HashSet;

use super::kinds::KindGraph;

/// Kinds (by id) at which some pattern starts, plus whether `ERROR` nodes are roots. A
/// pattern rooted at a wildcard whose first required child is a named kind (`(_ value:
/// (object …))`) can start at the parent of any node of that kind. `None` when a pattern
/// starts in any other way (a hidden or supertype node, a literal token, …): then the whole
/// tree must be searched.
#[derive(Debug, Clone)]
pub struct PatternRoots {
    kinds: Vec<bool>,
    parent_of: Vec<bool>,
    pub error_nodes: bool,
    /// For each kind id, whether a node of it may hold below it a root or the child of a
    /// parent that is one; `None` when any kind may.
    holders: Option<Vec<bool>>,
}

impl PatternRoots {
    /// A pattern may start at a node of this kind.
    pub fn contains(&self, kind_id: u16) -> bool {
        self.kinds.get(kind_id as usize).copied().unwrap_or(false)
    }

    /// A pattern may start at the parent of a node of this kind.
    pub fn starts_at_parent_of(&self, kind_id: u16) -> bool {
        self.parent_of
            .get(kind_id as usize)
            .copied()
            .unwrap_or(false)
    }

    /// Whether a node of this kind may hold, below it, a node where a pattern starts. One
    /// with an error below it may whatever its kind: a walk enters it too.
    pub fn may_start_below(&self, kind_id: u16) -> bool {
        self.holders
            .as_ref()
            .is_none_or(|h| h.get(kind_id as usize).copied().unwrap_or(true))
    }

    /// These roots, knowing from `graph` which kinds can hold them (without it, any kind
    /// may).
    pub fn held_by(mut self, graph: Option<&KindGraph>) -> PatternRoots {
        let sought: Vec<bool> = self
            .kinds
            .iter()
            .zip(&self.parent_of)
            .map(|(root, child)| *root || *child)
            .collect();
        self.holders = graph.and_then(|g| g.holders_of(&sought));
        self
    }
}

/// Where a pattern starts: at a node of one of these kinds, or at the parent of one.
enum Root<'q> {
    Kind(&'q str),
    ParentOf(&'q str),
}

pub fn pattern_roots(
    grammar: &tree_sitter::Language,
    query: &tree_sitter::Query,
    source: &str,
) -> Option<PatternRoots> {
    let mut names: HashSet<&str> = HashSet::new();
    let mut parents_of: HashSet<&str> = HashSet::new();
    for pattern in 0..query.pattern_count() {
        let start = query.start_byte_for_pattern(pattern);
        for root in pattern_root(source.get(start..)?)? {
            match root {
                Root::Kind(name) => names.insert(name),
                Root::ParentOf(name) => parents_of.insert(name),
            };
        }
    }
    let count = grammar.node_kind_count();
    let mut error_nodes = false;
    let mut kinds = vec![false; count];
    for name in names {
        if name == "ERROR" {
            error_nodes = true;
        } else {
            mark(grammar, name, &mut kinds)?;
        }
    }
    let mut parent_of = vec![false; count];
    for name in parents_of {
        mark(grammar, name, &mut parent_of)?;
    }
    Some(PatternRoots {
        kinds,
        parent_of,
        error_nodes,
        holders: None,
    })
}

/// Whether the pattern at the start of `text` starts only at nodes of named kinds (not at
/// the parent of one, as a wildcard-rooted pattern does).
pub fn rooted_at_named_kind(text: &str) -> bool {
    pattern_root(text)
        .is_some_and(|roots| !roots.is_empty() && roots.iter().all(|r| matches!(r, Root::Kind(_))))
}

/// Marks every id of the named kind `name` (aliases can give one name several ids).
fn mark(grammar: &tree_sitter::Language, name: &str, set: &mut [bool]) -> Option<()> {
    let mut found = false;
    for id in 0..set.len() as u16 {
        if grammar.node_kind_is_named(id) && grammar.node_kind_for_id(id) == Some(name) {
            if grammar.node_kind_is_supertype(id) || !grammar.node_kind_is_visible(id) {
                return None;
            }
            set[id as usize] = true;
            found = true;
        }
    }
    found.then_some(())
}

/// The roots of the pattern at the start of `text`: one form, each alternative of
/// `[(a …) (_ value: (b …))]`, or either of those grouped with predicates:
/// `((a …) @x (#scope? @x module))`.
fn pattern_root(text: &str) -> Option<Vec<Root<'_>>> {
    let text = skip_trivia(text);
    if let Some(inner) = group_inner(text) {
        return pattern_root(inner);
    }
    if text.starts_with('(') {
        return Some(vec![form_root(text)?]);
    }
    let mut rest = text.strip_prefix('[')?;
    let mut roots = Vec::new();
    loop {
        rest = skip_trivia(rest);
        if rest.starts_with(']') {
            return Some(roots);
        }
        if !rest.starts_with('(') {
            return None;
        }
        roots.push(form_root(rest)?);
        rest = skip_balanced(rest)?;
        // Captures after an alternative: `(a) @x`.
        rest = skip_trivia(rest);
        while rest.starts_with('@') {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ']' || c == '(')
                .unwrap_or(rest.len());
            rest = skip_trivia(&rest[end..]);
        }
    }
}

/// The pattern inside a group that holds one pattern followed only by captures and
/// predicates: `((a …) @x (#p …))` → `(a …) @x (#p …))`. A group of several sibling patterns
/// (`((a) (b))`) starts matching at siblings, not at one node: `None`.
fn group_inner(text: &str) -> Option<&str> {
    let inner = skip_trivia(text.strip_prefix('(')?);
    if !inner.starts_with(['(', '[']) {
        return None;
    }
    let mut rest = skip_balanced(inner)?;
    loop {
        rest = skip_trivia(rest);
        if rest.starts_with(')') {
            return Some(inner);
        }
        if rest.starts_with('@') {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ')' || c == '(')
                .unwrap_or(rest.len());
            rest = &rest[end..];
        } else if skip_trivia(rest.strip_prefix('(')?).starts_with('#') {
            rest = skip_balanced(rest)?;
        } else {
            return None;
        }
    }
}

/// The root of one parenthesized form `(name …)` or `(_ …)`.
fn form_root(text: &str) -> Option<Root<'_>> {
    let inner = skip_trivia(text.strip_prefix('(')?);
    if let Some(children) = inner
        .strip_prefix('_')
        .filter(|r| !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    {
        return Some(Root::ParentOf(first_required_child(children)?));
    }
    node_name(inner).map(Root::Kind)
}

/// The kind of the first child step of a wildcard node that must be present:
/// `name: (_)? body: (class_body …)` → `class_body`.
fn first_required_child(mut text: &str) -> Option<&str> {
    loop {
        text = skip_trivia(text);
        // A field name: `body:`.
        if let Some(colon) = text.find(':') {
            let field = &text[..colon];
            if !field.is_empty() && field.chars().all(|c| c.is_alphanumeric() || c == '_') {
                text = skip_trivia(&text[colon + 1..]);
            }
        }
        let inner = text.strip_prefix('(')?;
        let name = skip_trivia(inner);
        let end = name
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(name.len());
        let (name, _) = name.split_at(end);
        let after = skip_balanced(text)?;
        let optional = after.starts_with(['?', '*']);
        if optional {
            text = after[1..].trim_start();
            // Captures on the skipped child: `(_)? @container`.
            while text.starts_with('@') {
                let end = text.find(char::is_whitespace).unwrap_or(text.len());
                text = &text[end..];
            }
            continue;
        }
        return (!name.is_empty() && !name.starts_with('_')).then_some(name);
    }
}

fn node_name(text: &str) -> Option<&str> {
    let text = skip_trivia(text);
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..end];
    (!name.is_empty() && !name.starts_with('_')).then_some(name)
}

fn skip_trivia(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        if text.starts_with(';') {
            text = text.find('\n').map_or("", |i| &text[i..]);
        } else {
            return text;
        }
    }
}

/// Skips one parenthesized form, honouring strings and comments.
fn skip_balanced(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[i + 1..]);
                }
            }
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            ';' => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_of_patterns() {
        let child = |t| match pattern_root(t) {
            Some(roots) => roots
                .into_iter()
                .map(|r| match r {
                    Root::ParentOf(n) => format!("parent of {n}"),
                    Root::Kind(n) => n.to_string(),
                })
                .collect::<Vec<_>>(),
            None => vec!["none".into()],
        };
        assert_eq!(child("(_ value: (object (pair)))"), ["parent of object"]);
        assert_eq!(
            child("(_\n  name: (_)? @container\n  body: (class_body (x)))"),
            ["parent of class_body"]
        );
        assert_eq!(child("(_ (_) (y))"), ["none"]);
        assert_eq!(child("(_ [(a) (b)])"), ["none"]);
        assert_eq!(child("(function_item)"), ["function_item"]);
        assert_eq!(child("(a (b) @x) @y"), ["a"]);
        assert_eq!(child("  ; comment\n[(a \"]\" (b)) @x (c)] @y"), ["a", "c"]);
        assert_eq!(
            child("[(_ value: (object)) (assignment_expression)]"),
            ["parent of object", "assignment_expression"]
        );
        assert_eq!(child("\"fn\" @kw"), ["none"]);
        assert_eq!(
            child("((a (b) @x) @y (#scope? @y module) (#eq? @x \")\"))"),
            ["a"]
        );
        assert_eq!(child("( [(a) (b)] @y (#p! @y))"), ["a", "b"]);
        assert_eq!(child("((a) (b))"), ["none"]);
        assert_eq!(child("((a) @x (b))"), ["none"]);
        assert_eq!(child("(_hidden)"), ["none"]);
    }
}
