//! The flow of a hitch and of a winch load (vehicles.md VehicleTow, VehicleTrailer,
//! VehicleWinch, VehicleLift), one for both kinds:
//!
//! - `intake` (GameplaySystems::Intake), in lane order: the rate limit, the epochs, a
//!   repeat (nothing), an unhitch / release from the controller of the current tractor /
//!   helicopter (at once, its `*_detach` event noted), a hitch / pick-up checked and left
//!   waiting for `trailer_attach` / `winch_attach`. A refusal answers the sender alone
//!   with the server's state.
//! - `emit_link_events`, inside the script pass: the events, false refusing.
//! - `apply` (GameplaySystems::Apply, after the seats): each waiting request checked
//!   again and made, then the gamemode's `attach_trailer` / `detach_trailer`.
//!
//! Every change goes, critical, to everyone the child is streamed to. A player whose copy
//! may not hang as the server says (it got a state it had not made itself, or a refusal)
//! has its frames of that vehicle dropped until it acknowledges the packet
//! ([`CopyLinks`]; VehicleTow: "it sends the trailer's frames only while its copy of the
//! trailer hangs on exactly the server's hitch"). Decisions: ADR 0066.

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use tracing::debug;

use super::admit::check_hitch;
use super::links::{FactParts, LinkFacts, LinkKind, LinkRefusal, LinkStats, Links, facts};
use crate::event_limit::{Judged, VehicleLane};
use crate::script::LuaVehicle;
use crate::winch::admit::check_pickup;
use crate::{Hitch, Occupant, Syncer, Vehicle, VehicleModels, VehicleStream};
use dlmp_core::position::Scope;
use dlmp_core::session::{Connection, Player, PlayerConnected, PlayerIndex, Received};
use dlmp_core::vehicle::Vehicles;
use dlmp_net::lane::Delivery;
use dlmp_player::frame::FrameState;
use dlmp_player::{Body, Life as PlayerLife};
use dlmp_protocol::ids::{EventId, PlayerId, VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::towing::{VehicleLift, VehicleTrailer};
use dlmp_protocol::{ClientPacket, ServerPacket};
use dlmp_script::{ScriptEvent, ScriptHost};

/// On a player: the vehicles whose copy may not hang as the server says, each with the
/// VehicleTrailer / VehicleLift that brings it there. Its frames of such a vehicle are
/// dropped until the client acknowledges that event.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct CopyLinks(Vec<(VehicleId, EventId)>);

impl CopyLinks {
    /// Whether the copy of `vehicle` may hang otherwise than the server's.
    pub fn disputes(&self, vehicle: VehicleId) -> bool {
        self.0.iter().any(|(v, _)| *v == vehicle)
    }

    fn record(&mut self, vehicle: VehicleId, event: EventId) {
        self.0.retain(|(v, _)| *v != vehicle);
        self.0.push((vehicle, event));
    }
}

/// A hitch or pick-up that passed the first check and waits for the scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRequest {
    pub kind: LinkKind,
    pub player: Occupant,
    pub child: VehicleId,
    pub child_epoch: VehicleEpoch,
    pub parent: VehicleId,
    pub parent_epoch: VehicleEpoch,
    /// A handler of `trailer_attach` / `winch_attach` returned false.
    pub refused: bool,
}

/// What the scripts hear of this tick's requests, in lane order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkNote {
    Attach(LinkRequest),
    /// An unhitch or release the player's game made (already applied).
    Detach {
        kind: LinkKind,
        child: VehicleId,
        parent: VehicleId,
        player: Occupant,
    },
}

/// The tick's notes between the intake and the apply.
#[derive(Resource, Debug, Default)]
pub struct PendingLinks(pub Vec<LinkNote>);

/// The gamemode's hitches (`dlmp.attach_trailer` / `detach_trailer`), applied in order.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkCommand {
    Attach {
        kind: LinkKind,
        child: VehicleId,
        parent: VehicleId,
    },
    Detach {
        kind: LinkKind,
        child: VehicleId,
    },
}

