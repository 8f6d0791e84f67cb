//! VehicleShot admission (vehicles.md VehicleShot, "The server accepts a salvo if all of
//! these hold"), in the page's order. I/O-free: the plugin gathers a [`Facts`].

use std::time::Duration;

use super::table::VehicleWeapon;
use dlmp_player::ledger::is_firearm;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::Seq;
use dlmp_protocol::serial::Serial;
use dlmp_protocol::vehicle::shot::VehicleShot;

/// Every ray starts within this distance of the vehicle by its last accepted frame.
pub const RAY_START_REACH: f32 = 25.0;
/// The longest ray of a weapon whose hit is not a firearm (the Predator's guns, the
/// cannon), m.
pub const FIXED_RAY_LENGTH: f32 = 90.0;

/// Why a well-formed VehicleShot was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SalvoDrop {
    /// Not the spawned, live (alive, unpaused, unfrozen) driver of seat 0 or the RC's
    /// remote driver; an RC Tiger with detonation on; a wreck; no such vehicle.
    NotInControl,
    /// The model has no weapon.
    NoWeapon,
    /// `count` is not the weapon's ray count.
    Count,
    /// A ray starts farther than [`RAY_START_REACH`] from the vehicle.
    Origin,
    /// A ray is longer than the weapon's limit.
    Length,
    /// `order` is not above the shooter's last accepted number.
    Stale,
    /// Less than half the game interval since the vehicle's previous salvo.
    Interval,
}

impl SalvoDrop {
    /// The reason's word (logs).
    pub fn name(self) -> &'static str {
        match self {
            SalvoDrop::NotInControl => "not_in_control",
            SalvoDrop::NoWeapon => "no_weapon",
            SalvoDrop::Count => "count",
            SalvoDrop::Origin => "origin",
            SalvoDrop::Length => "length",
            SalvoDrop::Stale => "stale",
            SalvoDrop::Interval => "interval",
        }
    }
}

/// How the sender holds the vehicle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// Seat 0.
    Driver,
    /// The RC's remote driver, with the RC's detonation.
    Remote { detonation: bool },
    /// Neither.
    Nobody,
}

/// What admission reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Facts {
    pub holder: Holder,
    /// Spawned and alive, not paused, not frozen.
    pub live: bool,
    pub wrecked: bool,
    /// The model's weapon, if any.
    pub weapon: Option<VehicleWeapon>,
    /// The vehicle's position by its last accepted frame.
    pub position: Vec3,
    /// The gamemode's range of the hit weapon (`dlmp.set_weapon_range`), m.
    pub firearm_range: f32,
    /// The sender's last accepted number in the counter shared with WeaponShot.
    pub last_order: Option<Seq>,
    /// When the vehicle's previous accepted salvo arrived.
    pub last_salvo: Option<Duration>,
    /// When this salvo arrived ([`dlmp_core::session::Received::at`]): the interval is
    /// the client's, so the network thread's reading times it, not the tick that took it.
    pub arrived: Duration,
}

/// The RC Tiger fires only while its detonation is off.
pub const RC_TIGER: u16 = 564;

fn length(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(b.x - a.x, b.y - a.y, b.z - a.z).length()
}

/// The longest ray of `weapon`: a firearm's hit as a WeaponShot with the gamemode's
/// range, otherwise [`FIXED_RAY_LENGTH`].
pub fn ray_limit(weapon: &VehicleWeapon, firearm_range: f32) -> f32 {
    if is_firearm(weapon.hit_weapon) {
        firearm_range
    } else {
        FIXED_RAY_LENGTH
    }
}

/// The last number the salvo takes in the shared counter: `order + count − 1`.
pub fn last_ray(shot: &VehicleShot) -> Seq {
    let mut n = shot.order;
    for _ in 1..shot.count {
        n = n.next();
    }
    n
}

