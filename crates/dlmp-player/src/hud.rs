//! The player's own HUD values (player.md, SetMoney, SetWanted, SetDrunkLevel,
//! SetPlayerStats): stored per player, sent only to the owner, never to observers.
//!
//! All of them survive death and respawn, except drunkenness: a new respawn grant sobers
//! the player with SetDrunkLevel(0) when it was not 0. A new connection starts at the
//! defaults without a packet (money 0, wanted 0, sober, stamina and lung capacity 1000).

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;

use super::{RespawnGranted, SpawnSystems};
use dlmp_core::owner::{command_owner, reset_owner};
use dlmp_core::session::Connection;
use dlmp_core::tick::GameplaySystems;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::hud::{
    MAX_MONEY, MAX_STAT, MAX_WANTED, SetDrunkLevel, SetMoney, SetPlayerStats, SetWanted,
};

/// The owner's HUD values as the server keeps them.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hud {
    /// -999_999_999..=999_999_999.
    pub money: i32,
    /// 0..=6.
    pub wanted: u8,
    /// 0 sober .. 255.
    pub drunk_level: u8,
    /// 0..=1000.
    pub stamina: u16,
    /// 0..=1000.
    pub lung_capacity: u16,
}

impl Default for Hud {
    fn default() -> Self {
        Hud {
            money: 0,
            wanted: 0,
            drunk_level: 0,
            stamina: MAX_STAT,
            lung_capacity: MAX_STAT,
        }
    }
}

/// The balance after adding `delta` to `balance`, clamped to the protocol's range
/// (player.md, SetMoney: "relatively (the result clamped to the range)").
pub fn money_after(balance: i32, delta: i64) -> i32 {
    let clamped = i64::from(balance)
        .saturating_add(delta)
        .clamp(-i64::from(MAX_MONEY), i64::from(MAX_MONEY));
    i32::try_from(clamped).unwrap_or(if delta < 0 { -MAX_MONEY } else { MAX_MONEY })
}

/// A gamemode command on a player's HUD values; Lua's `player:set_money` and friends write
/// it, and so may Rust plugins (ADR 0011).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HudCommand {
    pub player: Entity,
    pub change: HudChange,
}

/// What a [`HudCommand`] changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HudChange {
    /// An absolute balance, -999_999_999..=999_999_999 (refused outside).
    SetMoney(i32),
    /// A relative change; the result is clamped to the range.
    GiveMoney(i64),
    /// 0..=6.
    Wanted(u8),
    DrunkLevel(u8),
    /// 0..=1000 each.
    Stats {
        stamina: u16,
        lung_capacity: u16,
    },
}

/// Why a [`HudCommand`] was refused by its form (the Lua API checks the same rules first;
/// a full lane, "queue full", is the other refusal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HudRefusal {
    MoneyOutOfRange(i32),
    WantedOutOfRange(u8),
    StatOutOfRange(u16),
}

impl HudChange {
    /// Checks the change against the page's ranges.
    pub fn check(&self) -> Result<(), HudRefusal> {
        match *self {
            HudChange::SetMoney(m) if !(-MAX_MONEY..=MAX_MONEY).contains(&m) => {
                Err(HudRefusal::MoneyOutOfRange(m))
            }
            HudChange::Wanted(w) if w > MAX_WANTED => Err(HudRefusal::WantedOutOfRange(w)),
            HudChange::Stats {
                stamina,
                lung_capacity,
            } if stamina > MAX_STAT || lung_capacity > MAX_STAT => {
                Err(HudRefusal::StatOutOfRange(stamina.max(lung_capacity)))
            }
            _ => Ok(()),
        }
    }
}

/// Applies HUD commands and sobers a respawned player.
pub(crate) struct HudPlugin;

impl Plugin for HudPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<HudCommand>().add_systems(
            FixedUpdate,
            (
                apply_hud.before(SpawnSystems::Grant),
                sober_on_respawn.after(SpawnSystems::Grant),
            )
                .in_set(GameplaySystems::Apply),
        );
    }
}

/// Applies each command: the packet is a normal event (connection.md §3), so on a full
/// lane the command is refused and the stored value stays, as the Lua call already said
/// "queue full".
fn apply_hud(
    mut commands: MessageReader<HudCommand>,
    mut players: Query<(&mut Hud, &mut Connection)>,
) {
    for &HudCommand { player, change } in commands.read() {
        if let Err(refusal) = change.check() {
            dlmp_net::log_limited!(warn, ?player, ?refusal, "HUD command refused");
            continue;
        }
        let Ok((mut hud, mut conn)) = players.get_mut(player) else {
            continue;
        };
        let mut new = *hud;
        let event_id = EventId(0);
        let packet: ServerPacket = match change {
            HudChange::SetMoney(amount) => {
                new.money = amount;
                SetMoney { event_id, amount }.into()
            }
            HudChange::GiveMoney(delta) => {
                new.money = money_after(hud.money, delta);
                let amount = new.money;
                SetMoney { event_id, amount }.into()
            }
            HudChange::Wanted(level) => {
                new.wanted = level;
                SetWanted { event_id, level }.into()
            }
            HudChange::DrunkLevel(level) => {
                new.drunk_level = level;
                SetDrunkLevel { event_id, level }.into()
            }
            HudChange::Stats {
                stamina,
                lung_capacity,
            } => {
                new.stamina = stamina;
                new.lung_capacity = lung_capacity;
                SetPlayerStats {
                    event_id,
                    stamina,
                    lung_capacity,
                }
                .into()
            }
        };
        if command_owner(&mut conn, packet).is_ok() {
            *hud = new;
        }
    }
}

/// A new respawn grant sends SetDrunkLevel(0) if the level is not 0 (player.md,
/// SetDrunkLevel); the stored level becomes 0.
fn sober_on_respawn(
    mut grants: MessageReader<RespawnGranted>,
    mut players: Query<(&mut Hud, &mut Connection)>,
) {
    for grant in grants.read() {
        let Ok((mut hud, mut conn)) = players.get_mut(grant.player) else {
            continue;
        };
        if hud.drunk_level != 0 {
            hud.drunk_level = 0;
            reset_owner(
                &mut conn,
                SetDrunkLevel {
                    event_id: EventId(0),
                    level: 0,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_change_clamps_to_the_range() {
        assert_eq!(money_after(100, -250), -150);
        assert_eq!(money_after(MAX_MONEY - 1, 5), MAX_MONEY);
        assert_eq!(money_after(-MAX_MONEY, -1), -MAX_MONEY);
        assert_eq!(money_after(0, i64::MAX), MAX_MONEY);
        assert_eq!(money_after(0, i64::MIN), -MAX_MONEY);
    }

    #[test]
    fn an_absolute_balance_outside_the_range_is_refused() {
        assert_eq!(
            HudChange::SetMoney(-MAX_MONEY - 1).check(),
            Err(HudRefusal::MoneyOutOfRange(-MAX_MONEY - 1))
        );
        assert!(HudChange::SetMoney(MAX_MONEY).check().is_ok());
        assert!(HudChange::Wanted(7).check().is_err());
        assert!(
            HudChange::Stats {
                stamina: 1000,
                lung_capacity: 1001
            }
            .check()
            .is_err()
        );
    }
}
