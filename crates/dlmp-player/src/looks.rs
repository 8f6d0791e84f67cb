//! How a player looks (player.md, SetSkin, SetWalkingStyle, SetFightingStyle, SetHeadless,
//! PlayerSkills): the gamemode's commands, the stored [`Appearance`] and [`Skills`] the
//! relay and the show carry, and what a spawn and a respawn grant do to them.
//!
//! - Every command sends its packet to the owner as a normal event on the reliable lane
//!   (connection.md §3) and stores the value only if the lane took it ("queue full"
//!   otherwise); the relay stamps the appearance into the next RemotePlayerSync of every
//!   viewer.
//! - A skill change goes as a PlayerSkills snapshot to the subject and its viewers once
//!   per tick, after the shown sets are reconciled.
//! - Until the connect spawn is confirmed, the look is the spawn info's (SpawnPlayer
//!   carries it), and a skin change also rewrites the spawn info, so a repeated grant
//!   does not put the old skin back.
//! - A new respawn grant clears the hidden head with SetHeadless(0).

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use super::skins::SkinCatalog;
use super::{Appearance, RespawnGranted, Skills, SpawnState, SpawnSystems};
use dlmp_core::owner::{command_owner, reset_owner};
use dlmp_core::session::{Connection, Player, PlayerIndex};
use dlmp_core::streaming::Reshows;
use dlmp_core::tick::{GameplaySystems, StreamingSystems};
use dlmp_core::viewers::{Viewers, tell_viewers};
use dlmp_net::lane::Delivery;
use dlmp_protocol::ServerPacket;
use dlmp_protocol::ids::EventId;
use dlmp_protocol::player::appearance::{
    FightingStyle, MAX_SKILL, PlayerSkills, SetFightingStyle, SetHeadless, SetSkin,
    SetWalkingStyle, WalkingStyle,
};

/// The number of weapon skill slots (player.md, PlayerSkills).
pub const SKILL_SLOTS: usize = 11;

/// A gamemode command that changes a player's look; Lua's `player:set_skin` and friends
/// write it, and so may Rust plugins (ADR 0011).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookCommand {
    pub player: Entity,
    pub change: LookChange,
}

/// What a [`LookCommand`] changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookChange {
    /// SetSkin: a model of the [`SkinCatalog`], variant >= 1. Keeps the styles and the
    /// hidden head.
    Skin { model: u32, variant: u16 },
    /// SetWalkingStyle: an id on the allowlist ([`WalkingStyle::is_known`]).
    WalkingStyle(WalkingStyle),
    /// SetFightingStyle.
    FightingStyle(FightingStyle),
    /// SetHeadless.
    Headless(bool),
    /// One weapon skill: slot 0..[`SKILL_SLOTS`], value 0..=1000 (player.md, PlayerSkills).
    Skill { slot: usize, value: u16 },
}

/// Why a [`LookCommand`] was refused by its form (the Lua API checks the same rules first;
/// a full lane, "queue full", is the other refusal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookRefusal {
    NotInCatalog(u32),
    ZeroVariant,
    UnknownWalkingStyle(u8),
    NoSuchSkillSlot(usize),
    SkillOutOfRange(u16),
}

impl LookChange {
    /// Checks the change against the page's rules.
    pub fn check(&self) -> Result<(), LookRefusal> {
        match *self {
            LookChange::Skin { model, .. } if !SkinCatalog::game().allows(model) => {
                Err(LookRefusal::NotInCatalog(model))
            }
            LookChange::Skin { variant: 0, .. } => Err(LookRefusal::ZeroVariant),
            LookChange::WalkingStyle(style) if !style.is_known() => {
                Err(LookRefusal::UnknownWalkingStyle(style.0))
            }
            LookChange::Skill { slot, .. } if slot >= SKILL_SLOTS => {
                Err(LookRefusal::NoSuchSkillSlot(slot))
            }
            LookChange::Skill { value, .. } if value > MAX_SKILL => {
                Err(LookRefusal::SkillOutOfRange(value))
            }
            _ => Ok(()),
        }
    }
}

/// Applies look commands and resets what a respawn grant resets.
pub(crate) struct LooksPlugin;

impl Plugin for LooksPlugin {
    fn build(&self, app: &mut App) {
        // A broken catalog asset stops the boot here, not a running game.
        let skins = SkinCatalog::game().len();
        debug!(skins, "skin catalog loaded");
        app.add_message::<LookCommand>()
            .add_systems(
                FixedUpdate,
                (
                    apply_looks.before(SpawnSystems::Grant),
                    (follow_spawn_look, clear_headless_on_respawn).after(SpawnSystems::Grant),
                )
                    .in_set(GameplaySystems::Apply),
            )
            .add_systems(FixedUpdate, send_skills.in_set(StreamingSystems::Relay));
    }
}

