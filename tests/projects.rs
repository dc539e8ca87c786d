//! Project manifests: read by the walk (ignore rules apply), refreshed from disk changes
//! and the watcher, and parsed incrementally (editing one manifest re-parses only it).

use std::{
    path::Path,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use sextant::{
    db::RootDatabase,
    ide::{
        AnalysisHost, Change, FileContent, LangId, ManifestKind, ProjectInfo, ProjectKind, registry,
    },
    semantic::projects::projects,
    workspace::{
        Host, LoadOptions,
        live::{LiveWorkspace, RequestCancel, Snapshot},
    },
};

fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `(kind, name, root)` of each project.
fn summary(projects: &[ProjectInfo]) -> Vec<(&'static str, Option<String>, String)> {
    projects
        .iter()
        .map(|p| (p.kind.as_str(), p.name.clone(), p.root.clone()))
        .collect()
}

fn s(kind: &'static str, name: Option<&str>, root: &str) -> (&'static str, Option<String>, String) {
    (kind, name.map(str::to_string), root.to_string())
}

fn lang(id: &str) -> LangId {
    registry().by_id(id).unwrap().lang_id
}

// --- incremental -----------------------------------------------------------------------

fn logged_analysis_host() -> (AnalysisHost, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let db = RootDatabase::with_event_callback(move |event| {
        if let salsa::EventKind::WillExecute { database_key } = event.kind {
            sink.lock().unwrap().push(format!("{database_key:?}"));
        }
    });
    (AnalysisHost::with_database(db, "/ws".into()), log)
}

fn executed_by_projects(host: &AnalysisHost, log: &Mutex<Vec<String>>) -> Vec<String> {
    log.lock().unwrap().clear();
    projects(host.raw_database(), host.raw_workspace());
    let mut executed = std::mem::take(&mut *log.lock().unwrap());
    executed.sort();
    executed
}

fn manifest_id(host: &AnalysisHost, path: &str) -> String {
    let db = host.raw_database();
    let file = host
        .raw_workspace()
        .manifests(db)
        .iter()
        .copied()
        .find(|m| m.path(db) == path)
        .expect("a manifest input");
    format!("{:?}", salsa::plumbing::AsId::as_id(&file))
}

#[test]
fn editing_one_manifest_reparses_only_that_manifest() {
    let (mut host, log) = logged_analysis_host();
    let mut change = Change::default();
    change.set_manifest(
        "Cargo.toml",
        ManifestKind::CargoToml,
        "[workspace]\nmembers = [\"crates/*\"]\n".into(),
    );
    change.set_manifest(
        "crates/a/Cargo.toml",
        ManifestKind::CargoToml,
        "[package]\nname = \"a\"\n".into(),
    );
    change.set_manifest(
        "web/package.json",
        ManifestKind::PackageJson,
        r#"{"name": "web"}"#.into(),
    );
    change.set_file(
        "crates/a/src/lib.rs",
        FileContent {
            lang: lang("rust"),
            text: "pub fn a() {}\n".into(),
            lossy_utf8: false,
        },
    );
    host.apply_change(change);
    let cold = executed_by_projects(&host, &log);
    assert_eq!(
        cold.iter()
            .filter(|q| q.starts_with("manifest_facts"))
            .count(),
        3,
        "{cold:?}"
    );

    let mut change = Change::default();
    change.set_manifest(
        "web/package.json",
        ManifestKind::PackageJson,
        r#"{"name": "web-app", "main": "index.js"}"#.into(),
    );
    assert_eq!(host.apply_change(change).manifests, 1);
    let executed = executed_by_projects(&host, &log);
    let id = manifest_id(&host, "web/package.json");
    assert_eq!(
        executed,
        [
            format!("manifest_facts({id})"),
            "projects(Id(0))".to_string()
        ],
        "only the edited manifest is parsed again"
    );
    let names: Vec<Option<String>> = host
        .analysis()
        .projects()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, [None, Some("a".into()), Some("web-app".into())]);

    // The same text again is no change at all.
    let mut change = Change::default();
    change.set_manifest(
        "web/package.json",
        ManifestKind::PackageJson,
        r#"{"name": "web-app", "main": "index.js"}"#.into(),
    );
    assert_eq!(host.apply_change(change).manifests, 0);
    assert_eq!(executed_by_projects(&host, &log), Vec::<String>::new());

    // Editing a source file parses no manifest and recomputes no project.
    let mut change = Change::default();
    change.set_file(
        "crates/a/src/lib.rs",
        FileContent {
            lang: lang("rust"),
            text: "pub fn b() {}\n".into(),
            lossy_utf8: false,
        },
    );
    host.apply_change(change);
    assert_eq!(executed_by_projects(&host, &log), Vec::<String>::new());
}