/// The server's link state of `child`: VehicleTrailer or VehicleLift.
pub fn state_packet(
    kind: LinkKind,
    child: VehicleId,
    parent: Option<VehicleId>,
    place: bool,
) -> ServerPacket {
    let parent_id = parent.unwrap_or(VehicleId::NONE);
    match kind {
        LinkKind::Trailer => VehicleTrailer {
            event_id: EventId(0),
            trailer_id: child,
            tractor_id: parent_id,
            place: place && parent.is_some(),
        }
        .into(),
        LinkKind::Lift => VehicleLift {
            event_id: EventId(0),
            vehicle_id: child,
            heli_id: parent_id,
        }
        .into(),
    }
}

/// The player rules' view of a player.
type PlayerParts = (
    &'static Player,
    &'static PlayerLife,
    &'static Scope,
    &'static Body,
    Option<&'static FrameState>,
);

/// Everything the link systems read and write.
#[derive(SystemParam)]
pub struct LinkWorld<'w, 's> {
    pub models: Res<'w, VehicleModels>,
    pub registry: Res<'w, Vehicles>,
    pub stream: Res<'w, VehicleStream>,
    pub index: Res<'w, PlayerIndex>,
    pub stats: ResMut<'w, LinkStats>,
    pub players: Query<'w, 's, PlayerParts>,
    pub vehicles: Query<'w, 's, (FactParts, &'static Syncer)>,
    pub hitches: Query<'w, 's, (&'static Vehicle, &'static mut Hitch)>,
    pub connections: Query<'w, 's, &'static mut Connection>,
    pub copies: Query<'w, 's, &'static mut CopyLinks>,
    pub lane: Res<'w, VehicleLane>,
}

/// When a request's sender is judged: at the intake, as the lane found its seat; after
/// the scripts, when the seats of the tick's exits are free (ADR 0120).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Intake(Judged),
    Recheck,
}

impl LinkWorld<'_, '_> {
    /// The index of every hitch and load now.
    pub fn links(&self) -> Links {
        Links::from_hitches(self.hitches.iter().map(|(v, h)| (v.id, *h)))
    }

    /// The vehicle's entity and facts.
    pub fn facts(&self, id: VehicleId) -> Option<(Entity, LinkFacts)> {
        let e = self.registry.entity(id)?;
        let (parts, _) = self.vehicles.get(e).ok()?;
        let (_, hitch) = self.hitches.get(e).ok()?;
        Some((e, facts(parts, *hitch)))
    }

    /// Spawned, alive, neither paused nor frozen: a player who may control a vehicle.
    fn live(&self, player: Entity) -> bool {
        self.players
            .get(player)
            .is_ok_and(|(_, life, _, body, frame)| {
                life.alive
                    && life.spawned
                    && !body.paused
                    && frame.is_none_or(|f| f.frozen.is_none())
            })
    }

    /// Who controls the vehicle now: its live driver, otherwise its live syncer (the
    /// page's "the driver, or without a driver its syncer").
    pub fn controller(&self, vehicle: Entity) -> Option<Occupant> {
        let ((_, _, _, _, _, seats, _, _), syncer) = self.vehicles.get(vehicle).ok()?;
        if let Some(d) = seats.driver().filter(|d| self.live(d.entity)) {
            return Some(d);
        }
        syncer.0.filter(|s| self.live(s.entity))
    }

    /// `child` now hangs on `parent` (or on nothing): its [`Hitch`] and the index.
    pub fn set(
        &mut self,
        links: &mut Links,
        kind: LinkKind,
        child: VehicleId,
        parent: Option<VehicleId>,
    ) {
        if let Some(e) = self.registry.entity(child)
            && let Ok((_, mut hitch)) = self.hitches.get_mut(e)
        {
            match kind {
                LinkKind::Trailer => hitch.tractor = parent,
                LinkKind::Lift => hitch.lifter = parent,
            }
        }
        links.set(kind, child, parent);
        if parent.is_some() {
            *self.stats.made.entry(kind).or_default() += 1;
        }
    }

