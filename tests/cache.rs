//! The persistent cache as a user meets it: the real binary run twice on one root, the
//! second run answering from what the first recorded, and every fault of the cache's file
//! ending in a rebuild with the same answers.

mod support;

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use serde_json::Value;
use support::{stderr, stdout, write_file};

/// What the cache is tested on: code of this repository's own (Rust, Python) and a small
/// TypeScript and Go project, so that every language's records are read back.
fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (from, to) in [("src/engine", "engine"), ("tests/oracle", "oracle")] {
        for entry in std::fs::read_dir(repo.join(from)).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rs" || e == "py") {
                let name = path.file_name().unwrap().to_string_lossy();
                write_file(
                    dir.path(),
                    &format!("{to}/{name}"),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    write_file(
        dir.path(),
        "web/shapes.ts",
        "export class Shape {\n  area(): number { return 0; }\n}\nexport function total(shapes: Shape[]) {\n  return shapes.map((s) => s.area());\n}\n",
    );
    write_file(
        dir.path(),
        "web/main.ts",
        "import { Shape, total } from './shapes';\nimport { missing } from './nowhere';\nconst unused = 1;\ntotal([new Shape()]);\n",
    );
    write_file(dir.path(), "go.mod", "module example.com/m\n\ngo 1.21\n");
    write_file(
        dir.path(),
        "cmd/main.go",
        "package main\n\nimport \"fmt\"\n\nfunc area(w int) int { return w * w }\n\nfunc main() {\n\tfmt.Println(area(2))\n}\n",
    );
    dir
}

/// `sextant ARGS` on `root` with the cache under `cache` (`None`: no cache).
fn run(root: &Path, cache: Option<&Path>, args: &[&str]) -> Output {
    run_with(root, cache, args, &[])
}

fn run_with(root: &Path, cache: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sextant"));
    command.current_dir(root).arg("--root").arg(root);
    match cache {
        Some(dir) => command.arg("--cache-dir").arg(dir),
        None => command.arg("--no-cache"),
    };
    command
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("sextant runs")
}

/// Commands whose answers come from every kind of record: symbols, names (definitions,
/// references, calls) and diagnostics.
const QUESTIONS: &[&[&str]] = &[
    &["check"],
    &["symbols", "search"],
    &["def", "sextant_calls"],
    &["refs", "Sources"],
    &["refs", "area"],
    &["calls", "total", "--incoming"],
    &["outline", "engine/search.rs"],
];

/// Every question's exit code, standard output and standard error.
fn answers(root: &Path, cache: Option<&Path>) -> Vec<(Option<i32>, String, String)> {
    QUESTIONS
        .iter()
        .map(|args| {
            let out = run(root, cache, args);
            (out.status.code(), stdout(&out), stderr(&out))
        })
        .collect()
}

/// `(used, computed, faults)` of `stats --json`'s cache counts.
fn counts(root: &Path, cache: &Path) -> (u64, u64, u64) {
    let out = run(root, Some(cache), &["stats", "--json"]);
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    let count = |name: &str| stats["cache"][name].as_u64().unwrap();
    (count("used"), count("computed"), count("faults"))
}

fn records_file(cache: &Path) -> PathBuf {
    let dirs: Vec<_> = std::fs::read_dir(cache).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 1, "one directory per root");
    dirs[0].path().join("records")
}

#[test]
fn a_warm_start_answers_exactly_as_a_cold_one() {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    let cold = answers(root.path(), None);
    assert!(cold.iter().all(|(_, out, _)| !out.is_empty()));
    let first = answers(root.path(), Some(cache.path()));
    let warm = answers(root.path(), Some(cache.path()));
    assert_eq!(first, cold);
    assert_eq!(warm, cold);
    assert_eq!(counts(root.path(), cache.path()), WARM_STATS);
}

