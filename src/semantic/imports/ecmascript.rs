//! JavaScript and TypeScript import rules (`import_style = "ecmascript"`), after Node's and
//! TypeScript's module resolution, on the workspace's files and manifests only:
//!
//! - A relative specifier (`./a`, `../b`, `.`) names a path from the importing file's
//!   directory: that file as written; for `.js`, `.jsx`, `.mjs`, `.cjs` the TypeScript source
//!   it is compiled from (`a.js` → `a.ts`, `a.tsx`, `a.d.ts`); the path with an extension
//!   added ([`EXTENSIONS`]); else a directory: its `package.json`'s `types`, `main` or
//!   `module`, then its `index` with an extension.
//! - A bare specifier goes through the `compilerOptions.paths` (first the exact pattern,
//!   else the `*` pattern with the longest prefix; its targets in order) and then `baseUrl`
//!   of the tsconfig or jsconfig in the nearest directory above the importing file (the
//!   one TypeScript uses for it unless its `include`/`files` leave the file out; those are
//!   not read). Then a workspace package (`@scope/pkg/sub` or `pkg/sub`): a member of an npm
//!   workspace by its `name`, or a package of the workspace listed as a dependency by a
//!   `package.json` above the file; its entry points or the subpath in it. Then a Node
//!   built-in (`grammars/node-builtin-modules.txt`, with or without `node:`), and a
//!   package a `package.json` above the file lists as a dependency (or `@types/…` for it):
//!   both external. Anything else is unresolved. `exports` maps are not read.
//!
//! Invariant: the module map ([`ecmascript_modules`]) reads file paths and manifests, never
//! source texts, so editing a file's text leaves it valid.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, LazyLock},
};

use super::{ImportSummary, Target, top_level_symbol};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::projects::{ProjectKind, paths, projects},
};

/// The extensions tried after a path without one, in TypeScript's order, then Node's.
pub const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
];

/// For an import naming compiled JavaScript, the TypeScript sources it comes from.
const COMPILED_FROM: &[(&str, &[&str])] = &[
    (".js", &[".ts", ".tsx", ".d.ts"]),
    (".jsx", &[".tsx"]),
    (".mjs", &[".mts", ".d.mts"]),
    (".cjs", &[".cts", ".d.cts"]),
];

/// What resolution needs of the workspace: JavaScript and TypeScript files by path, the
/// tsconfig or jsconfig and the `package.json` of each directory, workspace packages by name.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct EcmascriptModules {
    files: HashMap<String, SourceFile>,
    /// By directory (`""` for the root).
    configs: HashMap<String, Config>,
    /// By directory (`""` for the root).
    packages: HashMap<String, Package>,
    /// Members of npm workspaces, by package name → directory.
    members: HashMap<String, String>,
    /// Every named package of the workspace, by name → directory (the first by path).
    named: HashMap<String, String>,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Config {
    /// Whether it is a `jsconfig.json` (a `tsconfig.json` of the same directory wins).
    jsconfig: bool,
    base_url: Option<String>,
    /// `paths` patterns and their targets.
    paths: Vec<(String, Vec<String>)>,
    /// The directory `paths` targets are relative to.
    paths_base: String,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Package {
    /// `types`, `main`, `module`, those present, in the order they are tried.
    entries: Vec<String>,
    dependencies: HashSet<String>,
}

/// The root directory `"."` of project answers as `""`.
fn dir_key(root: &str) -> String {
    if root == "." {
        String::new()
    } else {
        root.to_string()
    }
}

#[salsa::tracked(returns(clone), no_eq)]
pub fn ecmascript_modules(db: &dyn Db, workspace: Workspace) -> Arc<EcmascriptModules> {
    let mut modules = EcmascriptModules::default();
    let projects = projects(db, workspace);
    for &file in workspace.files(db).iter() {
        if file.lang(db).info().import_style == "ecmascript" {
            modules.files.insert(file.path(db).clone(), file);
        }
    }
    for project in projects.iter() {
        let dir = dir_key(&project.root);
        if let Some(ts) = &project.tsconfig {
            let jsconfig = project.manifest.ends_with("jsconfig.json");
            if modules.configs.get(&dir).is_some_and(|c| !c.jsconfig) && jsconfig {
                continue;
            }
            let config = Config {
                jsconfig,
                base_url: ts.base_url.as_deref().map(dir_key),
                paths: ts
                    .paths
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                paths_base: ts.paths_base.as_deref().map(dir_key).unwrap_or_default(),
            };
            modules.configs.insert(dir.clone(), config);
        }
        if let Some(npm) = &project.npm {
            let entries = [&npm.types, &npm.main, &npm.module];
            modules.packages.insert(
                dir.clone(),
                Package {
                    entries: entries.into_iter().flatten().cloned().collect(),
                    dependencies: npm.dependencies.iter().cloned().collect(),
                },
            );
            if let Some(name) = &project.name {
                modules.named.entry(name.clone()).or_insert(dir.clone());
            }
        }
    }
    let names: HashMap<&str, &str> = projects
        .iter()
        .filter(|p| p.kind == ProjectKind::Npm)
        .filter_map(|p| Some((p.root.as_str(), p.name.as_deref()?)))
        .collect();
    let mut members = HashMap::new();
    for project in projects.iter() {
        for root in project.npm.iter().flat_map(|n| &n.member_roots) {
            if let Some(name) = names.get(root.as_str()) {
                members
                    .entry(name.to_string())
                    .or_insert_with(|| dir_key(root));
            }
        }
    }
    modules.members = members;
    Arc::new(modules)
}

static NODE_BUILTINS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../grammars/node-builtin-modules.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
});

