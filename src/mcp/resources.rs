//! Packs too large for one answer, offered as MCP resources: a pack's text cut into parts
//! that each fit one answer, the summary a tool answers with instead, and the store of one
//! session's parts that `resources/list` and `resources/read` serve, and whose changes
//! are announced (`notifications/resources/list_changed`).
//!
//! Invariant: a part's URI is only ever compared with the URIs the store handed out, never
//! parsed, so no URI reaches a file; the parts of a pack, in order, are its text byte for
//! byte, and each one's exact token count is at most the answer cap; a session holds one
//! pack's parts at most (a new pack replaces them), a pack at most [`MAX_PACK_BYTES`] and
//! all sessions together at most [`MAX_HELD_BYTES`].

use std::{
    hash::{BuildHasher, RandomState},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use rmcp::{
    RoleServer,
    model::{MetaObject, ProtocolVersion, Resource, ResourceContents},
    service::{Peer, RequestContext},
};
use schemars::JsonSchema;
use serde::Serialize;

use super::{ErrorCode, ToolError};
use crate::ide::{Encoding, PackAnswer, PackMode, PackStyle};

/// The largest pack offered in parts, in bytes of text.
pub const MAX_PACK_BYTES: usize = 32 * 1024 * 1024;
/// The most bytes of parts all sessions of a server hold at once.
pub const MAX_HELD_BYTES: usize = 256 * 1024 * 1024;
/// Every part's URI starts so.
const URI_PREFIX: &str = "sextant://pack/";

/// A slice of a pack's text and its exact token count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub text: String,
    pub tokens: usize,
}

/// A piece no part may cut: a byte range of the text and its tokens, and whether a part
/// must start with it.
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: usize,
    end: usize,
    tokens: usize,
    starts_part: bool,
}

/// Cuts `text` into parts of at most `cap` tokens each: at `seams` (where blocks start),
/// a block too large for one part at its line ends, a line too large at a character.
/// Parts hold as many whole blocks as fit; a block cut in pieces has parts of its own.
/// Each part is counted whole, never summed.
pub fn split(
    text: &str,
    seams: &[usize],
    encoding: Encoding,
    cap: usize,
) -> Result<Vec<Part>, ToolError> {
    let mut pieces: Vec<Piece> = Vec::new();
    let mut start = 0;
    // Whether the block before was cut in pieces: the next block starts a part too.
    let mut first_was_cut = false;
    let cuts = seams
        .iter()
        .copied()
        .filter(|&s| s > 0 && s < text.len() && text.is_char_boundary(s))
        .chain([text.len()]);
    for end in cuts {
        if end <= start {
            continue;
        }
        let first = pieces.len();
        let cut = block_pieces(text, start, end, encoding, cap, &mut pieces)?;
        pieces[first].starts_part = cut || first_was_cut;
        first_was_cut = cut;
        start = end;
    }
    let mut parts = Vec::new();
    let mut first = 0;
    while first < pieces.len() {
        let mut last = first;
        let mut summed = pieces[first].tokens;
        while last + 1 < pieces.len()
            && !pieces[last + 1].starts_part
            && summed + pieces[last + 1].tokens <= cap
        {
            last += 1;
            summed += pieces[last].tokens;
        }
        // Merges across a seam almost always shorten a text; should they not, the part
        // gives back pieces until its exact count fits (one piece alone always does).
        loop {
            let slice = &text[pieces[first].start..pieces[last].end];
            let tokens = match last == first {
                true => pieces[first].tokens,
                false => encoding.count(slice),
            };
            if tokens <= cap || last == first {
                parts.push(Part {
                    text: slice.to_string(),
                    tokens,
                });
                break;
            }
            last -= 1;
        }
        first = last + 1;
    }
    Ok(parts)
}

