//! Fixture values for damage reports.

use crate::connection::damage::*;
use crate::ids::*;
use crate::sample::{Sample, sample};

pub fn damage_report() -> DamageReport {
    DamageReport {
        session_token: SessionToken(0x3C7D_0A19_E4B2_5F68),
        event_id: EventId(61),
        damage_seq: Seq(14),
        has_attacker: true,
        attacker_id: PlayerId(7),
        attacker_token: PlayerToken(42),
        // Desert Eagle
        weapon: 24,
        amount: 46.2,
        // torso
        bodypart: 3,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![sample("damage_report.bin", damage_report())]
}
