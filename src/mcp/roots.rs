//! Several workspace roots served by one server (`sextant mcp --root A --root B`): each
//! root is a live workspace of its own (its index, watcher, `sextant.toml` and cache), and
//! every tool call answers from exactly one of them.
//!
//! Invariant: a call's `root` argument is taken out of its arguments here, before the tool
//! parses them, so no tool knows of roots; a call never reads or writes a root other than
//! the one chosen, and paths stay confined to that root as on a one-root server.

use std::{path::Path, sync::Arc};

use rmcp::model::JsonObject;
use serde::Serialize;

use super::{ErrorCode, ToolError};
use crate::workspace::live::LiveWorkspace;

/// The argument naming the root a call answers from.
pub const ROOT_ARGUMENT: &str = "root";

/// Arguments whose strings are workspace paths: an absolute one picks its root.
const PATH_ARGUMENTS: [&str; 4] = ["path", "file_path", "paths", "file_paths"];

/// One served root, as `workspace_status` lists it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RootInfo {
    /// What a call's `root` argument names it by: the directory's name, with as many of
    /// its parents as make it unique among the roots.
    pub name: String,
    pub path: String,
}

struct Root {
    info: RootInfo,
    live: Arc<LiveWorkspace>,
}

/// The roots of a server, the first being the default.
pub struct Roots {
    roots: Vec<Root>,
}

impl Roots {
    /// The roots in the order given; `lives` is not empty and has no root twice.
    pub fn new(lives: Vec<Arc<LiveWorkspace>>) -> Roots {
        assert!(!lives.is_empty(), "a server serves at least one root");
        let paths: Vec<&Path> = lives.iter().map(|live| live.root()).collect();
        let names = unique_names(&paths);
        let roots = lives
            .iter()
            .zip(names)
            .map(|(live, name)| Root {
                info: RootInfo {
                    name,
                    path: live.root().display().to_string(),
                },
                live: live.clone(),
            })
            .collect();
        Roots { roots }
    }

    pub fn first(&self) -> &Arc<LiveWorkspace> {
        &self.roots[0].live
    }

    pub fn is_several(&self) -> bool {
        self.roots.len() > 1
    }

    pub fn infos(&self) -> Vec<RootInfo> {
        self.roots.iter().map(|r| r.info.clone()).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.roots.iter().map(|r| r.info.name.clone()).collect()
    }

    /// The root a call answers from, its `root` argument taken out of `args`: the root it
    /// names (by name or path), else the root holding the call's first absolute path,
    /// else the first root.
    pub fn select(&self, args: Option<&mut JsonObject>) -> Result<Arc<LiveWorkspace>, ToolError> {
        let Some(args) = args else {
            return Ok(self.first().clone());
        };
        match args.remove(ROOT_ARGUMENT) {
            Some(serde_json::Value::String(given)) => self.named(&given),
            Some(other) => Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`root` must be a string naming a root, got {other}"),
            )),
            // With one root there is nothing to choose (and no path to resolve per call).
            None if !self.is_several() => Ok(self.first().clone()),
            None => Ok(first_absolute_path(args)
                .and_then(|path| self.holding(Path::new(path)))
                .unwrap_or_else(|| self.first().clone())),
        }
    }

    fn named(&self, given: &str) -> Result<Arc<LiveWorkspace>, ToolError> {
        let canonical = Path::new(given).canonicalize().ok();
        self.roots
            .iter()
            .find(|r| r.info.name == given || canonical.as_deref() == Some(r.live.root()))
            .map(|r| r.live.clone())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no root named {given:?}; this server's roots are {}",
                        self.names().join(", ")
                    ),
                )
                .with_detail("roots", serde_json::json!(self.names()))
            })
    }

    /// The root an absolute path lies under (the deepest, when roots nest).
    fn holding(&self, path: &Path) -> Option<Arc<LiveWorkspace>> {
        let canonical = path.canonicalize().ok();
        let path = canonical.as_deref().unwrap_or(path);
        self.roots
            .iter()
            .filter(|r| path.starts_with(r.live.root()))
            .max_by_key(|r| r.live.root().components().count())
            .map(|r| r.live.clone())
    }
}

fn first_absolute_path(args: &JsonObject) -> Option<&str> {
    PATH_ARGUMENTS
        .iter()
        .filter_map(|key| args.get(*key))
        .flat_map(|value| match value {
            serde_json::Value::String(s) => vec![s.as_str()],
            serde_json::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
            _ => Vec::new(),
        })
        .find(|p| Path::new(p).is_absolute())
}

/// Each path's last component, with as many parents as it takes to tell it from the
/// others (`app`, or `team-a/app` and `team-b/app`); the whole path when nothing shorter
/// is unique.
fn unique_names(paths: &[&Path]) -> Vec<String> {
    let tail = |path: &Path, n: usize| -> String {
        let parts: Vec<String> = path
            .components()
            .rev()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .take(n)
            .collect();
        if parts.len() < n || parts.is_empty() {
            return path.display().to_string();
        }
        parts.into_iter().rev().collect::<Vec<_>>().join("/")
    };
    paths
        .iter()
        .map(|path| {
            let depth = path.components().count();
            (1..=depth)
                .map(|n| tail(path, n))
                .find(|name| {
                    paths
                        .iter()
                        .filter(|other| (1..=depth).any(|n| tail(other, n) == *name))
                        .count()
                        == 1
                })
                .unwrap_or_else(|| path.display().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_shortest_unique_tails() {
        let paths = [
            Path::new("/src/team-a/app"),
            Path::new("/src/team-b/app"),
            Path::new("/src/tools"),
        ];
        assert_eq!(unique_names(&paths), ["team-a/app", "team-b/app", "tools"]);
        assert_eq!(unique_names(&[Path::new("/")]), ["/"]);
        assert_eq!(
            unique_names(&[Path::new("/a/x"), Path::new("/x")]),
            ["a/x", "/x"]
        );
    }

    #[test]
    fn the_first_absolute_path_argument() {
        let args: JsonObject = serde_json::from_value(serde_json::json!({
            "query": "/not/a/path/arg",
            "path": "relative.py",
            "file_paths": ["rel.py", "/abs/b.py"],
        }))
        .unwrap();
        assert_eq!(first_absolute_path(&args), Some("/abs/b.py"));
    }
}
