//! The respawn (player.md, RespawnRequest, RespawnPlayer, PlayerSpawned): a dead player
//! asks on a timer, the server grants by its policy ([`RespawnPolicy`]: the least time
//! dead, the gamemode's point or the connect spawn's), sends RespawnPlayer to the player
//! and PlayerSpawned to its viewers, and starts the new life (alive, ledger 100/0, a new
//! [`DeathEpoch`], its scope at the point). The first living frame confirms it; until
//! then a repeated request re-sends RespawnPlayer and nothing else.
//! Decisions: docs/decisions/0012-respawn-policy.md.

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_time::Time;
use tracing::debug;

use super::floor::{GrantFloor, LandingPoint};
use super::ledger::LedgerEvent;
use super::{DeathEpoch, LastFrame, Ledger, Life, RespawnGranted, SpawnState, SpawnSystems};
use dlmp_core::position::{Position, Scope};
use dlmp_core::session::{Connection, Player, PlayerConnected, PlayerIndex, Received};
use dlmp_core::streaming::Reshows;
use dlmp_core::tick::GameplaySystems;
use dlmp_core::viewers::{Viewers, tell_viewers};
use dlmp_protocol::ClientPacket;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, Seq};
use dlmp_protocol::player::life::{PlayerSpawned, RespawnPlayer};

/// The least time dead when neither the config nor the gamemode set one (ADR 0012).
pub const DEFAULT_RESPAWN_DELAY: Duration = Duration::from_secs(3);
/// The longest least time dead the config or the gamemode may set (an hour).
pub const MAX_RESPAWN_DELAY: Duration = Duration::from_secs(3600);

/// The server's respawn policy (player.md, RespawnPlayer: "eligibility and timing are
/// server configuration").
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RespawnPolicy {
    /// A RespawnRequest earlier than this after the death is ignored. Default 3 s
    /// (`respawn_delay_ms`, `dlmp.set_respawn_delay`).
    pub min_dead: Duration,
}

impl Default for RespawnPolicy {
    fn default() -> Self {
        RespawnPolicy {
            min_dead: DEFAULT_RESPAWN_DELAY,
        }
    }
}

/// Where a life starts: position, facing and the interior of the point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpawnPoint {
    pub position: Vec3,
    /// Radians (the gamemode API takes degrees).
    pub heading: f32,
    /// 0 = outside.
    pub interior: u8,
}

impl SpawnPoint {
    /// The RespawnPlayer that starts a life here; its area is the point's interior
    /// (player.md, RespawnPlayer).
    pub fn packet(&self) -> RespawnPlayer {
        RespawnPlayer {
            spawn: self.position,
            heading: self.heading,
            area: i32::from(self.interior),
        }
    }
}

/// The gamemode's respawn point for the player (`player:set_respawn_point`); `None` = the
/// connect spawn's point ([`SpawnState::info`]).
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct RespawnPoint(pub Option<SpawnPoint>);

/// The player's progress through death and respawn.
#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
pub struct Respawn {
    /// When the current death was committed; `None` while alive.
    pub died_at: Option<Duration>,
    /// A RespawnRequest arrived this tick.
    requested: bool,
    /// The point of the last grant, kept until a death: a request before the first
    /// living frame re-sends it.
    pub granted: Option<SpawnPoint>,
}

/// Why a RespawnRequest was ignored (player.md, RespawnRequest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RespawnDrop {
    /// The connect spawn was never granted.
    NotSpawned,
    /// The player is alive, and its life is confirmed or was not started by a respawn.
    Alive,
    /// Before the least time dead.
    TooEarly,
    /// Neither the gamemode nor the connect spawn gave a point.
    NoPoint,
}

/// RespawnRequests ignored, by reason.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RespawnDrops {
    pub not_spawned: u64,
    pub alive: u64,
    pub too_early: u64,
    pub no_point: u64,
}

