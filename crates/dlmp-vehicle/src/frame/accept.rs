//! VehicleFrame acceptance (vehicles.md, VehicleFrame "Acceptance" and "Rate limits";
//! player.md, SetFrozen): who may send a vehicle's frames, the epoch and pose revision
//! they must carry, the per-connection per-vehicle seq mark, and the rate limits. I/O-free:
//! the plugin gathers a [`Control`] and a [`SenderMarks`] and acts on the answer. The
//! coarse bounds table is the decoder's ([`VehicleState`]'s validation): a frame outside
//! it never reaches here. Decisions: docs/decisions/0056-vehicle-frames.md.
//!
//! [`VehicleState`]: dlmp_protocol::vehicle::state::VehicleState

use super::motion::MotionDrop;
use std::collections::HashMap;
use std::time::Duration;

use bevy_ecs::prelude::*;

use dlmp_core::session::{RateLimit, TokenBucket};
use dlmp_protocol::ids::{Revision, Seq, VehicleEpoch, VehicleId};
use dlmp_protocol::serial::Serial;

/// How the sender controls the vehicle, for the field rules and the rate limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The player in seat 0. `live` = not paused (a frozen driver sends nothing that
    /// counts): the page's "live pilot", who alone moves the part, the siren, the
    /// searchlight, the nitro and the hydraulics.
    Driver { live: bool },
    /// The vehicle's syncer while seat 0 is empty or its player paused.
    Syncer,
    /// An RC's remote driver, its syncer (vehicles.md VehicleRemote): its frames count as
    /// driven for the rate limits ("as driver or RC driver"); it moves no pilot's fields.
    Remote,
}

impl Role {
    /// The page's "live pilot (seat 0, not paused)".
    pub fn is_live_pilot(self) -> bool {
        self == Role::Driver { live: true }
    }
}

/// Why a well-formed VehicleFrame was dropped whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VehicleFrameDrop {
    /// No such vehicle.
    UnknownVehicle,
    /// The sender neither drives it nor syncs it (or syncs it dead, or is frozen).
    NotController,
    /// A frame of another life of the vehicle.
    Epoch,
    /// A frame sent before the last gamemode transform.
    PoseRev,
    /// Not newer than the last frame accepted for this vehicle from this connection.
    Stale,
    /// Over 31 a second of a driven vehicle.
    RateDriven,
    /// Over 10.5 a second of a synced vehicle.
    RateSynced,
    /// Over 115 a second over all the connection's vehicles.
    RateTotal,
    /// The sender's copy may not hang on the server's hitch or winch yet (vehicles.md
    /// VehicleTow, VehicleWinch: frames "only while its copy ... hangs on exactly the
    /// server's hitch"; tow/flow.rs).
    Hitch,
    /// The position cannot follow from the server's pose at the model's top speed
    /// (beyond the page; [`super::motion`], ADR 0089).
    Motion(MotionDrop),
}

impl VehicleFrameDrop {
    /// The reason's word (logs, refusal events).
    pub fn name(self) -> &'static str {
        match self {
            VehicleFrameDrop::UnknownVehicle => "unknown_vehicle",
            VehicleFrameDrop::NotController => "not_controller",
            VehicleFrameDrop::Epoch => "epoch",
            VehicleFrameDrop::PoseRev => "pose_rev",
            VehicleFrameDrop::Stale => "stale",
            VehicleFrameDrop::RateDriven => "rate_driven",
            VehicleFrameDrop::RateSynced => "rate_synced",
            VehicleFrameDrop::RateTotal => "rate_total",
            VehicleFrameDrop::Hitch => "hitch",
            VehicleFrameDrop::Motion(MotionDrop::Travel) => "motion_travel",
            VehicleFrameDrop::Motion(MotionDrop::Fall) => "motion_fall",
        }
    }
}

/// VehicleFrames dropped whole, by reason, and accepted.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VehicleFrameDrops {
    pub accepted: u64,
    pub unknown_vehicle: u64,
    pub not_controller: u64,
    pub epoch: u64,
    pub pose_rev: u64,
    pub stale: u64,
    pub rate_driven: u64,
    pub rate_synced: u64,
    pub rate_total: u64,
    pub hitch: u64,
    pub motion_travel: u64,
    pub motion_fall: u64,
}

impl VehicleFrameDrops {
    pub fn count(&mut self, reason: VehicleFrameDrop) {
        let n = match reason {
            VehicleFrameDrop::UnknownVehicle => &mut self.unknown_vehicle,
            VehicleFrameDrop::NotController => &mut self.not_controller,
            VehicleFrameDrop::Epoch => &mut self.epoch,
            VehicleFrameDrop::PoseRev => &mut self.pose_rev,
            VehicleFrameDrop::Stale => &mut self.stale,
            VehicleFrameDrop::Motion(MotionDrop::Travel) => &mut self.motion_travel,
            VehicleFrameDrop::Motion(MotionDrop::Fall) => &mut self.motion_fall,
            VehicleFrameDrop::RateDriven => &mut self.rate_driven,
            VehicleFrameDrop::RateSynced => &mut self.rate_synced,
            VehicleFrameDrop::RateTotal => &mut self.rate_total,
            VehicleFrameDrop::Hitch => &mut self.hitch,
        };
        *n += 1;
    }
}

