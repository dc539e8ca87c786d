//! Writing a [`SourceChange`] to disk: every file or none.
//!
//! Invariant: a file is written only when its bytes on disk still hash to the text the
//! edit was computed from, are valid UTF-8, and its real path lies inside the root. Each
//! new text goes to a temporary file in the target's own directory, is synced, takes the
//! old file's permissions and is renamed over it, so a reader (or a crash) sees the old
//! file or the new one, never a mix. When a step fails after some files were replaced,
//! those files get their old bytes back the same way before the error is returned.
//! Edits are made to the text as it is, so line endings, a byte-order mark and the
//! encoding are whatever the file had. Every step goes through a [`WritableSystem`]: the
//! disk in use, a memory system (which can fail any step) in tests.

use std::{
    io,
    path::{Path, PathBuf},
};

use crate::ide::{ContentHash, EditError, ErrorCode, Failure, FileEdit, SourceChange};

use super::{reader::ReadRefusal, system::WritableSystem};

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The file's content is no longer the text the edit was computed from.
    #[error("{path} changed since the edit was computed; nothing was written")]
    Conflict { path: String },
    /// The file cannot be written by sextant (outside the root, not valid UTF-8, not a
    /// regular file, gone).
    #[error("{path}: {reason}; nothing was written")]
    Refused { path: String, reason: String },
    /// The edit itself is malformed (overlapping ranges).
    #[error("{0}; nothing was written")]
    BadEdit(EditError),
    /// Writing failed part-way; the files already replaced were restored (or, if that
    /// failed too, `restore_failures` lists them).
    #[error("writing {path} failed: {error}; {}", restored_message(.restore_failures))]
    Io {
        path: String,
        error: io::Error,
        restore_failures: Vec<String>,
    },
}

fn restored_message(failures: &[String]) -> String {
    if failures.is_empty() {
        "every file was left as it was".to_string()
    } else {
        format!("could not restore {}", failures.join(", "))
    }
}

impl Failure for ApplyError {
    fn code(&self) -> ErrorCode {
        match self {
            ApplyError::Conflict { .. } => ErrorCode::Conflict,
            ApplyError::Refused { .. } => ErrorCode::WriteRefused,
            ApplyError::BadEdit(_) => ErrorCode::InvalidEdit,
            ApplyError::Io { .. } => ErrorCode::WriteFailed,
        }
    }
}

/// What was written: each file's path and new content hash, in the change's order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Written {
    pub files: Vec<WrittenFile>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WrittenFile {
    pub path: String,
    pub new_hash: ContentHash,
    /// The text now on disk.
    #[serde(skip)]
    pub text: String,
}

/// Writes `change` to `system`: all files or none. Files are read with at most
/// `max_file_size` bytes, as the loader reads them.
pub fn apply_change(
    system: &dyn WritableSystem,
    change: &SourceChange,
    max_file_size: u64,
) -> Result<Written, ApplyError> {
    let files: Vec<&FileEdit> = change
        .files
        .iter()
        .filter(|file| !file.edits.is_empty())
        .collect();
    let mut planned: Vec<Plan> = Vec::with_capacity(files.len());
    for file in &files {
        let plan = plan(system, file, max_file_size)?;
        // Two paths to one file (a symlink): writing both would apply the edit twice.
        if let Some(first) = planned.iter().find(|p| p.real_path == plan.real_path) {
            if first.new_text == plan.new_text {
                continue;
            }
            return Err(ApplyError::Refused {
                path: plan.path,
                reason: format!("the same file as {}, edited differently", first.path),
            });
        }
        planned.push(plan);
    }

    // Every new text is on disk, synced, before any file is replaced.
    let mut staged = Vec::with_capacity(planned.len());
    for plan in &planned {
        pause_for_tests();
        match system.stage(&plan.real_path, plan.new_text.as_bytes()) {
            Ok(temporary) => staged.push(temporary),
            // Dropping `staged` removes the temporary files.
            Err(error) => {
                return Err(ApplyError::Io {
                    path: plan.path.clone(),
                    error,
                    restore_failures: Vec::new(),
                });
            }
        }
    }

    let mut replaced: Vec<&Plan> = Vec::new();
    for (plan, temporary) in planned.iter().zip(staged) {
        pause_for_tests();
        let outcome = recheck(system, plan, max_file_size)
            .and_then(|()| temporary.replace().map_err(|error| io_error(plan, error)));
        if let Err(error) = outcome {
            let restore_failures = restore(system, &replaced);
            return Err(match error {
                ApplyError::Io { path, error, .. } => ApplyError::Io {
                    path,
                    error,
                    restore_failures,
                },
                other if restore_failures.is_empty() => other,
                other => ApplyError::Io {
                    path: plan.path.clone(),
                    error: io::Error::other(other.to_string()),
                    restore_failures,
                },
            });
        }
        replaced.push(plan);
    }
    for plan in &planned {
        system.sync_directory(&plan.real_path);
    }
    Ok(Written {
        files: planned
            .into_iter()
            .map(|plan| WrittenFile {
                path: plan.path,
                new_hash: ContentHash::of(plan.new_text.as_bytes()),
                text: plan.new_text,
            })
            .collect(),
    })
}

