//! The world's events for scripts (lua-api.md, "Events"): checkpoints, colshapes,
//! waypoints, pickups and object movements, queued from this tick's messages at their
//! places among the tick's notifications (docs/architecture.md, "The script registry").

use bevy_ecs::prelude::*;
use dlmp_core::session::Player;
use dlmp_protocol::world::markers::ColshapeId;
use dlmp_protocol::world::object::ObjectId;
use dlmp_protocol::world::pickup::PickupId;
use dlmp_protocol::world::shared::MarkerId;
use dlmp_script::{EventGuard, EventPlace, ScriptEvent, ScriptEvents, id_event_handle};

use super::{LuaCheckpoint, LuaColshape, LuaGangZone, LuaLabel, LuaObject};
use crate::object::ObjectMoveEnded;
use crate::pickup::PickupInteracted;
use crate::pickup::script::{LuaPickup, still_active};
use crate::script_view::{WorldEvent, WorldEvents};
use dlmp_player::script::LuaPlayer;

id_event_handle!(LuaCheckpoint, "Checkpoint", MarkerId);
id_event_handle!(LuaColshape, "Colshape", ColshapeId);
id_event_handle!(LuaObject, "Object", ObjectId);
id_event_handle!(LuaPickup, "Pickup", PickupId);
// Handed to scripts by the edit session's events (editing.md §5).
id_event_handle!(LuaLabel, "Label", MarkerId);
id_event_handle!(LuaGangZone, "GangZone", MarkerId);

/// Where the world's events stand among a tick's notifications.
pub mod place {
    use dlmp_script::EventPlace;

    pub const PICKUP: EventPlace = EventPlace(60);
    pub const OBJECT_MOVE: EventPlace = EventPlace(110);
    pub const WORLD: EventPlace = EventPlace(130);
}

/// Every event name of this module (lua-api.md, "Events").
pub const NAMES: &[&str] = &[
    // (player, pickup, behavior, model): an admitted PickupTouch
    "pickup_interact",
    // (player, checkpoint)
    "checkpoint_enter",
    "checkpoint_leave",
    // (player, colshape)
    "colshape_enter",
    "colshape_leave",
    // (player, x, y): x, y nil when removed
    "player_waypoint",
    // (object): a movement reached its target
    "object_move_end",
    // (player, entity): the player picked an entity; false refuses (editing.md §5)
    "edit_select",
    // (player, entity, action, pose): "update", "commit" (false refuses) or "cancel"
    "entity_edit",
    // (player, session, reason): "gamemode", "player", "death", "scope" or "resource"
    "edit_end",
];

/// Queues the world's notifications of this tick.
pub(crate) fn collect(
    mut pickups: MessageReader<PickupInteracted>,
    mut object_moves: MessageReader<ObjectMoveEnded>,
    mut world: WorldEvents,
    players: Query<(Entity, &Player)>,
    mut events: ResMut<ScriptEvents>,
) {
    let lua = |e: Entity| {
        players.get(e).ok().map(|(entity, p)| LuaPlayer {
            entity,
            token: p.token,
        })
    };
    events.extend(
        place::PICKUP,
        pickups
            .read()
            .filter(|t| players.contains(t.player))
            .map(|t| {
                let player = LuaPlayer {
                    entity: t.player,
                    token: t.player_token,
                };
                ScriptEvent::new(
                    "pickup_interact",
                    [
                        player.into(),
                        LuaPickup { id: t.pickup }.into(),
                        t.behavior.name().into(),
                        t.model.into(),
                    ],
                )
                .guarded(EventGuard {
                    holds: still_active,
                    key: u64::from(t.pickup.0),
                })
            }),
    );
    events.extend(
        place::OBJECT_MOVE,
        object_moves
            .read()
            .map(|m| ScriptEvent::new("object_move_end", [LuaObject { id: m.id }.into()])),
    );
    let place: EventPlace = place::WORLD;
    events.extend(
        place,
        world
            .read()
            .into_iter()
            .filter_map(|e| world_event(e, &lua)),
    );
}

/// The script event of a world event, for a player still here.
fn world_event(
    event: WorldEvent,
    lua: &impl Fn(Entity) -> Option<LuaPlayer>,
) -> Option<ScriptEvent> {
    Some(match event {
        WorldEvent::Checkpoint(c) => {
            let name = if c.entered {
                "checkpoint_enter"
            } else {
                "checkpoint_leave"
            };
            let checkpoint = LuaCheckpoint { id: c.checkpoint };
            ScriptEvent::new(name, [lua(c.player)?.into(), checkpoint.into()])
        }
        WorldEvent::Colshape(c) => {
            let name = if c.entered {
                "colshape_enter"
            } else {
                "colshape_leave"
            };
            let colshape = LuaColshape { id: c.colshape };
            ScriptEvent::new(name, [lua(c.player)?.into(), colshape.into()])
        }
        WorldEvent::Waypoint(w) => ScriptEvent::new(
            "player_waypoint",
            [
                lua(w.player)?.into(),
                w.point.map(|p| f64::from(p.x)).into(),
                w.point.map(|p| f64::from(p.y)).into(),
            ],
        ),
    })
}
