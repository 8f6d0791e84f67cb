//! On-foot sync (player.md, PlayerSync and RemotePlayerSync): the 102-byte Frame both
//! directions carry, the owner's frame and the server's relay of it.
//!
//! The two directions share the layout but not the rules: the server clamps or maps much
//! of what an owner sends (hp, armor, vel, keys, state, jet_*), and the relay carries only
//! the clamped and mapped values (the relay table of "Fields").

use super::action::SpecialAction;
use crate::check;
use crate::error::{FieldError, Rule};
use crate::geometry::Vec3;
use crate::ids::{PlayerId, PlayerToken, Revision, Seq, SessionToken};
use crate::wire::{Validate, Wire};
use crate::{packet, wire_enum, wire_newtype, wire_struct};

wire_newtype! {
    /// Frame.keys: bit i is set while the key of action i is pressed ("The keys bitmask").
    /// Bits 9..15 are unused; the server keeps only [`Keys::KNOWN`].
    pub struct Keys(u16);
}

impl Keys {
    pub const FORWARD: Keys = Keys(1 << 0);
    pub const BACKWARD: Keys = Keys(1 << 1);
    pub const LEFT: Keys = Keys(1 << 2);
    pub const RIGHT: Keys = Keys(1 << 3);
    pub const SPRINT: Keys = Keys(1 << 4);
    pub const JUMP: Keys = Keys(1 << 5);
    /// Sneak / walk.
    pub const SNEAK: Keys = Keys(1 << 6);
    pub const FIRE: Keys = Keys(1 << 7);
    /// Set while the sender actually aims (also a passenger's drive-by).
    pub const AIM: Keys = Keys(1 << 8);
    /// Bits 0..8, the keys the protocol names.
    pub const KNOWN: Keys = Keys(0x01FF);
    pub const NONE: Keys = Keys(0);

    /// Whether every key of `keys` is pressed.
    pub fn contains(self, keys: Keys) -> bool {
        self.0 & keys.0 == keys.0
    }

    /// Only the named keys (bits 0..8), as the server keeps them.
    #[must_use]
    pub fn known(self) -> Keys {
        Keys(self.0 & Self::KNOWN.0)
    }
}

impl core::ops::BitOr for Keys {
    type Output = Keys;
    fn bitor(self, rhs: Keys) -> Keys {
        Keys(self.0 | rhs.0)
    }
}

wire_enum! {
    /// Frame.move_state: the sender's actual speed band, fatigue included.
    #[derive(Default)]
    pub enum MoveState: u8 {
        #[default]
        Unset = 0,
        Still = 1,
        Walk = 4,
        Jog = 5,
        Run = 6,
        Sprint = 7,
    }
}

wire_enum! {
    /// Frame.state: the held weapon's state. The owner's byte is a plain `u8`: the server
    /// takes any value and relays one above 4 as [`WeaponState::Ready`].
    #[derive(Default)]
    pub enum WeaponState: u8 {
        #[default]
        Ready = 0,
        Firing = 1,
        Reloading = 2,
        OutOfAmmo = 3,
        /// A melee hit landing.
        MeleeHit = 4,
    }
}

impl WeaponState {
    /// The relay's mapping: a value above 4 becomes 0.
    pub fn from_wire(v: u8) -> WeaponState {
        WeaponState::from_repr(v).unwrap_or_default()
    }
}

wire_enum! {
    /// Frame.parachute_stage. The byte is a plain `u8` in the Frame: the server drops an
    /// owner's frame above 3, but a receiver of the relay treats a value above 3 as 0.
    #[derive(Default)]
    pub enum ParachuteStage: u8 {
        #[default]
        None = 0,
        Skydive = 1,
        Open = 2,
        Canopy = 3,
    }
}

impl ParachuteStage {
    /// A receiver's reading: a value above 3 is [`ParachuteStage::None`].
    pub fn from_wire(v: u8) -> ParachuteStage {
        ParachuteStage::from_repr(v).unwrap_or_default()
    }
}

/// |x| and |y| of a frame's position inside the world, in units.
pub const WORLD_XY: f32 = 6000.0;
/// The lowest z inside the world.
pub const WORLD_MIN_Z: f32 = -200.0;
/// The highest z inside the world.
pub const WORLD_MAX_Z: f32 = 4000.0;
/// Frame.aim_target without a target, and the relay's constant value.
pub const NO_AIM_TARGET: u16 = 0xFFFF;
/// The relay's velocity cap, units per step (250 m/s).
pub const MAX_RELAY_VEL: f32 = 5.0;
/// Rounding slack on [`MAX_RELAY_VEL`]: a vector scaled to length 5 in f32 may measure a
/// few ulps more.
const VEL_SLACK: f32 = 1e-4;
/// Highest hp and armor the ledger holds (connection.md §6).
pub const MAX_VITAL: f32 = 200.0;
/// Highest weapon type an inventory holds (connection.md §6, GiveWeapon).
pub const MAX_WEAPON: u8 = 46;
/// |jet_strafe| in the relay.
pub const MAX_JET_STRAFE: f32 = 3.0;
/// |jet_angle| in the relay, radians.
pub const MAX_JET_ANGLE: f32 = 1.5;
/// |gravity| of RemotePlayerSync, units per step².
pub const MAX_GRAVITY: f32 = 0.1;

