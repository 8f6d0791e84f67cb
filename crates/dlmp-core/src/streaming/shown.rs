//! The lane half of the engine for the world kinds (docs/decisions/0027): per recipient,
//! the keys shown to it and the hides its lane has not taken yet. [`ShownSets::apply`]
//! acts on an engine [`Decision`]: a hide leaves the set at once and waits in the pending
//! queue until the lane takes it; pending hides go first, oldest first; a show of a key
//! whose hide still waits is held; a show the lane refuses (droppable, "queue full") is
//! not in the set, so the next pass decides it again. A recipient that leaves is
//! forgotten, so a new connection on its slot receives its set again.
//!
//! Players keep their shown sets in `Viewers` (ADR 0008) and use only the decision half.
//!
//! The sets are kept turned around too, key by key ([`ShownSets::viewers_of`]), changed
//! with them: a key's viewers (a relay's audience, a seated player's) cost those viewers,
//! not a search of every recipient's set.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

use tracing::debug;

use super::coalesce::Coalescer;
use super::engine::{Audience, Decision, Engine, Rules, Viewpoint};
use super::grid::FxHasher;
use super::stable::SetRevision;
use crate::session::{Connection, PlayerIndex, SendError};
use crate::viewers::Viewers;
use bevy_ecs::system::Query;
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::{EventId, PlayerId, PlayerToken};

/// One kind's shown sets and pending hides, by recipient slot.
#[derive(Debug, Clone, Default)]
pub struct ShownSets {
    shown: Vec<Vec<u32>>,
    pending: Vec<VecDeque<Pending>>,
    /// What follows every change of `shown`.
    index: Index,
    /// Critical changes waiting for a viewer's ack ([`ShownSets::tell_change`]).
    changes: Coalescer,
}

/// Each key's viewers.
type ByKey = HashMap<u32, Viewers, BuildHasherDefault<FxHasher>>;

/// What is kept in step with the sets: who each key is shown to, and each recipient's
/// [`SetRevision`].
#[derive(Debug, Clone, Default)]
struct Index {
    /// `shown` by key: who each key is shown to (no entry: nobody).
    by_key: ByKey,
    /// By recipient slot.
    revisions: Vec<SetRevision>,
}

impl Index {
    /// `key` joined `recipient`'s set.
    fn view(&mut self, key: u32, recipient: PlayerId) {
        self.by_key.entry(key).or_default().insert(recipient);
        self.bump(recipient);
    }

    /// `key` left `recipient`'s set; a key shown to nobody keeps no entry.
    fn unview(&mut self, key: u32, recipient: PlayerId) {
        if let Some(v) = self.by_key.get_mut(&key) {
            v.remove(recipient);
            if v.is_empty() {
                self.by_key.remove(&key);
            }
        }
        self.bump(recipient);
    }

    fn bump(&mut self, recipient: PlayerId) {
        let i = slot(recipient);
        if self.revisions.len() <= i {
            self.revisions.resize(i + 1, SetRevision::default());
        }
        self.revisions[i].bump();
    }
}

/// A hide decided but not yet in the lane: its key and its packets, built when it was
/// decided (a vehicle's hide carries the hides of its occupants, player.md).
#[derive(Debug, Clone)]
struct Pending {
    key: u32,
    packets: Vec<ServerPacket>,
}

/// The packets of one show, in lane order, each with its delivery: queued whole or not
/// at all (a vehicle's show: its occupants, the vehicle, its seats; player.md).
pub type Group = Vec<(ServerPacket, Delivery)>;

/// The entry of `key` in `sorted` (ascending by key): how a kind finds the item a show
/// names among the items it gathered this pass.
pub fn lookup<K: Ord + Copy, T: Copy>(sorted: &[(K, T)], key: K) -> Option<T> {
    sorted
        .binary_search_by_key(&key, |(k, _)| *k)
        .ok()
        .map(|i| sorted[i].1)
}

/// What [`ShownSets::apply`] did, for the caller's stream events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Keys that left the set this pass.
    pub hidden: Vec<u32>,
    /// Keys queued as shows this pass, in lane order.
    pub shown: Vec<u32>,
}

fn slot(id: PlayerId) -> usize {
    id.0 as usize
}

