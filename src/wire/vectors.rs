//! Byte vectors for every frame kind of both directions and for every decoder refusal. The
//! expected bytes are written by hand from the protobuf encoding rules (key = field << 3 |
//! wire type; varints little-endian base 128), never produced by the code under test.

use super::pb;
use super::*;

/// Hex with spaces for readability → bytes.
fn h(hex_text: &str) -> Vec<u8> {
    let compact: String = hex_text.split_whitespace().collect();
    hex::decode(compact).expect("test vector is valid hex")
}

fn decode_one<D: FrameDirection>(bytes: &[u8]) -> Result<D::Frame, FrameError> {
    let mut decoder = Decoder::<D>::new();
    let mut input = bytes;
    let frame = decoder.decode(&mut input)?.expect("a whole frame was fed");
    assert!(input.is_empty(), "the vector is exactly one frame");
    assert!(decoder.at_frame_boundary());
    Ok(frame)
}

fn decode_bytewise<D: FrameDirection>(bytes: &[u8]) -> Result<Vec<D::Frame>, FrameError> {
    let mut decoder = Decoder::<D>::new();
    let mut frames = Vec::new();
    for byte in bytes.chunks(1) {
        let mut input = byte;
        if let Some(frame) = decoder.decode(&mut input)? {
            frames.push(frame);
        }
        assert!(input.is_empty());
    }
    Ok(frames)
}

/// Asserts `frame` encodes to exactly `hex_text` and that those bytes decode back to it,
/// whole and one byte at a time.
fn assert_vector<D: FrameDirection>(frame: D::Frame, hex_text: &str) {
    let expected = h(hex_text);
    assert_eq!(hex::encode(encode(&frame).unwrap()), hex::encode(&expected));
    assert_eq!(encoded_len(&frame), expected.len());
    assert_eq!(decode_one::<D>(&expected).unwrap(), frame);
    assert_eq!(decode_bytewise::<D>(&expected).unwrap(), vec![frame]);
}

// ---- client → server ----

#[test]
fn hello_vector() {
    let hello = pb::Hello {
        client_name: "x".into(),
        client_version: "1".into(),
        di_api_versions: vec![1, 5],
        lifecycle_schema_versions: vec![1],
    };
    // tag 1, len 13 | 1: "x" | 2: "1" | 3: packed [1, 5] | 4: packed [1]
    assert_vector::<ClientToServer>(
        ClientFrame::Hello(hello),
        "01 0d  0a 01 78  12 01 31  1a 02 01 05  22 01 01",
    );
}

#[test]
fn minimal_hello_vector() {
    let hello = pb::Hello {
        client_name: "x".into(),
        di_api_versions: vec![1, 5],
        ..Default::default()
    };
    assert_vector::<ClientToServer>(ClientFrame::Hello(hello), "01 07  0a 01 78  1a 02 01 05");
}

#[test]
fn request_vector() {
    let request = pb::Request {
        request_id: 7,
        verb: pb::Verb::Status as i32,
        capability_token: "ab".into(),
        tool_id: "codex".into(),
        ..Default::default()
    };
    // tag 2, len 15 | 1: 7 | 2: 4 (STATUS) | 3: "ab" | 4: "codex"
    assert_vector::<ClientToServer>(
        ClientFrame::Request(request),
        "02 0f  08 07  10 04  1a 02 61 62  22 05 63 6f 64 65 78",
    );
}

#[test]
fn request_with_nested_plan_args_vector() {
    let request = pb::Request {
        request_id: 1,
        verb: pb::Verb::Plan as i32,
        plan: Some(pb::PlanArgs {
            settings_scope: "user".into(),
            allow_privileged_host_steps: true,
            ..Default::default()
        }),
        ..Default::default()
    };
    // tag 2, len 14 | 1: 1 | 2: 2 (PLAN) | 5: { 3: "user" | 4: true }
    assert_vector::<ClientToServer>(
        ClientFrame::Request(request),
        "02 0e  08 01  10 02  2a 08 1a 04 75 73 65 72 20 01",
    );
}

