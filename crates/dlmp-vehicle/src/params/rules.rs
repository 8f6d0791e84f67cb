//! The parameter rules themselves (vehicles.md VehicleParams, "Defaults"; VehicleFrame,
//! "Siren"), free of the ECS: what one gamemode change does to a vehicle's [`Params`] and
//! its siren revision, which classes can carry a siren or a winch, and the door names.

use crate::components::{Params, PlayerParams, SirenRev};
use crate::models::{ModelInfo, VehicleClass};
use dlmp_protocol::ids::{PlayerId, PlayerToken};
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::params::{door, param};

/// Vortex (539): a hovercraft the table files as a plane, and the one aircraft that can be
/// given a siren (VehicleParams "Defaults").
pub const VORTEX: u16 = 539;

/// Whether a siren given to `model` sounds: cars (monster trucks and quad bikes are cars
/// of the game), motorbikes, bicycles and Vortex 539. On boats, aircraft, trains, trailers
/// and RCs it is mute (ADR 0062: the server does not give it).
pub fn siren_capable(model: &ModelInfo) -> bool {
    match model.class {
        VehicleClass::Car
        | VehicleClass::MonsterTruck
        | VehicleClass::QuadBike
        | VehicleClass::Motorbike
        | VehicleClass::Bicycle => true,
        VehicleClass::Plane => model.model == VORTEX,
        VehicleClass::Boat
        | VehicleClass::Helicopter
        | VehicleClass::Train
        | VehicleClass::Trailer
        | VehicleClass::Rc => false,
    }
}

/// Whether `model` carries a winch (VehicleWinch: "the gamemode gives a helicopter a
/// winch"): helicopters only, RC helicopters are RCs.
pub fn winch_capable(model: &ModelInfo) -> bool {
    model.class == VehicleClass::Helicopter
}

/// The helicopter's winch (VehicleParams bit3 / bit4, at most one of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winch {
    /// `"magnet"`: bit3, takes any vehicle.
    Magnet,
    /// `"small"`: bit4, the small magnet (takes only RC Tiger 564).
    Small,
}

impl Winch {
    /// The Lua word (`dlmp.set_vehicle_winch`).
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "magnet" => Some(Winch::Magnet),
            "small" => Some(Winch::Small),
            _ => None,
        }
    }

    fn bit(self) -> u16 {
        match self {
            Winch::Magnet => param::MAGNET,
            Winch::Small => param::SMALL_MAGNET,
        }
    }
}

/// A door of `set_vehicle_door`, by its Lua name.
pub fn door_bit(name: &str) -> Option<u8> {
    Some(match name {
        "bonnet" => door::BONNET,
        "boot" => door::BOOT,
        "lf" => door::LEFT_FRONT,
        "rf" => door::RIGHT_FRONT,
        "lr" => door::LEFT_REAR,
        "rr" => door::RIGHT_REAR,
        _ => return None,
    })
}

/// The door names, in bit order (for the error of a bad name).
pub const DOOR_NAMES: &str = "bonnet, boot, lf, rf, lr, rr";

/// One player's parameters are keyed by slot and generation.
pub type Who = (PlayerId, PlayerToken);

/// One gamemode change of a vehicle's parameters (a `dlmp.set_vehicle_*` call or a
/// driver's VehicleControl let through).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamChange {
    Engine(bool),
    Lights(bool),
    /// The vehicle's own lock.
    Locked(bool),
    Alarm(bool),
    /// Switches the siren; on a vehicle without one it stays off.
    Siren(bool),
    /// Gives or removes the siren (removing it silences it); the caller checked
    /// [`siren_capable`] for a give.
    HasSiren(bool),
    /// A door bit of [`door`], opened or closed.
    Door(u8, bool),
    /// The caller checked [`winch_capable`].
    Winch(Option<Winch>),
    /// The player's own lock; `None` gives it the vehicle's lock again.
    LockedFor(Who, Option<bool>),
    Objective(Who, bool),
}

/// What a change did to the parameters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effect {
    /// The doors the packet opens or closes (a door command, even without a change).
    pub doors_set: u8,
    /// The siren revision grew.
    pub siren_switched: bool,
}

fn set(bits: &mut u16, bit: u16, on: bool) {
    if on {
        *bits |= bit;
    } else {
        *bits &= !bit;
    }
}

/// Applies `change`. A siren command always raises the siren revision (vehicles.md: "A
/// gamemode command (dlmp.set_vehicle_siren, set_vehicle_has_siren) raises the siren
/// revision"), whether or not the bits change: a pilot's frame in flight, sent before the
/// command, then never undoes it. The new revision always goes out (VehicleParams to
/// everyone the vehicle is shown to), so the pilot's copy echoes it and switches again.
pub fn apply(params: &mut Params, siren_rev: &mut SirenRev, change: ParamChange) -> Effect {
    let mut effect = Effect::default();
    match change {
        ParamChange::Engine(on) => set(&mut params.bits, param::ENGINE, on),
        ParamChange::Lights(on) => set(&mut params.bits, param::LIGHTS, on),
        ParamChange::Locked(on) => set(&mut params.bits, param::LOCKED, on),
        ParamChange::Alarm(on) => set(&mut params.bits, param::ALARM, on),
        ParamChange::Siren(on) => {
            let has = params.bits & param::HAS_SIREN != 0;
            set(&mut params.bits, param::SIREN, on && has);
        }
        ParamChange::HasSiren(on) => {
            set(&mut params.bits, param::HAS_SIREN, on);
            if !on {
                params.bits &= !param::SIREN;
            }
        }
        ParamChange::Door(bit, open) => {
            let bit = bit & door::ALL;
            if open {
                params.doors |= bit;
            } else {
                params.doors &= !bit;
            }
            effect.doors_set = bit;
        }
        ParamChange::Winch(kind) => {
            params.bits &= !(param::MAGNET | param::SMALL_MAGNET);
            if let Some(kind) = kind {
                params.bits |= kind.bit();
            }
        }
        ParamChange::LockedFor(who, locked) => own(params, who, |p| p.locked = locked),
        ParamChange::Objective(who, on) => own(params, who, |p| p.objective = on),
    }
    if matches!(change, ParamChange::Siren(_) | ParamChange::HasSiren(_)) {
        siren_rev.0 = siren_rev.0.next();
        effect.siren_switched = true;
    }
    effect
}

