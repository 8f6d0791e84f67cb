//! The checks of a remote grant (vehicles.md VehicleRemote, `dlmp.set_remote_vehicle`) and
//! of a VehicleRemoteEnter (the same plus the lock, no RC driven already, not frozen and
//! 10 m), and the range release. I/O-free: the systems gather a [`Taker`] and an [`Rc`].

use dlmp_core::position::Scope;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::geometry::distance;

/// A VehicleRemoteEnter is accepted within this distance of the sender's position, m.
pub const ENTER_DISTANCE: f32 = 10.0;
/// `rc_range` when the config names none, m.
pub const DEFAULT_RC_RANGE: f32 = 150.0;
/// The largest `rc_range` (the game's), m.
pub const MAX_RC_RANGE: f32 = 180.0;

/// Why a grant or a VehicleRemoteEnter was refused (counted; the tests name them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RemoteRefusal {
    /// No such vehicle (any more).
    NoVehicle,
    /// The model is not an RC model.
    NotRc,
    /// Not spawned and alive.
    NotAlive,
    /// The player sits in a vehicle.
    Seated,
    /// Another virtual world or interior.
    OtherScope,
    /// The RC is not streamed to the player.
    NotStreamed,
    Wrecked,
    /// Another player drives it remotely.
    Driven,
    /// VehicleRemoteEnter: the RC is locked for the sender.
    Locked,
    /// VehicleRemoteEnter: the sender drives an RC already.
    DrivesRc,
    /// VehicleRemoteEnter: the sender is frozen (SetFrozen).
    Frozen,
    /// VehicleRemoteEnter: farther than [`ENTER_DISTANCE`].
    TooFar,
    /// A `player_remote_enter` handler returned false.
    Refused,
}

impl RemoteRefusal {
    /// The reason's word (logs, Lua errors).
    pub fn name(self) -> &'static str {
        match self {
            RemoteRefusal::NoVehicle => "the vehicle does not exist",
            RemoteRefusal::NotRc => "the model is not remote-controlled",
            RemoteRefusal::NotAlive => "the player is not spawned and alive",
            RemoteRefusal::Seated => "the player sits in a vehicle",
            RemoteRefusal::OtherScope => "the vehicle is in another world scope",
            RemoteRefusal::NotStreamed => "the vehicle is not streamed to the player",
            RemoteRefusal::Wrecked => "the vehicle is a wreck",
            RemoteRefusal::Driven => "another player drives it",
            RemoteRefusal::Locked => "the vehicle is locked",
            RemoteRefusal::DrivesRc => "the player drives an RC already (this one or another)",
            RemoteRefusal::Frozen => "the player is frozen",
            RemoteRefusal::TooFar => "the vehicle is too far",
            RemoteRefusal::Refused => "a handler refused",
        }
    }
}

/// What the checks read of the player who would drive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Taker {
    pub alive: bool,
    pub seated: bool,
    pub scope: Scope,
    pub position: Vec3,
    pub frozen: bool,
    /// The player drives an RC, this one or another (vehicles.md VehicleRemoteEnter: "the
    /// sender drives no RC (exit first)").
    pub drives_rc: bool,
}

/// What the checks read of the RC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rc {
    pub is_rc: bool,
    pub scope: Scope,
    pub position: Vec3,
    pub wrecked: bool,
    /// Streamed to the taker.
    pub streamed: bool,
    /// Driven remotely by a player other than the taker.
    pub driven_by_other: bool,
    /// Locked for the taker (its own lock, otherwise the vehicle's).
    pub locked: bool,
}

/// The gamemode's grant (VehicleRemote): an RC model, the player alive and on foot, the
/// same world scope, the RC streamed, not wrecked, nobody else driving it.
pub fn grant(taker: &Taker, rc: &Rc) -> Result<(), RemoteRefusal> {
    if !rc.is_rc {
        return Err(RemoteRefusal::NotRc);
    }
    if !taker.alive {
        return Err(RemoteRefusal::NotAlive);
    }
    if taker.seated {
        return Err(RemoteRefusal::Seated);
    }
    if taker.scope != rc.scope {
        return Err(RemoteRefusal::OtherScope);
    }
    if !rc.streamed {
        return Err(RemoteRefusal::NotStreamed);
    }
    if rc.wrecked {
        return Err(RemoteRefusal::Wrecked);
    }
    if rc.driven_by_other {
        return Err(RemoteRefusal::Driven);
    }
    Ok(())
}

