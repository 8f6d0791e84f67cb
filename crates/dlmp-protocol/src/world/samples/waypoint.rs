//! Fixture values for the waypoint family.

use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::world::waypoint::*;

pub fn player_waypoint() -> PlayerWaypoint {
    PlayerWaypoint {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(28),
        active: 1,
        x: AnyF32(1245.5),
        y: AnyF32(-912.25),
    }
}

pub fn set_waypoint() -> SetWaypoint {
    SetWaypoint {
        event_id: EventId(122),
        active: true,
        x: -1989.0,
        y: 138.5,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("player_waypoint.bin", player_waypoint()),
        sample("set_waypoint.bin", set_waypoint()),
    ]
}
