//! A process killed while it writes a multi-file rename leaves every file either as it was
//! or as the rename made it, never half-written.
//!
//! `sextant rename --write` runs with a pause before each step of the write (staging each
//! new text, then renaming each over its file; `SEXTANT_TEST_APPLY_STEP_PAUSE_MS`), and is
//! killed at a different moment after its first temporary file appears, once per delay.

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
