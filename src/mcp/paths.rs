//! Confining client paths to the workspace root.

use std::path::{Path, PathBuf};

use super::{ErrorCode, ToolError};
use crate::workspace::{normalize_lexically, resolves_inside};

/// A client path, resolved inside `root` (canonical): relative paths are taken from the
/// root; absolute ones must lie under it. Symlinks are resolved before the check, so a link
/// pointing out is refused like `../..`. Returns the workspace-relative path (`/`-separated)
/// and whether the file exists.
pub fn resolve(root: &Path, user_path: &str) -> Result<(String, PathBuf), ToolError> {
    let outside = || {
        ToolError::new(
            ErrorCode::PathOutsideWorkspace,
            format!("{user_path:?} is outside the workspace"),
        )
    };
    if user_path.is_empty() || user_path.contains('\0') {
        return Err(ToolError::new(
            ErrorCode::InvalidArgument,
            "path must be a non-empty string without NUL",
        ));
    }
    let given = Path::new(user_path);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    let resolved = match joined.canonicalize() {
        Ok(p) => p,
        // Not there (or a dangling link): judge the path lexically, then report it missing.
        Err(_) => {
            let lexical = normalize_lexically(&joined).ok_or_else(outside)?;
            if !resolves_inside(root, &lexical) {
                return Err(outside());
            }
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("{user_path:?} does not exist"),
            ));
        }
    };
    if !resolved.starts_with(root) {
        return Err(outside());
    }
    let rel = crate::workspace::relative_path(root, &resolved)
        .ok_or_else(|| ToolError::new(ErrorCode::InvalidArgument, "path is not valid UTF-8"))?;
    Ok((rel, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confinement() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.py"), "").unwrap();
        assert_eq!(resolve(&root, "src/a.py").unwrap().0, "src/a.py");
        assert_eq!(resolve(&root, "./src/../src/a.py").unwrap().0, "src/a.py");
        let abs = root.join("src/a.py");
        assert_eq!(resolve(&root, abs.to_str().unwrap()).unwrap().0, "src/a.py");
        assert_eq!(
            resolve(&root, "../x").unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
        assert_eq!(
            resolve(&root, "src/../../etc/passwd").unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
        assert_eq!(
            resolve(&root, "/etc/passwd").unwrap_err().code,
            ErrorCode::PathOutsideWorkspace
        );
        assert_eq!(
            resolve(&root, "src/missing.py").unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(
            resolve(&root, "").unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
            assert_eq!(
                resolve(&root, "out/passwd").unwrap_err().code,
                ErrorCode::PathOutsideWorkspace
            );
            assert_eq!(
                resolve(&root, "out/nope").unwrap_err().code,
                ErrorCode::PathOutsideWorkspace
            );
        }
    }
}
