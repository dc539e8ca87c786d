//! SX009 for Python: a key written twice in one dictionary literal with different values,
//! by pyflakes's rule (F601). Keys are compared by value when they are constants — strings
//! (by their text and kind: `b"a"` is not `"a"`), numbers (`1`, `1.0` and `True` are one
//! key, as in Python), `None`, and tuples of those; any other key is never a duplicate.
//! Values are compared the same way, a name by its name; a value that is neither is unlike
//! every other. Every occurrence of such a key is reported unless all its values are alike.
//! When they are all alike (`{"a": 1, "a": 1}`), as ruff's F601 has it, each repeat after
//! the first is reported as repeated with the same value (pyflakes is silent: the
//! dictionary is what it would be without it), with a safe fix removing it (`same_value`).
//!
//! Invariant: reads the file's tree only; a string with an escape is compared by its text
//! as written (two spellings of one value are not recognised: silence, not a false report).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::checks::{
    CheckContext, Diagnostic,
    fix::{Fix, range},
    node_range,
    registry::ids,
    walk,
};
use crate::syntax::TextRange;

/// A constant's value, as far as equality goes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Value {
    Str(String),
    Bytes(String),
    Int(i128),
    /// A float that is not an integer, by its bits.
    Float(u64),
    None,
    Tuple(Vec<Value>),
    /// A name (as a value only).
    Name(String),
}

pub(super) fn duplicate_keys(tree: &CheckContext) -> Vec<Diagnostic> {
    let text = tree.text();
    let text = &*text;
    // Most files have no dictionary with two keys that could be alike: no parse for those.
    if !may_repeat_a_key(text) {
        return Vec::new();
    }
    let Some(parsed) = tree.tree() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    walk(parsed.root_node(), &mut |node| {
        if node.kind() == "dictionary" {
            check_dictionary(node, text, &mut found);
        }
        true
    });
    found
}

/// Whether two constant keys of a dictionary literal could be equal, judged from the text
/// alone: every `key:` written after `{` or `,` whose key is a string, a number, `None`,
/// `True` or `False` is reduced to what equal keys share (a string's text between its
/// quotes, a number's value), and a repeat, or a key ending in `)` (a tuple), answers yes.
/// Never no when a dictionary has equal constant keys (except `"a" "b"` against `"ab"`).
fn may_repeat_a_key(text: &str) -> bool {
    if !text.contains('{') {
        return false;
    }
    let bytes = text.as_bytes();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (colon, _) in text.match_indices(':') {
        let end = skip_space_back(bytes, colon);
        if end == 0 {
            continue;
        }
        let Some((start, key)) = key_ending_at(text, end) else {
            continue;
        };
        let before = entry_start(text, start);
        if before == 0 || !matches!(bytes[before - 1], b'{' | b',') {
            continue;
        }
        if key.is_empty() || !seen.insert(key) {
            return true;
        }
    }
    false
}

/// Back over blank space and line continuations from `j`.
fn skip_space_back(bytes: &[u8], mut j: usize) -> usize {
    while j > 0 && matches!(bytes[j - 1], b' ' | b'\t' | b'\n' | b'\r' | b'\\') {
        j -= 1;
    }
    j
}