type Looked = (
    &'static mut Appearance,
    &'static mut Skills,
    &'static mut Connection,
    Option<&'static mut SpawnState>,
);

/// Applies each command. Its packet is a normal event (connection.md §3): on a full lane
/// the command is refused and the stored look stays, as the Lua call already said "queue
/// full". A skill change takes a place too, for the PlayerSkills that [`send_skills`]
/// queues later in the tick.
fn apply_looks(mut commands: MessageReader<LookCommand>, mut players: Query<Looked>) {
    for &LookCommand { player, change } in commands.read() {
        if let Err(refusal) = change.check() {
            dlmp_net::log_limited!(warn, ?player, ?refusal, "look command refused");
            continue;
        }
        let Ok((mut look, mut skills, mut conn, spawn)) = players.get_mut(player) else {
            continue;
        };
        if conn.room(Delivery::Normal) == 0 {
            dlmp_net::log_limited!(warn, ?player, ?change, "look command refused: queue full");
            continue;
        }
        let event_id = EventId(0);
        let packet: ServerPacket = match change {
            LookChange::Skin { model, variant } => {
                look.skin = model;
                look.variant = variant;
                if let Some(info) = spawn.and_then(|s| s.into_inner().info.as_mut()) {
                    info.skin = model;
                    info.variant = variant;
                }
                SetSkin {
                    event_id,
                    model,
                    variant,
                }
                .into()
            }
            LookChange::WalkingStyle(style) => {
                look.walk_style = style.0;
                SetWalkingStyle { event_id, style }.into()
            }
            LookChange::FightingStyle(style) => {
                look.fight_style = style.to_repr();
                SetFightingStyle { event_id, style }.into()
            }
            LookChange::Headless(headless) => {
                look.headless = headless;
                SetHeadless { event_id, headless }.into()
            }
            LookChange::Skill { slot, value } => {
                if let Some(s) = skills.0.get_mut(slot) {
                    *s = value;
                }
                continue;
            }
        };
        // The look is stored either way: the lane's room was checked above.
        let _ = command_owner(&mut conn, packet);
    }
}

/// Between the connect spawn grant and its confirmation the client takes its look from
/// SpawnPlayer, so the stored look is the spawn info's.
fn follow_spawn_look(mut players: Query<(&SpawnState, &mut Appearance)>) {
    for (state, mut look) in &mut players {
        if let Some(info) = state.info.filter(|_| state.granted && !state.confirmed)
            && (look.skin, look.variant) != (info.skin, info.variant)
        {
            look.skin = info.skin;
            look.variant = info.variant;
        }
    }
}

/// A new respawn grant clears the hidden head: the owner gets SetHeadless(0) on the lane,
/// since RespawnPlayer itself is unreliable (player.md, SetHeadless). It is sent on every
/// grant, as the page says, not only when the head was hidden.
fn clear_headless_on_respawn(
    mut grants: MessageReader<RespawnGranted>,
    mut players: Query<(&mut Appearance, &mut Connection)>,
) {
    for grant in grants.read() {
        let Ok((mut look, mut conn)) = players.get_mut(grant.player) else {
            continue;
        };
        look.headless = false;
        reset_owner(
            &mut conn,
            SetHeadless {
                event_id: EventId(0),
                headless: false,
            },
        );
    }
}

/// Sends the skills of every player whose skills changed this tick to the player and to
/// every recipient it is shown to (player.md, PlayerSkills). A recipient shown the player
/// this tick also got them in the show's snapshot; the repeat is harmless. A new player's
/// skills ride its shows.
fn send_skills(
    players: Query<(Entity, &Player, Ref<Skills>, &Viewers)>,
    index: Res<PlayerIndex>,
    mut connections: Query<&mut Connection>,
    mut reshows: ResMut<Reshows>,
) {
    for (entity, player, skills, viewers) in &players {
        if !skills.is_changed() || skills.is_added() {
            continue;
        }
        let packet = PlayerSkills {
            id: player.id,
            player_token: player.token,
            event_id: EventId(0),
            skills: skills.0,
        };
        if let Ok(mut conn) = connections.get_mut(entity)
            && let Err(e) = conn.send_event(packet.clone(), Delivery::Normal)
        {
            dlmp_net::log_limited!(warn, ?entity, "PlayerSkills to its subject: {e}");
        }
        tell_viewers(
            entity,
            viewers,
            &index,
            &mut connections,
            &mut reshows,
            packet,
        );
    }
}