/// Where `import` (one of `file`'s, a JavaScript or TypeScript file) leads.
pub(super) fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    let modules = ecmascript_modules(db, workspace);
    let importer = file.path(db);
    let spec = import.module.as_str();
    let found = if is_relative(spec) {
        paths::join(paths::parent(importer), spec).and_then(|base| modules.file_or_dir(&base))
    } else if spec.starts_with('/') || spec.is_empty() {
        None
    } else {
        match modules.bare(importer, spec) {
            Bare::File(file) => Some(file),
            Bare::External(package) => return Target::External { package },
            Bare::Unresolved => None,
        }
    };
    let Some(target) = found else {
        return Target::Unresolved;
    };
    let symbol = match &import.name {
        Some(name) if !import.wildcard => top_level_symbol(db, target, name),
        _ => None,
    };
    Target::Resolved {
        file: target,
        symbol,
    }
}

fn is_relative(spec: &str) -> bool {
    spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../")
}

enum Bare {
    File(SourceFile),
    External(String),
    Unresolved,
}

impl EcmascriptModules {
    /// The file a path names, with TypeScript's and Node's extension rules, or the entry
    /// of the directory it names.
    fn file_or_dir(&self, base: &str) -> Option<SourceFile> {
        self.file(base).or_else(|| self.directory(base))
    }

    fn file(&self, base: &str) -> Option<SourceFile> {
        if base.is_empty() {
            return None;
        }
        let exact = self.files.get(base).copied();
        let compiled = || {
            COMPILED_FROM.iter().find_map(|(js, sources)| {
                let stem = base.strip_suffix(js)?;
                sources
                    .iter()
                    .find_map(|ext| self.files.get(&format!("{stem}{ext}")).copied())
            })
        };
        let added = || {
            EXTENSIONS
                .iter()
                .find_map(|ext| self.files.get(&format!("{base}{ext}")).copied())
        };
        exact.or_else(compiled).or_else(added)
    }

    /// A directory's `package.json` entry point (a file, or a directory's index), else its
    /// own `index`.
    fn directory(&self, dir: &str) -> Option<SourceFile> {
        let entries = self.packages.get(dir).map(|p| p.entries.as_slice());
        entries
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| paths::join(dir, entry))
            .find_map(|entry| self.file(&entry).or_else(|| self.index(&entry)))
            .or_else(|| self.index(dir))
    }

    fn index(&self, dir: &str) -> Option<SourceFile> {
        self.file(&paths::join(dir, "index")?)
    }

    /// The nearest tsconfig or jsconfig in `dir` or above.
    fn config(&self, dir: &str) -> Option<&Config> {
        ancestors(dir).find_map(|d| self.configs.get(d))
    }

    /// A specifier that is neither relative nor absolute (`pkg/sub`, `@scope/pkg`, `fs`,
    /// or one `paths` maps).
    fn bare(&self, importer: &str, spec: &str) -> Bare {
        let dir = paths::parent(importer);
        if let Some(config) = self.config(dir) {
            for target in mapped(&config.paths, spec) {
                if let Some(file) =
                    paths::join(&config.paths_base, &target).and_then(|p| self.file_or_dir(&p))
                {
                    return Bare::File(file);
                }
            }
            if let Some(file) = config
                .base_url
                .as_deref()
                .and_then(|base| paths::join(base, spec))
                .and_then(|p| self.file_or_dir(&p))
            {
                return Bare::File(file);
            }
        }
        let (name, subpath) = package_name(spec);
        let listed = |name: &str| {
            ancestors(dir)
                .filter_map(|d| self.packages.get(d))
                .any(|p| p.dependencies.contains(name))
        };
        let workspace_package = self
            .members
            .get(name)
            .or_else(|| self.named.get(name).filter(|_| listed(name)));
        if let Some(root) = workspace_package {
            let found = match subpath {
                None => self.directory(root),
                Some(sub) => paths::join(root, sub).and_then(|p| self.file_or_dir(&p)),
            };
            return found.map_or(Bare::Unresolved, Bare::File);
        }
        if let Some(builtin) = node_builtin(spec) {
            return Bare::External(builtin.to_string());
        }
        if listed(name) || listed(&types_package(name)) {
            return Bare::External(name.to_string());
        }
        Bare::Unresolved
    }
}