wire_struct! {
    /// The Frame (player.md, PlayerSync): 102 bytes, the same layout in PlayerSync and
    /// RemotePlayerSync. Rules common to both directions live here; each packet adds its
    /// own.
    #[derive(Copy)]
    pub struct Frame {
        /// World position (`x`, `y`, `z`).
        pub pos: Vec3,
        /// Body heading, degrees.
        pub yaw: f32,
        pub keys: Keys,
        /// Crouched: a pose, not a key.
        pub ducked: bool,
        /// Aim direction (`cam_x..z`), a unit world vector.
        pub cam: Vec3,
        /// Body velocity (`vel_x..z`), units per physics step (50 steps per second).
        pub vel: Vec3,
        /// Animation-driven displacement in the body's frame: strafe.
        pub shift_x: f32,
        /// Animation-driven displacement in the body's frame: forward.
        pub shift_y: f32,
        pub move_state: MoveState,
        /// Standing on ground; 0 in the air.
        pub on_ground: bool,
        pub hp: f32,
        pub armor: f32,
        pub alive: bool,
        /// Life generation within the connection, incremented on respawn.
        pub death_epoch: u16,
        /// Held weapon type, 0 unarmed.
        pub weapon: u8,
        /// Weapon state; see [`WeaponState::from_wire`] and [`Frame::weapon_state`].
        pub state: u8,
        /// Rounds in the clip.
        pub clip: u16,
        /// Total rounds of the held weapon.
        pub total: u16,
        /// Camera orientation the on-foot movement is relative to, radians.
        pub cam_yaw: f32,
        /// Last applied inventory revision.
        pub weapon_rev: Revision,
        /// See [`ParachuteStage::from_wire`] and [`Frame::parachute`].
        pub parachute_stage: u8,
        /// The sender's game menu is open.
        pub paused: bool,
        pub on_fire: bool,
        pub special_action: SpecialAction,
        /// Last taken SetSpecialAction revision.
        pub special_rev: Revision,
        /// Jetpack thrust: -1 down, 0, 1 up; 0 without a jetpack.
        pub jet_thrust: i8,
        pub jet_stop: bool,
        /// Jetpack strafe, -3..3.
        pub jet_strafe: f32,
        /// Jetpack thrust angle, radians.
        pub jet_angle: f32,
        /// Player id under the sender's aim, [`NO_AIM_TARGET`] none.
        pub aim_target: u16,
        /// Last applied SetVelocity / SetGravity revision.
        pub physics_rev: Revision,
        /// Revision of the last health / armor command taken.
        pub vital_rev: Revision,
        /// Seq of the last DamageReport sent.
        pub damage_seq: Seq,
    }
}

const _: () = assert!(<Frame as Wire>::SIZE == 102);

impl Frame {
    /// A living, unarmed body standing still at `pos`, facing and aiming along +x, with
    /// nothing held, no revisions echoed and 100 health: the frame tests and benches
    /// start from.
    pub fn standing(pos: Vec3) -> Frame {
        Frame {
            pos,
            yaw: 90.0,
            keys: Keys::NONE,
            ducked: false,
            cam: Vec3::new(1.0, 0.0, 0.0),
            vel: Vec3::ZERO,
            shift_x: 0.0,
            shift_y: 0.0,
            move_state: MoveState::Still,
            on_ground: true,
            hp: 100.0,
            armor: 0.0,
            alive: true,
            death_epoch: 0,
            weapon: 0,
            state: 0,
            clip: 0,
            total: 0,
            cam_yaw: 0.0,
            weapon_rev: Revision(0),
            parachute_stage: 0,
            paused: false,
            on_fire: false,
            special_action: SpecialAction::None,
            special_rev: Revision(0),
            jet_thrust: 0,
            jet_stop: false,
            jet_strafe: 0.0,
            jet_angle: 0.0,
            aim_target: 0xFFFF,
            physics_rev: Revision(0),
            vital_rev: Revision(0),
            damage_seq: Seq(0),
        }
    }

    pub fn weapon_state(&self) -> WeaponState {
        WeaponState::from_wire(self.state)
    }

    pub fn parachute(&self) -> ParachuteStage {
        ParachuteStage::from_wire(self.parachute_stage)
    }
}

impl Validate for Frame {
    // Inlined (also this packet's) so that a decoder checks the frame where it builds it
    // instead of copying it out of a temporary: half the cost of decoding PlayerSync.
    #[inline]
    fn validate(&self) -> Result<(), FieldError> {
        // An owner's thrust outside -1..=1 drops the frame; the relay carries an accepted
        // one or 0.
        check::range("jet_thrust", self.jet_thrust, -1..=1)
    }
}

/// Bit-exact 0.0: the relay's "0" placeholders (-0.0 is not it).
fn is_zero(v: f32) -> bool {
    v.to_bits() == 0
}

