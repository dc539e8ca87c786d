//! Results an earlier process computed, kept between runs (the persistent cache), as the
//! database sees them: records of bytes looked up by a key.
//!
//! Invariant: a record is the encoding of what its computation returns for the inputs its
//! key was hashed from (the build in the file's header, then the computation's kind and its
//! inputs' bytes), so using one changes how fast an answer comes, never what it is. Every
//! record carries a checksum over its kind, key and bytes, checked before it is used; a
//! record that fails it, or cannot be read, is a fault: counted for the layer that reads
//! the file to report once, and the result is computed again. This layer touches no disk:
//! it reads through a [`RecordFile`] that `workspace/cache.rs` opens, and writes to what it
//! is given.
//!
//! The file: [`MAGIC`], the build stamp (a `u16` length, then its bytes), every record's
//! bytes back to back, then the index (per record `kind: u8, key: [u8; 32], generation:
//! u32, offset: u64, len: u32, checksum: [u8; 8]`), then a footer (`index offset: u64,
//! records: u32, index checksum: [u8; 8]`). Opening a file reads its header, footer and
//! index only, and each record is read when it is first asked for: a warm start that
//! needs a few records reads a few, whatever the file's size. A record's generation is
//! the save in which it was last written or used; a save over the size cap drops the
//! oldest generations first.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Mutex, RwLock,
        atomic::{AtomicUsize, Ordering},
    },
};

/// The build whose records a file holds: records of another build are never read.
pub const BUILD_STAMP: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("SEXTANT_BUILD_STAMP"));

const MAGIC: &[u8; 8] = b"SXRECS02";
const INDEX_ENTRY: usize = 1 + 32 + 4 + 8 + 4 + 8;
const FOOTER: usize = 8 + 4 + 8;

/// A cache file's bytes, read at offsets (a file opened once, or bytes in memory).
pub trait RecordFile: Send + Sync {
    fn size(&self) -> u64;
    /// The `len` bytes at `offset`, or `None` when they cannot all be read.
    fn read_at(&self, offset: u64, len: usize) -> Option<Vec<u8>>;
}

impl RecordFile for Vec<u8> {
    fn size(&self) -> u64 {
        self.as_slice().len() as u64
    }

    fn read_at(&self, offset: u64, len: usize) -> Option<Vec<u8>> {
        let start = usize::try_from(offset).ok()?;
        self.get(start..start.checked_add(len)?).map(<[u8]>::to_vec)
    }
}

/// What a record holds; part of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RecordKind {
    /// `semantic::symbols::file_symbols` of one file.
    FileSymbols = 1,
    /// `checks::file_diagnostics` of one file, under every input its check can read.
    FileDiagnostics = 2,
    /// `semantic::names::file_names` of one file.
    FileNames = 3,
    /// `semantic::names::identifiers::file_identifiers` of one file.
    FileIdentifiers = 4,
    /// `semantic::index::symbol_shard`: the symbol index over some consecutive files.
    SymbolShard = 5,
    /// `semantic::names::identifiers::identifier_shard`: the identifier index over some
    /// consecutive files.
    IdentifierShard = 6,
    /// `ide::scip::first_doc_lines` of one file: the first line of each definition's
    /// documentation, which for Python's docstrings needs the file's tree.
    DocLines = 7,
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

/// A record the file's index lists, its bytes not yet read.
struct Stored {
    kind: u8,
    generation: u32,
    offset: u64,
    len: u32,
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

/// The records of a file, as its index lists them.
struct Records {
    file: Box<dyn RecordFile>,
    stored: HashMap<RecordKey, Stored>,
    generation: u32,
}

impl Records {
    fn none() -> Records {
        Records {
            file: Box::new(Vec::new()),
            stored: HashMap::new(),
            generation: 0,
        }
    }

