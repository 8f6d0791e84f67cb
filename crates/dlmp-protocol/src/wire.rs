//! Reading and writing wire fields (connection.md §1): little-endian, no padding, no
//! NaN or infinity in an `f32` unless a page allows it.
//!
//! [`Wire`] is implemented by every field type; structures and packets get theirs from
//! [`wire_struct!`](crate::wire_struct) and [`packet!`](macro@crate::packet).

use super::error::{FieldError, Rule};
use super::packet::{DocKind, FieldDoc};

/// A cursor over an inbound datagram. Reads never panic: running out is [`Rule::Truncated`].
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    #[inline]
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len()
    }

    /// A reader over the next `n` bytes, or `None` (reading nothing) when fewer remain.
    #[inline]
    pub fn take(&mut self, n: usize) -> Option<Reader<'a>> {
        let (head, tail) = self.buf.split_at_checked(n)?;
        self.buf = tail;
        Some(Reader::new(head))
    }

    /// Reads a fixed-size `T` from a reader of its own over the next `T::SIZE` bytes, so
    /// that this cursor never escapes into a call the optimizer does not inline: inside a
    /// fixed structure whose length was checked once, every field's bounds check folds
    /// away.
    #[inline(always)]
    pub fn fixed<T: Wire>(&mut self) -> Result<T, FieldError> {
        debug_assert!(T::FIXED);
        let mut own = self
            .take(T::SIZE)
            .ok_or(FieldError::rule(Rule::Truncated))?;
        T::read(&mut own)
    }

    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], FieldError> {
        let (head, tail) = self
            .buf
            .split_first_chunk::<N>()
            .ok_or(FieldError::rule(Rule::Truncated))?;
        self.buf = tail;
        Ok(*head)
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], FieldError> {
        if n > self.buf.len() {
            return Err(FieldError::rule(Rule::Truncated));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }
}

/// A cursor over the caller's outbound buffer. The packet's encoder checks the buffer's
/// size before writing, so a write past the end is a bug in a [`Wire`] impl's length.
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    #[inline]
    pub fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, pos: 0 }
    }

    #[inline]
    pub fn put(&mut self, bytes: &[u8]) {
        let end = self.pos + bytes.len();
        self.buf[self.pos..end].copy_from_slice(bytes);
        self.pos = end;
    }

    /// Writes a field of type `T`; a fixed-size `T` writes through a writer of its own over
    /// its `T::SIZE` bytes (see [`Reader::fixed`]).
    #[inline(always)]
    pub fn field<T: Wire>(&mut self, value: &T) {
        if T::FIXED {
            let end = self.pos + T::SIZE;
            value.write(&mut Writer::new(&mut self.buf[self.pos..end]));
            self.pos = end;
        } else {
            value.write(self);
        }
    }

    /// A writer over the next `n` bytes, or `None` (writing nothing) when fewer remain.
    #[inline]
    pub fn take(&mut self, n: usize) -> Option<Writer<'_>> {
        let end = self.pos.checked_add(n)?;
        let head = self.buf.get_mut(self.pos..end)?;
        self.pos = end;
        Some(Writer::new(head))
    }

    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }
}

/// A value with a wire form.
pub trait Wire: Sized {
    /// Bytes on the wire; for a variable-size type, the smallest encoding.
    const SIZE: usize;
    /// Whether every value takes exactly [`Wire::SIZE`] bytes.
    const FIXED: bool = true;
    /// The number form docs/protocol.md probes the decoder with.
    const DOC_KIND: DocKind = DocKind::Other;
    /// Bytes of one probed value (an array's element).
    const DOC_VALUE_SIZE: usize = Self::SIZE;
    /// A structure's fields, for docs/protocol.md.
    const DOC_FIELDS: &'static [FieldDoc] = &[];

    /// Reads the value, checking what the type itself guarantees (finite floats, known
    /// enum values, valid text). Page rules on combinations belong to [`Validate`].
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError>;

    /// Writes the value; the caller has checked that [`Wire::wire_len`] bytes fit.
    fn write(&self, w: &mut Writer<'_>);

    /// The checks of [`Wire::read`] for a value built in code, so that the server never
    /// sends what a client's decoder would reject.
    fn check(&self) -> Result<(), FieldError> {
        Ok(())
    }

    /// Bytes this value takes on the wire.
    fn wire_len(&self) -> usize {
        Self::SIZE
    }
}

/// The rules a page states on a structure or packet beyond its field types: ranges,
/// allowlists, combinations. Run after reading and before writing.
pub trait Validate {
    fn validate(&self) -> Result<(), FieldError> {
        Ok(())
    }
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            const SIZE: usize = size_of::<$t>();
            const DOC_KIND: DocKind = DocKind::Int { signed: <$t>::MIN != 0 };
            #[inline]
            fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
            #[inline]
            fn write(&self, w: &mut Writer<'_>) {
                w.put(&self.to_le_bytes());
            }
        }
    )*};
}
impl_int!(u8, u16, u32, u64, i8, i16, i32, i64);

