//! `tsconfig.json` / `jsconfig.json`: `compilerOptions.baseUrl`, `paths`, `rootDir`,
//! `outDir` and the options that keep unused imports (`verbatimModuleSyntax`,
//! `preserveValueImports`, `importsNotUsedAsValues`), with `extends` chains applied as TypeScript does (a later base overrides an earlier one;
//! the file itself overrides its bases).
//!
//! The writer and the query share [`extends_candidates`]: the writer reads the first
//! candidate that exists on disk into the database, the query takes the first candidate
//! present among the inputs, so both agree on the file an `extends` names.

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
};

use serde_json::Value;

use super::{ExtendsLink, Project, TsconfigDetails, jsonc, paths};

/// A chain longer than this is reported as an error (TypeScript has no limit, but a real
/// chain is a few files long).
const MAX_EXTENDS_DEPTH: usize = 32;
/// `extends` links followed per project at most (arrays can make a chain a wide tree).
const MAX_EXTENDS_LINKS: usize = 256;

/// What one config file declares itself. `Some(None)`: declared, but leaving the
/// workspace (it still overrides its bases).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnOptions {
    pub extends: Vec<String>,
    base_url: Option<Option<String>>,
    paths: Option<BTreeMap<String, Vec<String>>>,
    root_dir: Option<Option<String>>,
    out_dir: Option<Option<String>>,
    elision: Elision,
    pub error: Option<String>,
}

/// The options deciding whether TypeScript drops an import statement none of whose names
/// are used as values, as declared (`None`: not declared here).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Elision {
    verbatim_module_syntax: Option<bool>,
    preserve_value_imports: Option<bool>,
    imports_not_used_as_values: Option<String>,
}

impl Elision {
    fn overlay(&mut self, other: Elision) {
        if other.verbatim_module_syntax.is_some() {
            self.verbatim_module_syntax = other.verbatim_module_syntax;
        }
        if other.preserve_value_imports.is_some() {
            self.preserve_value_imports = other.preserve_value_imports;
        }
        if other.imports_not_used_as_values.is_some() {
            self.imports_not_used_as_values = other.imports_not_used_as_values;
        }
    }

    /// Whether an import statement is kept when its names go unused (its module is then
    /// still evaluated, for its side effects).
    fn keeps_unused_imports(&self) -> bool {
        self.verbatim_module_syntax == Some(true)
            || self.preserve_value_imports == Some(true)
            || matches!(
                self.imports_not_used_as_values.as_deref(),
                Some("preserve" | "error")
            )
    }
}

pub fn parse(path: &str, text: &str) -> OwnOptions {
    let mut own = OwnOptions::default();
    let object = match serde_json::from_str::<Value>(&jsonc::strip(text)) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            own.error = Some("not a JSON object".into());
            return own;
        }
        Err(e) => {
            own.error = Some(e.to_string());
            return own;
        }
    };
    let mut errors = Vec::new();
    match object.get("extends") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => own.extends.push(s.clone()),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            own.extends = items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        }
        Some(_) => errors.push("extends is neither a string nor an array of strings".to_string()),
    }
    let dir = paths::parent(path);
    match object.get("compilerOptions") {
        None | Some(Value::Null) => {}
        Some(Value::Object(options)) => {
            let mut dir_option = |key: &str| match options.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(paths::resolve_dir(dir, s)),
                Some(_) => {
                    errors.push(format!("compilerOptions.{key} is not a string"));
                    None
                }
            };
            own.base_url = dir_option("baseUrl");
            own.root_dir = dir_option("rootDir");
            own.out_dir = dir_option("outDir");
            own.elision = Elision {
                verbatim_module_syntax: options
                    .get("verbatimModuleSyntax")
                    .and_then(Value::as_bool),
                preserve_value_imports: options
                    .get("preserveValueImports")
                    .and_then(Value::as_bool),
                imports_not_used_as_values: options
                    .get("importsNotUsedAsValues")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase),
            };
            match options.get("paths") {
                None | Some(Value::Null) => {}
                Some(Value::Object(map)) => {
                    let mut patterns = BTreeMap::new();
                    for (key, targets) in map {
                        match targets.as_array() {
                            Some(t) if t.iter().all(Value::is_string) => {
                                let t = t.iter().filter_map(|v| v.as_str().map(str::to_string));
                                patterns.insert(key.clone(), t.collect());
                            }
                            _ => errors.push(format!(
                                "compilerOptions.paths[{key:?}] is not an array of strings"
                            )),
                        }
                    }
                    own.paths = Some(patterns);
                }
                Some(_) => errors.push("compilerOptions.paths is not an object".into()),
            }
        }
        Some(_) => errors.push("compilerOptions is not an object".into()),
    }
    if !errors.is_empty() {
        own.error = Some(errors.join("; "));
    }
    own
}

