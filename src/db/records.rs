//! Results an earlier process computed, kept between runs (the persistent cache), as the
//! database sees them: records of bytes looked up by a key.
//!
//! Invariant: a record is the encoding of what its computation returns for the inputs its
//! key was hashed from (the build in the file's header, then the computation's kind and its
//! inputs' bytes), so using one changes how fast an answer comes, never what it is. Every
//! record carries a checksum over its kind, key and bytes, checked before it is used; a
//! record that fails it, or a file that ends inside a record, is a fault: counted for the
//! layer that reads the file to report once, and the result is computed again. This layer
//! touches no disk: `workspace/cache.rs` reads and writes the file.
//!
//! The file: [`MAGIC`], the build stamp (a `u16` length, then its bytes), then records to
//! the end, each `kind: u8, key: [u8; 32], generation: u32, len: u32, checksum: [u8; 8]`
//! and `len` bytes. A record's generation is the save in which it was last written or
//! used; a save over the size cap drops the oldest generations first.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

/// The build whose records a file holds: records of another build are never read.
pub const BUILD_STAMP: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SEXTANT_BUILD_STAMP"));

const MAGIC: &[u8; 8] = b"SXRECS01";
const RECORD_HEADER: usize = 1 + 32 + 4 + 4 + 8;

/// What a record holds; part of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RecordKind {
    /// `semantic::symbols::file_symbols` of one file.
    FileSymbols = 1,
    /// `checks::file_diagnostics` of one file in one whole workspace.
    FileDiagnostics = 2,
    /// `semantic::names::file_names` of one file.
    FileNames = 3,
    /// `semantic::names::identifiers::file_identifiers` of one file.
    FileIdentifiers = 4,
}

/// A hash of everything a record's computation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordKey([u8; 32]);

impl RecordKey {
    /// The key of `kind`'s result over `parts`, each hashed with its length so that no two
    /// different lists of parts share a key.
    pub fn new(kind: RecordKind, parts: &[&[u8]]) -> RecordKey {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&[kind as u8]);
        for part in parts {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        RecordKey(*hasher.finalize().as_bytes())
    }
}

fn checksum(kind: u8, key: &RecordKey, bytes: &[u8]) -> [u8; 8] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&[kind]);
    hasher.update(&key.0);
    hasher.update(bytes);
    hasher.finalize().as_bytes()[..8].try_into().unwrap()
}

/// A record read from the file, not yet checked.
struct Stored {
    kind: u8,
    generation: u32,
    start: usize,
    len: usize,
    checksum: [u8; 8],
}

/// What became of a file when it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// No file, or an empty one.
    Absent,
    /// A file of this build (some records may still fail their checksums when read).
    Read,
    /// A cache written by another build of sextant: ignored, replaced at the next save.
    OtherBuild,
    /// Not a cache file, or one cut inside its header: ignored, replaced at the next save.
    Corrupt(String),
}

/// How a run used its records, for `stats` and the logs.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RecordCounts {
    /// Results taken from records.
    pub used: usize,
    /// Results computed and recorded.
    pub computed: usize,
    /// Records that failed their checksum or decoding, or were cut off: computed again.
    pub faults: usize,
}

/// The records of one workspace: those read from its file, and those this process computed.
pub struct RecordStore {
    file: Vec<u8>,
    stored: HashMap<RecordKey, Stored>,
    generation: u32,
    state: FileState,
    used: Mutex<HashSet<RecordKey>>,
    fresh: Mutex<HashMap<RecordKey, (RecordKind, Vec<u8>)>>,
    faults: Mutex<Vec<String>>,
    hits: AtomicUsize,
    /// The hash of the first whole workspace whose results were asked for (see
    /// [`RecordStore::is_first_workspace`]).
    first_workspace: std::sync::OnceLock<[u8; 32]>,
    /// How many fresh records and faults the last save covered.
    saved: Mutex<Option<(usize, usize)>>,
}

impl RecordStore {
    /// A store with no records read.
    pub fn empty() -> RecordStore {
        RecordStore::read(Vec::new())
    }

