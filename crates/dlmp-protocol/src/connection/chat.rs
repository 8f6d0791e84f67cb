//! Chat (connection.md §4): ClientChat and ChatMessage, with the `0xRRGGBB` [`Color`]
//! that other pages' colored things share.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, SessionToken};
use crate::packet;
use crate::text::Text;
use crate::wire::{Reader, Validate, Wire, Writer};

/// The longest chat line in bytes.
pub const MAX_CHAT: usize = 144;

/// A chat line: `[u8 len][len bytes]`, UTF-8, 1..=144 bytes.
pub type ChatText = Text<MAX_CHAT>;

/// A `u32 color` written `0xRRGGBB`: the top byte is zero, anything else fails reading
/// ([`Rule::Reserved`]). Checked by its own [`Wire`] impl, so every packet with a color
/// field gets the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Color(pub u32);

impl Color {
    /// The bits a color may use.
    pub const MASK: u32 = 0x00FF_FFFF;

    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Color(u32::from_be_bytes([0, r, g, b]))
    }
}

impl From<u32> for Color {
    fn from(v: u32) -> Self {
        Color(v)
    }
}

impl Wire for Color {
    const SIZE: usize = 4;
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        let c = Color(u32::read(r)?);
        c.check()?;
        Ok(c)
    }
    fn write(&self, w: &mut Writer<'_>) {
        self.0.write(w);
    }
    fn check(&self) -> Result<(), FieldError> {
        check::bits_within("", self.0, Self::MASK)
    }
}

/// A chat line must not be empty; the page's length limit is the type's.
fn check_not_empty(text: &ChatText) -> Result<(), FieldError> {
    check::ensure(!text.is_empty(), "text", Rule::BadText)
}

packet! {
    /// ClientChat (0x07), Client → Server, reliable: a chat line, or a command when it
    /// starts with `/`.
    pub struct ClientChat = 0x07, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// 1..=144 bytes, no control characters.
        pub text: ChatText,
    }
}

impl Validate for ClientChat {
    fn validate(&self) -> Result<(), FieldError> {
        check_not_empty(&self.text)?;
        check::ensure(
            !self.text.as_str().chars().any(char::is_control),
            "text",
            Rule::BadText,
        )
    }
}

packet! {
    /// ChatMessage (0x08), Server → Client, reliable: a line for the chat box.
    pub struct ChatMessage = 0x08, ServerToClient {
        pub event_id: EventId,
        pub color: Color,
        /// 1..=144 bytes.
        pub text: ChatText,
    }
}

impl Validate for ChatMessage {
    fn validate(&self) -> Result<(), FieldError> {
        check_not_empty(&self.text)
    }
}
