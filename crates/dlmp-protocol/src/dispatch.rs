//! The two top-level packet enums, one per direction, dispatching on `packet_id`
//! (connection.md §1). The network thread decodes every datagram through one of them, so
//! malformed input never reaches the game.

use super::connection::chat::*;
use super::connection::damage::*;
use super::connection::handshake::*;
use super::connection::lane::*;
use super::connection::roster::*;
use super::connection::weapons::*;
use super::edit::*;
use super::error::{DecodeError, EncodeError, Rule};
use super::ids::{EventId, SessionToken};
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
use super::weapons::explosion::*;
use super::weapons::projectile::*;
use super::weapons::satchel::*;
use super::weapons::stealth::*;
use super::world::environment::*;
use super::world::label::*;
use super::world::markers::*;
use super::world::object::*;
use super::world::pickup::*;
use super::world::waypoint::*;

/// The `event_id` of a packet on a reliable lane (connection.md §3), `None` otherwise.
macro_rules! event_id_of {
    ($p:ident reliable) => {
        Some($p.event_id)
    };
    ($p:ident) => {{
        let _ = $p;
        None
    }};
}

/// Sets the `event_id` of a packet on a reliable lane; `false` for other packets.
macro_rules! set_event_id_of {
    ($p:ident, $id:ident, reliable) => {{
        $p.event_id = $id;
        true
    }};
    ($p:ident, $id:ident,) => {{
        let _ = ($p, $id);
        false
    }};
}

/// Whether a packet rides a reliable lane, by its `[reliable]` mark.
macro_rules! reliable_of {
    (reliable) => {
        true
    };
    () => {
        false
    };
}

/// One packet as declared, for the generated reference (docs/protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketDoc {
    pub id: u8,
    pub name: &'static str,
    pub direction: Direction,
    /// On a reliable event lane (carries `event_id`); else unreliable.
    pub reliable: bool,
    /// Bytes after `packet_id`; the smallest encoding when not `fixed`.
    pub size: usize,
    pub fixed: bool,
    pub attrs: &'static [&'static str],
    pub fields: &'static [super::packet::FieldDoc],
}

