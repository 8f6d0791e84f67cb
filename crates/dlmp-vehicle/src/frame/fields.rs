//! The field rules of an accepted VehicleFrame (vehicles.md, VehicleFrame "Field rules",
//! "Siren", "Nitro and hydraulics"): the server rewrites the state before the relay and
//! keeps what it relayed ([`HeldFields`]). I/O-free: [`rewrite`] takes the frame's state,
//! the vehicle's facts ([`FieldInputs`]) and the server's held fields, and says what else
//! changed ([`FieldOutcome`]). Decisions: docs/decisions/0056-vehicle-frames.md.

use std::time::Duration;

use bevy_ecs::prelude::*;

use super::accept::Role;
use dlmp_core::session::{RateLimit, TokenBucket};
use dlmp_protocol::ids::Revision;
use dlmp_protocol::vehicle::state::{VehicleState, flag};
use dlmp_protocol::vehicle::sync::TRAIN_MODELS;

/// Firetruck and SWAT: the models with a water cannon.
pub const WATER_CANNON_MODELS: [u16; 2] = [407, 601];
/// Rhino, Firetruck and SWAT: the models with a turret.
pub const TURRET_MODELS: [u16; 3] = [432, 407, 601];
/// The police Maverick, the one model with a searchlight.
pub const SEARCHLIGHT_MODEL: u16 = 497;
/// Tow truck and tractor: the boom moves for any controlling player.
pub const BOOM_MODELS: [u16; 2] = [525, 531];
/// A winch rope is wound in at most this far.
pub const ROPE_MAX: f32 = 0.84;
/// A train derails only at this speed along the track (this or the previous frame's).
pub const DERAIL_SPEED: f32 = 0.9;
/// A charge lights no earlier than this after the previous one burnt out.
pub const NITRO_REFILL: Duration = Duration::from_secs(18);
/// A charge counts as burnt out this long after it was lit.
pub const NITRO_BURN: Duration = Duration::from_secs(25);
/// Unused movement time of a rated part the server banks (the page's "half a second of
/// margin").
pub const PART_MARGIN: Duration = Duration::from_millis(500);
/// A pilot's siren switches: 2 at once, 4 a second, over all its vehicles.
pub const SIREN_SWITCHES: RateLimit = RateLimit::per_second(2, 4);

/// How a model's moving part moves: its largest value and, for the parts the game moves
/// at a fixed rate, the rates up and down (units a second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartRule {
    pub max: u16,
    pub rates: Option<(f32, f32)>,
}

/// The part rule of `model`: Hydra ≤ 5000; tow truck and tractor ≤ 20000; Dumper, Packer,
/// Dozer and Andromada ≤ 2500 at 500 a second; the Forklift's forks ≤ 2500 at 500 up and
/// 1000 down; every other model 0.
pub fn part_rule(model: u16) -> PartRule {
    let (max, rates) = match model {
        520 => (5000, None),
        525 | 531 => (20_000, None),
        406 | 443 | 486 | 592 => (2500, Some((500.0, 500.0))),
        530 => (2500, Some((500.0, 1000.0))),
        _ => (0, None),
    };
    PartRule { max, rates }
}

/// Whether `model` is a locomotive (a whole train).
pub fn is_train(model: u16) -> bool {
    TRAIN_MODELS.contains(&model)
}

/// What the rules remember of a vehicle between frames beyond its own components
/// ([`ServerFields`]): the part's target and banked time, the searchlight, the rerail,
/// the train's speed, the nitro and hydraulics tuning with their state. A respawn resets
/// it (a new life) but for the tuning parts, which are kept.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct HeldFields {
    /// The pilot's last value of a rated part, which the server's part moves toward.
    pub part_target: u16,
    /// Banked movement time of a rated part, at most [`PART_MARGIN`].
    part_credit: Duration,
    /// When the part's movement was last paid.
    part_at: Option<Duration>,
    pub searchlight: bool,
    /// The gamemode put the train back on its rails since the last frame without the
    /// derailed bit: the bit does not derail it again until such a frame.
    pub rerailed: bool,
    /// The train's speed along the track by the last frame taken while on its rails.
    pub rail_speed: f32,
    /// Nitro tuning (part 1008..=1010) is installed.
    pub nitro_part: bool,
    /// Charges left (VehicleTuning.nitro).
    pub nitro_charges: u8,
    /// The nitro level the server relayed.
    pub nitro: f32,
    /// When the burning charge was lit.
    burning_since: Option<Duration>,
    /// When the last charge burnt out.
    burnt_out_at: Option<Duration>,
    /// Hydraulics tuning (part 1087) is installed.
    pub hydraulics_part: bool,
    /// The hydraulics state the server relayed.
    pub hydraulics: u16,
}