    /// The records `file` lists and what became of it.
    fn open(file: Box<dyn RecordFile>) -> (Records, FileState) {
        let len = file.size();
        if len == 0 {
            return (Records::none(), FileState::Absent);
        }
        let corrupt = |why: &str| (Records::none(), FileState::Corrupt(why.to_string()));
        let Some(header) = file.read_at(0, (MAGIC.len() + 2).min(len as usize)) else {
            return corrupt("the cache file cannot be read");
        };
        if header.len() < MAGIC.len() + 2 || &header[..MAGIC.len()] != MAGIC {
            return corrupt("not a sextant cache file");
        }
        let stamp_len = u16::from_le_bytes([header[MAGIC.len()], header[MAGIC.len() + 1]]);
        let records_start = (MAGIC.len() + 2) as u64 + u64::from(stamp_len);
        match file.read_at((MAGIC.len() + 2) as u64, stamp_len as usize) {
            Some(stamp) if stamp == BUILD_STAMP.as_bytes() => {}
            Some(_) => return (Records::none(), FileState::OtherBuild),
            None => return corrupt("not a sextant cache file"),
        }
        let cut = "the file is cut short or its index is damaged";
        let Some(index_end) = len
            .checked_sub(FOOTER as u64)
            .filter(|&e| e >= records_start)
        else {
            return corrupt(cut);
        };
        let Some(footer) = file.read_at(index_end, FOOTER) else {
            return corrupt(cut);
        };
        let index_offset = u64::from_le_bytes(footer[..8].try_into().unwrap());
        let count = u32::from_le_bytes(footer[8..12].try_into().unwrap()) as u64;
        let sound = index_offset >= records_start
            && count.checked_mul(INDEX_ENTRY as u64) == index_end.checked_sub(index_offset);
        let index = sound
            .then(|| file.read_at(index_offset, (index_end - index_offset) as usize))
            .flatten();
        let Some(index) = index.filter(|index| index_checksum(index) == footer[12..20]) else {
            return corrupt(cut);
        };
        let mut records = Records::none();
        for entry in index.chunks_exact(INDEX_ENTRY) {
            let key = RecordKey(entry[1..33].try_into().unwrap());
            let generation = u32::from_le_bytes(entry[33..37].try_into().unwrap());
            let stored = Stored {
                kind: entry[0],
                generation,
                offset: u64::from_le_bytes(entry[37..45].try_into().unwrap()),
                len: u32::from_le_bytes(entry[45..49].try_into().unwrap()),
                checksum: entry[49..57].try_into().unwrap(),
            };
            records.generation = records.generation.max(generation);
            records.stored.insert(key, stored);
        }
        records.file = file;
        (records, FileState::Read)
    }

    /// The bytes of `stored`, when they can be read and pass its checksum.
    fn checked(&self, key: &RecordKey, stored: &Stored) -> Result<Vec<u8>, String> {
        let Some(bytes) = self.file.read_at(stored.offset, stored.len as usize) else {
            return Err(format!("a record at byte {} cannot be read", stored.offset));
        };
        if checksum(stored.kind, key, &bytes) != stored.checksum {
            return Err(format!(
                "a record at byte {} fails its checksum",
                stored.offset
            ));
        }
        Ok(bytes)
    }
}

fn index_checksum(index: &[u8]) -> [u8; 8] {
    blake3::hash(index).as_bytes()[..8].try_into().unwrap()
}

type Fresh = HashMap<RecordKey, (RecordKind, Vec<u8>)>;

/// The records of one workspace: those of its file (as read, then as last saved), and
/// those this process computed since.
pub struct RecordStore {
    read: RwLock<Records>,
    state: FileState,
    /// Records of the file read that were used since the last save began.
    used: Mutex<HashSet<RecordKey>>,
    /// Computed and not yet being saved. After a save they are read back from what was
    /// written, so that a long-running server holds each record once, not every one it
    /// ever made.
    fresh: Mutex<Fresh>,
    /// Computed records taken for a save ([`RecordStore::take_for_save`]), until it has
    /// written them: queries read and record while it writes. After a failed save they
    /// wait here for the next one.
    saving: RwLock<Fresh>,
    /// The keys of `saving` the save under way writes.
    writing: Mutex<Vec<RecordKey>>,
    faults: Mutex<Vec<String>>,
    hits: AtomicUsize,
    computed: AtomicUsize,
    /// The number of faults the last save covered (`None`: never saved).
    saved_faults: Mutex<Option<usize>>,
    /// Per scope, the hash of the first state of its inputs whose results were asked for
    /// (see [`RecordStore::is_first_state`]).
    first_states: Mutex<HashMap<&'static str, [u8; 32]>>,
    /// No file has changed since the workspace was loaded (see [`RecordStore::at_start`]).
    at_start: std::sync::atomic::AtomicBool,
}

impl RecordStore {
    /// A store with no records read.
    pub fn empty() -> RecordStore {
        RecordStore::read(Box::new(Vec::new()))
    }

    /// The records `file` lists (only its index is read now). Never fails: what cannot be
    /// read is left out and said in [`RecordStore::state`] and [`RecordStore::faults`].
    pub fn read(file: Box<dyn RecordFile>) -> RecordStore {
        let (records, state) = Records::open(file);
        RecordStore {
            read: RwLock::new(records),
            state,
            used: Mutex::default(),
            fresh: Mutex::default(),
            saving: RwLock::default(),
            writing: Mutex::default(),
            faults: Mutex::default(),
            hits: AtomicUsize::new(0),
            computed: AtomicUsize::new(0),
            saved_faults: Mutex::default(),
            first_states: Mutex::default(),
            at_start: std::sync::atomic::AtomicBool::new(true),
        }
    }

