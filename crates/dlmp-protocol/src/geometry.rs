//! Vectors as the pages lay them out: consecutive finite `f32`s.

use super::wire::Validate;
use crate::wire_struct;

wire_struct! {
    /// `f32 x, y, z`: a position, offset or velocity in world units.
    #[derive(Copy, Default)]
    pub struct Vec3 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }
}

impl Validate for Vec3 {}

impl Vec3 {
    pub const ZERO: Vec3 = Vec3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vec3 { x, y, z }
    }

    pub fn length(&self) -> f32 {
        (self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }
}

/// The distance between two points.
pub fn distance(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, a.y - b.y, a.z - b.z).length()
}
