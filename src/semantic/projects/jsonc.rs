//! JSON with comments and trailing commas (tsconfig and jsconfig files), turned into JSON.
//!
//! Invariant: apart from a leading byte-order mark, the output has exactly the input's bytes
//! except that comments and trailing commas become spaces (newlines kept), so line and
//! column numbers in parse errors point at the original text. Text inside strings is never changed; an unterminated string or
//! comment runs to the end of the input and the JSON parser reports it.

/// `text` with `//` and `/* */` comments and trailing commas blanked out.
pub fn strip(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let without_comments = blank_comments(text.as_bytes());
    let out = blank_trailing_commas(without_comments);
    // Only ASCII bytes outside strings were replaced by ASCII spaces: still UTF-8.
    String::from_utf8(out).expect("blanking ASCII keeps UTF-8 valid")
}

fn blank_comments(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |p| i + 2 + p + 2);
                for b in &mut out[i..end] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

fn blank_trailing_commas(mut bytes: Vec<u8>) -> Vec<u8> {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(&bytes, i),
            b',' => {
                let next = bytes[i + 1..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .copied();
                if matches!(next, Some(b']' | b'}')) {
                    bytes[i] = b' ';
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    bytes
}

/// The index just past the string starting at `start` (a `"`), or the end of the input.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::strip;
    use serde_json::{Value, json};

    fn parse(text: &str) -> Value {
        serde_json::from_str(&strip(text)).unwrap()
    }

    #[test]
    fn comments_and_trailing_commas_are_removed() {
        let text = r#"{
  // line comment
  "a": 1, /* block
  comment */ "b": [1, 2, ],
  "c": { "d": "x", }, // trailing
}"#;
        assert_eq!(parse(text), json!({"a": 1, "b": [1, 2], "c": {"d": "x"}}));
    }

    #[test]
    fn strings_are_left_alone() {
        let text = r#"{"url": "http://x//y", "glob": "src/**/*.ts", "q": "a \" // b", "c": ",}"}"#;
        assert_eq!(
            parse(text),
            json!({"url": "http://x//y", "glob": "src/**/*.ts", "q": "a \" // b", "c": ",}"})
        );
    }

    #[test]
    fn a_comment_between_a_comma_and_the_bracket() {
        assert_eq!(parse("[1, // last\n]"), json!([1]));
        assert_eq!(parse("{\"a\": 1, /* x */ }"), json!({"a": 1}));
    }

    #[test]
    fn positions_are_kept() {
        let text = "{\n  // c\n  \"a\": 1,\n}";
        let stripped = strip(text);
        assert_eq!(stripped.len(), text.len());
        assert_eq!(stripped.lines().count(), text.lines().count());
        let err = serde_json::from_str::<Value>(&strip("{\n // c\n \"a\": }")).unwrap_err();
        assert_eq!(err.line(), 3);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for text in ["\"abc", "/* open", "// x", "\"a\\", ",", "[,"] {
            strip(text);
        }
        // A leading byte-order mark is dropped.
        assert_eq!(parse("\u{feff}{}"), json!({}));
    }
}
