//! Document URIs to paths and back, and confinement to the workspace root.
//!
//! Invariant: only a `file` URI on this machine (no host or `localhost`, no query or
//! fragment) whose percent-decoded, lexically normalised path lies inside the root, without
//! leaving it through a symlink, becomes a workspace path; anything else is never overlaid,
//! read from disk or indexed on the client's say-so. Decoding comes before normalising, so
//! `%2e%2e` counts as `..` here as it will for the disk.

use std::{
    path::{Path, PathBuf},
    str::FromStr,
};

use lsp_types::Uri;

use crate::workspace::{normalize_lexically, relative_path, resolves_inside};

/// The workspace-relative path of `uri` if it names a file inside `root`.
pub fn workspace_path(root: &Path, uri: &Uri) -> Option<String> {
    let path = uri_to_path(uri)?;
    let rel = relative_path(root, &path).filter(|r| !r.is_empty())?;
    resolves_inside(root, &path).then_some(rel)
}

/// The absolute, lexically normalised path a URI names: a `file` URI on this machine (no
/// host or `localhost`), without query or fragment, whose percent-decoded path is UTF-8 with
/// no NUL. `None` for anything else.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    if !uri
        .scheme()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("file"))
    {
        return None;
    }
    if let Some(authority) = uri.authority() {
        let host = authority.host().as_str();
        let local = host.is_empty() || host.eq_ignore_ascii_case("localhost");
        if !local || authority.userinfo().is_some() || authority.port().is_some() {
            return None;
        }
    }
    if uri.query().is_some() || uri.fragment().is_some() {
        return None;
    }
    let decoded = percent_decode(uri.path().as_str())?;
    if decoded.contains('\0') {
        return None;
    }
    normalize_lexically(Path::new(&decoded))
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(encoded: &str) -> Option<String> {
    let raw = encoded.as_bytes();
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = std::str::from_utf8(raw.get(i + 1..i + 3)?).ok()?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    String::from_utf8(bytes).ok()
}

/// A `file` URI for an absolute path, escaping every byte but unreserved ones and `/`.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for &b in path.to_str()?.as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(uri: &str) -> Option<String> {
        let uri = Uri::from_str(uri).ok()?;
        uri_to_path(&uri).map(|p| p.display().to_string())
    }

    #[test]
    fn file_uris_decode_then_normalise() {
        assert_eq!(path("file:///ws/a.py").as_deref(), Some("/ws/a.py"));
        assert_eq!(
            path("file://localhost/ws/a.py").as_deref(),
            Some("/ws/a.py")
        );
        assert_eq!(
            path("FILE://LocalHost/ws/a.py").as_deref(),
            Some("/ws/a.py")
        );
        assert_eq!(path("file:/ws/a.py").as_deref(), Some("/ws/a.py"));
        assert_eq!(path("file:///ws/%61%20b.py").as_deref(), Some("/ws/a b.py"));
        assert_eq!(path("file:///ws/../x.py").as_deref(), Some("/x.py"));
        assert_eq!(path("file:///ws/%2e%2e/x.py").as_deref(), Some("/x.py"));
        assert_eq!(
            path("file:///ws/s/%2E%2E/%2e%2e/x.py").as_deref(),
            Some("/x.py")
        );
        assert_eq!(
            path("file:///ws/s%2F..%2F..%2Fx.py").as_deref(),
            Some("/x.py")
        );
        assert_eq!(path("file:///../../x.py").as_deref(), Some("/x.py"));
        assert_eq!(path("file:///ws/./a/./b.py").as_deref(), Some("/ws/a/b.py"));
    }

    #[test]
    fn uris_naming_no_local_path_are_refused() {
        for uri in [
            "file://elsewhere/ws/a.py",
            "file://user@localhost/ws/a.py",
            "file://localhost:1/ws/a.py",
            "file:///ws/a%00.py",
            "file:///ws/a%zz.py",
            "file:///ws/a%2",
            "file:///ws/%ff.py",
            "file:///ws/a.py?x=1",
            "file:///ws/a.py#top",
            "untitled:/ws/a.py",
            "https://example.invalid/ws/a.py",
            "file:ws/a.py",
        ] {
            assert_eq!(path(uri), None, "{uri}");
        }
    }

    #[test]
    fn paths_round_trip_through_uris() {
        let p = Path::new("/ws/a b/é%.py");
        let uri = path_to_uri(p).unwrap();
        assert_eq!(uri.as_str(), "file:///ws/a%20b/%C3%A9%25.py");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(p));
    }

    #[test]
    fn only_paths_under_the_root_resolve_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir(&root).unwrap();
        assert!(resolves_inside(&root, &root.join("new/file.py")));
        assert!(!resolves_inside(&root, &root.with_file_name("other.py")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
            assert!(!resolves_inside(&root, &root.join("up/x.py")));
        }
        let uri = path_to_uri(&root.join("new/file.py")).unwrap();
        assert_eq!(workspace_path(&root, &uri).as_deref(), Some("new/file.py"));
        let root_itself = path_to_uri(&root).unwrap();
        assert_eq!(workspace_path(&root, &root_itself), None);
    }
}
