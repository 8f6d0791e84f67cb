//! What the server sends a player about itself: resets that must arrive (critical) and
//! the gamemode's commands to its own player (normal events).

use dlmp_net::lane::Delivery;
use dlmp_protocol::ids::EventId;

use crate::session::{Connection, SendError};

/// Queues what the server sends the owner on its own: what a new respawn grant resets
/// (SetSpecialAction(0), SetHeadless(0), SetDrunkLevel(0), the freeze and the camera),
/// the stored control at the connect spawn grant, the own camera after a lost spectate
/// target. Critical: no caller can be refused, and a dropped reset would let the previous
/// state hold on the client (player.md: "sends ... after it"; ADR 0013, 0014, 0016).
/// The event id, if the lane took it.
pub fn reset_owner(
    conn: &mut Connection,
    packet: impl Into<dlmp_protocol::ServerPacket>,
) -> Option<EventId> {
    conn.send_event(packet, Delivery::Critical)
        .map_err(|e| tracing::debug!(?e, "server reset not queued"))
        .ok()
}

/// Queues a gamemode command to the owner's own player: a normal event (connection.md
/// §3, the pages do not call it critical). The caller checked the lane's room first and
/// stores the new state only on `Ok`, so a refused command changes nothing ("queue full").
/// A refusal is logged here, naming the packet; the caller only decides its state.
pub fn command_owner(
    conn: &mut Connection,
    packet: impl Into<dlmp_protocol::ServerPacket>,
) -> Result<EventId, SendError> {
    let packet = packet.into();
    let name = packet.name();
    conn.send_event(packet, Delivery::Normal)
        .inspect_err(|e| tracing::debug!(peer = %conn.addr(), "{name} not queued: {e}"))
}
