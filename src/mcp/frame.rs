//! JSON-RPC frame validation shared by the stdio and HTTP transports.
//!
//! Invariant: every frame gets exactly one verdict. A frame is forwarded to rmcp only if it is
//! UTF-8, parses as one JSON object, and deserializes as a client message whose standard method
//! kept its typed parameters; anything else that could be a request gets a JSON-RPC error
//! object (-32700, -32600 or -32602) carrying the request `id` when one can be trusted, else
//! `null`. rmcp alone would drop unparsable frames silently and treat a standard method with
//! malformed parameters as an unknown method (-32601). A forwarded frame says whether it is a
//! request (with its id) or a cancellation, for the transports' ids in flight (`inflight`).

use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde_json::{Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// Client request methods rmcp knows; one of these arriving as rmcp's catch-all
/// `CustomRequest` means its parameters did not fit the method's type.
const STANDARD_REQUEST_METHODS: &[&str] = &[
    "ping",
    "initialize",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// How far into an over-long frame [`recover_id`] looks for the request `id`.
pub const ID_SCAN_BYTES: usize = 4096;

/// What to do with one frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Hand the frame to rmcp unchanged.
    Forward(Forwarded),
    /// Nothing to do (a blank line).
    Skip,
    /// Answer with this error instead of forwarding.
    Reject(Rejection),
}

/// What a forwarded frame is, as far as requests in flight are concerned.
#[derive(Debug, Clone, PartialEq)]
pub enum Forwarded {
    /// A request, with its id.
    Request(Value),
    /// `notifications/cancelled` naming this request id: rmcp drops the answer of a
    /// cancelled request, so the id is free again.
    Cancellation(Value),
    /// Another notification, or a response to the server.
    Other,
}

/// A JSON-RPC error answer for a frame that is not forwarded.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub code: i64,
    pub message: String,
    /// The request id to answer with; `Value::Null` when none can be trusted.
    pub id: Value,
}

impl Rejection {
    fn new(code: i64, message: impl Into<String>, id: Value) -> Rejection {
        Rejection {
            code,
            message: message.into(),
            id,
        }
    }

    /// The error answer for a frame over `limit` bytes, of which `prefix` is the start.
    pub fn too_large(prefix: &[u8], limit: usize) -> Rejection {
        Rejection::new(
            INVALID_REQUEST,
            format!("request frame over the {limit} byte limit (--max-request-bytes)"),
            recover_id(prefix).unwrap_or(Value::Null),
        )
    }

    /// The answer to a request whose id names a request still in flight: rmcp keys a
    /// request's state by its id, so it would answer only one of the two.
    pub fn already_in_flight(id: Value) -> Rejection {
        Rejection::new(
            INVALID_REQUEST,
            format!("invalid request: request id {id} already in flight"),
            id,
        )
    }

    /// The JSON-RPC error object, as one line of JSON without the newline.
    pub fn to_json(&self) -> String {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
    }

    /// A one-line description for the server log.
    pub fn log_line(&self) -> String {
        format!(
            "sextant: rejected a request frame (id {}): {} {}",
            self.id, self.code, self.message
        )
    }
}

/// Judges one complete frame (without its line terminator).
pub fn check(frame: &[u8]) -> Verdict {
    let frame = frame.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(frame);
    if frame.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let text = match std::str::from_utf8(frame) {
        Ok(text) => text,
        Err(e) => {
            return Verdict::Reject(Rejection::new(
                PARSE_ERROR,
                format!("parse error: invalid UTF-8 at byte {}", e.valid_up_to()),
                Value::Null,
            ));
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Verdict::Reject(Rejection::new(
                PARSE_ERROR,
                format!("parse error: {e}"),
                Value::Null,
            ));
        }
    };
    match check_value(&value) {
        Ok(forwarded) => Verdict::Forward(forwarded),
        Err(rejection) => Verdict::Reject(rejection),
    }
}

/// The checks on a parsed frame; `Ok` means forward it.
fn check_value(value: &Value) -> Result<Forwarded, Rejection> {
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "invalid request: batches are not supported",
                Value::Null,
            ));
        }
        _ => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "invalid request: a message must be a JSON object",
                Value::Null,
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id) if is_valid_id(id) => Some(id.clone()),
        Some(_) => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "invalid request: `id` must be a string or an integer",
                Value::Null,
            ));
        }
    };
    let answer_id = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejection::new(
            INVALID_REQUEST,
            "invalid request: `jsonrpc` must be \"2.0\"",
            answer_id,
        ));
    }
    let method = match object.get("method") {
        None => None,
        Some(Value::String(method)) => Some(method.as_str()),
        Some(_) => {
            return Err(Rejection::new(
                INVALID_REQUEST,
                "invalid request: `method` must be a string",
                answer_id,
            ));
        }
    };
    if method.is_none() && id.is_none() {
        return Err(Rejection::new(
            INVALID_REQUEST,
            "invalid request: neither a request, a notification nor a response",
            Value::Null,
        ));
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(ClientJsonRpcMessage::Request(request)) => match &request.request {
            ClientRequest::CustomRequest(custom)
                if STANDARD_REQUEST_METHODS.contains(&custom.method.as_str()) =>
            {
                Err(Rejection::new(
                    INVALID_PARAMS,
                    format!("invalid params for {}", custom.method),
                    answer_id,
                ))
            }
            _ => Ok(Forwarded::Request(answer_id)),
        },
        Ok(ClientJsonRpcMessage::Notification(_)) if method == Some(CANCELLED) => {
            Ok(cancelled_id(object).map_or(Forwarded::Other, Forwarded::Cancellation))
        }
        Ok(_) => Ok(Forwarded::Other),
        // rmcp skips notifications it does not know; leave that to it.
        Err(_) if id.is_none() => Ok(Forwarded::Other),
        Err(e) => Err(match method {
            Some(method) if STANDARD_REQUEST_METHODS.contains(&method) => Rejection::new(
                INVALID_PARAMS,
                format!("invalid params for {method}: {e}"),
                answer_id,
            ),
            _ => Rejection::new(INVALID_REQUEST, format!("invalid request: {e}"), answer_id),
        }),
    }
}