    /// A change to everyone `child` is streamed to, critical. `reporter`: the player whose
    /// game made it (its copy hangs so already).
    pub fn announce(
        &mut self,
        kind: LinkKind,
        child: VehicleId,
        parent: Option<VehicleId>,
        place: bool,
        reporter: Option<Entity>,
    ) {
        let packet = state_packet(kind, child, parent, place);
        let viewers: Vec<PlayerId> = self.stream.shown().viewers(child.0).collect();
        for viewer in viewers {
            if let Some(e) = self.index.get(viewer) {
                self.send(e, child, &packet, Some(e) != reporter);
            }
        }
    }

    /// The server's state of `child` to the sender of a refused request alone.
    pub fn answer(&mut self, kind: LinkKind, child: VehicleId, to: Entity) {
        let parent = self
            .registry
            .entity(child)
            .and_then(|e| self.hitches.get(e).ok())
            .and_then(|(_, h)| match kind {
                LinkKind::Trailer => h.tractor,
                LinkKind::Lift => h.lifter,
            });
        let packet = state_packet(kind, child, parent, false);
        self.send(to, child, &packet, true);
    }

    fn send(&mut self, to: Entity, child: VehicleId, packet: &ServerPacket, dispute: bool) {
        let Ok(mut conn) = self.connections.get_mut(to) else {
            return;
        };
        match conn.send_event(packet.clone(), Delivery::Critical) {
            Ok(event) => {
                if dispute && let Ok(mut copies) = self.copies.get_mut(to) {
                    copies.record(child, event);
                }
            }
            Err(e) => {
                dlmp_net::log_limited!(warn, vehicle = child.0, "a link change not queued: {e}")
            }
        }
    }

    /// The sender's part of a hitch or pick-up: alive and spawned, controlling the
    /// tractor / helicopter, both vehicles streamed to it and in its world scope.
    fn check_sender(
        &self,
        me: Occupant,
        parent: Entity,
        (child_f, parent_f): (&LinkFacts, &LinkFacts),
        stage: Stage,
    ) -> Result<(), LinkRefusal> {
        let Ok((_, life, scope, ..)) = self.players.get(me.entity) else {
            return Err(LinkRefusal::NotController);
        };
        let controls = match stage {
            // An exit from the parent earlier in the lane: from outside it.
            Stage::Intake(Judged::Taken { exited: Some(left) }) if left == parent_f.id => false,
            // A request that passed the intake came before the sender's exit of the tick.
            Stage::Recheck if self.lane.exited(me.entity) == Some(parent_f.id) => true,
            _ => self
                .controller(parent)
                .is_some_and(|c| c.entity == me.entity),
        };
        if !(life.alive && life.spawned && controls) {
            return Err(LinkRefusal::NotController);
        }
        let shown = self.stream.shown();
        for v in [child_f, parent_f] {
            if !shown.contains(me.id, v.id.0) || v.scope != *scope {
                return Err(LinkRefusal::NotStreamed);
            }
        }
        Ok(())
    }
}

/// The rules of `kind` that do not depend on the player.
pub fn check_kind(
    kind: LinkKind,
    child: &LinkFacts,
    parent: &LinkFacts,
    links: &Links,
    models: &VehicleModels,
) -> Result<(), LinkRefusal> {
    match kind {
        LinkKind::Trailer => check_hitch(child, parent, links, models),
        LinkKind::Lift => check_pickup(child, parent, links, models),
    }
}

/// Every new connection gets its [`CopyLinks`].
pub(super) fn give(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        if let Ok(mut e) = commands.get_entity(c.player) {
            e.insert(CopyLinks::default());
        }
    }
}

/// A copy that acknowledged its VehicleTrailer / VehicleLift hangs as the server says.
pub(super) fn settle(mut players: Query<(&mut CopyLinks, &Connection)>) {
    for (mut copies, conn) in &mut players {
        if !copies.0.is_empty() {
            copies.0.retain(|(_, event)| !conn.is_acked(*event));
        }
    }
}

