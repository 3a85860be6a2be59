//! The fuzz harness of the line reader (feature `fuzzing`): arbitrary bytes, cut into lines
//! three ways, each line read as JSON-RPC.
//!
//! Invariants checked (a panic is a finding): the framer never holds more than its cap;
//! whole, byte-by-byte and split feeding give the same frames, and the same as the naive
//! unbounded split at every `\n`; no line holds a `\n` or exceeds the cap; reading a line
//! never panics, and every refusal is answered by one JSON-RPC 2.0 error line of at most
//! the cap whose `data.exit` is a spec §9 code and which does not repeat a token the line
//! carried.

use crate::framing::{Frame, LineFramer, MAX_LINE_BYTES};
use crate::rpc::{error_line, parse_line};

fn frames(cap: usize, input: &[u8], cuts: &[usize]) -> Vec<Frame> {
    let mut framer = LineFramer::new(cap);
    let mut out = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let cut = cut.clamp(at, input.len());
        framer.push(&input[at..cut], &mut out);
        assert!(
            framer.buffered() <= cap,
            "the framer held more than its cap"
        );
        at = cut;
    }
    out.extend(framer.finish());
    out
}

/// The `sidecar_lines` target: `data[0]` picks the cap (1..=256 bytes, so oversize lines
/// are common), `data[1]` a cut stride; the rest is the input.
pub fn lines(data: &[u8]) {
    let (cap, stride, input) = match data {
        [c, s, rest @ ..] => (usize::from(*c) + 1, usize::from(*s) + 1, rest),
        _ => return,
    };
    let whole = frames(cap, input, &[]);
    let bytewise: Vec<usize> = (0..input.len()).collect();
    assert_eq!(frames(cap, input, &bytewise), whole, "byte-by-byte differs");
    let split: Vec<usize> = (0..input.len()).step_by(stride).collect();
    assert_eq!(frames(cap, input, &split), whole, "split feeding differs");

    assert_eq!(
        whole,
        oracle(cap, input),
        "frames differ from the naive split"
    );
    for frame in &whole {
        if let Frame::Line(line) = frame {
            assert!(line.len() <= cap && !line.contains(&b'\n'));
        }
    }

    for frame in &whole {
        if let Frame::Line(line) = frame {
            if let Err(rejected) = parse_line(line) {
                let text = error_line(rejected.id.as_ref(), &rejected.error);
                assert!(text.len() <= MAX_LINE_BYTES && !text.contains('\n'));
                let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                assert_eq!(v["jsonrpc"], "2.0");
                assert!(v["error"]["data"]["exit"].as_u64().is_some_and(|e| e <= 11));
                if let Some(token) = token_run(line) {
                    assert!(!text.contains(token), "an error repeated a token");
                }
            }
        }
    }
}

/// What the frames must be, by the obvious (unbounded) method: split at every `\n`.
fn oracle(cap: usize, input: &[u8]) -> Vec<Frame> {
    let mut segments: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if segments.last().is_some_and(|s| s.is_empty()) {
        segments.pop();
    }
    segments
        .into_iter()
        .map(|seg| {
            if seg.len() > cap {
                Frame::Oversize { len: seg.len() }
            } else {
                Frame::Line(seg.strip_suffix(b"\r").unwrap_or(seg).to_vec())
            }
        })
        .collect()
}

/// The first 64-character hex run in `line`, if any.
fn token_run(line: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(line).ok()?;
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        if !b.is_ascii_hexdigit() {
            start = i + 1;
        } else if i + 1 - start == 64 {
            return text.get(start..=i);
        }
    }
    None
}