/// `dir` and each directory above it, up to the root `""`.
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let current = next?;
        next = (!current.is_empty()).then(|| paths::parent(current));
        Some(current)
    })
}

/// The targets `paths` maps `spec` to, with `*` replaced: those of the pattern equal to
/// `spec`, else of the matching `*` pattern with the longest prefix (TypeScript's rule).
fn mapped(patterns: &[(String, Vec<String>)], spec: &str) -> Vec<String> {
    if let Some((_, targets)) = patterns.iter().find(|(p, _)| p == spec) {
        return targets.clone();
    }
    let best = patterns
        .iter()
        .filter_map(|(pattern, targets)| {
            let (prefix, suffix) = pattern.split_once('*')?;
            let star = spec.strip_prefix(prefix)?.strip_suffix(suffix)?;
            Some((prefix.len(), star, targets))
        })
        .max_by_key(|(len, _, _)| *len);
    match best {
        Some((_, star, targets)) => targets.iter().map(|t| t.replacen('*', star, 1)).collect(),
        None => Vec::new(),
    }
}

/// `@scope/pkg/a/b` → (`@scope/pkg`, `a/b`); `pkg/a` → (`pkg`, `a`); `pkg` → (`pkg`, none).
fn package_name(spec: &str) -> (&str, Option<&str>) {
    let segments = if spec.starts_with('@') { 2 } else { 1 };
    match spec.match_indices('/').nth(segments - 1) {
        Some((at, _)) => (&spec[..at], Some(&spec[at + 1..]).filter(|s| !s.is_empty())),
        None => (spec, None),
    }
}

/// `@types/pkg` for `pkg`, `@types/scope__pkg` for `@scope/pkg`.
fn types_package(name: &str) -> String {
    match name.strip_prefix('@') {
        Some(scoped) => format!("@types/{}", scoped.replacen('/', "__", 1)),
        None => format!("@types/{name}"),
    }
}

/// The built-in module `spec` names (`fs` for `fs`, `node:fs`, `fs/promises`), if any.
fn node_builtin(spec: &str) -> Option<&str> {
    let bare = spec.strip_prefix("node:").unwrap_or(spec);
    let known =
        NODE_BUILTINS.contains(bare) || (spec.starts_with("node:") && NODE_BUILTINS.contains(spec));
    known.then(|| bare.split('/').next().unwrap_or(bare))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_and_subpaths() {
        assert_eq!(package_name("react"), ("react", None));
        assert_eq!(
            package_name("react/jsx-runtime"),
            ("react", Some("jsx-runtime"))
        );
        assert_eq!(package_name("@acme/ui"), ("@acme/ui", None));
        assert_eq!(package_name("@acme/ui/a/b"), ("@acme/ui", Some("a/b")));
        assert_eq!(package_name("@acme"), ("@acme", None));
        assert_eq!(types_package("@acme/ui"), "@types/acme__ui");
        assert_eq!(types_package("node"), "@types/node");
    }

    #[test]
    fn paths_patterns_follow_typescript() {
        let patterns = vec![
            ("*".to_string(), vec!["types/*".to_string()]),
            (
                "@app/*".to_string(),
                vec!["src/*".to_string(), "gen/*".to_string()],
            ),
            ("@app/core".to_string(), vec!["core/index.ts".to_string()]),
            ("@app/x/*.js".to_string(), vec!["x/*.ts".to_string()]),
        ];
        assert_eq!(mapped(&patterns, "@app/core"), ["core/index.ts"]);
        assert_eq!(mapped(&patterns, "@app/util"), ["src/util", "gen/util"]);
        assert_eq!(mapped(&patterns, "@app/x/y.js"), ["x/y.ts"]);
        assert_eq!(mapped(&patterns, "lodash"), ["types/lodash"]);
        assert_eq!(mapped(&patterns[1..], "lodash"), Vec::<String>::new());
    }

    #[test]
    fn node_builtins_with_and_without_the_prefix() {
        assert_eq!(node_builtin("fs"), Some("fs"));
        assert_eq!(node_builtin("node:fs/promises"), Some("fs"));
        assert_eq!(node_builtin("node:test"), Some("test"));
        assert_eq!(node_builtin("test"), None);
        assert_eq!(node_builtin("lodash"), None);
    }

    #[test]
    fn ancestors_up_to_the_root() {
        assert_eq!(ancestors("a/b").collect::<Vec<_>>(), ["a/b", "a", ""]);
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
    }
}
