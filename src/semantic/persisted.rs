//! Results kept between runs: the queries that read the persistent cache
//! (`db::records`) before computing, and record what they compute.
//!
//! Invariant: a query that uses [`recorded`] hashes into the key every input its
//! computation reads, so a record is its answer (the build is in the file's header); it is
//! still a salsa query with the same dependencies, so what invalidates it is unchanged.

use serde::{Serialize, de::DeserializeOwned};

use crate::db::{Db, RecordKey, RecordKind, SourceFile, Workspace};

/// A hash of the file's text: the part of every per-file record's key that costs, computed
/// once per text.
#[salsa::tracked(returns(copy))]
pub fn text_hash(db: &dyn Db, file: SourceFile) -> [u8; 32] {
    *blake3::hash(file.text(db).as_bytes()).as_bytes()
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

/// A hash of every input of the workspace (its root, files and project files): the key of
/// a result that may read any of them. Re-runs at every change; hashing each file's text
/// again only when that file changed.
#[salsa::tracked(returns(copy))]
pub fn workspace_input_hash(db: &dyn Db, workspace: Workspace) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    let root = workspace.root(db).as_os_str().as_encoded_bytes();
    hasher.update(&(root.len() as u64).to_le_bytes());
    hasher.update(root);
    for &file in workspace.files(db).iter() {
        hasher.update(&file_input_hash(db, file));
    }
    for manifest in workspace.manifests(db).iter() {
        for part in [
            manifest.path(db).as_bytes(),
            format!("{:?}", manifest.kind(db)).as_bytes(),
            manifest.text(db).as_bytes(),
        ] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
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
    let Some(records) = db.records() else {
        return compute();
    };
    let parts = parts();
    let key = RecordKey::new(kind, &parts.each_ref().map(Vec::as_slice));
    if let Some(bytes) = records.get(&key) {
        match rmp_serde::from_slice(&bytes) {
            Ok(value) => return value,
            Err(error) => records.fault(format!("a {kind:?} record does not decode: {error}")),
        }
    }
    let value = compute();
    match rmp_serde::to_vec(&value) {
        Ok(bytes) => records.put(kind, key, bytes),
        Err(error) => records.fault(format!("a {kind:?} result does not encode: {error}")),
    }
    value
}
