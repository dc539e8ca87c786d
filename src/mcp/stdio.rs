//! The stdio transport: newline-delimited JSON-RPC read by sextant itself, checked frame by
//! frame, valid frames handed to rmcp through an in-memory pipe.
//!
//! Invariants: at most `max_frame` bytes of one frame are ever buffered (the rest of an
//! over-long frame is discarded as it streams by); every frame that is not forwarded to rmcp
//! is answered with one JSON-RPC error line and one stderr log line; stdout carries whole lines
//! only, because rmcp's answers and ours go through one writer; the end of stdin, at any point,
//! is a normal end. A request whose id is still in flight is answered here, never forwarded
//! (see `inflight`): the reader holds each forwarded request's id until rmcp's answer with
//! that id goes by on its way to stdout.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use rmcp::{ServiceExt, service::ServerInitializeError};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader},
    sync::mpsc,
};

use super::roots::Roots;
use super::{
    Limits, SextantServer,
    frame::{self, Forwarded, Rejection, Verdict},
    inflight::{self, InFlightIds},
};

/// Bytes of the in-memory pipes between the frame reader, rmcp and the stdout writer.
const PIPE_BYTES: usize = 64 * 1024;

/// One frame cut from the input stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A whole frame, without its `\n` (a trailing `\r` is left to the JSON parser, which
    /// takes it as whitespace).
    Complete(Vec<u8>),
    /// A frame over the limit: its first bytes, for the id; the rest was discarded.
    Oversized(Vec<u8>),
}

/// Cuts a byte stream into frames at `\n`, holding at most `max_frame` bytes.
pub struct FrameSplitter {
    max_frame: usize,
    buffer: Vec<u8>,
    /// Set while skipping the rest of an over-long frame.
    discarding: bool,
}

impl FrameSplitter {
    pub fn new(max_frame: usize) -> FrameSplitter {
        FrameSplitter {
            max_frame,
            buffer: Vec::new(),
            discarding: false,
        }
    }

    /// Feeds a chunk of input, calling `emit` for every frame it completes.
    pub fn feed(&mut self, mut chunk: &[u8], emit: &mut impl FnMut(Frame)) {
        while !chunk.is_empty() {
            let newline = chunk.iter().position(|&b| b == b'\n');
            let (part, rest) = match newline {
                Some(at) => (&chunk[..at], &chunk[at + 1..]),
                None => (chunk, &[][..]),
            };
            chunk = rest;
            if !self.discarding {
                if self.buffer.len() + part.len() > self.max_frame {
                    let room = frame::ID_SCAN_BYTES.saturating_sub(self.buffer.len());
                    self.buffer.extend_from_slice(&part[..part.len().min(room)]);
                    self.buffer.truncate(frame::ID_SCAN_BYTES);
                    emit(Frame::Oversized(std::mem::take(&mut self.buffer)));
                    self.discarding = true;
                } else {
                    self.buffer.extend_from_slice(part);
                }
            }
            if newline.is_some() {
                if !self.discarding {
                    emit(Frame::Complete(std::mem::take(&mut self.buffer)));
                }
                self.discarding = false;
            }
        }
    }

    /// Ends the input: an unterminated last frame still counts.
    pub fn finish(&mut self, emit: &mut impl FnMut(Frame)) {
        if !self.discarding && !self.buffer.is_empty() {
            emit(Frame::Complete(std::mem::take(&mut self.buffer)));
        }
        self.discarding = false;
    }
}

/// What becomes of one frame.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Forward(Vec<u8>, Forwarded),
    Answer(Rejection),
    Skip,
}

pub fn judge(frame: Frame, max_frame: usize) -> Outcome {
    match frame {
        Frame::Oversized(prefix) => Outcome::Answer(Rejection::too_large(&prefix, max_frame)),
        Frame::Complete(bytes) => match frame::check(&bytes) {
            Verdict::Forward(forwarded) => Outcome::Forward(bytes, forwarded),
            Verdict::Skip => Outcome::Skip,
            Verdict::Reject(rejection) => Outcome::Answer(rejection),
        },
    }
}

