//! A small multiplicative hasher for the maps on the hot paths (rule names, recognizer
//! items): the keys are short and come from the schema or the grammar, not from an attacker
//! who could aim at collisions, and the default SipHash costs more than the work around it.

use std::hash::{BuildHasherDefault, Hasher};

/// FxHash-style: rotate, xor, multiply, word by word.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.write_u64(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        for byte in chunks.remainder() {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The `BuildHasher` for [`FastHasher`].
pub(crate) type FastBuild = BuildHasherDefault<FastHasher>;
