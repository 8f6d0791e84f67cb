//! The connect spawn (player.md, RequestSpawn and SpawnPlayer): the gamemode sets the
//! spawn info, the client asks until SpawnPlayer arrives, the server grants idempotently
//! until the first living frame confirms the spawn. After that, and during death and
//! respawn, a request is dropped and counted ([`SpawnRequestDrops`]): it is not a second
//! spawn path (the respawn is [`super::respawn`]).
//! Decisions: docs/decisions/0012-respawn-policy.md.

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use tracing::debug;

use super::floor::{GrantFloor, LandingPoint};
use super::respawn::SpawnPoint;
use super::{Ledger, Life};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, Received};
use dlmp_core::tick::GameplaySystems;
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::player::life::SpawnPlayer;

/// Where and how the gamemode spawns a player (`dlmp.spawn_player`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpawnInfo {
    pub position: Vec3,
    /// Radians (the gamemode API takes degrees).
    pub heading: f32,
    /// Interior of the point, 0 = outside.
    pub interior: u8,
    pub skin: u32,
    /// ≥ 1.
    pub variant: u16,
}

impl SpawnInfo {
    /// The point of this info: the default respawn point (ADR 0012).
    pub fn point(&self) -> SpawnPoint {
        SpawnPoint {
            position: self.position,
            heading: self.heading,
            interior: self.interior,
        }
    }

    /// The SpawnPlayer packet for this info.
    pub fn packet(&self) -> SpawnPlayer {
        SpawnPlayer {
            spawn: self.position,
            heading: self.heading,
            area: i32::from(self.interior),
            skin: self.skin,
            variant: self.variant,
        }
    }
}

/// The connect spawn's progress.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct SpawnState {
    /// Set by the gamemode; `None` until then.
    pub info: Option<SpawnInfo>,
    /// A RequestSpawn arrived this tick.
    requested: bool,
    /// SpawnPlayer went out at least once.
    pub granted: bool,
    /// The first living PlayerSync arrived: requests are dropped from now on.
    pub confirmed: bool,
    /// The current life is confirmed: a living PlayerSync arrived since the last spawn or
    /// respawn grant. Commands "to a player whose new life is confirmed" (SetOnFire,
    /// SetSpecialAction, SetVelocity) check it.
    pub life_confirmed: bool,
    /// A respawn grant went out: the connect spawn is over even if the first life ended
    /// before a living frame came.
    pub respawned: bool,
}

impl SpawnState {
    /// The respawn window (player.md, PlayerSpawned): a respawn grant went out and no
    /// living frame came since. The client revives only on RespawnPlayer and then sends
    /// living frames, so what reports a death now belongs to the previous life (ADR 0012).
    pub fn in_respawn_window(&self) -> bool {
        self.respawned && !self.life_confirmed
    }

    /// Whether a RequestSpawn may be answered (player.md, RequestSpawn): only while the
    /// connect spawn is pending, that is not confirmed, not dead and not replaced by a
    /// respawn.
    pub fn may_answer_request(&self, life: &Life) -> Result<(), SpawnRequestDrop> {
        if life.spawned && !life.alive {
            Err(SpawnRequestDrop::Dead)
        } else if self.respawned {
            Err(SpawnRequestDrop::Respawned)
        } else if self.confirmed {
            Err(SpawnRequestDrop::Confirmed)
        } else {
            Ok(())
        }
    }
}

/// Why a RequestSpawn was dropped. A request before the gamemode set the spawn info is
/// not a drop: it keeps the session alive and waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnRequestDrop {
    /// After the first living PlayerSync.
    Confirmed,
    /// The player is dead.
    Dead,
    /// A respawn grant replaced the connect spawn.
    Respawned,
}

/// RequestSpawns dropped, by reason.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpawnRequestDrops {
    pub confirmed: u64,
    pub dead: u64,
    pub respawned: u64,
}