impl Default for HeldFields {
    fn default() -> Self {
        HeldFields {
            part_target: 0,
            part_credit: PART_MARGIN,
            part_at: None,
            searchlight: false,
            rerailed: false,
            rail_speed: 0.0,
            nitro_part: false,
            nitro_charges: 0,
            nitro: 1.0,
            burning_since: None,
            burnt_out_at: None,
            hydraulics_part: false,
            hydraulics: 0,
        }
    }
}

impl HeldFields {
    /// A respawn: a new life (the searchlight off, nitro refilled); the tuning parts stay.
    /// `charges` are the installed part's full charges.
    pub fn respawn(&mut self, charges: u8) {
        *self = HeldFields {
            nitro_part: self.nitro_part,
            nitro_charges: if self.nitro_part { charges } else { 0 },
            hydraulics_part: self.hydraulics_part,
            ..HeldFields::default()
        };
    }

    /// The gamemode put the train back on its rails (with `Train::derailed` cleared).
    pub fn rerail(&mut self) {
        self.rerailed = true;
    }

    /// Whether a charge burns now.
    pub fn nitro_burning(&self) -> bool {
        self.burning_since.is_some()
    }

    /// The gamemode's nitro (VehicleTuning): `Some(charges)` installs the part with that many
    /// charges, a full tank that lights at once; `None` removes it. Either way no charge
    /// burns any more.
    pub fn set_nitro(&mut self, charges: Option<u8>) {
        self.nitro_part = charges.is_some();
        self.nitro_charges = charges.unwrap_or(0);
        self.nitro = 1.0;
        self.burning_since = None;
        self.burnt_out_at = None;
    }

    /// A burning charge counts as burnt out [`NITRO_BURN`] after it was lit, with or without
    /// a frame; the last one's burn-out removes the part (`nitro_removed`).
    pub fn expire_nitro(&mut self, now: Duration) -> FieldOutcome {
        let mut outcome = FieldOutcome::default();
        if let Some(lit) = self.burning_since
            && now.saturating_sub(lit) >= NITRO_BURN
        {
            burn_out(self, lit + NITRO_BURN, &mut outcome);
            self.nitro = 0.0;
        }
        outcome
    }
}

/// The server's values the rules read and write that live in the vehicle's components:
/// [`Part`](crate::Part), the siren bits and the winch of
/// [`Params`](crate::Params), [`Train::derailed`](crate::Train).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerFields {
    /// The moving part the server relayed (a VehicleSync show carries it).
    pub part: u16,
    /// The siren is on (VehicleParams bit6).
    pub siren: bool,
    /// The vehicle has a siren (bit8).
    pub has_siren: bool,
    /// The helicopter has a winch (bit3 or bit4).
    pub winch: bool,
    /// The train is derailed.
    pub derailed: bool,
}

/// What [`rewrite`] needs to know of the vehicle and the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldInputs {
    pub model: u16,
    pub role: Role,
    /// Seat 0 holds a player (paused or not).
    pub has_driver: bool,
    pub wrecked: bool,
    /// The server's siren revision (VehicleParams.siren_rev).
    pub siren_rev: Revision,
    pub now: Duration,
}

/// What else an accepted frame changed, for the plugin to announce.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldOutcome {
    /// The siren switched (VehicleParams to the vehicle's viewers).
    pub siren_switched: bool,
    /// A nitro charge was spent (VehicleTuning).
    pub nitro_spent: bool,
    /// The last charge burnt out and the nitro is removed (VehicleTuning).
    pub nitro_removed: bool,
    /// The driver derailed the train (TrainState to its viewers).
    pub derailed: bool,
}