/// Under a memory limit (or on a workspace of over 64 MiB of text) a cold index keeps each
/// text it is done with compressed where that saves a quarter or more (docs/memory.md), and
/// its answers read the texts back whole; a warm start, which reads every text only to hash
/// it, leaves them plain, and so does a small workspace without a limit.
#[test]
fn a_cold_index_under_a_memory_limit_keeps_texts_compressed() {
    let root = tempfile::tempdir().unwrap();
    let long: String = (0..300)
        .map(|i| format!("def f{i}(x):\n    return x * {i}\n\n"))
        .collect();
    let short = "x = 1\n";
    write_file(root.path(), "long.py", &long);
    write_file(root.path(), "short.py", short);
    let cache = tempfile::tempdir().unwrap();
    let kept = |cache, limit: &[&str]| {
        let args = [limit, &["stats", "--json"]].concat();
        json_of(&run(root.path(), cache, &args))["text_bytes_kept"].clone()
    };
    let limit: &[&str] = &["--max-memory", "4G"];
    let compressed = lz4_flex::block::compress(long.as_bytes()).len();
    assert!(
        compressed * 3 < long.len(),
        "{compressed} of {}",
        long.len()
    );
    let plain = long.len() + short.len();
    assert_eq!(kept(None, &[]), plain);
    // A text under 512 bytes stays plain.
    assert_eq!(kept(None, limit), compressed + short.len());
    assert_eq!(kept(Some(cache.path()), limit), compressed + short.len());
    assert_eq!(kept(Some(cache.path()), limit), plain);
    let out = run(
        root.path(),
        None,
        &["--max-memory", "4G", "symbols", "f299"],
    );
    assert!(stdout(&out).contains("long.py:898:5"), "{}", stdout(&out));
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// What a warm `stats` reads: the symbol index's one shard (the corpus has fewer than 256
/// files), whole, from one record, and nothing computed.
const WARM_STATS: (u64, u64, u64) = (1, 0, 0);

/// The corpus's source files.
fn file_count(root: &Path) -> u64 {
    let count = |dir: &str| std::fs::read_dir(root.join(dir)).unwrap().count() as u64;
    count("engine") + count("oracle") + count("web") + count("cmd")
}

#[test]
fn an_edited_file_is_analysed_again_and_the_others_come_from_records() {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    run(root.path(), Some(cache.path()), &["stats"]);
    write_file(
        root.path(),
        "web/shapes.ts",
        "export class Shape {\n  area(): number { return 1; }\n  perimeter(): number { return 0; }\n}\n",
    );
    // Loading computes the edited file's symbols and its shard of the symbol index, which
    // reads the other files' symbols from records.
    assert_eq!(
        counts(root.path(), cache.path()),
        (file_count(root.path()) - 1, 2, 0)
    );
    let out = run(root.path(), Some(cache.path()), &["symbols", "perimeter"]);
    assert_eq!(
        stdout(&out),
        stdout(&run(root.path(), None, &["symbols", "perimeter"]))
    );
    assert!(
        stdout(&out).contains("web/shapes.ts:3:3"),
        "{}",
        stdout(&out)
    );
}

/// Asks the questions on a cache whose file `damage` changed, and checks that the answers
/// are the cold ones and that the next round found a sound file again; returns the
/// warnings the damaged round printed.
fn damaged(damage: impl Fn(&mut Vec<u8>)) -> Vec<String> {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    let cold = answers(root.path(), None);
    answers(root.path(), Some(cache.path()));
    let file = records_file(cache.path());
    let mut bytes = std::fs::read(&file).unwrap();
    damage(&mut bytes);
    std::fs::write(&file, bytes).unwrap();

    let mut said = Vec::new();
    for (args, want) in QUESTIONS.iter().zip(&cold) {
        let out = run(root.path(), Some(cache.path()), args);
        assert_eq!((out.status.code(), stdout(&out)), (want.0, want.1.clone()));
        said.extend(
            stderr(&out)
                .lines()
                .filter(|l| l.contains("warning"))
                .map(String::from),
        );
    }
    assert_eq!(answers(root.path(), Some(cache.path())), cold);
    assert_eq!(
        counts(root.path(), cache.path()),
        WARM_STATS,
        "the file was rebuilt"
    );
    said
}

#[test]
fn a_truncated_cache_is_reported_once_and_rebuilt() {
    let said = damaged(|bytes| bytes.truncate(bytes.len() - 7));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("the file is cut short or its index is damaged"),
        "{said:?}"
    );
}

#[test]
fn flipped_bytes_are_reported_once_and_rebuilt() {
    // A byte of every record: whichever the first command reads is found out, and its save
    // leaves out every record that fails its checksum.
    let said = damaged(|bytes| {
        for at in record_starts(bytes) {
            bytes[at] ^= 0xff;
        }
    });
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("fails its checksum"), "{said:?}");
}

/// Where each record of a records file starts, from the index its footer locates (the
/// format is documented in `src/db/records.rs`).
fn record_starts(file: &[u8]) -> Vec<usize> {
    let footer = &file[file.len() - 20..];
    let index_at = u64::from_le_bytes(footer[..8].try_into().unwrap()) as usize;
    let count = u32::from_le_bytes(footer[8..12].try_into().unwrap()) as usize;
    assert!(count > 0);
    (0..count)
        .map(|i| {
            let entry = &file[index_at + i * 57..index_at + (i + 1) * 57];
            u64::from_le_bytes(entry[37..45].try_into().unwrap()) as usize
        })
        .collect()
}

#[test]
fn a_file_that_is_no_cache_is_reported_and_replaced() {
    let said = damaged(|bytes| bytes[..8].copy_from_slice(b"NOTACACH"));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("not a sextant cache file"), "{said:?}");
}

#[test]
fn a_cache_of_another_build_is_replaced_without_a_word() {
    let said = damaged(|bytes| {
        // The first byte of the build stamp, after the magic and the stamp's length.
        bytes[10] ^= 1;
    });
    assert_eq!(said, Vec::<String>::new());
}

