//! weapons.md: projectiles, satchel charges, stealth kills and the gamemode's explosions.

pub mod explosion;
pub mod projectile;
pub mod samples;
pub mod satchel;
pub mod stealth;
