//! VehicleShot and its relay RemoteVehicleShot (vehicles.md): a salvo of a vehicle's
//! weapon (machine guns, the Rhino cannon).

use crate::check;
use crate::connection::rewind::ShotRewind;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{PlayerId, PlayerToken, Revision, Seq, SessionToken, VehicleId};
use crate::wire::Validate;
use crate::{packet, wire_struct};

/// Rays a salvo carries at most.
pub const MAX_RAYS: u8 = 2;

wire_struct! {
    /// One ray of a salvo: `start_xyz, end_xyz` (24 bytes).
    #[derive(Copy, Default)]
    pub struct Ray {
        pub start: Vec3,
        pub end: Vec3,
    }
}

impl Validate for Ray {}

impl Ray {
    /// The unused slot: every float a bit-exact zero.
    pub const ZERO: Ray = Ray {
        start: Vec3::ZERO,
        end: Vec3::ZERO,
    };

    fn is_zero(&self) -> bool {
        [self.start, self.end]
            .iter()
            .flat_map(|v| [v.x, v.y, v.z])
            .all(|f| f.to_bits() == 0)
    }
}

/// Strict decoding of a salvo: `count` 1..=2, the slots past `count` zeros. NaN/Inf in any
/// slot already fails reading (an unused slot must be zeros anyway).
fn check_salvo(count: u8, rays: &[Ray; MAX_RAYS as usize]) -> Result<(), FieldError> {
    check::range("count", count, 1..=MAX_RAYS)?;
    check::ensure(
        rays.iter().skip(usize::from(count)).all(Ray::is_zero),
        "rays",
        Rule::Reserved,
    )
}

packet! {
    /// VehicleShot (0x47), Client → Server, unreliable: one salvo of the driver's vehicle
    /// weapon, as its game computed the rays.
    pub struct VehicleShot = 0x47, ClientToServer {
        pub session_token: SessionToken,
        /// Number of the first ray; the rays take order..order+count−1 of the counter
        /// shared with WeaponShot.
        pub order: Seq,
        /// The vehicle the sender drives.
        pub vehicle_id: VehicleId,
        /// Rays in the salvo, 1..=2.
        pub count: u8,
        /// An unused slot is zeros.
        pub rays: [Ray; 2],
        /// Weapon properties revision, as in WeaponShot.
        pub props_rev: Revision,
    }
}

impl Validate for VehicleShot {
    fn validate(&self) -> Result<(), FieldError> {
        check_salvo(self.count, &self.rays)
    }
}

packet! {
    /// RemoteVehicleShot (0x48), Server → Client, unreliable: an accepted VehicleShot,
    /// relayed to those the shooter is shown to.
    pub struct RemoteVehicleShot = 0x48, ServerToClient {
        /// The shooter.
        pub id: PlayerId,
        pub player_token: PlayerToken,
        pub order: Seq,
        pub vehicle_id: VehicleId,
        /// 1..=2, as in VehicleShot.
        pub count: u8,
        /// An unused slot is zeros.
        pub rays: [Ray; 2],
        /// Not read for the cannon.
        pub props_rev: Revision,
        /// The shooter's damage group revision (connection.md, Damage groups and relations).
        pub relation_rev: u32,
        /// The shooter is a teammate of the recipient.
        pub teammate: bool,
        /// For machine-gun rays; never rewound for the cannon.
        pub rewind: ShotRewind,
    }
}

impl Validate for RemoteVehicleShot {
    fn validate(&self) -> Result<(), FieldError> {
        check_salvo(self.count, &self.rays)
    }
}
