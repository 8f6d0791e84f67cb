//! Vehicle damage (vehicles.md, VehicleDamage and RemoteVehicleDamage): the 18-byte
//! VehicleDamageStatus, the controlling player's report and its relay.
//!
//! The status the server sends (RemoteVehicleDamage, VehicleSync) refuses anything out of
//! range. A report (VehicleDamage) decodes whatever its values: it is a reliable event the
//! page has the server drop after reading, and a decode failure would never be
//! acknowledged and would stall the client's lane (ADR 0007); the damage feature checks
//! its ranges with [`ReportedStatus::checked`] and counts the drop (ADR 0061).

use crate::check;
use crate::error::{FieldError, Rule};
use crate::ids::{EventId, Revision, SessionToken, VehicleEpoch, VehicleId};
use crate::packet::FieldDoc;
use crate::wire::{Reader, Validate, Wire, Writer};
use crate::{packet, wire_struct};

/// Panels: seven nibbles (0 LF fender, 1 RF, 2 LR, 3 RR, 4 windscreen, 5 front bumper,
/// 6 rear bumper); bits 28..31 are 0.
pub const PANEL_COUNT: u32 = 7;
/// The highest panel state.
pub const MAX_PANEL: u32 = 3;
/// Broken-light bits: 2 bits per light, only the low one of each pair is used.
pub const LIGHTS_MASK: u32 = 0x55;
/// A door's damage: 0 intact, 2 damaged, 4 missing.
pub const DOOR_DAMAGED: u8 = 2;
pub const DOOR_MISSING: u8 = 4;
/// The game's "open" bit of a door state; never in a status the server sends.
pub const DOOR_OPEN_BIT: u8 = 1;
/// A wheel: 0 intact, 1 burst, 2 fallen off.
pub const MAX_WHEEL: u8 = 2;

wire_struct! {
    /// VehicleDamageStatus, 18 bytes: the visible damage of a car, quad bike, monster
    /// truck or motorbike (a motorbike only has `wheels[0]` front and `wheels[1]` rear).
    #[derive(Copy, Default)]
    pub struct VehicleDamageStatus {
        /// Nibble i = panel i, each 0..=3; bits 28..31 are 0.
        pub panels: u32,
        /// Bonnet, boot, LF, RF, LR, RR: 0 intact, 2 damaged, 4 missing.
        pub doors: [u8; 6],
        /// Broken lights, 1 = broken, within [`LIGHTS_MASK`].
        pub lights: u32,
        /// 0 intact, 1 burst, 2 fallen off.
        pub wheels: [u8; 4],
    }
}

impl VehicleDamageStatus {
    /// No damage: what a respawn leaves.
    pub const INTACT: VehicleDamageStatus = VehicleDamageStatus {
        panels: 0,
        doors: [0; 6],
        lights: 0,
        wheels: [0; 4],
    };

    /// The state of panel `i` (0..7).
    pub fn panel(&self, i: u32) -> u8 {
        ((self.panels >> (4 * i)) & 0xF) as u8
    }

    /// A status the server sends: doors only 0, 2 or 4, the open bit clear (the server
    /// clears it in a report, vehicles.md VehicleDamage).
    pub fn check_sent_doors(&self) -> Result<(), FieldError> {
        check::ensure(
            self.doors.iter().all(|d| d & DOOR_OPEN_BIT == 0),
            "doors",
            Rule::Reserved,
        )
    }
}

/// The ranges the server accepts in a report (vehicles.md VehicleDamage): seven panels
/// each ≤ 3 with the top nibble clear, doors ≤ 4, lights within the mask, wheels ≤ 2. A
/// door may carry the open bit here; the server's packets check
/// [`VehicleDamageStatus::check_sent_doors`] on top.
impl Validate for VehicleDamageStatus {
    fn validate(&self) -> Result<(), FieldError> {
        check::bits_within("panels", self.panels, (1 << (4 * PANEL_COUNT)) - 1)?;
        check::ensure(
            (0..PANEL_COUNT).all(|i| u32::from(self.panel(i)) <= MAX_PANEL),
            "panels",
            Rule::OutOfRange,
        )?;
        check::ensure(
            self.doors.iter().all(|&d| d <= DOOR_MISSING),
            "doors",
            Rule::OutOfRange,
        )?;
        check::bits_within("lights", self.lights, LIGHTS_MASK)?;
        check::ensure(
            self.wheels.iter().all(|&w| w <= MAX_WHEEL),
            "wheels",
            Rule::OutOfRange,
        )
    }
}

/// A [`VehicleDamageStatus`] as the controlling player reports it: the same 18 bytes,
/// decoded without the ranges (see the module's notes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReportedStatus(pub VehicleDamageStatus);

impl ReportedStatus {
    /// The status if every value is in the page's range (the open bit of a door may be
    /// set: the server clears it), or the rule it breaks. Light bits outside the mask are
    /// masked, not a reason to refuse (vehicles.md: "lights: the union within the mask").
    pub fn checked(&self) -> Result<VehicleDamageStatus, FieldError> {
        let status = VehicleDamageStatus {
            lights: self.0.lights & LIGHTS_MASK,
            ..self.0
        };
        status.validate()?;
        Ok(status)
    }
}

impl Wire for ReportedStatus {
    const SIZE: usize = <VehicleDamageStatus as Wire>::SIZE;
    const DOC_FIELDS: &'static [FieldDoc] = <VehicleDamageStatus as Wire>::DOC_FIELDS;

    fn read(r: &mut Reader<'_>) -> Result<Self, FieldError> {
        Ok(ReportedStatus(VehicleDamageStatus {
            panels: u32::read(r).map_err(|e| e.at("panels"))?,
            doors: <[u8; 6]>::read(r).map_err(|e| e.at("doors"))?,
            lights: u32::read(r).map_err(|e| e.at("lights"))?,
            wheels: <[u8; 4]>::read(r).map_err(|e| e.at("wheels"))?,
        }))
    }

    fn write(&self, w: &mut Writer<'_>) {
        w.field(&self.0.panels);
        w.field(&self.0.doors);
        w.field(&self.0.lights);
        w.field(&self.0.wheels);
    }
}

packet! {
    /// VehicleDamage (0x3F), Client → Server: the controlling player's damage status of
    /// its copy, at most ~10 a second (vehicles.md).
    pub struct VehicleDamage = 0x3F, ClientToServer {
        pub session_token: SessionToken,
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub epoch: VehicleEpoch,
        /// Decoded whatever its values; the server drops one out of range. Doors may
        /// carry the open bit (≤ 4); the server clears it.
        pub status: ReportedStatus,
        /// The last gamemode damage command the copy took.
        pub damage_rev: Revision,
    }
}

impl Validate for VehicleDamage {}

packet! {
    /// RemoteVehicleDamage (0x40), Server → Client: the stored status after an accepted
    /// report (to all but the sender) or a gamemode command (to all, new `damage_rev`).
    pub struct RemoteVehicleDamage = 0x40, ServerToClient {
        pub event_id: EventId,
        pub vehicle_id: VehicleId,
        pub epoch: VehicleEpoch,
        /// Doors only 0, 2 or 4.
        pub status: VehicleDamageStatus,
        pub damage_rev: Revision,
    }
}

impl Validate for RemoteVehicleDamage {
    fn validate(&self) -> Result<(), FieldError> {
        self.status.check_sent_doors()
    }
}
