//! JavaScript and TypeScript import rules (`Family::Ecma`), after Node's and
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
//!   `package.json` above the file; the target its `exports` gives the subpath (conditions
//!   in [`CONDITIONS`] order), else its entry points or the subpath as a path in it. Then a
//!   Node built-in (`grammars/node-builtin-modules.txt`, with or without `node:`), and a
//!   package a `package.json` above the file lists as a dependency (or `@types/…` for it):
//!   both external. Anything else is unresolved.
//! - A path under a tsconfig's `outDir` that the workspace does not hold (a built entry
//!   point, `lib/api.d.ts`) leads to its source under that tsconfig's `rootDir` (else its
//!   directory), `src/api.ts`, as TypeScript does for referenced projects.
//!
//! Invariant: the module map ([`ecmascript_modules`]) reads file paths and manifests, never
//! source texts, so editing a file's text leaves it valid.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, LazyLock},
};

use serde_json::Value;

use super::{ImportSummary, Target, top_level_symbol};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::projects::{ProjectKind, paths, projects},
};

/// The extensions tried after a path without one, in TypeScript's order, then Node's.
pub const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
];

/// Extensions of built files, longest first.
const OUTPUT_EXTENSIONS: &[&str] = &[".d.mts", ".d.cts", ".d.ts", ".mjs", ".cjs", ".js", ".jsx"];

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
    /// Every tsconfig's output directory, for built entry points.
    outputs: Vec<Output>,
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
    /// `exports` as written.
    exports: Option<Value>,
    dependencies: HashSet<String>,
}

