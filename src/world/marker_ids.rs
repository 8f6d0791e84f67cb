//! The one id counter of labels, blips, gang zones and checkpoints (world.md Label3D;
//! connection.md §5: never reused during a server's run).

use bevy_ecs::resource::Resource;

use crate::protocol::world::shared::MarkerId;

/// Hands out [`MarkerId`]s: monotonic from 1, shared by Label3D, Checkpoint, Blip and
/// GangZone, never reused.
#[derive(Resource, Debug)]
pub struct MarkerIds {
    next: u32,
}

impl Default for MarkerIds {
    fn default() -> Self {
        MarkerIds { next: 1 }
    }
}

/// The counter ran out: 2^32 - 1 markers were made in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerIdsExhausted;

impl std::fmt::Display for MarkerIdsExhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no marker ids left in this run")
    }
}

impl std::error::Error for MarkerIdsExhausted {}

impl MarkerIds {
    /// The next id; an id is never handed out twice.
    pub fn allocate(&mut self) -> Result<MarkerId, MarkerIdsExhausted> {
        let id = self.next;
        self.next = id.checked_add(1).ok_or(MarkerIdsExhausted)?;
        Ok(MarkerId(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_start_at_one_and_are_never_reused() {
        let mut ids = MarkerIds::default();
        assert_eq!(ids.allocate(), Ok(MarkerId(1)));
        assert_eq!(ids.allocate(), Ok(MarkerId(2)));
    }

    #[test]
    fn the_last_id_is_refused_rather_than_wrapped() {
        let mut ids = MarkerIds { next: u32::MAX };
        assert_eq!(ids.allocate(), Err(MarkerIdsExhausted));
    }
}
