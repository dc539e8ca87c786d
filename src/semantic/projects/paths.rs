//! Workspace-relative paths for project files: joining, parents, display, and the globs
//! that Cargo and npm workspaces list their members with.
//!
//! Invariant: every path is lexical (no disk access) and workspace-relative with `/`
//! separators; the root directory is `""` internally and `"."` when shown. A path that
//! would leave the workspace is `None`, never a `..` path.

/// The directory of a workspace-relative file path (`""` for a file at the root).
pub fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `rel` (relative, with `.` and `..` allowed) joined onto the directory `dir`, normalised;
/// `None` when it leaves the workspace.
pub fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// A directory as shown to users: `"."` for the root.
pub fn display_dir(dir: &str) -> String {
    if dir.is_empty() {
        ".".into()
    } else {
        dir.to_string()
    }
}

/// A path relative to the project directory `dir`, made workspace-relative for display;
/// `None` when it leaves the workspace.
pub fn resolve_dir(dir: &str, rel: &str) -> Option<String> {
    join(dir, rel).map(|p| display_dir(&p))
}

/// Whether the workspace-relative `path` matches `pattern` (also workspace-relative),
/// segment by segment: `*` and `?` within a segment, `**` for any number of segments.
/// Other characters match themselves.
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let path: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    segments_match(&pattern, &path)
}

fn segments_match(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| segments_match(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((segment, path_rest)) => {
                segment_matches(first.as_bytes(), segment.as_bytes())
                    && segments_match(rest, path_rest)
            }
            None => false,
        },
    }
}

/// `*` and `?` within one segment (iterative, with backtracking to the last `*`).
fn segment_matches(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_normalises_and_refuses_to_leave_the_workspace() {
        assert_eq!(join("", "src"), Some("src".into()));
        assert_eq!(join("a/b", "../c/./d"), Some("a/c/d".into()));
        assert_eq!(join("a", ".."), Some("".into()));
        assert_eq!(join("a", "../.."), None);
        assert_eq!(parent("a/b/Cargo.toml"), "a/b");
        assert_eq!(parent("Cargo.toml"), "");
        assert_eq!(resolve_dir("", "."), Some(".".into()));
    }

    #[test]
    fn globs_match_by_segment() {
        assert!(glob_matches("crates/*", "crates/core"));
        assert!(!glob_matches("crates/*", "crates/core/sub"));
        assert!(!glob_matches("crates/*", "crates"));
        assert!(glob_matches("crates/**", "crates/a/b"));
        assert!(glob_matches("**/x", "x"));
        assert!(glob_matches("tools/gen-*", "tools/gen-api"));
        assert!(glob_matches("c?re", "core"));
        assert!(glob_matches("packages/*-ui", "packages/web-ui"));
        assert!(!glob_matches("packages/*-ui", "packages/web-api"));
        assert!(glob_matches("app", "app"));
    }
}
