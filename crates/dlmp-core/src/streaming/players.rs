//! The decision of player streaming (player.md, "Player streaming") for one recipient and
//! one subject: plain values in, shown or not out. I/O-free; the reconcile system
//! (the player feature's `stream.rs`) feeds it and acts on the answer.
//!
//! ```
//! use dlmp_core::position::Scope;
//! use dlmp_protocol::geometry::Vec3;
//! use dlmp_protocol::ids::PlayerId;
//! use dlmp_core::streaming::players::{Distances, Recipient, Subject, is_shown};
//!
//! let me = Recipient { id: PlayerId(0), scope: Scope::default(), center: Vec3::ZERO, spectating: None, spawned: true };
//! let you = Subject { id: PlayerId(1), scope: Scope::default(), position: Vec3::new(430.0, 0.0, 0.0), spawned: true };
//! let d = Distances::default();
//! assert!(!is_shown(&me, &you, false, None, &d), "not yet: the show distance is 420 m");
//! assert!(is_shown(&me, &you, true, None, &d), "but a shown player stays until 460 m");
//! ```

use super::engine::{Audience, Item, Rules, Viewpoint, admits, layer};
use crate::position::{Position, Scope, StreamCenter};
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::PlayerId;

/// A player is shown within this distance of the recipient's stream center, m.
pub const SHOW_DISTANCE: f32 = 420.0;
/// A shown player is hidden this far beyond the show distance, m (hysteresis).
pub const HIDE_MARGIN: f32 = 40.0;

/// The show and hide distances in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distances {
    /// Shown within this, m.
    pub show: f32,
    /// A shown player stays shown up to this, m; hidden beyond it.
    pub hide: f32,
}

impl Default for Distances {
    /// 420 m and 460 m.
    fn default() -> Self {
        Distances::new(SHOW_DISTANCE, HIDE_MARGIN, None)
    }
}

impl Distances {
    /// `show` (420 m) extended by the gamemode's weapon range to the ray of that range,
    /// `range × 3 + 20` m (player.md); hidden `margin` (40 m) beyond it. A non-finite or
    /// negative range changes nothing.
    ///
    /// ```
    /// # use dlmp_core::streaming::players::Distances;
    /// let d = Distances::new(420.0, 40.0, Some(200.0));
    /// assert_eq!((d.show, d.hide), (620.0, 660.0));
    /// assert_eq!(Distances::new(420.0, 40.0, Some(100.0)).show, 420.0);
    /// ```
    pub fn new(show: f32, margin: f32, weapon_range: Option<f32>) -> Self {
        let ray = weapon_range
            .filter(|r| r.is_finite() && *r >= 0.0)
            .map_or(0.0, |r| r * 3.0 + 20.0);
        let show = show.max(ray);
        Distances {
            show,
            hide: show + margin.max(0.0),
        }
    }

    /// The radius to look for new subjects in.
    pub fn query_radius(&self) -> f32 {
        self.show
    }
}

/// What the decision needs of the recipient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recipient {
    pub id: PlayerId,
    pub scope: Scope,
    /// Its stream center: see [`stream_center`].
    pub center: Vec3,
    /// Its spectate target (SetCamera mode 2), shown at any distance.
    pub spectating: Option<PlayerId>,
    /// A player sees others only once spawned: before its spawn it has no place in the
    /// world (its `Position` is a placeholder), and a camera set before the first spawn
    /// takes effect from the spawn (player.md, SetCamera).
    pub spawned: bool,
}

/// What the decision needs of the subject.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subject {
    pub id: PlayerId,
    pub scope: Scope,
    /// The server's position of the subject.
    pub position: Vec3,
    /// Only spawned players are shown (`Life::spawned`).
    pub spawned: bool,
}

/// The point a recipient's distances are measured from: its camera while the camera is
/// not its own (SetCamera), otherwise its body.
pub fn stream_center(body: &Position, center: &StreamCenter) -> Vec3 {
    center.camera.unwrap_or(body.0)
}