/// Rewrites `state` by the field rules, in place, against the server's values (`server`
/// and `held` take the new ones). `siren_budget` is the pilot's switch limit over all
/// its vehicles.
pub fn rewrite(
    state: &mut VehicleState,
    inputs: &FieldInputs,
    server: &mut ServerFields,
    held: &mut HeldFields,
    siren_budget: &mut TokenBucket,
) -> FieldOutcome {
    let mut outcome = FieldOutcome::default();
    let model = inputs.model;
    let pilot = inputs.role.is_live_pilot();
    let live = pilot && !inputs.wrecked;

    state.flags &= flag::DEFINED;
    if !WATER_CANNON_MODELS.contains(&model) {
        state.flags &= !flag::WATER_CANNON;
    }
    if !TURRET_MODELS.contains(&model) {
        state.turret_yaw = 0.0;
        state.turret_pitch = 0.0;
    }

    state.part = move_part(state.part, inputs, &mut server.part, held);

    // Searchlight: 497 only, switched by a live pilot; off without a pilot.
    if model != SEARCHLIGHT_MODEL {
        held.searchlight = false;
    } else if pilot {
        held.searchlight = state.flags & flag::SEARCHLIGHT != 0;
    } else if !inputs.has_driver {
        held.searchlight = false;
    }
    set_flag(&mut state.flags, flag::SEARCHLIGHT, held.searchlight);

    state.rope = if server.winch {
        state.rope.min(ROPE_MAX)
    } else {
        0.0
    };

    outcome.derailed = train(state, inputs, &mut server.derailed, held);

    // Siren: a live pilot with the current revision switches it, within its budget.
    let wants = state.flags & flag::SIREN != 0;
    if server.has_siren
        && pilot
        && state.siren_rev == inputs.siren_rev
        && wants != server.siren
        && siren_budget.try_take(inputs.now)
    {
        server.siren = wants;
        outcome.siren_switched = true;
    }
    set_flag(
        &mut state.flags,
        flag::SIREN,
        server.has_siren && server.siren,
    );
    state.siren_rev = inputs.siren_rev;

    nitro(state, inputs, live, held, &mut outcome);

    if held.hydraulics_part && live {
        held.hydraulics = state.hydraulics;
    } else {
        if !held.hydraulics_part {
            held.hydraulics = 0;
        }
        state.hydraulics = held.hydraulics;
        state.hydraulic_lr = 0;
        state.hydraulic_ud = 0;
    }
    outcome
}

fn set_flag(flags: &mut u8, bit: u8, on: bool) {
    if on {
        *flags |= bit;
    } else {
        *flags &= !bit;
    }
}

/// The part the relay carries: clamped per model; set by a live pilot (the boom by any
/// controller); a rated part moves toward the pilot's last value at the game's rates.
fn move_part(frame: u16, inputs: &FieldInputs, part: &mut u16, held: &mut HeldFields) -> u16 {
    let rule = part_rule(inputs.model);
    let wanted = frame.min(rule.max);
    let elapsed = held
        .part_at
        .map_or(PART_MARGIN, |t| inputs.now.saturating_sub(t));
    held.part_at = Some(inputs.now);
    held.part_credit = (held.part_credit + elapsed).min(PART_MARGIN);
    let Some((up, down)) = rule.rates else {
        if rule.max == 0 {
            *part = 0;
        } else if inputs.role.is_live_pilot() || BOOM_MODELS.contains(&inputs.model) {
            *part = wanted;
        }
        held.part_target = *part;
        return *part;
    };
    if inputs.role.is_live_pilot() {
        held.part_target = wanted;
    }
    let (from, to) = (f32::from(*part), f32::from(held.part_target));
    let rate = if to >= from { up } else { down };
    let reach = rate * held.part_credit.as_secs_f32();
    let step = (to - from).abs().min(reach);
    held.part_credit = held
        .part_credit
        .saturating_sub(Duration::from_secs_f32(step / rate));
    let moved = if to >= from { from + step } else { from - step };
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "between two u16 values"
    )]
    let next = moved.round().clamp(0.0, f32::from(rule.max)) as u16;
    *part = next;
    next
}

