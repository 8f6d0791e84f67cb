//! The packet contract (connection.md §1): one packet per datagram, `packet_id` first,
//! exact length, at most [`MAX_DATAGRAM`] bytes. Decoding checks everything a page says
//! fails decoding; encoding checks the same, so the server never sends what a client's
//! decoder drops.

use core::fmt::Debug;

use super::error::{DecodeError, EncodeError, FieldError, Rule};
use super::wire::{Reader, Validate, Wire, Writer};

/// The largest datagram the server sends or accepts (connection.md §1).
pub const MAX_DATAGRAM: usize = 1200;

/// Who sends a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

/// One field of a packet as declared, for the generated reference (docs/protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDoc {
    pub name: &'static str,
    /// The Rust type as written in the declaration.
    pub ty: &'static str,
    /// Bytes on the wire; the smallest encoding when not `fixed`.
    pub size: usize,
    pub fixed: bool,
    /// The field's attributes as source text (`doc = "..."` for its doc comment).
    pub attrs: &'static [&'static str],
    /// What kind of number the field is on the wire (an array's: its elements').
    pub kind: DocKind,
    /// Bytes of one value: the field's size, or an array element's.
    pub value_size: usize,
    /// The fields of a nested structure (an array's: its elements'), in wire order.
    pub nested: &'static [FieldDoc],
}

/// A field's wire form as far as the reference probes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// A little-endian integer (enums, flags and newtypes over one included).
    Int { signed: bool },
    /// A finite `f32`.
    Float,
    /// Text, a structure, a list: described, not probed.
    Other,
}

/// A packet of one direction, declared with [`packet!`](macro@crate::packet).
pub trait Packet: Wire + Validate + Debug + Clone + PartialEq {
    /// `packet_id`, the first byte.
    const ID: u8;
    /// The name the pages use.
    const NAME: &'static str;
    const DIRECTION: Direction;
    /// The fields after `packet_id`, in wire order.
    const FIELDS: &'static [FieldDoc] = &[];
    /// The packet's attributes as source text (`doc = "..."` for its doc comment).
    const DOC: &'static [&'static str] = &[];

    /// Byte offset of a top-level field in the encoded packet (after `packet_id`), for
    /// tests that patch raw bytes.
    fn byte_offset(field: &str) -> Option<usize>;

    /// Strictly decodes one datagram.
    #[inline]
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let err = |field, rule| DecodeError {
            packet: Self::NAME,
            field,
            rule,
        };
        let expected = 1 + Self::SIZE;
        let Some((&id, body)) = bytes.split_first() else {
            return Err(err(
                "",
                Rule::Length {
                    expected,
                    actual: 0,
                },
            ));
        };
        if id != Self::ID {
            return Err(err("packet_id", Rule::UnknownPacket(id)));
        }
        if (Self::FIXED && bytes.len() != expected) || bytes.len() > MAX_DATAGRAM {
            return Err(err(
                "",
                Rule::Length {
                    expected,
                    actual: bytes.len(),
                },
            ));
        }
        let mut r = Reader::new(body);
        let packet = Self::read(&mut r).map_err(|e| e.decoding(Self::NAME))?;
        if r.remaining() != 0 {
            return Err(err("", Rule::Trailing));
        }
        Ok(packet)
    }

    /// Bytes the encoded packet takes.
    fn encoded_len(&self) -> usize {
        1 + self.wire_len()
    }

    /// Encodes into `buf` after checking every rule a receiver's decoder applies; returns
    /// the length written. Never allocates.
    fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        self.check().map_err(|e| e.encoding(Self::NAME))?;
        self.encode_unchecked(buf)
    }

    /// Encodes without the page's rules: only for tests that build invalid packets.
    #[doc(hidden)]
    fn encode_unchecked(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
        let len = self.encoded_len();
        if len > MAX_DATAGRAM {
            return Err(FieldError::rule(Rule::Length {
                expected: MAX_DATAGRAM,
                actual: len,
            })
            .encoding(Self::NAME));
        }
        if buf.len() < len {
            return Err(FieldError::rule(Rule::BufferTooSmall { needed: len }).encoding(Self::NAME));
        }
        let mut w = Writer::new(&mut buf[..len]);
        w.put(&[Self::ID]);
        self.write(&mut w);
        Ok(len)
    }

    /// Encodes into a new vector: for tests and tools, not the hot path.
    fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut buf = vec![0; self.encoded_len().min(MAX_DATAGRAM)];
        let n = self.encode(&mut buf)?;
        buf.truncate(n);
        Ok(buf)
    }
}

/// Declares a packet: its fields in page order after `packet_id`, its id and direction.
///
/// ```ignore
/// packet! {
///     /// SetWanted (player.md): the recipient's own wanted level.
///     pub struct SetWanted = 0x11, ServerToClient {
///         pub event_id: EventId,
///         pub level: u8,
///     }
/// }
/// impl Validate for SetWanted {
///     fn validate(&self) -> Result<(), FieldError> { check::range("level", self.level, 0..=6) }
/// }
/// ```
#[macro_export]
macro_rules! packet {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident = $id:literal, $dir:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $crate::wire_struct! {
            $(#[$meta])*
            $vis struct $name {
                $( $(#[$fmeta])* $fvis $field : $ty ),*
            }
        }

        impl $crate::packet::Packet for $name {
            const ID: u8 = $id;
            const NAME: &'static str = stringify!($name);
            const DIRECTION: $crate::packet::Direction =
                $crate::packet::Direction::$dir;
            const FIELDS: &'static [$crate::packet::FieldDoc] =
                <$name as $crate::wire::Wire>::DOC_FIELDS;
            const DOC: &'static [&'static str] = &[$(stringify!($meta)),*];

            fn byte_offset(field: &str) -> Option<usize> {
                $name::offset_of(field).map(|at| at + 1)
            }
        }
    };
}
