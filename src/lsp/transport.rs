//! LSP framing on stdin/stdout: `Content-Length` headers and JSON-RPC bodies.
//!
//! Invariant: whatever a peer claims, reading one frame holds at most
//! [`MAX_HEADER_BYTES`] of headers and at most the configured body limit, and the body
//! buffer grows only as bytes actually arrive, so a lying `Content-Length` costs nothing.
//! A framing violation (an oversized, malformed or missing length, malformed headers, a
//! stream that ends inside a frame) ends the connection: after one, the peer's byte stream
//! cannot be resynchronised. A well-framed body that is not a JSON-RPC message gets a
//! JSON-RPC error answer and the connection goes on.
//!
//! lsp-server's own reader (`Connection::stdio`) allocates the claimed length up front,
//! which is why sextant frames stdin itself and only borrows lsp-server's message types
//! and writer.

use std::{
    io::{self, BufRead, Write},
    thread::JoinHandle,
};

use crossbeam_channel::{Receiver, Sender, bounded, never, select};
use lsp_server::{Connection, Message};

/// Default of `sextant lsp --max-message-bytes`: the largest body a client may send.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;
/// The whole header block of one frame, CRLFs included.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// Header lines in one frame (the protocol defines two).
pub const MAX_HEADER_LINES: usize = 16;
/// A body buffer starts this small and doubles, up to the claimed length, as data arrives.
const INITIAL_BODY_CAPACITY: usize = 64 * 1024;
/// How much of a peer's bad header is quoted in an error message.
const QUOTE_CHARS: usize = 60;

/// Why a byte stream stopped being a sequence of LSP frames.
#[derive(Debug, thiserror::Error)]
pub enum FramingError {
    #[error("Content-Length {claimed} is over the limit of {limit} bytes (--max-message-bytes)")]
    TooLarge { claimed: String, limit: u64 },
    #[error("Content-Length {0:?} is not a decimal number")]
    BadLength(String),
    #[error("two different Content-Length headers")]
    ConflictingLength,
    #[error("a message without a Content-Length header")]
    MissingLength,
    #[error("malformed header line {0:?}")]
    MalformedHeader(String),
    #[error("headers longer than {MAX_HEADER_BYTES} bytes")]
    HeadersTooLarge,
    #[error("more than {MAX_HEADER_LINES} header lines")]
    TooManyHeaders,
    #[error("the input ended inside a message's headers")]
    TruncatedHeaders,
    #[error("the input ended inside a message ({received} of {expected} body bytes)")]
    TruncatedBody { expected: usize, received: usize },
    #[error("reading the input: {0}")]
    Io(#[from] io::Error),
}

/// Reads frames from a byte stream within fixed memory bounds.
pub struct FrameReader<R> {
    input: R,
    max_body: u64,
    /// One header line; never grows past `MAX_HEADER_BYTES`.
    line: Vec<u8>,
}

impl<R: BufRead> FrameReader<R> {
    pub fn new(input: R, max_body: u64) -> FrameReader<R> {
        FrameReader {
            input,
            max_body,
            line: Vec::with_capacity(MAX_HEADER_BYTES),
        }
    }

    /// The capacity of the header buffer (for tests of the memory bound).
    #[cfg(test)]
    fn header_capacity(&self) -> usize {
        self.line.capacity()
    }

    /// The next frame's body, or `None` when the stream ends between frames.
    pub fn read_frame(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        let mut budget = MAX_HEADER_BYTES;
        let mut length: Option<u64> = None;
        let mut lines = 0;
        loop {
            if !self.read_header_line(&mut budget)? {
                if lines == 0 {
                    return Ok(None);
                }
                return Err(FramingError::TruncatedHeaders);
            }
            if self.line.is_empty() {
                break;
            }
            lines += 1;
            if lines > MAX_HEADER_LINES {
                return Err(FramingError::TooManyHeaders);
            }
            if let Some(claimed) = self.parse_header()? {
                if length.is_some_and(|l| l != claimed) {
                    return Err(FramingError::ConflictingLength);
                }
                length = Some(claimed);
            }
        }
        let length = length.ok_or(FramingError::MissingLength)?;
        self.read_body(length).map(Some)
    }

