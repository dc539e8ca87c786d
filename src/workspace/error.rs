//! Why a workspace could not be loaded: one typed error for every front end to report.
//!
//! Invariant: messages name the path concerned; callers match on variants, never on text.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The root cannot be opened (missing, unreadable).
    #[error("{}: {source}", path.display())]
    Root {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a directory", path.display())]
    NotADirectory { path: PathBuf },
    /// `sextant.toml` exists but cannot be used.
    #[error("{}: {reason}", path.display())]
    Config { path: PathBuf, reason: String },
    /// A glob of `sextant.toml` or `--exclude` does not parse.
    #[error("sextant.toml {list} {glob:?}: {reason}")]
    Glob {
        list: &'static str,
        glob: String,
        reason: String,
    },
    /// The load was stopped midway by its owner ([`super::LoadStop`]).
    #[error("the load was stopped before it ended")]
    Stopped,
    /// The background writer could not be started.
    #[error("cannot start the workspace writer: {0}")]
    Thread(#[source] std::io::Error),
}

impl LoadError {
    /// The error is in `sextant.toml` (or an `--exclude` glob), not in the workspace.
    pub fn is_config(&self) -> bool {
        matches!(self, LoadError::Config { .. } | LoadError::Glob { .. })
    }
}
