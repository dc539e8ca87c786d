//! Writes a caller named (`operation_id`), remembered so that a retry answers the first
//! result instead of writing again, even from another process after a crash.
//!
//! Invariant: an operation's record is on disk (synced, then renamed into place) before its
//! write starts, holding what each file it touches holds before and will hold after. So a
//! retry, whatever interrupted the first call (a lost answer, a killed process), finds:
//! - a finished record: its answer is replayed and nothing is written;
//! - a pending one whose files all hold what they held before: the write did not happen,
//!   and it is made now;
//! - a pending one whose files all hold what the write gives them: it happened, the record
//!   is finished and its answer replayed;
//! - anything else (a writer killed between two files, or a file changed since):
//!   `CONFLICT`, naming the files, and nothing is written.
//!
//! Records live beside the root's cache (`operations/` in the cache directory), the newest
//! [`REMEMBERED`] kept; with the cache off they live in memory, for the process's life.
//! A record that cannot be read is taken as absent.

use std::{
    collections::{BTreeMap, VecDeque},
    fs, io,
    io::Write as _,
    path::{Path, PathBuf},
    sync::Mutex,
};

use serde::{Deserialize, Serialize};

use super::{ApplyError, Written, cache::CacheSetting};
use crate::ide::{ContentHash, ErrorCode, Failure, FileText, PatchOutcome};

/// How many operations a root remembers.
pub const REMEMBERED: usize = 256;

/// What a file holds: its content hash in hex, `None` when there is no file.
pub type Held = Option<String>;

/// What each file of an operation holds before and after it, by workspace-relative path.
pub type FileStates = BTreeMap<String, (Held, Held)>;

/// One operation, as remembered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationRecord {
    pub id: String,
    /// Names the request (its front end, the patch and its options): a retry must repeat
    /// it exactly.
    pub request: String,
    pub finished: bool,
    pub files: FileStates,
    /// The answer to give again, as its front end shaped it.
    pub answer: serde_json::Value,
}

impl OperationRecord {
    /// The record of operation `id` about to make the patch whose outcome is `outcome`,
    /// answering `answer` if it is cut off and found written.
    pub fn pending(
        id: &str,
        request: &str,
        outcome: &PatchOutcome,
        answer: serde_json::Value,
    ) -> OperationRecord {
        OperationRecord {
            id: id.to_string(),
            request: request.to_string(),
            finished: false,
            files: file_states(outcome),
            answer,
        }
    }
}

/// Why a named write did not happen: its record could not be stored, or the write failed.
#[derive(Debug, thiserror::Error)]
pub enum RecordedWriteError {
    #[error(transparent)]
    Record(#[from] OperationError),
    #[error(transparent)]
    Write(#[from] ApplyError),
}

impl Failure for RecordedWriteError {
    fn code(&self) -> ErrorCode {
        match self {
            RecordedWriteError::Record(error) => error.code(),
            RecordedWriteError::Write(error) => error.code(),
        }
    }
}

/// What a new call with an operation id is to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Retry {
    /// The id is new, or its write never happened: make it.
    Write,
    /// The write was made: answer this again.
    Replay(serde_json::Value),
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OperationError {
    #[error("operation_id {0:?} was used for another request")]
    OtherRequest(String),
    #[error(
        "operation_id {id:?} was interrupted part-way (written: {}; its other files are as \
         they were); nothing was written",
        .written.join(", ")
    )]
    PartlyWritten { id: String, written: Vec<String> },
    #[error(
        "operation_id {id:?} was interrupted, and {} changed since; nothing was written",
        .files.join(", ")
    )]
    ChangedSince { id: String, files: Vec<String> },
    #[error("could not record operation_id {id:?}: {error}; nothing was written")]
    Record { id: String, error: String },
}

