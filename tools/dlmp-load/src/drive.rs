//! A driving bot's vehicle: how it is found after freeroam's `/v MODEL`, the road-like
//! loop it drives, and the VehicleFrames it sends (vehicles.md, VehicleFrame: the show's
//! epoch and revisions, a monotonic seq, every field inside its bounds).
//!
//! A relay (RemoteVehicleFrame) carries the vehicle's serial, not the sender's seq, so the
//! frame's height carries the seq's low byte in millimetres above the bots' ground
//! ([`HOME_Z`]): the server relays the accepted position as sent, and a viewer finds the
//! frame's send time by it.

use std::f32::consts::{PI, TAU};

use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{Revision, Seq, SessionToken, VehicleEpoch, VehicleId};
use dlmp_protocol::vehicle::frame::VehicleFrame;
use dlmp_protocol::vehicle::state::VehicleState;
use dlmp_protocol::vehicle::sync::VehicleSync;

use crate::shape::HOME_Z;

/// The model drivers ask for (Infernus: a car with two seats, no siren, no turret).
pub const DRIVE_MODEL: u16 = 411;
/// The models of parked vehicles, in turn: ordinary cars, none of them [`DRIVE_MODEL`],
/// so a driver never takes a parked vehicle for its own.
pub const PARKED_MODELS: [u16; 9] = [400, 401, 404, 405, 410, 412, 419, 421, 426];
/// Freeroam's `/v` puts the vehicle this far along +x from the player.
pub const SPAWN_OFFSET: f32 = 3.0;
/// A show of the asked model within this distance of the expected spot is the bot's.
const FIND_RADIUS: f32 = 4.0;
/// The loop: two straights of this length joined by half circles of this radius, driven
/// at this speed, m and m/s (a block around the spawn spot, well under the game's speeds).
const STRAIGHT: f32 = 30.0;
const TURN_RADIUS: f32 = 10.0;
const SPEED: f32 = 12.0;
/// Physics steps per second: move_speed is per step (vehicles.md, VehicleState).
const STEPS: f32 = 50.0;
/// How far a driver's vehicle gets from the bot's home: the walk and `/v`'s offset to
/// the spawn spot, then the loop's farthest point from it.
pub const PATH_REACH: f32 = crate::shape::WALK_RADIUS + SPAWN_OFFSET + STRAIGHT + 2.0 * TURN_RADIUS;
/// The seq marker: `seq % MARKS` millimetres above [`HOME_Z`].
pub const MARKS: u32 = 256;
const MARK_STEP: f32 = 0.001;

/// The vehicle a driver drives, from its show.
#[derive(Debug, Clone, Copy)]
pub struct Car {
    pub id: VehicleId,
    /// Where the loop starts (the spawn spot).
    anchor: Vec3,
    epoch: VehicleEpoch,
    health: f32,
    health_rev: Revision,
    siren_rev: Revision,
    pose_rev: Revision,
}

impl Car {
    /// The bot's vehicle if `show` is one of [`DRIVE_MODEL`] near `spot`.
    pub fn find(show: &VehicleSync, spot: Vec3) -> Option<Car> {
        let near = (show.pos.x - spot.x).hypot(show.pos.y - spot.y) <= FIND_RADIUS;
        (show.active && show.model == DRIVE_MODEL && near).then_some(Car {
            id: show.vehicle_id,
            anchor: show.pos,
            epoch: show.epoch,
            health: show.health,
            health_rev: show.health_rev,
            siren_rev: show.siren_rev,
            pose_rev: show.pose_rev,
        })
    }

    /// A later show of the same vehicle (a respawn, a transform seen on a new show): the
    /// frames take its epoch and revisions, or the server drops them.
    pub fn update(&mut self, show: &VehicleSync) {
        if show.active && show.vehicle_id == self.id {
            self.epoch = show.epoch;
            self.health = show.health.min(self.health);
            self.health_rev = show.health_rev;
            self.siren_rev = show.siren_rev;
            self.pose_rev = show.pose_rev;
        }
    }

