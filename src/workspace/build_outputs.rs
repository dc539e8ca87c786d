//! Directories that hold what a build or an installer wrote, left out of the walk even
//! when no `.gitignore` names them: their files are copies or products of the sources
//! (a bundle in `dist/`, a crate's `target/`, a virtual environment's packages), and
//! indexing them doubles every definition and multiplies the work. A project that wants
//! one indexed sets `skip_build_outputs = false` in `sextant.toml`.

/// Files whose presence marks their directory as a build output. A change to one can
/// change which files are indexed.
pub const MARKER_FILES: [&str; 2] = [
    // The Cache Directory Tagging convention: Cargo's `target/`, and other tools' caches.
    "CACHEDIR.TAG",
    // A Python virtual environment, whatever its name.
    "pyvenv.cfg",
];

/// Directory names that are build or install outputs wherever they appear.
const NAMES: [&str; 2] = ["node_modules", "dist"];

/// Whether the directory named `name` (below the root) is a build output; `has_file`
/// says whether the directory holds a file of that name.
pub fn is_build_output(name: &str, has_file: impl Fn(&str) -> bool) -> bool {
    NAMES.contains(&name) || MARKER_FILES.iter().any(|marker| has_file(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_markers() {
        let none = |_: &str| false;
        assert!(is_build_output("node_modules", none));
        assert!(is_build_output("dist", none));
        assert!(!is_build_output("src", none));
        assert!(!is_build_output("target", none));
        assert!(is_build_output("target", |f| f == "CACHEDIR.TAG"));
        assert!(is_build_output("env", |f| f == "pyvenv.cfg"));
        assert!(!is_build_output("env", |f| f == "pyproject.toml"));
    }
}