impl SpawnRequestDrops {
    fn count(&mut self, reason: SpawnRequestDrop) {
        match reason {
            SpawnRequestDrop::Confirmed => self.confirmed += 1,
            SpawnRequestDrop::Dead => self.dead += 1,
            SpawnRequestDrop::Respawned => self.respawned += 1,
        }
    }
}

/// The connect spawn was granted for the first time (`player_spawn`).
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnGranted {
    pub player: Entity,
}

/// A respawn grant went out (player.md, RespawnPlayer): a new life starts. The features
/// whose stored state "a new respawn grant" clears or resets (SetFrozen(0), camera 0,
/// SetOnFire(0), SetSpecialAction(0), SetHeadless(0), SetDrunkLevel(0), throws discarded,
/// the animation) read it in systems ordered after [`SpawnSystems::Grant`], so their
/// packets follow the grant.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RespawnGranted {
    pub player: Entity,
}

/// Where spawn and respawn grants are decided, inside [`GameplaySystems::Apply`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpawnSystems {
    /// SpawnPlayer and RespawnPlayer grants; [`SpawnGranted`] and [`RespawnGranted`] are
    /// written here.
    Grant,
}

pub(crate) struct SpawnPlugin;

impl Plugin for SpawnPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SpawnRequestDrops>()
            .add_message::<SpawnGranted>()
            .add_message::<RespawnGranted>()
            .configure_sets(
                FixedUpdate,
                SpawnSystems::Grant.in_set(GameplaySystems::Apply),
            )
            .add_systems(FixedUpdate, take_requests.in_set(GameplaySystems::Intake))
            .add_systems(FixedUpdate, grant_spawns.in_set(SpawnSystems::Grant));
    }
}

/// Notes every RequestSpawn; it also kept the session alive (it passed the token check).
/// The grant decides on it after the gamemode ran.
fn take_requests(mut received: MessageReader<Received>, mut states: Query<&mut SpawnState>) {
    for Received { player, packet, .. } in received.read() {
        if let ClientPacket::RequestSpawn(_) = packet
            && let Ok(mut state) = states.get_mut(*player)
        {
            state.requested = true;
        }
    }
}

/// What a spawn grant writes.
type Granting = (
    Entity,
    &'static Player,
    &'static mut SpawnState,
    &'static mut Life,
    &'static mut Position,
    &'static mut Scope,
    &'static mut Connection,
    Option<&'static mut Ledger>,
);

/// Answers this tick's requests with SpawnPlayer while the connect spawn is pending and
/// the gamemode has set the spawn info; the grant marks the player spawned, moves it and
/// its interior scope to the point.
fn grant_spawns(
    mut players: Query<Granting>,
    mut drops: ResMut<SpawnRequestDrops>,
    mut granted: MessageWriter<SpawnGranted>,
    mut floor: Option<ResMut<GrantFloor>>,
) {
    for (entity, me, mut state, mut life, mut position, mut scope, mut conn, ledger) in &mut players
    {
        if !std::mem::take(&mut state.requested) {
            continue;
        }
        if let Err(reason) = state.may_answer_request(&life) {
            debug!(?entity, ?reason, "RequestSpawn dropped");
            drops.count(reason);
            continue;
        }
        let Some(info) = state.info else { continue };
        let point = LandingPoint {
            position: info.position,
            virtual_world: scope.virtual_world,
            interior: info.interior,
        };
        if floor.as_mut().is_some_and(|f| f.hold(entity, me.id, point)) {
            // Held for the objects at the point; asked again next tick.
            state.requested = true;
            continue;
        }
        if let Err(e) = conn.send(info.packet()) {
            debug!("SpawnPlayer not sent: {e}");
            continue;
        }
        if !state.granted {
            state.granted = true;
            conn.spawn_granted();
            granted.write(SpawnGranted { player: entity });
        }
        if !life.alive
            && let Some(mut ledger) = ledger
        {
            ledger.start_life();
        }
        *life = Life {
            spawned: true,
            alive: true,
        };
        state.life_confirmed = false;
        position.0 = info.position;
        scope.interior = info.interior;
    }
}