/// Serves MCP on stdin/stdout until stdin closes.
pub async fn serve_stdio(roots: Arc<Roots>, limits: Limits) -> Result<(), String> {
    limits.check()?;
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(write_lines(lines_rx, stdout));
    let in_flight = InFlightIds::default();
    tokio::spawn(copy_lines(from_rmcp, lines_tx.clone(), in_flight.clone()));
    let input_closed = Arc::new(AtomicBool::new(false));
    tokio::spawn(read_frames(
        stdin,
        to_rmcp,
        Answers {
            lines: lines_tx,
            in_flight,
        },
        limits.max_request_bytes,
        input_closed.clone(),
    ));

    // Frames reaching rmcp are already bounded; its own limit only needs to let them through.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new(rmcp_in, rmcp_out)
        .with_max_line_length(limits.max_request_bytes.saturating_add(2));
    let server = SextantServer::new(roots, limits);
    let outcome = match server.serve(transport).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(_) if input_closed.load(Ordering::SeqCst) => Ok(()),
        Err(e) => Err(format!("MCP initialization failed: {e}")),
    };
    // rmcp's transport is gone, so its pipe ends; the reader ends with stdin. Wait for the
    // writer only when the input is done, so answers already queued are written.
    if input_closed.load(Ordering::SeqCst) {
        let _ = writer.await;
    }
    outcome
}

/// Where the reader's own answers go, and the ids it holds for rmcp.
struct Answers {
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlightIds,
}

impl Answers {
    /// What to hand to rmcp: the frame, or `None` when it was answered here instead.
    fn admit(&self, outcome: Outcome) -> Option<Result<Vec<u8>, Rejection>> {
        match outcome {
            Outcome::Forward(bytes, Forwarded::Request(id)) => {
                Some(if self.in_flight.begin("", &id) {
                    Ok(bytes)
                } else {
                    Err(Rejection::already_in_flight(id))
                })
            }
            Outcome::Forward(bytes, Forwarded::Cancellation(id)) => {
                self.in_flight.end("", &id);
                Some(Ok(bytes))
            }
            Outcome::Forward(bytes, Forwarded::Other) => Some(Ok(bytes)),
            Outcome::Answer(rejection) => Some(Err(rejection)),
            Outcome::Skip => None,
        }
    }

    /// Queues an error answer; false once the writer is gone.
    async fn reject(&self, rejection: Rejection) -> bool {
        eprintln!("{}", rejection.log_line());
        let mut line = rejection.to_json().into_bytes();
        line.push(b'\n');
        self.lines.send(line).await.is_ok()
    }
}

/// Reads stdin, judges each frame, forwards valid ones to rmcp and queues answers for the
/// others. Returns at the end of stdin or when rmcp stops reading.
async fn read_frames(
    mut stdin: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    answers: Answers,
    max_frame: usize,
    input_closed: Arc<AtomicBool>,
) {
    let mut splitter = FrameSplitter::new(max_frame);
    let mut chunk = vec![0u8; PIPE_BYTES];
    loop {
        let read = match stdin.read(&mut chunk).await {
            Ok(0) => None,
            Ok(n) => Some(n),
            Err(e) => {
                eprintln!("sextant: reading stdin: {e}");
                None
            }
        };
        let mut outcomes = Vec::new();
        let mut emit = |frame| outcomes.push(judge(frame, max_frame));
        match read {
            Some(n) => splitter.feed(&chunk[..n], &mut emit),
            None => splitter.finish(&mut emit),
        }
        for outcome in outcomes {
            let delivered = match answers.admit(outcome) {
                Some(Ok(mut bytes)) => {
                    bytes.push(b'\n');
                    to_rmcp.write_all(&bytes).await.is_ok()
                }
                Some(Err(rejection)) => answers.reject(rejection).await,
                None => true,
            };
            if !delivered {
                return;
            }
        }
        if read.is_none() {
            input_closed.store(true, Ordering::SeqCst);
            let _ = to_rmcp.shutdown().await;
            return;
        }
    }
}

