//! The tick's relays (RemotePlayerSync, RemoteVehicleFrame), kept apart from the
//! connections until the outbound pass (ADR 0078).
//!
//! A relay goes to every viewer of its subject with the same bytes. Queued on each
//! viewer's [`Connection`](super::Connection), a crowd's tick scattered ~30 000 small writes
//! over a thousand connections' buffers, a cache miss each: a quarter of the tick
//! (issue 11). Here a relay is encoded once into one arena, and each recipient's share is an
//! entry of a few bytes pushed onto that recipient's list, which keeps its room between
//! ticks; the outbound pass reads each list front to back while it packs the recipient's
//! datagrams (ADR 0083). A chain per recipient through one list cost a cache miss per
//! entry twice, once to link it and once to follow it; one list sorted by recipient at the
//! first read cost two more passes over every entry.
//!
//! A relay leaves after every lane event that leaves in its tick, and only if its barrier
//! event, if any, has left by then (a subject's show or death to this recipient: issue 10,
//! "a client must never see a relay of a subject before its show, nor a dead relay before
//! the death"). If the barrier cannot leave this tick (the lane sends at most 64 new events
//! a tick, connection.md §3), the relay is dropped and counted
//! ([`Connection::held_back`](super::Connection::held_back)): an unreliable packet is never
//! kept for a later tick, where it would be stale.

use bevy_ecs::resource::Resource;

use super::connection::SendError;
use dlmp_protocol::ids::{EventId, PlayerId};
use dlmp_protocol::{MAX_DATAGRAM, ServerPacket};

/// A relay packet encoded into the tick's arena: what [`Relays::queue`] sends to a viewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelayPacket(u32);

/// One recipient's share of a relay.
#[derive(Debug, Clone, Copy)]
struct Entry {
    packet: RelayPacket,
    /// The lane event the relay may not overtake.
    after: Option<EventId>,
}

/// The tick's relays, by recipient; emptied by the outbound pass.
#[derive(Resource, Debug, Default)]
pub struct Relays {
    /// Every packet's bytes, back to back, in `bytes[..used]`. The rest is zeroed room
    /// kept between ticks, which an encode writes into: a tick zeroes the bytes it used
    /// once, at its end, not a whole datagram's room for each of its ~1000 encodes.
    bytes: Vec<u8>,
    used: usize,
    /// Each packet's end in `bytes` (its start is the end of the one before).
    ends: Vec<u32>,
    /// By recipient slot: its entries in the order queued. Each list keeps its room
    /// between ticks, so a crowd's tick allocates nothing.
    by_slot: Vec<Vec<Entry>>,
}

impl Relays {
    /// Encodes an unreliable packet once for any number of recipients; a lane event is
    /// refused ([`SendError::WrongLane`]), an invalid packet too ([`SendError::Invalid`]).
    pub fn encode(&mut self, packet: impl Into<ServerPacket>) -> Result<RelayPacket, SendError> {
        let packet = packet.into();
        if packet.event_id().is_some() {
            return Err(SendError::WrongLane);
        }
        let id = u32::try_from(self.ends.len()).map_err(|_| SendError::QueueFull)?;
        let start = self.used;
        if self.bytes.len() < start + MAX_DATAGRAM {
            self.bytes.resize(start + MAX_DATAGRAM, 0);
        }
        let room = start..start + MAX_DATAGRAM;
        let end = match packet.encode(&mut self.bytes[room.clone()]) {
            Ok(n) => start + n,
            Err(e) => {
                self.bytes[room].fill(0);
                return Err(SendError::Invalid(e));
            }
        };
        self.ends
            .push(u32::try_from(end).map_err(|_| SendError::QueueFull)?);
        self.used = end;
        Ok(RelayPacket(id))
    }

    /// Queues `packet` for `recipient`, to leave after the lane events of the tick and
    /// only if lane event `after`, if given, has left by then.
    #[inline]
    pub fn queue(&mut self, recipient: PlayerId, packet: RelayPacket, after: Option<EventId>) {
        let slot = recipient.0 as usize;
        if self.by_slot.len() <= slot {
            self.by_slot.resize_with(slot + 1, Vec::new);
        }
        self.by_slot[slot].push(Entry { packet, after });
    }

