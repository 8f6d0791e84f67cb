//! VehicleSync (vehicles.md): a vehicle shown to or hidden from a player, with its
//! current life, damage, parameters and attachments.

use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{EventId, Revision, Seq, VehicleEpoch, VehicleId};
use crate::packet;
use crate::wire::Validate;

use super::damage::VehicleDamageStatus;
use super::params::{check_params, door};

/// The game's vehicle models.
pub const MODELS: core::ops::RangeInclusive<u16> = 400..=611;
/// The highest color index.
pub const MAX_COLOR: u8 = 127;
/// Locomotives, each standing for a whole train: freight 537, passenger 538, tram 449.
pub const TRAIN_MODELS: [u16; 3] = [449, 537, 538];

/// `flags` bits of a show.
pub mod flag {
    pub const WRECKED: u8 = 1 << 0;
    /// Sunk: only with WRECKED; the copy looks intact and never explodes.
    pub const DROWNED: u8 = 1 << 1;
    /// A train faces along the track (clockwise); trains only.
    pub const ALONG_TRACK: u8 = 1 << 2;
    /// A train is derailed; trains only.
    pub const DERAILED: u8 = 1 << 3;
    pub const ALL: u8 = (1 << 4) - 1;
    pub const TRAIN: u8 = ALONG_TRACK | DERAILED;
}

packet! {
    /// VehicleSync (0x36), Server → Client: show (`active` = 1) or hide (`active` = 0, all
    /// fields but `vehicle_id` zeroed placeholders) on the reliable stream.
    pub struct VehicleSync = 0x36, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        /// Show, or hide.
        pub active: bool,
        /// 400..=611.
        pub model: u16,
        /// World spawn position.
        pub pos: Vec3,
        /// Spawn heading, degrees; a train ignores it.
        pub heading: f32,
        /// 0..=127.
        pub color1: u8,
        /// 0..=127.
        pub color2: u8,
        /// The last health accepted from the controlling player, 0 for a wreck.
        pub health: f32,
        /// [`flag`] bits.
        pub flags: u8,
        pub epoch: VehicleEpoch,
        /// Doors only 0, 2 or 4.
        pub damage: VehicleDamageStatus,
        /// [`param`](super::params::param) bits, as in VehicleParams.
        pub params: u16,
        /// Doors open by the last command, [`door`] bits.
        pub doors: u8,
        /// The vehicle's relay serial at the show; 0 on a hide.
        pub relay_seq: Seq,
        pub health_rev: Revision,
        pub damage_rev: Revision,
        /// The vehicle towing this one, [`VehicleId::NONE`] if not hitched.
        pub tractor_id: VehicleId,
        /// The helicopter whose winch carries this one, [`VehicleId::NONE`] if none.
        pub lifter_id: VehicleId,
        /// The moving part at `relay_seq`, as VehicleState.part; 0 on a hide.
        pub part: u16,
        pub siren_rev: Revision,
        pub pose_rev: Revision,
    }
}

impl VehicleSync {
    /// A hide of `vehicle_id`: every other field zero.
    pub fn hide(event_id: EventId, vehicle_id: VehicleId) -> Self {
        VehicleSync {
            event_id,
            vehicle_id,
            active: false,
            model: 0,
            pos: Vec3::ZERO,
            heading: 0.0,
            color1: 0,
            color2: 0,
            health: 0.0,
            flags: 0,
            epoch: VehicleEpoch(0),
            damage: VehicleDamageStatus::INTACT,
            params: 0,
            doors: 0,
            relay_seq: Seq(0),
            health_rev: Revision(0),
            damage_rev: Revision(0),
            tractor_id: VehicleId(0),
            lifter_id: VehicleId(0),
            part: 0,
            siren_rev: Revision(0),
            pose_rev: Revision(0),
        }
    }

    /// Whether the model is a locomotive.
    pub fn is_train(&self) -> bool {
        TRAIN_MODELS.contains(&self.model)
    }

    /// A hide's placeholders: each field zero, bit-exact for floats (-0.0 is not zero).
    fn check_placeholders(&self) -> Result<(), FieldError> {
        let zero = |v: f32| v.to_bits() == 0;
        let fields = [
            ("model", self.model == 0),
            (
                "pos",
                zero(self.pos.x) && zero(self.pos.y) && zero(self.pos.z),
            ),
            ("heading", zero(self.heading)),
            ("color1", self.color1 == 0),
            ("color2", self.color2 == 0),
            ("health", zero(self.health)),
            ("flags", self.flags == 0),
            ("epoch", self.epoch.0 == 0),
            ("damage", self.damage == VehicleDamageStatus::INTACT),
            ("params", self.params == 0),
            ("doors", self.doors == 0),
            ("relay_seq", self.relay_seq.0 == 0),
            ("health_rev", self.health_rev.0 == 0),
            ("damage_rev", self.damage_rev.0 == 0),
            ("tractor_id", self.tractor_id.0 == 0),
            ("lifter_id", self.lifter_id.0 == 0),
            ("part", self.part == 0),
            ("siren_rev", self.siren_rev.0 == 0),
            ("pose_rev", self.pose_rev.0 == 0),
        ];
        fields
            .into_iter()
            .try_for_each(|(field, ok)| check::ensure(ok, field, Rule::Reserved))
    }
}

impl Validate for VehicleSync {
    fn validate(&self) -> Result<(), FieldError> {
        if !self.active {
            return self.check_placeholders();
        }
        check::range("model", self.model, MODELS)?;
        check::range("color1", self.color1, 0..=MAX_COLOR)?;
        check::range("color2", self.color2, 0..=MAX_COLOR)?;
        check::bits_within("flags", self.flags, flag::ALL)?;
        check::ensure(
            self.flags & flag::DROWNED == 0 || self.flags & flag::WRECKED != 0,
            "flags",
            Rule::Combination,
        )?;
        check::ensure(
            self.flags & flag::TRAIN == 0 || self.is_train(),
            "flags",
            Rule::Combination,
        )?;
        self.damage.check_sent_doors()?;
        check_params("params", self.params)?;
        check::bits_within("doors", self.doors, door::ALL)
    }
}