    /// Whether the workspace's files are still those it was loaded with. Results over many
    /// files (the indexes' shards) are read from records only then: their keys hash every
    /// text they cover, so reading one makes a query depend on texts it would otherwise see
    /// only through position-free per-file results (`semantic::persisted::recorded_shard`).
    pub fn at_start(&self) -> bool {
        self.at_start.load(Ordering::Relaxed)
    }

    /// Notes that a file was added, changed or removed since the load.
    pub fn leave_start(&self) {
        self.at_start.store(false, Ordering::Relaxed);
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
        // In the order a save moves records (`fresh`, then `saving`, then the file it
        // wrote), so that no record is in a place already looked at.
        if let Some((_, bytes)) = self.fresh.lock().unwrap().get(key) {
            return Some(bytes.clone());
        }
        if let Some((_, bytes)) = self.saving.read().unwrap().get(key) {
            return Some(bytes.clone());
        }
        let read = self.read.read().unwrap();
        let stored = read.stored.get(key)?;
        match read.checked(key, stored) {
            Ok(bytes) => {
                self.used.lock().unwrap().insert(*key);
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(bytes)
            }
            Err(fault) => {
                self.fault(fault);
                None
            }
        }
    }

    /// Whether `state` (a hash of the inputs that results of `scope` depend on, such as
    /// those a check of one language family reads) is the first state of `scope` this store
    /// was asked about. Results over many files' inputs are recorded for that state only:
    /// the state a process started in is the one the next start is likely to find again,
    /// while recording every later state would record every file of the scope again at
    /// each edit.
    pub fn is_first_state(&self, scope: &'static str, state: [u8; 32]) -> bool {
        *self
            .first_states
            .lock()
            .unwrap()
            .entry(scope)
            .or_insert(state)
            == state
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

    /// Takes the records computed so far for the next save ([`RecordStore::write`]); those
    /// computed later wait for the save after it.
    pub fn take_for_save(&self) {
        let mut fresh = self.fresh.lock().unwrap();
        self.saving.write().unwrap().extend(fresh.drain());
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
        !self.fresh.lock().unwrap().is_empty() || self.has_taken_news()
    }

    /// Whether a save of what [`RecordStore::take_for_save`] took would write anything the
    /// file lacks.
    pub fn has_taken_news(&self) -> bool {
        let faults = self.faults.lock().unwrap().len();
        if !self.saving.read().unwrap().is_empty() {
            return true;
        }
        match *self.saved_faults.lock().unwrap() {
            Some(saved) => faults != saved,
            None => {
                faults > 0 || matches!(self.state, FileState::OtherBuild | FileState::Corrupt(_))
            }
        }
    }

    /// Takes `file`, what a save just wrote (with [`RecordStore::write`]), as the records
    /// read: the records that save wrote are now among them. Records computed while it
    /// wrote stay for the next save.
    pub fn saved(&self, file: Box<dyn RecordFile>) {
        let (records, _) = Records::open(file);
        // The file first, then `saving` emptied of what it holds: a reader looks in that
        // order.
        *self.read.write().unwrap() = records;
        let written = std::mem::take(&mut *self.writing.lock().unwrap());
        let mut saving = self.saving.write().unwrap();
        for key in written {
            saving.remove(&key);
        }
        drop(saving);
        *self.saved_faults.lock().unwrap() = Some(self.faults.lock().unwrap().len());
    }

    /// Writes the file to save to `out`: this process's records and those it used, then
    /// the others read from the file and from `newer` (what another process saved
    /// meanwhile), newest generation first, as many as fit in `cap` bytes. Records that
    /// cannot be read or fail their checksum are left out. This process's records are
    /// those [`RecordStore::take_for_save`] took: queries go on reading and recording
    /// meanwhile, for the next save. One save at a time (the caller's to ensure, as
    /// `workspace/cache.rs` does).
    pub fn write(
        &self,
        newer: Option<&RecordStore>,
        cap: usize,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let used = std::mem::take(&mut *self.used.lock().unwrap());
        let read = self.read.read().unwrap();
        let newer_read = newer.map(|n| n.read.read().unwrap());
        let generation = read
            .generation
            .max(newer_read.as_ref().map_or(0, |n| n.generation))
            .saturating_add(1);
        let fresh = self.saving.read().unwrap();
        *self.writing.lock().unwrap() = fresh.keys().copied().collect();
        // Where a record's bytes are: in memory, or in one of the files read.
        enum Source<'a> {
            Fresh(&'a [u8]),
            Stored(&'a Records, &'a Stored),
        }
        let mut seen: HashSet<RecordKey> = HashSet::new();
        let mut records: Vec<(u8, RecordKey, u32, usize, Source<'_>)> = Vec::new();
        for (key, (kind, bytes)) in fresh.iter() {
            seen.insert(*key);
            let source = Source::Fresh(bytes);
            records.push((*kind as u8, *key, generation, bytes.len(), source));
        }
        for source in std::iter::once(&*read).chain(newer_read.as_deref()) {
            for (key, stored) in &source.stored {
                if !seen.insert(*key) {
                    continue;
                }
                let age = if used.contains(key) {
                    generation
                } else {
                    stored.generation
                };
                let len = stored.len as usize;
                records.push((stored.kind, *key, age, len, Source::Stored(source, stored)));
            }
        }
        // Newest first; the key orders ties so that one set of records is one file.
        records.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.0.cmp(&b.1.0)));
        let mut at = MAGIC.len() + 2 + BUILD_STAMP.len();
        out.write_all(MAGIC)?;
        out.write_all(&(BUILD_STAMP.len() as u16).to_le_bytes())?;
        out.write_all(BUILD_STAMP.as_bytes())?;
        let mut index = Vec::new();
        for (kind, key, age, len, source) in records {
            if at + len + (index.len() / INDEX_ENTRY + 1) * INDEX_ENTRY + FOOTER > cap {
                break;
            }
            let stored_bytes;
            let (bytes, sum) = match source {
                Source::Fresh(bytes) => (bytes, checksum(kind, &key, bytes)),
                Source::Stored(records, stored) => match records.checked(&key, stored) {
                    Ok(bytes) => {
                        stored_bytes = bytes;
                        (stored_bytes.as_slice(), stored.checksum)
                    }
                    Err(_) => continue,
                },
            };
            out.write_all(bytes)?;
            index.push(kind);
            index.extend_from_slice(&key.0);
            index.extend_from_slice(&age.to_le_bytes());
            index.extend_from_slice(&(at as u64).to_le_bytes());
            index.extend_from_slice(&(len as u32).to_le_bytes());
            index.extend_from_slice(&sum);
            at += len;
        }
        out.write_all(&index)?;
        out.write_all(&(at as u64).to_le_bytes())?;
        out.write_all(&((index.len() / INDEX_ENTRY) as u32).to_le_bytes())?;
        out.write_all(&index_checksum(&index))
    }
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
        encoded(&store, None, usize::MAX)
    }