/// Whether `subject` is to be shown to `recipient` now. `shown`: whether it is shown now
/// (the hysteresis: a new show needs [`Distances::show`], an existing one lasts up to
/// [`Distances::hide`]).
///
/// In order: a player is never shown to itself; only a spawned subject is shown, and only
/// to a spawned recipient; only in
/// the recipient's scope (virtual world and interior); then `forced`, when the caller
/// has one, decides alone; a spectate target is shown at any distance; otherwise the
/// distance from the recipient's center to the subject (3D) decides. A non-finite
/// position is at no distance from anything: never shown.
///
/// The rules are the engine's ([`admits`]) with players' distances and no cap; the
/// reconcile asks the engine directly, this answers for one pair.
///
/// `forced` is the seam for seated players (player.md: "A seated player is shown exactly
/// when its vehicle is shown"): the vehicle feature answers for each recipient whether
/// it sees the vehicle, and that replaces the distance and the spectate rules.
pub fn is_shown(
    recipient: &Recipient,
    subject: &Subject,
    shown: bool,
    forced: Option<bool>,
    distances: &Distances,
) -> bool {
    /// The caller's forced answer as the engine's audience.
    struct Forced(bool);
    impl Audience for Forced {
        fn forced(&self, _: u32, _: PlayerId) -> bool {
            self.0
        }
    }
    if !subject.spawned {
        return false;
    }
    let item = Item {
        not_to: Some(subject.id),
        forced: forced.is_some(),
        ..Item::at(subject.id.0, layer(&subject.scope), subject.position)
    };
    let viewpoint = Viewpoint {
        id: recipient.id,
        layer: layer(&recipient.scope),
        center: recipient.center,
        active: recipient.spawned,
        always: recipient.spectating.map(|p| p.0),
    };
    let rules = Rules {
        distances: Some(*distances),
        cap: None,
    };
    admits(
        &rules,
        &viewpoint,
        &item,
        shown,
        &Forced(forced.unwrap_or(false)),
    )
    .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipient() -> Recipient {
        Recipient {
            id: PlayerId(0),
            scope: Scope::default(),
            center: Vec3::ZERO,
            spectating: None,
            spawned: true,
        }
    }

    fn subject_at(x: f32) -> Subject {
        Subject {
            id: PlayerId(1),
            scope: Scope::default(),
            position: Vec3::new(x, 0.0, 0.0),
            spawned: true,
        }
    }

    fn shown(s: &Subject, was: bool) -> bool {
        is_shown(&recipient(), s, was, None, &Distances::default())
    }

    #[test]
    fn shown_within_420_and_hidden_beyond_460() {
        assert!(shown(&subject_at(419.0), false));
        assert!(shown(&subject_at(420.0), false));
        assert!(!shown(&subject_at(420.5), false));
        assert!(shown(&subject_at(459.9), true));
        assert!(shown(&subject_at(460.0), true));
        assert!(!shown(&subject_at(460.5), true));
    }

    #[test]
    fn the_distance_is_three_dimensional_from_the_center() {
        let mut s = subject_at(300.0);
        s.position.z = 300.0; // ~424 m away
        assert!(!shown(&s, false));
        let mut r = recipient();
        r.center = Vec3::new(0.0, 0.0, 300.0);
        assert!(is_shown(&r, &s, false, None, &Distances::default()));
    }

    #[test]
    fn never_to_itself_never_unspawned_never_across_scopes() {
        let mut s = subject_at(1.0);
        s.id = PlayerId(0);
        assert!(!shown(&s, true));
        let mut s = subject_at(1.0);
        s.spawned = false;
        assert!(!shown(&s, true));
        let mut r = recipient();
        r.spawned = false;
        assert!(!is_shown(
            &r,
            &subject_at(1.0),
            true,
            None,
            &Distances::default()
        ));
        for scope in [
            Scope {
                virtual_world: 1,
                interior: 0,
            },
            Scope {
                virtual_world: 0,
                interior: 3,
            },
        ] {
            let mut s = subject_at(1.0);
            s.scope = scope;
            assert!(!shown(&s, true), "{scope:?}");
            assert!(!is_shown(
                &recipient(),
                &s,
                true,
                Some(true),
                &Distances::default()
            ));
        }
    }

    #[test]
    fn a_spectate_target_is_shown_at_any_distance_but_in_scope_only() {
        let mut r = recipient();
        r.spectating = Some(PlayerId(1));
        let d = Distances::default();
        assert!(is_shown(&r, &subject_at(5000.0), false, None, &d));
        let mut s = subject_at(5000.0);
        s.scope.interior = 1;
        assert!(!is_shown(&r, &s, false, None, &d));
        let mut other = subject_at(5000.0);
        other.id = PlayerId(2);
        assert!(!is_shown(&r, &other, true, None, &d));
    }

    #[test]
    fn a_forced_decision_replaces_distance_and_spectating() {
        let d = Distances::default();
        assert!(is_shown(
            &recipient(),
            &subject_at(9000.0),
            false,
            Some(true),
            &d
        ));
        assert!(!is_shown(
            &recipient(),
            &subject_at(1.0),
            true,
            Some(false),
            &d
        ));
        let mut r = recipient();
        r.spectating = Some(PlayerId(1));
        assert!(!is_shown(&r, &subject_at(1.0), false, Some(false), &d));
    }

    #[test]
    fn a_weapon_range_extends_the_show_distance_to_its_ray() {
        let d = Distances::new(SHOW_DISTANCE, HIDE_MARGIN, Some(300.0));
        assert_eq!((d.show, d.hide), (920.0, 960.0));
        assert!(is_shown(&recipient(), &subject_at(919.0), false, None, &d));
        assert!(is_shown(&recipient(), &subject_at(959.0), true, None, &d));
        assert!(!is_shown(&recipient(), &subject_at(961.0), true, None, &d));
        for range in [Some(f32::NAN), Some(-5.0), Some(10.0), None] {
            assert_eq!(
                Distances::new(SHOW_DISTANCE, HIDE_MARGIN, range),
                Distances::default(),
                "{range:?}"
            );
        }
    }

    #[test]
    fn a_non_finite_position_is_never_shown() {
        for x in [f32::NAN, f32::INFINITY] {
            assert!(!shown(&subject_at(x), false));
            assert!(!shown(&subject_at(x), true));
        }
    }

    #[test]
    fn the_center_is_the_camera_while_it_is_set() {
        let body = Position(Vec3::new(1.0, 2.0, 3.0));
        let mut center = StreamCenter::default();
        assert_eq!(stream_center(&body, &center), body.0);
        center.camera = Some(Vec3::new(9.0, 9.0, 9.0));
        assert_eq!(stream_center(&body, &center), Vec3::new(9.0, 9.0, 9.0));
    }
}