/// Declares a direction's enum over its packet types; `[reliable]` marks the packets that
/// ride a reliable event lane (they carry `event_id`). A packet of the other direction or
/// two packets with one id fail to compile.
macro_rules! dispatch {
    (
        $(#[$meta:meta])* $vis:vis enum $name:ident : $dir:ident {
            $($ty:ident $([$rel:ident])?),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis enum $name {
            $( $ty($ty), )*
        }

        impl $name {
            /// `(packet_id, name)` of every packet of this direction.
            pub const PACKETS: &'static [(u8, &'static str)] =
                &[$( (<$ty as Packet>::ID, <$ty as Packet>::NAME) ),*];

            /// Every packet of this direction as declared, in declaration order.
            pub const DOCS: &'static [PacketDoc] = &[$( PacketDoc {
                id: <$ty as Packet>::ID,
                name: <$ty as Packet>::NAME,
                direction: <$ty as Packet>::DIRECTION,
                reliable: reliable_of!($($rel)?),
                size: <$ty as super::wire::Wire>::SIZE,
                fixed: <$ty as super::wire::Wire>::FIXED,
                attrs: <$ty as Packet>::DOC,
                fields: <$ty as Packet>::FIELDS,
            } ),*];

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

            /// Encodes without the page's rules: for the harness, whose tests send invalid
            /// packets as bytes through the real decoder.
            #[doc(hidden)]
            pub fn encode_unchecked(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
                match self {
                    $( $name::$ty(p) => p.encode_unchecked(buf), )*
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

            /// The position in its reliable lane; `None` for an unreliable packet.
            pub fn event_id(&self) -> Option<EventId> {
                match self {
                    $( $name::$ty(p) => event_id_of!(p $($rel)?), )*
                }
            }

            /// Stamps the position in its reliable lane; `false` (and no change) for an
            /// unreliable packet.
            pub fn set_event_id(&mut self, id: EventId) -> bool {
                match self {
                    $( $name::$ty(p) => set_event_id_of!(p, id, $($rel)?), )*
                }
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(p: $ty) -> Self {
                    $name::$ty(p)
                }
            }

            impl TryFrom<$name> for $ty {
                type Error = $name;
                fn try_from(p: $name) -> Result<Self, $name> {
                    match p {
                        $name::$ty(inner) => Ok(inner),
                        #[allow(unreachable_patterns, reason = "a one-packet direction")]
                        other => Err(other),
                    }
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
        ClientChat [reliable],
        RespawnRequest,
        ClientAck,
        PickupTouch [reliable],
        WeaponShot,
        DeathReport [reliable],
        DamageReport [reliable],
        RequestSpawn,
        VehicleEnter [reliable],
        VehicleExit [reliable],
        VehicleFrame,
        VehicleExplode [reliable],
        VehicleDamage [reliable],
        VehicleControl [reliable],
        VehicleShot,
        VehicleTow [reliable],
        VehicleRemoteExit [reliable],
        VehicleRemoteEnter [reliable],
        VehicleWinch [reliable],
        PlayerWaypoint [reliable],
        ProjectileCreate [reliable],
        SatchelDetonate [reliable],
        StealthKillRequest [reliable],
        EntityEdit [reliable],
        EditCamera,
    }
}

dispatch! {
    /// Every Server → Client packet.
    pub enum ServerPacket: ServerToClient {
        ServerHello,
        RemotePlayerSync,
        ConnectRefused,
        ServerDisconnect,
        ChatMessage [reliable],
        PlayerNametag [reliable],
        PlayerLeave [reliable],
        PlayerJoin [reliable],
        RespawnPlayer,
        ServerAck,
        PlayerSkills [reliable],
        SetWanted [reliable],
        PickupSync [reliable],
        TeleportPlayer [reliable],
        GiveWeapon [reliable],
        GiveHealth [reliable],
        GiveArmor [reliable],
        RemoteWeaponShot,
        PlayerWasted [reliable],
        PlayerSpawned [reliable],
        SetSkin [reliable],
        SetTime [reliable],
        SetWeather [reliable],
        RunClock [reliable],
        SetMoney [reliable],
        SpawnPlayer,
        ApplyAnimation [reliable],
        ClearAnimations [reliable],
        SetWalkingStyle [reliable],
        SetAnimationProgress [reliable],
        SetAnimationSpeed [reliable],
        VehicleSync [reliable],
        VehicleOccupancy [reliable],
        RemoteVehicleFrame,
        VehicleSyncer [reliable],
        VehicleDeath [reliable],
        RemoteVehicleDamage [reliable],
        VehicleHealth [reliable],
        VehicleParams [reliable],
        PlayerStreamOut [reliable],
        RemoteVehicleShot,
        VehicleTrailer [reliable],
        TrainState [reliable],
        VehicleRemote [reliable],
        VehicleLift [reliable],
        GarageDoors [reliable],
        VehicleTuning [reliable],
        VehicleHandling [reliable],
        VehicleTransform [reliable],
        VehicleColors [reliable],
        SetFightingStyle [reliable],
        SetHeadless [reliable],
        SetOnFire [reliable],
        SetSpecialAction [reliable],
        ScopeChanged [reliable],
        Label3D [reliable],
        Checkpoint [reliable],
        Blip [reliable],
        GangZone [reliable],
        SetFrozen [reliable],
        SetCamera [reliable],
        ObjectState [reliable],
        SetVelocity [reliable],
        SetGravity [reliable],
        SetDrunkLevel [reliable],
        SetPlayerStats [reliable],
        SetWorldBounds [reliable],
        ColshapeShape [reliable],
        SetWaypoint [reliable],
        RemoteProjectileCreate [reliable],
        RemoteSatchelDetonate [reliable],
        RemoteStealthKill [reliable],
        CreateExplosion [reliable],
        EditState [reliable],
    }
}

impl ClientPacket {
    /// The session token every packet after the handshake carries (connection.md §1);
    /// `None` for ClientHello.
    pub fn session_token(&self) -> Option<SessionToken> {
        match self {
            ClientPacket::ClientHello(_) => None,
            ClientPacket::PlayerSync(p) => Some(p.session_token),
            ClientPacket::ClientDisconnect(p) => Some(p.session_token),
            ClientPacket::ClientChat(p) => Some(p.session_token),
            ClientPacket::RespawnRequest(p) => Some(p.session_token),
            ClientPacket::ClientAck(p) => Some(p.session_token),
            ClientPacket::PickupTouch(p) => Some(p.session_token),
            ClientPacket::WeaponShot(p) => Some(p.session_token),
            ClientPacket::DeathReport(p) => Some(p.session_token),
            ClientPacket::DamageReport(p) => Some(p.session_token),
            ClientPacket::RequestSpawn(p) => Some(p.session_token),
            ClientPacket::VehicleEnter(p) => Some(p.session_token),
            ClientPacket::VehicleExit(p) => Some(p.session_token),
            ClientPacket::VehicleFrame(p) => Some(p.session_token),
            ClientPacket::VehicleExplode(p) => Some(p.session_token),
            ClientPacket::VehicleDamage(p) => Some(p.session_token),
            ClientPacket::VehicleControl(p) => Some(p.session_token),
            ClientPacket::VehicleShot(p) => Some(p.session_token),
            ClientPacket::VehicleTow(p) => Some(p.session_token),
            ClientPacket::VehicleRemoteExit(p) => Some(p.session_token),
            ClientPacket::VehicleRemoteEnter(p) => Some(p.session_token),
            ClientPacket::VehicleWinch(p) => Some(p.session_token),
            ClientPacket::PlayerWaypoint(p) => Some(p.session_token),
            ClientPacket::ProjectileCreate(p) => Some(p.session_token),
            ClientPacket::SatchelDetonate(p) => Some(p.session_token),
            ClientPacket::StealthKillRequest(p) => Some(p.session_token),
            ClientPacket::EntityEdit(p) => Some(p.session_token),
            ClientPacket::EditCamera(p) => Some(p.session_token),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connection::samples::{chat, lane};
    use crate::player::samples::sync;

    #[test]
    fn reliable_packets_carry_and_take_their_event_id() {
        let mut chat: ClientPacket = chat::client_chat().into();
        assert!(chat.set_event_id(EventId(77)));
        assert_eq!(chat.event_id(), Some(EventId(77)));
        let mut message: ServerPacket = chat::chat_message().into();
        assert!(message.set_event_id(EventId(9)));
        assert_eq!(message.event_id(), Some(EventId(9)));
    }

    #[test]
    fn acks_and_frames_are_not_reliable_events() {
        let mut ack: ClientPacket = lane::client_ack().into();
        assert_eq!(ack.event_id(), None);
        assert!(!ack.set_event_id(EventId(3)));
        assert_eq!(ack, lane::client_ack().into());
        assert_eq!(ServerPacket::from(lane::server_ack()).event_id(), None);
        assert_eq!(ClientPacket::from(sync::player_sync()).event_id(), None);
    }
}