#[test]
fn a_new_source_file_outside_any_src_layout_recomputes_no_project() {
    let (mut host, log) = logged_analysis_host();
    let mut change = Change::default();
    change.set_manifest(
        "pyproject.toml",
        ManifestKind::PyprojectToml,
        "[project]\nname = \"p\"\n".into(),
    );
    host.apply_change(change);
    executed_by_projects(&host, &log);
    let mut change = Change::default();
    change.set_file(
        "tools/x.py",
        FileContent {
            lang: lang("python"),
            text: "x = 1\n".into(),
            lossy_utf8: false,
        },
    );
    host.apply_change(change);
    // The src-layout scan runs again, finds the same directories, and `projects` is
    // only validated.
    assert_eq!(
        executed_by_projects(&host, &log),
        ["python_src_dirs(Id(0))"]
    );
}

// --- loading from disk -----------------------------------------------------------------

#[test]
fn the_walk_finds_manifests_and_honours_ignore_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "node_modules/\nbuild/\n");
    write(
        root,
        "package.json",
        r#"{"name": "mono", "workspaces": ["packages/*"]}"#,
    );
    write(root, "packages/ui/package.json", r#"{"name": "@mono/ui"}"#);
    write(
        root,
        "packages/api/package.json",
        r#"{"name": "@mono/api"}"#,
    );
    write(
        root,
        "node_modules/left-pad/package.json",
        r#"{"name": "left-pad"}"#,
    );
    write(
        root,
        "node_modules/@tsconfig/node20/tsconfig.json",
        r#"{"compilerOptions": {"rootDir": "lib"}}"#,
    );
    write(root, "build/Cargo.toml", "[package]\nname = \"ignored\"\n");
    write(
        root,
        "packages/ui/tsconfig.json",
        "{\n  // comments and trailing commas\n  \"extends\": [\"@tsconfig/node20/tsconfig.json\", \"@tsconfig/missing\",],\n}\n",
    );
    write(root, "packages/ui/src/index.ts", "export const x = 1;\n");
    write(root, "svc/pyproject.toml", "[project]\nname = \"svc\"\n");
    write(root, "svc/src/svc/__init__.py", "");
    write(
        root,
        "svc/setup.py",
        "from setuptools import setup\nsetup()\n",
    );
    write(
        root,
        "huge/package.json",
        format!("{{\"name\": \"{}\"}}", "x".repeat(1 << 20)),
    );

    let host = Host::load(root, &LoadOptions::default()).unwrap();
    let projects = host.analysis().projects().unwrap();
    assert_eq!(
        summary(&projects),
        [
            s("npm", Some("mono"), "."),
            s("npm", Some("@mono/api"), "packages/api"),
            s("npm", Some("@mono/ui"), "packages/ui"),
            s("tsconfig", None, "packages/ui"),
            s("python", Some("svc"), "svc"),
        ]
    );
    let mono = projects[0].npm.as_ref().unwrap();
    assert_eq!(mono.member_roots, ["packages/api", "packages/ui"]);
    let ts = &projects[3];
    let links: Vec<Option<&str>> = ts
        .tsconfig
        .as_ref()
        .unwrap()
        .extends
        .iter()
        .map(|l| l.resolved.as_deref())
        .collect();
    assert_eq!(
        links,
        [Some("node_modules/@tsconfig/node20/tsconfig.json"), None]
    );
    assert_eq!(
        ts.tsconfig.as_ref().unwrap().root_dir.as_deref(),
        Some("node_modules/@tsconfig/node20/lib")
    );
    assert_eq!(
        ts.error.as_deref(),
        Some("packages/ui/tsconfig.json: extends \"@tsconfig/missing\" not found")
    );
    let python = projects[4].python.as_ref().unwrap();
    assert_eq!(python.source_roots, ["svc/src"]);
    assert_eq!(python.manifests, ["svc/pyproject.toml", "svc/setup.py"]);
    // setup.py is also a Python source file.
    assert!(host.file("svc/setup.py").is_some());

    let huge: Vec<_> = host
        .skipped
        .iter()
        .filter(|s| s.path == "huge/package.json")
        .collect();
    assert_eq!(huge.len(), 1);
    assert_eq!(
        serde_json::to_value(&huge[0].reason).unwrap(),
        serde_json::json!("too_large")
    );
}