/// The train fields: zeroed on other models; on a train the derailed bit derails only a
/// live driver's train at speed, not after the gamemode put it back on its rails until a
/// frame without the bit; the relay carries the server's bit. True if this frame derailed
/// it.
fn train(
    state: &mut VehicleState,
    inputs: &FieldInputs,
    derailed: &mut bool,
    held: &mut HeldFields,
) -> bool {
    if !is_train(inputs.model) {
        state.rail = 0.0;
        state.rail_speed = 0.0;
        state.track = 0;
        state.flags &= !flag::TRAIN_DERAILED;
        return false;
    }
    let bit = state.flags & flag::TRAIN_DERAILED != 0;
    if !bit {
        held.rerailed = false;
    }
    let fast = state.rail_speed.abs() >= DERAIL_SPEED || held.rail_speed.abs() >= DERAIL_SPEED;
    let derails = bit && !*derailed && !held.rerailed && inputs.role.is_live_pilot() && fast;
    if derails {
        *derailed = true;
    }
    if !*derailed {
        held.rail_speed = state.rail_speed;
    }
    set_flag(&mut state.flags, flag::TRAIN_DERAILED, *derailed);
    derails
}

/// Nitro: 1 without the part; a live pilot of an intact vehicle lights a charge by a frame
/// turning to burning, which spends it; without charges or within [`NITRO_REFILL`] of the
/// last burn-out the frame's level is not taken (the previous one is relayed). A charge
/// burns out when the level leaves burning or [`NITRO_BURN`] after it was lit; the last
/// one's burn-out removes the part.
fn nitro(
    state: &mut VehicleState,
    inputs: &FieldInputs,
    live: bool,
    held: &mut HeldFields,
    outcome: &mut FieldOutcome,
) {
    let now = inputs.now;
    outcome.nitro_removed |= held.expire_nitro(now).nitro_removed;
    if !held.nitro_part {
        state.nitro = 1.0;
        held.nitro = 1.0;
        return;
    }
    let level = state.nitro.clamp(-1.0, 1.0);
    if level >= 0.0 {
        if held.burning_since.is_some() {
            burn_out(held, now, outcome);
        }
        held.nitro = level;
    } else if held.burning_since.is_some() {
        held.nitro = level;
    } else if live
        && held.nitro_charges > 0
        && held
            .burnt_out_at
            .is_none_or(|t| now.saturating_sub(t) >= NITRO_REFILL)
    {
        held.nitro_charges -= 1;
        held.burning_since = Some(now);
        held.nitro = level;
        outcome.nitro_spent = true;
    }
    state.nitro = held.nitro;
}

