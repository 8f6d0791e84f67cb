//! A vehicle entity's components (vehicles.md: "The server owns every vehicle's existence
//! and life"). Fields are public: the frame feature (VehicleFrame acceptance, the relay,
//! the syncer election) writes the pose, health, part, serial and syncer; seats and
//! streaming write the rest. Revisions are one newtype each so a health revision is never
//! compared with a pose revision.

use bevy_ecs::prelude::*;

use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{PlayerId, PlayerToken, Revision, Seq, VehicleId};
use dlmp_protocol::vehicle::damage::VehicleDamageStatus;
use dlmp_protocol::vehicle::train::TrainState;
use dlmp_protocol::vehicle::tuning::{VehicleHandling, VehicleTuning};

/// The vehicle itself: its wire id and model (fixed for its whole existence).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vehicle {
    pub id: VehicleId,
    /// 400..=611, never a carriage.
    pub model: u16,
}

/// The world scope the vehicle lives in (virtual world and interior; never on the wire).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VehicleScope(pub Scope);

/// Where the gamemode spawned it (a respawn returns there).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct SpawnPoint {
    pub position: Vec3,
    /// Degrees.
    pub heading: f32,
}

/// The vehicle's health: the last value accepted from the controlling player or set by
/// the gamemode; 0 for a wreck that exploded. 1000 is full.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Health(pub f32);

/// Full health.
pub const FULL_HEALTH: f32 = 1000.0;

/// The vehicle's relay serial (RemoteVehicleFrame.seq): +1 for every accepted frame,
/// whoever controls it; a respawn does not reset it.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelaySerial(pub Seq);

/// Revision of the last gamemode transform (VehicleTransform.pose_rev).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PoseRev(pub Revision);
/// Revision of the last gamemode health command (VehicleHealth.health_rev).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct HealthRev(pub Revision);
/// Revision of the last gamemode damage command (RemoteVehicleDamage.damage_rev).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DamageRev(pub Revision);
/// Revision of the last gamemode siren switch (VehicleParams.siren_rev).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SirenRev(pub Revision);

/// The gamemode's command revisions a show carries and frames echo.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Revisions {
    pub pose: PoseRev,
    pub health: HealthRev,
    pub damage: DamageRev,
    pub siren: SirenRev,
}

/// The stored damage status (VehicleDamage), shown to late joiners; a respawn clears it.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Damage(pub VehicleDamageStatus);

impl Default for Damage {
    fn default() -> Self {
        Damage(VehicleDamageStatus::INTACT)
    }
}

/// The colors the gamemode last set, 0..=127 each.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Colors {
    pub color1: u8,
    pub color2: u8,
}

/// Why a vehicle is held (VehicleTransform bit4; frames keep the server's pose): two causes
/// that never clear each other (player.md SetFrozen: "the gamemode's own vehicle freeze is a
/// separate cause, and neither clears the other"). The copies hold it while either is set.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Frozen {
    /// The gamemode's freeze (`dlmp.set_vehicle_frozen`).
    pub gamemode: bool,
    /// Its driver's control is taken (SetFrozen: frozen or under a foreign camera); never
    /// set on a train.
    pub driver: bool,
}

impl Frozen {
    /// The gamemode's freeze alone.
    pub fn by_gamemode() -> Self {
        Frozen {
            gamemode: true,
            driver: false,
        }
    }

    /// Whether the copies hold the vehicle: either cause.
    pub fn held(&self) -> bool {
        self.gamemode || self.driver
    }
}

/// The moving part the server last relayed (VehicleState.part); a respawn resets it.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Part(pub u16);

/// One player's own parameters of this vehicle (VehicleParams: "a parameter of one
/// player goes to that player only").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlayerParams {
    /// The player's own lock, overriding the vehicle's; `None` = the vehicle's lock.
    pub locked: Option<bool>,
    pub objective: bool,
}

/// The parameters (VehicleParams): the vehicle's bits and doors, and per player its own
/// lock and objective marker.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    /// [`param`](dlmp_protocol::vehicle::params::param) bits of the vehicle itself
    /// (bit2 is the vehicle's lock; bit7 is never set here).
    pub bits: u16,
    /// Doors open by the last command.
    pub doors: u8,
    /// Per player, by slot and generation.
    pub per_player: Vec<(PlayerId, PlayerToken, PlayerParams)>,
}

impl Params {
    /// The player's own parameters, if the gamemode set any.
    pub fn of(&self, player: PlayerId, token: PlayerToken) -> PlayerParams {
        self.per_player
            .iter()
            .find(|(id, t, _)| *id == player && *t == token)
            .map(|(.., p)| *p)
            .unwrap_or_default()
    }

