//! Fixture values for weapons.md, one file per packet family.

use crate::sample::Sample;

pub mod explosion;
pub mod projectile;
pub mod satchel;
pub mod stealth;

pub fn all() -> Vec<Box<dyn Sample>> {
    let families = [
        projectile::all(),
        satchel::all(),
        stealth::all(),
        explosion::all(),
    ];
    families.into_iter().flatten().collect()
}
