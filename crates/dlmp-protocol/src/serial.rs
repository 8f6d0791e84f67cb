//! Serial-number arithmetic on wrapping counters (connection.md §5, "Sequence and
//! generation"): `a` is newer than `b` when `a.wrapping_sub(b)` lies in `1..2^(bits-1)`.
//!
//! Every sequence, event id and revision comparison in the server goes through here.

/// A wrapping counter compared by serial-number arithmetic.
pub trait Serial: Copy + Eq {
    /// True when `self` is strictly newer than `other`.
    fn is_newer_than(self, other: Self) -> bool;
    /// The next value, wrapping.
    #[must_use]
    fn next(self) -> Self;
}

macro_rules! impl_serial {
    ($($t:ty),*) => {$(
        impl Serial for $t {
            fn is_newer_than(self, other: Self) -> bool {
                let d = self.wrapping_sub(other);
                d != 0 && d < (1 << (<$t>::BITS - 1))
            }
            fn next(self) -> Self {
                self.wrapping_add(1)
            }
        }
    )*};
}
impl_serial!(u8, u16, u32);

/// True when `a` is strictly newer than `b`.
pub fn newer<T: Serial>(a: T, b: T) -> bool {
    a.is_newer_than(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_in_plain_order() {
        assert!(newer(2u32, 1));
        assert!(!newer(1u32, 2));
        assert!(!newer(5u32, 5));
    }

    #[test]
    fn newer_across_the_wrap() {
        assert!(newer(0u32, u32::MAX));
        assert!(newer(3u32, u32::MAX - 3));
        assert!(!newer(u32::MAX, 0u32));
        assert!(newer(0u16, u16::MAX));
        assert!(newer(1u16, 65_000));
        assert!(!newer(65_000u16, 1));
    }

    #[test]
    fn half_range_is_not_newer_either_way() {
        let half = 1u32 << 31;
        assert!(!newer(half, 0));
        assert!(!newer(0, half));
        assert!(newer(half - 1, 0));
        let half16 = 1u16 << 15;
        assert!(!newer(half16, 0));
        assert!(newer(half16 - 1, 0));
    }

    #[test]
    fn next_wraps() {
        assert_eq!(u32::MAX.next(), 0);
        assert_eq!(u16::MAX.next(), 0);
        assert!(newer(u32::MAX.next(), u32::MAX));
    }
}