/// The `extends` specifiers of a config's text (none when it does not parse).
pub fn extends_specifiers(text: &str) -> Vec<String> {
    parse("", text).extends
}

/// The workspace-relative files an `extends` specifier in `config` may name, in the order
/// TypeScript tries them: a relative or absolute path as written, then with `.json`; a
/// package in the `node_modules` of each directory from the config's up to the root
/// (`<spec>` when it ends in `.json`, else `<spec>.json` and `<spec>/tsconfig.json`).
/// A package's `tsconfig` field or `exports` map is not consulted.
pub fn extends_candidates(root: &Path, config: &str, spec: &str) -> Vec<String> {
    let spec = spec.replace('\\', "/");
    let with_json = |p: String| -> Vec<String> {
        if p.ends_with(".json") {
            vec![p]
        } else {
            vec![p.clone(), format!("{p}.json")]
        }
    };
    let dir = paths::parent(config);
    if spec.is_empty() {
        return Vec::new();
    }
    if spec.starts_with('/') {
        let Some(rel) = Path::new(&spec)
            .strip_prefix(root)
            .ok()
            .and_then(|r| r.to_str())
            .and_then(|r| paths::join("", r))
        else {
            return Vec::new();
        };
        return with_json(rel);
    }
    if spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../") {
        return paths::join(dir, &spec).map(with_json).unwrap_or_default();
    }
    let mut out = Vec::new();
    let mut ancestor = Some(dir);
    while let Some(a) = ancestor {
        if let Some(base) = paths::join(a, &format!("node_modules/{spec}")) {
            if spec.ends_with(".json") {
                out.push(base);
            } else {
                out.push(format!("{base}.json"));
                out.push(format!("{base}/tsconfig.json"));
            }
        }
        ancestor = (!a.is_empty()).then(|| paths::parent(a));
    }
    out
}

/// Options after applying `extends`: each with the directory it came from.
#[derive(Default)]
struct Effective {
    base_url: Option<Option<String>>,
    paths: Option<(BTreeMap<String, Vec<String>>, String)>,
    root_dir: Option<Option<String>>,
    out_dir: Option<Option<String>>,
    elision: Elision,
}

impl Effective {
    fn overlay(&mut self, other: Effective) {
        if other.base_url.is_some() {
            self.base_url = other.base_url;
        }
        if other.paths.is_some() {
            self.paths = other.paths;
        }
        if other.root_dir.is_some() {
            self.root_dir = other.root_dir;
        }
        if other.out_dir.is_some() {
            self.out_dir = other.out_dir;
        }
        self.elision.overlay(other.elision);
    }
}

struct Chain<'a> {
    configs: &'a HashMap<&'a str, &'a OwnOptions>,
    root: &'a Path,
    links: Vec<ExtendsLink>,
    errors: Vec<String>,
    stack: Vec<String>,
}

impl Chain<'_> {
    fn effective(&mut self, path: &str) -> Effective {
        let Some(own) = self.configs.get(path) else {
            return Effective::default();
        };
        let mut out = Effective::default();
        for spec in &own.extends {
            if self.links.len() >= MAX_EXTENDS_LINKS {
                self.errors
                    .push(format!("more than {MAX_EXTENDS_LINKS} extends links"));
                break;
            }
            let resolved = extends_candidates(self.root, path, spec)
                .into_iter()
                .find(|c| self.configs.contains_key(c.as_str()));
            self.links.push(ExtendsLink {
                from: path.to_string(),
                specifier: spec.clone(),
                resolved: resolved.clone(),
            });
            let Some(target) = resolved else {
                self.errors
                    .push(format!("{path}: extends {spec:?} not found"));
                continue;
            };
            if self.stack.contains(&target) {
                self.errors
                    .push(format!("{path}: extends cycle through {target}"));
                continue;
            }
            if self.stack.len() >= MAX_EXTENDS_DEPTH {
                self.errors
                    .push(format!("extends chain deeper than {MAX_EXTENDS_DEPTH}"));
                continue;
            }
            if let Some(error) = &self.configs[target.as_str()].error {
                self.errors.push(format!("{target}: {error}"));
            }
            self.stack.push(target.clone());
            let base = self.effective(&target);
            self.stack.pop();
            out.overlay(base);
        }
        out.overlay(Effective {
            base_url: own.base_url.clone(),
            paths: own
                .paths
                .clone()
                .map(|p| (p, paths::display_dir(paths::parent(path)))),
            root_dir: own.root_dir.clone(),
            out_dir: own.out_dir.clone(),
            elision: own.elision.clone(),
        });
        out
    }
}

