//! `projects`: what the workspace's project files (`Cargo.toml`, `pyproject.toml`,
//! `setup.cfg`, `setup.py`, `package.json`, `tsconfig.json`/`jsconfig.json`, `go.mod`,
//! `go.work`) say, as plain data for import resolution and for users.
//!
//! Invariants:
//! - Each manifest is parsed by its own tracked query ([`manifest_facts`]), which depends on
//!   that file's text only: editing one manifest re-parses only that one. [`projects`]
//!   combines the parsed facts (Python files of one directory, Cargo and npm workspace
//!   members, tsconfig `extends` chains); that is cheap and reads no source text.
//! - A malformed manifest is an answer (a project with `error` set), never a panic or a
//!   failed query. Nothing here runs a manifest (`setup.py` is detected, not executed) or
//!   reads the disk: a tsconfig's `extends` target is found among the inputs, where the
//!   writer put it if it exists (see [`extends_candidates`]).
//! - Paths in answers are workspace-relative with `/`; a directory at the root is `"."`.
//!   A path a manifest names outside the workspace is left unresolved (`None`).

mod cargo;
mod go;
mod jsonc;
mod npm;
pub mod paths;
mod python;
mod tsconfig;

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Arc,
};

use serde::Serialize;

use crate::db::{Db, ManifestFile, ManifestKind, Workspace};

pub use tsconfig::{extends_candidates, extends_specifiers};

/// What kind of project a manifest describes.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectKind {
    /// A Cargo package (`[package]` in `Cargo.toml`).
    Cargo,
    /// A Cargo workspace (`[workspace]` in `Cargo.toml`; a root package is listed apart).
    CargoWorkspace,
    /// A Python project: `pyproject.toml`, `setup.cfg` and `setup.py` of one directory.
    Python,
    Npm,
    /// A `tsconfig.json` or `jsconfig.json`, with its `extends` chain applied.
    Tsconfig,
    GoModule,
    GoWork,
}

impl ProjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectKind::Cargo => "cargo",
            ProjectKind::CargoWorkspace => "cargo-workspace",
            ProjectKind::Python => "python",
            ProjectKind::Npm => "npm",
            ProjectKind::Tsconfig => "tsconfig",
            ProjectKind::GoModule => "go-module",
            ProjectKind::GoWork => "go-work",
        }
    }
}

/// One project. The field named after its kind holds what resolution needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Project {
    pub kind: ProjectKind,
    /// Package, module or project name, when the manifest declares one.
    pub name: Option<String>,
    /// The version the manifest declares (a Cargo package's, a `package.json`'s, a Python
    /// project's), when it writes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The manifest's directory, workspace-relative (`"."` for the root).
    pub root: String,
    /// The manifest read (for Python, the first of `pyproject.toml`, `setup.cfg`,
    /// `setup.py` present).
    pub manifest: String,
    /// Why the manifest (or a file it extends) could not be read as intended. The fields
    /// still hold whatever could be read.
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cargo: Option<CargoDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cargo_workspace: Option<CargoWorkspaceDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub python: Option<PythonDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub npm: Option<NpmDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tsconfig: Option<TsconfigDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub go_module: Option<GoModuleDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub go_work: Option<GoWorkDetails>,
}

impl Project {
    fn new(kind: ProjectKind, manifest: &str) -> Project {
        Project {
            kind,
            name: None,
            version: None,
            root: paths::display_dir(paths::parent(manifest)),
            manifest: manifest.to_string(),
            error: None,
            cargo: None,
            cargo_workspace: None,
            python: None,
            npm: None,
            tsconfig: None,
            go_module: None,
            go_work: None,
        }
    }

    fn failed(kind: ProjectKind, manifest: &str, error: String) -> Project {
        Project {
            error: Some(error),
            ..Project::new(kind, manifest)
        }
    }