/// VehicleRemoteEnter: the grant's checks, then the lock, no other RC, not frozen, within
/// [`ENTER_DISTANCE`].
pub fn enter(taker: &Taker, rc: &Rc) -> Result<(), RemoteRefusal> {
    grant(taker, rc)?;
    if rc.locked {
        return Err(RemoteRefusal::Locked);
    }
    if taker.drives_rc {
        return Err(RemoteRefusal::DrivesRc);
    }
    if taker.frozen {
        return Err(RemoteRefusal::Frozen);
    }
    if distance(taker.position, rc.position) > ENTER_DISTANCE {
        return Err(RemoteRefusal::TooFar);
    }
    Ok(())
}

/// Whether the RC at `rc` has left the range of the body at `body` (vehicles.md
/// VehicleRemote: "the RC farther than dlmp.rc_range() from the body").
pub fn out_of_range(body: Vec3, rc: Vec3, range: f32) -> bool {
    distance(body, rc) > range
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn taker() -> Taker {
        Taker {
            alive: true,
            seated: false,
            scope: Scope::default(),
            position: Vec3::ZERO,
            frozen: false,
            drives_rc: false,
        }
    }

    fn rc() -> Rc {
        Rc {
            is_rc: true,
            scope: Scope::default(),
            position: Vec3::new(5.0, 0.0, 0.0),
            wrecked: false,
            streamed: true,
            driven_by_other: false,
            locked: false,
        }
    }

    const OTHER: Scope = Scope {
        virtual_world: 1,
        interior: 0,
    };

    #[rstest]
    #[case::passes(taker(), rc(), Ok(()))]
    #[case::not_rc(taker(), Rc { is_rc: false, ..rc() }, Err(RemoteRefusal::NotRc))]
    #[case::dead(Taker { alive: false, ..taker() }, rc(), Err(RemoteRefusal::NotAlive))]
    #[case::seated(Taker { seated: true, ..taker() }, rc(), Err(RemoteRefusal::Seated))]
    #[case::scope(taker(), Rc { scope: OTHER, ..rc() }, Err(RemoteRefusal::OtherScope))]
    #[case::unstreamed(taker(), Rc { streamed: false, ..rc() }, Err(RemoteRefusal::NotStreamed))]
    #[case::wreck(taker(), Rc { wrecked: true, ..rc() }, Err(RemoteRefusal::Wrecked))]
    #[case::driven(taker(), Rc { driven_by_other: true, ..rc() }, Err(RemoteRefusal::Driven))]
    #[case::lock_does_not_bind_the_gamemode(taker(), Rc { locked: true, ..rc() }, Ok(()))]
    #[case::far_does_not_bind_the_gamemode(taker(), Rc { position: Vec3::new(100.0, 0.0, 0.0), ..rc() }, Ok(()))]
    fn the_gamemodes_grant(
        #[case] t: Taker,
        #[case] r: Rc,
        #[case] expected: Result<(), RemoteRefusal>,
    ) {
        assert_eq!(grant(&t, &r), expected);
    }

    #[rstest]
    #[case::passes(taker(), rc(), Ok(()))]
    #[case::locked(taker(), Rc { locked: true, ..rc() }, Err(RemoteRefusal::Locked))]
    #[case::another(Taker { drives_rc: true, ..taker() }, rc(), Err(RemoteRefusal::DrivesRc))]
    #[case::frozen(Taker { frozen: true, ..taker() }, rc(), Err(RemoteRefusal::Frozen))]
    #[case::at_10(taker(), Rc { position: Vec3::new(10.0, 0.0, 0.0), ..rc() }, Ok(()))]
    #[case::beyond_10(taker(), Rc { position: Vec3::new(10.01, 0.0, 0.0), ..rc() }, Err(RemoteRefusal::TooFar))]
    #[case::a_grant_check_first(Taker { alive: false, frozen: true, ..taker() }, rc(), Err(RemoteRefusal::NotAlive))]
    fn the_f_key(#[case] t: Taker, #[case] r: Rc, #[case] expected: Result<(), RemoteRefusal>) {
        assert_eq!(enter(&t, &r), expected);
    }

    #[test]
    fn the_range_edge_is_inside() {
        let body = Vec3::ZERO;
        assert!(!out_of_range(body, Vec3::new(150.0, 0.0, 0.0), 150.0));
        assert!(out_of_range(body, Vec3::new(150.5, 0.0, 0.0), 150.0));
    }
}