#[test]
fn zero_length_payloads_are_legal_in_both_directions() {
    assert_vector::<ClientToServer>(ClientFrame::Hello(pb::Hello::default()), "01 00");
    assert_vector::<ClientToServer>(ClientFrame::Request(pb::Request::default()), "02 00");
    assert_vector::<ServerToClient>(ServerFrame::HelloAck(pb::HelloAck::default()), "01 00");
    assert_vector::<ServerToClient>(
        ServerFrame::Incompatible(pb::Incompatible::default()),
        "02 00",
    );
    assert_vector::<ServerToClient>(ServerFrame::Response(pb::Response::default()), "03 00");
    assert_vector::<ServerToClient>(ServerFrame::Denied(pb::Denied::default()), "04 00");
}

#[test]
fn a_two_byte_length_prefix_is_little_endian_base_128() {
    let hello = pb::Hello {
        client_name: "a".repeat(297),
        ..Default::default()
    };
    // payload = 0a + varint(297) (a9 02) + 297 bytes = 300 → length ac 02
    let bytes = encode(&ClientFrame::Hello(hello.clone())).unwrap();
    assert_eq!(hex::encode(&bytes[..5]), "01ac020aa9");
    assert_eq!(bytes[5], 0x02);
    assert_eq!(bytes.len(), 1 + 2 + 300);
    assert_eq!(
        decode_one::<ClientToServer>(&bytes).unwrap(),
        ClientFrame::Hello(hello)
    );
}

// ---- server → client ----