/// Whether the salvo may be taken; the model's weapon when it may.
pub fn check(shot: &VehicleShot, model: u16, f: &Facts) -> Result<VehicleWeapon, SalvoDrop> {
    let tiger_armed = match f.holder {
        Holder::Driver => true,
        Holder::Remote { detonation } => model != RC_TIGER || !detonation,
        Holder::Nobody => false,
    };
    if !tiger_armed || !f.live || f.wrecked {
        return Err(SalvoDrop::NotInControl);
    }
    let weapon = f.weapon.ok_or(SalvoDrop::NoWeapon)?;
    if shot.count != weapon.rays {
        return Err(SalvoDrop::Count);
    }
    let rays = &shot.rays[..usize::from(shot.count)];
    if rays
        .iter()
        .any(|r| length(f.position, r.start) > RAY_START_REACH)
    {
        return Err(SalvoDrop::Origin);
    }
    let limit = ray_limit(&weapon, f.firearm_range);
    if rays.iter().any(|r| length(r.start, r.end) > limit) {
        return Err(SalvoDrop::Length);
    }
    if f.last_order
        .is_some_and(|last| !shot.order.is_newer_than(last))
    {
        return Err(SalvoDrop::Stale);
    }
    if f.last_salvo
        .is_some_and(|t| f.arrived.saturating_sub(t) < weapon.interval / 2)
    {
        return Err(SalvoDrop::Interval);
    }
    Ok(weapon)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::super::table::VehicleWeapons;
    use super::*;
    use dlmp_protocol::ids::{Revision, SessionToken, VehicleId};
    use dlmp_protocol::vehicle::shot::Ray;

    fn ray(start_x: f32, len: f32) -> Ray {
        Ray {
            start: Vec3::new(start_x, 0.0, 0.0),
            end: Vec3::new(start_x + len, 0.0, 0.0),
        }
    }

    fn shot(order: u32, count: u8, rays: [Ray; 2]) -> VehicleShot {
        VehicleShot {
            session_token: SessionToken(1),
            order: Seq(order),
            vehicle_id: VehicleId(1),
            count,
            rays,
            props_rev: Revision(0),
        }
    }

    fn facts(weapons: &VehicleWeapons, model: u16) -> Facts {
        Facts {
            holder: Holder::Driver,
            live: true,
            wrecked: false,
            weapon: weapons.get(model).copied(),
            position: Vec3::ZERO,
            firearm_range: 400.0,
            last_order: Some(Seq(9)),
            last_salvo: Some(Duration::from_millis(1000)),
            arrived: Duration::from_millis(1030),
        }
    }

    const HUNTER: u16 = 425;
    const RUSTLER: u16 = 476;
    const PREDATOR: u16 = 430;
    const RHINO: u16 = 432;

    fn one(len: f32) -> [Ray; 2] {
        [ray(1.0, len), Ray::ZERO]
    }

    #[rstest]
    #[case::passes(HUNTER, shot(10, 1, one(100.0)), |f: Facts| f, Ok(()))]
    #[case::nobody(HUNTER, shot(10, 1, one(100.0)), |f: Facts| Facts { holder: Holder::Nobody, ..f }, Err(SalvoDrop::NotInControl))]
    #[case::dead_or_frozen(HUNTER, shot(10, 1, one(100.0)), |f: Facts| Facts { live: false, ..f }, Err(SalvoDrop::NotInControl))]
    #[case::wreck(HUNTER, shot(10, 1, one(100.0)), |f: Facts| Facts { wrecked: true, ..f }, Err(SalvoDrop::NotInControl))]
    #[case::rc_driver(RC_TIGER, shot(10, 1, one(100.0)), |f: Facts| Facts { holder: Holder::Remote { detonation: false }, ..f }, Ok(()))]
    #[case::tiger_with_detonation(RC_TIGER, shot(10, 1, one(100.0)), |f: Facts| Facts { holder: Holder::Remote { detonation: true }, ..f }, Err(SalvoDrop::NotInControl))]
    #[case::baron_with_detonation(464, shot(10, 1, one(100.0)), |f: Facts| Facts { holder: Holder::Remote { detonation: true }, ..f }, Ok(()))]
    #[case::no_weapon(411, shot(10, 1, one(100.0)), |f: Facts| f, Err(SalvoDrop::NoWeapon))]
    #[case::count(RUSTLER, shot(10, 1, one(100.0)), |f: Facts| f, Err(SalvoDrop::Count))]
    #[case::twin(RUSTLER, shot(10, 2, [ray(1.0, 50.0), ray(-1.0, 50.0)]), |f: Facts| Facts { last_salvo: None, ..f }, Ok(()))]
    #[case::origin_at_25(HUNTER, shot(10, 1, [ray(25.0, 10.0), Ray::ZERO]), |f: Facts| f, Ok(()))]
    #[case::origin_beyond_25(HUNTER, shot(10, 1, [ray(25.01, 10.0), Ray::ZERO]), |f: Facts| f, Err(SalvoDrop::Origin))]
    #[case::second_ray_origin(RUSTLER, shot(10, 2, [ray(1.0, 5.0), ray(26.0, 5.0)]), |f: Facts| f, Err(SalvoDrop::Origin))]
    #[case::firearm_range(HUNTER, shot(10, 1, one(400.0)), |f: Facts| f, Ok(()))]
    #[case::beyond_firearm_range(HUNTER, shot(10, 1, one(401.0)), |f: Facts| f, Err(SalvoDrop::Length))]
    #[case::the_gamemodes_range(HUNTER, shot(10, 1, one(150.0)), |f: Facts| Facts { firearm_range: 100.0, ..f }, Err(SalvoDrop::Length))]
    #[case::predator_90(PREDATOR, shot(10, 2, [ray(1.0, 90.0), ray(1.0, 90.0)]), |f: Facts| Facts { last_salvo: None, ..f }, Ok(()))]
    #[case::predator_beyond_90(PREDATOR, shot(10, 2, [ray(1.0, 90.0), ray(1.0, 91.0)]), |f: Facts| Facts { last_salvo: None, ..f }, Err(SalvoDrop::Length))]
    #[case::cannon_beyond_90(RHINO, shot(10, 1, one(91.0)), |f: Facts| Facts { last_salvo: None, ..f }, Err(SalvoDrop::Length))]
    #[case::stale(HUNTER, shot(9, 1, one(10.0)), |f: Facts| f, Err(SalvoDrop::Stale))]
    #[case::first_order(HUNTER, shot(0, 1, one(10.0)), |f: Facts| Facts { last_order: None, ..f }, Ok(()))]
    #[case::interval_edge(HUNTER, shot(10, 1, one(10.0)), |f: Facts| f, Ok(()))]
    #[case::interval_short(HUNTER, shot(10, 1, one(10.0)), |f: Facts| Facts { arrived: Duration::from_millis(1029), ..f }, Err(SalvoDrop::Interval))]
    fn admission(
        #[case] model: u16,
        #[case] s: VehicleShot,
        #[case] adjust: fn(Facts) -> Facts,
        #[case] expected: Result<(), SalvoDrop>,
    ) {
        let weapons = VehicleWeapons::load();
        let f = adjust(facts(&weapons, model));
        assert_eq!(check(&s, model, &f).map(|_| ()), expected);
    }

    #[test]
    fn a_twin_salvo_takes_two_numbers() {
        let s = shot(u32::MAX, 2, [ray(0.0, 1.0), ray(0.0, 1.0)]);
        assert_eq!(last_ray(&s), Seq(0));
        assert_eq!(last_ray(&shot(7, 1, one(1.0))), Seq(7));
    }
}