impl RespawnDrops {
    fn count(&mut self, reason: RespawnDrop) {
        match reason {
            RespawnDrop::NotSpawned => self.not_spawned += 1,
            RespawnDrop::Alive => self.alive += 1,
            RespawnDrop::TooEarly => self.too_early += 1,
            RespawnDrop::NoPoint => self.no_point += 1,
        }
    }
}

/// What to do with a RespawnRequest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// A new grant at this point.
    Grant(SpawnPoint),
    /// The grant went out, its first living frame has not: RespawnPlayer again, nothing
    /// else.
    Resend(SpawnPoint),
    Ignore(RespawnDrop),
}

/// The policy applied to one request: the I/O-free core of the grant.
pub fn decide(
    life: Life,
    spawn: &SpawnState,
    respawn: &Respawn,
    point: &RespawnPoint,
    policy: RespawnPolicy,
    now: Duration,
) -> Verdict {
    if !life.spawned {
        return Verdict::Ignore(RespawnDrop::NotSpawned);
    }
    if life.alive {
        return match respawn.granted {
            Some(p) if !spawn.life_confirmed => Verdict::Resend(p),
            _ => Verdict::Ignore(RespawnDrop::Alive),
        };
    }
    // A death committed after this tick's note is noted next tick: not yet long enough.
    let Some(died_at) = respawn.died_at else {
        return Verdict::Ignore(RespawnDrop::TooEarly);
    };
    if now.saturating_sub(died_at) < policy.min_dead {
        return Verdict::Ignore(RespawnDrop::TooEarly);
    }
    match point.0.or_else(|| spawn.info.map(|i| i.point())) {
        Some(p) => Verdict::Grant(p),
        None => Verdict::Ignore(RespawnDrop::NoPoint),
    }
}

/// `dlmp.set_respawn_delay(ms)`: the least time dead from now on.
#[derive(Message, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetRespawnDelay(pub Duration);

/// `player:set_respawn_point(...)` / `player:clear_respawn_point()`.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct SetRespawnPoint {
    pub player: Entity,
    pub point: Option<SpawnPoint>,
}

/// Respawn requests, the policy and the grant. The policy starts as the app's
/// [`RespawnPolicy`] resource if one was inserted before (the config), else the default.
pub struct RespawnPlugin;

impl Plugin for RespawnPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<RespawnPolicy>()
            .init_resource::<RespawnDrops>()
            .add_message::<SetRespawnDelay>()
            .add_message::<SetRespawnPoint>()
            .add_systems(
                FixedUpdate,
                (give_respawn, (note_deaths, take_requests))
                    .chain()
                    .in_set(GameplaySystems::Intake),
            )
            .add_systems(
                FixedUpdate,
                apply_commands
                    .in_set(GameplaySystems::Apply)
                    .before(SpawnSystems::Grant),
            )
            .add_systems(FixedUpdate, grant_respawns.in_set(SpawnSystems::Grant));
    }
}

fn give_respawn(mut commands: Commands, mut connected: MessageReader<PlayerConnected>) {
    for c in connected.read() {
        commands
            .entity(c.player)
            .insert((Respawn::default(), RespawnPoint::default()));
    }
}

/// Starts the time dead of every death the ledger committed.
fn note_deaths(
    time: Res<Time>,
    mut deaths: MessageReader<LedgerEvent>,
    mut players: Query<&mut Respawn>,
) {
    for event in deaths.read() {
        if let LedgerEvent::Death { player, .. } = *event
            && let Ok(mut respawn) = players.get_mut(player)
        {
            respawn.died_at = Some(time.elapsed());
            respawn.granted = None;
        }
    }
}

/// Notes every RespawnRequest (the session layer checked its token and address).
fn take_requests(mut received: MessageReader<Received>, mut players: Query<&mut Respawn>) {
    for Received { player, packet, .. } in received.read() {
        if let ClientPacket::RespawnRequest(_) = packet
            && let Ok(mut respawn) = players.get_mut(*player)
        {
            respawn.requested = true;
        }
    }
}

