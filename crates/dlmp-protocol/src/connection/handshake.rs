//! The handshake and the end of a session (connection.md §2).

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{PlayerId, PlayerToken, SessionToken};
use crate::packet;
use crate::text::FixedText;
use crate::wire::Validate;
use crate::wire_enum;

/// `"DLMP"` read as a little-endian u32 (bytes `44 4C 4D 50`).
pub const MAGIC: u32 = 0x504D_4C44;
/// Protocol 1: one packet per datagram.
pub const PROTOCOL_VERSION: u16 = 1;
/// Protocol 2: a client that also accepts bundles (connection.md §1).
pub const PROTOCOL_BUNDLES: u16 = 2;

/// The protocol a client said in its ClientHello; any other version is refused
/// (ConnectRefused reason 1, connection.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Protocol {
    /// Protocol 1: single packets only.
    #[default]
    Single,
    /// Protocol 2: accepts bundles.
    Bundles,
}

impl Protocol {
    /// The protocol of a hello's `protocol` field; `None` for a version this server
    /// does not speak.
    pub fn of(version: u16) -> Option<Self> {
        match version {
            PROTOCOL_VERSION => Some(Protocol::Single),
            PROTOCOL_BUNDLES => Some(Protocol::Bundles),
            _ => None,
        }
    }

    /// The version number a hello carries.
    pub fn version(self) -> u16 {
        match self {
            Protocol::Single => PROTOCOL_VERSION,
            Protocol::Bundles => PROTOCOL_BUNDLES,
        }
    }

    /// Whether the client accepts bundles.
    pub fn bundles(self) -> bool {
        self == Protocol::Bundles
    }
}
/// The highest weather id the game has (connection.md §2, world.md SetWeather).
pub const MAX_WEATHER: u8 = 22;
/// GarageDoors bits 50..63 are always zero (world.md GarageDoors).
pub const GARAGE_MASK: u64 = (1 << 50) - 1;

/// A player name: 3..=24 characters of `A-Z a-z 0-9 _ [ ] ( ) . $ @ =` (connection.md §2).
pub fn check_name(field: &'static str, name: &FixedText<24>) -> Result<(), FieldError> {
    let s = name.as_str();
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_[]().$@=".contains(c);
    check::ensure(
        (3..=24).contains(&s.len()) && s.chars().all(allowed),
        field,
        Rule::BadText,
    )
}

packet! {
    /// ClientHello (0x01), Client → Server: the first packet of a connection. As large as
    /// the answer, so the server never amplifies.
    pub struct ClientHello = 0x01, ClientToServer {
        /// [`MAGIC`].
        pub magic: u32,
        pub protocol: u16,
        /// The client's random number, echoed in the answer.
        pub nonce: u32,
        pub name: FixedText<24>,
        /// Zeros.
        pub pad: [u8; 29],
    }
}

impl Validate for ClientHello {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.magic == MAGIC, "magic", Rule::Reserved)?;
        check::ensure(self.pad == [0; 29], "pad", Rule::Reserved)
        // The protocol version and the name's characters are refusals with an answer
        // (ConnectRefused 1 and 2), not decoding failures: the session layer checks them.
    }
}

packet! {
    /// ServerHello (0x02), Server → Client: the session is open.
    pub struct ServerHello = 0x02, ServerToClient {
        pub nonce: u32,
        /// Never 0.
        pub session_token: SessionToken,
        pub player_id: PlayerId,
        pub player_token: PlayerToken,
        pub max_players: u16,
        pub hours: u8,
        pub minutes: u8,
        /// 0..=22.
        pub weather: u8,
        /// GarageDoors mask; bits 50..63 zero.
        pub garage_open: u64,
        pub tick_hz: u16,
    }
}

impl Validate for ServerHello {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.session_token.0 != 0, "session_token", Rule::OutOfRange)?;
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        check::ensure(
            self.player_id.0 < u32::from(self.max_players),
            "player_id",
            Rule::OutOfRange,
        )?;
        check::range("hours", self.hours, 0..=23)?;
        check::range("minutes", self.minutes, 0..=59)?;
        check::range("weather", self.weather, 0..=MAX_WEATHER)?;
        check::bits_within("garage_open", self.garage_open, GARAGE_MASK)
    }
}

wire_enum! {
    /// Why a hello was refused (connection.md §2).
    pub enum RefuseReason: u8 {
        ServerFull = 0,
        WrongProtocol = 1,
        InvalidName = 2,
        NameInUse = 3,
        Banned = 4,
        TooManyAttempts = 5,
    }
}

packet! {
    /// ConnectRefused (0x05), Server → Client: the hello was well-formed but refused.
    pub struct ConnectRefused = 0x05, ServerToClient {
        pub nonce: u32,
        pub reason: RefuseReason,
    }
}

impl Validate for ConnectRefused {}

wire_enum! {
    /// Why a session ended; shared by Disconnect and PlayerLeave (connection.md §4).
    pub enum LeaveReason: u8 {
        Quit = 0,
        Timeout = 1,
        Kicked = 2,
    }
}

packet! {
    /// Disconnect (0x06), Client → Server: the client leaves.
    pub struct ClientDisconnect = 0x06, ClientToServer {
        pub session_token: SessionToken,
    }
}

impl Validate for ClientDisconnect {}

packet! {
    /// Disconnect (0x06), Server → Client: the server ended the session; sent 3 times
    /// 50 ms apart.
    pub struct ServerDisconnect = 0x06, ServerToClient {
        pub reason: LeaveReason,
    }
}

impl Validate for ServerDisconnect {}