#[test]
fn disk_changes_refresh_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "package.json", r#"{"name": "before"}"#);
    write(root, "tsconfig.json", r#"{"extends": "./base.json"}"#);
    write(
        root,
        "base.json",
        r#"{"compilerOptions": {"baseUrl": "src"}}"#,
    );
    write(root, "main.py", "x = 1\n");
    let mut host = Host::load(root, &LoadOptions::default()).unwrap();
    let canonical = host.root.clone();
    let names = |host: &Host| -> Vec<(&'static str, Option<String>, String)> {
        summary(&host.analysis().projects().unwrap())
    };
    assert_eq!(
        names(&host),
        [s("npm", Some("before"), "."), s("tsconfig", None, ".")]
    );

    // An edited manifest is read again without a walk.
    write(root, "package.json", r#"{"name": "after"}"#);
    let applied = host.apply_disk_changes(&[canonical.join("package.json")], false);
    assert_eq!((applied.manifests, applied.rescanned), (1, false));
    assert_eq!(names(&host)[0], s("npm", Some("after"), "."));

    // A file a tsconfig extends is refreshed too.
    write(
        root,
        "base.json",
        r#"{"compilerOptions": {"baseUrl": "lib"}}"#,
    );
    let applied = host.apply_disk_changes(&[canonical.join("base.json")], false);
    assert_eq!(applied.manifests, 1);
    let ts = host.analysis().projects().unwrap()[1]
        .tsconfig
        .clone()
        .unwrap();
    assert_eq!(ts.base_url.as_deref(), Some("lib"));

    // A new manifest makes a walk; a malformed one is a project with an error.
    write(
        root,
        "go.mod",
        "module example.com/tools\ngo 1.22\nrequire (\n",
    );
    let applied = host.apply_disk_changes(&[canonical.join("go.mod")], false);
    assert!(applied.rescanned);
    let projects = host.analysis().projects().unwrap();
    let go = projects
        .iter()
        .find(|p| p.kind == ProjectKind::GoModule)
        .unwrap();
    assert_eq!(go.name.as_deref(), Some("example.com/tools"));
    assert_eq!(
        go.error.as_deref(),
        Some("line 3: require block is not closed")
    );

    // A removed manifest is gone.
    std::fs::remove_file(root.join("package.json")).unwrap();
    host.apply_disk_changes(&[canonical.join("package.json")], false);
    assert_eq!(
        names(&host),
        [
            s("tsconfig", None, "."),
            s("go-module", Some("example.com/tools"), ".")
        ]
    );

    // Dropping the `extends` drops the file it named from the inputs.
    write(root, "tsconfig.json", r#"{}"#);
    host.apply_disk_changes(&[canonical.join("tsconfig.json")], false);
    let held: Vec<&str> = host
        .analysis_host()
        .manifests()
        .map(|(p, _, _)| p)
        .collect();
    assert!(!held.contains(&"base.json"), "{held:?}");
}

// --- the watcher -----------------------------------------------------------------------

fn live_projects(live: &LiveWorkspace) -> Vec<ProjectInfo> {
    live.read(&RequestCancel::default(), |s: &Snapshot| {
        s.analysis.projects()
    })
    .unwrap()
}

fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_watcher_keeps_projects_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "web/package.json", r#"{"name": "web"}"#);
    write(root, "web/index.js", "export const x = 1;\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(
        summary(&live_projects(&live)),
        [s("npm", Some("web"), "web")]
    );

    write(root, "web/package.json", r#"{"name": "web-renamed"}"#);
    eventually("an edited package.json", || {
        summary(&live_projects(&live)) == [s("npm", Some("web-renamed"), "web")]
    });

    write(root, "Cargo.toml", "[package]\nname = \"core\"\n");
    eventually("a new Cargo.toml", || {
        summary(&live_projects(&live))
            == [
                s("cargo", Some("core"), "."),
                s("npm", Some("web-renamed"), "web"),
            ]
    });

    std::fs::remove_file(root.join("web/package.json")).unwrap();
    eventually("a removed package.json", || {
        summary(&live_projects(&live)) == [s("cargo", Some("core"), ".")]
    });
}

// --- the CLI ---------------------------------------------------------------------------

#[test]
fn sextant_stats_lists_projects() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/old\"]\n",
    );
    write(
        root,
        "crates/core/Cargo.toml",
        "[package]\nname = \"my-core\"\n",
    );
    write(root, "crates/core/src/lib.rs", "pub fn core() {}\n");
    write(root, "crates/old/Cargo.toml", "[package]\nname = \"old\"\n");
    write(root, "go.work", "go 1.22\n\nuse (\n\t./svc\n)\n");
    write(root, "svc/go.mod", "module example.com/svc\n\ngo 1.22\n");
    write(root, "web/package.json", "{\"name\": \"web\",}");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
        .arg("--root")
        .arg(root)
        .args(["--json", "stats"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let projects = json["projects"].as_array().unwrap();
    let rows: Vec<(&str, &serde_json::Value, &str)> = projects
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap(),
                &p["name"],
                p["root"].as_str().unwrap(),
            )
        })
        .collect();
    use serde_json::{Value::Null, json};
    assert_eq!(
        rows,
        [
            ("cargo-workspace", &Null, "."),
            ("go-work", &Null, "."),
            ("cargo", &json!("my-core"), "crates/core"),
            ("cargo", &json!("old"), "crates/old"),
            ("go-module", &json!("example.com/svc"), "svc"),
            ("npm", &Null, "web"),
        ]
    );
    assert_eq!(
        projects[0]["cargo_workspace"],
        json!({"members": ["crates/*"], "exclude": ["crates/old"], "member_roots": ["crates/core"]})
    );
    assert_eq!(
        projects[1]["go_work"],
        json!({"go_version": "1.22", "use": ["svc"], "replace": []})
    );
    assert_eq!(
        projects[2]["cargo"],
        json!({"lib_name": "my_core", "lib_path": "crates/core/src/lib.rs"})
    );
    assert_eq!(
        projects[5]["error"],
        json!("trailing comma at line 1 column 16")
    );
    assert_eq!(projects[5]["manifest"], json!("web/package.json"));

    let text = std::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
        .arg("--root")
        .arg(root)
        .arg("stats")
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("PROJECT"))
        .take(8)
        .collect();
    assert_eq!(
        table,
        [
            "PROJECT          NAME            ROOT",
            "cargo-workspace  -               .",
            "go-work          -               .",
            "cargo            my-core         crates/core",
            "cargo            old             crates/old",
            "go-module        example.com/svc svc",
            "npm              -               web",
            "                 error in web/package.json: trailing comma at line 1 column 16",
        ]
    );
}