/// The pieces of `text[start..end]`: itself when it fits, else its lines, each line that
/// does not fit cut into the longest prefixes that do. Whether it was cut.
fn block_pieces(
    text: &str,
    start: usize,
    end: usize,
    encoding: Encoding,
    cap: usize,
    pieces: &mut Vec<Piece>,
) -> Result<bool, ToolError> {
    // Counted in full once (a pack is at most a million tokens): a block that fits needs
    // that count anyway, and one that does not is about to be counted line by line.
    let tokens = encoding.count(&text[start..end]);
    if tokens <= cap {
        pieces.push(Piece {
            start,
            end,
            tokens,
            starts_part: false,
        });
        return Ok(false);
    }
    let mut line_start = start;
    for line in text[start..end].split_inclusive('\n') {
        let line_end = line_start + line.len();
        let tokens = encoding.count(line);
        if tokens <= cap {
            pieces.push(Piece {
                start: line_start,
                end: line_end,
                tokens,
                starts_part: false,
            });
            line_start = line_end;
            continue;
        }
        let mut from = line_start;
        while from < line_end {
            let to = longest_fitting(text, from, line_end, encoding, cap)?;
            pieces.push(Piece {
                start: from,
                end: to,
                tokens: encoding.count(&text[from..to]),
                starts_part: false,
            });
            from = to;
        }
        line_start = line_end;
    }
    Ok(true)
}

/// The largest character boundary `to` in `from..=end` with `text[from..to]` within `cap`.
fn longest_fitting(
    text: &str,
    from: usize,
    end: usize,
    encoding: Encoding,
    cap: usize,
) -> Result<usize, ToolError> {
    let bounds: Vec<usize> = text[from..end]
        .char_indices()
        .map(|(i, _)| from + i)
        .skip(1)
        .chain([end])
        .collect();
    // The first bound that does not fit; everything before it does (a prefix of a
    // fitting text fits).
    let over = bounds.partition_point(|&to| encoding.fits(&text[from..to], cap));
    match over {
        0 => Err(ToolError::new(
            ErrorCode::TooLarge,
            format!("one character takes more than the answer cap of {cap} tokens"),
        )),
        n => Ok(bounds[n - 1]),
    }
}

/// A part as the structured answer lists it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PartEntry {
    /// Read it with `resources/read`; valid until the next large pack or `release_context`.
    pub uri: String,
    /// Its exact token count.
    pub tokens: usize,
    pub bytes: usize,
}

/// The text content of a pack answered in parts: what went in, in how many parts, where
/// to read them; entries are listed while the summary fits in `cap`, the rest counted.
pub fn summary(
    pack: &PackAnswer,
    parts: &[PartEntry],
    cap: usize,
) -> Result<(String, usize), ToolError> {
    let encoding = pack.encoding;
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return Err(ToolError::new(ErrorCode::Internal, "a pack in no parts"));
    };
    let tokens: Vec<String> = parts.iter().map(|p| p.tokens.to_string()).collect();
    // The URIs differ only in their last number: the first and the last say them all.
    let head = format!(
        "The pack is {} tokens ({}), more than one answer holds ({cap}): its text is in {} \
         parts, {} to {}, to read in order with resources/read; concatenated they are the \
         pack. Tokens of each part: {}. They stay until the next pack this large or \
         release_context.\n",
        pack.tokens,
        encoding.as_str(),
        parts.len(),
        first.uri,
        last.uri,
        tokens.join(", ")
    );
    let entries: Vec<String> = pack
        .included
        .iter()
        .map(|e| {
            let name = e
                .name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            let mode = match e.mode {
                PackMode::Skeleton => " (skeleton)",
                _ => "",
            };
            format!("{}:{}-{}{name}{mode}\n", e.path, e.start_line, e.end_line)
        })
        .collect();
    let omitted = match pack.omitted.len() {
        0 => String::new(),
        n => format!("{n} entries left out (see `omitted`).\n"),
    };
    // The most entries that fit, by halving: a summary with fewer entries is never longer.
    let with = |shown: usize| {
        let mut text = format!("{head}Included ({}):\n", entries.len());
        text.extend(entries[..shown].iter().cloned());
        if shown < entries.len() {
            text.push_str(&format!(
                "… and {} more (see `included`).\n",
                entries.len() - shown
            ));
        }
        text.push_str(&omitted);
        text
    };
    let (mut low, mut high) = (0, entries.len());
    if !encoding.fits(&with(0), cap) {
        return Err(ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "the pack's {} parts cannot even be listed within one answer of {cap} tokens: \
                 lower max_tokens or raise the server's --max-answer-tokens",
                parts.len()
            ),
        ));
    }
    while low < high {
        let mid = (low + high).div_ceil(2);
        match encoding.fits(&with(mid), cap) {
            true => low = mid,
            false => high = mid - 1,
        }
    }
    let text = with(low);
    let tokens = encoding.count(&text);
    Ok((text, tokens))
}

