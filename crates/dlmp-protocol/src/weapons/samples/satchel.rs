//! Fixture values for the satchel family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::sample::{Sample, sample};
use crate::weapons::satchel::*;

/// Two satchels by the Blueberry Acres farm: one on the ground, one riding a Sadler.
pub fn satchel_detonate() -> SatchelDetonate {
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = Vec3::new(-59.5, -22.75, 2.0);
    pos[1] = Vec3::new(-48.25, -31.0, 3.5);
    SatchelDetonate {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(421),
        count: 2,
        pos,
    }
}

/// Three satchels on the Easter Basin docks, relayed to a player the thrower is shown to.
pub fn remote_satchel_detonate() -> RemoteSatchelDetonate {
    let mut pos = [Vec3::ZERO; 8];
    pos[0] = Vec3::new(-1688.5, 14.25, 3.5);
    pos[1] = Vec3::new(-1691.0, 18.75, 3.5);
    pos[2] = Vec3::new(-1684.25, 22.0, 4.0);
    RemoteSatchelDetonate {
        id: PlayerId(12),
        player_token: PlayerToken(57),
        event_id: EventId(6_020),
        count: 3,
        pos,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("satchel_detonate.bin", satchel_detonate()),
        sample("remote_satchel_detonate.bin", remote_satchel_detonate()),
    ]
}
