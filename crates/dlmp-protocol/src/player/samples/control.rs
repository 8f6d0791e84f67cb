//! Fixture values for the control family.

use crate::geometry::Vec3;
use crate::ids::*;
use crate::player::action::SpecialAction;
use crate::player::control::*;
use crate::sample::{Sample, sample};

pub fn teleport_player() -> TeleportPlayer {
    TeleportPlayer {
        event_id: EventId(88),
        pos: Vec3::new(2495.3, -1687.4, 13.5),
        heading: 270.0,
        area: 3,
        ground: true,
    }
}

pub fn set_frozen() -> SetFrozen {
    SetFrozen {
        event_id: EventId(89),
        frozen: true,
    }
}

pub fn set_camera() -> SetCamera {
    SetCamera {
        event_id: EventId(90),
        mode: CameraMode::Fixed,
        pos: Vec3::new(1544.2, -1353.6, 340.0),
        look_at: Vec3::new(1481.0, -1771.3, 18.8),
        transition_ms: 2_500,
        target_present: false,
        target_id: PlayerId(0),
        target_token: PlayerToken(0),
        prev_action: 0,
        next_action: 0,
    }
}

pub fn set_on_fire() -> SetOnFire {
    SetOnFire {
        event_id: EventId(91),
        on_fire: true,
    }
}

pub fn set_special_action() -> SetSpecialAction {
    SetSpecialAction {
        event_id: EventId(92),
        action: SpecialAction::Jetpack,
        rev: Revision(5),
    }
}

pub fn set_world_bounds() -> SetWorldBounds {
    SetWorldBounds {
        event_id: EventId(93),
        enabled: true,
        min_x: -2997.5,
        min_y: -125.0,
        max_x: -1180.0,
        max_y: 1660.0,
    }
}

pub fn set_world_bounds_off() -> SetWorldBounds {
    SetWorldBounds {
        event_id: EventId(94),
        enabled: false,
        min_x: 0.0,
        min_y: 0.0,
        max_x: 0.0,
        max_y: 0.0,
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("teleport_player.bin", teleport_player()),
        sample("set_frozen.bin", set_frozen()),
        sample("set_camera.bin", set_camera()),
        sample("set_on_fire.bin", set_on_fire()),
        sample("set_special_action.bin", set_special_action()),
        sample("set_world_bounds.bin", set_world_bounds()),
        sample("set_world_bounds_off.bin", set_world_bounds_off()),
    ]
}
