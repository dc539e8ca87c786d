//! Python projects: `pyproject.toml`, `setup.cfg` (an INI file) and `setup.py` (detected
//! only, never run), merged per directory.

use std::collections::{BTreeMap, BTreeSet};

use toml::{Table, Value};

use super::{Project, ProjectKind, PythonDetails, paths, toml_error};

pub fn parse_pyproject(path: &str, text: &str) -> Project {
    let mut project = python_project(path);
    let table: Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            project.error = Some(toml_error(text, &e));
            return project;
        }
    };
    let dir = paths::parent(path);
    let get = |keys: &[&str]| -> Option<&Value> {
        let mut value = table.get(keys[0])?;
        for key in &keys[1..] {
            value = value.as_table()?.get(*key)?;
        }
        Some(value)
    };
    let name = match (get(&["project", "name"]), get(&["tool", "poetry", "name"])) {
        (Some(Value::String(n)), _) | (None, Some(Value::String(n))) => Some(n.clone()),
        (Some(_), _) => {
            project.add_error("project.name is not a string".into());
            None
        }
        (None, Some(_)) => {
            project.add_error("tool.poetry.name is not a string".into());
            None
        }
        (None, None) => None,
    };
    project.name = name;
    project.version = match (
        get(&["project", "version"]),
        get(&["tool", "poetry", "version"]),
    ) {
        (Some(Value::String(v)), _) | (None, Some(Value::String(v))) => Some(v.clone()),
        _ => None,
    };
    let mut details = PythonDetails {
        manifests: vec![path.to_string()],
        ..Default::default()
    };
    if let Some(package_dir) = get(&["tool", "setuptools", "package-dir"]) {
        match package_dir.as_table() {
            Some(entries) => {
                for (package, dir_value) in entries {
                    match dir_value.as_str() {
                        Some(d) => add_package_dir(&mut details, dir, package, d),
                        None => project
                            .add_error("tool.setuptools.package-dir values are not strings".into()),
                    }
                }
            }
            None => project.add_error("tool.setuptools.package-dir is not a table".into()),
        }
    }
    match get(&["tool", "setuptools", "packages", "find", "where"]) {
        None => {}
        Some(Value::Array(wheres)) if wheres.iter().all(Value::is_str) => {
            for w in wheres.iter().filter_map(Value::as_str) {
                push_root(&mut details, dir, w);
            }
        }
        Some(_) => project
            .add_error("tool.setuptools.packages.find.where is not an array of strings".into()),
    }
    if let Some(Value::Array(packages)) = get(&["tool", "poetry", "packages"]) {
        for package in packages.iter().filter_map(Value::as_table) {
            let from = package.get("from").and_then(Value::as_str).unwrap_or(".");
            push_root(&mut details, dir, from);
        }
    }
    if let Some(Value::Array(packages)) =
        get(&["tool", "hatch", "build", "targets", "wheel", "packages"])
    {
        for package in packages.iter().filter_map(Value::as_str) {
            push_root(
                &mut details,
                dir,
                paths::parent(package.trim_end_matches('/')),
            );
        }
    }
    for keys in [
        &["project", "scripts"][..],
        &["project", "gui-scripts"],
        &["tool", "poetry", "scripts"],
    ] {
        let scripts = get(keys).and_then(Value::as_table).into_iter().flatten();
        details
            .scripts
            .extend(scripts.filter_map(|(command, target)| {
                Some(super::DeclaredProgram {
                    command: command.clone(),
                    target: target.as_str()?.trim().to_string(),
                })
            }));
    }
    project.python = Some(details);
    project
}

pub fn parse_setup_cfg(path: &str, text: &str) -> Project {
    let mut project = python_project(path);
    let mut details = PythonDetails {
        manifests: vec![path.to_string()],
        ..Default::default()
    };
    let dir = paths::parent(path);
    match ini(text) {
        Ok(entries) => {
            for ((section, key), value) in &entries {
                match (section.as_str(), key.as_str()) {
                    ("metadata", "name") => project.name = Some(value.trim().to_string()),
                    ("metadata", "version") => project.version = Some(value.trim().to_string()),
                    ("options", "package_dir") => {
                        for line in value.lines().map(str::trim).filter(|l| !l.is_empty()) {
                            match line.split_once('=') {
                                Some((package, d)) => {
                                    add_package_dir(&mut details, dir, package.trim(), d.trim())
                                }
                                None => project.add_error(format!(
                                    "options.package_dir: {line:?} is not `package = directory`"
                                )),
                            }
                        }
                    }
                    ("options.packages.find", "where") => {
                        for w in value
                            .split([',', '\n'])
                            .map(str::trim)
                            .filter(|w| !w.is_empty())
                        {
                            push_root(&mut details, dir, w);
                        }
                    }
                    _ => {}
                }
            }
        }
        Err(e) => project.error = Some(e),
    }
    project.python = Some(details);
    project
}

