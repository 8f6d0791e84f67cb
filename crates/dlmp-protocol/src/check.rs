//! Small validation helpers for [`Validate`](super::wire::Validate) impls, so that every
//! page rule reads as one line naming its field.

use core::ops::RangeInclusive;

use super::error::{FieldError, Rule};

/// `value` must lie in `range` ([`Rule::OutOfRange`]).
pub fn range<T: PartialOrd>(
    field: &'static str,
    value: T,
    range: RangeInclusive<T>,
) -> Result<(), FieldError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(FieldError::new(field, Rule::OutOfRange))
    }
}

/// `value` must be one of `allowed` ([`Rule::UnknownValue`]).
pub fn one_of<T: PartialEq + Copy + Into<u64>>(
    field: &'static str,
    value: T,
    allowed: &[T],
) -> Result<(), FieldError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(FieldError::new(field, Rule::UnknownValue(value.into())))
    }
}

/// Only bits inside `mask` may be set ([`Rule::Reserved`]).
pub fn bits_within<T: Copy + Into<u64>>(
    field: &'static str,
    value: T,
    mask: T,
) -> Result<(), FieldError> {
    if value.into() & !mask.into() == 0 {
        Ok(())
    } else {
        Err(FieldError::new(field, Rule::Reserved))
    }
}

/// `ok` must hold, else `field` broke `rule`.
pub fn ensure(ok: bool, field: &'static str, rule: Rule) -> Result<(), FieldError> {
    if ok {
        Ok(())
    } else {
        Err(FieldError::new(field, rule))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_name_the_field() {
        assert_eq!(
            range("level", 7u8, 0..=6).unwrap_err(),
            FieldError::new("level", Rule::OutOfRange)
        );
        assert!(range("level", 6u8, 0..=6).is_ok());
        assert_eq!(
            one_of("style", 3u8, &[4, 5]).unwrap_err().rule,
            Rule::UnknownValue(3)
        );
        assert_eq!(
            bits_within("flags", 0b100u8, 0b011).unwrap_err().rule,
            Rule::Reserved
        );
        assert!(bits_within("flags", 0b011u8, 0b011).is_ok());
    }
}
