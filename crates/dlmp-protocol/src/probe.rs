//! The values each field accepts, as docs/protocol.md lists them: found by the real
//! decoder, not written by hand. A packet's fixture (`fixtures/`, [`super::sample`]) is
//! encoded, one field's bytes are changed, and the packet decoded again; what decodes is
//! accepted. Every rule a validator enforces ([`super::check`], the per-packet
//! `Validate` impls, the types' own checks) shows, combinations included, with the other
//! fields as in the fixture.
//!
//! A one-byte field is tried at all 256 values. A wider one is searched from the
//! fixture's value outward for the two ends of the accepted interval (floats in their
//! order, finite ones only), then spot-checked inside and outside it, so that a set that
//! is not one interval says so.

use super::packet::{DocKind, FieldDoc};
use super::sample::Sample;

/// Spot checks inside and outside a searched interval.
const SPOTS: i64 = 64;

/// A field's bytes in the fixture's encoding (after `packet_id`'s byte).
#[derive(Debug, Clone, Copy)]
pub struct At {
    pub offset: usize,
    pub size: usize,
    pub kind: DocKind,
}

impl At {
    /// Where `f` lies when it starts `offset` bytes into the encoded packet.
    pub fn of(f: &FieldDoc, offset: usize) -> At {
        At {
            offset,
            size: f.value_size,
            kind: f.kind,
        }
    }
}

/// What the decoder accepts at `at`, in words (`0..=6`, `0, 1`, `-6000..=6000`, `any`),
/// or `None` when the field is not a number or lies outside the fixture.
pub fn accepted(sample: &dyn Sample, at: At) -> Option<String> {
    let bytes = sample.encode().ok()?;
    if at.offset + at.size > bytes.len() {
        return None;
    }
    let probe = Probe { sample, bytes, at };
    match (at.kind, at.size) {
        (DocKind::Int { signed }, 1) => Some(probe.every_byte(signed)),
        (DocKind::Int { signed }, 2 | 4 | 8) => Some(probe.interval(IntOrder {
            signed,
            size: at.size,
        })),
        (DocKind::Float, 4) => Some(probe.interval(FloatOrder)),
        _ => None,
    }
}

struct Probe<'a> {
    sample: &'a dyn Sample,
    bytes: Vec<u8>,
    at: At,
}

impl Probe<'_> {
    fn accepts(&self, raw: u64) -> bool {
        let mut bytes = self.bytes.clone();
        let le = raw.to_le_bytes();
        bytes[self.at.offset..self.at.offset + self.at.size].copy_from_slice(&le[..self.at.size]);
        self.sample.accepts(&bytes)
    }

    fn current(&self) -> u64 {
        let mut le = [0u8; 8];
        le[..self.at.size].copy_from_slice(&self.bytes[self.at.offset..][..self.at.size]);
        u64::from_le_bytes(le)
    }

    /// All 256 values of a byte, as runs.
    fn every_byte(&self, signed: bool) -> String {
        let mut values: Vec<i64> = (0..=255u64)
            .filter(|&raw| self.accepts(raw))
            .map(|raw| {
                if signed {
                    #[expect(clippy::cast_possible_wrap, reason = "a byte read as i8")]
                    let v = i64::from(raw as u8 as i8);
                    v
                } else {
                    raw.cast_signed()
                }
            })
            .collect();
        values.sort_unstable();
        if values.len() == 256 {
            return "any".to_owned();
        }
        runs(&values)
    }

    /// The interval around the fixture's value, with spot checks.
    fn interval(&self, order: impl Order) -> String {
        let here = order.key(self.current());
        if !self.accepts(order.raw(here)) {
            return "none with the fixture's other fields".to_owned();
        }
        let (min, max) = order.bounds();
        let ok = |k: i64| self.accepts(order.raw(k));
        let low = if ok(min) { min } else { edge(min, here, &ok) };
        let high = if ok(max) {
            max
        } else {
            // The same search, mirrored.
            -edge(-max, -here, &|k| ok(-k))
        };
        let mut text = if (low, high) == (min, max) {
            order.any().to_owned()
        } else {
            format!("{}..={}", order.show(low), order.show(high))
        };
        let spread = |from: i64, to: i64| {
            let span = i128::from(to) - i128::from(from);
            (0..=SPOTS).map(move |i| {
                let k = i128::from(from) + span * i128::from(i) / i128::from(SPOTS);
                i64::try_from(k).unwrap_or(from)
            })
        };
        if spread(low, high).any(|k| !ok(k)) {
            match order.holes(self) {
                Some(exact) => return exact,
                None => text.push_str(", not every value inside"),
            }
        }
        let outside = (low > min && spread(min, low - 1).any(ok))
            || (high < max && spread(high + 1, max).any(ok));
        if outside {
            text.push_str(", and some outside");
        }
        text
    }
}

