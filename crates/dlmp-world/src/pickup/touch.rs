//! PickupTouch admission (world.md PickupTouch) and the static latch. The lane has
//! already put the touch in reliable order and checked the token; here, in order: the
//! player is spawned and alive, the pickup exists and is active, the player's last
//! PlayerSync position is within the touch radius, and the pickup is shown to this player
//! now (a touch of a pickup never shown, or already removed from view, is refused even
//! from a delayed packet). An accepted touch never removes the pickup: a collectible one
//! raises [`PickupInteracted`] every time (the gamemode consumes it or declines; a touch
//! whose turn comes after a handler collected the pickup is moot and not raised), a static
//! one once per entry, until the player's last position leaves the radius.

use bevy_ecs::prelude::*;
use tracing::debug;

use super::stream::PickupStream;
use super::{Behavior, Pickup, PickupSettings, Pickups};
use dlmp_core::session::{Player, PlayerDisconnected, Received};
use dlmp_player::{LastFrame, Life};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerToken;
use dlmp_protocol::world::pickup::PickupId;

/// An accepted touch, for the gamemode (`pickup_interact`).
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct PickupInteracted {
    pub player: Entity,
    pub player_token: PlayerToken,
    pub pickup: PickupId,
    pub behavior: Behavior,
    pub model: u32,
}

/// Touches refused, by reason (console `stats`).
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct PickupStats {
    pub not_alive: u64,
    pub no_pickup: u64,
    pub too_far: u64,
    pub not_shown: u64,
    /// A static pickup touched again before the player left its radius.
    pub latched: u64,
}

fn within(a: Vec3, b: Vec3, r: f32) -> bool {
    let (dx, dy, dz) = (a.x - b.x, a.y - b.y, a.z - b.z);
    dx * dx + dy * dy + dz * dz <= r * r
}

/// Admits the tick's PickupTouch packets.
pub(super) fn admit_touches(
    settings: Res<PickupSettings>,
    registry: Res<Pickups>,
    stream: Res<PickupStream>,
    mut stats: ResMut<PickupStats>,
    mut received: MessageReader<Received>,
    players: Query<(&Player, &Life, &LastFrame)>,
    mut pickups: Query<&mut Pickup>,
    mut interacted: MessageWriter<PickupInteracted>,
) {
    for Received { player, packet, .. } in received.read() {
        let ClientPacket::PickupTouch(touch) = packet else {
            continue;
        };
        let Ok((who, life, last)) = players.get(*player) else {
            continue;
        };
        let id = touch.pickup_id;
        if !(life.spawned && life.alive) {
            stats.not_alive += 1;
            debug!(
                player = who.id.0,
                pickup = id.0,
                "touch refused: not spawned and alive"
            );
            continue;
        }
        let Some(mut p) = registry
            .entity(id)
            .and_then(|e| pickups.get_mut(e).ok())
            .filter(|p| p.active)
        else {
            stats.no_pickup += 1;
            debug!(
                player = who.id.0,
                pickup = id.0,
                "touch refused: no active pickup"
            );
            continue;
        };
        let near = last
            .frame
            .as_ref()
            .is_some_and(|f| within(f.pos, p.spec.position, settings.touch_radius));
        if !near {
            stats.too_far += 1;
            debug!(player = who.id.0, pickup = id.0, "touch refused: too far");
            continue;
        }
        if !stream.shown().contains(who.id, id.0) {
            stats.not_shown += 1;
            debug!(player = who.id.0, pickup = id.0, "touch refused: not shown");
            continue;
        }
        if p.spec.behavior == Behavior::Static {
            if p.latched.contains(&who.id) {
                stats.latched += 1;
                continue;
            }
            p.latched.push(who.id);
        }
        interacted.write(PickupInteracted {
            player: *player,
            player_token: who.token,
            pickup: id,
            behavior: p.spec.behavior,
            model: p.spec.model,
        });
    }
}

/// A static pickup's latch clears when the player's last position leaves the radius, or
/// the player leaves (a slot's next player starts unlatched).
pub(super) fn clear_latches(
    settings: Res<PickupSettings>,
    index: Res<dlmp_core::session::PlayerIndex>,
    mut left: MessageReader<PlayerDisconnected>,
    players: Query<&LastFrame>,
    mut pickups: Query<&mut Pickup>,
) {
    let gone: Vec<_> = left.read().map(|d| d.id).collect();
    for mut p in &mut pickups {
        if p.latched.is_empty() {
            continue;
        }
        let at = p.spec.position;
        let radius = settings.touch_radius;
        p.latched.retain(|id| {
            !gone.contains(id)
                && index
                    .get(*id)
                    .and_then(|e| players.get(e).ok())
                    .and_then(|l| l.frame.as_ref())
                    .is_some_and(|f| within(f.pos, at, radius))
        });
    }
}