/// One file's write, decided before anything is written.
struct Plan {
    path: String,
    real_path: PathBuf,
    old_bytes: Vec<u8>,
    base_hash: ContentHash,
    new_text: String,
}

/// For the test that kills a writing process part-way (`tests/apply_killed.rs`): a pause
/// before every step, so that a kill can land between any two of them.
fn pause_for_tests() {
    if let Some(pause) = crate::testing::hooks().apply_step_pause {
        std::thread::sleep(pause);
    }
}

fn plan(
    system: &dyn WritableSystem,
    file: &FileEdit,
    max_file_size: u64,
) -> Result<Plan, ApplyError> {
    let refused = |reason: String| ApplyError::Refused {
        path: file.path.clone(),
        reason,
    };
    let relative = Path::new(&file.path);
    if relative.is_absolute()
        || relative
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(refused("not a plain workspace-relative path".to_string()));
    }
    let content = system
        .read(&system.root().join(relative), max_file_size)
        .map_err(|refusal| refused(refusal.to_string()))?;
    // Before the hash: the index holds such a file decoded lossily, so an edit computed
    // from it never matches the bytes, and the refusal must say why, not `CONFLICT`.
    let Ok(text) = std::str::from_utf8(&content.bytes) else {
        return Err(refused(
            "not valid UTF-8, so sextant never writes it".to_string(),
        ));
    };
    if ContentHash::of(&content.bytes) != file.base_hash {
        return Err(ApplyError::Conflict {
            path: file.path.clone(),
        });
    }
    let new_text = file.apply(text).map_err(ApplyError::BadEdit)?;
    if let Some(reason) = system.write_protection(&content.real_path) {
        return Err(refused(reason));
    }
    Ok(Plan {
        path: file.path.clone(),
        real_path: content.real_path,
        base_hash: file.base_hash,
        old_bytes: content.bytes,
        new_text,
    })
}

/// The file must still hold the text the edit was computed from just before it is
/// replaced: an editor may have saved it while the others were being staged.
fn recheck(system: &dyn WritableSystem, plan: &Plan, max_file_size: u64) -> Result<(), ApplyError> {
    match system.read(&plan.real_path, max_file_size) {
        Ok(content) if ContentHash::of(&content.bytes) == plan.base_hash => Ok(()),
        Ok(_) | Err(ReadRefusal::TooLarge { .. }) => Err(ApplyError::Conflict {
            path: plan.path.clone(),
        }),
        Err(refusal) => Err(ApplyError::Refused {
            path: plan.path.clone(),
            reason: refusal.to_string(),
        }),
    }
}

fn io_error(plan: &Plan, error: io::Error) -> ApplyError {
    ApplyError::Io {
        path: plan.path.clone(),
        error,
        restore_failures: Vec::new(),
    }
}

