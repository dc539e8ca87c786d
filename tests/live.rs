//! The live workspace on the real disk with the real watcher: file-system events reach the
//! answers, concurrent readers survive writes, and the result matches a fresh index after a
//! burst of changes. Reconciliation itself (ignore rules, config, overlays, skip reasons)
//! is tested deterministically against a memory system in `workspace_memory.rs`; these
//! tests cover the watcher path. None sleeps for a fixed time: each waits for a condition,
//! up to a generous deadline.

mod support;

use sextant::ide::Failure as _;
use std::{
    path::Path,
    time::{Duration, Instant},
};

use sextant::{
    ide::SymbolQuery,
    workspace::{Host, LoadError, LoadOptions, live::LiveWorkspace},
};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

use support::symbol_names as names;

/// How long a condition may take before the test fails (generous: machines are shared).
const DEADLINE: Duration = Duration::from_secs(30);
/// Pause between two checks of a condition.
const POLL: Duration = Duration::from_millis(10);

/// Waits until `observe` returns what `expected` says, failing with the last observation
/// at the deadline. Events arrive asynchronously; a read waits for those the watcher has
/// delivered (read-your-writes), but a loaded machine may deliver late.
fn eventually<T: std::fmt::Debug>(
    what: &str,
    mut observe: impl FnMut() -> T,
    expected: impl Fn(&T) -> bool,
) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let seen = observe();
        if expected(&seen) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "after {DEADLINE:?}, still waiting for: {what}; last seen: {seen:?}"
        );
        std::thread::sleep(POLL);
    }
}

fn eventually_names(live: &LiveWorkspace, what: &str, query: &str, expected: &[&str]) {
    eventually(what, || names(live, query), |seen| seen == expected);
}

#[test]
fn watcher_events_reach_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "def alpha():\n    pass\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert!(live.status().watching, "{:?}", live.status());
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);

    write(root, "a.py", "def alpha_renamed():\n    pass\n");
    eventually_names(&live, "edit", "alpha", &["a.py:alpha_renamed"]);

    write(root, "pkg/b.rs", "fn beta() {}\n");
    eventually_names(
        &live,
        "creation in a new directory",
        "beta",
        &["pkg/b.rs:beta"],
    );

    std::fs::rename(root.join("pkg/b.rs"), root.join("pkg/c.rs")).unwrap();
    eventually_names(&live, "file rename", "beta", &["pkg/c.rs:beta"]);

    std::fs::rename(root.join("pkg"), root.join("moved")).unwrap();
    eventually_names(&live, "directory rename", "beta", &["moved/c.rs:beta"]);

    write(root, ".gitignore", "moved/\n");
    eventually_names(&live, "a new .gitignore", "beta", &[]);
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    eventually_names(&live, ".gitignore removed", "beta", &["moved/c.rs:beta"]);

    std::fs::remove_file(root.join("a.py")).unwrap();
    eventually_names(&live, "deletion", "alpha", &[]);

    std::fs::remove_dir_all(root.join("moved")).unwrap();
    eventually_names(&live, "directory removal", "beta", &[]);
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
    eventually(
        "live index equals a fresh index",
        || {
            let mut live_names = names(&live, "");
            live_names.sort();
            live_names
        },
        |seen| *seen == expected,
    );
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
        // Paced by the writer: a read after each round waits until the round is applied,
        // so the readers run against a stream of writes rather than one batch.
        names(&live, "f");
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
    match &err {
        LoadError::Root { path, source } => {
            assert_eq!(path, Path::new("/definitely/not/here"));
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected LoadError::Root, got {other:?}"),
    }
    assert!(
        err.to_string().starts_with("/definitely/not/here: "),
        "{err}"
    );
}

