//! Typed decode and encode errors (connection.md §1, strict decoding).
//!
//! Every error names the packet, the field and the rule it broke, and has a small
//! [`ErrorKind`] that drop counters are keyed by.

use core::fmt;

/// The rule a field broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The datagram is shorter or longer than the packet's total.
    Length { expected: usize, actual: usize },
    /// The input ended inside this field.
    Truncated,
    /// Bytes remain after the last field.
    Trailing,
    /// The packet_id is not one this direction knows.
    UnknownPacket(u8),
    /// A float is NaN or infinite where the page does not allow it.
    NonFinite,
    /// A number is outside the range the page gives.
    OutOfRange,
    /// An enum or flag byte has a value the page does not list.
    UnknownValue(u64),
    /// A text is not valid UTF-8, is badly padded, too long, empty or has a forbidden character.
    BadText,
    /// Bytes the page fixes (padding, placeholders, unused bits) are not what it says.
    Reserved,
    /// Fields are each in range but their combination is not allowed.
    Combination,
    /// The caller's buffer cannot hold the encoded packet (encode only).
    BufferTooSmall { needed: usize },
}

/// What a drop counter is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    Length,
    UnknownPacket,
    NonFinite,
    Range,
    Enum,
    Text,
    Reserved,
    Combination,
    Buffer,
}

impl ErrorKind {
    /// Every kind, in a stable order for counter arrays.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::Length,
        ErrorKind::UnknownPacket,
        ErrorKind::NonFinite,
        ErrorKind::Range,
        ErrorKind::Enum,
        ErrorKind::Text,
        ErrorKind::Reserved,
        ErrorKind::Combination,
        ErrorKind::Buffer,
    ];

    /// A short stable name for logs and stats.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Length => "length",
            ErrorKind::UnknownPacket => "unknown_packet",
            ErrorKind::NonFinite => "non_finite",
            ErrorKind::Range => "range",
            ErrorKind::Enum => "enum",
            ErrorKind::Text => "text",
            ErrorKind::Reserved => "reserved",
            ErrorKind::Combination => "combination",
            ErrorKind::Buffer => "buffer",
        }
    }

    /// Index into [`ErrorKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl Rule {
    pub fn kind(self) -> ErrorKind {
        match self {
            Rule::Length { .. } | Rule::Truncated | Rule::Trailing => ErrorKind::Length,
            Rule::UnknownPacket(_) => ErrorKind::UnknownPacket,
            Rule::NonFinite => ErrorKind::NonFinite,
            Rule::OutOfRange => ErrorKind::Range,
            Rule::UnknownValue(_) => ErrorKind::Enum,
            Rule::BadText => ErrorKind::Text,
            Rule::Reserved => ErrorKind::Reserved,
            Rule::Combination => ErrorKind::Combination,
            Rule::BufferTooSmall { .. } => ErrorKind::Buffer,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Length { expected, actual } => {
                write!(f, "length {actual}, expected {expected}")
            }
            Rule::Truncated => f.write_str("input ends inside the field"),
            Rule::Trailing => f.write_str("bytes after the last field"),
            Rule::UnknownPacket(id) => write!(f, "unknown packet_id {id:#04x}"),
            Rule::NonFinite => f.write_str("NaN or infinite float"),
            Rule::OutOfRange => f.write_str("out of range"),
            Rule::UnknownValue(v) => write!(f, "unknown value {v}"),
            Rule::BadText => f.write_str("invalid text"),
            Rule::Reserved => f.write_str("reserved bytes or bits not as fixed"),
            Rule::Combination => f.write_str("combination of fields not allowed"),
            Rule::BufferTooSmall { needed } => write!(f, "buffer too small, {needed} bytes needed"),
        }
    }
}

/// A rule broken by one field, before the packet is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldError {
    /// The innermost field's name as the page spells it; `""` while not yet known.
    pub field: &'static str,
    pub rule: Rule,
}

impl FieldError {
    pub const fn new(field: &'static str, rule: Rule) -> Self {
        FieldError { field, rule }
    }

    /// A rule broken by a value whose field name the caller adds with [`FieldError::at`].
    pub const fn rule(rule: Rule) -> Self {
        FieldError { field: "", rule }
    }

    /// Names the field unless an inner field already did.
    #[must_use]
    pub fn at(mut self, field: &'static str) -> Self {
        if self.field.is_empty() {
            self.field = field;
        }
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.rule.kind()
    }
}

/// Why a datagram was not a valid packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    /// The packet's name as the page spells it; `""` when the id itself was unknown.
    pub packet: &'static str,
    pub field: &'static str,
    pub rule: Rule,
}

impl DecodeError {
    pub fn kind(&self) -> ErrorKind {
        self.rule.kind()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "decoding {}",
            if self.packet.is_empty() {
                "packet"
            } else {
                self.packet
            }
        )?;
        if !self.field.is_empty() {
            write!(f, ".{}", self.field)?;
        }
        write!(f, ": {}", self.rule)
    }
}

impl std::error::Error for DecodeError {}

/// Why a packet could not be encoded: it would break a rule a client enforces, or the
/// buffer is too small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeError {
    pub packet: &'static str,
    pub field: &'static str,
    pub rule: Rule,
}

impl EncodeError {
    pub fn kind(&self) -> ErrorKind {
        self.rule.kind()
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "encoding {}", self.packet)?;
        if !self.field.is_empty() {
            write!(f, ".{}", self.field)?;
        }
        write!(f, ": {}", self.rule)
    }
}

impl std::error::Error for EncodeError {}

impl FieldError {
    pub(crate) fn decoding(self, packet: &'static str) -> DecodeError {
        DecodeError {
            packet,
            field: self.field,
            rule: self.rule,
        }
    }
    pub(crate) fn encoding(self, packet: &'static str) -> EncodeError {
        EncodeError {
            packet,
            field: self.field,
            rule: self.rule,
        }
    }
}
