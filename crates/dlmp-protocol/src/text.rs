//! Text fields (connection.md §1): UTF-8, either fixed-size NUL-padded (`u8 text[N]`) or
//! length-prefixed (`[u8 len][len bytes]`). Both keep their bytes inline: decoding a text
//! never allocates.

use core::fmt;

use super::error::{FieldError, Rule};
use super::wire::{Reader, Wire, Writer};

/// `u8 text[N]`: UTF-8 up to the first NUL, NUL bytes after it. A text of exactly `N`
/// bytes has no NUL; pages that need a terminator check [`FixedText::len`] `< N`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FixedText<const N: usize> {
    bytes: [u8; N],
}

impl<const N: usize> FixedText<N> {
    /// The empty text (all NUL).
    pub const EMPTY: Self = FixedText { bytes: [0; N] };

    /// A text of at most `N` bytes without NUL.
    pub fn new(text: &str) -> Result<Self, FieldError> {
        let src = text.as_bytes();
        if src.len() > N || src.contains(&0) {
            return Err(FieldError::rule(Rule::BadText));
        }
        let mut bytes = [0; N];
        bytes[..src.len()].copy_from_slice(src);
        Ok(FixedText { bytes })
    }

    fn from_wire(bytes: [u8; N]) -> Result<Self, FieldError> {
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(N);
        if bytes[len..].iter().any(|&b| b != 0) || core::str::from_utf8(&bytes[..len]).is_err() {
            return Err(FieldError::rule(Rule::BadText));
        }
        Ok(FixedText { bytes })
    }

    /// Length in bytes, up to the first NUL.
    pub fn len(&self) -> usize {
        self.bytes.iter().position(|&b| b == 0).unwrap_or(N)
    }

    pub fn is_empty(&self) -> bool {
        self.bytes[0] == 0
    }

    pub fn as_str(&self) -> &str {
        // The constructors admit only valid UTF-8 before the first NUL.
        core::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The text's bytes, up to the first NUL: compared without checking UTF-8 again.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len()]
    }
}

impl<const N: usize> Default for FixedText<N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const N: usize> fmt::Debug for FixedText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> Wire for FixedText<N> {
    const SIZE: usize = N;
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        Self::from_wire(r.array()?)
    }
    fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.bytes);
    }
}

/// `[u8 len][len bytes]`: UTF-8 of at most `MAX` bytes (`MAX` ≤ 255).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Text<const MAX: usize> {
    len: u8,
    bytes: [u8; MAX],
}

impl<const MAX: usize> Text<MAX> {
    const FITS_U8: () = assert!(MAX <= 255, "a length-prefixed text holds at most 255 bytes");

    /// A text of at most `MAX` bytes.
    pub fn new(text: &str) -> Result<Self, FieldError> {
        let () = Self::FITS_U8;
        let src = text.as_bytes();
        let len = u8::try_from(src.len()).map_err(|_| FieldError::rule(Rule::BadText))?;
        if src.len() > MAX {
            return Err(FieldError::rule(Rule::BadText));
        }
        let mut bytes = [0; MAX];
        bytes[..src.len()].copy_from_slice(src);
        Ok(Text { len, bytes })
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_str(&self) -> &str {
        // The constructors admit only valid UTF-8.
        core::str::from_utf8(&self.bytes[..self.len()]).unwrap_or_default()
    }
}

impl<const MAX: usize> Default for Text<MAX> {
    fn default() -> Self {
        Text {
            len: 0,
            bytes: [0; MAX],
        }
    }
}

impl<const MAX: usize> fmt::Debug for Text<MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const MAX: usize> Wire for Text<MAX> {
    const SIZE: usize = 1;
    const FIXED: bool = false;
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        let len = u8::read(r)?;
        if usize::from(len) > MAX {
            return Err(FieldError::rule(Rule::BadText));
        }
        let src = r.bytes(usize::from(len))?;
        core::str::from_utf8(src).map_err(|_| FieldError::rule(Rule::BadText))?;
        let mut bytes = [0; MAX];
        bytes[..src.len()].copy_from_slice(src);
        Ok(Text { len, bytes })
    }
    fn write(&self, w: &mut Writer<'_>) {
        w.put(&[self.len]);
        w.put(&self.bytes[..self.len()]);
    }
    fn wire_len(&self) -> usize {
        1 + self.len()
    }
}

