//! `package.json`: name, entry points (`main`, `module`, `types`, `exports`), module type,
//! `workspaces` and the names of its dependencies. Strict JSON, as npm reads it.

use serde_json::{Map, Value};

use super::{DeclaredProgram, NpmDetails, Project, ProjectKind, paths};

pub fn parse(path: &str, text: &str) -> Project {
    let mut project = Project::new(ProjectKind::Npm, path);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let object = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => {
            project.error = Some("not a JSON object".into());
            return project;
        }
        Err(e) => {
            project.error = Some(e.to_string());
            return project;
        }
    };
    project.name = string(&mut project, &object, "name");
    project.version = string(&mut project, &object, "version");
    let mut details = NpmDetails {
        main: string(&mut project, &object, "main"),
        module: string(&mut project, &object, "module"),
        package_type: string(&mut project, &object, "type"),
        exports: object.get("exports").cloned(),
        ..Default::default()
    };
    details.bins = bins(&object, paths::parent(path), project.name.as_deref());
    details.types = match string(&mut project, &object, "types") {
        Some(t) => Some(t),
        None => string(&mut project, &object, "typings"),
    };
    details.workspaces = match object.get("workspaces") {
        None => Vec::new(),
        Some(Value::Array(globs)) => strings(&mut project, globs),
        Some(Value::Object(yarn)) => match yarn.get("packages") {
            Some(Value::Array(globs)) => strings(&mut project, globs),
            None => Vec::new(),
            Some(_) => {
                project.add_error("workspaces.packages is not an array".into());
                Vec::new()
            }
        },
        Some(_) => {
            project.add_error("workspaces is neither an array nor an object".into());
            Vec::new()
        }
    };
    details.dependencies = dependencies(&mut project, &object);
    project.npm = Some(details);
    project
}

/// The names in `dependencies`, `devDependencies`, `peerDependencies` and
/// `optionalDependencies`, sorted, each once.
fn dependencies(project: &mut Project, object: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    for key in [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ] {
        match object.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(deps)) => names.extend(deps.keys().cloned()),
            Some(_) => project.add_error(format!("{key} is not an object")),
        }
    }
    names.sort();
    names.dedup();
    names
}

fn string(project: &mut Project, object: &Map<String, Value>, key: &str) -> Option<String> {
    match object.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            project.add_error(format!("{key} is not a string"));
            None
        }
    }
}

fn strings(project: &mut Project, values: &[Value]) -> Vec<String> {
    if values.iter().all(Value::is_string) {
        values
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    } else {
        project.add_error("workspaces holds a value that is not a string".into());
        Vec::new()
    }
}

/// `bin`, each path from the manifest's directory.
fn bins(object: &Map<String, Value>, dir: &str, name: Option<&str>) -> Vec<DeclaredProgram> {
    let program = |command: &str, path: &str| {
        Some(DeclaredProgram {
            command: command.to_string(),
            target: paths::join(dir, path)?,
        })
    };
    match object.get("bin") {
        // A scoped package's command is its name without the scope.
        Some(Value::String(path)) => name
            .and_then(|name| program(name.rsplit('/').next().unwrap_or(name), path))
            .into_iter()
            .collect(),
        Some(Value::Object(bins)) => bins
            .iter()
            .filter_map(|(command, path)| program(command, path.as_str()?))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bin_is_named_after_the_package_without_its_scope() {
        let project = parse(
            "web/package.json",
            r#"{"name": "@acme/tool", "bin": "./cli.js"}"#,
        );
        let program = |command: &str, target: &str| DeclaredProgram {
            command: command.into(),
            target: target.into(),
        };
        assert_eq!(project.npm.unwrap().bins, [program("tool", "web/cli.js")]);
        let project = parse("package.json", r#"{"bin": {"a": "bin/a.js", "b": 1}}"#);
        assert_eq!(project.npm.unwrap().bins, [program("a", "bin/a.js")]);
    }

    #[test]
    fn a_library_package() {
        let text = r#"{
  "name": "@acme/ui",
  "version": "2.0.0",
  "type": "module",
  "main": "./dist/index.cjs",
  "module": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "exports": {
    ".": { "import": "./dist/index.js", "require": "./dist/index.cjs" },
    "./button": "./dist/button.js"
  },
  "dependencies": { "react": "^18.0.0" }
}"#;
        let p = parse("packages/ui/package.json", text);
        assert_eq!(
            (p.name.as_deref(), p.error.as_deref()),
            (Some("@acme/ui"), None)
        );
        assert_eq!(p.root, "packages/ui");
        assert_eq!(p.version.as_deref(), Some("2.0.0"));
        let npm = p.npm.unwrap();
        assert_eq!(npm.main.as_deref(), Some("./dist/index.cjs"));
        assert_eq!(npm.module.as_deref(), Some("./dist/index.js"));
        assert_eq!(npm.types.as_deref(), Some("./dist/index.d.ts"));
        assert_eq!(npm.package_type.as_deref(), Some("module"));
        assert_eq!(npm.exports.unwrap()["./button"], json!("./dist/button.js"));
        assert_eq!(npm.dependencies, ["react"]);
    }

    #[test]
    fn dependencies_of_every_kind_once() {
        let p = parse(
            "package.json",
            r#"{"dependencies": {"b": "1", "@s/a": "2"}, "devDependencies": {"b": "1"},
                "peerDependencies": {"react": "*"}, "optionalDependencies": {"fsevents": "*"},
                "bundleDependencies": ["ignored"]}"#,
        );
        assert_eq!(p.error, None);
        assert_eq!(
            p.npm.unwrap().dependencies,
            ["@s/a", "b", "fsevents", "react"]
        );
        let typed = parse("package.json", r#"{"dependencies": ["a"]}"#);
        assert_eq!(
            typed.error.as_deref(),
            Some("dependencies is not an object")
        );
    }

    #[test]
    fn workspaces_as_an_array_or_yarn_object() {
        let array = parse(
            "package.json",
            r#"{"private": true, "workspaces": ["packages/*", "apps/web"]}"#,
        );
        assert_eq!(array.npm.unwrap().workspaces, ["packages/*", "apps/web"]);
        let yarn = parse(
            "package.json",
            r#"{"workspaces": {"packages": ["libs/*"], "nohoist": ["**/x"]}}"#,
        );
        assert_eq!(yarn.npm.unwrap().workspaces, ["libs/*"]);
        let typings = parse("package.json", r#"{"typings": "index.d.ts"}"#);
        assert_eq!(typings.npm.unwrap().types.as_deref(), Some("index.d.ts"));
    }

    #[test]
    fn malformed_package_json() {
        let broken = parse("package.json", "{\n  \"name\": \"x\",\n}");
        assert_eq!(broken.kind, ProjectKind::Npm);
        assert_eq!(
            broken.error.as_deref(),
            Some("trailing comma at line 3 column 1")
        );
        assert_eq!(
            parse("package.json", "[]").error.as_deref(),
            Some("not a JSON object")
        );
        let typed = parse(
            "package.json",
            r#"{"name": 1, "main": "a.js", "workspaces": "x"}"#,
        );
        assert_eq!(
            typed.error.as_deref(),
            Some("name is not a string; workspaces is neither an array nor an object")
        );
        assert_eq!(typed.npm.unwrap().main.as_deref(), Some("a.js"));
    }
}
