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
        let (name, args, close) = parse_use(text, use_start + SPLICE.len())
            .ok_or_else(|| format!("{file}: unclosed or malformed {SPLICE}"))?;
        let fragment = fragments
            .get(name)
            .ok_or_else(|| format!("{file}: {SPLICE} {name}): no `; define {name}`"))?;
        let body =
            substitute(fragment, &args).map_err(|e| format!("{file}: {SPLICE} {name}): {e}"))?;
        let spliced = expand_nested(file, &body, fragments, nesting + 1)?;
        let spliced = spliced.trim_end();
        out.push_str(spliced);
        if ends_in_comment(spliced) {
            // What follows the use must not join the comment.
            out.push('\n');
        }
        spans.resume_at(close);
    }
    Ok(out)
}

/// The name and arguments of a use whose text starts at `from` (just after `(#splice!`),
/// and the offset just past its closing parenthesis. An argument is a bare word, or a
/// parenthesized or bracketed form with the captures that follow it:
/// `(#splice! in_object (pair key: (_) @name) @definition.method)` has one.
fn parse_use(text: &str, from: usize) -> Option<(&str, Vec<&str>, usize)> {
    let mut words = Vec::new();
    let mut pos = from;
    loop {
        let rest = &text[pos..];
        let trimmed = rest.trim_start();
        pos += rest.len() - trimmed.len();
        match trimmed.chars().next()? {
            ')' => break,
            '(' | '[' => {
                let mut end = pos + balanced_len(trimmed)?;
                // Captures on the form.
                loop {
                    let after = &text[end..];
                    let capture = after.trim_start();
                    if !capture.starts_with('@') {
                        break;
                    }
                    let len = capture
                        .find(|c: char| c.is_whitespace() || c == ')')
                        .unwrap_or(capture.len());
                    end += after.len() - capture.len() + len;
                }
                words.push(&text[pos..end]);
                pos = end;
            }
            _ => {
                let len = trimmed
                    .find(|c: char| c.is_whitespace() || c == ')')
                    .unwrap_or(trimmed.len());
                words.push(&trimmed[..len]);
                pos += len;
            }
        }
    }
    let (name, args) = words.split_first()?;
    Some((name, args.to_vec(), pos + 1))
}

/// Length of the balanced form at the start of `text`, strings and comments honoured.
fn balanced_len(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut spans = Spans::new(text);
    while let Some((start, end, code)) = spans.next_span() {
        if !code {
            continue;
        }
        for (i, c) in text[start..end].char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(start + i + 1);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

fn ends_in_comment(text: &str) -> bool {
    let mut spans = Spans::new(text);
    let mut last_is_comment = false;
    while let Some((start, _, code)) = spans.next_span() {
        last_is_comment = !code && text[start..].starts_with(';');
    }
    last_is_comment
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

#[cfg(test)]
mod tests {
    use super::*;

    fn compose(text: &str) -> Result<String, String> {
        let (rest, fragments) = take_fragments("t.scm", text)?;
        expand("t.scm", &rest, &fragments)
    }

    #[test]
    fn fragments_are_spliced_with_their_arguments() {
        let text = "; define names\n[(a) @definition.$1 (b \"$1\")] ; $1 stays\n; end\n\
                    (x (#splice! names variable))\n(y (#splice! names field))\n";
        assert_eq!(
            compose(text).unwrap(),
            "(x [(a) @definition.variable (b \"$1\")] ; $1 stays\n)\n\
             (y [(a) @definition.field (b \"$1\")] ; $1 stays\n)\n"
        );
    }

    #[test]
    fn fragments_nest_and_uses_in_comments_and_strings_are_text() {
        let text = "; define inner\n(i)\n; end\n; define outer\n(o (#splice! inner))\n; end\n\
                    ; (#splice! nothing) in a comment\n(p \"(#splice! nothing)\" (#splice! outer))\n";
        assert_eq!(
            compose(text).unwrap(),
            "; (#splice! nothing) in a comment\n(p \"(#splice! nothing)\" (o (i)))\n"
        );
    }

    #[test]
    fn arguments_may_be_forms_with_captures() {
        let text = "; define either\n[$1 (export $1)]\n; end\n\
                    (p (#splice! either (pair key: (_) @name \")\") @definition.method))\n";
        assert_eq!(
            compose(text).unwrap(),
            "(p [(pair key: (_) @name \")\") @definition.method (export (pair key: (_) @name \")\") @definition.method)])\n"
        );
    }

    #[test]
    fn mistakes_are_errors_naming_the_file() {
        for (text, error) in [
            ("(#splice! missing)", "no `; define missing`"),
            (
                "; define a\n(a $2)\n; end\n(#splice! a x)",
                "reads $2 but 1 arguments",
            ),
            ("; define a\n(a)\n", "has no `; end`"),
            ("; end\n", "without `; define`"),
            ("; define a\n; define b\n; end\n", "inside the definition"),
            (
                "; define a\n(a)\n; end\n; define a\n(a)\n; end\n",
                "defined twice",
            ),
            ("; define a\n(#splice! a)\n; end\n(#splice! a)", "too deep"),
            ("(x (#splice! a", "unclosed"),
            ("(x (#splice!))", "malformed"),
        ] {
            let err = compose(text).unwrap_err();
            assert!(err.starts_with("t.scm"), "{err}");
            assert!(err.contains(error), "{text:?}: {err}");
        }
    }
}
