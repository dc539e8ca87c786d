//! The live workspace: file-system changes reach the answers, concurrent readers survive
//! writes, and the result matches a fresh index after a burst of changes.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use sextant::{
    ide::SymbolQuery,
    workspace::{
        Host, LoadOptions,
        live::{LiveWorkspace, RequestCancel, Snapshot},
    },
};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn names(live: &LiveWorkspace, query: &str) -> Vec<String> {
    let q = SymbolQuery {
        query: query.into(),
        limit: 1000,
        ..Default::default()
    };
    live.read(&RequestCancel::default(), |s: &Snapshot| {
        s.analysis.symbol_search(&q)
    })
    .unwrap()
    .symbols
    .into_iter()
    .map(|m| format!("{}:{}", m.path, m.name))
    .collect()
}

/// Polls until `check` holds; file events are asynchronous, so tests allow them a moment.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn edits_creations_deletions_and_renames_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "def alpha():\n    pass\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);

    write(root, "a.py", "def alpha_renamed():\n    pass\n");
    eventually("edit", || names(&live, "alpha") == ["a.py:alpha_renamed"]);

    write(root, "pkg/b.rs", "fn beta() {}\n");
    eventually("creation", || names(&live, "beta") == ["pkg/b.rs:beta"]);

    std::fs::rename(root.join("pkg/b.rs"), root.join("pkg/c.rs")).unwrap();
    eventually("rename", || names(&live, "beta") == ["pkg/c.rs:beta"]);

    std::fs::remove_file(root.join("a.py")).unwrap();
    eventually("deletion", || names(&live, "alpha").is_empty());

    std::fs::remove_dir_all(root.join("pkg")).unwrap();
    eventually("directory removal", || names(&live, "beta").is_empty());
}

#[test]
fn ignore_rules_and_config_changes_take_effect() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "gen/out.py", "def generated():\n    pass\n");
    write(root, "src/main.py", "def main():\n    pass\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "generated"), ["gen/out.py:generated"]);

    write(root, ".gitignore", "gen/\n");
    eventually(".gitignore", || names(&live, "generated").is_empty());

    write(root, "sextant.toml", "exclude = [\"src/\"]\n");
    eventually("sextant.toml", || names(&live, "main").is_empty());

    std::fs::remove_file(root.join("sextant.toml")).unwrap();
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    eventually("rules removed", || {
        names(&live, "generated").len() == 1 && names(&live, "main").len() == 1
    });
}

#[test]
fn a_burst_of_changes_matches_a_fresh_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..200 {
        write(
            root,
            &format!("m{i}.py"),
            &format!("def f{i}():\n    pass\n"),
        );
    }
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "").len(), 200);

    // Like a branch switch: many files rewritten, some removed, some added.
    for i in 0..200 {
        match i % 4 {
            0 => std::fs::remove_file(root.join(format!("m{i}.py"))).unwrap(),
            1 => write(
                root,
                &format!("m{i}.py"),
                &format!("class C{i}:\n    def m(self):\n        pass\n"),
            ),
            _ => {}
        }
    }
    for i in 200..300 {
        write(
            root,
            &format!("sub/n{i}.go"),
            &format!("package sub\n\nfunc G{i}() {{}}\n"),
        );
    }

    let fresh = || {
        let host = Host::load(root, &LoadOptions::default()).unwrap();
        let q = SymbolQuery {
            query: "".into(),
            limit: 10_000,
            ..Default::default()
        };
        let mut v: Vec<String> = host
            .analysis()
            .symbol_search(&q)
            .unwrap()
            .symbols
            .into_iter()
            .map(|m| format!("{}:{}", m.path, m.name))
            .collect();
        v.sort();
        v
    };
    let expected = fresh();
    assert_eq!(expected.len(), 50 * 2 + 50 + 50 + 100);
    eventually("live index equals a fresh index", || {
        let mut live_names = names(&live, "");
        live_names.sort();
        live_names == expected
    });
}

#[test]
fn readers_keep_answering_while_files_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..50 {
        write(
            root,
            &format!("m{i}.py"),
            &format!("def f{i}():\n    pass\n"),
        );
    }
    let live = std::sync::Arc::new(LiveWorkspace::start(root, LoadOptions::default()).unwrap());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let live = live.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut answers = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let found = names(&live, "f");
                    assert!(found.len() >= 50, "{found:?}");
                    answers += 1;
                }
                answers
            })
        })
        .collect();
    for round in 0..20 {
        for i in 0..50 {
            // Atomic replacement, as careful editors save: readers never see a half-written
            // (truncated) file, so every answer must hold all 50 functions.
            let tmp = root.join(format!("m{i}.py.tmp"));
            std::fs::write(&tmp, format!("def f{i}():\n    return {round}\n")).unwrap();
            std::fs::rename(&tmp, root.join(format!("m{i}.py"))).unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert!(live.status().revision > 0);
}

#[test]
fn a_missing_root_fails_clearly() {
    let err = LiveWorkspace::start(Path::new("/definitely/not/here"), LoadOptions::default())
        .err()
        .unwrap();
    assert!(err.contains("/definitely/not/here"), "{err}");
}

/// Regression: reading files during a rescan produced access events that triggered another
/// rescan, forever; answers took tens of milliseconds instead of one.
#[test]
fn the_writer_goes_quiet_after_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..20 {
        write(root, &format!("m{i}.py"), "def f():\n    pass\n");
    }
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    names(&live, "f");
    write(root, "new.py", "def g():\n    pass\n");
    eventually("creation", || names(&live, "g") == ["new.py:g"]);
    std::thread::sleep(Duration::from_millis(500));
    let settled = live.status().batches;
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        live.status().batches,
        settled,
        "events keep arriving with nothing changing on disk"
    );
}

/// Build output in an ignored directory (`target/`, `node_modules/`) must not make the
/// writer walk the workspace again and again.
#[test]
fn changes_in_ignored_directories_cause_no_rescans() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n");
    write(root, "src/main.rs", "fn main() {}\n");
    write(root, "target/debug/keep.rs", "fn generated() {}\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "main"), ["src/main.rs:main"]);
    for i in 0..20 {
        write(
            root,
            &format!("target/debug/build/out{i}"),
            "binary-ish output\n",
        );
        write(
            root,
            &format!("target/debug/gen{i}.rs"),
            "fn generated() {}\n",
        );
    }
    std::thread::sleep(Duration::from_millis(600));
    let status = live.status();
    assert!(names(&live, "generated").is_empty());
    assert_eq!(status.rescans, 0, "{status:?}");
    write(root, "src/lib.rs", "pub fn library() {}\n");
    eventually("a new source file", || {
        names(&live, "library") == ["src/lib.rs:library"]
    });
    assert_eq!(live.status().rescans, 1);
}