impl Probe<'_> {
    /// An integer set with holes, exactly: every value of a two-byte field as runs (when
    /// they are few), else the bits a value may have when 0 is accepted (a flag mask).
    fn int_holes(&self, order: &IntOrder) -> Option<String> {
        if self.at.size == 2 {
            let values: Vec<i64> = (0..=0xFFFFu64)
                .filter(|&raw| self.accepts(raw))
                .map(|raw| order.key(raw))
                .collect();
            let mut sorted = values;
            sorted.sort_unstable();
            let text = runs(&sorted);
            if text.matches(", ").count() < 8 {
                return Some(text);
            }
        }
        if !self.accepts(0) {
            return None;
        }
        let bits = self.at.size * 8;
        let mask = (0..bits)
            .map(|b| 1u64 << b)
            .filter(|&bit| self.accepts(bit))
            .fold(0, |m, bit| m | bit);
        let every = (0..=SPOTS.unsigned_abs())
            .map(|i| (mask / SPOTS.unsigned_abs()).wrapping_mul(i) & mask)
            .all(|v| self.accepts(v));
        let width = self.at.size * 2;
        Some(if every {
            format!("bits within 0x{mask:0width$X}")
        } else {
            format!("bits within 0x{mask:0width$X}, not every combination")
        })
    }
}

/// The smallest accepted key in `(refused, accepted]`, the set taken as one interval.
fn edge(mut refused: i64, mut accepted: i64, ok: &dyn Fn(i64) -> bool) -> i64 {
    while accepted - refused > 1 {
        let mid = refused + (accepted - refused) / 2;
        if ok(mid) {
            accepted = mid;
        } else {
            refused = mid;
        }
    }
    accepted
}

/// `0..=6`, `0, 1`, `4, 54..=70`.
fn runs(values: &[i64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let start = values[i];
        let mut end = start;
        while i + 1 < values.len() && values[i + 1] == end + 1 {
            i += 1;
            end = values[i];
        }
        parts.push(match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start}..={end}"),
        });
        i += 1;
    }
    if parts.is_empty() {
        "none".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A total order of a field's raw values as `i64` keys.
trait Order {
    fn key(&self, raw: u64) -> i64;
    fn raw(&self, key: i64) -> u64;
    fn bounds(&self) -> (i64, i64);
    fn show(&self, key: i64) -> String;
    fn any(&self) -> &'static str;
    /// The exact set when the interval has holes, if this order can say it.
    fn holes(&self, _probe: &Probe<'_>) -> Option<String> {
        None
    }
}

struct IntOrder {
    signed: bool,
    size: usize,
}

impl Order for IntOrder {
    fn key(&self, raw: u64) -> i64 {
        let bits = self.size * 8;
        if self.signed && bits < 64 {
            let shift = 64 - bits;
            (raw << shift).cast_signed() >> shift
        } else {
            // A u64 past i64::MAX is beyond what any page ranges; it reads as the top.
            i64::try_from(raw).unwrap_or(i64::MAX)
        }
    }
    fn raw(&self, key: i64) -> u64 {
        key.cast_unsigned()
    }
    fn bounds(&self) -> (i64, i64) {
        let bits = u32::try_from(self.size * 8).unwrap_or(64);
        if bits >= 64 {
            (if self.signed { i64::MIN + 1 } else { 0 }, i64::MAX)
        } else if self.signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        }
    }
    fn show(&self, key: i64) -> String {
        key.to_string()
    }
    fn any(&self) -> &'static str {
        "any"
    }
    fn holes(&self, probe: &Probe<'_>) -> Option<String> {
        probe.int_holes(self)
    }
}

/// Finite `f32`s in numeric order: the key is the magnitude's bits, negated for a
/// negative value.
struct FloatOrder;

const MAX_FINITE_BITS: i64 = 0x7F7F_FFFF;

impl Order for FloatOrder {
    fn key(&self, raw: u64) -> i64 {
        let bits = u32::try_from(raw & 0xFFFF_FFFF).unwrap_or(0);
        let magnitude = i64::from(bits & 0x7FFF_FFFF);
        if bits & 0x8000_0000 == 0 {
            magnitude
        } else {
            -magnitude
        }
    }
    fn raw(&self, key: i64) -> u64 {
        let magnitude = key.unsigned_abs() & 0x7FFF_FFFF;
        if key < 0 {
            magnitude | 0x8000_0000
        } else {
            magnitude
        }
    }
    fn bounds(&self) -> (i64, i64) {
        (-MAX_FINITE_BITS, MAX_FINITE_BITS)
    }
    fn show(&self, key: i64) -> String {
        let raw = u32::try_from(self.raw(key)).unwrap_or(0);
        format!("{}", f32::from_bits(raw))
    }
    fn any(&self) -> &'static str {
        "any finite"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_join_neighbours() {
        assert_eq!(runs(&[0, 1, 2, 3]), "0..=3");
        assert_eq!(runs(&[0, 1]), "0, 1");
        assert_eq!(runs(&[4, 54, 55, 56]), "4, 54..=56");
        assert_eq!(runs(&[]), "none");
    }

    #[test]
    fn float_keys_keep_the_order() {
        let o = FloatOrder;
        let k = |f: f32| o.key(u64::from(f.to_bits()));
        assert!(k(-6000.0) < k(-0.5) && k(-0.5) < k(0.0) && k(0.0) < k(0.1) && k(0.1) < k(6000.0));
        assert_eq!(o.show(k(-0.1)), "-0.1");
        assert_eq!(o.show(o.bounds().1), format!("{}", f32::MAX));
    }

    #[test]
    fn the_edge_is_the_first_accepted_key() {
        assert_eq!(edge(-100, 50, &|k| k >= 7), 7);
        assert_eq!(edge(-100, 50, &|k| k >= 50), 50);
    }
}