impl Failure for OperationError {
    fn code(&self) -> ErrorCode {
        match self {
            OperationError::OtherRequest(_) => ErrorCode::InvalidArgument,
            OperationError::PartlyWritten { .. } | OperationError::ChangedSince { .. } => {
                ErrorCode::Conflict
            }
            OperationError::Record { .. } => ErrorCode::WriteFailed,
        }
    }
}

/// The operations of one root.
pub struct Operations {
    /// `None`: kept in `memory`.
    dir: Option<PathBuf>,
    memory: Mutex<VecDeque<OperationRecord>>,
    /// Held by a named write from its retry check to its last record: a retry sent while
    /// the first call still runs waits for it, and then replays it, instead of racing it
    /// (the loser's failure would otherwise forget the winner's record).
    turn: Mutex<()>,
}

impl Operations {
    /// The operations of `root` kept under `setting`'s cache directory (in memory when the
    /// cache is off).
    pub fn open(setting: &CacheSetting, root: &Path) -> Operations {
        Operations {
            dir: setting.root_dir(Some("operations"), root),
            memory: Mutex::default(),
            turn: Mutex::default(),
        }
    }

    /// This process's turn to check, write and record a named operation.
    pub fn turn(&self) -> std::sync::MutexGuard<'_, ()> {
        self.turn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What a call naming operation `id` for `request` is to do; `current` gives each
    /// path's content hash now (`None`: no file).
    pub fn retry(
        &self,
        id: &str,
        request: &str,
        current: impl Fn(&[&str]) -> BTreeMap<String, Held>,
    ) -> Result<Retry, OperationError> {
        let Some(record) = self.find(id) else {
            return Ok(Retry::Write);
        };
        if record.request != request {
            return Err(OperationError::OtherRequest(id.to_string()));
        }
        if record.finished {
            return Ok(Retry::Replay(record.answer));
        }
        let paths: Vec<&str> = record.files.keys().map(String::as_str).collect();
        let now = current(&paths);
        let holds = |side: fn(&(Held, Held)) -> &Held| {
            let none = None;
            (record.files.iter())
                .all(|(path, states)| now.get(path).unwrap_or(&none) == side(states))
        };
        // Before first: a write that changes no text (a mode alone) is made again.
        if holds(|(before, _)| before) {
            return Ok(Retry::Write);
        }
        if holds(|(_, after)| after) {
            let mut finished = record.clone();
            finished.finished = true;
            let _ = self.store(&finished);
            return Ok(Retry::Replay(record.answer));
        }
        let holding = |want: fn(&Held, &Held, &Held) -> bool| {
            (record.files.iter())
                .filter(|(path, (before, after))| {
                    want(&now.get(*path).cloned().flatten(), before, after)
                })
                .map(|(path, _)| path.clone())
                .collect::<Vec<String>>()
        };
        let id = id.to_string();
        let changed = holding(|found, before, after| found != before && found != after);
        if !changed.is_empty() {
            return Err(OperationError::ChangedSince { id, files: changed });
        }
        let written = holding(|found, before, after| found == after && found != before);
        Err(OperationError::PartlyWritten { id, written })
    }

    /// Makes the write `pending` names with `write`: the record stored first, then, once
    /// written, stored finished with the answer `answer` gives for what was written; when
    /// the write fails having written nothing, the record is forgotten.
    pub fn write_recorded(
        &self,
        mut pending: OperationRecord,
        write: impl FnOnce() -> Result<Written, ApplyError>,
        answer: impl FnOnce(&Written) -> serde_json::Value,
    ) -> Result<Written, RecordedWriteError> {
        self.store(&pending)?;
        let written = write().inspect_err(|error| {
            if error.wrote_nothing() {
                self.forget(&pending.id);
            }
        })?;
        pending.finished = true;
        pending.answer = answer(&written);
        // A pending record whose files all hold what it wrote replays as well.
        let _ = self.store(&pending);
        Ok(written)
    }