/// The key written just before `end` (a colon, blanks skipped): where it starts, and what
/// it is as far as equality goes (empty: a tuple, not told apart); `None` for anything
/// else.
fn key_ending_at(text: &str, end: usize) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let last = bytes[end - 1];
    match last {
        b'"' | b'\'' => {
            let open = text[..end - 1].rfind(last as char)?;
            let mut start = open;
            while start > 0 && bytes[start - 1].is_ascii_alphabetic() {
                start -= 1;
            }
            let prefix = text[start..open].to_ascii_lowercase();
            let kind = if prefix.contains('b') { "b" } else { "s" };
            Some((start, format!("{kind}:{}", &text[open + 1..end - 1])))
        }
        // A tuple: from its matching `(` (brackets in strings are not told apart).
        b')' => {
            let mut depth = 0usize;
            for k in (end.saturating_sub(4096)..end).rev() {
                match bytes[k] {
                    b')' => depth += 1,
                    b'(' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((k, String::new()));
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {
            let mut start = end - 1;
            while start > 0
                && (bytes[start - 1].is_ascii_alphanumeric()
                    || matches!(bytes[start - 1], b'_' | b'.'))
            {
                start -= 1;
            }
            Some((start, word_key(&text[start..end])?))
        }
        _ => None,
    }
}

/// A constant written as a word (`None`, `True`, a number) as a key; `None` for a name,
/// whose value is not known.
fn word_key(word: &str) -> Option<String> {
    Some(match word {
        "None" => "none".to_string(),
        "True" => "n:1".to_string(),
        "False" => "n:0".to_string(),
        _ if word.as_bytes()[0].is_ascii_digit() || word.starts_with('.') => match integer(word) {
            Some(n) => format!("n:{n}"),
            None => match word.replace('_', "").parse::<f64>() {
                Ok(f) if f.fract() == 0.0 && f.abs() < 1e18 => format!("n:{}", f as i128),
                Ok(f) => format!("f:{}", f.to_bits()),
                Err(_) => return None,
            },
        },
        _ => return None,
    })
}

/// Where the entry whose key starts at `start` begins: back over blank space and comments
/// (`0x20: 0x20,  # SPACE` then a newline).
fn entry_start(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut before = skip_space_back(bytes, start);
    while text[before..start].contains('\n') {
        let line_start = text[..before].rfind('\n').map_or(0, |i| i + 1);
        let Some(hash) = text[line_start..before].find('#') else {
            break;
        };
        let above = skip_space_back(bytes, line_start + hash);
        if above == before {
            break;
        }
        before = above;
    }
    before
}

fn check_dictionary(dictionary: Node, text: &str, found: &mut Vec<Diagnostic>) {
    let mut cursor = dictionary.walk();
    let pairs: Vec<(Node, Value, Option<Value>)> = dictionary
        .named_children(&mut cursor)
        .filter(|p| p.kind() == "pair")
        .filter_map(|pair| {
            let key = pair.child_by_field_name("key")?;
            let value = pair.child_by_field_name("value")?;
            Some((key, constant(key, text)?, value_of(value, text)))
        })
        .collect();
    if pairs.len() < 2 {
        return;
    }
    let mut by_key: HashMap<&Value, Vec<usize>> = HashMap::new();
    for (i, (_, key, _)) in pairs.iter().enumerate() {
        by_key.entry(key).or_default().push(i);
    }
    let mut reported: Vec<usize> = Vec::new();
    let mut repeats: Vec<(usize, usize)> = Vec::new();
    for indices in by_key.values().filter(|i| i.len() > 1) {
        // Unlike values: one of them occurs once (a value that is no constant is unique).
        let mut counts: HashMap<Option<&Value>, usize> = HashMap::new();
        let mut unique = false;
        for &i in indices {
            match &pairs[i].2 {
                Some(v) => *counts.entry(Some(v)).or_default() += 1,
                None => unique = true,
            }
        }
        if unique || counts.values().any(|&n| n == 1) {
            reported.extend(indices);
        } else if counts.len() == 1 {
            repeats.extend(indices[1..].iter().map(|&i| (i, indices[0])));
        }
    }
    repeats.sort_unstable();
    for (i, first) in repeats {
        let (key, first_key) = (pairs[i].0, pairs[first].0);
        let written = &text[key.byte_range()];
        found.push(
            Diagnostic::new(
                ids::DUPLICATE_DEFINITION,
                node_range(key),
                format!("dictionary key {written} repeated with the same value"),
            )
            .with_related(
                node_range(first_key),
                format!("{} first written here", &text[first_key.byte_range()]),
            )
            .with_fix(same_value(dictionary, first_key, key, text)),
        );
    }
    reported.sort_unstable();
    for i in reported {
        let key = pairs[i].0;
        found.push(Diagnostic::new(
            ids::DUPLICATE_DEFINITION,
            TextRange::new(
                (key.start_byte() as u32).into(),
                (key.end_byte() as u32).into(),
            ),
            format!(
                "dictionary key {} repeated with different values",
                &text[key.byte_range()]
            ),
        ));
    }
}

/// The fix of a key repeated with the same value: the repeat's entry removed with the
/// comma before it (`{"a": 1, "a": 1}` → `{"a": 1}`). Safe: the dictionary keeps the first
/// key object and the last value, which is the same literal, or the same name that nothing
/// evaluated in between could rebind; evaluating a constant key or such a value does
/// nothing else. So the values must be one scalar literal kind with one value (`1` and
/// `1.0` are equal, not the same object) or one name; every entry between the two must
/// have a constant key (another key could be this one at run time, as a `**spread` could
/// hold it) and, for a name, a value that is a constant or a name (a call could rebind
/// it). Refused when a comment is in the removed text or ends the removed entry's line
/// (it would go with it, or be left describing the entry before). One per dictionary per
/// pass.
fn same_value(dictionary: Node, first_key: Node, key: Node, text: &str) -> Option<Fix> {
    let pair = key.parent()?;
    let first_pair = first_key.parent()?;
    let value = pair.child_by_field_name("value")?;
    let first_value = first_pair.child_by_field_name("value")?;
    let scalar = matches!(
        value.kind(),
        "string" | "concatenated_string" | "integer" | "float" | "true" | "false" | "none"
    );
    if value.kind() != first_value.kind()
        || !(scalar || value.kind() == "identifier")
        || value_of(value, text) != value_of(first_value, text)
    {
        return None;
    }
    let mut cursor = dictionary.walk();
    let items: Vec<Node> = dictionary
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let at = items.iter().position(|n| n.id() == pair.id())?;
    let from = items.iter().position(|n| n.id() == first_pair.id())?;
    let inert_between = items[from + 1..at].iter().all(|item| {
        item.kind() == "pair"
            && item
                .child_by_field_name("key")
                .is_some_and(|k| constant(k, text).is_some())
            && item
                .child_by_field_name("value")
                .is_some_and(|v| scalar || v.kind() == "identifier" || constant(v, text).is_some())
    });
    if !inert_between {
        return None;
    }
    let (start, end) = (items[at - 1].end_byte(), pair.end_byte());
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let mut commented = false;
    walk(dictionary, &mut |node| {
        commented |=
            node.kind() == "comment" && node.start_byte() < line_end && node.end_byte() > start;
        !commented
    });
    if commented {
        return None;
    }
    let title = format!("Remove repeated key {}", &text[key.byte_range()]);
    Some(
        Fix::safe(title, vec![(range(start, end), String::new())])
            .isolated_in(Some(node_range(dictionary))),
    )
}

fn value_of(node: Node, text: &str) -> Option<Value> {
    match node.kind() {
        "identifier" => Some(Value::Name(text[node.byte_range()].to_string())),
        _ => constant(node, text),
    }
}

/// The value of a constant expression; `None` for anything else.
fn constant(node: Node, text: &str) -> Option<Value> {
    let written = &text[node.byte_range()];
    match node.kind() {
        "string" => string(node, text),
        // `"a" "b"` is `"ab"`.
        "concatenated_string" => {
            let mut cursor = node.walk();
            let mut joined: Option<Value> = None;
            for part in node.named_children(&mut cursor) {
                joined = match (joined, string(part, text)?) {
                    (None, first) => Some(first),
                    (Some(Value::Str(a)), Value::Str(b)) => Some(Value::Str(a + &b)),
                    (Some(Value::Bytes(a)), Value::Bytes(b)) => Some(Value::Bytes(a + &b)),
                    _ => return None,
                };
            }
            joined
        }
        "integer" => integer(written).map(Value::Int),
        "float" => {
            let value: f64 = written.replace('_', "").parse().ok()?;
            if value.fract() == 0.0 && value.abs() < 1e18 {
                Some(Value::Int(value as i128))
            } else {
                Some(Value::Float(value.to_bits()))
            }
        }
        "true" => Some(Value::Int(1)),
        "false" => Some(Value::Int(0)),
        "none" => Some(Value::None),
        "parenthesized_expression" => constant(node.named_child(0)?, text),
        "tuple" => {
            let mut cursor = node.walk();
            let items: Option<Vec<Value>> = node
                .named_children(&mut cursor)
                .map(|item| constant(item, text))
                .collect();
            Some(Value::Tuple(items?))
        }
        _ => None,
    }
}

fn integer(written: &str) -> Option<i128> {
    let digits = written.replace('_', "");
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        _ => (10, lower.as_str()),
    };
    i128::from_str_radix(body, radix).ok()
}

/// A string literal's value: plain strings and bytes, without interpolation; an escape
/// sequence keeps its spelling.
fn string(node: Node, text: &str) -> Option<Value> {
    let mut cursor = node.walk();
    let mut content = String::new();
    let mut prefix = String::new();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "string_start" => {
                prefix = text[child.byte_range()]
                    .trim_end_matches(['"', '\''])
                    .to_ascii_lowercase();
            }
            "string_content" | "escape_sequence" => content.push_str(&text[child.byte_range()]),
            "string_end" => {}
            // An interpolation (`f"{x}"`) or anything unexpected: not a constant.
            _ => return None,
        }
    }
    // Escapes inside content nodes: compare raw and cooked strings by their text only when
    // neither has a backslash.
    if prefix.contains('f') || (content.contains('\\') && prefix.contains('r')) {
        return None;
    }
    Some(if prefix.contains('b') {
        Value::Bytes(content)
    } else {
        Value::Str(content)
    })
}
