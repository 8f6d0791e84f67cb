//! The recipient's own HUD values (player.md): wanted level, money, drunkenness, stamina
//! and lung capacity. None of them is sent to observers.

use crate::check;
use crate::error::FieldError;
use crate::ids::EventId;
use crate::packet;
use crate::wire::Validate;

/// The highest wanted level (player.md, SetWanted).
pub const MAX_WANTED: u8 = 6;
/// The protocol's sanity bound on a balance, either sign (player.md, SetMoney).
pub const MAX_MONEY: i32 = 999_999_999;
/// The top of the stamina and lung capacity scale; also a new connection's value
/// (player.md, SetPlayerStats).
pub const MAX_STAT: u16 = 1000;

packet! {
    /// SetWanted (0x11), Server → Client, reliable: the recipient's own wanted level, which
    /// its client re-asserts every frame.
    pub struct SetWanted = 0x11, ServerToClient {
        pub event_id: EventId,
        /// 0..=[`MAX_WANTED`].
        pub level: u8,
    }
}

impl Validate for SetWanted {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("level", self.level, 0..=MAX_WANTED)
    }
}

packet! {
    /// SetMoney (0x28), Server → Client, reliable: the recipient's own absolute balance,
    /// which its client re-asserts every frame.
    pub struct SetMoney = 0x28, ServerToClient {
        pub event_id: EventId,
        /// -[`MAX_MONEY`]..=[`MAX_MONEY`].
        pub amount: i32,
    }
}

impl Validate for SetMoney {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("amount", self.amount, -MAX_MONEY..=MAX_MONEY)
    }
}

packet! {
    /// SetDrunkLevel (0x92), Server → Client, reliable: the recipient's own drunkenness on
    /// the game's scale; holds until changed.
    pub struct SetDrunkLevel = 0x92, ServerToClient {
        pub event_id: EventId,
        /// 0 sober .. 255.
        pub level: u8,
    }
}

impl Validate for SetDrunkLevel {}

packet! {
    /// SetPlayerStats (0x93), Server → Client, reliable: the recipient's own stamina and
    /// lung capacity.
    pub struct SetPlayerStats = 0x93, ServerToClient {
        pub event_id: EventId,
        /// 0..=[`MAX_STAT`].
        pub stamina: u16,
        /// 0..=[`MAX_STAT`].
        pub lung_capacity: u16,
    }
}

impl Validate for SetPlayerStats {
    fn validate(&self) -> Result<(), FieldError> {
        check::range("stamina", self.stamina, 0..=MAX_STAT)?;
        check::range("lung_capacity", self.lung_capacity, 0..=MAX_STAT)
    }
}
