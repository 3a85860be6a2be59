//! JSON-RPC 2.0 messages as NDJSON lines: reading one line from the host into a request (or
//! a refusal to answer with), and writing responses, errors and notifications as one line
//! each.
//!
//! This module owns the JSON-RPC rules of `devint.sidecar.v1`: a request is an object with
//! `"jsonrpc": "2.0"`, a string or integer `id`, a string `method` and by-name `params` (an
//! object, or absent); a batch (an array) is refused; a message without `id` is a
//! notification, which the sidecar never executes (its outcome could not be reported); the
//! whole message is refused if it carries anything token-shaped ([`crate::credential`]). It
//! must never guess: anything else is an error response, never a best effort. Every line
//! written is at most the line cap; a result that would exceed it becomes an error.

use serde_json::{json, Map, Value};

use crate::credential::find_token_shaped;
use crate::error::{ErrorKind, SidecarError};
use crate::framing::MAX_LINE_BYTES;

/// A request id as the host sent it (a string or an integer), echoed unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(Value);

impl RequestId {
    /// The id as JSON.
    #[cfg(test)]
    fn as_value(&self) -> &Value {
        &self.0
    }
}

/// One line from the host, read.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: answer it.
    Request {
        /// Its id.
        id: RequestId,
        /// The method name (not yet checked against the table).
        method: String,
        /// Its by-name params (empty when absent).
        params: Map<String, Value>,
    },
    /// A notification (no `id`): never executed, because its outcome could not be reported.
    Notification {
        /// The method name it asked for, for the log (bounded).
        method: String,
    },
    /// A blank line: ignored.
    Blank,
}

/// A line that cannot be served: the error to answer, with the request's id when it could
/// be read (`null` otherwise, per JSON-RPC).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The id to answer with.
    pub id: Option<RequestId>,
    /// Why.
    pub error: SidecarError,
}

fn reject(id: Option<RequestId>, kind: ErrorKind, message: &str, fix: &str) -> Rejected {
    Rejected {
        id,
        error: SidecarError::new(kind, message).fix(fix),
    }
}

/// The longest method name repeated in a log line or an error.
const METHOD_NAME_MAX: usize = 64;

/// Read one line.
pub fn parse_line(line: &[u8]) -> Result<Incoming, Rejected> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(Incoming::Blank);
    }
    let mut object = object_of(line)?;
    let id = id_of(&object)?;
    refuse_token_shapes(&object, &id)?;
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(reject(
            id,
            ErrorKind::InvalidRequest,
            "`jsonrpc` must be \"2.0\"",
            "add \"jsonrpc\":\"2.0\" to every message",
        ));
    }
    let method = method_of(&mut object, &id)?;
    let Some(id) = id else {
        return Ok(Incoming::Notification {
            method: bounded(&method),
        });
    };
    let params = params_of(&mut object, &id)?;
    Ok(Incoming::Request { id, method, params })
}

/// The line as one JSON object (a batch, a scalar or bad JSON is refused).
fn object_of(line: &[u8]) -> Result<Map<String, Value>, Rejected> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        reject(
            None,
            ErrorKind::ParseError,
            &format!(
                "the line is not one UTF-8 JSON value ({} at column {})",
                match e.classify() {
                    serde_json::error::Category::Io => "unreadable",
                    serde_json::error::Category::Syntax => "syntax error",
                    serde_json::error::Category::Data => "unexpected data",
                    serde_json::error::Category::Eof => "truncated",
                },
                e.column()
            ),
            "send one JSON-RPC 2.0 request per line, UTF-8, terminated by \\n",
        )
    })?;
    match value {
        Value::Object(o) => Ok(o),
        Value::Array(_) => Err(reject(
            None,
            ErrorKind::InvalidRequest,
            "batches are not supported by devint.sidecar.v1",
            "send one request per line; responses correlate by id",
        )),
        _ => Err(reject(
            None,
            ErrorKind::InvalidRequest,
            "a request must be a JSON object",
            "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"…\",\"params\":{…}}",
        )),
    }
}