    /// Whether the vehicle is locked for this player: its own lock if set, otherwise the
    /// vehicle's (VehicleEnter).
    pub fn locked_for(&self, player: PlayerId, token: PlayerToken) -> bool {
        use dlmp_protocol::vehicle::params::param;
        self.of(player, token)
            .locked
            .unwrap_or(self.bits & param::LOCKED != 0)
    }

    /// The params word for this recipient: its own lock and objective (VehicleSync,
    /// VehicleParams bit2 and bit7).
    pub fn for_recipient(&self, player: PlayerId, token: PlayerToken) -> u16 {
        use dlmp_protocol::vehicle::params::param;
        let own = self.of(player, token);
        let mut bits = self.bits & !(param::LOCKED | param::OBJECTIVE);
        if self.locked_for(player, token) {
            bits |= param::LOCKED;
        }
        if own.objective {
            bits |= param::OBJECTIVE;
        }
        bits
    }
}

/// What hangs the vehicle on another: its tractor (VehicleTrailer) and the helicopter
/// whose winch carries it (VehicleLift). Nothing sets them until towing exists.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hitch {
    pub tractor: Option<VehicleId>,
    pub lifter: Option<VehicleId>,
}

/// A train's own state (VehicleSync flags bit2, bit3).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Train {
    /// Faces along the track (clockwise).
    pub along: bool,
    pub derailed: bool,
}

/// The whole-state packets that follow every show of the vehicle, critical, after its
/// seat snapshot (vehicles.md VehicleSync: "A show of a vehicle with tuning (including a
/// respawn's) is followed by VehicleTuning, and of one with gamemode handling by
/// VehicleHandling"). The tuning and handling features keep their slot equal to the
/// vehicle's state (`None` = nothing set); the stream only sends what is there.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct ShowTail {
    pub tuning: Option<VehicleTuning>,
    pub handling: Option<VehicleHandling>,
    /// A train's gamemode speed until the next accepted frame (vehicles.md TrainState:
    /// "every copy of the same generation, including one created later, takes the speed
    /// once"); the train feature keeps it.
    pub train: Option<TrainState>,
}

/// On an RC vehicle (vehicles.md VehicleRemote): the player who drives it remotely and
/// whether the fire key and a crash blow it up. Inserted and removed by the remote
/// feature; the syncer election makes `driver` the syncer, and an explosion from it with
/// `detonation` is accepted at once (VehicleExplode, "RC detonation").
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remote {
    pub driver: Occupant,
    pub detonation: bool,
}

/// A seated player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupant {
    pub entity: Entity,
    pub id: PlayerId,
    pub token: PlayerToken,
}

/// Who sits where: one entry per seat of the model (index = seat, 0 = driver).
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct Seats(pub Vec<Option<Occupant>>);

impl Seats {
    /// `n` free seats.
    pub fn new(n: u8) -> Self {
        Seats(vec![None; usize::from(n)])
    }

    /// The driver, if seat 0 exists and is taken.
    pub fn driver(&self) -> Option<Occupant> {
        self.0.first().copied().flatten()
    }

    /// Every occupant with its seat, in seat order.
    pub fn occupied(&self) -> impl Iterator<Item = (u8, Occupant)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(s, o)| o.map(|o| (s as u8, o)))
    }

    /// Whether `seat` exists on the model.
    pub fn exists(&self, seat: u8) -> bool {
        usize::from(seat) < self.0.len()
    }

    /// The occupant of `seat`.
    pub fn at(&self, seat: u8) -> Option<Occupant> {
        self.0.get(usize::from(seat)).copied().flatten()
    }

    /// The seat of `player`, if it sits here.
    pub fn seat_of(&self, player: Entity) -> Option<u8> {
        self.occupied()
            .find(|(_, o)| o.entity == player)
            .map(|(s, _)| s)
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// The syncer of a vehicle without a driver (VehicleSyncer). The syncer election writes
/// it; seats and streaming only read it (`vehicle:syncer()`).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Syncer(pub Option<Occupant>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recipients_own_lock_wins_and_the_objective_is_its_own() {
        use dlmp_protocol::vehicle::params::param;
        let me = (PlayerId(1), PlayerToken(7));
        let mut p = Params {
            bits: param::LOCKED | param::ENGINE,
            ..Params::default()
        };
        assert!(p.locked_for(me.0, me.1));
        p.per_player.push((
            me.0,
            me.1,
            PlayerParams {
                locked: Some(false),
                objective: true,
            },
        ));
        assert!(!p.locked_for(me.0, me.1));
        assert_eq!(
            p.for_recipient(me.0, me.1),
            param::ENGINE | param::OBJECTIVE
        );
        assert_eq!(
            p.for_recipient(PlayerId(2), PlayerToken(8)),
            param::ENGINE | param::LOCKED
        );
        assert!(
            p.locked_for(me.0, PlayerToken(9)),
            "another generation has its own params"
        );
    }
}
