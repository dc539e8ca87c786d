//! Test support: rust-analyzer style fixtures and snapshot files.
//!
//! A fixture is one string holding several files, each introduced by a `//- path` line:
//!
//! ```text
//! //- src/lib.rs
//! fn main() {}
//! //- pkg/mod.py
//! def f(): $0pass
//! ```
//!
//! `$0` marks a cursor; it is removed from the text and its byte offset recorded. The one
//! parser is [`fixture`]; the `ide` fixture tests and the fixture files on disk share it.
#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use sextant::{
    ide::SymbolQuery,
    lang::registry,
    workspace::{
        Host, LoadedFile,
        live::{LiveWorkspace, RequestCancel, Snapshot},
    },
};

/// `path:name` of every symbol matching `query` in the live workspace (read-your-writes).
pub fn symbol_names(live: &LiveWorkspace, query: &str) -> Vec<String> {
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

pub mod fixture;

pub use fixture::FixtureFile;

/// The files of a fixture file on disk (see [`fixture`]; it starts with a `//-` line).
pub fn parse_fixture(text: &str) -> Vec<FixtureFile> {
    fixture::parse(text, fixture::DEFAULT_PATH)
}

/// A database over the fixture's files; the language comes from each path.
pub fn host(files: &[FixtureFile]) -> Host {
    Host::from_files(PathBuf::from("/fixture"), loaded(files))
}

pub fn loaded(files: &[FixtureFile]) -> Vec<LoadedFile> {
    files
        .iter()
        .map(|f| {
            let lang = registry()
                .for_path(Path::new(&f.path), Some(f.text.as_bytes()))
                .unwrap_or_else(|| panic!("{}: no language for this path", f.path));
            LoadedFile {
                path: f.path.clone(),
                lang: lang.lang_id,
                text: f.text.as_str().into(),
                lossy_utf8: false,
                real_path: None,
            }
        })
        .collect()
}

/// Compares `actual` with the snapshot file, or rewrites it when `UPDATE_SNAPSHOTS=1`.
/// A missing snapshot is written and the test fails, so new snapshots get reviewed.
pub fn assert_snapshot(path: &Path, actual: &str) {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => {}
        Ok(_) | Err(_) if update => std::fs::write(path, actual).unwrap(),
        Ok(expected) => panic!(
            "snapshot {} differs (rerun with UPDATE_SNAPSHOTS=1 to accept)\n{}",
            path.display(),
            diff(&expected, actual)
        ),
        Err(_) => {
            std::fs::write(path, actual).unwrap();
            panic!(
                "snapshot {} was missing and has been written; review it and rerun",
                path.display()
            );
        }
    }
}

fn diff(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    for i in 0..e.len().max(a.len()) {
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("-{:4} {x}\n", i + 1));
                }
                if let Some(y) = y {
                    out.push_str(&format!("+{:4} {y}\n", i + 1));
                }
            }
        }
    }
    out
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs the binary in `root` with `--root root`, so relative paths name the workspace's
/// files, never this repository's.
pub fn sextant(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("sextant runs")
}

/// Writes `contents` to `root/rel`, creating its directories.
pub fn write_file(root: &Path, rel: &str, contents: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

pub fn read_file(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}