/// The tick's VehicleTow and VehicleWinch, in lane order.
pub(super) fn intake(
    mut w: LinkWorld,
    mut pending: ResMut<PendingLinks>,
    mut received: MessageReader<Received>,
) {
    pending.0.clear();
    let mut links: Option<Links> = None;
    for Received { player, packet, .. } in received.read() {
        let (kind, child, child_epoch, parent, parent_epoch) = match packet {
            ClientPacket::VehicleTow(p) => (
                LinkKind::Trailer,
                p.trailer_id,
                p.trailer_epoch,
                p.tractor_id,
                p.tractor_epoch,
            ),
            ClientPacket::VehicleWinch(p) => (
                LinkKind::Lift,
                p.vehicle_id,
                p.vehicle_epoch,
                p.heli_id,
                p.heli_epoch,
            ),
            _ => continue,
        };
        let Ok((p, ..)) = w.players.get(*player) else {
            continue;
        };
        let me = Occupant {
            entity: *player,
            id: p.id,
            token: p.token,
        };
        let judged = w.lane.judged(*player, packet);
        let links = links.get_or_insert_with(|| w.links());
        let request = LinkRequest {
            kind,
            player: me,
            child,
            child_epoch,
            parent,
            parent_epoch,
            refused: false,
        };
        let outcome = if judged == Judged::Limited {
            Err(LinkRefusal::RateLimited)
        } else {
            take(&mut w, links, &mut pending, request, judged)
        };
        if let Err(why) = outcome {
            w.stats.refuse(kind, why);
            debug!(
                player = me.id.0,
                child = child.0,
                parent = parent.0,
                ?why,
                "a {} request refused",
                kind.name()
            );
            w.answer(kind, child, me.entity);
        }
    }
}

/// One request against the server's state: a repeat changes nothing, an unhitch is made
/// at once, a hitch waits for the scripts.
fn take(
    w: &mut LinkWorld,
    links: &mut Links,
    pending: &mut PendingLinks,
    r: LinkRequest,
    judged: Judged,
) -> Result<(), LinkRefusal> {
    let (_, child_f) = w.facts(r.child).ok_or(LinkRefusal::UnknownVehicle)?;
    if child_f.epoch != r.child_epoch {
        return Err(LinkRefusal::Epoch);
    }
    let current = links.parent(r.kind, r.child);
    if r.parent == VehicleId::NONE {
        let Some(was) = current else {
            return Ok(());
        };
        let left = judged == (Judged::Taken { exited: Some(was) });
        let controls = !left
            && w.registry
                .entity(was)
                .and_then(|e| w.controller(e))
                .is_some_and(|c| c.entity == r.player.entity);
        if !controls {
            return Err(LinkRefusal::NotController);
        }
        w.set(links, r.kind, r.child, None);
        w.announce(r.kind, r.child, None, false, Some(r.player.entity));
        pending.0.push(LinkNote::Detach {
            kind: r.kind,
            child: r.child,
            parent: was,
            player: r.player,
        });
        return Ok(());
    }
    let (parent_e, parent_f) = w.facts(r.parent).ok_or(LinkRefusal::UnknownVehicle)?;
    if parent_f.epoch != r.parent_epoch {
        return Err(LinkRefusal::Epoch);
    }
    if current == Some(r.parent) {
        return Ok(());
    }
    w.check_sender(
        r.player,
        parent_e,
        (&child_f, &parent_f),
        Stage::Intake(judged),
    )?;
    check_kind(r.kind, &child_f, &parent_f, links, &w.models)?;
    pending.0.push(LinkNote::Attach(r));
    Ok(())
}

