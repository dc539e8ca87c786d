//! `Cargo.toml`: a package (name, library name and path, dependencies) and/or a workspace
//! (members).

use toml::{Table, Value};

use super::{
    CargoDependency, CargoDetails, CargoWorkspaceDetails, Project, ProjectKind, paths, toml_error,
};

pub fn parse(path: &str, text: &str) -> Vec<Project> {
    let table: Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            return vec![Project::failed(
                ProjectKind::Cargo,
                path,
                toml_error(text, &e),
            )];
        }
    };
    let dir = paths::parent(path);
    let mut out = Vec::new();
    if let Some(ws) = table.get("workspace") {
        out.push(workspace(path, ws));
    }
    match table.get("package") {
        Some(package) => {
            let mut project = package_project(path, dir, package, table.get("lib"));
            if let Some(cargo) = &mut project.cargo {
                cargo.dependencies = dependencies(&table);
                cargo.bins = bins(&table, dir, project.name.as_deref());
            }
            out.push(project);
        }
        None if out.is_empty() => out.push(Project::failed(
            ProjectKind::Cargo,
            path,
            "neither [package] nor [workspace]".into(),
        )),
        None => {}
    }
    out
}

fn package_project(path: &str, dir: &str, package: &Value, lib: Option<&Value>) -> Project {
    let mut project = Project::new(ProjectKind::Cargo, path);
    let Some(package) = package.as_table() else {
        project.error = Some("[package] is not a table".into());
        return project;
    };
    match package.get("name") {
        Some(Value::String(name)) => project.name = Some(name.clone()),
        Some(_) => project.add_error("package.name is not a string".into()),
        None => project.add_error("package.name is missing".into()),
    }
    // `version.workspace = true` names no version here.
    if let Some(Value::String(version)) = package.get("version") {
        project.version = Some(version.clone());
    }
    let lib = lib.and_then(Value::as_table);
    let lib_name = match lib.and_then(|l| l.get("name")) {
        Some(Value::String(name)) => Some(name.clone()),
        Some(_) => {
            project.add_error("lib.name is not a string".into());
            None
        }
        None => project.name.as_ref().map(|n| n.replace('-', "_")),
    };
    let lib_path = match lib.and_then(|l| l.get("path")) {
        Some(Value::String(p)) => paths::join(dir, p),
        Some(_) => {
            project.add_error("lib.path is not a string".into());
            None
        }
        None => paths::join(dir, "src/lib.rs"),
    };
    project.cargo = Some(CargoDetails {
        lib_name,
        lib_path,
        dependencies: Vec::new(),
        bins: Vec::new(),
    });
    project
}

/// The `[[bin]]` targets, each path from the manifest's directory.
fn bins(table: &Table, dir: &str, package: Option<&str>) -> Vec<super::DeclaredProgram> {
    let bins = table.get("bin").and_then(Value::as_array);
    bins.into_iter()
        .flatten()
        .filter_map(|bin| {
            let name = bin.get("name")?.as_str()?;
            let path = match bin.get("path").and_then(Value::as_str) {
                Some(path) => path.to_string(),
                None if Some(name) == package => "src/main.rs".into(),
                None => format!("src/bin/{name}.rs"),
            };
            Some(super::DeclaredProgram {
                command: name.to_string(),
                target: paths::join(dir, &path)?,
            })
        })
        .collect()
}

/// The dependency tables Cargo reads (the underscore spellings are older Cargo's).
const DEPENDENCY_TABLES: &[&str] = &[
    "dependencies",
    "dev-dependencies",
    "dev_dependencies",
    "build-dependencies",
    "build_dependencies",
];