const CANCELLED: &str = "notifications/cancelled";

/// The request id a `notifications/cancelled` names, if it is a valid id.
fn cancelled_id(object: &serde_json::Map<String, Value>) -> Option<Value> {
    let id = object.get("params")?.get("requestId")?;
    is_valid_id(id).then(|| id.clone())
}

/// JSON-RPC ids are strings or integers; rmcp holds numbers as `i64`.
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64(),
        _ => false,
    }
}

/// Finds the top-level `"id"` member in the start of a frame that may be cut anywhere,
/// without parsing the rest. Returns it only if it is a complete, valid id.
pub fn recover_id(prefix: &[u8]) -> Option<Value> {
    let prefix = &prefix[..prefix.len().min(ID_SCAN_BYTES)];
    let prefix = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    let mut scanner = Scanner {
        bytes: prefix,
        at: 0,
    };
    scanner.skip_whitespace();
    if !scanner.eat(b'{') {
        return None;
    }
    loop {
        scanner.skip_whitespace();
        let key = scanner.string()?;
        scanner.skip_whitespace();
        if !scanner.eat(b':') {
            return None;
        }
        scanner.skip_whitespace();
        let start = scanner.at;
        scanner.value()?;
        if key == b"\"id\"" {
            let id: Value = serde_json::from_slice(&prefix[start..scanner.at]).ok()?;
            return is_valid_id(&id).then_some(id);
        }
        scanner.skip_whitespace();
        if !scanner.eat(b',') {
            return None;
        }
    }
}

/// A byte cursor that skips over JSON values without building them; every step either
/// advances or fails, so it ends on any input.
struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// Skips a string, returning its raw bytes with the quotes.
    fn string(&mut self) -> Option<&'a [u8]> {
        let bytes = self.bytes;
        let start = self.at;
        if !self.eat(b'"') {
            return None;
        }
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(&bytes[start..self.at]);
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// Skips one value; nesting is tracked by a depth count, strings are skipped whole.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
            }
            _ => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                // A scalar cut by the end of the prefix is incomplete.
                (self.at > start && self.at < self.bytes.len()).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(frame: &str) -> Rejection {
        match check(frame.as_bytes()) {
            Verdict::Reject(rejection) => rejection,
            other => panic!("{frame}: {other:?}"),
        }
    }

    #[test]
    fn valid_messages_are_forwarded() {
        for frame in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"outline","arguments":{"path":"x"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"vendor/custom","params":{}}"#,
        ] {
            assert!(
                matches!(check(frame.as_bytes()), Verdict::Forward(_)),
                "{frame}"
            );
        }
        assert_eq!(check(b" \r"), Verdict::Skip);
    }

    #[test]
    fn forwarded_frames_name_their_request_id_or_the_id_they_cancel() {
        let forwarded = |frame: &str| match check(frame.as_bytes()) {
            Verdict::Forward(forwarded) => forwarded,
            other => panic!("{frame}: {other:?}"),
        };
        assert_eq!(
            forwarded(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#),
            Forwarded::Request(json!("a"))
        );
        assert_eq!(
            forwarded(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#
            ),
            Forwarded::Cancellation(json!(4))
        );
        assert_eq!(
            forwarded(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Forwarded::Other
        );
    }

    #[test]
    fn unparsable_frames_are_parse_errors_with_a_null_id() {
        for frame in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}",
            br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            b"{\"id\": 1,",
        ] {
            let Verdict::Reject(rejection) = check(frame) else {
                panic!("{frame:?}");
            };
            assert_eq!((rejection.code, rejection.id), (PARSE_ERROR, Value::Null));
        }
    }

    #[test]
    fn malformed_requests_are_invalid_requests() {
        let wrong_version = rejected(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#);
        assert_eq!(
            (wrong_version.code, wrong_version.id),
            (INVALID_REQUEST, json!(4))
        );
        let fractional_id = rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert_eq!(
            (fractional_id.code, fractional_id.id),
            (INVALID_REQUEST, Value::Null)
        );
        assert_eq!(rejected("[]").code, INVALID_REQUEST);
        assert_eq!(rejected("17").code, INVALID_REQUEST);
        assert_eq!(rejected(r#"{"jsonrpc":"2.0"}"#).code, INVALID_REQUEST);
    }

    #[test]
    fn typed_methods_with_malformed_params_are_invalid_params() {
        let string_arguments = rejected(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"outline","arguments":"x"}}"#,
        );
        assert_eq!(
            (string_arguments.code, string_arguments.id),
            (INVALID_PARAMS, json!(9))
        );
        let no_name = rejected(r#"{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{}}"#);
        assert_eq!((no_name.code, no_name.id), (INVALID_PARAMS, json!("q")));
    }

    #[test]
    fn ids_are_recovered_from_the_start_of_a_frame() {
        let start = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"arguments":{"source":"xxxx"#;
        assert_eq!(recover_id(start), Some(json!(42)));
        let string_id = br#" {"params":{"a":[1,{"id":5}]},"id":"r-1","method":"x"#;
        assert_eq!(recover_id(string_id), Some(json!("r-1")));
        assert_eq!(recover_id(br#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(
            recover_id(br#"{"jsonrpc":"2.0","params":{"source":"xx"#),
            None
        );
        assert_eq!(recover_id(br#"{"id":null,"x":1"#), None);
    }
}
