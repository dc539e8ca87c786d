//! Directories that hold what a build or an installer wrote, left out of the walk even
//! when no `.gitignore` names them: their files are copies or products of the sources
//! (a package's bundle in `dist/`, a crate's `target/`, a virtual environment's packages), and
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

/// Whether the directory named `name` (below the root) is a build output: `node_modules`
/// anywhere; `dist` beside a `package.json` (a package's bundle: Go's `cmd/dist` is
/// source); any directory holding a marker file. `holds` says whether the directory holds
/// a file of that name, `beside` whether its parent does.
pub fn is_build_output(
    name: &str,
    holds: impl Fn(&str) -> bool,
    beside: impl Fn(&str) -> bool,
) -> bool {
    name == "node_modules"
        || (name == "dist" && beside("package.json"))
        || MARKER_FILES.iter().any(|marker| holds(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_markers() {
        let none = |_: &str| false;
        assert!(is_build_output("node_modules", none, none));
        assert!(is_build_output("dist", none, |f| f == "package.json"));
        assert!(!is_build_output("dist", none, |f| f == "go.mod"));
        assert!(!is_build_output("src", none, |f| f == "package.json"));
        assert!(!is_build_output("target", none, none));
        assert!(is_build_output("target", |f| f == "CACHEDIR.TAG", none));
        assert!(is_build_output("env", |f| f == "pyvenv.cfg", none));
        assert!(!is_build_output("env", |f| f == "pyproject.toml", none));
    }
}
