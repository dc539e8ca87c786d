//! Named query fragments: `; define NAME` … `; end` blocks and `(#splice! NAME args…)` uses.
//!
//! A query file may name a fragment once and use it wherever the same alternation would
//! otherwise be written out again (`name: (#splice! property_name)`). Expansion is purely
//! textual and happens before the query is compiled, so the compiled query (and the pattern
//! roots read from its text, `roots.rs`) is exactly what writing the fragment out by hand
//! gives. In a fragment, `$1` … `$9` (outside strings and comments) stand for the use's
//! arguments: `@definition.$1` with `(#splice! names variable)` is `@definition.variable`.
//!
//! Invariant: after [`expand`], no `(#splice!` remains outside comments and strings, and
//! every use named a known fragment with as many arguments as it reads; anything else is an
//! error naming the file, never a silently different query.

use std::collections::BTreeMap;

/// Fragments by name.
pub type Fragments = BTreeMap<String, String>;

const SPLICE: &str = "(#splice!";

/// Uses inside fragments nest at most this deep (a deeper nesting is a cycle).
const MAX_NESTING: usize = 16;

/// Removes the `; define NAME` … `; end` blocks of `text`, returning the rest and the
/// fragments. `file` names the file in errors.
pub fn take_fragments(file: &str, text: &str) -> Result<(String, Fragments), String> {
    let mut rest = String::with_capacity(text.len());
    let mut fragments = Fragments::new();
    let mut open: Option<(String, String)> = None;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let directive = directive(line);
        match (&mut open, directive) {
            (None, Some(Directive::Define(name))) => open = Some((name.to_string(), String::new())),
            (None, Some(Directive::End)) => {
                return Err(format!("{file}:{}: `; end` without `; define`", index + 1));
            }
            (None, None) => rest.push_str(line),
            (Some((name, _)), Some(Directive::Define(_))) => {
                return Err(format!(
                    "{file}:{}: `; define` inside the definition of {name:?}",
                    index + 1
                ));
            }
            (Some(_), Some(Directive::End)) => {
                let (name, body) = open.take().expect("open");
                if fragments.insert(name.clone(), body).is_some() {
                    return Err(format!("{file}: {name:?} is defined twice"));
                }
            }
            (Some((_, body)), None) => body.push_str(line),
        }
    }
    if let Some((name, _)) = open {
        return Err(format!("{file}: the definition of {name:?} has no `; end`"));
    }
    Ok((rest, fragments))
}

enum Directive<'a> {
    Define(&'a str),
    End,
}

fn directive(line: &str) -> Option<Directive<'_>> {
    let words: Vec<&str> = line.trim().strip_prefix(';')?.split_whitespace().collect();
    match words.as_slice() {
        ["define", name] if is_name(name) => Some(Directive::Define(name)),
        ["end"] => Some(Directive::End),
        _ => None,
    }
}

fn is_name(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// Replaces every use in `text` with its fragment, arguments substituted, recursively.
pub fn expand(file: &str, text: &str, fragments: &Fragments) -> Result<String, String> {
    expand_nested(file, text, fragments, 0)
}

fn expand_nested(
    file: &str,
    text: &str,
    fragments: &Fragments,
    nesting: usize,
) -> Result<String, String> {
    if nesting > MAX_NESTING {
        return Err(format!("{file}: splices nest too deep (a cycle?)"));
    }
    let mut out = String::with_capacity(text.len());
    let mut spans = Spans::new(text);
    while let Some((start, end, code)) = spans.next_span() {
        let span = &text[start..end];
        let Some(at) = span.find(SPLICE).filter(|_| code) else {
            out.push_str(span);
            continue;
        };
        out.push_str(&span[..at]);
        let use_start = start + at;
        let close = text[use_start..]
            .find(')')
            .map(|i| use_start + i)
            .ok_or_else(|| format!("{file}: unclosed {SPLICE}"))?;
        let mut words = text[use_start + SPLICE.len()..close].split_whitespace();
        let name = words
            .next()
            .ok_or_else(|| format!("{file}: {SPLICE} without a name"))?;
        let args: Vec<&str> = words.collect();
        let fragment = fragments
            .get(name)
            .ok_or_else(|| format!("{file}: {SPLICE} {name}): no `; define {name}`"))?;
        let body =
            substitute(fragment, &args).map_err(|e| format!("{file}: {SPLICE} {name}): {e}"))?;
        out.push_str(expand_nested(file, &body, fragments, nesting + 1)?.trim_end());
        spans.resume_at(close + 1);
    }
    Ok(out)
}

/// Replaces `$1` … `$9` in the code (not in strings or comments) of `fragment`.
fn substitute(fragment: &str, args: &[&str]) -> Result<String, String> {
    let mut out = String::with_capacity(fragment.len());
    let mut spans = Spans::new(fragment);
    while let Some((start, end, code)) = spans.next_span() {
        let span = &fragment[start..end];
        if !code {
            out.push_str(span);
            continue;
        }
        let mut chars = span.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            let digit = chars.peek().and_then(|&(_, d)| d.to_digit(10));
            match (c, digit) {
                ('$', Some(n)) if n >= 1 => {
                    chars.next();
                    let arg = args.get(n as usize - 1).ok_or_else(|| {
                        format!(
                            "the fragment reads ${n} but {} arguments are given",
                            args.len()
                        )
                    })?;
                    out.push_str(arg);
                }
                _ => out.push(c),
            }
        }
    }
    Ok(out)
}

/// Splits a query text into spans: a string literal, a comment (to the end of its line),
/// or code up to the next of either. Only code spans hold uses and placeholders.
struct Spans<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Spans<'a> {
    fn new(text: &'a str) -> Self {
        Spans { text, pos: 0 }
    }

    fn resume_at(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// The next span's byte range, and whether it is code.
    fn next_span(&mut self) -> Option<(usize, usize, bool)> {
        let rest = self.text.get(self.pos..).filter(|r| !r.is_empty())?;
        let start = self.pos;
        let (len, code) = match rest.as_bytes()[0] {
            b'"' => (string_len(rest), false),
            b';' => (rest.find('\n').unwrap_or(rest.len()), false),
            _ => (rest.find(['"', ';']).unwrap_or(rest.len()), true),
        };
        self.pos += len;
        Some((start, start + len, code))
    }
}

/// Length of the string literal at the start of `text`, quotes and escapes included.
fn string_len(text: &str) -> usize {
    let mut chars = text.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return i + 1,
            _ => {}
        }
    }
    text.len()
}
