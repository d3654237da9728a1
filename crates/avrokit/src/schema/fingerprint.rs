//! Schema fingerprints: CRC-64-AVRO (Rabin), MD5 and SHA-256 of the Parsing Canonical Form.
//!
//! The Rabin fingerprint is the one single-object encoding uses (its 8 little-endian bytes follow
//! the `C3 01` marker). It follows the specification's reference code: a 256-entry table built
//! from the polynomial `EMPTY` and a register initialised to `EMPTY` rather than zero, which
//! prepends a one bit so that leading zero bytes change the result.

use md5::Digest as _;

/// The fingerprint of the empty string, and the polynomial the table is built from.
pub(crate) const EMPTY: u64 = 0xc15d_213a_a4d7_a795;

/// `TABLE[i]` is the register after shifting byte `i` through it eight times, one bit at a time.
/// Built at compile time, so there is no lazy initialisation and nothing to synchronise.
const TABLE: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let mut fp = i as u64;
        let mut j = 0;
        while j < 8 {
            // `-(fp & 1)` in the reference code: all ones when the low bit is set.
            fp = (fp >> 1) ^ (EMPTY & (fp & 1).wrapping_neg());
            j += 1;
        }
        table[i] = fp;
        i += 1;
    }
    table
};

/// CRC-64-AVRO of `bytes`. Java prints this value as a signed `long` (`as i64` here).
pub(crate) fn rabin(bytes: &[u8]) -> u64 {
    let mut fp = EMPTY;
    for &b in bytes {
        fp = (fp >> 8) ^ TABLE[((fp ^ u64::from(b)) & 0xff) as usize];
    }
    fp
}

/// MD5 digest of `bytes`.
pub(crate) fn md5(bytes: &[u8]) -> [u8; 16] {
    md5::Md5::digest(bytes).into()
}

/// SHA-256 digest of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_string_is_the_seed() {
        assert_eq!(rabin(b""), EMPTY);
    }

    #[test]
    fn reference_values() {
        // From the Avro repository's schema-tests.txt.
        assert_eq!(rabin(br#""null""#) as i64, 7195948357588979594);
        assert_eq!(rabin(br#""int""#) as i64, 8247732601305521295);
        assert_eq!(rabin(b"[]") as i64, -1241056759729112623);
    }

    #[test]
    fn table_matches_bitwise_definition() {
        // The table-driven loop must equal shifting each bit through the register.
        fn bitwise(bytes: &[u8]) -> u64 {
            let mut fp = EMPTY;
            for &b in bytes {
                fp ^= u64::from(b);
                for _ in 0..8 {
                    fp = (fp >> 1) ^ (EMPTY & (fp & 1).wrapping_neg());
                }
            }
            fp
        }
        let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for n in [0, 1, 2, 7, 100, data.len()] {
            assert_eq!(rabin(&data[..n]), bitwise(&data[..n]), "len {n}");
        }
    }

    #[test]
    fn digests() {
        assert_eq!(
            md5(b""),
            [
                0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8,
                0x42, 0x7e
            ]
        );
        assert_eq!(sha256(b"")[..4], [0xe3, 0xb0, 0xc4, 0x42]);
    }
}