/// Every dependency of the manifest, top-level and per target, sorted and deduplicated.
fn dependencies(table: &Table) -> Vec<CargoDependency> {
    let targets = table
        .get("target")
        .and_then(Value::as_table)
        .into_iter()
        .flat_map(|t| t.values().filter_map(Value::as_table));
    let mut out: Vec<CargoDependency> = std::iter::once(table)
        .chain(targets)
        .flat_map(|t| {
            DEPENDENCY_TABLES
                .iter()
                .filter_map(|k| t.get(*k)?.as_table())
        })
        .flat_map(|deps| deps.iter())
        .map(|(key, spec)| CargoDependency {
            name: key.replace('-', "_"),
            package: spec
                .get("package")
                .and_then(Value::as_str)
                .unwrap_or(key)
                .to_string(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out.dedup_by(|a, b| a.name == b.name);
    out
}

fn workspace(path: &str, ws: &Value) -> Project {
    let mut project = Project::new(ProjectKind::CargoWorkspace, path);
    let mut details = CargoWorkspaceDetails::default();
    match ws.as_table() {
        Some(ws) => {
            details.members = strings(&mut project, ws, "members");
            details.exclude = strings(&mut project, ws, "exclude");
        }
        None => project.add_error("[workspace] is not a table".into()),
    }
    project.cargo_workspace = Some(details);
    project
}

/// An array of strings under `key`; a wrong type is recorded as the project's error.
fn strings(project: &mut Project, table: &Table, key: &str) -> Vec<String> {
    match table.get(key) {
        None => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_str) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            project.add_error(format!("workspace.{key} is not an array of strings"));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::projects::DeclaredProgram;

    #[test]
    fn a_workspace_with_a_root_package() {
        let text = r#"
[workspace]
members = ["crates/*", "tools/gen"]
exclude = ["crates/legacy"]
resolver = "2"

[package]
name = "my-app"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { workspace = true }
"#;
        let projects = parse("Cargo.toml", text);
        assert_eq!(projects.len(), 2);
        let ws = &projects[0];
        assert_eq!(ws.kind, ProjectKind::CargoWorkspace);
        assert_eq!((ws.root.as_str(), ws.error.as_deref()), (".", None));
        let details = ws.cargo_workspace.as_ref().unwrap();
        assert_eq!(details.members, ["crates/*", "tools/gen"]);
        assert_eq!(details.exclude, ["crates/legacy"]);
        let package = &projects[1];
        assert_eq!(package.kind, ProjectKind::Cargo);
        assert_eq!(package.name.as_deref(), Some("my-app"));
        assert_eq!(package.version.as_deref(), Some("0.1.0"));
        assert_eq!(
            package.cargo,
            Some(CargoDetails {
                lib_name: Some("my_app".into()),
                lib_path: Some("src/lib.rs".into()),
                dependencies: vec![CargoDependency {
                    name: "serde".into(),
                    package: "serde".into()
                }],
                bins: Vec::new(),
            })
        );
    }

    #[test]
    fn a_member_with_a_declared_library() {
        let text = "[package]\nname = \"core-utils\"\n\n[lib]\nname = \"cu\"\npath = \"lib/mod.rs\"\n\n\
             [[bin]]\nname = \"core-utils\"\n\n[[bin]]\nname = \"cu-gen\"\n\n\
             [[bin]]\nname = \"tool\"\npath = \"../../tools/tool.rs\"\n";
        let projects = parse("crates/core/Cargo.toml", text);
        assert_eq!(projects.len(), 1);
        assert_eq!(projects[0].root, "crates/core");
        assert_eq!(
            projects[0].cargo,
            Some(CargoDetails {
                lib_name: Some("cu".into()),
                lib_path: Some("crates/core/lib/mod.rs".into()),
                dependencies: Vec::new(),
                // Cargo's defaults for the package's name and another, and a path given.
                bins: [
                    ("core-utils", "crates/core/src/main.rs"),
                    ("cu-gen", "crates/core/src/bin/cu-gen.rs"),
                    ("tool", "tools/tool.rs"),
                ]
                .map(|(command, target)| DeclaredProgram {
                    command: command.into(),
                    target: target.into(),
                })
                .into(),
            })
        );
    }

    #[test]
    fn dependencies_of_every_table_with_renames() {
        let text = r#"
[package]
name = "app"

[dependencies]
serde_json = "1"
tokio-util = { version = "0.7" }
json = { package = "serde_json", version = "1" }

[dev-dependencies]
proptest = "1"

[build-dependencies]
cc = "1"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[target.x86_64-pc-windows-msvc.dev-dependencies]
windows-sys = { version = "0.52", package = "windows-sys" }
"#;
        let projects = parse("Cargo.toml", text);
        let deps: Vec<(&str, &str)> = projects[0]
            .cargo
            .as_ref()
            .unwrap()
            .dependencies
            .iter()
            .map(|d| (d.name.as_str(), d.package.as_str()))
            .collect();
        assert_eq!(
            deps,
            [
                ("cc", "cc"),
                ("json", "serde_json"),
                ("libc", "libc"),
                ("proptest", "proptest"),
                ("serde_json", "serde_json"),
                ("tokio_util", "tokio-util"),
                ("windows_sys", "windows-sys"),
            ]
        );
    }

    #[test]
    fn malformed_manifests_are_errors_not_panics() {
        let broken = parse("Cargo.toml", "[package\nname = \"x\"\n");
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].kind, ProjectKind::Cargo);
        assert_eq!(broken[0].name, None);
        assert!(
            broken[0].error.as_deref().unwrap().starts_with("line 1: "),
            "{broken:?}"
        );

        let empty = parse("a/Cargo.toml", "");
        assert_eq!(
            empty[0].error.as_deref(),
            Some("neither [package] nor [workspace]")
        );

        let typed = parse(
            "Cargo.toml",
            "[package]\nname = 3\n[workspace]\nmembers = \"x\"\n",
        );
        assert_eq!(
            typed[0].error.as_deref(),
            Some("workspace.members is not an array of strings")
        );
        assert_eq!(
            typed[1].error.as_deref(),
            Some("package.name is not a string")
        );
    }
}