pub fn setup_py(path: &str) -> Project {
    let mut project = python_project(path);
    project.python = Some(PythonDetails {
        manifests: vec![path.to_string()],
        ..Default::default()
    });
    project
}

fn python_project(path: &str) -> Project {
    Project::new(ProjectKind::Python, path)
}

fn add_package_dir(details: &mut PythonDetails, dir: &str, package: &str, target: &str) {
    if package.is_empty() {
        push_root(details, dir, target);
    } else if let Some(resolved) = paths::resolve_dir(dir, target) {
        details.package_dir.insert(package.to_string(), resolved);
    }
}

fn push_root(details: &mut PythonDetails, dir: &str, rel: &str) {
    if let Some(root) = paths::resolve_dir(dir, rel)
        && !details.source_roots.contains(&root)
    {
        details.source_roots.push(root);
    }
}

/// `setup.cfg` as `(section, key) → value` (keys lower-cased with `-` as `_`, as
/// setuptools reads them; continuation lines joined with `\n`). Errors as Python's
/// `configparser` raises them.
fn ini(text: &str) -> Result<BTreeMap<(String, String), String>, String> {
    let mut out = BTreeMap::new();
    let mut section: Option<String> = None;
    let mut last: Option<(String, String)> = None;
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t'])
            && let Some(key) = &last
        {
            let value: &mut String = out.get_mut(key).expect("the last key was inserted");
            value.push('\n');
            value.push_str(trimmed);
            continue;
        }
        if let Some(header) = trimmed.strip_prefix('[') {
            let Some(name) = header.strip_suffix(']') else {
                return Err(format!("line {number}: unterminated section header"));
            };
            section = Some(name.trim().to_string());
            last = None;
            continue;
        }
        let Some(section) = &section else {
            return Err(format!("line {number}: a key outside any [section]"));
        };
        let Some(split) = trimmed.find(['=', ':']) else {
            return Err(format!("line {number}: expected `key = value`"));
        };
        let key = trimmed[..split].trim().to_lowercase().replace('-', "_");
        let value = trimmed[split + 1..].trim().to_string();
        let entry = (section.clone(), key);
        out.insert(entry.clone(), value);
        last = Some(entry);
    }
    Ok(out)
}

