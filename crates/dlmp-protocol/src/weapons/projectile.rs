//! ProjectileCreate and its relay RemoteProjectileCreate (weapons.md §2): a thrown or
//! launched projectile, flown and burst by every client's own game.

use crate::check;
use crate::connection::roster::check_token;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, PlayerId, PlayerToken, SessionToken, VehicleEpoch, VehicleId};
use crate::vehicle::towing::check_epoch_placeholder;
use crate::wire::Validate;
use crate::world::shared::in_world;
use crate::{packet, wire_enum, wire_struct};

/// The fastest start velocity, units per physics step (7.0 = 350 m/s).
pub const MAX_SPEED: f32 = 7.0;
/// The slowest start velocity of a rocket (19, 20), units per physics step.
pub const MIN_ROCKET_SPEED: f32 = 0.2;

wire_enum! {
    /// The projectile a launch creates (weapons.md §1, Projectile weapons); the weapon
    /// that launches it is the table's.
    pub enum ProjectileWeapon: u8 {
        Grenade = 16,
        Teargas = 17,
        Molotov = 18,
        Rocket = 19,
        HeatSeeker = 20,
        Satchel = 39,
    }
}

impl ProjectileWeapon {
    /// A rocket (19) or heat-seeking rocket (20): the only projectiles a vehicle fires,
    /// with a least start speed.
    pub fn is_rocket(self) -> bool {
        matches!(
            self,
            ProjectileWeapon::Rocket | ProjectileWeapon::HeatSeeker
        )
    }
}

wire_struct! {
    /// What ProjectileCreate and RemoteProjectileCreate share after their header: the
    /// projectile as the launcher's game created it (37 bytes). The relay carries it as
    /// accepted, with the target the server kept.
    #[derive(Copy)]
    pub struct Launch {
        pub weapon: ProjectileWeapon,
        /// 19 / 20 from a vehicle's weapon: the launching vehicle; 0xFFFFFFFF on foot.
        pub vehicle_id: VehicleId,
        /// Where the projectile starts, within world bounds.
        pub origin: Vec3,
        /// Start velocity, units per physics step: |v| ≤ 7.0, a rocket's ≥ 0.2.
        pub velocity: Vec3,
        /// 20: the vehicle the rocket locked on; 0xFFFFFFFF = none.
        pub target_id: VehicleId,
        /// The target's epoch; 0 without a target.
        pub target_epoch: VehicleEpoch,
    }
}

impl Validate for Launch {
    fn validate(&self) -> Result<(), FieldError> {
        in_world("origin", &self.origin)?;
        let speed = self.velocity.length();
        check::ensure(speed <= MAX_SPEED, "velocity", Rule::OutOfRange)?;
        if self.weapon.is_rocket() {
            check::ensure(speed >= MIN_ROCKET_SPEED, "velocity", Rule::OutOfRange)?;
        }
        check::ensure(
            self.vehicle_id == VehicleId::NONE || self.weapon.is_rocket(),
            "vehicle_id",
            Rule::Combination,
        )?;
        check::ensure(
            self.target_id == VehicleId::NONE || self.weapon == ProjectileWeapon::HeatSeeker,
            "target_id",
            Rule::Combination,
        )?;
        check_epoch_placeholder("target_epoch", self.target_id, self.target_epoch)
    }
}

packet! {
    /// ProjectileCreate (0x24), Client → Server, reliable: the sender's game launched one
    /// projectile.
    pub struct ProjectileCreate = 0x24, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        /// The last Server → Client event_id the client had applied when its game
        /// launched it: the scope barrier of ScopeChanged (player.md).
        pub seen_event: EventId,
        pub launch: Launch,
    }
}

impl Validate for ProjectileCreate {}

packet! {
    /// RemoteProjectileCreate (0x25), Server → Client, reliable: an accepted launch, to
    /// the players the launcher is shown to, never to the launcher; neither critical nor
    /// droppable.
    pub struct RemoteProjectileCreate = 0x25, ServerToClient {
        /// The launcher.
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub event_id: EventId,
        pub launch: Launch,
    }
}

impl Validate for RemoteProjectileCreate {
    fn validate(&self) -> Result<(), FieldError> {
        check_token("player_token", self.player_token)
    }
}