    /// Reads one line into `self.line` without its CRLF, charging its bytes to `budget`.
    /// Returns false if the stream ends before the line's first byte.
    fn read_header_line(&mut self, budget: &mut usize) -> Result<bool, FramingError> {
        self.line.clear();
        loop {
            let available = match self.input.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if available.is_empty() {
                if self.line.is_empty() {
                    return Ok(false);
                }
                return Err(FramingError::TruncatedHeaders);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            // Checked before copying: the buffer never holds more than the budget.
            if take > *budget {
                return Err(FramingError::HeadersTooLarge);
            }
            *budget -= take;
            self.line.extend_from_slice(&available[..take]);
            self.input.consume(take);
            if newline.is_some() {
                break;
            }
        }
        if !self.line.ends_with(b"\r\n") {
            return Err(FramingError::MalformedHeader(quote(&self.line)));
        }
        self.line.truncate(self.line.len() - 2);
        Ok(true)
    }

    /// Checks the header line in `self.line`; returns the length if it is `Content-Length`.
    fn parse_header(&self) -> Result<Option<u64>, FramingError> {
        let malformed = || FramingError::MalformedHeader(quote(&self.line));
        let text = std::str::from_utf8(&self.line).map_err(|_| malformed())?;
        let (name, value) = text.split_once(':').ok_or_else(malformed)?;
        let is_token = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
        };
        if !is_token(name) {
            return Err(malformed());
        }
        if !name.eq_ignore_ascii_case("Content-Length") {
            // Content-Type and anything a client adds: the body is JSON in UTF-8 regardless.
            return Ok(None);
        }
        let value = value.trim_matches([' ', '\t']);
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(FramingError::BadLength(quote(value.as_bytes())));
        }
        let claimed = value.bytes().try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        });
        match claimed {
            Some(n) if n <= self.max_body => Ok(Some(n)),
            _ => Err(FramingError::TooLarge {
                claimed: quote(value.as_bytes()),
                limit: self.max_body,
            }),
        }
    }

    /// Reads exactly `length` (already checked against the limit) body bytes.
    fn read_body(&mut self, length: u64) -> Result<Vec<u8>, FramingError> {
        let length = usize::try_from(length).map_err(|_| FramingError::TooLarge {
            claimed: length.to_string(),
            limit: self.max_body,
        })?;
        let mut body = Vec::with_capacity(length.min(INITIAL_BODY_CAPACITY));
        while body.len() < length {
            if body.len() == body.capacity() {
                let more = body.capacity().max(1).min(length - body.len());
                body.reserve_exact(more);
            }
            let available = match self.input.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if available.is_empty() {
                return Err(FramingError::TruncatedBody {
                    expected: length,
                    received: body.len(),
                });
            }
            let take = available.len().min(body.capacity() - body.len());
            body.extend_from_slice(&available[..take]);
            self.input.consume(take);
        }
        Ok(body)
    }
}

/// A peer's bytes, shortened and made printable for one log line.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut quoted: String = text.chars().take(QUOTE_CHARS).collect();
    if text.chars().nth(QUOTE_CHARS).is_some() {
        quoted.push('…');
    }
    quoted
}

/// JSON-RPC error codes for bodies that are not messages.
pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;

/// What a well-framed body turned out to be.
#[derive(Debug)]
pub enum Decoded {
    Message(Message),
    /// Not a message: send this error response (JSON), the connection goes on.
    Reject(serde_json::Value),
    /// A malformed response to one of our requests: answering it could start a loop.
    Ignore,
}

