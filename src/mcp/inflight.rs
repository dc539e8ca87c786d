//! Request ids in flight, per session, for the transports that hand requests to rmcp.
//!
//! Invariant: an id is held from the moment its request is handed to rmcp until its answer
//! leaves (or the client cancels it); a request whose id is held is never handed to rmcp but
//! answered at once with -32600 ([`Rejection::already_in_flight`]). rmcp keys a request's
//! state by its id alone, so a second request with the same id would take the first one's
//! place and one of the two answers would be lost. The MCP specification forbids reusing an
//! id within a session; the answer tells a client that did so, instead of leaving it waiting.
//!
//! [`Rejection::already_in_flight`]: super::frame::Rejection::already_in_flight

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use serde::Deserialize;
use serde_json::Value;

/// The ids in flight, each with its session (empty for stdio, which has one), numbered so
/// that a guard freeing its id late never frees a later request's.
#[derive(Clone, Default)]
pub struct InFlightIds(Arc<Mutex<Held>>);

#[derive(Default)]
struct Held {
    ids: HashMap<String, u64>,
    next: u64,
}

impl InFlightIds {
    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds `id` of `session`; `None` if it is already held, else its number.
    fn take(&self, session: &str, id: &Value) -> Option<u64> {
        let mut held = self.lock();
        let number = held.next;
        match held.ids.entry(key(session, id)) {
            std::collections::hash_map::Entry::Occupied(_) => None,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(number);
                held.next += 1;
                Some(number)
            }
        }
    }

    /// Holds `id` of `session`; false if it is already held.
    pub fn begin(&self, session: &str, id: &Value) -> bool {
        self.take(session, id).is_some()
    }

    /// Frees `id` of `session` (its answer left, or it was cancelled).
    pub fn end(&self, session: &str, id: &Value) {
        self.lock().ids.remove(&key(session, id));
    }

    /// Holds `id` of `session` until the returned guard is dropped; `None` if it is held.
    pub fn hold(&self, session: &str, id: &Value) -> Option<HeldId> {
        let number = self.take(session, id)?;
        Some(HeldId {
            ids: self.clone(),
            key: key(session, id),
            number,
        })
    }
}

/// The JSON text of an id tells `1` from `"1"`, which are different ids.
fn key(session: &str, id: &Value) -> String {
    format!("{session}\n{id}")
}

/// An id held for as long as this lives (an HTTP response in progress).
pub struct HeldId {
    ids: InFlightIds,
    key: String,
    number: u64,
}

impl Drop for HeldId {
    fn drop(&mut self) {
        let mut held = self.ids.lock();
        if held.ids.get(&self.key) == Some(&self.number) {
            held.ids.remove(&self.key);
        }
    }
}

/// The id of a message rmcp sends if it is an answer (a result or an error), not a request
/// or a notification of its own.
pub fn answer_id(line: &[u8]) -> Option<Value> {
    #[derive(Deserialize)]
    struct Envelope {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    let envelope: Envelope = serde_json::from_slice(line).ok()?;
    match envelope {
        Envelope {
            id: Some(id),
            method: None,
        } if !id.is_null() => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_id_is_held_once_per_session_until_it_ends() {
        let ids = InFlightIds::default();
        assert!(ids.begin("", &json!(1)));
        assert!(!ids.begin("", &json!(1)));
        assert!(ids.begin("", &json!("1")), "a string id is another id");
        assert!(ids.begin("other", &json!(1)), "another session's id");
        ids.end("", &json!(1));
        assert!(ids.begin("", &json!(1)));
        let held = ids.hold("s", &json!(7)).unwrap();
        assert!(ids.hold("s", &json!(7)).is_none());
        drop(held);
        let early = ids.hold("s", &json!(7)).unwrap();
        // Cancelled: the id is free, and a late guard leaves its next holder alone.
        ids.end("s", &json!(7));
        let next = ids.hold("s", &json!(7)).unwrap();
        drop(early);
        assert!(ids.hold("s", &json!(7)).is_none());
        drop(next);
        assert!(ids.hold("s", &json!(7)).is_some());
    }

    #[test]
    fn answers_are_told_from_requests_and_notifications() {
        assert_eq!(
            answer_id(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Some(json!(3))
        );
        assert_eq!(
            answer_id(br#"{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":""}}"#),
            Some(json!("x"))
        );
        assert_eq!(
            answer_id(br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#),
            None
        );
        assert_eq!(
            answer_id(br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#),
            None
        );
        assert_eq!(answer_id(b"not json"), None);
    }
}