/// Changes the player's own parameters; an entry back at the defaults is removed.
fn own(params: &mut Params, (id, token): Who, f: impl FnOnce(&mut PlayerParams)) {
    let at = params
        .per_player
        .iter()
        .position(|(i, t, _)| *i == id && *t == token);
    let mut mine = at.map(|i| params.per_player[i].2).unwrap_or_default();
    f(&mut mine);
    match (at, mine == PlayerParams::default()) {
        (Some(i), true) => {
            params.per_player.swap_remove(i);
        }
        (Some(i), false) => params.per_player[i].2 = mine,
        (None, true) => {}
        (None, false) => params.per_player.push((id, token, mine)),
    }
}

/// A player left: its own parameters go with it (VehicleParams "Defaults").
pub fn forget(params: &mut Params, (id, token): Who) {
    params
        .per_player
        .retain(|(i, t, _)| !(*i == id && *t == token));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::VehicleModels;

    const ME: Who = (PlayerId(1), PlayerToken(5));

    #[test]
    fn the_siren_goes_only_where_it_sounds() {
        let models = VehicleModels::load();
        let capable = |m: u16| models.get(m).is_some_and(siren_capable);
        for m in [400, 407, 411, 444, 471, 481, 523, 539, 596] {
            assert!(capable(m), "{m}");
        }
        for m in [430, 425, 520, 537, 435, 441, 464, 592] {
            assert!(!capable(m), "{m}");
        }
        assert!(models.get(417).is_some_and(winch_capable));
        assert!(!models.get(465).is_some_and(winch_capable), "an RC heli");
        assert!(!models.get(411).is_some_and(winch_capable));
    }

    #[test]
    fn every_siren_command_raises_the_revision_and_a_vehicle_without_one_stays_silent() {
        let (mut p, mut rev) = (Params::default(), SirenRev::default());
        let e = apply(&mut p, &mut rev, ParamChange::Siren(true));
        assert!(e.siren_switched);
        assert_eq!(
            (p.bits, rev.0.0),
            (0, 1),
            "no siren: silent, a new revision"
        );
        apply(&mut p, &mut rev, ParamChange::HasSiren(true));
        apply(&mut p, &mut rev, ParamChange::Siren(true));
        assert_eq!(p.bits, param::HAS_SIREN | param::SIREN);
        assert_eq!(rev.0.0, 3);
        apply(&mut p, &mut rev, ParamChange::Siren(true));
        assert_eq!(rev.0.0, 4, "the same switch again: a new revision");
        apply(&mut p, &mut rev, ParamChange::HasSiren(false));
        assert_eq!(p.bits, 0, "a removed siren is silent");
        let same = apply(&mut p, &mut rev, ParamChange::HasSiren(false));
        assert!(same.siren_switched);
        assert_eq!(rev.0.0, 6);
        let engine = apply(&mut p, &mut rev, ParamChange::Engine(true));
        assert!(!engine.siren_switched);
        assert_eq!(rev.0.0, 6, "only siren commands");
    }

    #[test]
    fn a_winch_is_one_magnet_at_most() {
        let (mut p, mut rev) = (Params::default(), SirenRev::default());
        apply(&mut p, &mut rev, ParamChange::Winch(Some(Winch::Magnet)));
        apply(&mut p, &mut rev, ParamChange::Winch(Some(Winch::Small)));
        assert_eq!(p.bits, param::SMALL_MAGNET);
        apply(&mut p, &mut rev, ParamChange::Winch(None));
        assert_eq!(p.bits, 0);
    }

    #[test]
    fn a_door_command_always_sets_its_door() {
        let (mut p, mut rev) = (Params::default(), SirenRev::default());
        let e = apply(&mut p, &mut rev, ParamChange::Door(door::BOOT, false));
        assert_eq!((e.doors_set, p.doors), (door::BOOT, 0));
        let e = apply(&mut p, &mut rev, ParamChange::Door(door::LEFT_FRONT, true));
        assert_eq!((e.doors_set, p.doors), (door::LEFT_FRONT, door::LEFT_FRONT));
    }

    #[test]
    fn own_parameters_back_at_the_defaults_leave_no_entry() {
        let (mut p, mut rev) = (Params::default(), SirenRev::default());
        apply(&mut p, &mut rev, ParamChange::LockedFor(ME, Some(true)));
        apply(&mut p, &mut rev, ParamChange::Objective(ME, true));
        assert_eq!(
            p.of(ME.0, ME.1),
            PlayerParams {
                locked: Some(true),
                objective: true
            }
        );
        apply(&mut p, &mut rev, ParamChange::LockedFor(ME, None));
        apply(&mut p, &mut rev, ParamChange::Objective(ME, false));
        assert!(p.per_player.is_empty());
        apply(&mut p, &mut rev, ParamChange::Objective(ME, true));
        forget(&mut p, ME);
        assert!(p.per_player.is_empty());
    }
}