/// Decodes one body: JSON that is not a message gets `INVALID_REQUEST` (with the request's
/// id when it has a usable one), anything else `PARSE_ERROR` with a null id.
pub fn decode(body: &[u8]) -> Decoded {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Decoded::Reject(error_response(None, PARSE_ERROR, e.to_string())),
    };
    let object = value.as_object();
    let id = object
        .and_then(|o| o.get("id"))
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    let is_response = object.is_some_and(|o| {
        !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"))
    });
    match serde_json::from_value::<Message>(value) {
        Ok(message) => Decoded::Message(message),
        Err(_) if is_response => Decoded::Ignore,
        Err(e) => Decoded::Reject(error_response(
            id,
            INVALID_REQUEST,
            format!("not a JSON-RPC request or notification: {e}"),
        )),
    }
}

fn error_response(id: Option<serde_json::Value>, code: i32, message: String) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
}

/// How the reader thread stopped.
#[derive(Debug)]
pub enum ReaderEnd {
    /// It forwarded `exit` and stopped reading.
    Exit,
    /// The input ended between frames.
    Eof,
    /// The main loop stopped listening.
    Closed,
    Violation(FramingError),
}

/// A connection over stdin/stdout framed by [`FrameReader`].
pub struct Transport {
    pub connection: Connection,
    reader: JoinHandle<ReaderEnd>,
    writer: JoinHandle<io::Result<()>>,
}

impl Transport {
    /// Starts the reader and writer threads on stdin and stdout.
    pub fn stdio(max_message_bytes: u64) -> Transport {
        // Rendezvous channels, as lsp-server's: a fast peer cannot queue up messages.
        let (to_main, from_reader) = bounded::<Message>(0);
        let (to_writer, from_main) = bounded::<Message>(0);
        let (rejections, rejected) = bounded::<serde_json::Value>(0);
        let reader = std::thread::Builder::new()
            .name("lsp-reader".into())
            .spawn(move || {
                let stdin = io::stdin();
                let frames = FrameReader::new(stdin.lock(), max_message_bytes);
                read_loop(frames, &to_main, &rejections)
            })
            .expect("spawning the LSP reader thread");
        let writer = std::thread::Builder::new()
            .name("lsp-writer".into())
            .spawn(move || write_loop(&mut io::stdout().lock(), from_main, rejected))
            .expect("spawning the LSP writer thread");
        Transport {
            connection: Connection {
                sender: to_writer,
                receiver: from_reader,
            },
            reader,
            writer,
        }
    }

    /// Closes the connection once the main loop has stopped (after `exit` or once the
    /// receiver is disconnected): flushes what is queued and says how the reader ended.
    /// Every other clone of the connection's sender must be dropped first.
    pub fn close(self) -> ReaderEnd {
        let Transport {
            connection,
            reader,
            writer,
        } = self;
        drop(connection);
        // A write error means the client is gone; nothing is left to tell it.
        let _ = writer.join();
        reader.join().unwrap_or_else(|_| {
            ReaderEnd::Violation(FramingError::Io(io::Error::other("the reader panicked")))
        })
    }
}

fn read_loop<R: BufRead>(
    mut frames: FrameReader<R>,
    to_main: &Sender<Message>,
    rejections: &Sender<serde_json::Value>,
) -> ReaderEnd {
    loop {
        let body = match frames.read_frame() {
            Ok(Some(body)) => body,
            Ok(None) => return ReaderEnd::Eof,
            Err(e) => return ReaderEnd::Violation(e),
        };
        match decode(&body) {
            Decoded::Message(message) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_main.send(message).is_err() {
                    return ReaderEnd::Closed;
                }
                if is_exit {
                    return ReaderEnd::Exit;
                }
            }
            Decoded::Reject(answer) => {
                eprintln!(
                    "sextant: lsp: rejected a message: {}",
                    answer["error"]["message"]
                );
                let _ = rejections.send(answer);
            }
            Decoded::Ignore => {
                eprintln!("sextant: lsp: ignored a malformed response");
            }
        }
    }
}