/// Fills a tsconfig project's details from its chain; unresolved links, cycles and errors
/// in bases are added to its `error`.
pub fn apply_chain(
    project: &mut Project,
    path: &str,
    configs: &HashMap<&str, &OwnOptions>,
    root: &Path,
) {
    let mut chain = Chain {
        configs,
        root,
        links: Vec::new(),
        errors: Vec::new(),
        stack: vec![path.to_string()],
    };
    let effective = chain.effective(path);
    let base_url = effective.base_url.flatten();
    let (paths, paths_dir) = match effective.paths {
        Some((paths, dir)) => (paths, Some(dir)),
        None => (BTreeMap::new(), None),
    };
    project.tsconfig = Some(TsconfigDetails {
        paths_base: base_url.clone().or(paths_dir),
        base_url,
        paths,
        root_dir: effective.root_dir.flatten(),
        out_dir: effective.out_dir.flatten(),
        keeps_unused_imports: effective.elision.keeps_unused_imports(),
        extends: chain.links,
    });
    for error in chain.errors {
        project.add_error(error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::projects::ProjectKind;

    fn chain_of(files: &[(&str, &str)], path: &str) -> Project {
        let parsed: Vec<(&str, OwnOptions)> =
            files.iter().map(|(p, t)| (*p, parse(p, t))).collect();
        let configs: HashMap<&str, &OwnOptions> = parsed.iter().map(|(p, o)| (*p, o)).collect();
        let mut project = Project::new(ProjectKind::Tsconfig, path);
        project.error = configs[path].error.clone();
        apply_chain(&mut project, path, &configs, Path::new("/ws"));
        project
    }

    #[test]
    fn the_options_keeping_unused_imports_follow_extends() {
        let keeps = |files: &[(&str, &str)]| {
            let project = chain_of(files, "tsconfig.json");
            project.tsconfig.unwrap().keeps_unused_imports
        };
        let base = (
            "base.json",
            r#"{"compilerOptions": {"verbatimModuleSyntax": true}}"#,
        );
        assert!(keeps(&[
            (base.0, base.1),
            ("tsconfig.json", r#"{"extends": "./base.json"}"#)
        ]));
        let overridden =
            r#"{"extends": "./base.json", "compilerOptions": {"verbatimModuleSyntax": false}}"#;
        assert!(!keeps(&[(base.0, base.1), ("tsconfig.json", overridden)]));
        let preserve = r#"{"compilerOptions": {"importsNotUsedAsValues": "preserve"}}"#;
        assert!(keeps(&[("tsconfig.json", preserve)]));
        let remove = r#"{"compilerOptions": {"importsNotUsedAsValues": "remove"}}"#;
        assert!(!keeps(&[("tsconfig.json", remove)]));
        let values = r#"{"compilerOptions": {"preserveValueImports": true}}"#;
        assert!(keeps(&[("tsconfig.json", values)]));
        assert!(!keeps(&[("tsconfig.json", "{}")]));
    }

    const BASE: &str = r#"{
  // shared settings
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {
      "@shared/*": ["libs/shared/src/*"], // trailing comma next
    },
    "rootDir": "src",
  },
}"#;

    #[test]
    fn an_extends_chain_with_comments_and_trailing_commas() {
        let app = r#"{
  /* the app */
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "./lib", },
}"#;
        let p = chain_of(
            &[
                ("tsconfig.base.json", BASE),
                ("apps/web/tsconfig.json", app),
            ],
            "apps/web/tsconfig.json",
        );
        assert_eq!(p.error, None);
        let ts = p.tsconfig.unwrap();
        assert_eq!(ts.base_url.as_deref(), Some("."));
        assert_eq!(ts.paths_base.as_deref(), Some("."));
        assert_eq!(ts.paths["@shared/*"], ["libs/shared/src/*"]);
        assert_eq!(ts.root_dir.as_deref(), Some("apps/web/lib"));
        assert_eq!(ts.out_dir, None);
        assert_eq!(
            ts.extends,
            [ExtendsLink {
                from: "apps/web/tsconfig.json".into(),
                specifier: "../../tsconfig.base.json".into(),
                resolved: Some("tsconfig.base.json".into())
            }]
        );
    }

    #[test]
    fn later_bases_override_earlier_and_paths_follow_their_config() {
        let a = r#"{"compilerOptions": {"paths": {"a/*": ["a/*"]}}}"#;
        let b = r#"{"extends": "./c", "compilerOptions": {"rootDir": "b-root", "outDir": "out"}}"#;
        let c = r#"{"compilerOptions": {"paths": {"c/*": ["c/*"]}, "rootDir": "c-root"}}"#;
        let top = r#"{"extends": ["./configs/a.json", "./configs/b.json"]}"#;
        let p = chain_of(
            &[
                ("configs/a.json", a),
                ("configs/b.json", b),
                ("configs/c.json", c),
                ("tsconfig.json", top),
            ],
            "tsconfig.json",
        );
        assert_eq!(p.error, None);
        let ts = p.tsconfig.unwrap();
        assert_eq!(ts.paths.keys().collect::<Vec<_>>(), ["c/*"]);
        assert_eq!(ts.paths_base.as_deref(), Some("configs"));
        assert_eq!(ts.base_url, None);
        assert_eq!(ts.root_dir.as_deref(), Some("configs/b-root"));
        assert_eq!(ts.out_dir.as_deref(), Some("configs/out"));
        let resolved: Vec<_> = ts
            .extends
            .iter()
            .map(|l| l.resolved.as_deref().unwrap())
            .collect();
        assert_eq!(
            resolved,
            ["configs/a.json", "configs/b.json", "configs/c.json"]
        );
    }

    #[test]
    fn unresolved_packages_and_cycles_are_reported() {
        let top = r#"{"extends": ["@tsconfig/node20/tsconfig.json", "./loop.json"]}"#;
        let looping = r#"{"extends": "./tsconfig.json"}"#;
        let p = chain_of(
            &[("tsconfig.json", top), ("loop.json", looping)],
            "tsconfig.json",
        );
        let ts = p.tsconfig.as_ref().unwrap();
        assert_eq!(ts.extends[0].resolved, None);
        assert_eq!(ts.extends[1].resolved.as_deref(), Some("loop.json"));
        assert_eq!(
            p.error.as_deref(),
            Some(
                "tsconfig.json: extends \"@tsconfig/node20/tsconfig.json\" not found; \
                 loop.json: extends cycle through tsconfig.json"
            )
        );
    }

    #[test]
    fn a_package_in_node_modules() {
        let pkg = r#"{"compilerOptions": {"rootDir": "x"}}"#;
        let top = r#"{"extends": "@tsconfig/strictest"}"#;
        let p = chain_of(
            &[
                ("node_modules/@tsconfig/strictest/tsconfig.json", pkg),
                ("web/tsconfig.json", top),
            ],
            "web/tsconfig.json",
        );
        assert_eq!(p.error, None);
        assert_eq!(
            p.tsconfig.unwrap().extends[0].resolved.as_deref(),
            Some("node_modules/@tsconfig/strictest/tsconfig.json")
        );
    }

    #[test]
    fn candidates_follow_typescript() {
        let root = Path::new("/ws");
        assert_eq!(
            extends_candidates(root, "a/tsconfig.json", "./base"),
            ["a/base", "a/base.json"]
        );
        assert_eq!(
            extends_candidates(root, "a/tsconfig.json", "../b.json"),
            ["b.json"]
        );
        assert_eq!(
            extends_candidates(root, "tsconfig.json", "../outside.json"),
            Vec::<String>::new()
        );
        assert_eq!(
            extends_candidates(root, "tsconfig.json", "/ws/conf/x.json"),
            ["conf/x.json"]
        );
        assert_eq!(
            extends_candidates(root, "tsconfig.json", "/elsewhere/x.json"),
            Vec::<String>::new()
        );
        assert_eq!(
            extends_candidates(root, "a/b/tsconfig.json", "pkg/tsconfig.json"),
            [
                "a/b/node_modules/pkg/tsconfig.json",
                "a/node_modules/pkg/tsconfig.json",
                "node_modules/pkg/tsconfig.json"
            ]
        );
        assert_eq!(
            extends_candidates(root, "tsconfig.json", "@scope/cfg"),
            [
                "node_modules/@scope/cfg.json",
                "node_modules/@scope/cfg/tsconfig.json"
            ]
        );
    }

    #[test]
    fn malformed_tsconfigs() {
        let broken = parse(
            "tsconfig.json",
            "{\n  \"compilerOptions\": { \"baseUrl\": . }\n}",
        );
        assert_eq!(
            broken.error.as_deref(),
            Some("expected value at line 2 column 35")
        );
        let typed = parse(
            "tsconfig.json",
            r#"{"extends": 3, "compilerOptions": {"paths": {"a": "b"}}}"#,
        );
        assert_eq!(
            typed.error.as_deref(),
            Some(
                "extends is neither a string nor an array of strings; compilerOptions.paths[\"a\"] is not an array of strings"
            )
        );
        // An error in a base is the project's error too.
        let p = chain_of(
            &[
                ("base.json", "{"),
                ("tsconfig.json", r#"{"extends": "./base.json"}"#),
            ],
            "tsconfig.json",
        );
        assert_eq!(
            p.error.as_deref(),
            Some("base.json: EOF while parsing an object at line 1 column 1")
        );
    }
}
