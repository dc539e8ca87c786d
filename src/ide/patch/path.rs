//! A patch's paths checked as workspace-relative.
//!
//! Invariant: a path that passes is non-empty, relative, `/`-separated, and made of
//! components that are neither empty, `.` nor `..`, with no NUL and no `\`; so joined to the
//! root it names a file inside it, the same on every platform.

/// `path` when it is workspace-relative, or why not.
pub(super) fn validate(path: &str) -> Result<String, String> {
    let refuse = |why: &str| Err(format!("invalid path `{}`: {why}", path.escape_debug()));
    if path.is_empty() {
        return refuse("the path is empty");
    }
    if path.contains('\0') {
        return refuse("it contains a NUL character");
    }
    if path.contains('\\') {
        return refuse("it contains `\\`; separate components with `/`");
    }
    if path.starts_with('/') {
        return refuse("it is absolute; give it relative to the workspace root");
    }
    if path.len() >= 2 && path.as_bytes()[1] == b':' && path.as_bytes()[0].is_ascii_alphabetic() {
        return refuse("it starts with a drive letter; give it relative to the workspace root");
    }
    for component in path.split('/') {
        match component {
            "" => return refuse("it has an empty component"),
            "." | ".." => return refuse(&format!("it has a `{component}` component")),
            _ => {}
        }
    }
    Ok(path.to_string())
}

#[cfg(test)]
mod tests {
    use super::validate;

    #[test]
    fn workspace_relative_paths_pass() {
        assert_eq!(validate("src/app.py"), Ok("src/app.py".to_string()));
        assert_eq!(validate("a b/.hidden"), Ok("a b/.hidden".to_string()));
        assert_eq!(validate("..x/y.."), Ok("..x/y..".to_string()));
    }

    #[test]
    fn paths_leaving_or_blurring_the_root_are_refused_with_the_reason() {
        let cases = [
            ("", "invalid path ``: the path is empty"),
            (
                "/etc/passwd",
                "invalid path `/etc/passwd`: it is absolute; give it relative to the workspace root",
            ),
            ("a/../b", "invalid path `a/../b`: it has a `..` component"),
            ("./a", "invalid path `./a`: it has a `.` component"),
            ("a//b", "invalid path `a//b`: it has an empty component"),
            ("a/", "invalid path `a/`: it has an empty component"),
            ("a\0b", "invalid path `a\\0b`: it contains a NUL character"),
            (
                "a\\b",
                "invalid path `a\\\\b`: it contains `\\`; separate components with `/`",
            ),
            (
                "C:x",
                "invalid path `C:x`: it starts with a drive letter; give it relative to the workspace root",
            ),
        ];
        for (path, message) in cases {
            assert_eq!(validate(path), Err(message.to_string()), "{path:?}");
        }
    }
}
