//! What the player's Lua calls change on the app's world, applied after the script pass in
//! call order ([`ScriptCommand`]): vitals and weapons (connection.md §6, rule 3), teams,
//! spawn infos, kicks, the weapon settings.

use bevy_ecs::prelude::*;
use dlmp_core::owner::command_owner;
use dlmp_core::session::{Connection, EndSession};
use dlmp_protocol::ServerPacket;
use dlmp_protocol::connection::handshake::LeaveReason;
use dlmp_protocol::connection::weapons::{GiveArmor, GiveHealth, GiveWeapon};
use dlmp_protocol::ids::EventId;
use dlmp_protocol::serial::Serial;
use dlmp_script::ScriptCommand;
use tracing::debug;

use crate::chat::notify;
use crate::ledger::{LedgerSettings, WeaponRanges};
use crate::stream::StreamingSettings;
use crate::{Inventory, Ledger, SpawnInfo, SpawnState, Team};

/// Which ledger value a gamemode command sets (connection.md §6, rule 3).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Vital {
    Health,
    Armor,
}

/// Sends `packet` to `player` as a normal event (connection.md §3); whether the lane took
/// it. The Lua call already said "queue full" for a lane without room.
fn send(world: &mut World, player: Entity, packet: impl Into<ServerPacket>) -> bool {
    world
        .get_mut::<Connection>(player)
        .is_some_and(|mut conn| command_owner(&mut conn, packet).is_ok())
}

/// `player:set_health` / `set_armor`: GiveHealth / GiveArmor with the next vital_rev;
/// stored only once the lane took it: a raised vital_rev whose packet never went would
/// keep the frames' echo from ever matching (ADR 0010).
pub(crate) fn set_vital(player: Entity, vital: Vital, value: f32) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        let Some(ledger) = world.get::<Ledger>(player).copied() else {
            return;
        };
        let vital_rev = ledger.vital_rev.next();
        let event_id = EventId(0);
        let packet: ServerPacket = match vital {
            Vital::Health => GiveHealth {
                event_id,
                health: value,
                vital_rev,
            }
            .into(),
            Vital::Armor => GiveArmor {
                event_id,
                armor: value,
                vital_rev,
            }
            .into(),
        };
        if send(world, player, packet)
            && let Some(mut ledger) = world.get_mut::<Ledger>(player)
        {
            match vital {
                Vital::Health => ledger.health = value,
                Vital::Armor => ledger.armor = value,
            }
            ledger.vital_rev = vital_rev;
        }
    })
}

/// `player:give_weapon`: GiveWeapon with the next weapon_rev; once the lane took it the
/// weapon is held and its ammo added (saturating).
pub(crate) fn give_weapon(player: Entity, weapon: u8, ammo: u16) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        let Some(weapon_rev) = world.get::<Inventory>(player).map(|i| i.weapon_rev.next()) else {
            return;
        };
        let packet = GiveWeapon {
            event_id: EventId(0),
            weapon,
            ammo,
            weapon_rev,
        };
        if send(world, player, packet)
            && let Some(mut inv) = world.get_mut::<Inventory>(player)
        {
            let i = usize::from(weapon);
            inv.held.set(i, true);
            inv.ammo[i] = inv.ammo[i].saturating_add(ammo);
            inv.weapon_rev = weapon_rev;
        }
    })
}

/// `player:set_team`: a new group raises relation_rev; the same group changes nothing.
pub(crate) fn set_team(player: Entity, group: u32) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        if let Some(mut team) = world.get_mut::<Team>(player)
            && team.group != group
        {
            team.group = group;
            team.relation_rev = team.relation_rev.wrapping_add(1);
        }
    })
}

/// `dlmp.spawn_player`: the next grant of the connect spawn uses `info`.
pub(crate) fn spawn_player(player: Entity, info: SpawnInfo) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        if let Some(mut state) = world.get_mut::<SpawnState>(player) {
            state.info = Some(info);
        }
    })
}

/// `player:kick`: the reason as a notice (if any), then the session ends as Kicked.
pub(crate) fn kick(player: Entity, reason: String) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        if !reason.is_empty()
            && let Some(mut conn) = world.get_mut::<Connection>(player)
        {
            notify(&mut conn, &format!("You were kicked: {reason}"));
        }
        debug!(?player, "kicked by a script");
        world.write_message(EndSession {
            player,
            leave: LeaveReason::Kicked,
            disconnect: Some(LeaveReason::Kicked),
        });
    })
}

/// `dlmp.set_team_damage(on)`.
pub(crate) fn set_team_damage(on: bool) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        if let Some(mut ledger) = world.get_resource_mut::<LedgerSettings>() {
            ledger.team_damage = on;
        }
    })
}

/// `dlmp.set_weapon_range(weapon, meters)`: the ray's range, and the streaming distance
/// that follows from the largest one.
pub(crate) fn set_weapon_range(weapon: u8, meters: f32) -> ScriptCommand {
    ScriptCommand::new(move |world: &mut World| {
        let Some(mut ranges) = world.get_resource_mut::<WeaponRanges>() else {
            return;
        };
        ranges.set(weapon, meters);
        let largest = ranges.largest();
        if let Some(mut streaming) = world.get_resource_mut::<StreamingSettings>() {
            streaming.weapon_range = largest;
        }
    })
}