/// Puts the old bytes back into each replaced file; the paths it could not restore.
fn restore(system: &dyn WritableSystem, replaced: &[&Plan]) -> Vec<String> {
    replaced
        .iter()
        .rev()
        .filter(|plan| {
            system
                .stage(&plan.real_path, &plan.old_bytes)
                .and_then(|temporary| temporary.replace())
                .is_err()
        })
        .map(|plan| plan.path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::{LineIndex, Span, TextEdit, TextRange};
    use crate::workspace::{ApplyStep, MemorySystem, OsSystem, System};
    use std::fs;

    fn disk(root: &Path) -> OsSystem {
        OsSystem::new(root.to_path_buf())
    }

    fn replace(path: &str, base: &str, from: &str, to: &str) -> FileEdit {
        let start = base.find(from).unwrap() as u32;
        let range = TextRange::new(start.into(), (start + from.len() as u32).into());
        let edit = TextEdit {
            range: Span::new(&LineIndex::new(base.into()), range),
            new_text: to.to_string(),
        };
        FileEdit::new(path, base, vec![edit])
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        (dir, root)
    }

    fn read(root: &Path, path: &str) -> String {
        fs::read_to_string(root.join(path)).unwrap()
    }

    const LIMIT: u64 = 1 << 20;

    #[test]
    fn every_file_is_written_and_keeps_crlf_bom_and_permissions() {
        let a = "\u{feff}def f():\r\n    return 1\r\n";
        let (_dir, root) = workspace(&[("a.py", a), ("pkg/b.py", "from a import f\n")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(root.join("a.py"), fs::Permissions::from_mode(0o751)).unwrap();
        }
        let change = SourceChange {
            files: vec![
                replace("a.py", a, "f(", "g("),
                replace("pkg/b.py", "from a import f\n", "f\n", "g\n"),
            ],
            file_system: Vec::new(),
        };
        let applied = apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(applied.files.len(), 2);
        assert_eq!(read(&root, "a.py"), "\u{feff}def g():\r\n    return 1\r\n");
        assert_eq!(read(&root, "pkg/b.py"), "from a import g\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(root.join("a.py"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o751);
        }
        let leftovers: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.starts_with(".sextant-write-"))
            .collect();
        assert_eq!(leftovers, Vec::<String>::new());
    }

    #[test]
    fn a_file_changed_since_the_edit_was_computed_stops_every_write() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("b.py", "y = 1\n")]);
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "z"),
                replace("b.py", "y = 0\n", "y", "z"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "CONFLICT");
        assert_eq!(
            error.to_string(),
            "b.py changed since the edit was computed; nothing was written"
        );
        assert_eq!(read(&root, "a.py"), "x = 1\n");
    }

    fn memory(files: &[(&str, &str)]) -> MemorySystem {
        let system = MemorySystem::new("/ws");
        for (path, text) in files {
            system.write(path, text);
        }
        system
    }

    fn read_memory(system: &MemorySystem, path: &str) -> String {
        let content = system.read(&system.path(path), LIMIT).unwrap();
        String::from_utf8(content.bytes).unwrap()
    }

    #[test]
    fn a_failure_at_any_step_leaves_every_file_as_it_was() {
        let files = [
            ("a.py", "a = 1\n"),
            ("b.py", "b = 1\n"),
            ("c.py", "c = 1\n"),
        ];
        let change = SourceChange {
            files: files
                .iter()
                .map(|(path, text)| replace(path, text, "1", "2"))
                .collect(),
            file_system: Vec::new(),
        };
        let steps = (0..3).flat_map(|n| [ApplyStep::WriteTemporary(n), ApplyStep::Replace(n)]);
        for step in steps {
            let system = memory(&files);
            system.fail_at(step, "disk full");
            let error = apply_change(&system, &change, LIMIT).unwrap_err();
            assert_eq!(error.code().as_str(), "WRITE_FAILED", "{step:?}");
            let failed = ["a.py", "b.py", "c.py"][match step {
                ApplyStep::WriteTemporary(n) | ApplyStep::Replace(n) => n,
            }];
            assert_eq!(
                error.to_string(),
                format!("writing {failed} failed: disk full; every file was left as it was"),
                "{step:?}"
            );
            for (path, text) in files {
                assert_eq!(read_memory(&system, path), text, "{path} after {step:?}");
            }
        }
        let system = memory(&files);
        apply_change(&system, &change, LIMIT).unwrap();
        assert_eq!(read_memory(&system, "b.py"), "b = 2\n");
    }

    #[test]
    fn a_read_only_file_in_memory_is_refused_before_anything_is_written() {
        let system = memory(&[("a.py", "x = 1\n"), ("ro.py", "x = 1\n")]);
        system.set_read_only("ro.py");
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "y"),
                replace("ro.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&system, &change, LIMIT).unwrap_err();
        assert_eq!(error.to_string(), "ro.py: read-only; nothing was written");
        assert_eq!(read_memory(&system, "a.py"), "x = 1\n");
    }

    #[test]
    fn invalid_utf8_and_paths_leaving_the_root_are_refused() {
        let (_dir, root) = workspace(&[("a.py", "x = 1\n")]);
        fs::write(root.join("bad.py"), b"x = '\xff'\n").unwrap();
        // An edit computed from the text the index holds (decoded lossily), as a rename
        // through the file computes it; a regression: this was refused as a `CONFLICT`.
        let lossy = "x = '\u{fffd}'\n";
        let change = SourceChange {
            files: vec![replace("bad.py", lossy, "x", "y")],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        let change = SourceChange {
            files: vec![FileEdit {
                base_hash: ContentHash::of(b"x = '\xff'\n"),
                ..replace("bad.py", lossy, "x", "y")
            }],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        assert_eq!(
            error.to_string(),
            "bad.py: not valid UTF-8, so sextant never writes it; nothing was written"
        );
        let escape = SourceChange {
            files: vec![replace("../a.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        assert_eq!(
            apply_change(&disk(&root), &escape, LIMIT)
                .unwrap_err()
                .code()
                .as_str(),
            "WRITE_REFUSED"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_written_through_its_link() {
        let (_dir, root) = workspace(&[("real.py", "x = 1\n")]);
        std::os::unix::fs::symlink(root.join("real.py"), root.join("link.py")).unwrap();
        let change = SourceChange {
            files: vec![replace("link.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        apply_change(&disk(&root), &change, LIMIT).unwrap();
        assert_eq!(read(&root, "real.py"), "y = 1\n");
        assert!(
            fs::symlink_metadata(root.join("link.py"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn two_paths_to_one_file_write_it_once() {
        let (_dir, root) = workspace(&[("real.py", "x = 1\n")]);
        std::os::unix::fs::symlink("real.py", root.join("link.py")).unwrap();
        let same = SourceChange {
            files: vec![
                replace("link.py", "x = 1\n", "x", "y"),
                replace("real.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        apply_change(&disk(&root), &same, LIMIT).unwrap();
        assert_eq!(read(&root, "real.py"), "y = 1\n");
        let different = SourceChange {
            files: vec![
                replace("link.py", "y = 1\n", "y", "a"),
                replace("real.py", "y = 1\n", "1", "2"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &different, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "real.py: the same file as link.py, edited differently; nothing was written"
        );
        assert_eq!(read(&root, "real.py"), "y = 1\n");
    }

    #[test]
    fn read_only_files_and_files_with_hard_links_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, root) = workspace(&[("a.py", "x = 1\n"), ("ro.py", "x = 1\n")]);
        fs::set_permissions(root.join("ro.py"), fs::Permissions::from_mode(0o444)).unwrap();
        let change = SourceChange {
            files: vec![
                replace("a.py", "x = 1\n", "x", "y"),
                replace("ro.py", "x = 1\n", "x", "y"),
            ],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(error.code().as_str(), "WRITE_REFUSED");
        assert_eq!(
            error.to_string(),
            "ro.py: read-only (mode 444); nothing was written"
        );
        assert_eq!(read(&root, "a.py"), "x = 1\n");

        fs::hard_link(root.join("a.py"), root.join("b.py")).unwrap();
        let change = SourceChange {
            files: vec![replace("a.py", "x = 1\n", "x", "y")],
            file_system: Vec::new(),
        };
        let error = apply_change(&disk(&root), &change, LIMIT).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a.py: it has 2 hard links, which replacing it would break; nothing was written"
        );
        assert_eq!(read(&root, "b.py"), "x = 1\n");
    }
}
