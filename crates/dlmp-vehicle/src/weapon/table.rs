//! The vehicle weapon table (vehicles.md VehicleShot: "The model defines the weapon"):
//! `assets/vehicle_weapons.tsv`, the first six columns of the shared data table of the
//! same name (its README gives the sources), parsed once when the plugin is built, so a
//! bad table stops the start.

use std::time::Duration;

use bevy_ecs::prelude::*;

const SOURCE: &str = include_str!("../../../../assets/vehicle_weapons.tsv");

/// The kind of a model's weapon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WeaponKind {
    MachineGun,
    TwinMachineGuns,
    Minigun,
    /// The Rhino's: its ray is the aim ray the shell explodes on.
    Cannon,
}

impl WeaponKind {
    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "machine_gun" => WeaponKind::MachineGun,
            "twin_machine_guns" => WeaponKind::TwinMachineGuns,
            "minigun" => WeaponKind::Minigun,
            "cannon" => WeaponKind::Cannon,
            _ => return None,
        })
    }

    /// Bullet rays (remembered for DamageReport attribution, rewound on the relay).
    pub fn fires_bullets(self) -> bool {
        self != WeaponKind::Cannon
    }
}

/// One model's weapon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VehicleWeapon {
    pub model: u16,
    pub kind: WeaponKind,
    /// Rays in every salvo (VehicleShot.count).
    pub rays: u8,
    /// The weapon a hit names in DamageReport (51: the cannon's explosion).
    pub hit_weapon: u8,
    /// The game's interval between salvos; the server takes one after half of it.
    pub interval: Duration,
}

/// The weapon table, by model.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct VehicleWeapons {
    rows: Vec<VehicleWeapon>,
}

impl VehicleWeapons {
    /// The shipped table.
    ///
    /// # Panics
    /// If `assets/vehicle_weapons.tsv` does not parse (a broken build, caught by its unit
    /// test).
    pub fn load() -> Self {
        parse(SOURCE).unwrap_or_else(|e| panic!("assets/vehicle_weapons.tsv: {e}"))
    }

    /// The weapon of `model`, if it has one.
    pub fn get(&self, model: u16) -> Option<&VehicleWeapon> {
        self.rows.iter().find(|w| w.model == model)
    }
}

impl Default for VehicleWeapons {
    fn default() -> Self {
        Self::load()
    }
}

/// `model name weapon rays hit_weapon_id interval_ms` rows after a header.
fn parse(text: &str) -> Result<VehicleWeapons, String> {
    let mut rows: Vec<VehicleWeapon> = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let line_no = n + 1;
        let cols: Vec<&str> = line.split('\t').collect();
        let [model, _name, kind, rays, hit, interval, ..] = cols[..] else {
            return Err(format!("line {line_no}: fewer than 6 columns"));
        };
        let number = |what: &str, v: &str| -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("line {line_no}: {what} {v:?} is not a number"))
        };
        let model = u16::try_from(number("model", model)?)
            .ok()
            .filter(|m| dlmp_protocol::vehicle::sync::MODELS.contains(m))
            .ok_or_else(|| format!("line {line_no}: model {model} is not 400..=611"))?;
        let kind = WeaponKind::parse(kind)
            .ok_or_else(|| format!("line {line_no}: unknown weapon {kind:?}"))?;
        let rays = u8::try_from(number("rays", rays)?)
            .ok()
            .filter(|r| (1..=dlmp_protocol::vehicle::shot::MAX_RAYS).contains(r))
            .ok_or_else(|| format!("line {line_no}: rays {rays} is not 1..=2"))?;
        let hit_weapon = u8::try_from(number("hit_weapon_id", hit)?)
            .ok()
            .filter(|w| *w <= 54)
            .ok_or_else(|| format!("line {line_no}: hit weapon {hit} is not 0..=54"))?;
        let interval = Duration::from_millis(number("interval_ms", interval)?);
        if rows.iter().any(|w| w.model == model) {
            return Err(format!("line {line_no}: model {model} twice"));
        }
        rows.push(VehicleWeapon {
            model,
            kind,
            rays,
            hit_weapon,
            interval,
        });
    }
    Ok(VehicleWeapons { rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_holds_the_pages_seven_weapons() {
        let t = VehicleWeapons::load();
        let row = |m: u16| {
            let w = t.get(m).expect("a weapon");
            (w.kind, w.rays, w.hit_weapon, w.interval.as_millis())
        };
        assert_eq!(row(425), (WeaponKind::MachineGun, 1, 38, 60));
        assert_eq!(row(447), (WeaponKind::MachineGun, 1, 31, 40));
        assert_eq!(row(476), (WeaponKind::TwinMachineGuns, 2, 31, 80));
        assert_eq!(row(430), (WeaponKind::TwinMachineGuns, 2, 52, 150));
        assert_eq!(row(432), (WeaponKind::Cannon, 1, 51, 800));
        assert_eq!(row(464), (WeaponKind::MachineGun, 1, 31, 40));
        assert_eq!(row(564), (WeaponKind::Minigun, 1, 38, 60));
        assert!(t.get(411).is_none());
    }

    #[test]
    fn a_bad_row_is_an_error() {
        let head = "model\tname\tweapon\trays\thit_weapon_id\tinterval_ms\n";
        for bad in [
            "425\tHunter\tlaser\t1\t38\t60",
            "425\tHunter\tmachine_gun\t3\t38\t60",
            "399\tX\tmachine_gun\t1\t38\t60",
            "425\tHunter\tmachine_gun\t1\t38",
            "425\tHunter\tmachine_gun\t1\t38\t60\n425\tHunter\tmachine_gun\t1\t38\t60",
        ] {
            assert!(parse(&format!("{head}{bad}")).is_err(), "{bad}");
        }
    }
}
