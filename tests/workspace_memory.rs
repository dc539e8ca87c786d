//! Loading, ignore rules, skip reasons, reconciliation and editor overlays, against a file
//! system held in memory: no disk, no watcher, no sleeps, exact outcomes. The memory
//! system's fidelity is itself checked against the disk on the same trees.

mod support;

use std::{
    os::unix::ffi::OsStrExt,
    path::{Path, PathBuf},
    sync::Arc,
};

use sextant::workspace::{
    Applied, FileKind, Host, LoadError, LoadOptions, LoadStop, MemorySystem, SkipReason, System,
    live::{LiveWorkspace, RequestCancel, WhileIndexing},
};

const ROOT: &str = "/ws";

/// Every indexed file with its text, by path.
fn files(host: &Host) -> Vec<(String, String)> {
    let analysis = host.analysis();
    let mut files: Vec<(String, String)> = analysis
        .files()
        .map(|f| {
            (
                analysis.file_path(f).to_string(),
                analysis.file_text(f).to_string(),
            )
        })
        .collect();
    files.sort();
    files
}

fn paths(host: &Host) -> Vec<String> {
    files(host).into_iter().map(|(p, _)| p).collect()
}

fn skipped(host: &Host) -> Vec<(String, SkipReason)> {
    host.skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect()
}

fn text(host: &Host, path: &str) -> Option<String> {
    let analysis = host.analysis();
    analysis
        .file(path)
        .map(|f| analysis.file_text(f).to_string())
}

fn memory() -> Arc<MemorySystem> {
    Arc::new(MemorySystem::new(ROOT))
}

fn load(fs: &Arc<MemorySystem>) -> Host {
    load_with(fs, &LoadOptions::default())
}

fn load_with(fs: &Arc<MemorySystem>, options: &LoadOptions) -> Host {
    Host::load_with(fs.clone(), options).unwrap()
}