    /// Appends an error to any already recorded.
    fn add_error(&mut self, error: String) {
        self.error = Some(match self.error.take() {
            Some(first) => format!("{first}; {error}"),
            None => error,
        });
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CargoDetails {
    /// The name the library is imported by: `[lib] name`, else the package name with `-`
    /// as `_`.
    pub lib_name: Option<String>,
    /// `[lib] path`, else Cargo's default `src/lib.rs` (whether or not it exists).
    pub lib_path: Option<String>,
    /// Every dependency (`[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`,
    /// and those under `[target.….…]`), sorted by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<CargoDependency>,
    /// `[[bin]]` targets: their `path`, else Cargo's default (`src/main.rs` for the
    /// package's name, else `src/bin/NAME.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<DeclaredProgram>,
}

/// A program a manifest declares: the command that runs it and what it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeclaredProgram {
    pub command: String,
    /// A workspace path (a Cargo `[[bin]]`, an npm `bin`), or a Python script's
    /// `module:function`.
    pub target: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CargoDependency {
    /// The name code uses: the dependency's key with `-` as `_`.
    pub name: String,
    /// The package depended on: `package = "…"` for a renamed dependency, else the key.
    pub package: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CargoWorkspaceDetails {
    /// `[workspace] members`, as written (globs relative to the workspace's root).
    pub members: Vec<String>,
    pub exclude: Vec<String>,
    /// Roots of the Cargo packages in this workspace that the member globs match.
    pub member_roots: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PythonDetails {
    /// Every Python project file of this directory.
    pub manifests: Vec<String>,
    /// Directories that import names start from: `package-dir`'s `""` entry,
    /// `packages.find.where`, Poetry's `from`, Hatch's package parents; else `src` when it
    /// holds Python files (the `src/` layout); else the project's root.
    pub source_roots: Vec<String>,
    /// `package-dir` (`package_dir` in `setup.cfg`): package name → directory. The root
    /// package (`""`) is listed in `source_roots` instead.
    pub package_dir: BTreeMap<String, String>,
    /// `[project.scripts]`, `[project.gui-scripts]` and `[tool.poetry.scripts]`: commands
    /// and the `module:function` each runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<DeclaredProgram>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct NpmDetails {
    pub main: Option<String>,
    pub module: Option<String>,
    /// `types`, else `typings`.
    pub types: Option<String>,
    /// `"module"` or `"commonjs"`, as declared.
    #[serde(rename = "type")]
    pub package_type: Option<String>,
    /// `exports` as written (a string, or conditions and subpaths).
    pub exports: Option<serde_json::Value>,
    /// `workspaces` globs (an array, or Yarn's `{ "packages": [...] }`).
    pub workspaces: Vec<String>,
    /// Roots of the npm packages in this workspace the globs match.
    pub member_roots: Vec<String>,
    /// `bin`: one path named after the package (without its scope), or a map of commands
    /// to paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<DeclaredProgram>,
    /// Package names in `dependencies`, `devDependencies`, `peerDependencies` and
    /// `optionalDependencies`, sorted. For import resolution; left out of answers, where a
    /// long list would crowd out the projects.
    #[serde(skip)]
    #[schemars(skip)]
    pub dependencies: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TsconfigDetails {
    /// Effective `compilerOptions.baseUrl` after `extends`, workspace-relative.
    pub base_url: Option<String>,
    /// Effective `compilerOptions.paths`, patterns as written.
    pub paths: BTreeMap<String, Vec<String>>,
    /// The directory `paths` patterns are resolved from: `baseUrl` when set, else the
    /// directory of the config that declared `paths`.
    pub paths_base: Option<String>,
    /// Effective `compilerOptions.rootDir`, workspace-relative.
    pub root_dir: Option<String>,
    /// Effective `compilerOptions.outDir`, workspace-relative.
    pub out_dir: Option<String>,
    /// Whether TypeScript keeps an import statement whose names go unused (effective
    /// `verbatimModuleSyntax` or `preserveValueImports`, or `importsNotUsedAsValues`
    /// `preserve` or `error`): its module is then evaluated all the same.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keeps_unused_imports: bool,
    /// Every `extends` link followed, in the order they are applied.
    pub extends: Vec<ExtendsLink>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExtendsLink {
    /// The config that says `extends`.
    pub from: String,
    pub specifier: String,
    /// The file it names, when present in the workspace (a package's only when it is in a
    /// `node_modules` directory on disk); `None` when unresolved.
    pub resolved: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GoModuleDetails {
    pub go_version: Option<String>,
    /// `require` directives: module path and version.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<GoRequire>,
    pub replace: Vec<GoReplace>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GoRequire {
    pub path: String,
    pub version: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GoWorkDetails {
    pub go_version: Option<String>,
    /// `use` directories, workspace-relative (`None` for one outside the workspace).
    #[serde(rename = "use")]
    pub use_dirs: Vec<Option<String>>,
    pub replace: Vec<GoReplace>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GoReplace {
    pub old: String,
    pub old_version: Option<String>,
    pub new: String,
    pub new_version: Option<String>,
    /// For a replacement by a local directory (`./x`, `../x`): that directory,
    /// workspace-relative, when inside the workspace.
    pub dir: Option<String>,
}

/// What one manifest says on its own. The projects lack what needs other manifests
/// (workspace members, extends chains, Python files of the same directory).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestFacts {
    pub projects: Vec<Project>,
    /// For tsconfig and jsconfig files (and the files they extend): what the chain needs.
    pub tsconfig: Option<tsconfig::OwnOptions>,
}

/// Parses one manifest. Depends on that file alone.
#[salsa::tracked(returns(ref))]
pub fn manifest_facts(db: &dyn Db, file: ManifestFile) -> ManifestFacts {
    let path = file.path(db).as_str();
    let text = file.text(db);
    match file.kind(db) {
        ManifestKind::CargoToml => ManifestFacts {
            projects: cargo::parse(path, text),
            tsconfig: None,
        },
        ManifestKind::PyprojectToml => ManifestFacts {
            projects: vec![python::parse_pyproject(path, text)],
            tsconfig: None,
        },
        ManifestKind::SetupCfg => ManifestFacts {
            projects: vec![python::parse_setup_cfg(path, text)],
            tsconfig: None,
        },
        ManifestKind::SetupPy => ManifestFacts {
            projects: vec![python::setup_py(path)],
            tsconfig: None,
        },
        ManifestKind::PackageJson => ManifestFacts {
            projects: vec![npm::parse(path, text)],
            tsconfig: None,
        },
        ManifestKind::GoMod => ManifestFacts {
            projects: vec![go::parse_go_mod(path, text)],
            tsconfig: None,
        },
        ManifestKind::GoWork => ManifestFacts {
            projects: vec![go::parse_go_work(path, text)],
            tsconfig: None,
        },
        kind @ (ManifestKind::TsConfig | ManifestKind::JsConfig | ManifestKind::TsConfigBase) => {
            let own = tsconfig::parse(path, text);
            let projects = if kind == ManifestKind::TsConfigBase {
                Vec::new()
            } else {
                let mut project = Project::new(ProjectKind::Tsconfig, path);
                project.error = own.error.clone();
                vec![project]
            };
            ManifestFacts {
                projects,
                tsconfig: Some(own),
            }
        }
    }
}

/// Every project of the workspace, sorted by root, kind and manifest.
#[salsa::tracked(returns(clone))]
pub fn projects(db: &dyn Db, workspace: Workspace) -> Arc<[Project]> {
    let manifests = workspace.manifests(db);
    let facts: Vec<(&str, &ManifestFacts)> = manifests
        .iter()
        .map(|&m| (m.path(db).as_str(), manifest_facts(db, m)))
        .collect();
    let tsconfigs: HashMap<&str, &tsconfig::OwnOptions> = facts
        .iter()
        .filter_map(|(path, f)| Some((*path, f.tsconfig.as_ref()?)))
        .collect();

    let mut out: Vec<Project> = Vec::new();
    let mut python_by_root: BTreeMap<String, Vec<Project>> = BTreeMap::new();
    for (path, f) in &facts {
        for project in &f.projects {
            let mut project = project.clone();
            match project.kind {
                ProjectKind::Python => {
                    python_by_root
                        .entry(project.root.clone())
                        .or_default()
                        .push(project);
                    continue;
                }
                ProjectKind::Tsconfig => {
                    tsconfig::apply_chain(&mut project, path, &tsconfigs, workspace.root(db));
                }
                _ => {}
            }
            out.push(project);
        }
    }
    let src_dirs = python_src_dirs(db, workspace);
    out.extend(
        python_by_root
            .into_values()
            .map(|parts| python::merge(parts, &src_dirs)),
    );
    let cargo_roots = roots_of(&out, ProjectKind::Cargo);
    let npm_roots = roots_of(&out, ProjectKind::Npm);
    for project in &mut out {
        if let Some(ws) = &mut project.cargo_workspace {
            ws.member_roots = members(&project.root, &ws.members, &ws.exclude, &cargo_roots);
        }
        if let Some(npm) = &mut project.npm {
            let (exclude, include): (Vec<String>, Vec<String>) = npm
                .workspaces
                .iter()
                .cloned()
                .partition(|g| g.starts_with('!'));
            let exclude: Vec<String> = exclude.iter().map(|g| g[1..].to_string()).collect();
            npm.member_roots = members(&project.root, &include, &exclude, &npm_roots);
        }
    }
    out.sort_by(|a, b| (&a.root, a.kind, &a.manifest).cmp(&(&b.root, b.kind, &b.manifest)));
    out.into()
}

/// The directories of the workspace's tsconfig files (not jsconfig), each with whether its
/// options keep an import statement whose names go unused. Changes only with those files.
#[salsa::tracked(returns(clone))]
pub fn tsconfig_import_keeping(db: &dyn Db, workspace: Workspace) -> Arc<BTreeMap<String, bool>> {
    let mut dirs: BTreeMap<String, bool> = BTreeMap::new();
    for project in projects(db, workspace).iter() {
        let Some(ts) = &project.tsconfig else {
            continue;
        };
        if project.manifest.ends_with("jsconfig.json") {
            continue;
        }
        let dir = if project.root == "." {
            ""
        } else {
            &project.root
        };
        *dirs.entry(dir.to_string()).or_default() |= ts.keeps_unused_imports;
    }
    Arc::new(dirs)
}

/// Whether the tsconfig nearest to the file at `path` (in its directory or above) keeps an
/// import statement whose names go unused; `false` without one.
pub fn keeps_unused_imports(db: &dyn Db, workspace: Workspace, path: &str) -> bool {
    let dirs = tsconfig_import_keeping(db, workspace);
    let mut dir = paths::parent(path);
    loop {
        if let Some(&keeps) = dirs.get(dir) {
            return keeps;
        }
        if dir.is_empty() {
            return false;
        }
        dir = paths::parent(dir);
    }
}

/// Directories named `src` that hold Python files (at any depth): the `src/` layout.
/// Changes only when such a directory gains its first or loses its last Python file, so
/// [`projects`] is not re-run for ordinary file additions.
#[salsa::tracked(returns(clone))]
pub fn python_src_dirs(db: &dyn Db, workspace: Workspace) -> Arc<BTreeSet<String>> {
    let mut dirs = BTreeSet::new();
    for &file in workspace.files(db).iter() {
        let path = file.path(db);
        if !(path.ends_with(".py") || path.ends_with(".pyi")) {
            continue;
        }
        let mut dir = paths::parent(path);
        loop {
            if dir == "src" || dir.ends_with("/src") {
                dirs.insert(dir.to_string());
            }
            if dir.is_empty() {
                break;
            }
            dir = paths::parent(dir);
        }
    }
    Arc::new(dirs)
}

fn roots_of(projects: &[Project], kind: ProjectKind) -> Vec<String> {
    projects
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.root.clone())
        .collect()
}

/// The roots among `candidates` that a glob in `include` matches and none in `exclude`
/// does; globs are relative to `root`.
fn members(
    root: &str,
    include: &[String],
    exclude: &[String],
    candidates: &[String],
) -> Vec<String> {
    let base = if root == "." { "" } else { root };
    let resolve = |globs: &[String]| -> Vec<String> {
        globs
            .iter()
            .filter_map(|g| paths::join(base, g.trim_end_matches('/')))
            .collect()
    };
    let (include, exclude) = (resolve(include), resolve(exclude));
    let mut out: Vec<String> = candidates
        .iter()
        .filter(|c| {
            let path = if *c == "." { "" } else { c.as_str() };
            include.iter().any(|g| paths::glob_matches(g, path))
                && !exclude.iter().any(|g| paths::glob_matches(g, path))
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A TOML parse error as one line: `line N: message`.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            format!("line {line}: {}", e.message().trim_end())
        }
        None => e.message().trim_end().to_string(),
    }
}