/// An `f32` must be finite (connection.md §1); a field that may carry NaN would use a
/// newtype of its own.
impl Wire for f32 {
    const SIZE: usize = 4;
    const DOC_KIND: DocKind = DocKind::Float;
    #[inline]
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        let v = f32::from_le_bytes(r.array()?);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(FieldError::rule(Rule::NonFinite))
        }
    }
    #[inline]
    fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.to_le_bytes());
    }
    #[inline]
    fn check(&self) -> Result<(), FieldError> {
        if self.is_finite() {
            Ok(())
        } else {
            Err(FieldError::rule(Rule::NonFinite))
        }
    }
}

/// A `u8` that is 0 or 1; any other value is an unknown enum value.
impl Wire for bool {
    const SIZE: usize = 1;
    const DOC_KIND: DocKind = DocKind::Int { signed: false };
    #[inline]
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        match u8::read(r)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(FieldError::rule(Rule::UnknownValue(u64::from(v)))),
        }
    }
    #[inline]
    fn write(&self, w: &mut Writer<'_>) {
        w.put(&[u8::from(*self)]);
    }
}

/// A fixed array of fixed-size elements, in order.
impl<T: Wire + Copy + Default, const N: usize> Wire for [T; N] {
    const SIZE: usize = T::SIZE * N;
    const FIXED: bool = T::FIXED;
    const DOC_KIND: DocKind = T::DOC_KIND;
    const DOC_VALUE_SIZE: usize = T::DOC_VALUE_SIZE;
    const DOC_FIELDS: &'static [FieldDoc] = T::DOC_FIELDS;
    #[inline]
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        let mut out = [T::default(); N];
        // Fixed elements: one length check, then reads the optimizer can prove in bounds.
        if T::FIXED
            && let Some(mut fixed) = r.take(Self::SIZE)
        {
            for slot in &mut out {
                *slot = fixed.fixed::<T>()?;
            }
            return Ok(out);
        }
        for slot in &mut out {
            *slot = T::read(r)?;
        }
        Ok(out)
    }
    #[inline]
    fn write(&self, w: &mut Writer<'_>) {
        for v in self {
            v.write(w);
        }
    }
    #[inline]
    fn check(&self) -> Result<(), FieldError> {
        self.iter().try_for_each(Wire::check)
    }
    #[inline]
    fn wire_len(&self) -> usize {
        self.iter().map(Wire::wire_len).sum()
    }
}