/// One project from the Python manifests of one directory: names and roots from
/// `pyproject.toml` first, then `setup.cfg`; without declared roots, the `src/` layout
/// when `src` holds Python files, else the project's directory.
pub fn merge(mut parts: Vec<Project>, src_dirs: &BTreeSet<String>) -> Project {
    let rank = |p: &Project| match p.manifest.rsplit('/').next() {
        Some("pyproject.toml") => 0,
        Some("setup.cfg") => 1,
        _ => 2,
    };
    parts.sort_by_key(rank);
    let several = parts.len() > 1;
    let mut merged = python_project(&parts[0].manifest);
    let mut details = PythonDetails::default();
    for part in parts {
        if merged.name.is_none() {
            merged.name = part.name.clone();
            merged.version = part.version.clone();
        }
        if let Some(error) = part.error {
            let file = part.manifest.rsplit('/').next().unwrap_or_default();
            merged.add_error(if several {
                format!("{file}: {error}")
            } else {
                error
            });
        }
        let Some(own) = part.python else { continue };
        details.manifests.extend(own.manifests);
        details.scripts.extend(own.scripts);
        for root in own.source_roots {
            if !details.source_roots.contains(&root) {
                details.source_roots.push(root);
            }
        }
        for (package, dir) in own.package_dir {
            details.package_dir.entry(package).or_insert(dir);
        }
    }
    if details.source_roots.is_empty() {
        let base = if merged.root == "." {
            ""
        } else {
            merged.root.as_str()
        };
        let src = paths::join(base, "src").unwrap_or_default();
        details.source_roots.push(if src_dirs.contains(&src) {
            src
        } else {
            merged.root.clone()
        });
    }
    merged.python = Some(details);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn details(p: &Project) -> &PythonDetails {
        p.python.as_ref().unwrap()
    }

    #[test]
    fn pyproject_with_a_src_layout() {
        let text = r#"
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "acme-tools"
version = "1.2.0"
dependencies = ["requests"]

[tool.setuptools.packages.find]
where = ["src"]
include = ["acme*"]

[tool.ruff]
line-length = 100
"#;
        let p = parse_pyproject("pyproject.toml", text);
        assert_eq!(
            (p.name.as_deref(), p.error.as_deref()),
            (Some("acme-tools"), None)
        );
        assert_eq!(p.version.as_deref(), Some("1.2.0"));
        assert_eq!(details(&p).source_roots, ["src"]);
    }

    #[test]
    fn src_layout_inferred_when_nothing_is_declared() {
        let p = parse_pyproject("svc/pyproject.toml", "[project]\nname = \"svc\"\n");
        assert!(details(&p).source_roots.is_empty());
        let with_src = merge(vec![p.clone()], &BTreeSet::from(["svc/src".to_string()]));
        assert_eq!(details(&with_src).source_roots, ["svc/src"]);
        let flat = merge(vec![p], &BTreeSet::new());
        assert_eq!(details(&flat).source_roots, ["svc"]);
    }

    #[test]
    fn package_dir_and_poetry() {
        let text = r#"
[tool.setuptools.package-dir]
"" = "lib"
"acme.plugins" = "plugins"

[tool.poetry]
name = "acme"
packages = [{ include = "acme", from = "src" }, { include = "extra" }]
"#;
        let p = parse_pyproject("pyproject.toml", text);
        assert_eq!(p.name.as_deref(), Some("acme"));
        assert_eq!(details(&p).source_roots, ["lib", "src", "."]);
        assert_eq!(
            details(&p).package_dir,
            BTreeMap::from([("acme.plugins".to_string(), "plugins".to_string())])
        );
    }

    #[test]
    fn setup_cfg_with_package_dir() {
        let text = "[metadata]\nname = legacy-lib\nversion = 0.1\n\n[options]\npackage_dir =\n    =src\n    vendored = third_party/vendored\npackages = find:\n\n[options.packages.find]\nwhere = src\n";
        let p = parse_setup_cfg("legacy/setup.cfg", text);
        assert_eq!(
            (p.name.as_deref(), p.error.as_deref()),
            (Some("legacy-lib"), None)
        );
        assert_eq!(p.version.as_deref(), Some("0.1"));
        assert_eq!(details(&p).source_roots, ["legacy/src"]);
        assert_eq!(
            details(&p).package_dir,
            BTreeMap::from([(
                "vendored".to_string(),
                "legacy/third_party/vendored".to_string()
            )])
        );
    }

    #[test]
    fn one_project_per_directory() {
        let cfg = parse_setup_cfg("setup.cfg", "[metadata]\nname = from-cfg\n");
        let py = setup_py("setup.py");
        let toml = parse_pyproject("pyproject.toml", "[project]\nname = \"from-toml\"\n");
        let merged = merge(vec![py, cfg, toml], &BTreeSet::new());
        assert_eq!(merged.name.as_deref(), Some("from-toml"));
        assert_eq!(merged.manifest, "pyproject.toml");
        assert_eq!(
            details(&merged).manifests,
            ["pyproject.toml", "setup.cfg", "setup.py"]
        );
        assert_eq!(details(&merged).source_roots, ["."]);
        let only_setup_py = merge(vec![setup_py("tools/setup.py")], &BTreeSet::new());
        assert_eq!(
            (only_setup_py.name, only_setup_py.root.as_str()),
            (None, "tools")
        );
    }

    #[test]
    fn malformed_python_manifests() {
        let toml = parse_pyproject("pyproject.toml", "[project]\nname = \"x\nversion = 1\n");
        assert!(
            toml.error.as_deref().unwrap().starts_with("line 2: "),
            "{toml:?}"
        );
        let typed = parse_pyproject("pyproject.toml", "[project]\nname = 1\n");
        assert_eq!(typed.error.as_deref(), Some("project.name is not a string"));
        let cfg = parse_setup_cfg("setup.cfg", "name = orphan\n");
        assert_eq!(
            cfg.error.as_deref(),
            Some("line 1: a key outside any [section]")
        );
        let cfg = parse_setup_cfg("setup.cfg", "[metadata\nname = x\n");
        assert_eq!(
            cfg.error.as_deref(),
            Some("line 1: unterminated section header")
        );
        let cfg = parse_setup_cfg("setup.cfg", "[metadata]\njust words\n");
        assert_eq!(cfg.error.as_deref(), Some("line 2: expected `key = value`"));
        let merged = merge(vec![cfg, toml], &BTreeSet::new());
        assert!(
            merged
                .error
                .as_deref()
                .unwrap()
                .starts_with("pyproject.toml: line 2: ")
        );
        assert!(
            merged
                .error
                .as_deref()
                .unwrap()
                .ends_with("; setup.cfg: line 2: expected `key = value`")
        );
    }
}