impl ShownSets {
    /// One recipient's pass of a world kind (ADR 0027): the engine decides against what
    /// the recipient is shown, and [`apply`](Self::apply) queues it. `conn` is asked only
    /// when there is something to send, so a quiet recipient costs the decision alone.
    pub fn reconcile<C: std::ops::DerefMut<Target = Connection>>(
        &mut self,
        engine: &mut Engine,
        rules: &Rules,
        viewpoint: &Viewpoint,
        audience: &impl Audience,
        decision: &mut Decision,
        conn: impl FnOnce() -> Option<C>,
        hide: impl Fn(u32) -> ServerPacket,
        show: impl FnMut(u32) -> Option<ServerPacket>,
        applied: &mut Applied,
    ) {
        let recipient = viewpoint.id;
        engine.decide(rules, viewpoint, self.of(recipient), audience, decision);
        if decision.hides.is_empty() && decision.shows.is_empty() && self.pending_empty(recipient) {
            return;
        }
        if let Some(mut conn) = conn() {
            self.apply(recipient, decision, &mut conn, hide, show, applied);
        }
    }

    /// Keys shown, all recipients together (the metrics' streamed-set size).
    pub fn total(&self) -> usize {
        self.shown.iter().map(Vec::len).sum()
    }

    /// The keys shown to `recipient`, ascending.
    pub fn of(&self, recipient: PlayerId) -> &[u32] {
        self.shown.get(slot(recipient)).map_or(&[], Vec::as_slice)
    }

    /// The revision of `recipient`'s set: it changes with every change of the set.
    pub fn revision(&self, recipient: PlayerId) -> SetRevision {
        self.index
            .revisions
            .get(slot(recipient))
            .copied()
            .unwrap_or_default()
    }

    /// Whether `key` is shown to `recipient`.
    pub fn contains(&self, recipient: PlayerId, key: u32) -> bool {
        self.of(recipient).binary_search(&key).is_ok()
    }