/// Declares a structure of wire fields in page order, with its [`Wire`] impl.
///
/// The structure must also implement [`Validate`] (empty when the page states no rule),
/// which runs after reading and before writing. `offset_of("field")` gives a field's byte
/// offset for tests that patch raw bytes.
#[macro_export]
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $name {
            /// Field names in wire order with their sizes (the smallest, for variable ones).
            pub const FIELDS: &'static [(&'static str, usize)] =
                &[$( (stringify!($field), <$ty as $crate::wire::Wire>::SIZE) ),*];

            /// Byte offset of a field inside this structure, counting the fields before it
            /// at their smallest size.
            pub fn offset_of(field: &str) -> Option<usize> {
                let mut at = 0;
                for (name, size) in Self::FIELDS {
                    if *name == field {
                        return Some(at);
                    }
                    at += size;
                }
                None
            }

            /// Reads the fields in order, then runs `Validate`. With `FIXED`, `r` holds
            /// exactly this fixed structure and each field reads through `Reader::fixed`.
            #[inline(always)]
            fn read_fields<const FIXED: bool>(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::error::FieldError> {
                let v = $name {
                    $( $field: if FIXED {
                            r.fixed::<$ty>()
                        } else {
                            <$ty as $crate::wire::Wire>::read(r)
                        }
                        .map_err(|e| e.at(stringify!($field)))?, )*
                };
                $crate::wire::Validate::validate(&v)?;
                Ok(v)
            }

            /// [`Self::read_fields`] out of line, for a fixed structure the input ends inside:
            /// it names the field that runs out.
            #[cold]
            #[inline(never)]
            fn read_truncated(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::error::FieldError> {
                Self::read_fields::<false>(r)
            }

            #[inline(always)]
            fn write_fields(&self, w: &mut $crate::wire::Writer<'_>) {
                $( w.field(&self.$field); )*
            }
        }

        impl $crate::wire::Wire for $name {
            const SIZE: usize = 0 $( + <$ty as $crate::wire::Wire>::SIZE )*;
            const FIXED: bool = true $( && <$ty as $crate::wire::Wire>::FIXED )*;
            const DOC_FIELDS: &'static [$crate::packet::FieldDoc] = &[$(
                $crate::packet::FieldDoc {
                    name: stringify!($field),
                    ty: stringify!($ty),
                    size: <$ty as $crate::wire::Wire>::SIZE,
                    fixed: <$ty as $crate::wire::Wire>::FIXED,
                    attrs: &[$(stringify!($fmeta)),*],
                    kind: <$ty as $crate::wire::Wire>::DOC_KIND,
                    value_size: <$ty as $crate::wire::Wire>::DOC_VALUE_SIZE,
                    nested: <$ty as $crate::wire::Wire>::DOC_FIELDS,
                }
            ),*];

            // Always inlined, so that a packet's decoder builds the value in place rather
            // than copying it out of each nested structure's `Result`.
            #[inline(always)]
            fn read(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::error::FieldError> {
                // A fixed structure checks its length once, then reads its fields through a
                // reader whose length the optimizer knows. Short input takes the
                // field-by-field path, which names the field that runs out.
                if !<Self as $crate::wire::Wire>::FIXED {
                    return Self::read_fields::<false>(r);
                }
                match r.take(<Self as $crate::wire::Wire>::SIZE) {
                    Some(mut fixed) => Self::read_fields::<true>(&mut fixed),
                    None => Self::read_truncated(r),
                }
            }

            #[inline]
            fn write(&self, w: &mut $crate::wire::Writer<'_>) {
                // Like `read`: a fixed structure checks the room once.
                if <Self as $crate::wire::Wire>::FIXED
                    && let Some(mut fixed) = w.take(<Self as $crate::wire::Wire>::SIZE)
                {
                    self.write_fields(&mut fixed);
                } else {
                    self.write_fields(w);
                }
            }

            #[inline]
            fn check(&self) -> Result<(), $crate::error::FieldError> {
                $( $crate::wire::Wire::check(&self.$field)
                    .map_err(|e| e.at(stringify!($field)))?; )*
                $crate::wire::Validate::validate(self)
            }

            #[inline]
            fn wire_len(&self) -> usize {
                if <Self as $crate::wire::Wire>::FIXED {
                    <Self as $crate::wire::Wire>::SIZE
                } else {
                    0 $( + $crate::wire::Wire::wire_len(&self.$field) )*
                }
            }
        }
    };
}

/// Declares a newtype over an integer with the inner type's wire form.
#[macro_export]
macro_rules! wire_newtype {
    ($( $(#[$meta:meta])* $vis:vis struct $name:ident($inner:ty); )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        $vis struct $name(pub $inner);

        impl $crate::wire::Wire for $name {
            const SIZE: usize = <$inner as $crate::wire::Wire>::SIZE;
            const DOC_KIND: $crate::packet::DocKind =
                <$inner as $crate::wire::Wire>::DOC_KIND;
            #[inline]
            fn read(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::error::FieldError> {
                <$inner as $crate::wire::Wire>::read(r).map($name)
            }
            #[inline]
            fn write(&self, w: &mut $crate::wire::Writer<'_>) {
                $crate::wire::Wire::write(&self.0, w);
            }
        }

        impl From<$inner> for $name {
            fn from(v: $inner) -> Self {
                $name(v)
            }
        }
    )*};
}

/// Declares a wire enum over an integer; a value the page does not list fails reading
/// with [`Rule::UnknownValue`].
#[macro_export]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $repr:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $value:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr($repr)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// Every variant in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            pub fn from_repr(v: $repr) -> Option<Self> {
                match v {
                    $( x if x == $value => Some($name::$variant), )*
                    _ => None,
                }
            }

            pub fn to_repr(self) -> $repr {
                self as $repr
            }
        }

        impl $crate::wire::Wire for $name {
            const SIZE: usize = <$repr as $crate::wire::Wire>::SIZE;
            const DOC_KIND: $crate::packet::DocKind =
                <$repr as $crate::wire::Wire>::DOC_KIND;
            #[inline]
            fn read(
                r: &mut $crate::wire::Reader<'_>,
            ) -> Result<Self, $crate::error::FieldError> {
                let v = <$repr as $crate::wire::Wire>::read(r)?;
                $name::from_repr(v).ok_or($crate::error::FieldError::rule(
                    $crate::error::Rule::UnknownValue(v as u64),
                ))
            }
            #[inline]
            fn write(&self, w: &mut $crate::wire::Writer<'_>) {
                $crate::wire::Wire::write(&self.to_repr(), w);
            }
        }
    };
}