#[test]
fn a_failed_save_is_reported_and_leaves_the_old_file_whole() {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    run(root.path(), Some(cache.path()), &["stats"]);
    let file = records_file(cache.path());
    let before = std::fs::read(&file).unwrap();
    // The next run computes names, which it then fails to save: the disk is full.
    let out = run_with(
        root.path(),
        Some(cache.path()),
        &["refs", "Sources"],
        &[("SEXTANT_TEST_CACHE_DISK_FULL", "1")],
    );
    assert_eq!(
        stdout(&out),
        stdout(&run(root.path(), None, &["refs", "Sources"]))
    );
    let said = stderr(&out);
    assert_eq!(
        said.matches("could not save the cache").count(),
        1,
        "{said}"
    );
    assert!(said.contains("No space left on device"), "{said}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(sorted(left), ["lock", "records"]);
}

#[test]
fn a_cache_directory_that_cannot_be_made_is_reported_and_answers_stay_right() {
    let root = corpus();
    let blocked = tempfile::tempdir().unwrap();
    // A file where the cache's directory would go.
    let cache = blocked.path().join("file");
    std::fs::write(&cache, "").unwrap();
    let out = run(root.path(), Some(&cache), &["symbols", "search"]);
    assert_eq!(
        stdout(&out),
        stdout(&run(root.path(), None, &["symbols", "search"]))
    );
    assert_eq!(
        stderr(&out).matches("could not save the cache").count(),
        1,
        "{}",
        stderr(&out)
    );
}

#[test]
fn processes_sharing_a_root_merge_what_they_record() {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    let cold = answers(root.path(), None);
    // Each question at once, each its own process on the one cache.
    let children: Vec<_> = QUESTIONS
        .iter()
        .map(|args| {
            Command::new(env!("CARGO_BIN_EXE_sextant"))
                .current_dir(root.path())
                .args(["--root", root.path().to_str().unwrap()])
                .arg("--cache-dir")
                .arg(cache.path())
                .args(*args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (child, want) in children.into_iter().zip(&cold) {
        let out = child.wait_with_output().unwrap();
        assert_eq!((out.status.code(), stdout(&out)), (want.0, want.1.clone()));
    }
    assert_eq!(answers(root.path(), Some(cache.path())), cold);
    assert_eq!(counts(root.path(), cache.path()), WARM_STATS);
}

#[test]
fn no_cache_writes_nothing() {
    let root = corpus();
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root.path())
        .args([
            "--root",
            root.path().to_str().unwrap(),
            "--no-cache",
            "stats",
        ])
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .unwrap();
    assert!(stdout(&out).contains("cache: off"), "{}", stdout(&out));
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    // Without flags, the cache is under $XDG_CACHE_HOME/sextant.
    let out = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root.path())
        .args(["--root", root.path().to_str().unwrap(), "stats"])
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains(&format!("{}", cache.path().join("sextant").display())),
        "{}",
        stdout(&out)
    );
    assert!(records_file(&cache.path().join("sextant")).is_file());
}

fn sorted(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list
}

#[test]
fn a_search_a_files_skeleton_or_imports_read_only_the_files_they_answer_from() {
    // `search` and `skeleton PATHS` load the workspace without indexing it: a search records
    // the symbols of the file it found in alone (for the definition around the hit), so a
    // later `stats` computes the other two files' and their shard; a skeleton reads its
    // file's tree and records nothing; a file's imports, its own summary and what it
    // imports from. An indexing command leaves nothing to compute.
    let root = tempfile::tempdir().unwrap();
    for (file, name) in [("a.py", "alpha"), ("b.py", "beta"), ("c.py", "gamma")] {
        write_file(root.path(), file, format!("def {name}():\n    pass\n"));
    }
    let searched = tempfile::tempdir().unwrap();
    let found = run(root.path(), Some(searched.path()), &["search", "def beta"]);
    assert_eq!(
        stdout(&found),
        "b.py\nin function beta, lines 1-2\n1:def beta():\n"
    );
    assert_eq!(counts(root.path(), searched.path()), (1, 3, 0));

    let skeleton = tempfile::tempdir().unwrap();
    let shown = run(root.path(), Some(skeleton.path()), &["skeleton", "c.py"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert_eq!(counts(root.path(), skeleton.path()), (0, 4, 0));

    let imports = tempfile::tempdir().unwrap();
    write_file(root.path(), "d.py", "from b import beta\n");
    let resolved = run(
        root.path(),
        Some(imports.path()),
        &["imports", "d.py", "--json"],
    );
    let resolved: Value = serde_json::from_slice(&resolved.stdout).unwrap();
    assert_eq!(
        (&resolved[0]["status"], &resolved[0]["path"]),
        (&Value::from("resolved"), &Value::from("b.py"))
    );
    assert_eq!(counts(root.path(), imports.path()), (2, 3, 0));
    std::fs::remove_file(root.path().join("d.py")).unwrap();

    let indexed = tempfile::tempdir().unwrap();
    run(root.path(), Some(indexed.path()), &["symbols", "beta"]);
    assert_eq!(counts(root.path(), indexed.path()), (1, 0, 0));
}