/// Reports `rels` (root-relative) as changed, as the watcher would.
fn changed(host: &mut Host, rels: &[&str]) -> Applied {
    let abs: Vec<PathBuf> = rels.iter().map(|r| Path::new(ROOT).join(r)).collect();
    host.apply_disk_changes(&abs, false)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

// ---------------------------------------------------------------------------------------
// Loading and ignore rules

#[test]
fn loads_every_source_file_with_its_text() {
    let fs = memory();
    fs.write("a.py", "def a():\n    pass\n")
        .write("src/lib.rs", "fn lib() {}\n")
        .write("web/app.ts", "export function app() {}\n")
        .write("tool", "#!/usr/bin/env python3\nprint(1)\n")
        .write("README", "not source\n")
        .write("notes.txt", "not source either\n");
    let host = load(&fs);
    assert_eq!(
        files(&host),
        [
            ("a.py", "def a():\n    pass\n"),
            ("src/lib.rs", "fn lib() {}\n"),
            ("tool", "#!/usr/bin/env python3\nprint(1)\n"),
            ("web/app.ts", "export function app() {}\n"),
        ]
        .map(|(p, t)| (p.to_string(), t.to_string()))
    );
    assert_eq!(skipped(&host), []);
    assert_eq!(host.root, Path::new(ROOT));
}

#[test]
fn gitignore_files_apply_in_their_directory_and_below_with_negations() {
    let fs = memory();
    fs.write(".gitignore", "build/\n*.gen.py\n!keep.gen.py\n/rooted.py\n")
        .write("build/out.py", "")
        .write("x.gen.py", "")
        .write("keep.gen.py", "")
        .write("rooted.py", "")
        .write("sub/rooted.py", "")
        .write("sub/.gitignore", "!y.gen.py\nlocal.py\n")
        .write("sub/y.gen.py", "")
        .write("sub/local.py", "")
        .write("sub/deeper/local.py", "")
        .write("other/local.py", "");
    let host = load(&fs);
    assert_eq!(
        paths(&host),
        strings(&[
            "keep.gen.py",
            "other/local.py",
            "sub/rooted.py",
            "sub/y.gen.py",
        ])
    );
}

#[test]
fn dot_ignore_wins_over_gitignore_and_git_info_exclude_applies() {
    let fs = memory();
    fs.write(".gitignore", "forced.py\nplain.py\n")
        .write(".ignore", "!forced.py\nby_ignore.py\n")
        .write(".git/info/exclude", "excluded.py\n")
        .write(".git/HEAD", "ref: refs/heads/main\n")
        .write("forced.py", "")
        .write("plain.py", "")
        .write("by_ignore.py", "")
        .write("excluded.py", "")
        .write("kept.py", "");
    let host = load(&fs);
    assert_eq!(paths(&host), strings(&["forced.py", "kept.py"]));
}

#[test]
fn hidden_files_and_directories_are_left_out_unless_whitelisted() {
    let fs = memory();
    fs.write(".hidden.py", "")
        .write(".config/settings.py", "")
        .write(".gitignore", "!.shown.py\n")
        .write(".shown.py", "")
        .write("visible.py", "");
    let host = load(&fs);
    assert_eq!(paths(&host), strings(&[".shown.py", "visible.py"]));
}

#[test]
fn sextant_toml_include_exclude_and_max_file_size() {
    let fs = memory();
    fs.write(
        "sextant.toml",
        "include = [\"src/**\", \"tools/*.py\"]\nexclude = [\"src/gen/\"]\nmax_file_size = 20\n",
    )
    .write("src/a.py", "x = 1\n")
    .write("src/gen/b.py", "x = 2\n")
    .write("src/big.py", "x = 'more than twenty bytes'\n")
    .write("tools/t.py", "x = 3\n")
    .write("other/c.py", "x = 4\n");
    let host = load(&fs);
    assert_eq!(paths(&host), strings(&["src/a.py", "tools/t.py"]));
    assert_eq!(
        skipped(&host),
        [("src/big.py".into(), SkipReason::TooLarge)]
    );
    assert_eq!(host.skipped[0].detail, "29 bytes, over the 20 byte limit");
}

#[test]
fn command_line_excludes_and_size_limit_add_to_the_config() {
    let fs = memory();
    fs.write(
        "sextant.toml",
        "exclude = [\"vendor/\"]\nmax_file_size = 5\n",
    )
    .write("vendor/v.go", "package v\n")
    .write("main_test.go", "package main\n")
    .write("main.go", "package main\n");
    let options = LoadOptions {
        exclude: vec!["*_test.go".into()],
        max_file_size: Some(100),
        ..Default::default()
    };
    let host = load_with(&fs, &options);
    assert_eq!(paths(&host), strings(&["main.go"]));
    assert_eq!(host.config.max_file_size, 100);
}

#[test]
fn a_broken_sextant_toml_fails_the_load_with_its_path() {
    let fs = memory();
    fs.write("sextant.toml", "include = 3\n").write("a.py", "");
    let config_error =
        |fs: &Arc<MemorySystem>| match Host::load_with(fs.clone(), &LoadOptions::default()) {
            Err(LoadError::Config { path, reason }) => {
                assert_eq!(path, Path::new("/ws/sextant.toml"));
                reason
            }
            Err(other) => panic!("expected LoadError::Config, got {other:?}"),
            Ok(_) => panic!("a broken sextant.toml loaded"),
        };
    assert!(config_error(&fs).starts_with("invalid type"));
    fs.write("sextant.toml", "colour = \"blue\"\n");
    assert!(config_error(&fs).starts_with("unknown field `colour`"));
}

#[test]
fn a_stopped_load_ends_with_stopped_and_a_dropped_workspace_says_whether_it_cut_one_short() {
    let fs = memory();
    fs.write("a.py", "def a():\n    pass\n");
    let stop = LoadStop::default();
    stop.stop();
    let stopped = LoadOptions {
        stop: Some(stop),
        ..LoadOptions::default()
    };
    match Host::load_with(fs.clone(), &stopped) {
        Err(LoadError::Stopped) => {}
        Err(other) => panic!("expected LoadError::Stopped, got {other:?}"),
        Ok(_) => panic!("a stopped load ended with a host"),
    }
    // The options' own stop is not the workspace's: each live workspace has its own.
    let options = LoadOptions {
        check_in_background: false,
        ..stopped
    };
    let (live, _events) = LiveWorkspace::start_with(fs.clone(), options).unwrap();
    assert!(live.wait_ready(std::time::Duration::from_secs(60)));
    assert!(!live.stop(), "an index that had ended was not cut short");
}

#[test]
fn a_glob_that_does_not_parse_fails_the_load_naming_it() {
    let fs = memory();
    fs.write("sextant.toml", "exclude = [\"src/[z\"]\n")
        .write("a.py", "");
    match Host::load_with(fs.clone(), &LoadOptions::default()) {
        Err(LoadError::Glob { list, glob, .. }) => {
            assert_eq!((list, glob.as_str()), ("exclude", "src/[z"));
        }
        Err(other) => panic!("expected LoadError::Glob, got {other:?}"),
        Ok(_) => panic!("a broken glob loaded"),
    }
}

// ---------------------------------------------------------------------------------------
// Skip reasons

#[test]
fn files_that_cannot_be_indexed_are_reported_with_their_reason() {
    let fs = memory();
    fs.write("sextant.toml", "max_file_size = 64\n")
        .write("ok.py", "x = 1\n")
        .write("big.py", "x".repeat(65))
        .write("bin.py", b"x = 1\n\0\0\0")
        .write("latin1.py", b"s = '\xe9t\xe9'\n")
        .fifo("pipe.py")
        .symlink("link_in.py", "ok.py")
        .symlink("link_out.py", "/elsewhere/secret.py")
        .write("/elsewhere/secret.py", "KEY = 1\n")
        .symlink("dir_out", "/elsewhere")
        .symlink("sub/up", "..")
        .symlink("self.py", "self.py")
        .symlink("dangling.py", "nothing.py")
        .write(
            Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9.py")),
            "x = 2\n",
        );
    let host = load(&fs);
    assert_eq!(
        files(&host),
        [
            ("latin1.py", "s = '\u{fffd}t\u{fffd}'\n"),
            ("ok.py", "x = 1\n"),
        ]
        .map(|(p, t)| (p.to_string(), t.to_string()))
    );
    let analysis = host.analysis();
    assert!(analysis.file_is_lossy(analysis.file("latin1.py").unwrap()));
    assert!(!analysis.file_is_lossy(analysis.file("ok.py").unwrap()));
    assert_eq!(
        skipped(&host),
        [
            ("big.py".into(), SkipReason::TooLarge),
            ("bin.py".into(), SkipReason::Binary),
            ("caf\u{fffd}.py".into(), SkipReason::NonUtf8Path),
            ("dangling.py".into(), SkipReason::Unreadable),
            ("dir_out".into(), SkipReason::OutsideWorkspace),
            ("link_in.py".into(), SkipReason::SameFile),
            ("link_out.py".into(), SkipReason::OutsideWorkspace),
            ("pipe.py".into(), SkipReason::NotRegularFile),
            ("self.py".into(), SkipReason::Unreadable),
            ("sub/up".into(), SkipReason::SymlinkLoop),
        ]
    );
    let detail = |p: &str| {
        host.skipped
            .iter()
            .find(|s| s.path == p)
            .unwrap()
            .detail
            .clone()
    };
    assert_eq!(detail("dir_out"), "directory symlink to /elsewhere");
    assert_eq!(
        detail("link_out.py"),
        "resolves outside the workspace, to /elsewhere/secret.py"
    );
    assert_eq!(detail("pipe.py"), "not a regular file (a FIFO)");
    assert_eq!(
        detail("sub/up"),
        "File system loop found: /ws/sub/up points to an ancestor /ws"
    );
    assert_eq!(
        detail("self.py"),
        "/ws/self.py: Too many levels of symbolic links (os error 40)"
    );
}

// ---------------------------------------------------------------------------------------
// Reconciliation

#[test]
fn edits_additions_and_deletions_are_reconciled() {
    let fs = memory();
    fs.write("a.py", "def a():\n    pass\n")
        .write("b.py", "def b():\n    pass\n");
    let mut host = load(&fs);

    fs.write("a.py", "def a2():\n    pass\n");
    let applied = changed(&mut host, &["a.py"]);
    assert_eq!(
        applied,
        Applied {
            changed: 1,
            ..Default::default()
        }
    );
    assert_eq!(text(&host, "a.py").unwrap(), "def a2():\n    pass\n");

    fs.write("pkg/c.rs", "fn c() {}\n");
    let applied = changed(&mut host, &["pkg/c.rs", "pkg"]);
    assert_eq!(
        applied,
        Applied {
            added: 1,
            rescanned: true,
            ..Default::default()
        }
    );

    // A known file is reread, not walked for.
    fs.remove("b.py");
    let applied = changed(&mut host, &["b.py"]);
    assert_eq!(
        applied,
        Applied {
            removed: 1,
            ..Default::default()
        }
    );
    assert_eq!(paths(&host), strings(&["a.py", "pkg/c.rs"]));

    // An edit that changes nothing changes nothing.
    assert_eq!(changed(&mut host, &["a.py"]), Applied::default());
}

#[test]
fn renamed_files_and_directories_move_in_the_index() {
    let fs = memory();
    fs.write("old.py", "def f():\n    pass\n")
        .write("dir/x.py", "X = 1\n")
        .write("dir/deep/y.go", "package deep\n");
    let mut host = load(&fs);

    fs.rename("old.py", "new.py");
    changed(&mut host, &["old.py", "new.py"]);
    assert_eq!(
        paths(&host),
        strings(&["dir/deep/y.go", "dir/x.py", "new.py"])
    );
    assert_eq!(text(&host, "new.py").unwrap(), "def f():\n    pass\n");

    fs.rename("dir", "moved");
    let applied = changed(&mut host, &["dir", "moved"]);
    assert!(applied.rescanned);
    assert_eq!(
        paths(&host),
        strings(&["moved/deep/y.go", "moved/x.py", "new.py"])
    );
}

#[test]
fn a_new_gitignore_hides_files_and_removing_it_brings_them_back() {
    let fs = memory();
    fs.write("gen/out.py", "").write("src/main.py", "");
    let mut host = load(&fs);
    assert_eq!(paths(&host), strings(&["gen/out.py", "src/main.py"]));

    fs.write(".gitignore", "gen/\n");
    let applied = changed(&mut host, &[".gitignore"]);
    assert_eq!(
        applied,
        Applied {
            removed: 1,
            rescanned: true,
            ..Default::default()
        }
    );
    assert_eq!(paths(&host), strings(&["src/main.py"]));

    // Changes inside the ignored directory do not make the writer walk again.
    fs.write("gen/other.py", "");
    assert_eq!(
        changed(&mut host, &["gen/other.py", "gen/out.py"]),
        Applied::default()
    );

    fs.write("src/.gitignore", "main.py\n");
    changed(&mut host, &["src/.gitignore"]);
    assert_eq!(paths(&host), strings(&[]));

    fs.remove(".gitignore").remove("src/.gitignore");
    changed(&mut host, &[".gitignore", "src/.gitignore"]);
    assert_eq!(
        paths(&host),
        strings(&["gen/other.py", "gen/out.py", "src/main.py"])
    );
}

#[test]
fn build_outputs_are_left_out_without_an_ignore_file_unless_configured() {
    let fs = memory();
    fs.write("src/main.py", "")
        .write("web/node_modules/pkg/index.js", "")
        .write("web/package.json", "{}")
        .write("web/dist/app.js", "")
        // Go's own `cmd/dist` is source: no `package.json` beside it.
        .write("cmd/dist/build.go", "package main\n")
        .write(
            "target/CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        )
        .write("target/debug/build/out.rs", "")
        .write("env/pyvenv.cfg", "home = /usr/bin\n")
        .write("env/lib/site.py", "")
        // A directory merely named like Cargo's output is source until it is tagged.
        .write("tools/target/gen.py", "");
    let mut host = load(&fs);
    assert_eq!(
        paths(&host),
        strings(&["cmd/dist/build.go", "src/main.py", "tools/target/gen.py"])
    );

    // Tagging a directory takes it out; removing the tag brings it back.
    fs.write(
        "tools/target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    let applied = changed(&mut host, &["tools/target/CACHEDIR.TAG"]);
    assert!(applied.rescanned);
    assert_eq!(paths(&host), strings(&["cmd/dist/build.go", "src/main.py"]));
    fs.remove("tools/target/CACHEDIR.TAG");
    changed(&mut host, &["tools/target/CACHEDIR.TAG"]);
    assert_eq!(
        paths(&host),
        strings(&["cmd/dist/build.go", "src/main.py", "tools/target/gen.py"])
    );

    fs.write("sextant.toml", "skip_build_outputs = false\n");
    changed(&mut host, &["sextant.toml"]);
    assert_eq!(
        paths(&host),
        strings(&[
            "cmd/dist/build.go",
            "env/lib/site.py",
            "src/main.py",
            "target/debug/build/out.rs",
            "tools/target/gen.py",
            "web/dist/app.js",
            "web/node_modules/pkg/index.js",
        ])
    );
}

#[test]
fn sextant_toml_changes_are_applied_and_a_broken_one_keeps_the_last_good_config() {
    let fs = memory();
    fs.write("src/a.py", "x = 1\n")
        .write("big.py", "x = 'twelve'\n");
    let mut host = load(&fs);
    assert_eq!(paths(&host), strings(&["big.py", "src/a.py"]));

    fs.write("sextant.toml", "exclude = [\"src/\"]\nmax_file_size = 8\n");
    changed(&mut host, &["sextant.toml"]);
    assert_eq!(paths(&host), strings(&[]));
    assert_eq!(skipped(&host), [("big.py".into(), SkipReason::TooLarge)]);

    assert_eq!(host.config_error, None);

    fs.write("sextant.toml", "exclude = [");
    changed(&mut host, &["sextant.toml"]);
    assert_eq!(paths(&host), strings(&[]));
    assert_eq!(host.config.max_file_size, 8);
    let error = host.config_error.clone().unwrap();
    assert!(error.starts_with("/ws/sextant.toml: "), "{error}");

    // A glob that does not parse fails the walk: the last good configuration walks instead.
    fs.write("sextant.toml", "exclude = [\"src/[z\"]\n");
    fs.write("src/b.py", "y = 2\n");
    changed(&mut host, &["sextant.toml", "src/b.py"]);
    assert_eq!(paths(&host), strings(&[]));
    let error = host.config_error.clone().unwrap();
    assert!(
        error.starts_with("sextant.toml exclude \"src/[z\": "),
        "{error}"
    );

    fs.remove("sextant.toml");
    changed(&mut host, &["sextant.toml"]);
    assert_eq!(paths(&host), strings(&["big.py", "src/a.py", "src/b.py"]));
    assert_eq!(skipped(&host), []);
    assert_eq!(host.config_error, None);
}

#[test]
fn a_file_vanishing_between_walk_and_read_is_simply_gone() {
    let fs = memory();
    fs.write("a.py", "").write("b.py", "");
    let mut host = load(&fs);

    fs.write("c.py", "").write("d.py", "");
    fs.after_next_walk(|fs| {
        fs.remove("/ws/c.py");
    });
    let applied = changed(&mut host, &["c.py", "d.py"]);
    assert_eq!(
        applied,
        Applied {
            added: 1,
            rescanned: true,
            ..Default::default()
        }
    );
    assert_eq!(paths(&host), strings(&["a.py", "b.py", "d.py"]));
    assert_eq!(skipped(&host), []);

    // And on the first load.
    fs.after_next_walk(|fs| {
        fs.remove("/ws/a.py");
    });
    let host = load(&fs);
    assert_eq!(paths(&host), strings(&["b.py", "d.py"]));
}

#[test]
fn a_file_that_grows_too_large_or_turns_binary_leaves_the_index_with_a_reason() {
    let fs = memory();
    fs.write("sextant.toml", "max_file_size = 16\n")
        .write("a.py", "x = 1\n")
        .write("b.py", "y = 1\n");
    let mut host = load(&fs);
    fs.write("a.py", "x = 'seventeen b'\n").write("b.py", "y\0");
    changed(&mut host, &["a.py", "b.py"]);
    assert_eq!(paths(&host), strings(&[]));
    assert_eq!(
        skipped(&host),
        [
            ("a.py".into(), SkipReason::TooLarge),
            ("b.py".into(), SkipReason::Binary),
        ]
    );
}

#[test]
fn a_change_to_a_linked_file_refreshes_the_link() {
    // A link to a file the walk reaches anyway is a second path to it: indexed once.
    let fs = memory();
    fs.write("real.py", "A = 1\n")
        .symlink("alias.py", "real.py")
        .write(".gitignore", "hidden/\n")
        .write("hidden/real.py", "B = 1\n")
        .symlink("link.py", "hidden/real.py");
    let mut host = load(&fs);
    assert_eq!(paths(&host), strings(&["link.py", "real.py"]));
    assert_eq!(host.indexed_path("alias.py"), "real.py");
    // The real file of `link.py` is ignored, so the link is indexed, and follows it.
    fs.write("real.py", "A = 2\n")
        .write("hidden/real.py", "B = 2\n");
    changed(&mut host, &["real.py", "hidden/real.py"]);
    assert_eq!(text(&host, "real.py").unwrap(), "A = 2\n");
    assert_eq!(text(&host, "link.py").unwrap(), "B = 2\n");

    // Once its real file is indexed, the link becomes a second path to it.
    fs.write(".gitignore", "");
    changed(&mut host, &[".gitignore"]);
    assert_eq!(paths(&host), strings(&["hidden/real.py", "real.py"]));
    assert_eq!(host.indexed_path("link.py"), "hidden/real.py");

    // Retargeted outside the root: refused when read.
    fs.write("/elsewhere/secret.py", "KEY = 1\n")
        .symlink("alias.py", "/elsewhere/secret.py");
    changed(&mut host, &["alias.py"]);
    assert_eq!(paths(&host), strings(&["hidden/real.py", "real.py"]));
    assert_eq!(
        skipped(&host),
        [
            ("alias.py".into(), SkipReason::OutsideWorkspace),
            ("link.py".into(), SkipReason::SameFile)
        ]
    );
}

#[test]
fn lost_events_walk_the_whole_root() {
    let fs = memory();
    fs.write("a.py", "");
    let mut host = load(&fs);
    fs.write("a.py", "A = 1\n")
        .write("b/c.py", "")
        .remove("a.py");
    let applied = host.apply_disk_changes(&[], true);
    assert_eq!(
        applied,
        Applied {
            added: 1,
            removed: 1,
            rescanned: true,
            ..Default::default()
        }
    );
    assert_eq!(paths(&host), strings(&["b/c.py"]));
}

// ---------------------------------------------------------------------------------------
// Editor overlays

#[test]
fn an_open_document_wins_over_the_disk_until_closed() {
    let fs = memory();
    fs.write("a.py", "DISK = 1\n");
    let mut host = load(&fs);

    assert!(host.set_overlay("a.py", Some("EDITOR = 1\n".into())));
    assert_eq!(text(&host, "a.py").unwrap(), "EDITOR = 1\n");

    // The disk changes while the document is open: ignored, by a plain reread and by a
    // walk alike.
    fs.write("a.py", "DISK = 2\n");
    assert_eq!(changed(&mut host, &["a.py"]), Applied::default());
    assert_eq!(text(&host, "a.py").unwrap(), "EDITOR = 1\n");
    host.apply_disk_changes(&[], true);
    assert_eq!(text(&host, "a.py").unwrap(), "EDITOR = 1\n");
    fs.remove("a.py");
    changed(&mut host, &["a.py"]);
    host.apply_disk_changes(&[], true);
    assert_eq!(text(&host, "a.py").unwrap(), "EDITOR = 1\n");

    // Closed: the disk decides again (here: the file is gone).
    fs.write("a.py", "DISK = 3\n");
    assert!(host.set_overlay("a.py", None));
    assert_eq!(text(&host, "a.py").unwrap(), "DISK = 3\n");
    fs.remove("a.py");
    host.set_overlay("a.py", Some("EDITOR = 2\n".into()));
    host.set_overlay("a.py", None);
    assert_eq!(paths(&host), strings(&[]));
}

#[test]
fn an_unsaved_new_document_is_indexed_until_closed() {
    let fs = memory();
    fs.write("a.py", "").write(".gitignore", "ignored/\n");
    let mut host = load(&fs);
    assert!(host.set_overlay("new/b.rs", Some("fn b() {}\n".into())));
    assert!(host.set_overlay("ignored/c.py", Some("C = 1\n".into())));
    assert_eq!(
        files(&host),
        [
            ("a.py", ""),
            ("ignored/c.py", "C = 1\n"),
            ("new/b.rs", "fn b() {}\n")
        ]
        .map(|(p, t)| (p.to_string(), t.to_string()))
    );
    // A walk keeps them, wherever they are and whatever the rules say.
    fs.write("d.py", "");
    changed(&mut host, &["d.py"]);
    assert_eq!(
        paths(&host),
        strings(&["a.py", "d.py", "ignored/c.py", "new/b.rs"])
    );
    host.set_overlay("new/b.rs", None);
    host.set_overlay("ignored/c.py", None);
    assert_eq!(paths(&host), strings(&["a.py", "d.py"]));
}

#[test]
fn a_document_no_language_handles_is_refused() {
    let fs = memory();
    fs.write("a.py", "");
    let mut host = load(&fs);
    assert!(!host.set_overlay("notes.txt", Some("hello\n".into())));
    assert!(!host.set_overlay("Makefile", Some("all:\n".into())));
    assert!(!host.set_overlay("../escape.py", Some("x\n".into())));
    assert_eq!(paths(&host), strings(&["a.py"]));
    // An extensionless script is recognised by its shebang.
    assert!(!host.set_overlay("run", Some("#!/bin/sh\n# not known\n".into())));
    assert!(host.set_overlay("tool", Some("#!/usr/bin/env python3\nX = 1\n".into())));
    assert_eq!(paths(&host), strings(&["a.py", "tool"]));
}

#[test]
fn an_open_document_over_a_file_too_large_on_disk_stays_indexed() {
    let fs = memory();
    fs.write("sextant.toml", "max_file_size = 8\n")
        .write("a.py", "A = 1\n");
    let mut host = load(&fs);
    host.set_overlay("a.py", Some("A = 'longer than eight'\n".into()));
    fs.write("a.py", "A = 'longer than eight'\n");
    changed(&mut host, &["a.py"]);
    // A walk that reads the path (the disk's copy is too large) keeps the document too.
    host.apply_disk_changes(&[fs.path("a.py")], true);
    assert_eq!(text(&host, "a.py").unwrap(), "A = 'longer than eight'\n");
    assert_eq!(skipped(&host), []);
    host.set_overlay("a.py", None);
    assert_eq!(paths(&host), strings(&[]));
    assert_eq!(skipped(&host), [("a.py".into(), SkipReason::TooLarge)]);
}

// ---------------------------------------------------------------------------------------
// The live workspace over a memory system, fed events by the test

use support::symbol_names as names;

#[test]
fn the_live_writer_applies_pushed_events_in_order() {
    let fs = memory();
    fs.write("a.py", "def alpha():\n    pass\n");
    let (live, events) = LiveWorkspace::start_with(fs.clone(), LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
    assert_eq!(live.status().revision, 0);

    fs.write("a.py", "def alpha_two():\n    pass\n");
    // Not reported yet: the index still has the old text.
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
    events.changed([fs.path("a.py")]);
    assert_eq!(names(&live, "alpha"), ["a.py:alpha_two"]);

    fs.write("pkg/b.rs", "fn beta() {}\n");
    fs.rename("a.py", "c.py");
    events.changed([fs.path("pkg"), fs.path("pkg/b.rs")]);
    events.changed([fs.path("a.py"), fs.path("c.py")]);
    assert_eq!(names(&live, "alpha"), ["c.py:alpha_two"]);
    assert_eq!(names(&live, "beta"), ["pkg/b.rs:beta"]);

    fs.write(".gitignore", "pkg/\n");
    events.changed([fs.path(".gitignore")]);
    assert_eq!(names(&live, "beta"), Vec::<String>::new());

    fs.remove(".gitignore").remove("c.py");
    events.lost();
    assert_eq!(names(&live, ""), ["pkg/b.rs:beta"]);
    let status = live.status();
    assert!(status.ready && !status.watching, "{status:?}");
    assert!(status.rescans >= 3, "{status:?}");
}

/// A change is written through the workspace's own system, as everything is read through
/// it: over a memory system nothing reaches the disk (the root `/ws` does not exist there),
/// the writer reads the new text back before `apply_change` returns, and a stale or
/// read-only file stops the whole change.
#[test]
fn the_live_writer_writes_changes_through_its_system() {
    use sextant::ide::{
        ErrorCode, Failure as _, FileEdit, LineIndex, SourceChange, Span, TextEdit, TextRange,
    };
    let fs = memory();
    let text = "def alpha():\n    pass\n";
    fs.write("a.py", text).write("b.py", "import a\n");
    let (live, _events) = LiveWorkspace::start_with(fs.clone(), LoadOptions::default()).unwrap();
    let rename = |path: &str, base: &str| {
        let edit = TextEdit {
            range: Span::new(&LineIndex::new(base), TextRange::new(4.into(), 9.into())),
            new_text: "omega".into(),
        };
        FileEdit::new(path, base, vec![edit])
    };
    let change = SourceChange {
        files: vec![rename("a.py", text)],
        file_system: Vec::new(),
    };
    live.apply_change(&change).unwrap();
    assert_eq!(
        fs.read(&fs.path("a.py"), 1 << 20).unwrap().bytes,
        b"def omega():\n    pass\n"
    );
    assert_eq!(names(&live, ""), ["a.py:omega"]);
    assert!(!Path::new("/ws/a.py").exists());

    let stale = live.apply_change(&change).unwrap_err();
    assert_eq!(stale.code(), ErrorCode::Conflict);

    fs.write("c.py", text)
        .write("d.py", text)
        .set_read_only("d.py");
    let both = SourceChange {
        files: vec![rename("c.py", text), rename("d.py", text)],
        file_system: Vec::new(),
    };
    let refused = live.apply_change(&both).unwrap_err();
    assert_eq!(refused.to_string(), "d.py: read-only; nothing was written");
    assert_eq!(
        fs.read(&fs.path("c.py"), 1 << 20).unwrap().bytes,
        text.as_bytes()
    );
}

/// Files created, deleted and moved through the live workspace's system leave its index
/// agreeing with that system when `apply_change` returns, with no event from outside.
#[test]
fn the_live_writer_indexes_created_deleted_and_moved_files() {
    use sextant::ide::{ContentHash, FileSystemEdit, SourceChange};
    use sextant::workspace::live::Snapshot;
    let fs = memory();
    fs.write("a.py", "def alpha():\n    pass\n")
        .write("old.py", "def old():\n    pass\n");
    let (live, _events) = LiveWorkspace::start_with(fs.clone(), LoadOptions::default()).unwrap();
    let change = SourceChange {
        files: Vec::new(),
        file_system: vec![
            FileSystemEdit::Create {
                path: "pkg/new.py".into(),
                text: "def new():\n    pass\n".into(),
                executable: true,
            },
            FileSystemEdit::Delete {
                path: "old.py".into(),
                base_hash: ContentHash::of(b"def old():\n    pass\n"),
            },
            FileSystemEdit::Move {
                from: "a.py".into(),
                to: "b.py".into(),
                base_hash: ContentHash::of(b"def alpha():\n    pass\n"),
                text: "def beta():\n    pass\n".into(),
                executable: None,
                encoding: Default::default(),
            },
        ],
    };
    live.apply_change(&change).unwrap();
    assert_eq!(
        fs.listing(),
        [
            "/ (dir)",
            "/ws/ (dir)",
            "/ws/b.py (644): \"def beta():\\n    pass\\n\"",
            "/ws/pkg/ (dir)",
            "/ws/pkg/new.py (755): \"def new():\\n    pass\\n\"",
        ]
    );
    let indexed = live
        .read(&RequestCancel::default(), |s: &Snapshot| {
            let analysis = &s.analysis;
            Ok(analysis
                .files()
                .map(|f| {
                    (
                        analysis.file_path(f).to_string(),
                        analysis.file_text(f).to_string(),
                    )
                })
                .collect::<Vec<_>>())
        })
        .unwrap();
    assert_eq!(
        indexed,
        [
            ("b.py".to_string(), "def beta():\n    pass\n".to_string()),
            (
                "pkg/new.py".to_string(),
                "def new():\n    pass\n".to_string()
            ),
        ]
    );
}

#[test]
fn the_live_writer_applies_overlays_and_reads_left_out_files_through_the_system() {
    let fs = memory();
    fs.write("a.py", "def disk():\n    pass\n")
        .write(".gitignore", "gen/\n")
        .write("gen/g.py", "def generated():\n    pass\n");
    let (live, events) = LiveWorkspace::start_with(fs.clone(), LoadOptions::default()).unwrap();
    live.set_overlay("a.py", Some("def editor():\n    pass\n".into()));
    assert_eq!(names(&live, ""), ["a.py:editor"]);
    fs.write("a.py", "def disk_two():\n    pass\n");
    events.changed([fs.path("a.py")]);
    assert_eq!(names(&live, ""), ["a.py:editor"]);
    live.set_overlay("a.py", None);
    assert_eq!(names(&live, ""), ["a.py:disk_two"]);

    // A file the index leaves out is read on demand, from the same system.
    let outline = live
        .read_file(
            &RequestCancel::default(),
            "gen/g.py",
            WhileIndexing::Wait,
            |analysis, file| analysis.outline(file, 10),
        )
        .unwrap();
    assert_eq!(outline.symbols.len(), 1);
    assert_eq!(outline.symbols[0].name, "generated");
}

// ---------------------------------------------------------------------------------------
// Fidelity: the memory system answers as the disk does

/// One entry of a tree built both on disk and in memory; paths are relative to a base
/// directory holding `root/` (the workspace) and `outside/`.
enum Entry {
    File(PathBuf, Vec<u8>),
    Link(PathBuf, PathBuf),
    Fifo(PathBuf),
}

fn file(p: &str, text: impl AsRef<[u8]>) -> Entry {
    Entry::File(p.into(), text.as_ref().to_vec())
}

fn link(p: &str, target: &str) -> Entry {
    Entry::Link(p.into(), target.into())
}

fn build_on_disk(base: &Path, tree: &[Entry]) {
    std::fs::create_dir_all(base.join("root")).unwrap();
    for entry in tree {
        let path = match entry {
            Entry::File(p, _) | Entry::Link(p, _) | Entry::Fifo(p) => base.join(p),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        match entry {
            Entry::File(_, bytes) => std::fs::write(&path, bytes).unwrap(),
            Entry::Link(_, target) => std::os::unix::fs::symlink(target, &path).unwrap(),
            Entry::Fifo(_) => {
                let status = std::process::Command::new("mkfifo")
                    .arg(&path)
                    .status()
                    .unwrap();
                assert!(status.success());
            }
        }
    }
}

fn build_in_memory(base: &Path, tree: &[Entry]) -> Arc<MemorySystem> {
    let fs = Arc::new(MemorySystem::new(base.join("root")));
    for entry in tree {
        match entry {
            Entry::File(p, bytes) => {
                fs.write(base.join(p), bytes);
            }
            Entry::Link(p, target) => {
                fs.symlink(base.join(p), target);
            }
            Entry::Fifo(p) => {
                fs.fifo(base.join(p));
            }
        }
    }
    fs
}

/// Loads the same tree from disk and from memory; both must give the same files, texts,
/// skip reasons and details.
fn assert_same_as_disk(tree: &[Entry], options: &LoadOptions) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    build_on_disk(&base, tree);
    let fs = build_in_memory(&base, tree);
    let on_disk = Host::load(&base.join("root"), options);
    let in_memory = Host::load_with(fs.clone(), options);
    let (on_disk, in_memory) = match (on_disk, in_memory) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let message = |e: Option<LoadError>| e.map(|e| e.to_string());
            assert_eq!(message(a.err()), message(b.err()));
            return;
        }
    };
    assert_eq!(files(&in_memory), files(&on_disk));
    let details = |h: &Host| {
        h.skipped
            .iter()
            .map(|s| (s.path.clone(), s.reason.clone(), s.detail.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(details(&in_memory), details(&on_disk));
    // The seam answers alike for every path of the tree.
    for entry in tree {
        let p = match entry {
            Entry::File(p, _) | Entry::Link(p, _) | Entry::Fifo(p) => base.join(p),
        };
        let os = sextant::workspace::OsSystem::new(base.join("root"));
        // Kinds alike, and sizes of files (a directory's size is the file system's own).
        let meta = |s: &dyn System| {
            s.metadata(&p)
                .map(|m| (m.kind, (m.kind == FileKind::File).then_some(m.len)))
                .map_err(|e| e.to_string())
        };
        assert_eq!(meta(&*fs), meta(&os), "{}", p.display());
        let link_meta = |s: &dyn System| {
            s.symlink_metadata(&p)
                .map(|m| m.kind)
                .map_err(|e| e.to_string())
        };
        assert_eq!(link_meta(&*fs), link_meta(&os), "{}", p.display());
        assert_eq!(
            fs.read(&p, 64).map(|c| c.bytes).map_err(|e| e.to_string()),
            os.read(&p, 64).map(|c| c.bytes).map_err(|e| e.to_string()),
            "{}",
            p.display()
        );
    }
}

#[test]
fn the_memory_system_loads_as_the_disk_does() {
    let tree = [
        file("root/a.py", "def a():\n    pass\n"),
        file("root/src/b.rs", "fn b() {}\n"),
        file("root/.hidden.py", ""),
        file("root/.hiddendir/x.py", ""),
        file(
            "root/.gitignore",
            "build/\n*.gen.py\n!keep.gen.py\n/rooted.py\ndangling_ignored.py\n",
        ),
        file("root/build/out.py", ""),
        file("root/x.gen.py", ""),
        file("root/keep.gen.py", ""),
        file("root/rooted.py", ""),
        file("root/sub/rooted.py", ""),
        file("root/sub/.gitignore", "!x.gen.py\nlocal.py\n"),
        file("root/sub/x.gen.py", ""),
        file("root/sub/local.py", ""),
        file("root/.ignore", "!forced.py\nby_ignore.py\n"),
        file("root/sub/.ignore", "forced.py\n"),
        file("root/forced.py", ""),
        file("root/sub/forced.py", ""),
        file("root/by_ignore.py", ""),
        file("root/.git/info/exclude", "excluded.py\n"),
        file("root/excluded.py", ""),
        file("root/big.py", "x".repeat(100)),
        file("root/bin.py", b"x\0"),
        file("root/latin1.py", b"s = '\xe9'\n"),
        file("root/tool", "#!/usr/bin/env python3\nX = 1\n"),
        file("root/README", "text\n"),
        file("outside/secret.py", "KEY = 1\n"),
        link("root/link_in.py", "a.py"),
        link("root/link_dir", "src"),
        link("root/link_out.py", "../outside/secret.py"),
        link("root/dir_out", "../outside"),
        link("root/sub/up", ".."),
        link("root/sub/above", "../../.."),
        link("root/self.py", "self.py"),
        link("root/dangling.py", "nothing.py"),
        link("root/dangling_ignored.py", "nothing.py"),
        link("root/to_dir.py", "src"),
        Entry::Fifo("root/pipe.py".into()),
        Entry::File(
            PathBuf::from(std::ffi::OsStr::from_bytes(b"root/caf\xe9.py")),
            b"x = 1\n".to_vec(),
        ),
        file("root/sextant.toml", "max_file_size = 64\n"),
    ];
    assert_same_as_disk(&tree, &LoadOptions::default());
}

#[test]
fn the_memory_system_applies_globs_as_the_disk_does() {
    let tree = [
        file(
            "root/sextant.toml",
            "include = [\"src/**\", \"*.go\", \".dot/*.py\"]\nexclude = [\"src/gen/\", \"**/skip_*\"]\n",
        ),
        file("root/src/a.py", ""),
        file("root/src/gen/b.py", ""),
        file("root/src/skip_c.py", ""),
        file("root/src/deep/d.rs", ""),
        file("root/main.go", "package main\n"),
        file("root/main_test.go", "package main\n"),
        file("root/other/e.py", ""),
        file("root/.dot/f.py", ""),
        file("root/.gitignore", "src/deep/\n"),
    ];
    let options = LoadOptions {
        exclude: vec!["*_test.go".into()],
        ..Default::default()
    };
    assert_same_as_disk(&tree, &options);
    assert_same_as_disk(
        &[file("root/sextant.toml", "include = [\"[\"]\n")],
        &LoadOptions::default(),
    );
}

/// A walk's candidates as comparable lines.
fn walked(system: &dyn System, config: &sextant::workspace::Config) -> Result<Vec<String>, String> {
    use sextant::workspace::system::Candidate;
    Ok(system
        .walk(config)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|c| match c {
            Candidate::File { rel, .. } => format!("file {rel}"),
            Candidate::Dir(rel) => format!("dir {rel}"),
            Candidate::Manifest(rel) => format!("manifest {rel}"),
            Candidate::Skipped(s) => format!("skipped {} {:?} {}", s.path, s.reason, s.detail),
        })
        .collect())
}

mod fuzz {
    use proptest::{prelude::*, test_runner::Config as FuzzConfig};

    use super::*;

    const DIRS: &[&str] = &["", "a/", "b/", "a/c/", ".h/", "dist/", "a/node_modules/"];
    const FILES: &[&str] = &[
        "x.py",
        "y.rs",
        ".z.py",
        "w.go",
        "tool",
        "pyvenv.cfg",
        "package.json",
    ];
    const RULES: &[&str] = &[
        "*.py",
        "!x.py",
        "a/",
        "/y.rs",
        "b",
        "!b/",
        "**/x.py",
        ".z.py",
        "!.z.py",
        "a/**/y.rs",
        "#c",
        "\\!x.py",
        "c/",
        "!a/c/",
        "*.go",
        "[",
        "/a/c",
        "!/w.go",
        "  ",
        "w.*",
    ];
    const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];
    const LINKS: &[(&str, &str)] = &[
        ("a/up", ".."),
        ("l.py", "x.py"),
        ("b/l", "../a"),
        ("a/c/out", "../../../outside"),
        ("dead.py", "gone.py"),
        ("b/self.py", "self.py"),
    ];
    const GLOBS: &[&str] = &["a/**", "*.py", "b/", "!x.py", "**/c/*", ".h/*"];

    #[derive(Debug, Clone)]
    struct Case {
        files: Vec<(usize, usize)>,
        rules: Vec<(usize, usize, Vec<usize>)>,
        exclude_file: Vec<usize>,
        links: Vec<usize>,
        include: Vec<usize>,
        exclude: Vec<usize>,
    }

    fn case() -> impl Strategy<Value = Case> {
        (
            prop::collection::vec((0..DIRS.len(), 0..FILES.len()), 0..12),
            prop::collection::vec(
                (
                    0..DIRS.len(),
                    0..IGNORE_FILES.len(),
                    prop::collection::vec(0..RULES.len(), 0..5),
                ),
                0..4,
            ),
            prop::collection::vec(0..RULES.len(), 0..3),
            prop::collection::vec(0..LINKS.len(), 0..3),
            prop::collection::vec(0..GLOBS.len(), 0..2),
            prop::collection::vec(0..GLOBS.len(), 0..2),
        )
            .prop_map(
                |(files, rules, exclude_file, links, include, exclude)| Case {
                    files,
                    rules,
                    exclude_file,
                    links,
                    include,
                    exclude,
                },
            )
    }

    fn tree(case: &Case) -> Vec<Entry> {
        let mut tree = vec![file("outside/secret.py", "KEY = 1\n")];
        for &(d, f) in &case.files {
            tree.push(file(&format!("root/{}{}", DIRS[d], FILES[f]), "X = 1\n"));
        }
        let mut ignore_files: std::collections::BTreeMap<String, String> = Default::default();
        for (d, kind, lines) in &case.rules {
            let text = ignore_files
                .entry(format!("root/{}{}", DIRS[*d], IGNORE_FILES[*kind]))
                .or_default();
            for &l in lines {
                text.push_str(RULES[l]);
                text.push('\n');
            }
        }
        if !case.exclude_file.is_empty() {
            let lines: String = case
                .exclude_file
                .iter()
                .map(|&l| format!("{}\n", RULES[l]))
                .collect();
            ignore_files.insert("root/.git/info/exclude".into(), lines);
        }
        tree.extend(ignore_files.iter().map(|(p, t)| file(p, t)));
        let mut linked = std::collections::BTreeSet::new();
        for &l in &case.links {
            if linked.insert(l) {
                let (p, target) = LINKS[l];
                tree.push(link(&format!("root/{p}"), target));
            }
        }
        // A path used twice (a file and a link) keeps its first entry.
        let mut seen = std::collections::BTreeSet::new();
        tree.retain(|e| {
            let p = match e {
                Entry::File(p, _) | Entry::Link(p, _) | Entry::Fifo(p) => p.clone(),
            };
            seen.insert(p)
        });
        tree
    }

    proptest! {
        #![proptest_config(FuzzConfig {
            cases: sextant::testing::fuzz_cases(),
            failure_persistence: None,
            ..FuzzConfig::default()
        })]

        /// Random trees, ignore files, links and globs: the memory system walks as the disk.
        #[test]
        fn fuzz_memory_walk_matches_disk(case in case()) {
            let tree = tree(&case);
            let dir = tempfile::tempdir().unwrap();
            let base = dir.path().canonicalize().unwrap();
            build_on_disk(&base, &tree);
            let fs = build_in_memory(&base, &tree);
            let os = sextant::workspace::OsSystem::new(base.join("root"));
            let config = sextant::workspace::Config {
                include: case.include.iter().map(|&g| GLOBS[g].to_string()).collect(),
                exclude: case.exclude.iter().map(|&g| GLOBS[g].to_string()).collect(),
                ..Default::default()
            };
            prop_assert_eq!(walked(&*fs, &config), walked(&os, &config), "{:?}", tree
                .iter()
                .map(|e| match e {
                    Entry::File(p, t) => format!("{} = {:?}", p.display(), String::from_utf8_lossy(t)),
                    Entry::Link(p, t) => format!("{} -> {}", p.display(), t.display()),
                    Entry::Fifo(p) => format!("{} fifo", p.display()),
                })
                .collect::<Vec<_>>());
        }
    }
}
