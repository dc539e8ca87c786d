//! The node kinds at which a query's patterns can start matching.
//!
//! Running a query cursor over a whole tree costs about half a parse even for one trivial
//! pattern (the cursor inspects every node). When every pattern is rooted at named node
//! kinds, a plain tree walk can find the candidate roots instead and start the cursor only
//! there, with a start depth of 0 so that it descends no further than the pattern needs.

use std::collections::HashSet;

/// Kinds (by id) at which some pattern starts, plus whether `ERROR` nodes are roots.
/// `None` when a pattern starts with a wildcard, a hidden or supertype node, a literal
/// token or anything else this analysis does not understand: then the whole tree must be
/// searched.
#[derive(Debug, Clone)]
pub struct PatternRoots {
    kinds: Vec<bool>,
    pub error_nodes: bool,
}

impl PatternRoots {
    pub fn contains(&self, kind_id: u16) -> bool {
        self.kinds.get(kind_id as usize).copied().unwrap_or(false)
    }
}

pub fn pattern_roots(grammar: &tree_sitter::Language, query: &tree_sitter::Query, source: &str) -> Option<PatternRoots> {
    let mut names: HashSet<&str> = HashSet::new();
    for pattern in 0..query.pattern_count() {
        let start = query.start_byte_for_pattern(pattern);
        names.extend(root_names(source.get(start..)?)?);
    }
    let count = grammar.node_kind_count();
    let mut kinds = vec![false; count];
    let mut error_nodes = false;
    for name in names {
        if name == "ERROR" {
            error_nodes = true;
            continue;
        }
        let mut found = false;
        // Aliases can give one name several ids: mark them all.
        for id in 0..count as u16 {
            if grammar.node_kind_is_named(id) && grammar.node_kind_for_id(id) == Some(name) {
                if grammar.node_kind_is_supertype(id) || !grammar.node_kind_is_visible(id) {
                    return None;
                }
                kinds[id as usize] = true;
                found = true;
            }
        }
        if !found {
            return None;
        }
    }
    Some(PatternRoots { kinds, error_nodes })
}

/// The root node names of the pattern at the start of `text`: `(name …)` or an alternation
/// `[(a …) (b …)]`.
fn root_names(text: &str) -> Option<Vec<&str>> {
    let text = skip_trivia(text);
    if let Some(rest) = text.strip_prefix('(') {
        return Some(vec![node_name(rest)?]);
    }
    let mut rest = text.strip_prefix('[')?;
    let mut names = Vec::new();
    loop {
        rest = skip_trivia(rest);
        if rest.starts_with(']') {
            return Some(names);
        }
        let inner = rest.strip_prefix('(')?;
        names.push(node_name(inner)?);
        rest = skip_balanced(rest)?;
        // Captures and quantifiers after an alternative: `(a) @x`.
        rest = skip_trivia(rest);
        while rest.starts_with('@') {
            let end = rest.find(|c: char| c.is_whitespace() || c == ']' || c == '(').unwrap_or(rest.len());
            rest = skip_trivia(&rest[end..]);
        }
    }
}

fn node_name(text: &str) -> Option<&str> {
    let text = skip_trivia(text);
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
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
        assert_eq!(root_names("(a (b) @x) @y"), Some(vec!["a"]));
        assert_eq!(root_names("  ; comment\n[(a \"]\" (b)) @x (c)] @y"), Some(vec!["a", "c"]));
        assert_eq!(root_names("(_ (b))"), None);
        assert_eq!(root_names("\"fn\" @kw"), None);
        assert_eq!(root_names("(_hidden)"), None);
    }
}
