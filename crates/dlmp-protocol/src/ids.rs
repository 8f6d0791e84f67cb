//! Newtypes for the ids, tokens, sequence numbers and revisions that several pages share
//! (connection.md §3, §5). Page-specific ones live beside their packets.

use crate::serial::Serial;
use crate::wire_newtype;

wire_newtype! {
    /// A player slot, `0..max_players` (connection.md §5); reused after a disconnect.
    pub struct PlayerId(u32);
    /// The generation of a player slot: a server-wide counter, never 0 (connection.md §5).
    pub struct PlayerToken(u32);
    /// The random session token of a connection, never 0 (connection.md §2).
    pub struct SessionToken(u64);
    /// Position of an event in one direction's reliable stream, from 1 (connection.md §3).
    pub struct EventId(u32);
    /// A frame or shot counter compared by serial-number arithmetic (connection.md §5).
    pub struct Seq(u32);
    /// A 16-bit revision echoed by the client (weapon_rev, vital_rev, health_rev, ...).
    pub struct Revision(u16);
    /// A server vehicle id, never reused during a run (connection.md §5).
    pub struct VehicleId(u32);
    /// A vehicle's generation; grows on every respawn (connection.md §5).
    pub struct VehicleEpoch(u8);
}

impl PlayerId {
    /// `0xFFFFFFFF`: no player (an attacker-less report, an empty hit).
    pub const NONE: PlayerId = PlayerId(u32::MAX);
}

impl VehicleId {
    /// `0xFFFFFFFF`: no vehicle (not hitched, not lifted, RC released).
    pub const NONE: VehicleId = VehicleId(u32::MAX);
}

macro_rules! serial_newtype {
    ($($t:ident),*) => {$(
        impl Serial for $t {
            fn is_newer_than(self, other: Self) -> bool {
                self.0.is_newer_than(other.0)
            }
            fn next(self) -> Self {
                $t(self.0.next())
            }
        }
    )*};
}
serial_newtype!(EventId, Seq, Revision, VehicleEpoch);