/// The request's `id`: absent (a notification), a string or an integer.
fn id_of(object: &Map<String, Value>) -> Result<Option<RequestId>, Rejected> {
    Ok(match object.get("id") {
        None => None,
        Some(v @ Value::String(_)) => Some(RequestId(v.clone())),
        Some(v @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(RequestId(v.clone())),
        Some(_) => {
            return Err(reject(
                None,
                ErrorKind::InvalidRequest,
                "`id` must be a string or an integer",
                "give every request a fresh string or integer id (null is not accepted)",
            ))
        }
    })
}

/// Refuses the whole message when anything in it is token-shaped (never echoed: only the
/// path is named).
fn refuse_token_shapes(
    object: &Map<String, Value>,
    id: &Option<RequestId>,
) -> Result<(), Rejected> {
    if let Some(found) = find_token_shaped(&Value::Object(object.clone())) {
        let what = if found.by_key {
            "a key naming a token or secret"
        } else {
            "a token-shaped value"
        };
        return Err(reject(
            // The id is answered back only when it is not token-shaped itself: another
            // field may be the one found first (found by the `sidecar_lines` fuzz target).
            id.clone().filter(|id| find_token_shaped(&id.0).is_none()),
            ErrorKind::CredentialRefused,
            &format!(
                "the message carries {what} at {}; it was not used",
                found.path
            ),
            "never send a token over stdio: pass `token_file` (a path) or `client` (a name) \
             to session/open; if a real token was sent, rotate it (`devint tokens rotate`)",
        ));
    }
    Ok(())
}

/// The request's `method`, taken out of `object`.
fn method_of(object: &mut Map<String, Value>, id: &Option<RequestId>) -> Result<String, Rejected> {
    match object.remove("method") {
        Some(Value::String(m)) => Ok(m),
        Some(_) => Err(reject(
            id.clone(),
            ErrorKind::InvalidRequest,
            "`method` must be a string",
            "name one of the methods `initialize` lists",
        )),
        None => Err(reject(
            id.clone(),
            ErrorKind::InvalidRequest,
            "the message has no `method` (the sidecar sends no requests, so it expects \
             no responses)",
            "send requests only",
        )),
    }
}

/// The request's `params` (by name; absent is empty), taken out of `object`.
fn params_of(
    object: &mut Map<String, Value>,
    id: &RequestId,
) -> Result<Map<String, Value>, Rejected> {
    match object.remove("params") {
        None => Ok(Map::new()),
        Some(Value::Object(p)) => Ok(p),
        Some(Value::Array(_)) => Err(reject(
            Some(id.clone()),
            ErrorKind::InvalidParams,
            "params must be an object (by name), not an array",
            "send params as {\"name\": value, …}",
        )),
        Some(_) => Err(reject(
            Some(id.clone()),
            ErrorKind::InvalidRequest,
            "`params` must be an object",
            "send params as {\"name\": value, …} or leave them out",
        )),
    }
}

/// At most 64 characters of a host-chosen name, control characters
/// replaced, for logs and messages.
pub fn bounded(name: &str) -> String {
    name.chars()
        .take(METHOD_NAME_MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The line for a successful response. A result too large for one line becomes an
/// internal error response instead.
pub fn response_line(id: &RequestId, result: Value) -> String {
    let line = json!({"jsonrpc": "2.0", "id": id.0, "result": result}).to_string();
    if line.len() <= MAX_LINE_BYTES {
        line
    } else {
        error_line(
            Some(id),
            &SidecarError::internal(format!(
                "the result is {} bytes, over the {MAX_LINE_BYTES}-byte line cap",
                line.len()
            ))
            .fix("ask for less (e.g. a smaller `limit`)"),
        )
    }
}

/// The line for an error response (`id` null when the request's id is unknown).
pub fn error_line(id: Option<&RequestId>, error: &SidecarError) -> String {
    let id = id.map(|i| i.0.clone()).unwrap_or(Value::Null);
    let line = json!({"jsonrpc": "2.0", "id": id, "error": error.to_object()}).to_string();
    if line.len() <= MAX_LINE_BYTES {
        line
    } else {
        // Only an id near the cap can do this: answer without echoing it.
        json!({"jsonrpc": "2.0", "id": Value::Null, "error": error.to_object()}).to_string()
    }
}

/// The line for a notification.
pub fn notification_line(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(line: &str) -> Rejected {
        parse_line(line.as_bytes()).expect_err("refused")
    }

    #[test]
    fn a_request_is_read_with_its_id_method_and_params() {
        let m = parse_line(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"session_id":"s-1"}}"#,
        )
        .unwrap();
        let Incoming::Request { id, method, params } = m else {
            panic!("a request")
        };
        assert_eq!(id.as_value(), &json!("a"));
        assert_eq!(method, "tools/list");
        assert_eq!(params["session_id"], "s-1");
    }

    #[test]
    fn malformed_json_is_a_parse_error_with_a_null_id() {
        let r = rejected("{\"jsonrpc\":");
        assert_eq!((r.id, r.error.kind), (None, ErrorKind::ParseError));
        let r = parse_line(b"\xff\xfe").expect_err("not UTF-8");
        assert_eq!(r.error.kind, ErrorKind::ParseError);
    }

    #[test]
    fn a_batch_a_null_id_and_a_missing_version_are_invalid_requests() {
        assert_eq!(
            rejected(r#"[{"jsonrpc":"2.0","id":1,"method":"initialize"}]"#)
                .error
                .kind,
            ErrorKind::InvalidRequest
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":null,"method":"initialize"}"#)
                .error
                .kind,
            ErrorKind::InvalidRequest
        );
        let r = rejected(r#"{"id":7,"method":"initialize"}"#);
        assert_eq!(r.error.kind, ErrorKind::InvalidRequest);
        assert_eq!(r.id.expect("echoed").as_value(), &json!(7));
    }

    #[test]
    fn positional_params_are_invalid_params() {
        let r = rejected(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1]}"#);
        assert_eq!(r.error.kind, ErrorKind::InvalidParams);
    }

    #[test]
    fn a_message_without_an_id_is_a_notification() {
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","method":"session/close","params":{}}"#).unwrap(),
            Incoming::Notification {
                method: "session/close".into()
            }
        );
    }

    #[test]
    fn a_token_in_params_refuses_the_whole_message_without_echoing_it() {
        let token = "ab".repeat(32);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"session/open","params":{{"client_name":"x","client_version":"1","capability_token":"{token}"}}}}"#
        );
        let r = rejected(&line);
        assert_eq!(r.error.kind, ErrorKind::CredentialRefused);
        let text = error_line(r.id.as_ref(), &r.error);
        assert!(!text.contains(&token));
        assert!(text.contains("capability_token"));
    }

    #[test]
    fn a_token_shaped_id_is_never_echoed_even_when_another_field_is_found_first() {
        // The `sidecar_lines` fuzz target's find: a key naming a secret comes before the id,
        // so the refusal named that key, and the id (a token) was answered back.
        let token = "0123456789abcdef".repeat(4);
        let line =
            format!(r#"{{"api_key":"x","id":"{token}","jsonrpc":"2.0","method":"initialize"}}"#);
        let r = rejected(&line);
        assert_eq!(r.error.kind, ErrorKind::CredentialRefused);
        assert!(r.id.is_none());
        let text = error_line(r.id.as_ref(), &r.error);
        assert!(!text.contains(&token), "{text}");
    }

    #[test]
    fn a_result_over_the_cap_becomes_an_error() {
        let id = RequestId(json!(1));
        let line = response_line(&id, json!("x".repeat(MAX_LINE_BYTES)));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["error"]["data"]["kind"], "internal");
        assert!(line.len() <= MAX_LINE_BYTES);
    }
}