#[test]
fn hello_ack_with_provenance_vector() {
    let ack = pb::HelloAck {
        outcome: pb::NegotiationOutcome::Supported as i32,
        di_api_version: 5,
        lifecycle_schema_version: 1,
        min_supported: 1,
        max_supported: 5,
        provenance: Some(pb::RuntimeProvenance {
            pid: 42,
            executable_present: true,
            build_id_source: "absent".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    // tag 1, len 24 | 1: 1 | 2: 5 | 4: 1 | 5: 1 | 6: 5 | 10: { 3: 42 | 5: true | 8: "absent" }
    assert_vector::<ServerToClient>(
        ServerFrame::HelloAck(ack),
        "01 18  08 01  10 05  20 01  28 01  30 05  52 0c 18 2a 28 01 42 06 61 62 73 65 6e 74",
    );
}

#[test]
fn degraded_hello_ack_vector() {
    let ack = pb::HelloAck {
        outcome: pb::NegotiationOutcome::Degraded as i32,
        di_api_version: 1,
        unavailable_verbs: vec!["scoped_events".into(), "approval_relay".into()],
        ..Default::default()
    };
    // tag 1, len 35 | 1: 2 | 2: 1 | 7: "scoped_events" | 7: "approval_relay"
    assert_vector::<ServerToClient>(
        ServerFrame::HelloAck(ack),
        "01 23  08 02  10 01 \
         3a 0d 73 63 6f 70 65 64 5f 65 76 65 6e 74 73 \
         3a 0e 61 70 70 72 6f 76 61 6c 5f 72 65 6c 61 79",
    );
}

#[test]
fn incompatible_vector() {
    let incompatible = pb::Incompatible {
        reason: "old".into(),
        remediation: "up".into(),
        min_supported: 1,
        max_supported: 5,
    };
    // tag 2, len 13 | 1: "old" | 2: "up" | 3: 1 | 4: 5
    assert_vector::<ServerToClient>(
        ServerFrame::Incompatible(incompatible),
        "02 0d  0a 03 6f 6c 64  12 02 75 70  18 01  20 05",
    );
}

#[test]
fn response_with_nested_status_view_vector() {
    let response = pb::Response {
        request_id: 7,
        verb: pb::Verb::Status as i32,
        status: Some(Box::new(pb::StatusView {
            tool_id: "codex".into(),
            state: "ladder".into(),
            policy: Some(pb::PolicyView {
                state: "enforced".into(),
                ..Default::default()
            }),
            ..Default::default()
        })),
        ..Default::default()
    };
    // tag 3, len 33 | 1: 7 | 2: 4 | 6: { 1: "codex" | 3: "ladder" | 14: { 1: "enforced" } }
    assert_vector::<ServerToClient>(
        ServerFrame::Response(response),
        "03 21  08 07  10 04  32 1b \
         0a 05 63 6f 64 65 78  1a 06 6c 61 64 64 65 72  72 0a 0a 08 65 6e 66 6f 72 63 65 64",
    );
}

#[test]
fn denied_vector() {
    let denied = pb::Denied {
        request_id: 0,
        code: pb::DenyCode::ProtocolViolation as i32,
        message: "m".into(),
        remediation: "r".into(),
    };
    // tag 4, len 8 | 2: 5 (PROTOCOL_VIOLATION) | 3: "m" | 4: "r"
    assert_vector::<ServerToClient>(
        ServerFrame::Denied(denied),
        "04 08  10 05  1a 01 6d  22 01 72",
    );
}

#[test]
fn denied_with_largest_request_id_vector() {
    let denied = pb::Denied {
        request_id: u64::MAX,
        ..Default::default()
    };
    // tag 4, len 11 | 1: u64::MAX as a 10-byte varint
    assert_vector::<ServerToClient>(
        ServerFrame::Denied(denied),
        "04 0b  08 ff ff ff ff ff ff ff ff ff 01",
    );
}

#[test]
fn tags_overlap_and_the_direction_decides() {
    let bytes = h("01 07  0a 01 78  1a 02 01 05");
    assert!(matches!(
        decode_one::<ClientToServer>(&bytes),
        Ok(ClientFrame::Hello(_))
    ));
    // The same bytes read by a client are a HelloAck (field 1 = outcome is a varint, so the
    // string-typed field 1 does not decode) — the direction alone decides the message.
    let err = decode_one::<ServerToClient>(&bytes).unwrap_err();
    assert_eq!(err.kind(), FrameErrorKind::MalformedPayload);
    assert!(matches!(
        err,
        FrameError::MalformedPayload {
            message: "HelloAck",
            ..
        }
    ));
}

// ---- the payload limit ----

/// A Hello whose payload is `payload_len` bytes (for `payload_len` in 4 + 2^14 ..= 3 + 2^21).
fn hello_with_payload_len(payload_len: usize) -> pb::Hello {
    let name_len = payload_len - 1 - 3; // key 0a + 3-byte varint
    pb::Hello {
        client_name: "n".repeat(name_len),
        ..Default::default()
    }
}

#[test]
fn a_payload_of_exactly_one_mib_is_allowed() {
    let frame = ClientFrame::Hello(hello_with_payload_len(MAX_PAYLOAD));
    let bytes = encode(&frame).unwrap();
    // tag 1, length 1048576 = 80 80 40, key 0a, name length 1048572 = fc ff 3f
    assert_eq!(hex::encode(&bytes[..8]), "018080400afcff3f");
    assert_eq!(bytes.len(), 4 + MAX_PAYLOAD);
    assert_eq!(decode_one::<ClientToServer>(&bytes).unwrap(), frame);
}

#[test]
fn encoding_a_payload_over_one_mib_is_refused() {
    let frame = ClientFrame::Hello(hello_with_payload_len(MAX_PAYLOAD + 1));
    let err = encode(&frame).unwrap_err();
    assert_eq!(
        err,
        EncodeError::PayloadTooLarge {
            direction: Direction::ClientToServer,
            message: "Hello",
            len: MAX_PAYLOAD + 1,
            max: MAX_PAYLOAD,
        }
    );
    let mut out = Vec::new();
    assert!(encode_into(&frame, &mut out).is_err());
    assert!(out.is_empty(), "a refused frame writes nothing");
}

#[test]
fn encode_into_appends_and_refuses_a_buffer_too_small() {
    let frame = ServerFrame::Denied(pb::Denied::default());
    let mut out = bytes::BytesMut::from(&b"xy"[..]);
    encode_into(&frame, &mut out).unwrap();
    assert_eq!(&out[..], &h("78 79 04 00")[..]);
    let mut small = [0u8; 1];
    let err = encode_into(&frame, &mut &mut small[..]).unwrap_err();
    assert_eq!(
        err,
        EncodeError::BufferTooSmall {
            required: 2,
            remaining: 1
        }
    );
}

#[test]
fn a_declared_length_of_one_mib_plus_one_is_refused_before_allocation() {
    // tag 1, length 81 80 40 = 1048577, followed by 10 MiB the decoder must never touch.
    let mut bytes = h("01 81 80 40");
    bytes.resize(4 + 10 * MAX_PAYLOAD, 0x0a);
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input = bytes.as_slice();
    let err = decoder.decode(&mut input).unwrap_err();
    assert_eq!(
        err,
        FrameError::PayloadTooLarge {
            direction: Direction::ClientToServer,
            tag: 1,
            message: "Hello",
            declared: MAX_PAYLOAD as u64 + 1,
        }
    );
    assert_eq!(
        input.len(),
        bytes.len() - 4,
        "only the tag and length were read"
    );
    assert_eq!(decoder.buffered_len(), 0);
    assert_eq!(decoder.held_capacity(), 0, "nothing was allocated");
}

#[test]
fn ten_mib_of_frames_fed_at_once_never_grows_the_decoder() {
    let frame = ClientFrame::Hello(hello_with_payload_len(MAX_PAYLOAD));
    let one = encode(&frame).unwrap();
    let stream = one.repeat(10);
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input = stream.as_slice();
    let mut frames = 0;
    while let Some(decoded) = decoder.decode(&mut input).unwrap() {
        assert_eq!(decoded, frame);
        frames += 1;
        assert_eq!(
            input.len(),
            stream.len() - frames * one.len(),
            "one frame per call"
        );
        assert_eq!(
            decoder.held_capacity(),
            0,
            "whole payloads are decoded in place"
        );
    }
    assert_eq!(frames, 10);
}

#[test]
fn frames_split_across_reads_are_buffered_within_the_payload_bound() {
    let frame = ClientFrame::Hello(hello_with_payload_len(MAX_PAYLOAD));
    let stream = encode(&frame).unwrap().repeat(3);
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut frames = 0;
    // Chunks that straddle frame boundaries force the spill path.
    for chunk in stream.chunks(65_537) {
        let mut input = chunk;
        while let Some(decoded) = decoder.decode(&mut input).unwrap() {
            assert_eq!(decoded, frame);
            frames += 1;
        }
        assert!(decoder.held_capacity() <= MAX_PAYLOAD);
        assert!(decoder.buffered_len() <= MAX_PAYLOAD);
    }
    assert_eq!(frames, 3);
    assert!(decoder.at_frame_boundary());
    assert!(
        decoder.held_capacity() <= 16 * 1024,
        "a large buffer is released"
    );
}

#[test]
fn a_peer_trickling_a_large_frame_holds_only_what_it_sent() {
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input: &[u8] = &h("01 80 80 40 0a");
    assert_eq!(decoder.decode(&mut input).unwrap(), None);
    assert_eq!(decoder.buffered_len(), 1);
    assert!(
        decoder.held_capacity() <= 256,
        "held {}",
        decoder.held_capacity()
    );
    assert!(!decoder.at_frame_boundary());
}

// ---- decoder refusals ----

/// Feeds `bytes` whole and one byte at a time; both must fail with the same error, and the
/// decoder must be poisoned afterwards.
fn assert_refused<D: FrameDirection>(bytes: &[u8], expected: FrameError) {
    let mut decoder = Decoder::<D>::new();
    let mut input = bytes;
    let err = loop {
        match decoder.decode(&mut input) {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("vector ended without an error"),
            Err(e) => break e,
        }
    };
    assert_eq!(err, expected);
    assert_eq!(decode_bytewise::<D>(bytes).unwrap_err(), expected);
    assert!(decoder.is_poisoned());
    let mut more: &[u8] = &h("01 00");
    assert_eq!(
        decoder.decode(&mut more).unwrap_err(),
        FrameError::Poisoned {
            direction: D::DIRECTION,
            cause: expected.kind()
        }
    );
    assert_eq!(more.len(), 2, "a poisoned decoder reads nothing");
}

#[test]
fn an_unknown_tag_is_refused_before_its_payload_is_read() {
    for tag in [0u8, 3, 4, 0xff] {
        let bytes = [tag, 0x05, 0x0a, 0x03, 0x61, 0x62, 0x63];
        let mut decoder = Decoder::<ClientToServer>::new();
        let mut input = &bytes[..];
        let err = decoder.decode(&mut input).unwrap_err();
        assert_eq!(
            err,
            FrameError::UnknownTag {
                direction: Direction::ClientToServer,
                tag
            }
        );
        assert_eq!(input.len(), bytes.len() - 1, "only the tag byte was read");
    }
    assert_refused::<ServerToClient>(
        &h("05 00"),
        FrameError::UnknownTag {
            direction: Direction::ServerToClient,
            tag: 5,
        },
    );
}

#[test]
fn an_unknown_tag_is_reported_with_no_further_byte() {
    let mut decoder = Decoder::<ServerToClient>::new();
    let mut input: &[u8] = &[0x00];
    assert_eq!(
        decoder.decode(&mut input).unwrap_err().kind(),
        FrameErrorKind::UnknownTag
    );
}

#[test]
fn a_tag_valid_only_in_the_other_direction_is_unknown() {
    assert_refused::<ClientToServer>(
        &h("03 00"),
        FrameError::UnknownTag {
            direction: Direction::ClientToServer,
            tag: 3,
        },
    );
}

#[test]
fn a_length_over_one_mib_is_refused() {
    assert_refused::<ServerToClient>(
        &h("03 81 80 40"),
        FrameError::PayloadTooLarge {
            direction: Direction::ServerToClient,
            tag: 3,
            message: "Response",
            declared: 1_048_577,
        },
    );
    // The largest canonical 10-byte varint is refused as too large, not as malformed.
    assert_refused::<ClientToServer>(
        &h("02 ff ff ff ff ff ff ff ff ff 01"),
        FrameError::PayloadTooLarge {
            direction: Direction::ClientToServer,
            tag: 2,
            message: "Request",
            declared: u64::MAX,
        },
    );
}

#[test]
fn a_length_varint_longer_than_ten_bytes_is_refused() {
    assert_refused::<ClientToServer>(
        &h("01 80 80 80 80 80 80 80 80 80 80 00"),
        FrameError::LengthTooLong {
            direction: Direction::ClientToServer,
            tag: 1,
            message: "Hello",
        },
    );
}

#[test]
fn a_non_canonical_length_varint_is_refused() {
    assert_refused::<ClientToServer>(
        &h("01 80 00"),
        FrameError::LengthNonCanonical {
            direction: Direction::ClientToServer,
            tag: 1,
            message: "Hello",
            bytes: 2,
        },
    );
    // Over-long encoding of 1, which fits in one byte.
    assert_refused::<ServerToClient>(
        &h("04 81 80 00 08"),
        FrameError::LengthNonCanonical {
            direction: Direction::ServerToClient,
            tag: 4,
            message: "Denied",
            bytes: 3,
        },
    );
}

#[test]
fn a_length_varint_beyond_64_bits_is_refused() {
    assert_refused::<ClientToServer>(
        &h("02 ff ff ff ff ff ff ff ff ff 02"),
        FrameError::LengthOverflow {
            direction: Direction::ClientToServer,
            tag: 2,
            message: "Request",
        },
    );
}

fn malformed(bytes: &str, direction: Direction, tag: u8, message: &'static str) {
    let bytes = h(bytes);
    let len = bytes.len() - 2;
    let check = |err: FrameError| match err {
        FrameError::MalformedPayload {
            direction: d,
            tag: t,
            message: m,
            len: l,
            ..
        } => assert_eq!((d, t, m, l), (direction, tag, message, len)),
        other => panic!("expected MalformedPayload, got {other:?}"),
    };
    match direction {
        Direction::ClientToServer => {
            check(
                decode_one::<ClientToServer>(&bytes)
                    .map(|_| ())
                    .unwrap_err(),
            );
            check(
                decode_bytewise::<ClientToServer>(&bytes)
                    .map(|_| ())
                    .unwrap_err(),
            );
        }
        Direction::ServerToClient => {
            check(
                decode_one::<ServerToClient>(&bytes)
                    .map(|_| ())
                    .unwrap_err(),
            );
            check(
                decode_bytewise::<ServerToClient>(&bytes)
                    .map(|_| ())
                    .unwrap_err(),
            );
        }
    }
}

#[test]
fn a_payload_that_does_not_decode_is_refused() {
    // Hello field 1 claims 5 bytes but the payload ends.
    malformed("01 02 0a 05", Direction::ClientToServer, 1, "Hello");
    // Hello field 1 is not UTF-8.
    malformed("01 03 0a 01 ff", Direction::ClientToServer, 1, "Hello");
    // Request field 1 (uint64) sent with wire type 2.
    malformed("02 02 0a 00", Direction::ClientToServer, 2, "Request");
    // Incompatible: a key with field number 0.
    malformed("02 02 00 00", Direction::ServerToClient, 2, "Incompatible");
    // Response field 6 (StatusView) nested length runs past the payload.
    malformed("03 02 32 09", Direction::ServerToClient, 3, "Response");
}

#[test]
fn a_refused_payload_poisons_the_decoder_for_good() {
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input: &[u8] = &h("01 02 0a 05  01 00");
    let err = decoder.decode(&mut input).unwrap_err();
    assert_eq!(err.kind(), FrameErrorKind::MalformedPayload);
    assert_eq!(
        input,
        &h("01 00")[..],
        "the valid frame after it is not read"
    );
    for _ in 0..3 {
        let e = decoder.decode(&mut input).unwrap_err();
        assert_eq!(e.kind(), FrameErrorKind::Poisoned);
        assert_eq!(e.tag(), None);
    }
    assert_eq!(decoder.held_capacity(), 0);
}

#[test]
fn several_frames_in_one_read_come_out_one_per_call() {
    let bytes =
        h("01 07 0a 01 78 1a 02 01 05  02 00  02 0f 08 07 10 04 1a 02 61 62 22 05 63 6f 64 65 78");
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input = bytes.as_slice();
    assert!(matches!(
        decoder.decode(&mut input),
        Ok(Some(ClientFrame::Hello(_)))
    ));
    assert_eq!(input.len(), bytes.len() - 9);
    assert!(
        matches!(decoder.decode(&mut input), Ok(Some(ClientFrame::Request(r))) if r == pb::Request::default())
    );
    assert!(
        matches!(decoder.decode(&mut input), Ok(Some(ClientFrame::Request(r))) if r.request_id == 7)
    );
    assert!(input.is_empty());
    assert_eq!(decoder.decode(&mut input), Ok(None));
}

#[test]
fn a_stream_that_stops_mid_frame_is_not_at_a_boundary() {
    let mut decoder = Decoder::<ServerToClient>::new();
    assert!(decoder.at_frame_boundary());
    let mut input: &[u8] = &h("04");
    assert_eq!(decoder.decode(&mut input), Ok(None));
    assert!(!decoder.at_frame_boundary());
    let mut input: &[u8] = &h("08 10 05 1a 01 6d 22 01");
    assert_eq!(decoder.decode(&mut input), Ok(None));
    assert!(!decoder.at_frame_boundary());
    let mut input: &[u8] = &h("72");
    assert!(matches!(
        decoder.decode(&mut input),
        Ok(Some(ServerFrame::Denied(_)))
    ));
    assert!(decoder.at_frame_boundary());
}

#[test]
fn error_messages_name_the_frame_and_say_what_to_do() {
    let err = FrameError::PayloadTooLarge {
        direction: Direction::ClientToServer,
        tag: 2,
        message: "Request",
        declared: 2_000_000,
    };
    let text = err.to_string();
    assert!(text.contains("client→server Request"), "{text}");
    assert!(text.contains("2000000"), "{text}");
    assert!(text.contains("close the connection"), "{text}");
    let unknown = FrameError::UnknownTag {
        direction: Direction::ServerToClient,
        tag: 9,
    };
    assert!(unknown
        .to_string()
        .contains("1 HelloAck, 2 Incompatible, 3 Response, 4 Denied"));
    assert_eq!(err.kind().as_str(), "payload_too_large");
}

#[test]
fn decoder_debug_never_shows_buffered_bytes() {
    let mut decoder = Decoder::<ClientToServer>::new();
    let mut input: &[u8] = b"\x02\x44\x1a\x40secretsecretsecret";
    assert_eq!(decoder.decode(&mut input), Ok(None));
    let shown = format!("{decoder:?}");
    assert!(
        !shown.contains("secret") && !shown.contains("115"),
        "{shown}"
    );
}