/// A waiting request after the scripts: every rule again, for the same epochs.
fn recheck(w: &LinkWorld, links: &Links, r: &LinkRequest) -> Result<(), LinkRefusal> {
    if r.refused {
        return Err(LinkRefusal::Refused);
    }
    let (_, child_f) = w.facts(r.child).ok_or(LinkRefusal::UnknownVehicle)?;
    let (parent_e, parent_f) = w.facts(r.parent).ok_or(LinkRefusal::UnknownVehicle)?;
    if child_f.epoch != r.child_epoch || parent_f.epoch != r.parent_epoch {
        return Err(LinkRefusal::Epoch);
    }
    w.check_sender(r.player, parent_e, (&child_f, &parent_f), Stage::Recheck)?;
    check_kind(r.kind, &child_f, &parent_f, links, &w.models)
}

/// The scripts' part of the tick's requests, inside the script pass: `trailer_attach` /
/// `winch_attach` (false from a handler refuses) and the `*_detach` of the unhitches made.
pub(crate) fn emit_link_events(host: &mut ScriptHost, pending: &mut PendingLinks) {
    use dlmp_player::script::LuaPlayer;
    let lua = |o: Occupant| LuaPlayer {
        entity: o.entity,
        token: o.token,
    };
    let v = |id: VehicleId| LuaVehicle { id };
    for note in &mut pending.0 {
        match note {
            LinkNote::Attach(r) => {
                let (child, parent, player) = (v(r.child), v(r.parent), lua(r.player));
                let name = match r.kind {
                    LinkKind::Trailer => "trailer_attach",
                    LinkKind::Lift => "winch_attach",
                };
                let event = ScriptEvent::new(name, [child.into(), parent.into(), player.into()]);
                r.refused |= host.emit(&event).refused;
            }
            LinkNote::Detach {
                kind,
                child,
                parent,
                player,
            } => {
                let (child, parent, player) = (v(*child), v(*parent), lua(*player));
                let name = match kind {
                    LinkKind::Trailer => "trailer_detach",
                    LinkKind::Lift => "winch_detach",
                };
                let event = ScriptEvent::new(name, [child.into(), parent.into(), player.into()]);
                host.emit(&event);
            }
        }
    }
}

/// After the scripts: the waiting requests made or refused, then the gamemode's hitches
/// (VehicleTrailer with place = 1 for `attach_trailer`).
pub(super) fn apply(
    mut w: LinkWorld,
    mut pending: ResMut<PendingLinks>,
    mut commands: MessageReader<LinkCommand>,
) {
    let notes = std::mem::take(&mut pending.0);
    if notes.is_empty() && commands.is_empty() {
        return;
    }
    let mut links = w.links();
    for note in notes {
        let LinkNote::Attach(r) = note else {
            continue;
        };
        match recheck(&w, &links, &r) {
            Ok(()) => {
                w.set(&mut links, r.kind, r.child, Some(r.parent));
                w.announce(
                    r.kind,
                    r.child,
                    Some(r.parent),
                    false,
                    Some(r.player.entity),
                );
            }
            Err(why) => {
                w.stats.refuse(r.kind, why);
                debug!(
                    child = r.child.0,
                    ?why,
                    "a {} request refused",
                    r.kind.name()
                );
                w.answer(r.kind, r.child, r.player.entity);
            }
        }
    }
    for command in commands.read() {
        match *command {
            LinkCommand::Attach {
                kind,
                child,
                parent,
            } => {
                if links.parent(kind, child) == Some(parent) {
                    continue;
                }
                let outcome = match (w.facts(child), w.facts(parent)) {
                    (Some((_, c)), Some((_, p))) => check_kind(kind, &c, &p, &links, &w.models),
                    _ => Err(LinkRefusal::UnknownVehicle),
                };
                match outcome {
                    Ok(()) => {
                        w.set(&mut links, kind, child, Some(parent));
                        w.announce(kind, child, Some(parent), true, None);
                    }
                    Err(why) => {
                        w.stats.refuse(kind, why);
                        debug!(child = child.0, ?why, "a gamemode {} refused", kind.name());
                    }
                }
            }
            LinkCommand::Detach { kind, child } => {
                if links.parent(kind, child).is_some() {
                    w.set(&mut links, kind, child, None);
                    w.announce(kind, child, None, false, None);
                }
            }
        }
    }
}
