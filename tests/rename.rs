//! `sextant rename` as a user runs it (dry run, `--diff`, `--write`, `--json`, `--check`,
//! exit codes), and writing a computed rename after a file changed under it (`CONFLICT`,
//! nothing written).

mod support;

use sextant::ide::Failure as _;
use support::{sextant, stderr, stdout};

use sextant::{
    ide::RenameOptions,
    workspace::{Host, LoadOptions},
};

use support::{read_file as read, write_file as write};

const GEO: &str = "def area(w, h):\n    return w * h\n";
const MAIN: &str = "from app.geo import area as surface\nfrom app.geo import area\n\nprint(area(1, 2), surface(3, 4))\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app/__init__.py", "");
    write(dir.path(), "app/geo.py", GEO);
    write(dir.path(), "app/main.py", MAIN);
    write(
        dir.path(),
        "app/clash.py",
        "from app.geo import area\nsize = 1\nprint(area(size, size))\n",
    );
    dir
}

#[test]
fn a_dry_run_lists_the_edits_and_writes_nothing() {
    let dir = workspace();
    let root = dir.path();
    write(root, "app/clash.py", "print(1)\n");
    let out = sextant(root, &["rename", "app/geo.py:1:5", "size"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/geo.py:1:5                           code       def area(w, h):\n\
         app/main.py:1:21                         code       from app.geo import area as surface\n\
         app/main.py:2:21                         code       from app.geo import area\n\
         app/main.py:4:7                          code       print(area(1, 2), surface(3, 4))\n\
         `area` → `size`: 4 edits in 2 files (dry run: --diff to see it, --write to apply)\n"
    );
    assert_eq!(read(root, "app/geo.py"), GEO);

    let diff = sextant(root, &["rename", "app.geo.area", "size", "--diff"]);
    assert_eq!(diff.status.code(), Some(0));
    assert_eq!(
        stdout(&diff),
        "--- a/app/geo.py\n+++ b/app/geo.py\n@@ -1,2 +1,2 @@\n-def area(w, h):\n+def size(w, h):\n     return w * h\n\
         --- a/app/main.py\n+++ b/app/main.py\n@@ -1,4 +1,4 @@\n\
         -from app.geo import area as surface\n-from app.geo import area\n\
         +from app.geo import size as surface\n+from app.geo import size\n \n\
         -print(area(1, 2), surface(3, 4))\n+print(size(1, 2), surface(3, 4))\n"
    );
}

#[test]
fn write_applies_every_file() {
    let dir = workspace();
    let root = dir.path();
    write(root, "app/clash.py", "print(1)\n");
    let out = sextant(root, &["rename", "app.geo.area", "size", "--write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("`area` → `size`: 4 edits in 2 files, written\n"));
    assert_eq!(
        read(root, "app/geo.py"),
        "def size(w, h):\n    return w * h\n"
    );
    assert_eq!(
        read(root, "app/main.py"),
        "from app.geo import size as surface\nfrom app.geo import size\n\nprint(size(1, 2), surface(3, 4))\n"
    );
    // Nothing left under the old name.
    let again = sextant(root, &["rename", "app.geo.area", "size"]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        "sextant: error: NO_SYMBOL: no definition called `app.geo.area` in the workspace\n"
    );
}

#[test]
fn conflicts_exit_1_with_every_place_and_bad_names_exit_2() {
    let dir = workspace();
    let root = dir.path();
    let out = sextant(root, &["rename", "app.geo.area", "size", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "RENAME_CONFLICT: renaming `area` to `size` would change what 5 names mean\n\
         app/clash.py:1:21: this use of `area` would be captured by another `size` (defined in app/clash.py)\n\
         app/clash.py:2:1: `size` is already defined here, in the same scope\n\
         app/clash.py:3:7: this use of `area` would be captured by another `size` (defined in app/clash.py)\n\
         app/clash.py:3:12: this `size` would refer to the renamed `area` instead\n\
         app/clash.py:3:18: this `size` would refer to the renamed `area` instead\n"
    );
    assert_eq!(read(root, "app/geo.py"), GEO, "nothing is written");

    let json = sextant(root, &["--json", "rename", "app.geo.area", "size"]);
    assert_eq!(json.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["error"]["code"], "RENAME_CONFLICT");
    assert_eq!(value["error"]["conflicts"].as_array().unwrap().len(), 5);
    assert_eq!(value["error"]["conflicts"][1]["span"]["start"]["line"], 2);

    let keyword = sextant(root, &["rename", "app.geo.area", "def"]);
    assert_eq!(keyword.status.code(), Some(2));
    assert_eq!(
        stderr(&keyword),
        "sextant: error: INVALID_NAME: `def` is a Python keyword\n"
    );
    let both = sextant(root, &["rename", "app.geo.area", "x", "--diff", "--write"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn a_rename_reaching_a_file_that_is_not_utf8_is_refused_before_writing() {
    let dir = workspace();
    let root = dir.path();
    // Latin-1 `é` in a comment: the index holds the file decoded lossily.
    let latin1: &[u8] = b"# caf\xe9\nfrom app.geo import area\nprint(area(1, 1))\n";
    std::fs::write(root.join("app/legacy.py"), latin1).unwrap();
    let out = sextant(root, &["rename", "app.geo.area", "surface_area", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "NOT_UTF8: renaming `area` would change app/legacy.py, which is not valid UTF-8; \
         sextant never writes a file it could only decode lossily\n\
         app/legacy.py:2:21: a reference in a file that is not valid UTF-8\n\
         app/legacy.py:3:7: a reference in a file that is not valid UTF-8\n"
    );
    assert_eq!(read(root, "app/geo.py"), GEO, "nothing is written");
    assert_eq!(std::fs::read(root.join("app/legacy.py")).unwrap(), latin1);
}

/// The only use of `Model` in user.py is a type comment, which a rename leaves alone: the
/// renamed import becomes unused, a new warning (SX006).
const TYPE_COMMENT_USER: &str =
    "from models import Model\n\ndef load(path):\n    # type: (str) -> Model\n    return None\n";

fn type_comment_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "models.py", "class Model:\n    pass\n");
    write(dir.path(), "user.py", TYPE_COMMENT_USER);
    dir
}

#[test]
fn the_renamed_texts_are_checked_with_the_projects_check_settings() {
    let dir = type_comment_workspace();
    let root = dir.path();
    let out = sextant(root, &["rename", "models.Model", "Record"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("\nuser.py:1:20: warning SX006 'models.Record' imported but unused (new)\n"),
        "{}",
        stdout(&out)
    );

    write(root, "sextant.toml", "[check]\nignore = [\"SX006\"]\n");
    let out = sextant(root, &["rename", "models.Model", "Record"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("(new)"), "{}", stdout(&out));
}

/// A new warning does not stop a rename under the default `--check refuse`: it is written,
/// and the warning reported.
#[test]
fn a_new_warning_is_written_under_refuse_and_reported() {
    let dir = type_comment_workspace();
    let root = dir.path();
    for check in [&[][..], &["--check", "refuse"][..]] {
        write(root, "models.py", "class Model:\n    pass\n");
        write(root, "user.py", TYPE_COMMENT_USER);
        let args = [&["rename", "models.Model", "Record", "--write"][..], check].concat();
        let out = sextant(root, &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            stdout(&out),
            "models.py:1:7                            code       class Model:\n\
             user.py:1:20                             code       from models import Model\n\
             user.py:1:20: warning SX006 'models.Record' imported but unused (new)\n\
             `Model` → `Record`: 2 edits in 2 files, written\n",
            "{check:?}"
        );
        assert_eq!(read(root, "models.py"), "class Record:\n    pass\n");
        assert_eq!(
            read(root, "user.py"),
            TYPE_COMMENT_USER.replacen("import Model", "import Record", 1)
        );
    }
}

/// Renaming `area` to `size` with `--include-text` writes the dictionary key `"area"` as
/// `"size"`, which the dictionary already has: a new error (SX009) in app/geo.py.
const LABELS: &str = "def area(w, h):\n    return w * h\n\n\nLABELS = {\"area\": 1, \"size\": 2}\n";

#[test]
fn a_new_error_refuses_the_rename_by_default_and_report_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(root, "app/geo.py", LABELS);
    let rename = ["rename", "app.geo.area", "size", "--include-text"];
    for check in [&[][..], &["--check", "refuse"][..]] {
        for write_it in [&[][..], &["--write"][..]] {
            let out = sextant(root, &[&rename[..], check, write_it].concat());
            assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
            assert_eq!(
                stdout(&out),
                "NEW_DIAGNOSTICS: the renamed files would have new errors; nothing was written\n\
                 app/geo.py:5:11: SX009 dictionary key \"size\" repeated with different values\n\
                 app/geo.py:5:22: SX009 dictionary key \"size\" repeated with different values\n",
                "{check:?} {write_it:?}"
            );
            assert_eq!(read(root, "app/geo.py"), LABELS, "nothing is written");
        }
    }
    let json = sextant(root, &[&["--json"][..], &rename, &["--write"]].concat());
    assert_eq!(json.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["error"]["code"], "NEW_DIAGNOSTICS");
    let found: Vec<(&str, &str, u64)> = value["error"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let at = d["span"]["start"]["column"].as_u64().unwrap();
            (
                d["code"].as_str().unwrap(),
                d["severity"].as_str().unwrap(),
                at,
            )
        })
        .collect();
    assert_eq!(found, [("SX009", "error", 11), ("SX009", "error", 22)]);

    let out = sextant(
        root,
        &[&rename[..], &["--check", "report", "--write"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/geo.py:1:5                           code       def area(w, h):\n\
         app/geo.py:5:12                          string?    LABELS = {\"area\": 1, \"size\": 2}\n\
         app/geo.py:5:11: error SX009 dictionary key \"size\" repeated with different values (new)\n\
         app/geo.py:5:22: error SX009 dictionary key \"size\" repeated with different values (new)\n\
         `area` → `size`: 2 edits in 1 file, written\n"
    );
    assert_eq!(read(root, "app/geo.py"), LABELS.replace("area", "size"));
}

/// `--check off` looks for no diagnostic (`new_diagnostics` is null), and still refuses a
/// conflict.
#[test]
fn check_off_reports_nothing_and_still_refuses_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(root, "app/geo.py", LABELS);
    let rename = [
        "rename",
        "app.geo.area",
        "size",
        "--include-text",
        "--check",
        "off",
    ];
    let json = sextant(root, &[&["--json"][..], &rename].concat());
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["new_diagnostics"], serde_json::Value::Null);
    assert_eq!(value["written"], serde_json::Value::Null);

    let out = sextant(root, &[&rename[..], &["--write"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/geo.py:1:5                           code       def area(w, h):\n\
         app/geo.py:5:12                          string?    LABELS = {\"area\": 1, \"size\": 2}\n\
         `area` → `size`: 2 edits in 1 file, written\n"
    );
    assert_eq!(read(root, "app/geo.py"), LABELS.replace("area", "size"));

    let dir = workspace();
    let out = sextant(
        dir.path(),
        &[
            "rename",
            "app.geo.area",
            "size",
            "--check",
            "off",
            "--write",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "RENAME_CONFLICT: renaming `area` to `size` would change what 5 names mean\n"
        ),
        "{}",
        stdout(&out)
    );
    assert_eq!(read(dir.path(), "app/geo.py"), GEO, "nothing is written");

    let bad = sextant(
        dir.path(),
        &["rename", "app.geo.area", "x", "--check", "never"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).starts_with(
            "error: invalid value 'never' for '--check <CHECK>'\n  [possible values: report, refuse, off]\n"
        ),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_file_changed_after_the_rename_was_computed_is_a_conflict_and_nothing_is_written() {
    let dir = workspace();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "app/clash.py", "print(1)\n");
    let host = Host::load(&root, &LoadOptions::default()).unwrap();
    let rename = host
        .analysis()
        .rename_by_name("app.geo.area", "size", RenameOptions::default())
        .unwrap()
        .unwrap();
    let edited = "from app.geo import area\nprint(area(0, 0))\n";
    write(&root, "app/main.py", edited);
    let error = host.write_change(&rename.change).unwrap_err();
    assert_eq!(error.code(), sextant::ide::ErrorCode::Conflict);
    assert_eq!(
        error.to_string(),
        "app/main.py changed since the edit was computed; nothing was written"
    );
    assert_eq!(read(&root, "app/geo.py"), GEO);
    assert_eq!(read(&root, "app/main.py"), edited);
}

/// Regression: a symlink to an edited file, or to its directory, made the index hold the
/// file twice; the write then found the file "changed" after its first copy was written,
/// and refused the whole rename with `CONFLICT`.
#[cfg(unix)]
#[test]
fn files_reached_through_symlinks_are_written_once() {
    let dir = workspace();
    std::os::unix::fs::symlink("main.py", dir.path().join("app/main_link.py")).unwrap();
    std::os::unix::fs::symlink("app", dir.path().join("app_link")).unwrap();
    let out = sextant(
        dir.path(),
        &["rename", "app/geo.py:1:5", "region", "--write"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        stdout(&out).lines().last(),
        Some("`area` → `region`: 6 edits in 3 files, written")
    );
    assert_eq!(
        read(dir.path(), "app/geo.py"),
        GEO.replace("area", "region")
    );
    assert_eq!(
        read(dir.path(), "app/main.py"),
        MAIN.replace("area", "region")
    );
    assert!(
        std::fs::symlink_metadata(dir.path().join("app/main_link.py"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Regression: `rename --write` replaced a file marked read-only (mode 0444) through its
/// temporary file, keeping the mode: a file its owner protected was rewritten.
#[cfg(unix)]
#[test]
fn read_only_files_are_refused_and_nothing_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = workspace();
    let main = dir.path().join("app/main.py");
    std::fs::set_permissions(&main, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = sextant(
        dir.path(),
        &["rename", "app/geo.py:1:5", "region", "--write"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        "sextant: error: WRITE_REFUSED: app/main.py: read-only (mode 444); nothing was written\n"
    );
    assert_eq!(read(dir.path(), "app/geo.py"), GEO);
    assert_eq!(read(dir.path(), "app/main.py"), MAIN);
}

/// Regression: with `max_file_size` raised in sextant.toml, a large file's rename was
/// listed by the dry run and then refused by `--write`, which read with the default limit.
#[test]
fn the_write_reads_files_with_the_limit_the_index_used() {
    let dir = workspace();
    write(dir.path(), "sextant.toml", "max_file_size = 8388608\n");
    // Over the default limit (2 MiB), in one string: it parses in linear time.
    let padding = format!("PADDING = \"{}\"\n", "x".repeat(2_200_000));
    write(
        dir.path(),
        "app/big.py",
        format!("from app.geo import area\n{padding}area(1, 2)\n"),
    );
    let out = sextant(
        dir.path(),
        &["rename", "app/geo.py:1:5", "region", "--write"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(read(dir.path(), "app/big.py").ends_with("x\"\nregion(1, 2)\n"));
}

/// Regression: in a module starting with a byte-order mark (or a blank line) the module's
/// names fell into a scope of their own, so `refs` found no importer, a rename by name said
/// `NO_SYMBOL`, and one by position left the importers raising ImportError.
#[test]
fn a_module_starting_with_a_byte_order_mark_is_renamed_with_its_importers() {
    let dir = workspace();
    write(dir.path(), "app/geo.py", format!("\u{feff}{GEO}"));
    write(dir.path(), "app/blank.py", "\ndef edge():\n    pass\n");
    write(
        dir.path(),
        "app/use.py",
        "from app.blank import edge\nedge()\n",
    );
    let refs = sextant(dir.path(), &["refs", "edge"]);
    assert_eq!(
        stdout(&refs).lines().last(),
        Some("3 references in 2 files searched")
    );
    let out = sextant(dir.path(), &["rename", "area", "region", "--write"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        read(dir.path(), "app/geo.py"),
        format!("\u{feff}{}", GEO.replace("area", "region"))
    );
    assert_eq!(
        read(dir.path(), "app/main.py"),
        MAIN.replace("area", "region")
    );
}