/// Regressions: reading files during a rescan produced access events that triggered another
/// rescan, forever; and build output in an ignored directory (`target/`, `node_modules/`)
/// made the writer walk the workspace again and again. Each read waits for a cookie that
/// follows every event caused before it (the writer's own reads included), so "nothing
/// more happens" is observed without sleeping: two reads in a row apply no batch.
#[test]
fn the_writer_stays_quiet_when_nothing_it_indexes_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n");
    write(root, "src/main.rs", "fn main() {}\n");
    write(root, "target/debug/keep.rs", "fn generated() {}\n");
    for i in 0..20 {
        write(root, &format!("m{i}.py"), "def f():\n    pass\n");
    }
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
    // Every event above has been delivered once a read returns.
    assert!(names(&live, "generated").is_empty());
    let status = live.status();
    assert_eq!(status.rescans, 0, "{status:?}");

    write(root, "src/lib.rs", "pub fn library() {}\n");
    eventually_names(
        &live,
        "a new source file",
        "library",
        &["src/lib.rs:library"],
    );
    assert_eq!(live.status().rescans, 1);

    // The rescan read every file; those reads must not start another batch.
    names(&live, "f");
    let settled = live.status();
    names(&live, "f");
    names(&live, "f");
    let later = live.status();
    assert_eq!(
        (later.batches, later.rescans),
        (settled.batches, settled.rescans),
        "events keep arriving with nothing changing on disk: {later:?}"
    );
}

/// Edits sextant writes itself are seen by the very next read: the writer reads the files
/// back before `apply_change` returns, and a stale edit writes nothing.
#[test]
fn the_workspaces_own_writes_are_read_back_at_once() {
    use sextant::ide::{FileEdit, LineIndex, SourceChange, Span, TextEdit, TextRange};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let text = "def alpha():\n    pass\n";
    write(root, "a.py", text);
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);

    let range = TextRange::new(4.into(), 9.into());
    let rename = SourceChange {
        files: vec![FileEdit::new(
            "a.py",
            text,
            vec![TextEdit {
                range: Span::new(&LineIndex::new(text), range),
                new_text: "omega".into(),
            }],
        )],
        file_system: Vec::new(),
    };
    let written = live.apply_change(&rename).unwrap();
    assert_eq!(written.files[0].text, "def omega():\n    pass\n");
    assert_eq!(names(&live, "omega"), ["a.py:omega"]);
    assert_eq!(names(&live, "alpha"), Vec::<String>::new());

    let error = live.apply_change(&rename).unwrap_err();
    assert_eq!(error.code(), sextant::ide::ErrorCode::Conflict);
    assert_eq!(
        std::fs::read_to_string(root.join("a.py")).unwrap(),
        "def omega():\n    pass\n"
    );
}