fn apply_commands(
    mut delays: MessageReader<SetRespawnDelay>,
    mut points: MessageReader<SetRespawnPoint>,
    mut policy: ResMut<RespawnPolicy>,
    mut players: Query<&mut RespawnPoint>,
) {
    for SetRespawnDelay(delay) in delays.read() {
        policy.min_dead = (*delay).min(MAX_RESPAWN_DELAY);
    }
    for command in points.read() {
        if let Ok(mut point) = players.get_mut(command.player) {
            point.0 = command.point;
        }
    }
}

/// What a respawn grant reads and writes.
type Respawning = (
    Entity,
    &'static Player,
    &'static mut Respawn,
    &'static RespawnPoint,
    &'static mut SpawnState,
    &'static mut Life,
    &'static mut Ledger,
    &'static mut DeathEpoch,
    &'static mut Position,
    &'static mut Scope,
    &'static LastFrame,
    &'static Viewers,
);

/// Decides this tick's requests; a grant sends RespawnPlayer to the player and
/// PlayerSpawned to its viewers, starts the new life and writes [`RespawnGranted`].
/// PlayerSpawned is a normal event (connection.md §3: its page does not say critical): a
/// viewer whose lane holds 512 events is refused it rather than overflowed.
#[allow(
    clippy::too_many_arguments,
    reason = "a system's parameters are its dependencies"
)]
fn grant_respawns(
    time: Res<Time>,
    policy: Res<RespawnPolicy>,
    index: Res<PlayerIndex>,
    mut players: Query<Respawning>,
    mut connections: Query<&mut Connection>,
    mut drops: ResMut<RespawnDrops>,
    mut granted: MessageWriter<RespawnGranted>,
    mut reshows: ResMut<Reshows>,
    mut floor: Option<ResMut<GrantFloor>>,
) {
    let now = time.elapsed();
    for item in &mut players {
        let (
            entity,
            me,
            mut respawn,
            chosen,
            mut spawn,
            mut life,
            mut ledger,
            mut epoch,
            mut position,
            mut scope,
            last,
            viewers,
        ) = item;
        if !std::mem::take(&mut respawn.requested) {
            continue;
        }
        let point = match decide(*life, &spawn, &respawn, chosen, *policy, now) {
            Verdict::Grant(point) => point,
            Verdict::Resend(point) => {
                if let Ok(mut conn) = connections.get_mut(entity)
                    && let Err(e) = conn.send(point.packet())
                {
                    debug!(?entity, "RespawnPlayer not sent: {e}");
                }
                continue;
            }
            Verdict::Ignore(reason) => {
                debug!(?entity, ?reason, "RespawnRequest ignored");
                drops.count(reason);
                continue;
            }
        };
        let landing = LandingPoint {
            position: point.position,
            virtual_world: scope.virtual_world,
            interior: point.interior,
        };
        if floor
            .as_mut()
            .is_some_and(|f| f.hold(entity, me.id, landing))
        {
            // Held for the objects at the point; decided again next tick.
            respawn.requested = true;
            continue;
        }
        let Ok(mut conn) = connections.get_mut(entity) else {
            continue;
        };
        if !send_respawn(&mut conn, &mut scope, point) {
            continue;
        }
        let spawned = PlayerSpawned {
            id: me.id,
            player_token: me.token,
            event_id: EventId(0),
            spawn: point.position,
            heading: point.heading,
            sync_seq: last.seq.unwrap_or(Seq(0)),
        };
        tell_viewers(
            entity,
            viewers,
            &index,
            &mut connections,
            &mut reshows,
            spawned,
        );
        life.alive = true;
        ledger.start_life();
        epoch.0 = epoch.0.wrapping_add(1);
        // Unconfirmed until its first living frame: a repeated request re-sends the grant.
        spawn.life_confirmed = false;
        spawn.respawned = true;
        if let Ok(mut conn) = connections.get_mut(entity) {
            conn.spawn_granted();
        }
        position.0 = point.position;
        respawn.died_at = None;
        respawn.granted = Some(point);
        granted.write(RespawnGranted { player: entity });
    }
}