fn burn_out(held: &mut HeldFields, at: Duration, outcome: &mut FieldOutcome) {
    held.burning_since = None;
    held.burnt_out_at = Some(at);
    if held.nitro_charges == 0 && held.nitro_part {
        held.nitro_part = false;
        outcome.nitro_removed = true;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use rstest::rstest;

    use super::*;
    use dlmp_protocol::geometry::Vec3;

    pub(crate) fn state() -> VehicleState {
        VehicleState::at_rest(Vec3::ZERO)
    }

    const PILOT: Role = Role::Driver { live: true };
    const PAUSED: Role = Role::Driver { live: false };

    fn inputs(model: u16, role: Role, ms: u64) -> FieldInputs {
        FieldInputs {
            model,
            role,
            has_driver: role != Role::Syncer,
            wrecked: false,
            siren_rev: Revision(0),
            now: Duration::from_millis(ms),
        }
    }

    /// A vehicle's server values and rule memory.
    #[derive(Default)]
    struct Both {
        s: ServerFields,
        h: HeldFields,
    }

    impl Both {
        fn of(h: HeldFields) -> Self {
            Both {
                s: ServerFields::default(),
                h,
            }
        }
    }

    impl std::ops::Deref for Both {
        type Target = HeldFields;
        fn deref(&self) -> &HeldFields {
            &self.h
        }
    }

    impl std::ops::DerefMut for Both {
        fn deref_mut(&mut self) -> &mut HeldFields {
            &mut self.h
        }
    }

    fn run(s: VehicleState, i: &FieldInputs, held: &mut Both) -> VehicleState {
        let mut s = s;
        let mut budget = TokenBucket::new(SIREN_SWITCHES, Duration::ZERO);
        rewrite(&mut s, i, &mut held.s, &mut held.h, &mut budget);
        s
    }

    #[rstest]
    #[case::undefined_bit_cleared(411, 0x80 | flag::HORN, flag::HORN)]
    #[case::water_cannon_on_a_firetruck(407, flag::WATER_CANNON, flag::WATER_CANNON)]
    #[case::water_cannon_on_swat(601, flag::WATER_CANNON, flag::WATER_CANNON)]
    #[case::water_cannon_elsewhere(432, flag::WATER_CANNON, 0)]
    #[case::searchlight_on_the_maverick(497, flag::SEARCHLIGHT, flag::SEARCHLIGHT)]
    #[case::searchlight_elsewhere(487, flag::SEARCHLIGHT, 0)]
    #[case::derailed_bit_on_a_car(411, flag::TRAIN_DERAILED, 0)]
    #[case::siren_without_a_siren(411, flag::SIREN, 0)]
    fn flags_by_model(#[case] model: u16, #[case] sent: u8, #[case] relayed: u8) {
        let s = VehicleState {
            flags: sent,
            ..state()
        };
        let out = run(s, &inputs(model, PILOT, 0), &mut Both::default());
        assert_eq!(out.flags, relayed);
    }

    #[rstest]
    #[case::rhino(432, true)]
    #[case::firetruck(407, true)]
    #[case::swat(601, true)]
    #[case::a_car(411, false)]
    fn turret_by_model(#[case] model: u16, #[case] kept: bool) {
        let s = VehicleState {
            turret_yaw: 1.0,
            turret_pitch: -0.5,
            ..state()
        };
        let out = run(s, &inputs(model, PILOT, 0), &mut Both::default());
        assert_eq!((out.turret_yaw, out.turret_pitch) != (0.0, 0.0), kept);
    }

    #[rstest]
    #[case::hydra(520, 9000, 5000)]
    #[case::hydra_within(520, 4000, 4000)]
    #[case::tow_truck(525, 20_000, 20_000)]
    #[case::tractor(531, 15_000, 15_000)]
    #[case::other_model(411, 300, 0)]
    fn part_clamps_per_model(#[case] model: u16, #[case] sent: u16, #[case] relayed: u16) {
        let s = VehicleState {
            part: sent,
            ..state()
        };
        assert_eq!(
            run(s, &inputs(model, PILOT, 0), &mut Both::default()).part,
            relayed
        );
    }

    #[rstest]
    #[case::hydra_syncer(520, Role::Syncer, 0)]
    #[case::hydra_paused_pilot(520, PAUSED, 0)]
    #[case::boom_for_a_syncer(525, Role::Syncer, 3000)]
    #[case::boom_for_a_paused_pilot(531, PAUSED, 3000)]
    fn who_moves_the_part(#[case] model: u16, #[case] role: Role, #[case] relayed: u16) {
        let s = VehicleState {
            part: 3000,
            ..state()
        };
        assert_eq!(
            run(s, &inputs(model, role, 0), &mut Both::default()).part,
            relayed
        );
    }

    #[rstest]
    #[case::dumper(406, 500.0, 500.0)]
    #[case::packer(443, 500.0, 500.0)]
    #[case::dozer(486, 500.0, 500.0)]
    #[case::andromada(592, 500.0, 500.0)]
    #[case::forklift(530, 500.0, 1000.0)]
    fn rated_parts_move_at_the_games_rate_with_half_a_second_of_margin(
        #[case] model: u16,
        #[case] up: f32,
        #[case] down: f32,
    ) {
        let mut held = Both::default();
        let raise = VehicleState {
            part: 2500,
            ..state()
        };
        // The margin: the first frame moves half a second's worth.
        assert_eq!(
            run(raise, &inputs(model, PILOT, 0), &mut held).part as f32,
            up * 0.5
        );
        // Then the rate: 100 ms later, 100 ms more.
        let part = run(raise, &inputs(model, PILOT, 100), &mut held).part as f32;
        assert_eq!(part, up * 0.6);
        // A syncer's frame catches up toward the pilot's value.
        let syncer = VehicleState { part: 0, ..state() };
        let part = run(syncer, &inputs(model, Role::Syncer, 200), &mut held).part as f32;
        assert_eq!(part, up * 0.7);
        // Down, after a rest long enough to bank the whole margin again.
        let mut held = Both::of(HeldFields {
            part_target: 2500,
            ..HeldFields::default()
        });
        held.s.part = 2500;
        let lower = VehicleState { part: 0, ..state() };
        let part = run(lower, &inputs(model, PILOT, 1000), &mut held).part as f32;
        assert_eq!(part, 2500.0 - (down * 0.5).min(2500.0));
    }

    #[rstest]
    #[case::pilot_switches(PILOT, true, false)]
    #[case::a_syncer_keeps_the_paused_pilots(Role::Syncer, true, true)]
    #[case::off_without_a_pilot(Role::Syncer, false, false)]
    fn searchlight(#[case] role: Role, #[case] has_driver: bool, #[case] relayed: bool) {
        let mut held = Both::of(HeldFields {
            searchlight: true,
            ..HeldFields::default()
        });
        let i = FieldInputs {
            has_driver,
            ..inputs(SEARCHLIGHT_MODEL, role, 0)
        };
        let out = run(state(), &i, &mut held);
        assert_eq!(out.flags & flag::SEARCHLIGHT != 0, relayed);
    }

    #[rstest]
    #[case::no_winch(false, 0.5, 0.0)]
    #[case::winch_within(true, 0.5, 0.5)]
    #[case::winch_clamped(true, 1.0, ROPE_MAX)]
    fn rope(#[case] winch: bool, #[case] sent: f32, #[case] relayed: f32) {
        let mut held = Both::default();
        held.s.winch = winch;
        let s = VehicleState {
            rope: sent,
            ..state()
        };
        assert_eq!(
            run(s, &inputs(487, Role::Syncer, 0), &mut held).rope,
            relayed
        );
    }

    #[test]
    fn train_fields_are_zeroed_on_other_models() {
        let s = VehicleState {
            rail: 500.0,
            rail_speed: 1.0,
            track: 2,
            ..state()
        };
        let out = run(s, &inputs(411, PILOT, 0), &mut Both::default());
        assert_eq!((out.rail, out.rail_speed, out.track), (0.0, 0.0, 0));
        let out = run(s, &inputs(537, PILOT, 0), &mut Both::default());
        assert_eq!((out.rail, out.rail_speed, out.track), (500.0, 1.0, 2));
    }

    fn derail_frame(speed: f32) -> VehicleState {
        VehicleState {
            rail_speed: speed,
            flags: flag::TRAIN_DERAILED,
            ..state()
        }
    }

    #[rstest]
    #[case::driver_at_speed(PILOT, 1.0, 0.0, true)]
    #[case::driver_after_a_fast_frame(PILOT, 0.2, 0.95, true)]
    #[case::driver_too_slow(PILOT, 0.5, 0.5, false)]
    #[case::paused_driver(PAUSED, 1.0, 1.0, false)]
    #[case::syncer_of_an_empty_train(Role::Syncer, 1.0, 1.0, false)]
    fn derailment(
        #[case] role: Role,
        #[case] speed: f32,
        #[case] before: f32,
        #[case] derails: bool,
    ) {
        let mut held = Both::of(HeldFields {
            rail_speed: before,
            ..HeldFields::default()
        });
        let mut out = derail_frame(speed);
        let mut budget = TokenBucket::new(SIREN_SWITCHES, Duration::ZERO);
        let outcome = rewrite(
            &mut out,
            &inputs(538, role, 0),
            &mut held.s,
            &mut held.h,
            &mut budget,
        );
        assert_eq!(held.s.derailed, derails);
        assert_eq!(outcome.derailed, derails, "announced once, by this frame");
        assert_eq!(
            out.flags & flag::TRAIN_DERAILED != 0,
            derails,
            "the relay carries the server's bit"
        );
    }

    #[test]
    fn a_frame_cannot_rerail_and_a_rerail_holds_until_a_frame_without_the_bit() {
        let mut held = Both::default();
        run(derail_frame(1.0), &inputs(537, PILOT, 0), &mut held);
        assert!(held.s.derailed);
        let out = run(state(), &inputs(537, PILOT, 20), &mut held);
        assert!(held.s.derailed && out.flags & flag::TRAIN_DERAILED != 0);
        held.rerail();
        held.s.derailed = false;
        run(derail_frame(1.0), &inputs(537, PILOT, 40), &mut held);
        assert!(!held.s.derailed, "the copy still shows the old derailment");
        run(
            VehicleState {
                rail_speed: 1.0,
                ..state()
            },
            &inputs(537, PILOT, 60),
            &mut held,
        );
        run(derail_frame(1.0), &inputs(537, PILOT, 80), &mut held);
        assert!(held.s.derailed);
    }

    fn siren_frame(on: bool, rev: u16) -> VehicleState {
        VehicleState {
            flags: if on { flag::SIREN } else { 0 },
            siren_rev: Revision(rev),
            ..state()
        }
    }

    #[rstest]
    #[case::pilot_with_the_revision(PILOT, 3, true)]
    #[case::pilot_before_the_command(PILOT, 2, false)]
    #[case::paused_pilot(PAUSED, 3, false)]
    #[case::syncer(Role::Syncer, 3, false)]
    fn siren_switch(#[case] role: Role, #[case] rev: u16, #[case] switched: bool) {
        let mut held = Both::default();
        held.s.has_siren = true;
        let i = FieldInputs {
            siren_rev: Revision(3),
            ..inputs(411, role, 0)
        };
        let out = run(siren_frame(true, rev), &i, &mut held);
        assert_eq!(held.s.siren, switched);
        assert_eq!(out.flags & flag::SIREN != 0, switched);
        assert_eq!(
            out.siren_rev,
            Revision(3),
            "the relay carries the server's revision"
        );
    }

    #[test]
    fn siren_switches_four_a_second_two_at_once_then_the_next_frame_takes_it() {
        let mut held = Both::default();
        held.s.has_siren = true;
        let mut budget = TokenBucket::new(SIREN_SWITCHES, Duration::ZERO);
        let mut at = |on: bool, ms: u64, held: &mut Both| {
            let mut s = siren_frame(on, 0);
            rewrite(
                &mut s,
                &inputs(411, PILOT, ms),
                &mut held.s,
                &mut held.h,
                &mut budget,
            )
            .siren_switched
        };
        assert!(at(true, 0, &mut held));
        assert!(at(false, 0, &mut held));
        assert!(!at(true, 0, &mut held), "a third switch at once waits");
        assert!(!held.s.siren);
        assert!(!at(true, 249, &mut held));
        assert!(
            at(true, 250, &mut held),
            "the next frame once the limit allows"
        );
        assert!(held.s.siren);
    }

    fn nitro_held(charges: u8) -> Both {
        Both::of(HeldFields {
            nitro_part: true,
            nitro_charges: charges,
            ..HeldFields::default()
        })
    }

    fn nitro_frame(level: f32) -> VehicleState {
        VehicleState {
            nitro: level,
            ..state()
        }
    }

    #[test]
    fn nitro_is_one_without_the_part() {
        let out = run(
            nitro_frame(-0.5),
            &inputs(411, PILOT, 0),
            &mut Both::default(),
        );
        assert_eq!(out.nitro, 1.0);
    }

    #[test]
    fn lighting_spends_a_charge_and_the_last_burn_out_removes_the_part() {
        let mut held = nitro_held(2);
        let mut budget = TokenBucket::new(SIREN_SWITCHES, Duration::ZERO);
        let mut frame = |level: f32, s: u64, held: &mut Both| {
            let mut st = nitro_frame(level);
            let o = rewrite(
                &mut st,
                &inputs(411, PILOT, s * 1000),
                &mut held.s,
                &mut held.h,
                &mut budget,
            );
            (st.nitro, o)
        };
        let (level, o) = frame(-0.9, 0, &mut held);
        assert_eq!((level, o.nitro_spent, held.nitro_charges), (-0.9, true, 1));
        let (level, o) = frame(-0.5, 10, &mut held);
        assert_eq!(
            (level, o.nitro_spent),
            (-0.5, false),
            "burning on, no new charge"
        );
        let (level, _) = frame(0.1, 20, &mut held);
        assert_eq!(level, 0.1);
        // 18 s after the burn-out, not earlier.
        let (level, o) = frame(-1.0, 37, &mut held);
        assert_eq!(
            (level, o.nitro_spent),
            (0.1, false),
            "the previous level is relayed"
        );
        let (level, o) = frame(-1.0, 38, &mut held);
        assert_eq!((level, o.nitro_spent, held.nitro_charges), (-1.0, true, 0));
        // The last charge counts as burnt out 25 s after it was lit.
        let (level, o) = frame(-0.2, 63, &mut held);
        assert!(o.nitro_removed && !held.nitro_part);
        assert_eq!(level, 1.0);
    }

    #[test]
    fn a_charge_burns_out_after_25_s_without_a_frame_and_a_new_part_is_a_full_tank() {
        let mut held = nitro_held(1);
        run(nitro_frame(-1.0), &inputs(411, PILOT, 0), &mut held);
        assert!(held.nitro_burning() && held.nitro_charges == 0);
        assert!(
            !held
                .expire_nitro(Duration::from_millis(24_999))
                .nitro_removed
        );
        assert!(held.expire_nitro(Duration::from_secs(25)).nitro_removed);
        assert!(!held.nitro_part && !held.nitro_burning());
        held.set_nitro(Some(2));
        assert_eq!(
            (held.nitro_part, held.nitro_charges, held.nitro),
            (true, 2, 1.0)
        );
        let out = run(nitro_frame(-1.0), &inputs(411, PILOT, 26_000), &mut held);
        assert_eq!((out.nitro, held.nitro_charges), (-1.0, 1), "lights at once");
        held.set_nitro(None);
        assert!(!held.nitro_part && !held.nitro_burning() && held.nitro_charges == 0);
    }

    #[rstest]
    #[case::no_charges(PILOT, false, 0)]
    #[case::syncer(Role::Syncer, false, 3)]
    #[case::paused_pilot(PAUSED, false, 3)]
    #[case::wreck(PILOT, true, 3)]
    fn who_cannot_light_the_nitro(#[case] role: Role, #[case] wrecked: bool, #[case] charges: u8) {
        let mut held = nitro_held(charges);
        held.nitro = 0.7;
        let i = FieldInputs {
            wrecked,
            ..inputs(411, role, 0)
        };
        let out = run(nitro_frame(-1.0), &i, &mut held);
        assert_eq!((out.nitro, held.nitro_charges), (0.7, charges));
    }

    #[rstest]
    #[case::pilot(PILOT, false, 42, 50)]
    #[case::syncer(Role::Syncer, false, 0, 0)]
    #[case::wreck(PILOT, true, 0, 0)]
    fn hydraulics(
        #[case] role: Role,
        #[case] wrecked: bool,
        #[case] state_kept: u16,
        #[case] axis: i16,
    ) {
        let mut held = Both::of(HeldFields {
            hydraulics_part: true,
            ..HeldFields::default()
        });
        let s = VehicleState {
            hydraulics: 42,
            hydraulic_lr: 50,
            hydraulic_ud: 50,
            ..state()
        };
        let i = FieldInputs {
            wrecked,
            ..inputs(411, role, 0)
        };
        let out = run(s, &i, &mut held);
        assert_eq!(
            (out.hydraulics, out.hydraulic_lr, out.hydraulic_ud),
            (state_kept, axis, axis)
        );
        let out = run(s, &inputs(411, PILOT, 0), &mut Both::default());
        assert_eq!(
            (out.hydraulics, out.hydraulic_lr),
            (0, 0),
            "no part, no hydraulics"
        );
    }
}
