//! `sextant.toml` at the workspace root: optional include/exclude globs and limits.

use std::path::Path;

use serde::Deserialize;

pub const CONFIG_FILE: &str = "sextant.toml";
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Gitignore-style globs; when non-empty, only matching files are indexed.
    pub include: Vec<String>,
    /// Gitignore-style globs of files and directories to leave out.
    pub exclude: Vec<String>,
    /// Files larger than this many bytes are skipped (and reported).
    pub max_file_size: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            include: Vec::new(),
            exclude: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

impl Config {
    /// Reads `<root>/sextant.toml`; its absence means defaults.
    pub fn load(root: &Path) -> Result<Config, String> {
        let path = root.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}