    /// The frame `seq` at `t` seconds of driving.
    pub fn frame(&self, token: SessionToken, seq: u32, t: f32) -> VehicleFrame {
        let (x, y, heading, turning) = on_loop(SPEED * t);
        let z = HOME_Z + (seq % MARKS) as f32 * MARK_STEP;
        let pos = Vec3::new(self.anchor.x + x, self.anchor.y + y, z);
        let (s, c) = heading.sin_cos();
        let step = SPEED / STEPS;
        let (half_s, half_c) = (heading / 2.0).sin_cos();
        let steer = if turning { 0.35 } else { 0.0 };
        let state = VehicleState {
            // Yaw about z: local +y (forward) points along (-sin, cos).
            rot: [0.0, 0.0, half_s, half_c],
            move_speed: Vec3::new(-s * step, c * step, 0.0),
            turn_speed: Vec3::new(0.0, 0.0, if turning { step / TURN_RADIUS } else { 0.0 }),
            raw_steer: if turning { 0.5 } else { 0.0 },
            steer,
            gas: 0.5,
            health: self.health,
            epoch: self.epoch,
            health_rev: self.health_rev,
            siren_rev: self.siren_rev,
            pose_rev: self.pose_rev,
            ..VehicleState::at_rest(pos)
        };
        VehicleFrame {
            session_token: token,
            seq: Seq(seq),
            vehicle_id: self.id,
            state,
        }
    }

    /// Where the vehicle is at `t` seconds of driving.
    pub fn position(&self, t: f32) -> Vec3 {
        let (x, y, ..) = on_loop(SPEED * t);
        Vec3::new(self.anchor.x + x, self.anchor.y + y, HOME_Z)
    }
}

/// The seq's low byte a relayed frame at height `z` carries (`None`: not a bot's frame).
pub fn mark_of(z: f32) -> Option<u32> {
    let k = ((z - HOME_Z) / MARK_STEP).round();
    (0.0..MARKS as f32).contains(&k).then_some(k as u32)
}

/// The point `d` metres along the loop from its start (its offset from the start, the
/// heading in radians as VehicleState's yaw, and whether it is in a turn). The loop runs
/// +y along the first straight, turns left, back along -y, turns left again.
fn on_loop(d: f32) -> (f32, f32, f32, bool) {
    let half = PI * TURN_RADIUS;
    let lap = 2.0 * STRAIGHT + 2.0 * half;
    let d = d.rem_euclid(lap);
    if d < STRAIGHT {
        (0.0, d, 0.0, false)
    } else if d < STRAIGHT + half {
        let a = (d - STRAIGHT) / TURN_RADIUS;
        let (s, c) = a.sin_cos();
        (
            -TURN_RADIUS + TURN_RADIUS * c,
            STRAIGHT + TURN_RADIUS * s,
            a,
            true,
        )
    } else if d < 2.0 * STRAIGHT + half {
        let along = d - STRAIGHT - half;
        (-2.0 * TURN_RADIUS, STRAIGHT - along, PI, false)
    } else {
        let a = (d - 2.0 * STRAIGHT - half) / TURN_RADIUS;
        let (s, c) = a.sin_cos();
        (
            -TURN_RADIUS - TURN_RADIUS * c,
            -TURN_RADIUS * s,
            (PI + a).rem_euclid(TAU),
            true,
        )
    }
}

#[cfg(test)]
mod tests {
    use dlmp_protocol::ClientPacket;
    use dlmp_protocol::MAX_DATAGRAM;

    use super::*;

    fn car() -> Car {
        Car {
            id: VehicleId(7),
            anchor: Vec3::new(100.0, 200.0, HOME_Z),
            epoch: VehicleEpoch(2),
            health: 1000.0,
            health_rev: Revision(1),
            siren_rev: Revision(0),
            pose_rev: Revision(3),
        }
    }

    #[test]
    fn the_loop_is_continuous_and_stays_within_its_reach() {
        let c = car();
        let mut last = c.position(0.0);
        for i in 1..2000 {
            let p = c.position(i as f32 / 30.0);
            let jump = (p.x - last.x).hypot(p.y - last.y);
            assert!(jump <= SPEED / 30.0 + 1e-3, "a frame moves {jump} m");
            let from = (p.x - c.anchor.x).hypot(p.y - c.anchor.y);
            assert!(
                from <= STRAIGHT + 2.0 * TURN_RADIUS,
                "{from} m from the start"
            );
            last = p;
        }
    }

    #[test]
    fn every_frame_encodes_and_its_height_gives_back_the_seq() {
        let c = car();
        let mut buf = [0u8; MAX_DATAGRAM];
        for seq in [1u32, 255, 256, 1000, u32::MAX] {
            let f = c.frame(SessionToken(9), seq, seq as f32 / 30.0);
            assert_eq!((f.state.epoch, f.state.pose_rev), (c.epoch, c.pose_rev));
            assert_eq!(mark_of(f.state.pos.z), Some(seq % MARKS));
            ClientPacket::from(f)
                .encode(&mut buf)
                .expect("within every bound");
        }
    }
}
