//! Results kept between runs: the queries that read the persistent cache
//! (`db::records`) before computing, and record what they compute.
//!
//! Invariant: a query that uses [`recorded`] hashes into the key every input its
//! computation reads, so a record is its answer (the build is in the file's header); it is
//! still a salsa query with the same dependencies, so what invalidates it is unchanged.

use serde::{Serialize, de::DeserializeOwned};

use crate::db::{Db, RecordKey, RecordKind, SourceFile};

/// A hash of the file's text: the part of every per-file record's key that costs, computed
/// once per text.
#[salsa::tracked(returns(copy))]
pub fn text_hash(db: &dyn Db, file: SourceFile) -> [u8; 32] {
    *blake3::hash(file.text(db).as_bytes()).as_bytes()
}

/// The key parts of a record computed from one file's language and text alone (its
/// symbols, its names, its documentation lines), whatever its path.
pub fn language_and_text(db: &dyn Db, file: SourceFile) -> [Vec<u8>; 2] {
    [
        file.lang(db).info().id.clone().into_bytes(),
        text_hash(db, file).to_vec(),
    ]
}

/// A hash of everything the database holds of one file: path, language, text, and whether
/// the text is a lossy decoding.
#[salsa::tracked(returns(copy))]
pub fn file_input_hash(db: &dyn Db, file: SourceFile) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    for part in [
        file.path(db).as_bytes(),
        file.lang(db).info().id.as_bytes(),
        &[file.lossy_utf8(db) as u8],
        &text_hash(db, file),
    ] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    *hasher.finalize().as_bytes()
}

/// The recorded result of `kind` over the inputs `parts` gives when there is one that
/// decodes, else `compute`'s, recorded for the next save. Without a cache, just `compute`
/// (and `parts` is not asked: hashing inputs is for the cache alone).
pub fn recorded<T: Serialize + DeserializeOwned, const N: usize>(
    db: &dyn Db,
    kind: RecordKind,
    parts: impl FnOnce() -> [Vec<u8>; N],
    compute: impl FnOnce() -> T,
) -> T {
    recorded_as(
        db,
        kind,
        parts,
        compute,
        |value| rmp_serde::to_vec(value).map_err(|e| e.to_string()),
        |bytes| rmp_serde::from_slice(bytes).map_err(|e| e.to_string()),
    )
}

/// [`recorded`] with the record's encoding given.
pub fn recorded_as<T, const N: usize>(
    db: &dyn Db,
    kind: RecordKind,
    parts: impl FnOnce() -> [Vec<u8>; N],
    compute: impl FnOnce() -> T,
    encode: impl FnOnce(&T) -> Result<Vec<u8>, String>,
    decode: impl FnOnce(&[u8]) -> Result<T, String>,
) -> T {
    let Some(records) = db.records() else {
        return compute();
    };
    let parts = parts();
    let key = RecordKey::new(kind, &parts.each_ref().map(Vec::as_slice));
    if let Some(bytes) = records.get(&key) {
        match decode(&bytes) {
            Ok(value) => return value,
            Err(error) => records.fault(format!("a {kind:?} record does not decode: {error}")),
        }
    }
    let value = compute();
    match encode(&value) {
        Ok(bytes) => records.put(kind, key, bytes),
        Err(error) => records.fault(format!("a {kind:?} result does not encode: {error}")),
    }
    value
}

/// A result over some consecutive files of the workspace (a shard of an index), read from
/// its record while the workspace is as the process loaded it, else computed.
///
/// Its key hashes each file's language and text, so reading it makes the query depend on
/// those texts, where `compute` reads position-free per-file results only: an edit that
/// keeps a file's names would re-run the shard. So a shard is read from records only until
/// the first edit ([`RecordStore::at_start`](crate::db::RecordStore::at_start)): a warm
/// start decodes one record per shard instead of one per file, and later shards are
/// computed from the per-file results as on a cold start. Either way the value is the same
/// function of the files' texts.
pub fn recorded_shard<T>(
    db: &dyn Db,
    kind: RecordKind,
    files: &[SourceFile],
    compute: impl FnOnce() -> T,
    encode: impl FnOnce(&T) -> Vec<u8>,
    decode: impl FnOnce(&[u8]) -> Option<T>,
) -> T {
    if !db.records().is_some_and(|records| records.at_start()) {
        return compute();
    }
    let parts = || {
        let mut key = Vec::with_capacity(files.len() * 40);
        for &file in files {
            let lang = file.lang(db).info().id.as_bytes();
            key.extend_from_slice(&(lang.len() as u32).to_le_bytes());
            key.extend_from_slice(lang);
            key.extend_from_slice(&text_hash(db, file));
        }
        [key]
    };
    recorded_as(
        db,
        kind,
        parts,
        compute,
        |value| Ok(encode(value)),
        |bytes| decode(bytes).ok_or_else(|| "malformed".to_string()),
    )
}