packet! {
    /// PlayerSync (0x03, player.md), unreliable: the owner's movement, input and observed
    /// state. The server clamps hp, armor, vel and jet_strafe / jet_angle, masks keys to
    /// bits 0..8 and maps state above 4 to 0, so those decode as sent.
    pub struct PlayerSync = 0x03, ClientToServer {
        pub session_token: SessionToken,
        /// Monotonic per connection; stale and out-of-order frames are dropped.
        pub seq: Seq,
        pub frame: Frame,
    }
}

impl Validate for PlayerSync {
    #[inline]
    fn validate(&self) -> Result<(), FieldError> {
        // "A frame is dropped if its position is outside the world, parachute_stage > 3,
        // special_action > 8 (the enum) or jet_thrust outside -1..=1 (the Frame)."
        let f = &self.frame;
        check::range("x", f.pos.x, -WORLD_XY..=WORLD_XY)?;
        check::range("y", f.pos.y, -WORLD_XY..=WORLD_XY)?;
        check::range("z", f.pos.z, WORLD_MIN_Z..=WORLD_MAX_Z)?;
        check::ensure(
            ParachuteStage::from_repr(f.parachute_stage).is_some(),
            "parachute_stage",
            Rule::UnknownValue(u64::from(f.parachute_stage)),
        )
    }
}

packet! {
    /// RemotePlayerSync (0x04, player.md), unreliable: a player's frame relayed to the
    /// players it is shown to, with the server-owned appearance, styles, relation and
    /// gravity. The Frame holds the relay values of the "Fields" table.
    pub struct RemotePlayerSync = 0x04, ServerToClient {
        pub player_id: PlayerId,
        /// The sender's generation.
        pub player_token: PlayerToken,
        /// Relayed from PlayerSync.
        pub seq: Seq,
        pub frame: Frame,
        /// The player's model id.
        pub skin: u32,
        /// Appearance variation, >= 1 (SetSkin: 0 is never sent).
        pub variant: u16,
        /// SetWalkingStyle; a receiver skips an unknown one on apply, so any byte decodes.
        pub walk_style: u8,
        /// SetFightingStyle; a receiver skips an unknown one on apply, so any byte decodes.
        pub fight_style: u8,
        pub headless: bool,
        /// The sender's damage group, 0 none (connection.md §6).
        pub damage_group: u32,
        pub relation_rev: u32,
        /// The sender is a teammate of this recipient: equal groups, not 0.
        pub teammate: bool,
        /// The sender's body gravity, units per step², |g| <= 0.1.
        pub gravity: f32,
    }
}

impl Validate for RemotePlayerSync {
    fn validate(&self) -> Result<(), FieldError> {
        let f = &self.frame;
        check::ensure(self.player_token.0 != 0, "player_token", Rule::OutOfRange)?;
        // The server keeps and relays bits 0..8 only, and no keys while paused.
        check::bits_within("keys", f.keys.0, Keys::KNOWN.0)?;
        check::ensure(!f.paused || f.keys == Keys::NONE, "keys", Rule::Combination)?;
        check::ensure(
            f.vel.length() <= MAX_RELAY_VEL + VEL_SLACK,
            "vel",
            Rule::OutOfRange,
        )?;
        // The ledger's values; never a lethal hp while the server holds the player alive.
        check::range("hp", f.hp, 0.0..=MAX_VITAL)?;
        check::range("armor", f.armor, 0.0..=MAX_VITAL)?;
        check::ensure(!f.alive || f.hp > 0.0, "hp", Rule::Combination)?;
        check::range("weapon", f.weapon, 0..=MAX_WEAPON)?;
        check::ensure(
            WeaponState::from_repr(f.state).is_some(),
            "state",
            Rule::UnknownValue(u64::from(f.state)),
        )?;
        if f.special_action == SpecialAction::Jetpack {
            check::range("jet_strafe", f.jet_strafe, -MAX_JET_STRAFE..=MAX_JET_STRAFE)?;
            check::range("jet_angle", f.jet_angle, -MAX_JET_ANGLE..=MAX_JET_ANGLE)?;
        } else {
            check::ensure(f.jet_thrust == 0, "jet_thrust", Rule::Reserved)?;
            check::ensure(!f.jet_stop, "jet_stop", Rule::Reserved)?;
            check::ensure(is_zero(f.jet_strafe), "jet_strafe", Rule::Reserved)?;
            check::ensure(is_zero(f.jet_angle), "jet_angle", Rule::Reserved)?;
        }
        check::ensure(f.aim_target == NO_AIM_TARGET, "aim_target", Rule::Reserved)?;
        check::ensure(f.physics_rev.0 == 0, "physics_rev", Rule::Reserved)?;
        check::ensure(f.vital_rev.0 == 0, "vital_rev", Rule::Reserved)?;
        check::ensure(f.damage_seq.0 == 0, "damage_seq", Rule::Reserved)?;
        check::ensure(self.variant >= 1, "variant", Rule::OutOfRange)?;
        check::ensure(
            !self.teammate || self.damage_group != 0,
            "teammate",
            Rule::Combination,
        )?;
        check::range("gravity", self.gravity, -MAX_GRAVITY..=MAX_GRAVITY)
    }
}