    /// `recipient`'s relays in the order queued: the bytes and the barrier of each.
    pub(crate) fn to(
        &self,
        recipient: PlayerId,
    ) -> impl Iterator<Item = (&[u8], Option<EventId>)> + '_ {
        let list = self
            .by_slot
            .get(recipient.0 as usize)
            .map_or(&[][..], Vec::as_slice);
        list.iter().map(|e| (self.packet(e.packet), e.after))
    }

    /// Drops `recipient`'s relays: it was sent them, or it is gone.
    pub(crate) fn forget(&mut self, recipient: PlayerId) {
        if let Some(list) = self.by_slot.get_mut(recipient.0 as usize) {
            list.clear();
        }
    }

    fn packet(&self, packet: RelayPacket) -> &[u8] {
        let i = packet.0 as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// Ends the tick: every relay was sent or dropped. The room is kept for the next tick.
    pub(crate) fn clear(&mut self) {
        self.bytes[..self.used].fill(0);
        self.used = 0;
        self.ends.clear();
        self.by_slot.iter_mut().for_each(Vec::clear);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::connection::lane::ServerAck;
    use dlmp_protocol::connection::roster::PlayerLeave;
    use dlmp_protocol::ids::PlayerToken;

    fn ack(n: u32) -> ServerPacket {
        ServerAck {
            event_id: EventId(n),
        }
        .into()
    }

    fn bytes(p: &ServerPacket) -> Vec<u8> {
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = p.encode(&mut buf).expect("valid");
        buf[..n].to_vec()
    }

    #[test]
    fn each_recipient_gets_its_relays_in_the_order_queued_with_their_barriers() {
        let mut relays = Relays::default();
        let a = relays.encode(ack(1)).expect("unreliable");
        let b = relays.encode(ack(2)).expect("unreliable");
        let (r1, r2) = (PlayerId(3), PlayerId(0));
        relays.queue(r1, b, None);
        relays.queue(r2, a, Some(EventId(7)));
        relays.queue(r1, a, Some(EventId(9)));
        let got: Vec<_> = relays.to(r1).map(|(b, e)| (b.to_vec(), e)).collect();
        assert_eq!(
            got,
            [(bytes(&ack(2)), None), (bytes(&ack(1)), Some(EventId(9)))]
        );
        assert_eq!(relays.to(r2).count(), 1);
        assert_eq!(relays.to(PlayerId(1)).count(), 0);
        assert_eq!(relays.to(PlayerId(500)).count(), 0);
        relays.forget(r1);
        assert_eq!(relays.to(r1).count(), 0);
        assert_eq!(relays.to(r2).count(), 1);
        relays.clear();
        assert!(
            relays.bytes.iter().all(|&b| b == 0),
            "the room an encode writes into is zeroed again"
        );
        assert_eq!(relays.to(r2).count(), 0);
        let c = relays.encode(ack(3)).expect("unreliable");
        relays.queue(r2, c, None);
        let got: Vec<_> = relays.to(r2).map(|(b, _)| b.to_vec()).collect();
        assert_eq!(got, [bytes(&ack(3))]);
    }

    #[test]
    fn a_relay_queued_after_a_read_or_a_forget_is_read_too() {
        let mut relays = Relays::default();
        let a = relays.encode(ack(1)).expect("unreliable");
        let b = relays.encode(ack(2)).expect("unreliable");
        let (r1, r2) = (PlayerId(1), PlayerId(2));
        relays.queue(r1, a, None);
        relays.queue(r2, a, None);
        assert_eq!(relays.to(r1).count(), 1);
        relays.forget(r1);
        relays.queue(r2, b, Some(EventId(4)));
        relays.queue(r1, b, None);
        let got: Vec<_> = relays.to(r2).map(|(b, e)| (b.to_vec(), e)).collect();
        assert_eq!(
            got,
            [(bytes(&ack(1)), None), (bytes(&ack(2)), Some(EventId(4)))]
        );
        let got: Vec<_> = relays.to(r1).map(|(b, _)| b.to_vec()).collect();
        assert_eq!(got, [bytes(&ack(2))], "only what came after the forget");
        relays.clear();
        assert_eq!(relays.to(r1).count(), 0);
        assert_eq!(relays.to(r2).count(), 0);
    }

    #[test]
    fn a_lane_event_is_refused() {
        let mut relays = Relays::default();
        let leave = PlayerLeave {
            id: PlayerId(1),
            player_token: PlayerToken(1),
            event_id: EventId(0),
            reason: dlmp_protocol::connection::handshake::LeaveReason::Quit,
        };
        assert_eq!(
            relays.encode(ServerPacket::from(leave)),
            Err(SendError::WrongLane)
        );
    }
}
