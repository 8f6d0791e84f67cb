//! The two top-level packet enums, one per direction, dispatching on `packet_id`
//! (connection.md §1). The network thread decodes every datagram through one of them, so
//! malformed input never reaches the game.

use super::connection::handshake::*;
use super::player::animation::*;
use super::player::appearance::*;
use super::player::control::*;
use super::player::hud::*;
use super::player::physics::*;
use super::error::{DecodeError, EncodeError, Rule};
use super::packet::{Direction, Packet};

/// Declares a direction's enum over its packet types. A packet of the other direction or
/// two packets with one id fail to compile.
macro_rules! dispatch {
    ($(#[$meta:meta])* $vis:vis enum $name:ident : $dir:ident { $($ty:ident),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis enum $name {
            $( $ty($ty), )*
        }

        impl $name {
            /// `(packet_id, name)` of every packet of this direction.
            pub const PACKETS: &'static [(u8, &'static str)] =
                &[$( (<$ty as Packet>::ID, <$ty as Packet>::NAME) ),*];

            /// Strictly decodes one datagram of this direction.
            pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
                let Some(&id) = bytes.first() else {
                    return Err(DecodeError {
                        packet: "",
                        field: "",
                        rule: Rule::Length { expected: 1, actual: 0 },
                    });
                };
                match id {
                    $( <$ty as Packet>::ID => <$ty as Packet>::decode(bytes).map($name::$ty), )*
                    _ => Err(DecodeError { packet: "", field: "packet_id", rule: Rule::UnknownPacket(id) }),
                }
            }

            /// Encodes into `buf` after the page's checks; returns the length written.
            pub fn encode(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
                match self {
                    $( $name::$ty(p) => p.encode(buf), )*
                }
            }

            pub fn id(&self) -> u8 {
                match self {
                    $( $name::$ty(_) => <$ty as Packet>::ID, )*
                }
            }

            /// The packet's name as the pages spell it.
            pub fn name(&self) -> &'static str {
                match self {
                    $( $name::$ty(_) => <$ty as Packet>::NAME, )*
                }
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(p: $ty) -> Self {
                    $name::$ty(p)
                }
            }
        )*

        const _: () = {
            let p = $name::PACKETS;
            let mut i = 0;
            while i < p.len() {
                let mut j = i + 1;
                while j < p.len() {
                    assert!(p[i].0 != p[j].0, "two packets of one direction share a packet_id");
                    j += 1;
                }
                i += 1;
            }
            $( assert!(
                matches!(<$ty as Packet>::DIRECTION, Direction::$dir),
                concat!(stringify!($ty), " is not a ", stringify!($dir), " packet"),
            ); )*
        };
    };
}

dispatch! {
    /// Every Client → Server packet.
    pub enum ClientPacket: ClientToServer {
        ClientHello,
        ClientDisconnect,
    }
}

dispatch! {
    /// Every Server → Client packet.
    pub enum ServerPacket: ServerToClient {
        ServerHello,
        ConnectRefused,
        ServerDisconnect,
        PlayerSkills,
        SetWanted,
        TeleportPlayer,
        SetSkin,
        SetMoney,
        ApplyAnimation,
        ClearAnimations,
        SetWalkingStyle,
        SetAnimationProgress,
        SetAnimationSpeed,
        SetFightingStyle,
        SetHeadless,
        SetOnFire,
        SetSpecialAction,
        SetFrozen,
        SetCamera,
        SetVelocity,
        SetGravity,
        SetDrunkLevel,
        SetPlayerStats,
        SetWorldBounds,
    }
}
