//! A process killed while it writes a multi-file rename leaves every file either as it was
//! or as the rename made it, never half-written.
//!
//! `sextant rename --write` runs with a pause before each step of the write (staging each
//! new text, then renaming each over its file; `SEXTANT_TEST_APPLY_STEP_PAUSE_MS`), and is
//! killed at a different moment after its first temporary file appears, once per delay.
//! A change with file-system edits (no command writes one yet) is written the same way by
//! this test binary itself, started again to run only [`mixed_change_writer`].

use std::{
    collections::BTreeSet,
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

const FILES: usize = 5;
const PAUSE_MS: u64 = 30;

fn module(i: usize) -> (String, String, String) {
    let path = format!("m{i}.py");
    let old = format!("from geo import area\n\n\ndef use_{i}():\n    return area({i}, {i})\n");
    let new = old.replace("area", "size");
    (path, old, new)
}

fn geo() -> (String, String, String) {
    let old = "def area(w, h):\n    return w * h\n".to_string();
    let new = old.replace("area", "size");
    ("geo.py".into(), old, new)
}

fn files() -> Vec<(String, String, String)> {
    std::iter::once(geo())
        .chain((0..FILES).map(module))
        .collect()
}

fn names_in(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_file_is_old_or_new_wherever_the_writer_is_killed() {
    let mut states = BTreeSet::new();
    // Staging and replacing six files, a pause before each of the twelve steps; each run is
    // killed one pause later than the one before, until a run finishes before its kill. No
    // assumption on how long a write takes: a loaded machine only makes more runs.
    for n in 0.. {
        assert!(n < 400, "no write finished: {states:?}");
        let delay = Duration::from_millis(n * PAUSE_MS);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, old, _) in files() {
            std::fs::write(root.join(path), old).unwrap();
        }
        let sources = names_in(root);
        let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
            .arg("--root")
            .arg(root)
            .args(["rename", "geo.py:1:5", "size", "--write"])
            .env("SEXTANT_TEST_APPLY_STEP_PAUSE_MS", PAUSE_MS.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The write has begun when a temporary file stands beside the sources.
        let started = Instant::now();
        while names_in(root) == sources && child.try_wait().unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no write began"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        child.wait().unwrap();

        let mut new_files = 0;
        for (path, old, new) in files() {
            let text = std::fs::read_to_string(root.join(&path)).unwrap();
            assert!(
                text == old || text == new,
                "{path} after a kill {delay:?} into the write: {text:?}"
            );
            new_files += usize::from(text == new);
        }
        states.insert(new_files);
        if finished {
            break;
        }
    }
    // The kills landed before, during and after the renames over the files.
    assert!(states.contains(&0), "{states:?}");
    assert!(states.contains(&(FILES + 1)), "{states:?}");
    assert!(
        states.iter().any(|&n| n > 0 && n <= FILES),
        "no kill landed between two renames: {states:?}"
    );
}

/// Where [`mixed_change_writer`] writes; set only in the child process the kill test starts.
const CHILD_ROOT: &str = "APPLY_KILLED_CHILD_ROOT";

/// The mixed change's files: `(path, old, new)`, `None` where there is no file.
fn mixed_files() -> Vec<(&'static str, Option<&'static str>, Option<&'static str>)> {
    vec![
        (
            "geo.py",
            Some("def area():\n    pass\n"),
            Some("def size():\n    pass\n"),
        ),
        (
            "m0.py",
            Some("from geo import area\n"),
            Some("from geo import size\n"),
        ),
        (
            "m1.py",
            Some("from geo import area\n"),
            Some("from geo import size\n"),
        ),
        ("pkg/new/n.py", None, Some("n = 1\n")),
        ("old.py", Some("old = 1\n"), None),
        ("mv.py", Some("mv = 1\n"), None),
        ("lib/mv.py", None, Some("mv = 2\n")),
        ("run.sh", Some("echo\n"), Some("echo\n")),
    ]
}

fn mixed_change() -> sextant::ide::SourceChange {
    use sextant::ide::{ContentHash, FileEdit, FileSystemEdit, LineIndex, Span, TextEdit};
    let rename = |path: &str, old: &str| {
        let at = old.find("area").unwrap() as u32;
        let range = sextant::ide::TextRange::new(at.into(), (at + 4).into());
        let edit = TextEdit {
            range: Span::new(&LineIndex::new(old), range),
            new_text: "size".into(),
        };
        FileEdit::new(path, old, vec![edit])
    };
    let hash = |text: &str| ContentHash::of(text.as_bytes());
    sextant::ide::SourceChange {
        files: vec![
            rename("geo.py", "def area():\n    pass\n"),
            rename("m0.py", "from geo import area\n"),
            rename("m1.py", "from geo import area\n"),
        ],
        file_system: vec![
            FileSystemEdit::Create {
                path: "pkg/new/n.py".into(),
                text: "n = 1\n".into(),
                executable: false,
            },
            FileSystemEdit::Delete {
                path: "old.py".into(),
                base_hash: hash("old = 1\n"),
            },
            FileSystemEdit::Move {
                from: "mv.py".into(),
                to: "lib/mv.py".into(),
                base_hash: hash("mv = 1\n"),
                text: "mv = 2\n".into(),
                executable: None,
                encoding: Default::default(),
            },
            FileSystemEdit::SetExecutable {
                path: "run.sh".into(),
                base_hash: hash("echo\n"),
                executable: true,
            },
        ],
    }
}

/// Not a test on its own: the kill test runs it in a child process, with the root to
/// write in `APPLY_KILLED_CHILD_ROOT` and a pause before every step of the write.
#[test]
#[ignore = "run by mixed_changes_are_old_or_new_wherever_the_writer_is_killed"]
fn mixed_change_writer() {
    let root = std::env::var(CHILD_ROOT).expect("started by the kill test");
    let system = sextant::workspace::OsSystem::new(Path::new(&root).canonicalize().unwrap());
    sextant::workspace::apply_change(&system, &mixed_change(), 1 << 20).unwrap();
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Every path under `root`, directories with a trailing `/`.
fn tree(root: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .display()
                .to_string();
            if entry.file_type().unwrap().is_dir() {
                names.insert(format!("{name}/"));
                pending.push(entry.path());
            } else {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn mixed_changes_are_old_or_new_wherever_the_writer_is_killed() {
    use sextant::workspace::WritableSystem;
    // The name every temporary file of a write starts with.
    const TEMPORARY_PREFIX: &str = ".sextant-write-";
    let mut states = BTreeSet::new();
    // Every path new, and the executable bits set.
    let complete = mixed_files().len();
    // As above: each run is killed one pause later than the one before, until one finishes.
    for n in 0.. {
        assert!(n < 400, "no write finished: {states:?}");
        let delay = Duration::from_millis(n * PAUSE_MS);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, old, _) in mixed_files() {
            if let Some(old) = old {
                std::fs::write(root.join(path), old).unwrap();
            }
        }
        std::fs::set_permissions(
            root.join("run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o644),
        )
        .unwrap();
        let sources = names_in(&root);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "mixed_change_writer",
                "--ignored",
                "--test-threads=1",
            ])
            .env(CHILD_ROOT, &root)
            .env("SEXTANT_TEST_APPLY_STEP_PAUSE_MS", PAUSE_MS.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while names_in(&root) == sources && child.try_wait().unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no write began"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        let status = child.wait().unwrap();
        assert!(
            !finished || status.success(),
            "the writer failed: {status:?}"
        );

        // Each path holds its old content or its new one, whole.
        let mut new_files = 0;
        for (path, old, new) in mixed_files() {
            let text = std::fs::read_to_string(root.join(path)).ok();
            assert!(
                text.as_deref() == old || text.as_deref() == new,
                "{path} after a kill {delay:?} into the write: {text:?}"
            );
            new_files += usize::from(text.as_deref() == new && new != old);
        }
        // A moved file is at one of its paths at least.
        let tree_now = tree(&root);
        assert!(
            tree_now.contains("mv.py") || tree_now.contains("lib/mv.py"),
            "{tree_now:?}"
        );
        let executable = mode(&root.join("run.sh"));
        assert!(executable == 0o644 || executable == 0o755, "{executable:o}");
        new_files += usize::from(executable == 0o755);
        states.insert(new_files);

        // What a killed writer leaves besides (temporary files, directories it created,
        // empty or holding only those) goes once a write stages a file there again.
        let system = sextant::workspace::OsSystem::new(root.clone());
        for name in &tree_now {
            let is_temporary = Path::new(name)
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(TEMPORARY_PREFIX));
            assert!(
                is_temporary
                    || name.ends_with('/')
                    || mixed_files().iter().any(|(path, _, _)| path == name),
                "{name} after a kill {delay:?}"
            );
            if is_temporary {
                let probe = root.join(name).with_file_name("probe.py");
                drop(system.stage_new(&probe, b"", 0o644).unwrap());
            }
        }
        let left: Vec<String> = tree(&root)
            .into_iter()
            .filter(|name| name.contains(TEMPORARY_PREFIX))
            .collect();
        assert_eq!(left, Vec::<String>::new(), "after a kill {delay:?}");
        if finished {
            assert_eq!(new_files, complete, "{:?}", tree(&root));
            break;
        }
    }
    // Kills landed before, during and after the write's steps.
    assert!(states.contains(&0), "{states:?}");
    assert!(states.contains(&complete), "{states:?}");
    assert!(
        states.iter().any(|&n| n > 0 && n < complete),
        "no kill landed between two steps: {states:?}"
    );
}
