//! editing.md: the map-editing session. The server opens it for one player
//! ([`state::EditState`]), the player picks and moves entities with requests the server
//! checks ([`entity::EntityEdit`]) and may fly a free camera whose position it reports
//! ([`camera::EditCamera`]).

pub mod camera;
pub mod entity;
pub mod samples;
pub mod state;

pub use camera::EditCamera;
pub use entity::{EditAction, EntityEdit};
pub use state::{EditEndReason, EditFlags, EditKind, EditKinds, EditSessionId, EditState};
