//! ShotRewind (connection.md §6): what the shooter saw at a shot, carried inside
//! RemoteWeaponShot and RemoteVehicleShot.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::wire::Validate;
use crate::{wire_enum, wire_struct};

wire_enum! {
    /// What the shot's ray ended on, as the rewind names it.
    #[derive(Default)]
    pub enum RewindTarget: u8 {
        #[default]
        None = 0,
        Player = 1,
        Vehicle = 2,
    }
}

wire_struct! {
    /// 34 bytes. With `rewound` = 0 every other field is zero.
    #[derive(Copy)]
    pub struct ShotRewind {
        /// 1: the fields below hold what the shooter saw; 0: all fields zero.
        pub rewound: bool,
        pub target_kind: RewindTarget,
        pub target_id: u32,
        /// The player's generation, or the vehicle's epoch in the low byte.
        pub target_token: u32,
        /// Where the target stood in the shooter's view at the shot.
        pub target_pos: Vec3,
        /// The shooter's position by its last accepted frame.
        pub shooter_pos: Vec3,
    }
}

impl ShotRewind {
    /// A shot without a rewind: every field zero.
    pub const NONE: ShotRewind = ShotRewind {
        rewound: false,
        target_kind: RewindTarget::None,
        target_id: 0,
        target_token: 0,
        target_pos: Vec3::ZERO,
        shooter_pos: Vec3::ZERO,
    };
}

impl Default for ShotRewind {
    fn default() -> Self {
        Self::NONE
    }
}

impl Validate for ShotRewind {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.rewound {
            // Bit-exact zeros: -0.0 is not the zero the page means.
            let zero_bits = |v: &Vec3| [v.x, v.y, v.z].iter().all(|f| f.to_bits() == 0);
            check::ensure(
                self.target_kind == RewindTarget::None
                    && self.target_id == 0
                    && self.target_token == 0
                    && zero_bits(&self.target_pos)
                    && zero_bits(&self.shooter_pos),
                "rewound",
                Rule::Reserved,
            )?;
        }
        if self.rewound && self.target_kind == RewindTarget::Vehicle {
            check::bits_within("target_token", self.target_token, 0xFF)?;
        }
        Ok(())
    }
}