/// Who controls the vehicle now, by the server's seats and election, and what the sender
/// is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    /// The sender sits in seat 0 of this vehicle.
    pub sender_drives: bool,
    /// The sender is the vehicle's syncer.
    pub sender_syncs: bool,
    /// The sender drives the vehicle remotely (an RC's [`Remote`](crate::Remote)).
    pub sender_remote: bool,
    pub sender_alive: bool,
    pub sender_paused: bool,
    /// SetFrozen: a frozen player controls no vehicle (player.md), its frames are dropped.
    pub sender_frozen: bool,
    /// Seat 0 holds a player who is paused or frozen (or nobody): the syncer may send.
    pub seat0_empty_or_paused: bool,
}

/// The sender's role, or why it may not send this vehicle's frames: the player in seat 0,
/// or, while seat 0 is empty or its player is paused, the vehicle's syncer, who must be
/// alive. A frozen player controls nothing.
pub fn controller(c: &Control) -> Result<Role, VehicleFrameDrop> {
    if c.sender_frozen {
        return Err(VehicleFrameDrop::NotController);
    }
    if c.sender_drives {
        return Ok(Role::Driver {
            live: !c.sender_paused,
        });
    }
    if c.sender_syncs && c.seat0_empty_or_paused && c.sender_alive {
        return Ok(if c.sender_remote {
            Role::Remote
        } else {
            Role::Syncer
        });
    }
    Err(VehicleFrameDrop::NotController)
}

/// The epoch and the transform revision of the frame against the vehicle's.
pub fn revisions(
    frame: (VehicleEpoch, Revision),
    vehicle: (VehicleEpoch, Revision),
) -> Result<(), VehicleFrameDrop> {
    if frame.0 != vehicle.0 {
        return Err(VehicleFrameDrop::Epoch);
    }
    if frame.1 != vehicle.1 {
        return Err(VehicleFrameDrop::PoseRev);
    }
    Ok(())
}

/// Frames a second of a vehicle the connection drives: 31 on average.
pub const DRIVEN_PER_SECOND: f64 = 31.0;
/// Frames a second of a vehicle the connection syncs: 10.5 on average.
pub const SYNCED_PER_SECOND: f64 = 10.5;
/// Frames a second over all the connection's vehicles: 115 (one driven, eight synced).
pub const TOTAL_PER_SECOND: f64 = 115.0;
/// Each limit's burst, in seconds of its rate.
pub const BURST: Duration = Duration::from_millis(500);

/// The limits as token buckets: a frame costs [`COST`] tokens, so the half-second bursts
/// (15.5, 5.25 and 57.5 frames) are whole numbers of tokens.
const COST: u32 = 4;
const DRIVEN: RateLimit = RateLimit::per_second(62, 124);
const SYNCED: RateLimit = RateLimit::per_second(21, 42);
const TOTAL: RateLimit = RateLimit::per_second(230, 460);

/// What one connection keeps about one vehicle: the seq mark and the per-vehicle budgets.
/// It survives a change of controller (and of role), so neither a frame of another
/// vehicle nor a delayed frame of an earlier period of control rolls the state back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct VehicleMark {
    seq: Option<Seq>,
    driven: TokenBucket,
    synced: TokenBucket,
}

/// One connection's VehicleFrame state: its marks by vehicle (ids are never reused during
/// a run) and its total budget. A component of the player.
#[derive(Component, Debug, Clone, PartialEq, Eq)]
pub struct SenderMarks {
    marks: HashMap<VehicleId, VehicleMark>,
    total: TokenBucket,
}

impl SenderMarks {
    /// A new connection at `now`: no marks, full budgets.
    pub fn new(now: Duration) -> Self {
        SenderMarks {
            marks: HashMap::new(),
            total: TokenBucket::new(TOTAL, now),
        }
    }

    /// The last seq accepted for `vehicle` from this connection.
    pub fn last(&self, vehicle: VehicleId) -> Option<Seq> {
        self.marks.get(&vehicle).and_then(|m| m.seq)
    }

