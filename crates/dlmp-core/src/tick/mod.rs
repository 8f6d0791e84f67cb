//! The floor below every feature: the ordered system sets of one tick, the transport the
//! features send through, and the shutdown flag and message they hear. A feature imports
//! from here and from the crates below it, never from the server assembly (`dlmp`), which assembles the
//! features into the app (ADR 0038).

mod sets;
mod shutdown;
mod transport;

pub use sets::{GameplaySystems, ServerSystems, StreamingSystems};
pub use shutdown::{ServerShutdown, ShutdownFlag, ShutdownPlugin};
pub use transport::{StepDeadline, Transport};

pub use sets::configure;