    fn encoded(store: &RecordStore, newer: Option<&RecordStore>, cap: usize) -> Vec<u8> {
        store.take_for_save();
        let mut file = Vec::new();
        store.write(newer, cap, &mut file).unwrap();
        file
    }

    fn read(file: Vec<u8>) -> RecordStore {
        RecordStore::read(Box::new(file))
    }

    /// The size of a file of `n` records of 3 bytes each.
    fn file_size(n: usize) -> usize {
        MAGIC.len() + 2 + BUILD_STAMP.len() + n * (3 + INDEX_ENTRY) + FOOTER
    }

    #[test]
    fn saved_records_read_back() {
        let store = read(saved(&[(1, b"one"), (2, b"two")]));
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
            let store = read(flipped);
            for (n, want) in [(1, &b"one"[..]), (2, &b"two"[..])] {
                if let Some(got) = store.get(&key(n)) {
                    assert_eq!(got, want, "byte {at} flipped");
                }
            }
        }
    }

    #[test]
    fn every_truncation_is_a_corrupt_file_never_a_wrong_record() {
        let file = saved(&[(1, b"one"), (2, b"two")]);
        assert_eq!(file.len(), file_size(2));
        for len in 1..file.len() {
            let store = read(file[..len].to_vec());
            assert!(
                matches!(store.state(), FileState::Corrupt(_)),
                "cut at {len}"
            );
            assert_eq!(store.get(&key(1)), None, "cut at {len}");
            assert!(store.has_news(), "cut at {len}");
        }
    }

    #[test]
    fn a_record_that_cannot_be_read_is_a_fault() {
        /// A file whose bytes in a range cannot be read (a disk error).
        struct Failing(Vec<u8>, std::ops::Range<u64>);
        impl RecordFile for Failing {
            fn size(&self) -> u64 {
                self.0.as_slice().len() as u64
            }
            fn read_at(&self, offset: u64, len: usize) -> Option<Vec<u8>> {
                let end = offset + len as u64;
                let hits_bad = offset < self.1.end && self.1.start < end;
                (!hits_bad).then(|| self.0.read_at(offset, len)).flatten()
            }
        }
        let file = saved(&[(1, b"one")]);
        let records_start = (MAGIC.len() + 2 + BUILD_STAMP.len()) as u64;
        // The record's 3 bytes fail; the header, index and footer after them do not.
        let bad = records_start..records_start + 3;
        let store = RecordStore::read(Box::new(Failing(file, bad)));
        assert_eq!(store.state(), &FileState::Read);
        assert_eq!(store.get(&key(1)), None);
        assert_eq!(store.counts().faults, 1);
        assert_eq!(
            store.faults(),
            [format!("a record at byte {records_start} cannot be read")]
        );
    }

    #[test]
    fn another_builds_file_is_not_read() {
        let mut file = saved(&[(1, b"one")]);
        let stamp_at = MAGIC.len() + 2;
        file[stamp_at] ^= 1;
        let store = read(file);
        assert_eq!(store.state(), &FileState::OtherBuild);
        assert_eq!(store.get(&key(1)), None);
        assert!(store.has_news());
    }

    #[test]
    fn a_save_over_the_cap_keeps_the_newest_generations() {
        let older = read(saved(&[(1, b"old")]));
        older.put(RecordKind::FileSymbols, key(2), b"new".to_vec());
        let store = read(encoded(&older, None, file_size(1)));
        assert_eq!(store.get(&key(2)).as_deref(), Some(&b"new"[..]));
        assert_eq!(store.get(&key(1)), None);
    }

    #[test]
    fn a_record_used_in_a_run_outlives_older_unused_ones() {
        let first = read(saved(&[(1, b"one"), (2, b"two")]));
        first.get(&key(2));
        first.put(RecordKind::FileSymbols, key(3), b"new".to_vec());
        let store = read(encoded(&first, None, file_size(2)));
        assert_eq!(store.get(&key(1)), None);
        assert!(store.get(&key(2)).is_some() && store.get(&key(3)).is_some());
    }

    #[test]
    fn after_a_save_its_records_are_read_from_what_was_written() {
        let store = RecordStore::empty();
        store.put(RecordKind::FileSymbols, key(1), b"one".to_vec());
        assert!(store.has_news());
        store.saved(Box::new(encoded(&store, None, usize::MAX)));
        assert!(!store.has_news());
        assert!(store.fresh.lock().unwrap().is_empty());
        assert!(store.saving.read().unwrap().is_empty());
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        assert_eq!(store.counts().computed, 1);
        store.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        assert!(store.has_news());
    }

    #[test]
    fn records_computed_while_a_save_writes_are_kept_for_the_next() {
        let store = RecordStore::empty();
        store.put(RecordKind::FileSymbols, key(1), b"one".to_vec());
        store.take_for_save();
        let mut file = Vec::new();
        store.write(None, usize::MAX, &mut file).unwrap();
        // Between the write and the swap to what it wrote, a query reads and records.
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        store.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        store.saved(Box::new(file));
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        assert_eq!(store.get(&key(2)).as_deref(), Some(&b"two"[..]));
        assert!(store.has_news());
        let next = read(encoded(&store, None, usize::MAX));
        assert!(next.get(&key(1)).is_some() && next.get(&key(2)).is_some());
    }

    #[test]
    fn a_failed_save_leaves_its_records_for_the_next() {
        let store = RecordStore::empty();
        store.put(RecordKind::FileSymbols, key(1), b"one".to_vec());
        store.take_for_save();
        let mut refused = DiskFullWriter;
        assert!(store.write(None, usize::MAX, &mut refused).is_err());
        assert_eq!(store.get(&key(1)).as_deref(), Some(&b"one"[..]));
        assert!(store.has_news());
        store.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        let next = read(encoded(&store, None, usize::MAX));
        assert!(next.get(&key(1)).is_some() && next.get(&key(2)).is_some());
    }

    /// A writer that refuses every byte, as a full disk does.
    struct DiskFullWriter;

    impl std::io::Write for DiskFullWriter {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_save_merges_what_another_process_saved_meanwhile() {
        let ours = read(saved(&[(1, b"one")]));
        ours.put(RecordKind::FileSymbols, key(2), b"two".to_vec());
        let theirs = read(saved(&[(3, b"three")]));
        let merged = read(encoded(&ours, Some(&theirs), usize::MAX));
        for n in 1..=3 {
            assert!(merged.get(&key(n)).is_some(), "record {n}");
        }
    }
}