    /// Hides decided for `recipient` that its lane has not taken yet, oldest first.
    pub fn pending(&self, recipient: PlayerId) -> impl Iterator<Item = u32> + '_ {
        self.pending
            .get(slot(recipient))
            .into_iter()
            .flatten()
            .map(|p| p.key)
    }

    /// Whether no hide waits for `recipient` (a pass with nothing to decide skips it).
    pub fn pending_empty(&self, recipient: PlayerId) -> bool {
        self.pending
            .get(slot(recipient))
            .is_none_or(VecDeque::is_empty)
    }

    /// Whether a pass can decide nothing for anyone: the engine holds no item, nothing is
    /// shown to anyone and no hide waits. A kind the gamemode does not use (no gang zone,
    /// no colshape) then skips its recipients altogether instead of deciding each one
    /// against nothing every tick (issue 11).
    pub fn idle(&self, engine: &Engine) -> bool {
        engine.is_empty()
            && self.index.by_key.is_empty()
            && self.pending.iter().all(VecDeque::is_empty)
    }

    /// Every recipient `key` is shown to, ascending.
    pub fn viewers(&self, key: u32) -> impl Iterator<Item = PlayerId> + '_ {
        self.viewers_of(key).into_iter().flat_map(Viewers::iter)
    }

    /// The recipients `key` is shown to; `None` when nobody.
    pub fn viewers_of(&self, key: u32) -> Option<&Viewers> {
        self.index.by_key.get(&key)
    }

    /// A recipient left: nothing is shown to it any more and nothing waits for it
    /// (its removal covers everything; a new connection on the slot starts empty).
    pub fn forget(&mut self, recipient: PlayerId) {
        if let Some(set) = self.shown.get_mut(slot(recipient)) {
            for key in set.drain(..) {
                self.index.unview(key, recipient);
            }
        }
        if let Some(q) = self.pending.get_mut(slot(recipient)) {
            q.clear();
        }
        self.changes.forget(recipient);
    }

    /// Tells item `key`'s viewers its new state `packet`, critical and coalesced per viewer
    /// ([`Coalescer`], ADR 0092): only for a packet that is the item's whole state.
    pub fn tell_change(
        &mut self,
        key: u32,
        packet: &ServerPacket,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        let mut changes = std::mem::take(&mut self.changes);
        changes.tell_viewers(self, key, packet, index, connections);
        self.changes = changes;
    }

    /// Sends the changes that waited for an ack, as `state(key)` shows the item now
    /// (each tick, after the kind's changes).
    pub fn flush_changes(
        &mut self,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
        state: impl FnMut(u32) -> Option<ServerPacket>,
    ) {
        let mut changes = std::mem::take(&mut self.changes);
        changes.flush(self, index, connections, state);
        self.changes = changes;
    }

    /// Changes waiting for a viewer's ack.
    pub fn changes_waiting(&self) -> usize {
        self.changes.waiting()
    }

    fn grow(&mut self, i: usize) {
        if self.shown.len() <= i {
            self.shown.resize_with(i + 1, Vec::new);
            self.pending.resize_with(i + 1, VecDeque::new);
        }
    }

    /// Acts on `decision` for `recipient`: hides leave the set and join the pending queue;
    /// the pending queue goes into the lane (Droppable) while it takes it; then each show
    /// (nearest first) whose key has no pending hide is built by `show` and queued
    /// (Droppable) while the lane takes it. `hide` builds the removal of a key. `show`
    /// answering `None` skips the key this pass.
    pub fn apply(
        &mut self,
        recipient: PlayerId,
        decision: &Decision,
        conn: &mut Connection,
        hide: impl Fn(u32) -> ServerPacket,
        mut show: impl FnMut(u32) -> Option<ServerPacket>,
        applied: &mut Applied,
    ) {
        self.apply_groups(
            recipient,
            decision,
            conn,
            |key| vec![hide(key)],
            |key| show(key).map(|p| vec![(p, Delivery::Droppable)]),
            |_, _| {},
            applied,
        );
    }

    /// [`apply`](Self::apply) for a kind whose show and hide are several packets that go
    /// together: `hide` is built when the hide is decided and waits as a whole until the
    /// lane has room for all of it; a show goes only if the lane has room for its whole
    /// group (room is counted at the droppable limit); `queued` hears each show queued,
    /// with its last event.
    #[allow(
        clippy::too_many_arguments,
        reason = "the recipient, its lane, and the kind's three builders"
    )]
    pub fn apply_groups(
        &mut self,
        recipient: PlayerId,
        decision: &Decision,
        conn: &mut Connection,
        mut hide: impl FnMut(u32) -> Vec<ServerPacket>,
        mut show: impl FnMut(u32) -> Option<Group>,
        mut queued: impl FnMut(u32, EventId),
        applied: &mut Applied,
    ) {
        let i = slot(recipient);
        self.grow(i);
        let (set, queue) = (&mut self.shown[i], &mut self.pending[i]);
        for key in &decision.hides {
            if let Ok(at) = set.binary_search(key) {
                set.remove(at);
                self.index.unview(*key, recipient);
                queue.push_back(Pending {
                    key: *key,
                    packets: hide(*key),
                });
                applied.hidden.push(*key);
            }
        }
        while let Some(front) = queue.front() {
            if conn.room(Delivery::Droppable) < front.packets.len().max(1) {
                break;
            }
            let Some(Pending { key, packets }) = queue.pop_front() else {
                break;
            };
            for packet in packets {
                if let Err(e) = conn.send_event(packet, Delivery::Droppable) {
                    dlmp_net::log_limited!(warn, key, "a stream hide not sent: {e}");
                }
            }
        }
        for &key in &decision.shows {
            if queue.iter().any(|p| p.key == key) {
                continue;
            }
            let Err(at) = set.binary_search(&key) else {
                continue;
            };
            if conn.room(Delivery::Droppable) == 0 {
                break;
            }
            let Some(group) = show(key) else { continue };
            if conn.room(Delivery::Droppable) < group.len() {
                break;
            }
            let mut last = None;
            for (packet, delivery) in group {
                match conn.send_event(packet, delivery) {
                    Ok(id) => last = Some(id),
                    Err(e) => {
                        debug!(key, "a stream show not sent: {e}");
                        last = None;
                        break;
                    }
                }
            }
            if let Some(last) = last {
                set.insert(at, key);
                self.index.view(key, recipient);
                applied.shown.push(key);
                queued(key, last);
            }
        }
    }

    /// Queues the shows of `keys` (in order) ahead of the pending hides, with `delivery`:
    /// the shows before a landing (world.md ObjectState: they "go before hides" and may
    /// take the places a droppable show leaves free). A key shown already or whose hide
    /// still waits is skipped; `show` answering `None` skips it too. Stops at the first the
    /// lane refuses. Returns how many were queued.
    pub fn show_ahead(
        &mut self,
        recipient: PlayerId,
        keys: &[u32],
        conn: &mut Connection,
        delivery: Delivery,
        mut show: impl FnMut(u32) -> Option<ServerPacket>,
        applied: &mut Applied,
    ) -> usize {
        let i = slot(recipient);
        self.grow(i);
        let (set, queue) = (&mut self.shown[i], &self.pending[i]);
        let mut queued = 0;
        for &key in keys {
            if queue.iter().any(|p| p.key == key) {
                continue;
            }
            let Err(at) = set.binary_search(&key) else {
                continue;
            };
            let Some(packet) = show(key) else { continue };
            match conn.send_event(packet, delivery) {
                Ok(_) => {
                    set.insert(at, key);
                    self.index.view(key, recipient);
                    applied.shown.push(key);
                    queued += 1;
                }
                Err(SendError::QueueFull) => break,
                Err(e) => debug!(key, "a landing show not sent: {e}"),
            }
        }
        queued
    }

    /// Sends `packet` to every recipient `key` is shown to, as critical (a move or change
    /// of a shown subject: nothing else would resend it).
    pub fn tell_viewers(
        &self,
        key: u32,
        packet: &ServerPacket,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        self.tell_viewers_except(key, packet, None, index, connections);
    }

    /// [`tell_viewers`](Self::tell_viewers) to everyone but `except` (the sender of what
    /// is relayed).
    pub fn tell_viewers_except(
        &self,
        key: u32,
        packet: &ServerPacket,
        except: Option<PlayerId>,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        self.tell(key, packet, except, None, index, connections);
    }

    /// [`tell_viewers`](Self::tell_viewers) of a change that names a player (a seat
    /// change): a viewer still waiting for that player's PlayerJoin gets it behind the join
    /// ([`Connection::send_about`]).
    pub fn tell_viewers_about(
        &self,
        key: u32,
        packet: &ServerPacket,
        subject: (PlayerId, PlayerToken),
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        self.tell(key, packet, None, Some(subject), index, connections);
    }

    fn tell(
        &self,
        key: u32,
        packet: &ServerPacket,
        except: Option<PlayerId>,
        about: Option<(PlayerId, PlayerToken)>,
        index: &PlayerIndex,
        connections: &mut Query<&mut Connection>,
    ) {
        for recipient in self.viewers(key).filter(|r| Some(*r) != except) {
            let Some(mut c) = index
                .get(recipient)
                .and_then(|e| connections.get_mut(e).ok())
            else {
                continue;
            };
            let sent = match about {
                Some(subject) => c.send_about(subject, packet.clone()),
                None => c.send_event(packet.clone(), Delivery::Critical).map(|_| ()),
            };
            if let Err(e) = sent {
                dlmp_net::log_limited!(
                    warn,
                    key,
                    recipient = recipient.0,
                    "a critical change not queued: {e}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dlmp_protocol::connection::handshake::LeaveReason;
    use dlmp_protocol::connection::roster::PlayerLeave;
    use dlmp_protocol::ids::{PlayerToken, SessionToken};

    /// A lane event standing for a show or a hide.
    fn event(key: u32) -> ServerPacket {
        PlayerLeave {
            id: PlayerId(key),
            player_token: PlayerToken(1),
            event_id: EventId(0),
            reason: LeaveReason::Quit,
        }
        .into()
    }

    fn pass(sets: &mut ShownSets, r: u32, hides: &[u32], shows: &[u32], conn: &mut Connection) {
        let decision = Decision {
            hides: hides.to_vec(),
            shows: shows.to_vec(),
            slack: 0.0,
        };
        let mut applied = Applied::default();
        sets.apply(
            PlayerId(r),
            &decision,
            conn,
            event,
            |k| Some(event(k)),
            &mut applied,
        );
    }

    fn viewers(sets: &ShownSets, key: u32) -> Vec<u32> {
        sets.viewers(key).map(|p| p.0).collect()
    }

    #[test]
    fn each_keys_viewers_follow_the_shows_hides_and_leaves() {
        let addr = "127.0.0.1:7000".parse().expect("an address");
        let mut conn = Connection::new(addr, SessionToken(1));
        let mut sets = ShownSets::default();
        pass(&mut sets, 3, &[], &[10, 11], &mut conn);
        pass(&mut sets, 70, &[], &[10], &mut conn);
        pass(&mut sets, 1, &[], &[11], &mut conn);
        assert_eq!(viewers(&sets, 10), [3, 70]);
        assert_eq!(viewers(&sets, 11), [1, 3]);
        pass(&mut sets, 3, &[10], &[], &mut conn);
        assert_eq!(viewers(&sets, 10), [70]);
        sets.forget(PlayerId(70));
        assert_eq!(viewers(&sets, 10), Vec::<u32>::new());
        assert!(
            sets.viewers_of(10).is_none(),
            "a key shown to nobody keeps no entry"
        );
        assert_eq!(viewers(&sets, 11), [1, 3]);
        for r in [1, 2, 3] {
            assert_eq!(
                sets.viewers(11).any(|p| p.0 == r),
                sets.contains(PlayerId(r), 11),
                "both views of the sets agree"
            );
        }
    }
}