/// A change that creates, deletes and moves files leaves the index agreeing with the disk
/// as soon as `apply_change` returns: the new paths are indexed, the gone ones dropped.
/// (The watcher reports these paths too; `workspace_memory.rs` checks, without one, that
/// the write itself tells the index.)
#[test]
fn created_deleted_and_moved_files_reach_the_index_at_once() {
    use sextant::ide::{ContentHash, FileSystemEdit, SourceChange};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "def alpha():\n    pass\n");
    write(root, "old.py", "def old():\n    pass\n");
    write(root, "keep.py", "def keep():\n    pass\n");
    let live = LiveWorkspace::start(root, LoadOptions::default()).unwrap();
    assert_eq!(indexed(&live).len(), 3);

    let change = SourceChange {
        files: Vec::new(),
        file_system: vec![
            FileSystemEdit::Create {
                path: "new.py".into(),
                text: "def new():\n    pass\n".into(),
                executable: false,
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
    let on_disk = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
    let expected: Vec<(String, String)> = ["b.py", "keep.py", "new.py"]
        .iter()
        .map(|name| (name.to_string(), on_disk(name)))
        .collect();
    let mut listed: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    listed.sort();
    assert_eq!(listed, ["b.py", "keep.py", "new.py"]);
    assert_eq!(indexed(&live), expected);
    assert_eq!(names(&live, "beta"), ["b.py:beta"]);
    assert_eq!(names(&live, "alpha"), Vec::<String>::new());
}

/// The indexed files and their texts, sorted by path (read-your-writes).
fn indexed(live: &LiveWorkspace) -> Vec<(String, String)> {
    use sextant::workspace::live::{RequestCancel, Snapshot};
    live.read(&RequestCancel::default(), |s: &Snapshot| {
        let analysis = &s.analysis;
        Ok(analysis
            .files()
            .map(|f| {
                (
                    analysis.file_path(f).to_string(),
                    analysis.file_text(f).to_string(),
                )
            })
            .collect())
    })
    .unwrap()
}

/// Regression: the watcher reports every open of a file under the root, and each woke the
/// writer, which then evicted and trimmed memory a second later, over and over while a
/// build or a test run read the tree.
#[test]
fn reading_the_files_does_not_wake_the_server() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "def alpha():\n    pass\n");
    let live = LiveWorkspace::start(dir.path(), LoadOptions::default()).unwrap();
    let evictions = || live.status().evictions;
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
    eventually("the first eviction, once idle", evictions, |&n| n >= 1);
    // Quiet: no eviction for longer than the idle delay.
    let mut quiet = evictions();
    loop {
        std::thread::sleep(Duration::from_millis(1500));
        let now = evictions();
        if now == quiet {
            break;
        }
        quiet = now;
    }

    for _ in 0..200 {
        std::fs::read(dir.path().join("a.py")).unwrap();
    }
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(evictions(), quiet, "reads woke the writer");
}

/// An eviction withdraws the snapshot and publishes it again at the same revision. That
/// was taken for a new revision: subscribers were woken for nothing, and a checked
/// revision counted as unchecked (`workspace_status` said `checking`) until the check had
/// run over it again.
#[test]
fn an_idle_eviction_is_no_new_revision() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "def alpha():\n    pass\n");
    let options = LoadOptions {
        check_in_background: true,
        ..Default::default()
    };
    let live = LiveWorkspace::start(dir.path(), options).unwrap();
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
    eventually("checked", || live.status().checked, |&checked| checked);
    let revisions = live.subscribe();
    let evictions = || live.status().evictions;
    // Two questions, each followed by an eviction: the first eviction's publishing is over
    // once the second is counted.
    let before = evictions();
    for after in [before + 1, before + 2] {
        assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
        eventually("an eviction after the question", evictions, |&n| n >= after);
    }
    assert_eq!(
        revisions.try_recv(),
        Err(crossbeam_channel::TryRecvError::Empty)
    );
    let status = live.status();
    assert_eq!((status.revision, status.checked), (0, true));
}

#[test]
fn an_idle_server_evicts_memoized_answers_but_never_under_a_reader() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "def alpha():\n    pass\n");
    let live = LiveWorkspace::start(dir.path(), LoadOptions::default()).unwrap();
    let evictions = || live.status().evictions;
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
    eventually("the first eviction, once idle", evictions, |&n| n >= 1);

    // A read that holds its snapshot for twice the server's idle delay: the server waits
    // for it instead of cancelling it (a cancelled read would run its query again).
    let before = evictions();
    let attempts = AtomicUsize::new(0);
    let query = SymbolQuery {
        query: "alpha".into(),
        limit: 10,
        ..Default::default()
    };
    let found = live
        .read(&Default::default(), |snapshot| {
            attempts.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(2));
            snapshot.analysis.symbol_search(&query)
        })
        .unwrap();
    assert_eq!(found.symbols.len(), 1);
    assert_eq!(attempts.load(Ordering::SeqCst), 1, "the read ran once");
    assert_eq!(evictions(), before, "nothing was evicted under the reader");
    eventually("an eviction after the read", evictions, |&n| {
        n == before + 1
    });
    assert_eq!(names(&live, "alpha"), ["a.py:alpha"]);
}