/// Whether `c` changes how the text around it displays without showing itself: the
/// bidirectional controls (U+061C, U+200E, U+200F, U+202A..=U+202E, U+2066..=U+2069), the
/// zero-width and invisible characters (U+00AD, U+180E, U+200B..=U+200D, U+2060..=U+2064,
/// U+FEFF, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0) and the tag characters
/// (U+E0000..=U+E007F). A chat line with them can display as something else or pass for
/// another player's name.
#[must_use]
pub fn is_spoofing_char(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{00AD}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` without its [spoofing characters](is_spoofing_char); borrowed when it has none.
#[must_use]
pub fn strip_spoofing(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(is_spoofing_char) {
        std::borrow::Cow::Owned(text.chars().filter(|&c| !is_spoofing_char(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_fixed<const N: usize>(bytes: &[u8]) -> Result<FixedText<N>, FieldError> {
        FixedText::<N>::read(&mut Reader::new(bytes))
    }

    #[test]
    fn fixed_text_reads_padded_utf8() {
        let t = read_fixed::<6>(b"ab\xc3\xa9\0\0").unwrap();
        assert_eq!(t.as_str(), "abé");
        assert_eq!(t.len(), 4);
        assert_eq!(read_fixed::<3>(b"abc").unwrap().as_str(), "abc");
    }

    #[test]
    fn fixed_text_rejects_garbage_after_nul_and_bad_utf8() {
        assert_eq!(read_fixed::<4>(b"a\0b\0").unwrap_err().rule, Rule::BadText);
        assert_eq!(
            read_fixed::<4>(b"\xff\0\0\0").unwrap_err().rule,
            Rule::BadText
        );
        assert_eq!(read_fixed::<4>(b"ab").unwrap_err().rule, Rule::Truncated);
    }

    #[test]
    fn fixed_text_new_checks_size_and_nul() {
        assert!(FixedText::<3>::new("abcd").is_err());
        assert!(FixedText::<3>::new("a\0").is_err());
        assert_eq!(FixedText::<3>::new("ab").unwrap().as_str(), "ab");
    }

    #[test]
    fn text_round_trips_and_bounds() {
        let t = Text::<8>::new("héllo").unwrap();
        let mut buf = [0u8; 16];
        let mut w = Writer::new(&mut buf);
        t.write(&mut w);
        let n = w.position();
        assert_eq!(n, t.wire_len());
        assert_eq!(Text::<8>::read(&mut Reader::new(&buf[..n])).unwrap(), t);
        assert_eq!(
            Text::<2>::read(&mut Reader::new(&[3, b'a', b'b', b'c']))
                .unwrap_err()
                .rule,
            Rule::BadText
        );
        assert_eq!(
            Text::<8>::read(&mut Reader::new(&[3, b'a']))
                .unwrap_err()
                .rule,
            Rule::Truncated
        );
        assert!(Text::<2>::new("abc").is_err());
    }

    #[test]
    fn bidirectional_and_invisible_characters_are_stripped_and_the_rest_kept() {
        // "admin" spelled backwards behind a right-to-left override, a zero-width space,
        // a BOM and a tag character.
        let spoof = "\u{202E}nimda\u{202C}: hi\u{200B} there\u{FEFF}\u{E0041}";
        assert_eq!(strip_spoofing(spoof), "nimda: hi there");
        assert!(matches!(
            strip_spoofing("héllo, wörld ✓"),
            std::borrow::Cow::Borrowed("héllo, wörld ✓")
        ));
    }
}
