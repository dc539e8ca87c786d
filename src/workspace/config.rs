//! `sextant.toml` at the workspace root: optional include/exclude globs, limits, and the
//! `[check]` table (which diagnostic codes are reported, at what severity, per path), and
//! the `[format]` table (external formatters per language), and the `[typecheck]` table
//! (the deep check's checkers).
//!
//! Invariant: a file that loads is valid throughout: unknown keys, unknown codes and bad
//! globs are errors naming the key, never silently ignored.

use crate::{ide::CheckSettings, workspace::LoadError};
use serde::Deserialize;

use super::{reader::ReadRefusal, system::System};

pub const CONFIG_FILE: &str = "sextant.toml";
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;
/// A configuration file larger than this is refused (it is a few lines in practice).
const MAX_CONFIG_SIZE: u64 = 1024 * 1024;

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Gitignore-style globs; when non-empty, only matching files are indexed.
    pub include: Vec<String>,
    /// Gitignore-style globs of files and directories to leave out.
    pub exclude: Vec<String>,
    /// Files larger than this many bytes are skipped (and reported).
    pub max_file_size: u64,
    /// Leave out directories of build outputs (`node_modules/`, a package's `dist/`, a `target/` or
    /// any directory tagged `CACHEDIR.TAG`, a virtual environment) even when no ignore
    /// file names them.
    pub skip_build_outputs: bool,
    /// The resident memory a server keeps its background work under (`400M`, `2G`; see
    /// docs/memory.md); none by default.
    #[serde(deserialize_with = "memory_size")]
    pub max_memory: Option<u64>,
    /// `[check]`: codes to select and ignore, severities, per-path overrides.
    pub check: CheckSettings,
    /// `[format.<language>]`: external formatters; a language without one uses sextant's.
    pub format: super::format::Formatters,
    /// `[typecheck]`: the deep check's checkers (run only when asked for).
    pub typecheck: super::typecheck::TypecheckConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            include: Vec::new(),
            exclude: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            skip_build_outputs: true,
            max_memory: None,
            check: CheckSettings::default(),
            format: Default::default(),
            typecheck: Default::default(),
        }
    }
}

impl Config {
    /// Reads `sextant.toml` at the system's root; its absence means defaults.
    pub fn load(system: &dyn System) -> Result<Config, LoadError> {
        let path = system.root().join(CONFIG_FILE);
        match system.read(&path, MAX_CONFIG_SIZE) {
            Ok(content) => {
                let invalid = |reason: String| LoadError::Config {
                    path: path.clone(),
                    reason,
                };
                let text = String::from_utf8(content.bytes)
                    .map_err(|_| invalid("not valid UTF-8".into()))?;
                let config: Config =
                    toml::from_str(&text).map_err(|e| invalid(e.message().to_string()))?;
                super::format::validate(&config.format).map_err(invalid)?;
                super::typecheck::validate(&config.typecheck).map_err(invalid)?;
                Ok(config)
            }
            Err(ReadRefusal::NotFound) => Ok(Config::default()),
            Err(e) => Err(LoadError::Config {
                path,
                reason: e.to_string(),
            }),
        }
    }
}

/// `max_memory = "400M"`, as `--max-memory` reads it.
fn memory_size<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let text = String::deserialize(deserializer)?;
    crate::ide::memory::parse_size(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}
