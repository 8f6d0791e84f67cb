//! The query packets (query.md): QueryInfo/ServerInfo, QueryPlayers/PlayerList and
//! QueryRules/Rules. Requests are padded to the size of the largest answer, so no answer
//! is larger than the request that asked for it.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::packet;
use crate::text::{FixedText, Text};
use crate::wire::{Reader, Validate, Wire, Writer};
use crate::wire_struct;

/// `"DLMQ"` read as a little-endian u32 (bytes `44 4C 4D 51`).
pub const QUERY_MAGIC: u32 = 0x514D_4C44;
/// The size of QueryInfo and of its answer, ServerInfo.
pub const INFO_SIZE: usize = 193;
/// The size of QueryPlayers and QueryRules, and the most a PlayerList or Rules takes.
pub const PAGE_REQUEST_SIZE: usize = 1200;
/// A rule key: 1..=32 bytes (query.md, QueryRules).
pub const MAX_RULE_KEY: usize = 32;
/// A rule value: 0..=128 bytes.
pub const MAX_RULE_VALUE: usize = 128;
/// The ids of this page's packets, both directions: outside the dispatch enums.
pub const QUERY_IDS: [u8; 6] = [0xE0, 0xE1, 0xE2, 0xE3, 0xE4, 0xE5];
/// ServerInfo `flags` bit 0: the server refuses new players.
pub const FLAG_CLOSED: u8 = 1;

/// `[u8 count] count × T`: the entries of a page. Encoding more than 255 entries is an
/// error; the page packer never builds one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entries<T>(pub Vec<T>);

impl<T: Wire> Wire for Entries<T> {
    const SIZE: usize = 1;
    const FIXED: bool = false;
    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        let count = u8::read(r)?;
        let mut out = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            out.push(T::read(r)?);
        }
        Ok(Entries(out))
    }
    fn write(&self, w: &mut Writer<'_>) {
        // `check` refused more than 255 before any write.
        w.put(&[u8::try_from(self.0.len()).unwrap_or(u8::MAX)]);
        for entry in &self.0 {
            w.field(entry);
        }
    }
    fn check(&self) -> Result<(), FieldError> {
        check::ensure(self.0.len() <= 255, "count", Rule::OutOfRange)?;
        self.0.iter().try_for_each(Wire::check)
    }
    fn wire_len(&self) -> usize {
        1 + self.0.iter().map(Wire::wire_len).sum::<usize>()
    }
}

packet! {
    /// QueryInfo (0xE0), Client → Server: asks for ServerInfo.
    pub struct QueryInfo = 0xE0, ClientToServer {
        /// [`QUERY_MAGIC`].
        pub magic: u32,
        /// Echoed in the answer.
        pub nonce: u32,
        /// Zeros.
        pub pad: [u8; 184],
    }
}

impl Validate for QueryInfo {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.magic == QUERY_MAGIC, "magic", Rule::Reserved)?;
        check::ensure(self.pad.iter().all(|&b| b == 0), "pad", Rule::Reserved)
    }
}

packet! {
    /// ServerInfo (0xE1), Server → Client: the server's name, mode and fill.
    pub struct ServerInfo = 0xE1, ServerToClient {
        pub nonce: u32,
        pub protocol: u16,
        /// Sessions connected now, spawned or not.
        pub players: u16,
        pub max_players: u16,
        pub tick_hz: u16,
        pub hours: u8,
        pub minutes: u8,
        pub weather: u8,
        /// Bit 0 [`FLAG_CLOSED`]; bits 1..7 zero.
        pub flags: u8,
        pub name: FixedText<64>,
        pub gamemode: FixedText<32>,
        pub language: FixedText<16>,
        pub website: FixedText<64>,
    }
}

impl Validate for ServerInfo {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("hours", self.hours, 0..=23)?;
        check::range("minutes", self.minutes, 0..=59)?;
        check::range(
            "weather",
            self.weather,
            0..=crate::connection::handshake::MAX_WEATHER,
        )?;
        check::bits_within("flags", self.flags, FLAG_CLOSED)
    }
}

/// QueryPlayers and QueryRules share one layout (query.md).
macro_rules! page_request {
    ($(#[$meta:meta])* $name:ident = $id:literal) => {
        packet! {
            $(#[$meta])*
            pub struct $name = $id, ClientToServer {
                /// [`QUERY_MAGIC`].
                pub magic: u32,
                /// Echoed in the answer.
                pub nonce: u32,
                /// 0-based.
                pub page: u16,
                /// Zeros.
                pub pad: [u8; 1189],
            }
        }

        impl Validate for $name {
            fn validate(&self) -> Result<(), FieldError> {
                check::ensure(self.magic == QUERY_MAGIC, "magic", Rule::Reserved)?;
                check::ensure(self.pad.iter().all(|&b| b == 0), "pad", Rule::Reserved)
            }
        }
    };
}

page_request! {
    /// QueryPlayers (0xE2), Client → Server: asks for one page of PlayerList.
    QueryPlayers = 0xE2
}

page_request! {
    /// QueryRules (0xE4), Client → Server: asks for one page of Rules.
    QueryRules = 0xE4
}

wire_struct! {
    /// One PlayerList entry.
    pub struct PlayerEntry {
        pub player_id: u16,
        /// Set by the gamemode (`player:set_score`), default 0.
        pub score: i32,
        /// Smoothed round-trip time, capped at 65535.
        pub ping_ms: u16,
        pub name: Text<24>,
    }
}

impl Validate for PlayerEntry {}

packet! {
    /// PlayerList (0xE3), Server → Client: one page of the connected players, in
    /// `player_id` order.
    pub struct PlayerList = 0xE3, ServerToClient {
        pub nonce: u32,
        pub page: u16,
        /// At least 1.
        pub pages: u16,
        pub players: Entries<PlayerEntry>,
    }
}

impl Validate for PlayerList {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.pages >= 1, "pages", Rule::OutOfRange)
    }
}

wire_struct! {
    /// One Rules entry.
    pub struct RuleEntry {
        /// 1..=32 bytes.
        pub key: Text<MAX_RULE_KEY>,
        pub value: Text<MAX_RULE_VALUE>,
    }
}

impl Validate for RuleEntry {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(!self.key.is_empty(), "key", Rule::BadText)
    }
}

packet! {
    /// Rules (0xE5), Server → Client: one page of the published rules, in key order.
    pub struct Rules = 0xE5, ServerToClient {
        pub nonce: u32,
        pub page: u16,
        /// At least 1.
        pub pages: u16,
        pub rules: Entries<RuleEntry>,
    }
}

impl Validate for Rules {
    fn validate(&self) -> Result<(), FieldError> {
        check::ensure(self.pages >= 1, "pages", Rule::OutOfRange)
    }
}
