//! The special action values (player.md, "special_action, special_rev, jet_*"), shared by
//! the Frame and SetSpecialAction.

use crate::wire_enum;

wire_enum! {
    /// What the body is doing beyond moving; set by the gamemode, ended by the owner.
    #[derive(Default)]
    pub enum SpecialAction: u8 {
        #[default]
        None = 0,
        Jetpack = 1,
        /// Stands still.
        HandsUp = 2,
        /// Walks with a phone at the ear.
        Phone = 3,
        Dance1 = 4,
        Dance2 = 5,
        Dance3 = 6,
        Dance4 = 7,
        /// Walks as if carrying a load; no sprint or jump.
        Carry = 8,
    }
}