/// The media type of a pack's parts in a style.
pub fn mime_type(style: PackStyle) -> &'static str {
    match style {
        PackStyle::Markdown => "text/markdown",
        PackStyle::Xml => "application/xml",
        PackStyle::Json => "application/json",
        PackStyle::Plain => "text/plain",
    }
}

/// Whether the request's session speaks protocol 2026-07-28 or later, whose resource
/// answers carry caching hints (`ttlMs`, `cacheScope`); earlier ones leave them out.
pub fn caching_hints(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Where to say that a session's parts changed: the client of a session begun with
/// `initialize` (before 2026-07-28). From 2026-07-28 notifications travel only on a
/// `subscriptions/listen` stream ([`PackStore::changes`]).
pub struct ListChanged(Option<Peer<RoleServer>>);

impl ListChanged {
    pub fn of(ctx: &RequestContext<RoleServer>) -> ListChanged {
        ListChanged((!caching_hints(ctx)).then(|| ctx.peer.clone()))
    }

    pub async fn send(self) {
        if let Some(peer) = self.0 {
            // A client gone meanwhile has nothing left to list.
            let _ = peer.notify_resource_list_changed().await;
        }
    }
}

/// The bytes all sessions' stores hold, shared by the stores of one server.
#[derive(Debug, Default)]
pub struct HeldBytes(Mutex<usize>);

/// One part held: its resource description and its text.
#[derive(Debug)]
struct HeldPart {
    resource: Resource,
    text: String,
}

/// The parts of one session's last large pack.
#[derive(Debug)]
pub struct PackStore {
    parts: Mutex<Vec<HeldPart>>,
    held: Arc<HeldBytes>,
    /// Moves on each change of the parts, for the session's `subscriptions/listen` streams.
    changed: tokio::sync::watch::Sender<u64>,
}

/// Packs made by this process, so that no two share an id even with equal nonces.
static PACKS_MADE: AtomicU64 = AtomicU64::new(0);

/// An id no client can guess: a counter, then 128 bits from the process's random hash keys.
fn new_pack_id() -> String {
    let count = PACKS_MADE.fetch_add(1, Ordering::Relaxed);
    let nonce = |salt: u64| RandomState::new().hash_one((count, salt));
    format!("{count}-{:016x}{:016x}", nonce(1), nonce(2))
}

impl PackStore {
    pub fn new(held: Arc<HeldBytes>) -> PackStore {
        PackStore {
            parts: Mutex::default(),
            held,
            changed: tokio::sync::watch::Sender::new(0),
        }
    }

    /// Wakes at each later change of the session's parts.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// A store for another session, sharing this one's server-wide bound.
    pub fn sibling(&self) -> PackStore {
        PackStore::new(self.held.clone())
    }

    /// Holds `parts` in place of the session's previous ones; their entries and
    /// descriptions in order. Refused (`TOO_LARGE`) over [`MAX_PACK_BYTES`], or when all
    /// sessions would hold more than [`MAX_HELD_BYTES`]; then the previous parts stay.
    pub fn replace(
        &self,
        parts: Vec<Part>,
        style: PackStyle,
        encoding: Encoding,
    ) -> Result<(Vec<PartEntry>, Vec<Resource>), ToolError> {
        let bytes: usize = parts.iter().map(|p| p.text.len()).sum();
        if bytes > MAX_PACK_BYTES {
            return Err(ToolError::new(
                ErrorCode::TooLarge,
                format!(
                    "the pack is {bytes} bytes; one offered in parts is at most {MAX_PACK_BYTES}: lower max_tokens"
                ),
            ));
        }
        let mut held_parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let previous: usize = held_parts.iter().map(|p| p.text.len()).sum();
        {
            let mut held = self.held.0.lock().unwrap_or_else(|e| e.into_inner());
            let others = held.saturating_sub(previous);
            if others + bytes > MAX_HELD_BYTES {
                return Err(ToolError::new(
                    ErrorCode::TooLarge,
                    format!(
                        "the server holds {others} bytes of other sessions' packs; with this one it would pass {MAX_HELD_BYTES}: lower max_tokens, or call release_context in other sessions"
                    ),
                ));
            }
            *held = others + bytes;
        }
        let id = new_pack_id();
        let count = parts.len();
        let mut entries = Vec::with_capacity(count);
        *held_parts = parts
            .into_iter()
            .enumerate()
            .map(|(n, part)| {
                let uri = format!("{URI_PREFIX}{id}/{}", n + 1);
                let mut meta = MetaObject::new();
                meta.0.insert("tokens".into(), part.tokens.into());
                meta.0.insert("encoding".into(), encoding.as_str().into());
                let resource = Resource::new(&uri, format!("pack part {} of {count}", n + 1))
                    .with_description(format!(
                        "Part {} of {count} of the last large pack_context answer: {} tokens ({}); the parts in order are the pack",
                        n + 1,
                        part.tokens,
                        encoding.as_str()
                    ))
                    .with_mime_type(mime_type(style))
                    .with_size(part.text.len() as u64)
                    .with_meta(meta);
                entries.push(PartEntry {
                    uri,
                    tokens: part.tokens,
                    bytes: part.text.len(),
                });
                HeldPart {
                    resource,
                    text: part.text,
                }
            })
            .collect();
        let resources = held_parts.iter().map(|p| p.resource.clone()).collect();
        self.changed.send_modify(|n| *n += 1);
        Ok((entries, resources))
    }

    /// Drops the session's parts; how many there were.
    pub fn release(&self) -> usize {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let freed: usize = parts.iter().map(|p| p.text.len()).sum();
        let mut held = self.held.0.lock().unwrap_or_else(|e| e.into_inner());
        *held = held.saturating_sub(freed);
        let released = std::mem::take(&mut *parts).len();
        if released > 0 {
            self.changed.send_modify(|n| *n += 1);
        }
        released
    }

    /// The parts held, in order.
    pub fn list(&self) -> Vec<Resource> {
        let parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        parts.iter().map(|p| p.resource.clone()).collect()
    }

    /// The part whose URI is exactly `uri`, if the session holds one.
    pub fn read(&self, uri: &str) -> Option<ResourceContents> {
        let parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let part = parts.iter().find(|p| p.resource.uri == uri)?;
        let mut contents = ResourceContents::text(part.text.clone(), uri);
        if let Some(mime) = &part.resource.mime_type {
            contents = contents.with_mime_type(mime.clone());
        }
        if let Some(meta) = &part.resource.meta {
            contents = contents.with_meta(meta.clone());
        }
        Some(contents)
    }
}

impl Drop for PackStore {
    /// A session that ends gives its bytes back to the server's bound.
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const O200K: Encoding = Encoding::O200kBase;

    fn joined(parts: &[Part]) -> String {
        parts.iter().map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn parts_cut_at_seams_fit_the_cap_and_join_to_the_text() {
        let blocks: Vec<String> = (0..40)
            .map(|i| format!("block {i}\n{}", "let x = 1;\n".repeat(i % 7 + 1)))
            .collect();
        let text = blocks.join("\n");
        let mut seams = Vec::new();
        let mut offset = 0;
        for block in &blocks[..blocks.len() - 1] {
            offset += block.len() + 1;
            seams.push(offset);
        }
        let parts = split(&text, &seams, O200K, 60).unwrap();
        assert!(parts.len() > 1);
        assert_eq!(joined(&parts), text);
        for part in &parts {
            assert_eq!(part.tokens, O200K.count(&part.text));
            assert!(part.tokens <= 60, "{}", part.tokens);
            // Every part starts where a block does.
            assert!(part.text.starts_with("block "), "{:?}", part.text);
        }
    }

    #[test]
    fn a_block_over_the_cap_is_cut_at_lines_and_a_line_over_it_at_characters() {
        let line = "αβγ δ ".repeat(40);
        let text = format!("short\n{}\n{line}\nend\n", "word ".repeat(30));
        let parts = split(&text, &[], O200K, 20).unwrap();
        assert_eq!(joined(&parts), text);
        assert!(
            parts
                .iter()
                .all(|p| p.tokens <= 20 && p.tokens == O200K.count(&p.text))
        );
        // The first part is whole lines: `short` and the next line do not fit together.
        assert_eq!(parts[0].text, "short\n");
        assert!(parts.iter().any(|p| !p.text.ends_with('\n')));
    }

    #[test]
    fn a_block_cut_in_pieces_shares_no_part_with_its_neighbours() {
        let text = format!("small\n{}tail\n", "line of the big block\n".repeat(20));
        let seams = [6, text.len() - 5];
        let parts = split(&text, &seams, O200K, 40).unwrap();
        assert_eq!(joined(&parts), text);
        assert_eq!(parts.first().unwrap().text, "small\n");
        assert_eq!(parts.last().unwrap().text, "tail\n");
        assert!(parts[1].text.starts_with("line of the big block\n"));
        assert!(parts.len() > 3);
    }

    #[test]
    fn nothing_fits_a_cap_of_zero() {
        assert_eq!(
            split("x", &[], O200K, 0).unwrap_err().code,
            ErrorCode::TooLarge
        );
        assert_eq!(split("", &[], O200K, 5).unwrap(), Vec::new());
    }

    fn part(text: &str) -> Part {
        Part {
            text: text.into(),
            tokens: O200K.count(text),
        }
    }

    #[test]
    fn a_store_serves_only_its_uris_and_a_new_pack_replaces_the_old() {
        let held = Arc::new(HeldBytes::default());
        let store = PackStore::new(held.clone());
        let other = store.sibling();
        let (first, _) = store
            .replace(vec![part("a\n"), part("b\n")], PackStyle::Markdown, O200K)
            .unwrap();
        assert_eq!(first.len(), 2);
        assert!(first[0].uri.starts_with(URI_PREFIX) && first[0].uri.ends_with("/1"));
        let ResourceContents::TextResourceContents {
            text, mime_type, ..
        } = store.read(&first[1].uri).unwrap()
        else {
            panic!("a part is text")
        };
        assert_eq!(
            (text.as_str(), mime_type.as_deref()),
            ("b\n", Some("text/markdown"))
        );
        assert!(
            other.read(&first[0].uri).is_none(),
            "another session's part"
        );
        assert!(store.read("sextant://pack/0-0/1").is_none());
        assert!(store.read("file:///etc/passwd").is_none());
        assert_eq!(*held.0.lock().unwrap(), 4);
        let (second, _) = store
            .replace(vec![part("c\n")], PackStyle::Json, O200K)
            .unwrap();
        assert_ne!(first[0].uri, second[0].uri);
        assert!(store.read(&first[0].uri).is_none());
        assert_eq!(store.list().len(), 1);
        assert_eq!(*held.0.lock().unwrap(), 2);
        let mut changes = store.changes();
        assert_eq!(store.release(), 1);
        assert!(changes.has_changed().unwrap());
        changes.mark_unchanged();
        assert_eq!(store.release(), 0);
        assert!(
            !changes.has_changed().unwrap(),
            "nothing to release is no change"
        );
        assert!(store.list().is_empty());
        drop(other);
        assert_eq!(*held.0.lock().unwrap(), 0);
    }

    #[test]
    fn the_server_wide_bound_refuses_a_pack_and_keeps_the_previous_one() {
        let held = Arc::new(HeldBytes::default());
        let store = PackStore::new(held.clone());
        store
            .replace(vec![part("kept")], PackStyle::Plain, O200K)
            .unwrap();
        *held.0.lock().unwrap() = MAX_HELD_BYTES;
        let refused = store.replace(vec![part("new!!")], PackStyle::Plain, O200K);
        assert_eq!(refused.unwrap_err().code, ErrorCode::TooLarge);
        assert_eq!(store.list().len(), 1);
    }
}
