//! The two top-level packet enums, one per direction, dispatching on `packet_id`
//! (connection.md §1). The network thread decodes every datagram through one of them, so
//! malformed input never reaches the game.

use super::connection::chat::*;
use super::connection::damage::*;
use super::connection::handshake::*;
use super::connection::lane::*;
use super::connection::roster::*;
use super::connection::weapons::*;
use super::error::{DecodeError, EncodeError, Rule};
use super::packet::{Direction, Packet};
use super::player::animation::*;
use super::player::appearance::*;
use super::player::control::*;
use super::player::hud::*;
use super::player::life::*;
use super::player::physics::*;
use super::player::streaming::*;
use super::player::sync::*;
use super::vehicle::damage::*;
use super::vehicle::frame::*;
use super::vehicle::life::*;
use super::vehicle::params::*;
use super::vehicle::remote::*;
use super::vehicle::seats::*;
use super::vehicle::shot::*;
use super::vehicle::sync::*;
use super::vehicle::towing::*;
use super::vehicle::train::*;
use super::vehicle::transform::*;
use super::vehicle::tuning::*;
use super::world::environment::*;
use super::world::label::*;
use super::world::markers::*;
use super::world::object::*;
use super::world::pickup::*;
use super::world::waypoint::*;

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
        PlayerSync,
        ClientDisconnect,
        ClientChat,
        RespawnRequest,
        ClientAck,
        PickupTouch,
        WeaponShot,
        DeathReport,
        DamageReport,
        RequestSpawn,
        VehicleEnter,
        VehicleExit,
        VehicleFrame,
        VehicleExplode,
        VehicleDamage,
        VehicleControl,
        VehicleShot,
        VehicleTow,
        VehicleRemoteExit,
        VehicleRemoteEnter,
        VehicleWinch,
        PlayerWaypoint,
    }
}

dispatch! {
    /// Every Server → Client packet.
    pub enum ServerPacket: ServerToClient {
        ServerHello,
        RemotePlayerSync,
        ConnectRefused,
        ServerDisconnect,
        ChatMessage,
        PlayerNametag,
        PlayerLeave,
        PlayerJoin,
        RespawnPlayer,
        ServerAck,
        PlayerSkills,
        SetWanted,
        PickupSync,
        TeleportPlayer,
        GiveWeapon,
        GiveHealth,
        GiveArmor,
        RemoteWeaponShot,
        PlayerWasted,
        PlayerSpawned,
        SetSkin,
        SetTime,
        SetWeather,
        RunClock,
        SetMoney,
        SpawnPlayer,
        ApplyAnimation,
        ClearAnimations,
        SetWalkingStyle,
        SetAnimationProgress,
        SetAnimationSpeed,
        VehicleSync,
        VehicleOccupancy,
        RemoteVehicleFrame,
        VehicleSyncer,
        VehicleDeath,
        RemoteVehicleDamage,
        VehicleHealth,
        VehicleParams,
        PlayerStreamOut,
        RemoteVehicleShot,
        VehicleTrailer,
        TrainState,
        VehicleRemote,
        VehicleLift,
        GarageDoors,
        VehicleTuning,
        VehicleHandling,
        VehicleTransform,
        VehicleColors,
        SetFightingStyle,
        SetHeadless,
        SetOnFire,
        SetSpecialAction,
        ScopeChanged,
        Label3D,
        Checkpoint,
        Blip,
        GangZone,
        SetFrozen,
        SetCamera,
        ObjectState,
        SetVelocity,
        SetGravity,
        SetDrunkLevel,
        SetPlayerStats,
        SetWorldBounds,
        ColshapeShape,
        SetWaypoint,
    }
}