    /// Remembers `record` (pending, before its write, or finished after it): on disk,
    /// synced, before this returns.
    pub fn store(&self, record: &OperationRecord) -> Result<(), OperationError> {
        let Some(dir) = &self.dir else {
            let mut memory = self.memory.lock().unwrap();
            memory.retain(|known| known.id != record.id);
            if memory.len() == REMEMBERED {
                memory.pop_front();
            }
            memory.push_back(record.clone());
            return Ok(());
        };
        write_record(dir, record).map_err(|error| OperationError::Record {
            id: record.id.clone(),
            error: error.to_string(),
        })?;
        forget_oldest(dir);
        Ok(())
    }

    /// Forgets operation `id` (its write failed and wrote nothing).
    pub fn forget(&self, id: &str) {
        match &self.dir {
            Some(dir) => {
                let _ = fs::remove_file(record_path(dir, id));
            }
            None => self.memory.lock().unwrap().retain(|known| known.id != id),
        }
    }

    fn find(&self, id: &str) -> Option<OperationRecord> {
        let Some(dir) = &self.dir else {
            let memory = self.memory.lock().unwrap();
            return memory.iter().find(|known| known.id == id).cloned();
        };
        let bytes = fs::read(record_path(dir, id)).ok()?;
        let record: OperationRecord = serde_json::from_slice(&bytes).ok()?;
        (record.id == id).then_some(record)
    }
}

/// What each file a patch touches holds before and after it.
fn file_states(outcome: &PatchOutcome) -> FileStates {
    let hash = |text: &str, file: &crate::ide::FileOutcome| {
        let bytes = file.encoding.encode(text).ok()?;
        Some(ContentHash::of(&bytes).to_hex())
    };
    let mut states = FileStates::new();
    for file in &outcome.files {
        let before = file.old_text.as_deref().and_then(|old| hash(old, file));
        let after = file.new_text.as_deref().and_then(|new| hash(new, file));
        match &file.new_path {
            Some(to) => {
                states.insert(file.path.clone(), (before, None));
                states.insert(to.clone(), (None, after));
            }
            None => {
                states.insert(file.path.clone(), (before, after));
            }
        }
    }
    states
}

/// The content hash of each of `texts`' files, `None` for each of `paths` not among them.
pub fn hashes_now(paths: &[&str], texts: &BTreeMap<String, FileText>) -> BTreeMap<String, Held> {
    (paths.iter())
        .map(|path| {
            let hash = texts
                .get(*path)
                .map(|t| ContentHash::of(&t.bytes()).to_hex());
            (path.to_string(), hash)
        })
        .collect()
}

fn record_path(dir: &Path, id: &str) -> PathBuf {
    let name = blake3::hash(id.as_bytes()).to_hex();
    dir.join(format!("{}.json", &name.as_str()[..32]))
}

/// Writes `record` to a synced temporary file renamed over its path: a reader finds the old
/// record or the new one, never part of one.
fn write_record(dir: &Path, record: &OperationRecord) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let path = record_path(dir, &record.id);
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(&serde_json::to_vec(record).map_err(io::Error::other)?)?;
    temporary.as_file().sync_all()?;
    temporary.persist(&path).map_err(|e| e.error)?;
    if let Ok(directory) = fs::File::open(dir) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// Removes the oldest records beyond [`REMEMBERED`].
