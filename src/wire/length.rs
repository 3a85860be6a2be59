//! The incremental reader of a frame's length prefix: an unsigned LEB128 varint, read one
//! byte at a time so that a split anywhere gives the same answer (spec §2).
//!
//! This file owns the varint rules (at most 10 bytes, canonical, fits in 64 bits) and
//! nothing else; it never compares against the payload limit (the decoder does).

/// The longest varint a 64-bit value needs; anything longer is refused (spec §2).
pub(crate) const MAX_VARINT_BYTES: u8 = 10;

/// What a byte did to a length prefix that is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LengthStep {
    /// The varint continues; feed the next byte.
    More,
    /// The varint ended, with this value.
    Done(u64),
}

/// Why a length prefix is not acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LengthFault {
    /// The 10th byte still has its continuation bit set.
    TooLong,
    /// The varint ends in a zero byte after the first: an over-long encoding of a value that
    /// has a shorter form. Carries the number of bytes read.
    NonCanonical(u8),
    /// The 10th byte carries bits beyond 64.
    Overflow,
}

/// The state of a length prefix that is being read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LengthReader {
    value: u64,
    read: u8,
}

impl LengthReader {
    /// Feeds one byte of the varint.
    pub(crate) fn push(&mut self, byte: u8) -> Result<LengthStep, LengthFault> {
        let index = self.read;
        let bits = u64::from(byte & 0x7f);
        // The 10th byte holds bit 63 only; anything more does not fit in 64 bits.
        if index == MAX_VARINT_BYTES - 1 && bits > 1 {
            return Err(LengthFault::Overflow);
        }
        self.value |= bits << (7 * u32::from(index));
        self.read += 1;
        if byte & 0x80 == 0 {
            // spec[S2-VARINT] §2 (we): a non-canonical (over-long) varint is refused. The
            // minimal form never ends in a zero byte unless it is the single byte 0x00.
            if index > 0 && byte == 0 {
                return Err(LengthFault::NonCanonical(self.read));
            }
            return Ok(LengthStep::Done(self.value));
        }
        // spec[S2-VARINT] §2 (we): a varint longer than 10 bytes is refused.
        if self.read == MAX_VARINT_BYTES {
            return Err(LengthFault::TooLong);
        }
        Ok(LengthStep::More)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Result<Option<u64>, LengthFault> {
        let mut r = LengthReader::default();
        for &b in bytes {
            if let LengthStep::Done(v) = r.push(b)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    #[test]
    fn canonical_varints_read_back_their_value() {
        for value in [0u64, 1, 127, 128, 300, 1 << 20, (1 << 20) + 1, u64::MAX] {
            let mut buf = Vec::new();
            prost::encoding::encode_varint(value, &mut buf);
            assert_eq!(read(&buf), Ok(Some(value)), "{value}");
        }
    }

    #[test]
    fn over_long_encodings_are_non_canonical() {
        assert_eq!(read(&[0x80, 0x00]), Err(LengthFault::NonCanonical(2)));
        assert_eq!(read(&[0x81, 0x80, 0x00]), Err(LengthFault::NonCanonical(3)));
        let mut nine_then_zero = vec![0x80; 9];
        nine_then_zero.push(0x00);
        assert_eq!(read(&nine_then_zero), Err(LengthFault::NonCanonical(10)));
    }

    #[test]
    fn a_tenth_continuation_byte_is_too_long() {
        assert_eq!(read(&[0x80; 10]), Err(LengthFault::TooLong));
        assert_eq!(read(&[0x80; 9]), Ok(None));
    }

    #[test]
    fn a_tenth_byte_beyond_bit_63_overflows() {
        let mut b = vec![0xff; 9];
        b.push(0x02);
        assert_eq!(read(&b), Err(LengthFault::Overflow));
    }
}