fn write_loop(
    out: &mut impl Write,
    messages: Receiver<Message>,
    rejected: Receiver<serde_json::Value>,
) -> io::Result<()> {
    let (mut messages, mut rejected) = (Some(messages), Some(rejected));
    while messages.is_some() || rejected.is_some() {
        // A closed channel is swapped for one that never fires, so the other is still served.
        let (open_messages, open_rejected) = (
            messages.clone().unwrap_or_else(never),
            rejected.clone().unwrap_or_else(never),
        );
        select! {
            recv(open_messages) -> message => match message {
                Ok(message) => message.write(out)?,
                Err(_) => messages = None,
            },
            recv(open_rejected) -> answer => match answer {
                Ok(answer) => {
                    let text = answer.to_string();
                    write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
                    out.flush()?;
                }
                Err(_) => rejected = None,
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use proptest::prelude::*;

    use super::*;

    const LIMIT: u64 = 1024;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    fn read_all(input: &[u8], limit: u64) -> (Vec<Vec<u8>>, Option<FramingError>) {
        let mut reader = FrameReader::new(Cursor::new(input), limit);
        let mut bodies = Vec::new();
        loop {
            match reader.read_frame() {
                Ok(Some(body)) => bodies.push(body),
                Ok(None) => return (bodies, None),
                Err(e) => return (bodies, Some(e)),
            }
        }
    }

    #[test]
    fn reads_consecutive_frames_with_any_header_case_and_content_type() {
        let mut input = frame(br#"{"a":1}"#);
        input.extend_from_slice(
            b"content-length:2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[]",
        );
        let (bodies, error) = read_all(&input, LIMIT);
        assert_eq!(bodies, vec![br#"{"a":1}"#.to_vec(), b"[]".to_vec()]);
        assert!(error.is_none());
    }

    #[test]
    fn rejects_lengths_over_the_limit_without_reading_the_body() {
        for claim in [
            "1025",
            "1073741824",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let input = format!("Content-Length: {claim}\r\n\r\n{{}}");
            let (_, error) = read_all(input.as_bytes(), LIMIT);
            assert!(
                matches!(&error, Some(FramingError::TooLarge { claimed, limit: LIMIT }) if claimed == claim),
                "{claim}: {error:?}"
            );
        }
    }

    /// A malformed frame and the test its error must pass.
    type FramingCase = (&'static [u8], fn(&FramingError) -> bool);

    #[test]
    fn rejects_malformed_framing() {
        let cases: [FramingCase; 9] = [
            (
                b"Content-Length: abc\r\n\r\n{}",
                |e| matches!(e, FramingError::BadLength(v) if v == "abc"),
            ),
            (b"Content-Length: +2\r\n\r\n{}", |e| {
                matches!(e, FramingError::BadLength(_))
            }),
            (b"Content-Length: \r\n\r\n{}", |e| {
                matches!(e, FramingError::BadLength(_))
            }),
            (b"Content-Type: x\r\n\r\n{}", |e| {
                matches!(e, FramingError::MissingLength)
            }),
            (b"Content-Length: 2\n\n{}", |e| {
                matches!(e, FramingError::MalformedHeader(_))
            }),
            (b"no colon\r\n\r\n", |e| {
                matches!(e, FramingError::MalformedHeader(_))
            }),
            (b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", |e| {
                matches!(e, FramingError::ConflictingLength)
            }),
            (b"Content-Length: 5\r\n\r\n{}", |e| {
                matches!(
                    e,
                    FramingError::TruncatedBody {
                        expected: 5,
                        received: 2
                    }
                )
            }),
            (b"Content-Length: 5\r\n", |e| {
                matches!(e, FramingError::TruncatedHeaders)
            }),
        ];
        for (input, expected) in cases {
            let (bodies, error) = read_all(input, LIMIT);
            assert!(bodies.is_empty());
            let error = error.expect("an error");
            assert!(
                expected(&error),
                "{:?}: {error:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn bounds_header_size_and_count() {
        let long = format!("X-Pad: {}\r\n\r\n", "a".repeat(MAX_HEADER_BYTES));
        assert!(matches!(
            read_all(long.as_bytes(), LIMIT).1,
            Some(FramingError::HeadersTooLarge)
        ));
        let many = "X-A: 1\r\n".repeat(MAX_HEADER_LINES + 1) + "Content-Length: 2\r\n\r\n{}";
        assert!(matches!(
            read_all(many.as_bytes(), LIMIT).1,
            Some(FramingError::TooManyHeaders)
        ));
    }

    #[test]
    fn decodes_bodies_into_messages_or_error_answers() {
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#),
            Decoded::Message(Message::Request(_))
        ));
        let Decoded::Reject(answer) = decode(b"{not json") else {
            panic!("expected a rejection")
        };
        assert_eq!(answer["error"]["code"], PARSE_ERROR);
        assert!(answer["id"].is_null());
        let Decoded::Reject(answer) = decode(br#"{"jsonrpc":"2.0","id":7,"method":3}"#) else {
            panic!("expected a rejection")
        };
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        assert_eq!(answer["id"], 7);
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#),
            Decoded::Ignore
        ));
    }

    /// Valid frames with a few bytes overwritten, inserted or cut.
    fn mutated_frames() -> impl Strategy<Value = Vec<u8>> {
        let bodies = prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 1..4);
        let edits =
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 0..6);
        (bodies, edits).prop_map(|(bodies, edits)| {
            let mut stream: Vec<u8> = bodies.iter().flat_map(|b| frame(b)).collect();
            for (at, byte, op) in edits {
                let i = at.index(stream.len() + 1);
                match op {
                    0 if i < stream.len() => stream[i] = byte,
                    1 => stream.insert(i, byte),
                    _ => stream.truncate(i),
                }
            }
            stream
        })
    }

    /// Headers that look like LSP ones, with lengths around and far beyond the limit.
    fn header_soup() -> impl Strategy<Value = Vec<u8>> {
        let length = prop_oneof![
            (0..=LIMIT * 2).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            "[0-9+ -]{0,30}",
        ];
        let line = prop_oneof![
            length.prop_map(|n| format!("Content-Length: {n}\r\n")),
            "[A-Za-z-]{0,12}:[ -~]{0,20}\r\n",
            "[ -~\r\n]{0,40}",
        ];
        (
            prop::collection::vec(line, 0..20),
            prop::collection::vec(any::<u8>(), 0..256),
        )
            .prop_map(|(lines, tail)| {
                let mut out = lines.concat().into_bytes();
                out.extend_from_slice(b"\r\n");
                out.extend_from_slice(&tail);
                out
            })
    }

    fn check_stream(input: &[u8]) -> Result<(), TestCaseError> {
        let mut reader = FrameReader::new(Cursor::new(input), LIMIT);
        // Every frame consumes at least its blank line, so this loop ends.
        for _ in 0..=input.len() {
            prop_assert!(reader.header_capacity() <= MAX_HEADER_BYTES);
            match reader.read_frame() {
                Ok(Some(body)) => {
                    prop_assert!(body.len() as u64 <= LIMIT);
                    prop_assert!(body.capacity() as u64 <= LIMIT);
                    let _ = decode(&body);
                }
                Ok(None) | Err(_) => return Ok(()),
            }
        }
        prop_assert!(false, "the reader made no progress");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::fuzz_cases()))]

        #[test]
        fn fuzz_frame_reader_arbitrary_bytes(input in prop::collection::vec(any::<u8>(), 0..2048)) {
            check_stream(&input)?;
        }

        #[test]
        fn fuzz_frame_reader_mutated_frames(input in mutated_frames()) {
            check_stream(&input)?;
        }

        #[test]
        fn fuzz_frame_reader_header_soup(input in header_soup()) {
            check_stream(&input)?;
        }
    }
}
