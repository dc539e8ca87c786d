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
        Mutex, RwLock,
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

/// The records of a file, as read (not yet checked).
#[derive(Default)]
struct Records {
    file: Vec<u8>,
    stored: HashMap<RecordKey, Stored>,
    generation: u32,
}

impl Records {
    /// The records of `file`, what became of it, and the faults found reading it.
    fn parse(file: Vec<u8>) -> (Records, FileState, Vec<String>) {
        let mut records = Records::default();
        let mut faults = Vec::new();
        if file.is_empty() {
            return (records, FileState::Absent, faults);
        }
        let Some(records_start) = header_end(&file) else {
            let why = "not a sextant cache file".to_string();
            return (records, FileState::Corrupt(why), faults);
        };
        if &file[MAGIC.len() + 2..records_start] != BUILD_STAMP.as_bytes() {
            return (records, FileState::OtherBuild, faults);
        }
        let mut at = records_start;
        while at < file.len() {
            if file.len() - at < RECORD_HEADER {
                faults.push(format!(
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
                faults.push(format!("the file ends inside a record at byte {start}"));
                break;
            }
            records.generation = records.generation.max(generation);
            let stored = Stored {
                kind,
                generation,
                start,
                len,
                checksum,
            };
            records.stored.insert(key, stored);
            at = start + len;
        }
        records.file = file;
        (records, FileState::Read, faults)
    }

    /// The bytes of `stored`, when they pass its checksum.
    fn checked(&self, key: &RecordKey, stored: &Stored) -> Option<&[u8]> {
        let bytes = &self.file[stored.start..stored.start + stored.len];
        (checksum(stored.kind, key, bytes) == stored.checksum).then_some(bytes)
    }
}

/// The records of one workspace: those of its file (as read, then as last saved), and
/// those this process computed since.
pub struct RecordStore {
    read: RwLock<Records>,
    state: FileState,
    used: Mutex<HashSet<RecordKey>>,
    /// Computed and not yet saved. After a save they are read back from what was written,
    /// so that a long-running server holds each record once, not every one it ever made.
    fresh: Mutex<HashMap<RecordKey, (RecordKind, Vec<u8>)>>,
    faults: Mutex<Vec<String>>,
    hits: AtomicUsize,
    computed: AtomicUsize,
    /// The number of faults the last save covered (`None`: never saved).
    saved_faults: Mutex<Option<usize>>,
    /// The hash of the first whole workspace whose results were asked for (see
    /// [`RecordStore::is_first_workspace`]).
    first_workspace: std::sync::OnceLock<[u8; 32]>,
}

impl RecordStore {
    /// A store with no records read.
    pub fn empty() -> RecordStore {
        RecordStore::read(Vec::new())
    }

    /// The records of `file`, a cache file's bytes. Never fails: what cannot be read is
    /// left out and said in [`RecordStore::state`] and [`RecordStore::faults`].
    pub fn read(file: Vec<u8>) -> RecordStore {
        let (records, state, faults) = Records::parse(file);
        RecordStore {
            read: RwLock::new(records),
            state,
            used: Mutex::default(),
            fresh: Mutex::default(),
            faults: Mutex::new(faults),
            hits: AtomicUsize::new(0),
            computed: AtomicUsize::new(0),
            saved_faults: Mutex::default(),
            first_workspace: std::sync::OnceLock::new(),
        }
    }

    /// What became of the file when it was first read.
    pub fn state(&self) -> &FileState {
        &self.state
    }

    /// Whether any record was read (a warm start).
    pub fn holds_records(&self) -> bool {
        !self.read.read().unwrap().stored.is_empty()
    }

    /// The bytes recorded for `key`, if a record of it was read and passes its checksum,
    /// or was put by this process.
    pub fn get(&self, key: &RecordKey) -> Option<Vec<u8>> {
        if let Some((_, bytes)) = self.fresh.lock().unwrap().get(key) {
            return Some(bytes.clone());
        }
        let read = self.read.read().unwrap();
        let stored = read.stored.get(key)?;
        let Some(bytes) = read.checked(key, stored) else {
            self.fault(format!(
                "a record at byte {} fails its checksum",
                stored.start
            ));
            return None;
        };
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
        if self
            .fresh
            .lock()
            .unwrap()
            .insert(key, (kind, bytes))
            .is_none()
        {
            self.computed.fetch_add(1, Ordering::Relaxed);
        }
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
            computed: self.computed.load(Ordering::Relaxed),
            faults: self.faults.lock().unwrap().len(),
        }
    }

    /// Whether a save would write anything the file lacks: new records, or a file to
    /// replace (corrupt, of another build, or with a faulty record).
    pub fn has_news(&self) -> bool {
        let faults = self.faults.lock().unwrap().len();
        if !self.fresh.lock().unwrap().is_empty() {
            return true;
        }
        match *self.saved_faults.lock().unwrap() {
            Some(saved) => faults != saved,
            None => {
                faults > 0 || matches!(self.state, FileState::OtherBuild | FileState::Corrupt(_))
            }
        }
    }

    /// Takes `file`, what a save just wrote (from [`RecordStore::encode`]), as the records
    /// read: this process's fresh records are now among them.
    pub fn saved(&self, file: Vec<u8>) {
        let (records, _, _) = Records::parse(file);
        // Hold `fresh` while swapping, so that no record is in neither place for a reader.
        let mut fresh = self.fresh.lock().unwrap();
        *self.read.write().unwrap() = records;
        fresh.clear();
        self.used.lock().unwrap().clear();
        *self.saved_faults.lock().unwrap() = Some(self.faults.lock().unwrap().len());
    }

    /// The file to save: this process's records and those it used, then the others read
    /// from the file and from `newer` (what another process saved meanwhile), newest
    /// generation first, as many as fit in `cap` bytes. Records failing their checksum are
    /// left out.
    pub fn encode(&self, newer: Option<&RecordStore>, cap: usize) -> Vec<u8> {
        let read = self.read.read().unwrap();
        let newer_read = newer.map(|n| n.read.read().unwrap());
        let generation = read
            .generation
            .max(newer_read.as_ref().map_or(0, |n| n.generation))
            .saturating_add(1);
        let fresh = self.fresh.lock().unwrap();
        let used = self.used.lock().unwrap();
        let mut seen: HashSet<RecordKey> = HashSet::new();
        let mut records: Vec<(u8, RecordKey, u32, &[u8])> = Vec::new();
        for (key, (kind, bytes)) in fresh.iter() {
            seen.insert(*key);
            records.push((*kind as u8, *key, generation, bytes));
        }
        for source in std::iter::once(&*read).chain(newer_read.as_deref()) {
            for (key, stored) in &source.stored {
                let Some(bytes) = source.checked(key, stored) else {
                    continue;
                };
                if !seen.insert(*key) {
                    continue;
                }
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
    fn after_a_save_its_records_are_read_from_what_was_written() {
        let store = RecordStore::empty();
        store.put(RecordKind::FileSymbols, key(1), b"one".to_vec());
        assert!(store.has_news());
        store.saved(store.encode(None, usize::MAX));
        assert!(!store.has_news());
        assert!(store.fresh.lock().unwrap().is_empty());
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        assert_eq!(store.counts().computed, 1);
        store.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        assert!(store.has_news());
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