// --- fuzzing ---------------------------------------------------------------------------

mod fuzz {
    use proptest::prelude::*;

    use super::*;

    /// Pieces of real manifests, so that random texts reach deep into every parser.
    const FRAGMENTS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "//",
        "/*",
        "*/",
        "\n",
        " = ",
        "=>",
        "(",
        ")",
        "`",
        "[package]",
        "[workspace]",
        "[lib]",
        "name = \"x\"",
        "members = [\"a/*\"]",
        "path = \"../..\"",
        "[project]",
        "[tool.setuptools.package-dir]",
        "\"\" = \"src\"",
        "[tool.setuptools.packages.find]",
        "where = [\"..\"]",
        "[options]",
        "package_dir =",
        "\n    =src",
        "[metadata]",
        "\"name\": \"p\"",
        "\"extends\": \"./b.json\"",
        "\"extends\": [\"./a\", \"pkg\"]",
        "\"compilerOptions\": {\"baseUrl\": \"..\", \"paths\": {\"@/*\": [\"*\"]}}",
        "\"workspaces\": [\"!x\", \"**\"]",
        "\"exports\": {\".\": null}",
        "module m",
        "go 1.2",
        "replace a => ../b",
        "use ./c",
        "require (",
        "\u{feff}",
        "é",
        "\0",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(FRAGMENTS).prop_map(str::to_string),
                1 => any::<String>(),
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    const FILES: &[(&str, ManifestKind)] = &[
        ("Cargo.toml", ManifestKind::CargoToml),
        ("a/Cargo.toml", ManifestKind::CargoToml),
        ("pyproject.toml", ManifestKind::PyprojectToml),
        ("setup.cfg", ManifestKind::SetupCfg),
        ("setup.py", ManifestKind::SetupPy),
        ("package.json", ManifestKind::PackageJson),
        ("tsconfig.json", ManifestKind::TsConfig),
        ("a.json", ManifestKind::TsConfigBase),
        ("b.json", ManifestKind::TsConfigBase),
        ("node_modules/pkg/tsconfig.json", ManifestKind::TsConfigBase),
        ("go.mod", ManifestKind::GoMod),
        ("go.work", ManifestKind::GoWork),
    ];

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: sextant::testing::fuzz_cases(),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any text in any manifest gives projects (perhaps with errors), never a panic.
        #[test]
        fn fuzz_manifest_parsers_never_panic(texts in prop::collection::vec(text(), FILES.len())) {
            let mut host = AnalysisHost::new("/ws".into());
            let mut change = Change::default();
            for ((path, kind), text) in FILES.iter().zip(texts) {
                change.set_manifest(*path, *kind, text);
            }
            host.apply_change(change);
            let projects = host.analysis().projects().unwrap();
            // One project per Cargo.toml at least, one Python project for the root, one each
            // for package.json, tsconfig.json, go.mod and go.work.
            prop_assert!(projects.len() >= 7, "{projects:?}");
            for p in &projects {
                prop_assert!(!p.root.is_empty() && !p.root.starts_with('/') && !p.root.contains(".."));
            }
        }
    }
}