/// Sends RespawnPlayer (unreliable, player.md RespawnPlayer) and moves the scope to the
/// point's interior after it; the virtual world stays. False if the packet did not go:
/// the grant waits for the next request.
fn send_respawn(conn: &mut Connection, scope: &mut Scope, point: SpawnPoint) -> bool {
    if let Err(e) = conn.send(point.packet()) {
        debug!("RespawnPlayer not sent: {e}");
        return false;
    }
    let new_scope = Scope {
        interior: point.interior,
        ..*scope
    };
    scope.change(new_scope, conn);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SpawnInfo;

    const SECOND: Duration = Duration::from_secs(1);

    fn connect_info() -> SpawnState {
        let mut state = SpawnState::default();
        state.info = Some(SpawnInfo {
            position: Vec3::new(1.0, 2.0, 3.0),
            heading: 0.5,
            interior: 0,
            skin: 0,
            variant: 1,
        });
        state
    }

    const DEAD: Life = Life {
        spawned: true,
        alive: false,
    };

    #[test]
    fn the_policy_grants_a_dead_player_after_the_time_dead_at_the_chosen_point() {
        let spawn = connect_info();
        let policy = RespawnPolicy::default();
        let dead = Respawn {
            died_at: Some(SECOND),
            ..Respawn::default()
        };
        let none = RespawnPoint(None);
        let at = |now| decide(DEAD, &spawn, &dead, &none, policy, now);
        assert_eq!(
            at(SECOND * 3),
            Verdict::Ignore(RespawnDrop::TooEarly),
            "2 s dead"
        );
        let connect = spawn.info.map(|i| i.point()).expect("info");
        assert_eq!(at(SECOND * 4), Verdict::Grant(connect));
        let chosen = SpawnPoint {
            position: Vec3::new(9.0, 9.0, 9.0),
            heading: 0.0,
            interior: 4,
        };
        let over = RespawnPoint(Some(chosen));
        assert_eq!(
            decide(DEAD, &spawn, &dead, &over, policy, SECOND * 4),
            Verdict::Grant(chosen)
        );
        let without = SpawnState::default();
        assert_eq!(
            decide(DEAD, &without, &dead, &none, policy, SECOND * 4),
            Verdict::Ignore(RespawnDrop::NoPoint)
        );
        let unnoted = Respawn::default();
        assert_eq!(
            decide(DEAD, &spawn, &unnoted, &none, policy, SECOND * 4),
            Verdict::Ignore(RespawnDrop::TooEarly)
        );
    }

    #[test]
    fn the_living_get_a_resend_only_while_their_respawned_life_is_unconfirmed() {
        let alive = Life {
            spawned: true,
            alive: true,
        };
        let point = connect_info().info.map(|i| i.point()).expect("info");
        let granted = Respawn {
            granted: Some(point),
            ..Respawn::default()
        };
        let none = RespawnPoint(None);
        let policy = RespawnPolicy::default();
        let mut spawn = connect_info();
        assert_eq!(
            decide(alive, &spawn, &granted, &none, policy, SECOND),
            Verdict::Resend(point)
        );
        spawn.life_confirmed = true;
        assert_eq!(
            decide(alive, &spawn, &granted, &none, policy, SECOND),
            Verdict::Ignore(RespawnDrop::Alive)
        );
        spawn.life_confirmed = false;
        assert_eq!(
            decide(alive, &spawn, &Respawn::default(), &none, policy, SECOND),
            Verdict::Ignore(RespawnDrop::Alive),
            "a connect life is not a respawn"
        );
        assert_eq!(
            decide(Life::default(), &spawn, &granted, &none, policy, SECOND),
            Verdict::Ignore(RespawnDrop::NotSpawned)
        );
    }
}