    /// The records of `file`, a cache file's bytes. Never fails: what cannot be read is
    /// left out and said in [`RecordStore::state`] and [`RecordStore::faults`].
    pub fn read(file: Vec<u8>) -> RecordStore {
        let mut store = RecordStore {
            file: Vec::new(),
            stored: HashMap::new(),
            generation: 0,
            state: FileState::Absent,
            used: Mutex::default(),
            fresh: Mutex::default(),
            faults: Mutex::default(),
            hits: AtomicUsize::new(0),
            saved: Mutex::default(),
            first_workspace: std::sync::OnceLock::new(),
        };
        if file.is_empty() {
            return store;
        }
        let Some(records_start) = header_end(&file) else {
            store.state = FileState::Corrupt("not a sextant cache file".to_string());
            return store;
        };
        if &file[MAGIC.len() + 2..records_start] != BUILD_STAMP.as_bytes() {
            store.state = FileState::OtherBuild;
            return store;
        }
        store.state = FileState::Read;
        let mut at = records_start;
        while at < file.len() {
            if file.len() - at < RECORD_HEADER {
                store.fault(format!(
                    "the file ends inside a record's header at byte {at}"
                ));
                break;
            }
            let kind = file[at];
            let key = RecordKey(file[at + 1..at + 33].try_into().unwrap());
            let generation = u32::from_le_bytes(file[at + 33..at + 37].try_into().unwrap());
            let len = u32::from_le_bytes(file[at + 37..at + 41].try_into().unwrap()) as usize;
            let checksum = file[at + 41..at + 49].try_into().unwrap();
            let start = at + RECORD_HEADER;
            if file.len() - start < len {
                store.fault(format!("the file ends inside a record at byte {start}"));
                break;
            }
            store.generation = store.generation.max(generation);
            store.stored.insert(
                key,
                Stored {
                    kind,
                    generation,
                    start,
                    len,
                    checksum,
                },
            );
            at = start + len;
        }
        store.file = file;
        store
    }

    pub fn state(&self) -> &FileState {
        &self.state
    }

    /// Whether any record was read (a warm start).
    pub fn holds_records(&self) -> bool {
        !self.stored.is_empty()
    }

    /// The bytes recorded for `key`, if a record of it was read and passes its checksum,
    /// or was put by this process.
    pub fn get(&self, key: &RecordKey) -> Option<Vec<u8>> {
        if let Some((_, bytes)) = self.fresh.lock().unwrap().get(key) {
            return Some(bytes.clone());
        }
        let stored = self.stored.get(key)?;
        let bytes = &self.file[stored.start..stored.start + stored.len];
        if checksum(stored.kind, key, bytes) != stored.checksum {
            self.fault(format!(
                "a record at byte {} fails its checksum",
                stored.start
            ));
            return None;
        }
        self.used.lock().unwrap().insert(*key);
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(bytes.to_vec())
    }

    /// Whether `workspace` (a hash of a whole workspace's inputs) is the first one this
    /// store was asked about. Results that depend on the whole workspace are recorded for
    /// that one only: the state a process started in is the one the next start is likely to
    /// find again, while recording every later state would record every file again at each
    /// edit.
    pub fn is_first_workspace(&self, workspace: [u8; 32]) -> bool {
        *self.first_workspace.get_or_init(|| workspace) == workspace
    }

    /// Records `bytes` as the result for `key`, to be written at the next save.
    pub fn put(&self, kind: RecordKind, key: RecordKey, bytes: Vec<u8>) {
        self.fresh.lock().unwrap().insert(key, (kind, bytes));
    }

    /// Notes a record that could not be used (the decoding of a checked record failed).
    pub fn fault(&self, what: String) {
        self.faults.lock().unwrap().push(what);
    }

    /// What could not be read, in the order it was found.
    pub fn faults(&self) -> Vec<String> {
        self.faults.lock().unwrap().clone()
    }