    /// The seq and rate checks of a frame of `vehicle` sent in `role`; on success the mark
    /// moves to `seq` and the budgets are spent. A frame refused here spends nothing.
    pub fn admit(
        &mut self,
        vehicle: VehicleId,
        seq: Seq,
        role: Role,
        now: Duration,
    ) -> Result<(), VehicleFrameDrop> {
        let mark = self.marks.entry(vehicle).or_insert(VehicleMark {
            seq: None,
            driven: TokenBucket::new(DRIVEN, now),
            synced: TokenBucket::new(SYNCED, now),
        });
        if mark.seq.is_some_and(|last| !seq.is_newer_than(last)) {
            return Err(VehicleFrameDrop::Stale);
        }
        let (bucket, over) = match role {
            Role::Driver { .. } | Role::Remote => (&mut mark.driven, VehicleFrameDrop::RateDriven),
            Role::Syncer => (&mut mark.synced, VehicleFrameDrop::RateSynced),
        };
        if bucket.available(now) < COST {
            return Err(over);
        }
        if self.total.available(now) < COST {
            return Err(VehicleFrameDrop::RateTotal);
        }
        for _ in 0..COST {
            bucket.try_take(now);
            self.total.try_take(now);
        }
        mark.seq = Some(seq);
        Ok(())
    }

