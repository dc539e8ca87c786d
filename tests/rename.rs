//! `sextant rename` as a user runs it (dry run, `--diff`, `--write`, `--json`, exit codes),
//! and writing a computed rename after a file changed under it (`CONFLICT`, nothing written).

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

#[test]
fn the_renamed_texts_are_checked_with_the_projects_check_settings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "models.py", "class Model:\n    pass\n");
    // The only use of the import is a type comment, which a rename leaves alone.
    let user = "from models import Model\n\ndef load(path):\n    # type: (str) -> Model\n    return None\n";
    write(root, "user.py", user);
    let out = sextant(root, &["rename", "models.Model", "Record", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "NEW_DIAGNOSTICS: the renamed files would have new diagnostics; nothing was written\n\
             user.py:1:20: SX006 'models.Record' imported but unused\n"
        ),
        "{}",
        stdout(&out)
    );
    assert_eq!(read(root, "user.py"), user, "nothing is written");

    write(root, "sextant.toml", "[check]\nignore = [\"SX006\"]\n");
    let out = sextant(root, &["rename", "models.Model", "Record", "--write"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(read(root, "models.py"), "class Record:\n    pass\n");
    assert!(read(root, "user.py").starts_with("from models import Record\n"));
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