/// Cuts rmcp's output into lines for the writer, freeing the id of each answer.
async fn copy_lines(
    from_rmcp: impl AsyncRead + Unpin,
    lines: mpsc::Sender<Vec<u8>>,
    in_flight: InFlightIds,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if let Some(id) = inflight::answer_id(&line) {
                    in_flight.end("", &id);
                }
                if lines.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// The only writer of stdout: whole lines, flushed one by one.
async fn write_lines(mut lines: mpsc::Receiver<Vec<u8>>, mut stdout: impl AsyncWrite + Unpin) {
    while let Some(line) = lines.recv().await {
        if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
            // The client is gone; keep draining so senders never block.
            while lines.recv().await.is_some() {}
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::mcp::frame::{INVALID_REQUEST, PARSE_ERROR};

    fn split(input: &[&[u8]], max_frame: usize) -> Vec<Frame> {
        let mut splitter = FrameSplitter::new(max_frame);
        let mut frames = Vec::new();
        for chunk in input {
            splitter.feed(chunk, &mut |f| frames.push(f));
        }
        splitter.finish(&mut |f| frames.push(f));
        frames
    }

    #[test]
    fn frames_are_cut_at_newlines_across_chunks() {
        let frames = split(&[b"ab", b"c\nde\n\nf"], 100);
        assert_eq!(
            frames,
            [
                Frame::Complete(b"abc".to_vec()),
                Frame::Complete(b"de".to_vec()),
                Frame::Complete(vec![]),
                Frame::Complete(b"f".to_vec()),
            ]
        );
    }

    #[test]
    fn an_over_long_frame_is_reported_once_and_its_tail_dropped() {
        let frames = split(&[b"{\"id\":3,", &[b'x'; 50], &[b'y'; 50], b"\nok\n"], 20);
        assert_eq!(
            frames,
            [
                Frame::Oversized([&b"{\"id\":3,"[..], &[b'x'; 50]].concat()),
                Frame::Complete(b"ok".to_vec()),
            ]
        );
        // A frame of exactly the limit passes.
        assert_eq!(split(&[&[b'z'; 20]], 20), [Frame::Complete(vec![b'z'; 20])]);
    }

    const VALID: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":"k","method":"tools/call","params":{"name":"parse_source","arguments":{"source":"x = \"\\u00e9\"","language":"python"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    ];

    /// A valid frame with a few bytes replaced, inserted or removed.
    fn mutated_frame() -> impl Strategy<Value = Vec<u8>> {
        (
            proptest::sample::select(VALID),
            proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
        )
            .prop_map(|(frame, edits)| {
                let mut bytes = frame.as_bytes().to_vec();
                for (at, byte, kind) in edits {
                    let at = at % (bytes.len() + 1);
                    match kind {
                        0 if at < bytes.len() => bytes[at] = byte,
                        1 => bytes.insert(at, byte),
                        _ if at < bytes.len() => {
                            bytes.remove(at);
                        }
                        _ => {}
                    }
                }
                bytes
            })
    }

    /// Checks one judged frame: answers are well-formed JSON-RPC errors, forwarded frames
    /// parse as JSON objects within the limit.
    fn assert_well_judged(outcome: &Outcome, max_frame: usize) {
        match outcome {
            Outcome::Forward(bytes, _) => {
                assert!(bytes.len() <= max_frame);
                let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                assert!(value.is_object());
            }
            Outcome::Answer(rejection) => {
                let value: serde_json::Value = serde_json::from_str(&rejection.to_json()).unwrap();
                assert_eq!(value["jsonrpc"], "2.0");
                assert!(value["id"].is_null() || value["id"].is_string() || value["id"].is_i64());
                assert!(
                    [PARSE_ERROR, INVALID_REQUEST, frame::INVALID_PARAMS].contains(&rejection.code)
                );
            }
            Outcome::Skip => {}
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::fuzz_cases()))]

        #[test]
        fn fuzz_stdio_frames_arbitrary_bytes(
            frames in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..200),
                    mutated_frame(),
                ],
                1..8,
            ),
            cuts in proptest::collection::vec(any::<usize>(), 0..6),
            max_frame in 16usize..400,
        ) {
            // The frames joined by newlines, then cut into arbitrary chunks.
            let mut stream = Vec::new();
            for frame in &frames {
                stream.extend(frame.iter().filter(|&&b| b != b'\n'));
                stream.push(b'\n');
            }
            let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
            points.sort();
            let mut chunks = Vec::new();
            let mut start = 0;
            for point in points {
                chunks.push(&stream[start..point]);
                start = point;
            }
            chunks.push(&stream[start..]);
            let cut = split(&chunks, max_frame);
            // One frame per line, however the input was chunked.
            prop_assert_eq!(cut.len(), frames.len());
            for (frame, original) in cut.into_iter().zip(&frames) {
                let line: Vec<u8> = original.iter().copied().filter(|&b| b != b'\n').collect();
                let oversized = matches!(frame, Frame::Oversized(_));
                prop_assert_eq!(oversized, line.len() > max_frame);
                let outcome = judge(frame, max_frame);
                assert_well_judged(&outcome, max_frame);
                // A line that is not blank always gets an answer or goes to rmcp.
                let blank = line.iter().all(u8::is_ascii_whitespace)
                    || line.strip_prefix(b"\xEF\xBB\xBF").is_some_and(|l| l.iter().all(u8::is_ascii_whitespace));
                prop_assert_eq!(matches!(outcome, Outcome::Skip), blank && !oversized);
            }
        }

        #[test]
        fn fuzz_stdio_frames_mutated_requests(frame in mutated_frame()) {
            let outcome = judge(Frame::Complete(frame.clone()), usize::MAX);
            assert_well_judged(&outcome, usize::MAX);
            // Whatever id the frame carries, a recovered id is one the full parse agrees on.
            if let (Some(id), Ok(serde_json::Value::Object(object))) =
                (frame::recover_id(&frame), serde_json::from_slice::<serde_json::Value>(&frame))
            {
                prop_assert_eq!(Some(&id), object.get("id"));
            }
        }
    }
}