    /// Forgets a removed vehicle.
    pub fn forget(&mut self, vehicle: VehicleId) {
        self.marks.remove(&vehicle);
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn control() -> Control {
        Control {
            sender_drives: false,
            sender_syncs: false,
            sender_remote: false,
            sender_alive: true,
            sender_paused: false,
            sender_frozen: false,
            seat0_empty_or_paused: true,
        }
    }

    #[rstest]
    #[case::driver(Control { sender_drives: true, seat0_empty_or_paused: false, ..control() }, Ok(Role::Driver { live: true }))]
    #[case::paused_driver(Control { sender_drives: true, sender_paused: true, ..control() }, Ok(Role::Driver { live: false }))]
    #[case::frozen_driver(Control { sender_drives: true, sender_frozen: true, ..control() }, Err(VehicleFrameDrop::NotController))]
    #[case::syncer_of_an_empty_seat(Control { sender_syncs: true, ..control() }, Ok(Role::Syncer))]
    #[case::syncer_while_a_live_driver(Control { sender_syncs: true, seat0_empty_or_paused: false, ..control() }, Err(VehicleFrameDrop::NotController))]
    #[case::dead_syncer(Control { sender_syncs: true, sender_alive: false, ..control() }, Err(VehicleFrameDrop::NotController))]
    #[case::frozen_syncer(Control { sender_syncs: true, sender_frozen: true, ..control() }, Err(VehicleFrameDrop::NotController))]
    #[case::bystander(control(), Err(VehicleFrameDrop::NotController))]
    #[case::rc_driver(Control { sender_syncs: true, sender_remote: true, ..control() }, Ok(Role::Remote))]
    #[case::rc_driver_not_syncing(Control { sender_remote: true, ..control() }, Err(VehicleFrameDrop::NotController))]
    fn who_may_send(#[case] c: Control, #[case] expected: Result<Role, VehicleFrameDrop>) {
        assert_eq!(controller(&c), expected);
    }

    #[rstest]
    #[case::current((3, 7), Ok(()))]
    #[case::other_life((2, 7), Err(VehicleFrameDrop::Epoch))]
    #[case::before_a_transform((3, 6), Err(VehicleFrameDrop::PoseRev))]
    fn epoch_and_pose_rev(
        #[case] frame: (u8, u16),
        #[case] expected: Result<(), VehicleFrameDrop>,
    ) {
        let got = revisions(
            (VehicleEpoch(frame.0), Revision(frame.1)),
            (VehicleEpoch(3), Revision(7)),
        );
        assert_eq!(got, expected);
    }

    const V: VehicleId = VehicleId(1);
    const DRIVE: Role = Role::Driver { live: true };

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_mark_is_per_vehicle_and_serial() {
        let mut m = SenderMarks::new(ms(0));
        assert_eq!(m.admit(V, Seq(10), DRIVE, ms(0)), Ok(()));
        assert_eq!(
            m.admit(V, Seq(10), DRIVE, ms(100)),
            Err(VehicleFrameDrop::Stale)
        );
        assert_eq!(
            m.admit(V, Seq(9), DRIVE, ms(200)),
            Err(VehicleFrameDrop::Stale)
        );
        // Another vehicle's counter is the same one, compared on its own mark.
        assert_eq!(m.admit(VehicleId(2), Seq(5), Role::Syncer, ms(300)), Ok(()));
        // The mark survives a change of role (a driver who became the syncer).
        assert_eq!(
            m.admit(V, Seq(8), Role::Syncer, ms(400)),
            Err(VehicleFrameDrop::Stale)
        );
        assert_eq!(m.admit(V, Seq(11), Role::Syncer, ms(500)), Ok(()));
        // Across the wrap.
        let mut w = SenderMarks::new(ms(0));
        assert_eq!(w.admit(V, Seq(u32::MAX), DRIVE, ms(0)), Ok(()));
        assert_eq!(w.admit(V, Seq(0), DRIVE, ms(40)), Ok(()));
        assert_eq!(w.last(V), Some(Seq(0)));
    }

    /// `n` frames at `hz`, each with a new seq; how many were accepted.
    fn steady(role: Role, hz: f64, n: u32) -> u32 {
        let mut m = SenderMarks::new(Duration::ZERO);
        (1..=n)
            .filter(|&seq| {
                let t = Duration::from_secs_f64(f64::from(seq) / hz);
                m.admit(V, Seq(seq), role, t).is_ok()
            })
            .count() as u32
    }

    #[rstest]
    #[case::driven_at_30_hz(DRIVE, 30.0)]
    #[case::driven_at_31_hz(DRIVE, 31.0)]
    #[case::synced_every_100_ms(Role::Syncer, 10.0)]
    #[case::synced_at_10_5_hz(Role::Syncer, 10.5)]
    fn a_steady_rate_at_the_limit_passes(#[case] role: Role, #[case] hz: f64) {
        let n = (hz * 10.0) as u32;
        assert_eq!(steady(role, hz, n), n);
    }

    #[rstest]
    #[case::driven(DRIVE, 40.0, DRIVEN_PER_SECOND, 15.5)]
    #[case::synced(Role::Syncer, 20.0, SYNCED_PER_SECOND, 5.25)]
    fn a_faster_sender_gets_the_rate_plus_half_a_second(
        #[case] role: Role,
        #[case] hz: f64,
        #[case] limit: f64,
        #[case] burst: f64,
    ) {
        let ok = f64::from(steady(role, hz, (hz * 10.0) as u32));
        assert!(ok <= 10.0 * limit + burst + 1.0, "{ok} accepted");
        assert!(ok >= 10.0 * limit, "{ok} accepted");
    }

    #[rstest]
    #[case::driven(DRIVE, 15)]
    #[case::synced(Role::Syncer, 5)]
    fn the_burst_is_half_a_second(#[case] role: Role, #[case] burst: u32) {
        let mut m = SenderMarks::new(Duration::ZERO);
        for seq in 1..=burst {
            assert_eq!(m.admit(V, Seq(seq), role, Duration::ZERO), Ok(()));
        }
        assert!(m.admit(V, Seq(burst + 1), role, Duration::ZERO).is_err());
    }

    #[test]
    fn the_total_holds_one_driven_and_eight_synced_not_nine() {
        // 10 s of a driven vehicle at 30 Hz and eight synced every 100 ms.
        let mut m = SenderMarks::new(Duration::ZERO);
        let mut seq = 0;
        let mut drops = 0;
        for frame in 0..300u64 {
            let t = Duration::from_secs_f64(frame as f64 / 30.0);
            seq += 1;
            drops += u32::from(m.admit(V, Seq(seq), DRIVE, t).is_err());
            if frame % 3 == 0 {
                for v in 2..=9 {
                    seq += 1;
                    drops += u32::from(m.admit(VehicleId(v), Seq(seq), Role::Syncer, t).is_err());
                }
            }
        }
        assert_eq!(drops, 0, "110 a second pass");
        // A ninth synced vehicle makes 120 a second: the total refuses the excess.
        let mut m = SenderMarks::new(Duration::ZERO);
        let (mut seq, mut total) = (0, 0);
        for frame in 0..300u64 {
            let t = Duration::from_secs_f64(frame as f64 / 30.0);
            seq += 1;
            let _ = m.admit(V, Seq(seq), DRIVE, t);
            if frame % 3 == 0 {
                for v in 2..=10 {
                    seq += 1;
                    if m.admit(VehicleId(v), Seq(seq), Role::Syncer, t)
                        == Err(VehicleFrameDrop::RateTotal)
                    {
                        total += 1;
                    }
                }
            }
        }
        assert!(total > 0, "120 a second are over the total");
    }

    #[test]
    fn a_refused_frame_spends_nothing() {
        let mut m = SenderMarks::new(Duration::ZERO);
        assert_eq!(m.admit(V, Seq(5), DRIVE, Duration::ZERO), Ok(()));
        for _ in 0..100 {
            assert_eq!(
                m.admit(V, Seq(5), DRIVE, Duration::ZERO),
                Err(VehicleFrameDrop::Stale)
            );
        }
        for seq in 6..=19 {
            assert_eq!(m.admit(V, Seq(seq), DRIVE, Duration::ZERO), Ok(()), "{seq}");
        }
        assert_eq!(
            m.admit(V, Seq(20), DRIVE, Duration::ZERO),
            Err(VehicleFrameDrop::RateDriven)
        );
        assert_eq!(
            m.last(V),
            Some(Seq(19)),
            "a rate drop does not move the mark"
        );
    }
}