    pub fn counts(&self) -> RecordCounts {
        RecordCounts {
            used: self.hits.load(Ordering::Relaxed),
            computed: self.fresh.lock().unwrap().len(),
            faults: self.faults.lock().unwrap().len(),
        }
    }

    /// Whether a save would write anything the file lacks: new records, or a file to
    /// replace (corrupt, of another build, or with a faulty record).
    pub fn has_news(&self) -> bool {
        let now = (
            self.fresh.lock().unwrap().len(),
            self.faults.lock().unwrap().len(),
        );
        match *self.saved.lock().unwrap() {
            Some(saved) => now != saved,
            None => {
                now != (0, 0) || matches!(self.state, FileState::OtherBuild | FileState::Corrupt(_))
            }
        }
    }

    /// Notes that a save wrote everything there is so far.
    pub fn mark_saved(&self) {
        let now = (
            self.fresh.lock().unwrap().len(),
            self.faults.lock().unwrap().len(),
        );
        *self.saved.lock().unwrap() = Some(now);
    }

    /// The file to save: this process's records and those it used, then the others read
    /// from the file and from `newer` (what another process saved meanwhile), newest
    /// generation first, as many as fit in `cap` bytes. Records failing their checksum are
    /// left out.
    pub fn encode(&self, newer: Option<&RecordStore>, cap: usize) -> Vec<u8> {
        let generation = self
            .generation
            .max(newer.map_or(0, |n| n.generation))
            .saturating_add(1);
        let fresh = self.fresh.lock().unwrap();
        let used = self.used.lock().unwrap();
        let mut seen: HashSet<RecordKey> = HashSet::new();
        let mut records: Vec<(u8, RecordKey, u32, &[u8])> = Vec::new();
        for (key, (kind, bytes)) in fresh.iter() {
            seen.insert(*key);
            records.push((*kind as u8, *key, generation, bytes));
        }
        for store in std::iter::once(self).chain(newer) {
            for (key, stored) in &store.stored {
                let bytes = &store.file[stored.start..stored.start + stored.len];
                if seen.contains(key) || checksum(stored.kind, key, bytes) != stored.checksum {
                    continue;
                }
                seen.insert(*key);
                let age = if used.contains(key) {
                    generation
                } else {
                    stored.generation
                };
                records.push((stored.kind, *key, age, bytes));
            }
        }
        // Newest first; the key orders ties so that one set of records is one file.
        records.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.0.cmp(&b.1.0)));
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(BUILD_STAMP.len() as u16).to_le_bytes());
        out.extend_from_slice(BUILD_STAMP.as_bytes());
        for (kind, key, age, bytes) in records {
            if out.len() + RECORD_HEADER + bytes.len() > cap {
                break;
            }
            out.push(kind);
            out.extend_from_slice(&key.0);
            out.extend_from_slice(&age.to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(&checksum(kind, &key, bytes));
            out.extend_from_slice(bytes);
        }
        out
    }
}