/// Where a tsconfig puts its output: built files under `out_dir` come from sources under
/// `root_dir`.
#[derive(Debug, PartialEq, Eq)]
struct Output {
    out_dir: String,
    root_dir: String,
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
        if matches!(file.lang(db).info().family, Family::Ecma { .. }) {
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
            if let Some(out_dir) = ts.out_dir.as_deref().map(dir_key) {
                let root_dir = ts.root_dir.as_deref().map_or(dir.clone(), dir_key);
                modules.outputs.push(Output { out_dir, root_dir });
            }
        }
        if let Some(npm) = &project.npm {
            let entries = [&npm.types, &npm.main, &npm.module];
            modules.packages.insert(
                dir.clone(),
                Package {
                    entries: entries.into_iter().flatten().cloned().collect(),
                    exports: npm.exports.clone(),
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
    crate::lang::word_list(include_str!("../../../grammars/node-builtin-modules.txt"))
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
        exact
            .or_else(compiled)
            .or_else(added)
            .or_else(|| self.source_of_output(base))
    }

    /// For a path under a tsconfig's `outDir` (a built `main`, `types` or `exports` target
    /// such as `lib/api.d.ts`), the source it is built from under the `rootDir`
    /// (`src/api.ts`), as TypeScript finds the sources of referenced projects.
    fn source_of_output(&self, base: &str) -> Option<SourceFile> {
        let stem = OUTPUT_EXTENSIONS
            .iter()
            .find_map(|ext| base.strip_suffix(ext))
            .unwrap_or(base);
        self.outputs.iter().find_map(|output| {
            let rest = stem.strip_prefix(&output.out_dir)?.strip_prefix('/')?;
            let source = paths::join(&output.root_dir, rest)?;
            EXTENSIONS
                .iter()
                .find_map(|ext| self.files.get(&format!("{source}{ext}")).copied())
        })
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

    /// The file a workspace package (in `dir`) exports as `subpath` (none: the package
    /// itself): its `exports` targets, else its entry points or the path in it.
    fn package_entry(&self, dir: &str, subpath: Option<&str>) -> Option<SourceFile> {
        let exports = self.packages.get(dir).and_then(|p| p.exports.as_ref());
        let key = subpath.map_or_else(|| ".".to_string(), |s| format!("./{s}"));
        let exported = exports
            .map(|e| export_targets(e, &key))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|target| paths::join(dir, &target))
            .find_map(|target| self.file(&target));
        exported.or_else(|| match subpath {
            None => self.directory(dir),
            Some(sub) => paths::join(dir, sub).and_then(|p| self.file_or_dir(&p)),
        })
    }

    fn index(&self, dir: &str) -> Option<SourceFile> {
        self.file(&paths::join(dir, "index")?)
    }

    /// The nearest tsconfig or jsconfig in `dir` or above.
    fn config(&self, dir: &str) -> Option<&Config> {
        ancestors(dir).find_map(|d| self.configs.get(d))
    }

    /// Whether the `paths` of the tsconfig or jsconfig `importer` uses map `spec` with a
    /// pattern other than a catch-all `*`, to targets outside `node_modules`: the specifier
    /// names a workspace path.
    pub fn is_path_mapped(&self, importer: &str, spec: &str) -> bool {
        self.config(paths::parent(importer)).is_some_and(|config| {
            config
                .paths
                .iter()
                .filter(|(pattern, targets)| {
                    pattern != "*" && !targets.iter().any(|t| t.contains("node_modules"))
                })
                .any(|(pattern, _)| match pattern.split_once('*') {
                    None => pattern == spec,
                    Some((prefix, suffix)) => {
                        spec.len() >= prefix.len() + suffix.len()
                            && spec.starts_with(prefix)
                            && spec.ends_with(suffix)
                    }
                })
        })
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
            return self
                .package_entry(root, subpath)
                .map_or(Bare::Unresolved, Bare::File);
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

/// Conditions of `exports` entries that resolution follows, in this order (TypeScript's
/// `types` first; others, such as `"deno"`, are skipped). The order written is not kept
/// by the manifest's parse, so it is not used.
const CONDITIONS: &[&str] = &[
    "types", "typings", "import", "require", "module", "node", "browser", "default",
];

/// The targets `exports` gives `subpath` (`.` or `./x`): the entry of that key, or of the
/// `*` key with the longest prefix matching it (its `*` replaced); conditions are followed
/// in the order of [`CONDITIONS`], and every target is kept, for the first that exists. Exports that are a string, an array or conditions only are the `.` entry.
fn export_targets(exports: &Value, subpath: &str) -> Vec<String> {
    let subpaths = match exports {
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => map,
        _ if subpath == "." => return condition_targets(exports, None),
        _ => return Vec::new(),
    };
    if let Some(entry) = subpaths.get(subpath) {
        return condition_targets(entry, None);
    }
    let best = subpaths
        .iter()
        .filter_map(|(key, entry)| {
            let (prefix, suffix) = key.split_once('*')?;
            let star = subpath.strip_prefix(prefix)?.strip_suffix(suffix)?;
            Some((prefix.len(), star, entry))
        })
        .max_by_key(|(len, _, _)| *len);
    best.map(|(_, star, entry)| condition_targets(entry, Some(star)))
        .unwrap_or_default()
}

fn condition_targets(entry: &Value, star: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![entry];
    // Depth-first, in order: a stack of at most the entry's size.
    while let Some(value) = stack.pop() {
        match value {
            Value::String(target) => out.push(match star {
                Some(star) => target.replace('*', star),
                None => target.clone(),
            }),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(conditions) => {
                stack.extend(CONDITIONS.iter().filter_map(|c| conditions.get(*c)).rev())
            }
            _ => {}
        }
    }
    out
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
    fn exports_subpaths_patterns_and_conditions() {
        let exports = serde_json::json!({
            ".": {"types": "./lib/api.d.ts", "deno": "./deno.ts", "default": "./lib/api.js"},
            "./node": [{"node": "./lib/node.js"}, "./lib/node-fallback.js"],
            "./$test/*": {"types": "./lib/*.d.ts"},
            "./$test/deep/*": {"import": {"types": "./deep/*.d.mts"}},
            "./private/*": null,
        });
        assert_eq!(
            export_targets(&exports, "."),
            ["./lib/api.d.ts", "./lib/api.js"]
        );
        assert_eq!(
            export_targets(&exports, "./node"),
            ["./lib/node.js", "./lib/node-fallback.js"]
        );
        assert_eq!(export_targets(&exports, "./$test/a/b"), ["./lib/a/b.d.ts"]);
        assert_eq!(
            export_targets(&exports, "./$test/deep/x"),
            ["./deep/x.d.mts"]
        );
        assert_eq!(
            export_targets(&exports, "./private/x"),
            Vec::<String>::new()
        );
        assert_eq!(export_targets(&exports, "./absent"), Vec::<String>::new());
        let sugar = serde_json::json!("./index.js");
        assert_eq!(export_targets(&sugar, "."), ["./index.js"]);
        assert_eq!(export_targets(&sugar, "./x"), Vec::<String>::new());
        let conditions = serde_json::json!({"require": "./cjs.js", "import": "./esm.js"});
        assert_eq!(export_targets(&conditions, "."), ["./esm.js", "./cjs.js"]);
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