fn forget_oldest(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut records: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "json"))
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .collect();
    if records.len() <= REMEMBERED {
        return;
    }
    records.sort();
    for (_, path) in &records[..records.len() - REMEMBERED] {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(text: &str) -> Option<String> {
        Some(ContentHash::of(text.as_bytes()).to_hex())
    }

    /// An operation that edits `a.py` (1 → 2) and creates `b.py`.
    fn pending(id: &str) -> OperationRecord {
        let files = FileStates::from([
            ("a.py".to_string(), (hash("x = 1\n"), hash("x = 2\n"))),
            ("b.py".to_string(), (None, hash("y = 1\n"))),
        ]);
        OperationRecord {
            id: id.into(),
            request: "patch 1".into(),
            finished: false,
            files,
            answer: serde_json::json!({"applied": true}),
        }
    }

    fn disk(
        a: Option<&str>,
        b: Option<&str>,
    ) -> impl Fn(&[&str]) -> BTreeMap<String, Option<String>> {
        let now = BTreeMap::from([
            ("a.py".to_string(), a.and_then(hash)),
            ("b.py".to_string(), b.and_then(hash)),
        ]);
        move |_: &[&str]| now.clone()
    }

    fn each_kind_of_store(check: impl Fn(&Operations)) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        check(&Operations::open(&CacheSetting::Off, &root));
        check(&Operations::open(
            &CacheSetting::In(dir.path().into()),
            &root,
        ));
    }

    #[test]
    fn a_pending_operation_is_judged_by_what_its_files_hold() {
        each_kind_of_store(|operations| {
            let record = pending("op");
            operations.store(&record).unwrap();
            let replay = Retry::Replay(record.answer.clone());
            // Nothing written: write it.
            let none = operations.retry("op", "patch 1", disk(Some("x = 1\n"), None));
            assert_eq!(none, Ok(Retry::Write));
            // Part-way: refused, naming the file that is neither.
            let part = operations.retry("op", "patch 1", disk(Some("x = 2\n"), None));
            let part = part.unwrap_err();
            assert_eq!(
                part.to_string(),
                "operation_id \"op\" was interrupted part-way (written: a.py; its other files \
                 are as they were); nothing was written"
            );
            assert_eq!(part.code(), ErrorCode::Conflict);
            let changed = operations.retry("op", "patch 1", disk(Some("x = 3\n"), None));
            assert_eq!(
                changed,
                Err(OperationError::ChangedSince {
                    id: "op".into(),
                    files: vec!["a.py".into()]
                })
            );
            assert_eq!(
                operations.retry("op", "patch 2", disk(None, None)),
                Err(OperationError::OtherRequest("op".into()))
            );
            // Written: replayed, and the record is finished, whatever the files hold later.
            let all = operations.retry("op", "patch 1", disk(Some("x = 2\n"), Some("y = 1\n")));
            assert_eq!(all, Ok(replay.clone()));
            let later = operations.retry("op", "patch 1", disk(Some("x = 1\n"), None));
            assert_eq!(later, Ok(replay));
            operations.forget("op");
            let forgotten = operations.retry("op", "patch 2", disk(None, None));
            assert_eq!(forgotten, Ok(Retry::Write));
        });
    }

    #[test]
    fn the_newest_operations_are_kept_and_a_damaged_record_is_absent() {
        each_kind_of_store(|operations| {
            for n in 0..REMEMBERED + 3 {
                let mut record = pending(&format!("op-{n}"));
                record.finished = true;
                operations.store(&record).unwrap();
                if let Some(dir) = &operations.dir
                    && n < 3
                {
                    // The oldest by modification time go first.
                    let then = std::time::SystemTime::UNIX_EPOCH
                        + std::time::Duration::from_secs(n as u64);
                    let file = fs::File::options()
                        .write(true)
                        .open(record_path(dir, &record.id));
                    file.unwrap().set_modified(then).unwrap();
                }
            }
            let any = disk(None, None);
            for n in [0, 1, 2] {
                let id = format!("op-{n}");
                assert_eq!(
                    operations.retry(&id, "patch 1", &any),
                    Ok(Retry::Write),
                    "{id}"
                );
            }
            let kept = operations.retry("op-3", "patch 1", &any);
            assert!(matches!(kept, Ok(Retry::Replay(_))), "{kept:?}");
            if let Some(dir) = &operations.dir {
                fs::write(record_path(dir, "op-3"), b"{\"id\": \"op-3\", trunc").unwrap();
                assert_eq!(operations.retry("op-3", "patch 1", &any), Ok(Retry::Write));
            }
        });
    }
}