/// Where the records of `file` start, if it begins with the magic and a whole stamp.
fn header_end(file: &[u8]) -> Option<usize> {
    if file.len() < MAGIC.len() + 2 || &file[..MAGIC.len()] != MAGIC {
        return None;
    }
    let stamp_len = u16::from_le_bytes(file[MAGIC.len()..MAGIC.len() + 2].try_into().unwrap());
    let end = MAGIC.len() + 2 + stamp_len as usize;
    (end <= file.len()).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> RecordKey {
        RecordKey::new(RecordKind::FileSymbols, &[&[n]])
    }

    fn saved(records: &[(u8, &[u8])]) -> Vec<u8> {
        let store = RecordStore::empty();
        for &(n, bytes) in records {
            store.put(RecordKind::FileSymbols, key(n), bytes.to_vec());
        }
        store.encode(None, usize::MAX)
    }

    #[test]
    fn saved_records_read_back() {
        let store = RecordStore::read(saved(&[(1, b"one"), (2, b"two")]));
        assert_eq!(store.state(), &FileState::Read);
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        assert_eq!(store.get(&key(2)).as_deref(), Some(&b"two"[..]));
        assert_eq!(store.get(&key(3)), None);
        assert_eq!(
            store.counts(),
            RecordCounts {
                used: 2,
                computed: 0,
                faults: 0
            }
        );
        assert!(!store.has_news());
    }

    #[test]
    fn keys_hash_each_part_with_its_length() {
        let kind = RecordKind::FileSymbols;
        assert_ne!(
            RecordKey::new(kind, &[b"ab", b"c"]),
            RecordKey::new(kind, &[b"a", b"bc"])
        );
        assert_ne!(
            RecordKey::new(kind, &[b"a"]),
            RecordKey::new(RecordKind::FileDiagnostics, &[b"a"])
        );
    }

    #[test]
    fn every_flipped_byte_is_a_fault_or_harmless_never_a_wrong_record() {
        let file = saved(&[(1, b"one"), (2, b"two")]);
        for at in 0..file.len() {
            let mut flipped = file.clone();
            flipped[at] ^= 0x40;
            let store = RecordStore::read(flipped);
            for (n, want) in [(1, &b"one"[..]), (2, &b"two"[..])] {
                if let Some(got) = store.get(&key(n)) {
                    assert_eq!(got, want, "byte {at} flipped");
                }
            }
        }
    }

    #[test]
    fn every_truncation_keeps_the_whole_records_before_it() {
        let file = saved(&[(1, b"one"), (2, b"two")]);
        for len in 0..file.len() {
            let store = RecordStore::read(file[..len].to_vec());
            let whole = (1..=2).filter(|&n| store.get(&key(n)).is_some()).count();
            let header = MAGIC.len() + 2 + BUILD_STAMP.len();
            let expected = if len < header {
                0
            } else {
                (len - header) / (RECORD_HEADER + 3)
            };
            assert_eq!(whole, expected, "cut at {len}");
            if len > header && !(len - header).is_multiple_of(RECORD_HEADER + 3) {
                assert_eq!(store.counts().faults, 1, "cut at {len}");
                assert!(store.has_news());
            }
        }
    }

    #[test]
    fn another_builds_file_is_not_read() {
        let mut file = saved(&[(1, b"one")]);
        let stamp_at = MAGIC.len() + 2;
        file[stamp_at] ^= 1;
        let store = RecordStore::read(file);
        assert_eq!(store.state(), &FileState::OtherBuild);
        assert_eq!(store.get(&key(1)), None);
        assert!(store.has_news());
    }

    #[test]
    fn a_save_over_the_cap_keeps_the_newest_generations() {
        let older = RecordStore::read(saved(&[(1, b"old")]));
        older.put(RecordKind::FileSymbols, key(2), b"new".to_vec());
        let header = MAGIC.len() + 2 + BUILD_STAMP.len();
        let one_record = header + RECORD_HEADER + 3;
        let store = RecordStore::read(older.encode(None, one_record));
        assert_eq!(store.get(&key(2)).as_deref(), Some(&b"new"[..]));
        assert_eq!(store.get(&key(1)), None);
    }

    #[test]
    fn a_record_used_in_a_run_outlives_older_unused_ones() {
        let first = RecordStore::read(saved(&[(1, b"one"), (2, b"two")]));
        first.get(&key(2));
        first.put(RecordKind::FileSymbols, key(3), b"new".to_vec());
        let header = MAGIC.len() + 2 + BUILD_STAMP.len();
        let two_records = header + 2 * (RECORD_HEADER + 3);
        let store = RecordStore::read(first.encode(None, two_records));
        assert_eq!(store.get(&key(1)), None);
        assert!(store.get(&key(2)).is_some() && store.get(&key(3)).is_some());
    }

    #[test]
    fn a_save_merges_what_another_process_saved_meanwhile() {
        let ours = RecordStore::read(saved(&[(1, b"one")]));
        ours.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        let theirs = RecordStore::read(saved(&[(3, b"three")]));
        let merged = RecordStore::read(ours.encode(Some(&theirs), usize::MAX));
        for n in 1..=3 {
            assert!(merged.get(&key(n)).is_some(), "record {n}");
        }
    }
}
