//! The texts an edit is computed from, read from the disk through the confined reader: a
//! patch applies to the files as they are now, not as the index last saw them, and the
//! writer later checks each file still hashes to the text read here.

use std::collections::BTreeMap;

use super::{ApplyError, reader::ReadRefusal, system::System};
use crate::ide::FileText;

/// The text of each of `paths` (workspace-relative) that exists, decoded as the writer
/// encodes it back (UTF-8, or Latin-1 for a file that is not: `ide::TextEncoding`); a
/// missing file (or a dangling link) is absent from the map. A file that cannot be an
/// edit's base (not a regular file, outside the root, over `max_file_size`) is refused.
pub fn current_texts<'a>(
    system: &dyn System,
    paths: impl IntoIterator<Item = &'a str>,
    max_file_size: u64,
) -> Result<BTreeMap<String, FileText>, ApplyError> {
    let mut texts = BTreeMap::new();
    for path in paths {
        let refused = |reason: String| ApplyError::Refused {
            path: path.to_string(),
            reason,
        };
        match system.read(&system.root().join(path), max_file_size) {
            Ok(content) => {
                texts.insert(path.to_string(), FileText::decode(content.bytes));
            }
            Err(ReadRefusal::NotFound) => {}
            Err(refusal) => return Err(refused(refusal.to_string())),
        }
    }
    Ok(texts)
}
