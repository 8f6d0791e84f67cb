//! The movement check (player.md, Admission and physics_rev): a living player's position
//! is held to what the body could have covered since the previous frame. Pure: positions
//! and times in, the held position out. Decisions: docs/decisions/0009-frame-admission.md,
//! 0017-shot-history.md (hovering).
//!
//! - Base limits ([`Limits::BASE`]): horizontal and upward speed over the time since the
//!   previous accepted frame, plus a small slack; falling is free. Unused allowance carries
//!   over to the next frame, at most 0.25 s at the limit.
//! - Throws (SetVelocity, through [`Movement::send`]): once applied (echo, or the ack and
//!   stall rules), each grants, beyond the base limits, the distance the body could have
//!   covered moving no faster than the fastest throw possible at each moment of the frame's
//!   interval. Horizontal and vertical excess combine as the legs of a right triangle.
//! - Time in the air (player.md, the gravity bullet): past it, the body may not rise, nor
//!   hold its height without a jetpack ([`HOVER_SINK`]).

use std::collections::VecDeque;
use std::time::Duration;

use crate::state::DEFAULT_GRAVITY;
use dlmp_protocol::geometry::Vec3;
use dlmp_protocol::ids::{EventId, Revision};
use dlmp_protocol::serial::Serial;

/// Speeds a body reaches on its own, m/s, and a per-frame slack, m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Horizontal speed: a sprint is about 7 m/s, a jetpack about 12; 16 leaves margin.
    pub horizontal: f32,
    /// Upward speed: a jump starts at about 6 m/s, a jetpack climbs slower. player.md
    /// holds the rise to 12.5 m/s even without gravity; the same figure is the base.
    pub rise: f32,
    /// Added to every frame's allowance: float rounding and animation shift.
    pub slack: f32,
}

impl Limits {
    pub const BASE: Limits = Limits {
        horizontal: 16.0,
        rise: 12.5,
        slack: 0.5,
    };
}

/// Unused allowance carries over at most this long at the current speed.
pub const CARRY: f32 = 0.25;
/// A throw's window runs until its upper bound plus this (a body in the air barely slows);
/// it also caps the throw's total grant (speed × this).
pub const THROW_TAIL: Duration = Duration::from_secs(4);
/// Throws tracked at once; a newer one evicts the earliest.
pub const MAX_THROWS: usize = 8;
/// Commands awaiting their echo at most; beyond that the gamemode's call is refused.
pub const MAX_PENDING: usize = 32;
/// Without an echo, the client applied a command by its ClientAck plus this.
pub const APPLY_WINDOW: Duration = Duration::from_secs(1);
/// A command counts as applied this long after its ClientAck ...
pub const ACKED_APPLIED: Duration = Duration::from_secs(2);
/// ... or this long after sending (the stall limit of the reliable lane).
pub const STALL: Duration = Duration::from_secs(15);
/// The time a fresh start (spawn, teleport) allows, as if that long had passed.
pub const FRESH_START: Duration = Duration::from_secs(1);

/// A physics command the client echoes through physics_rev.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhysicsCommand {
    /// SetVelocity: the body's new velocity, m/s (its length is what counts).
    Throw { speed: f32 },
    /// SetGravity, units per step².
    Gravity(f32),
}

/// The gamemode's call is refused: 32 commands already await their echo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFull;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Pending {
    rev: Revision,
    sent: Duration,
    ack: Option<Duration>,
    /// The lane event that carries it, once sent.
    event: Option<EventId>,
    command: PhysicsCommand,
}

/// An applied throw and what it may still grant.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Throw {
    /// Its command's revision: echoed once the client's echo reaches it.
    rev: Revision,
    speed: f32,
    start: Duration,
    end: Duration,
    /// Distance it may still grant, m.
    left: f32,
}

/// One player's movement check state.
#[derive(Debug, Clone, PartialEq)]
pub struct Movement {
    pub limits: Limits,
    /// The last held position and when it was taken; `None` before the first frame.
    last: Option<(Vec3, Duration)>,
    carry_h: f32,
    carry_up: f32,
    carry_throw: f32,
    /// The next check allows at least [`FRESH_START`] (a spawn or teleport).
    fresh: bool,
    throws: VecDeque<Throw>,
    pending: VecDeque<Pending>,
    /// The last revision sent and the last echo accepted.
    sent: Revision,
    echo: Revision,
    /// The gravity the client applied, units per step².
    pub gravity: f32,
    /// Since when the frames say the body is in the air; `None` on the ground.
    air_since: Option<Duration>,
    /// The body may hover (a jetpack).
    hover: bool,
    /// The server's z is a guess (a ground-mode teleport waiting for its landing): the
    /// vertical difference is not held, only the horizontal one (docs/decisions/0015).
    pub z_guess: bool,
    /// Past the time in the air: the height the body is held under and since when; it
    /// sinks at [`HOVER_SINK`].
    ceiling: Option<(f32, Duration)>,
    /// What carries the body (a moving object it may stand on) and until when: its
    /// velocity, m/s. Set by the world's objects ([`Movement::carried_by`]).
    carrier: Option<(Vec3, Duration)>,
}

/// A carrier's motion is allowed for this long after the world last saw it: the client
/// runs an object's movement from the packet's arrival, so it ends later there.
pub const CARRIER_GRACE: Duration = Duration::from_secs(1);

/// The time in the air allowed to rise at the game's own gravity.
pub const AIR_TIME: Duration = Duration::from_secs(4);
/// Past the time in the air a body without a jetpack comes down at least this fast, m/s:
/// gravity does not let it hold its height. A parachute's canopy sinks faster.
pub const HOVER_SINK: f32 = 1.0;
/// The ceiling of a body past its time in the air starts this far above its height, m.
pub const HOVER_SLACK: f32 = 1.0;

impl Default for Movement {
    fn default() -> Self {
        Movement {
            limits: Limits::BASE,
            last: None,
            carry_h: 0.0,
            carry_up: 0.0,
            carry_throw: 0.0,
            fresh: false,
            air_since: None,
            hover: false,
            z_guess: false,
            ceiling: None,
            carrier: None,
            throws: VecDeque::new(),
            pending: VecDeque::new(),
            sent: Revision(0),
            echo: Revision(0),
            gravity: DEFAULT_GRAVITY,
        }
    }
}

impl Movement {
    /// A moving object at `velocity` (m/s) is under or beside the body at `now` (world.md
    /// ObjectState: "a player standing on a moving object is carried by their own client,
    /// and their frames carry that position"): the next checks judge a claim also from the
    /// start carried along, for [`CARRIER_GRACE`].
    pub fn carried_by(&mut self, velocity: Vec3, now: Duration) {
        self.carrier = Some((velocity, now + CARRIER_GRACE));
    }

    /// The start a claim is judged from: the last position, or, while a carrier moves, that
    /// position carried along by it over `dt`, whichever the claim is nearer to (a body
    /// beside the carrier, not on it, keeps its own start).
    fn judged_start(&self, start: Vec3, claimed: Vec3, dt: f32, now: Duration) -> Vec3 {
        let Some((v, _)) = self.carrier.filter(|&(_, until)| now <= until) else {
            return start;
        };
        let moved = Vec3::new(start.x + v.x * dt, start.y + v.y * dt, start.z + v.z * dt);
        let d2 = |a: Vec3| {
            let (x, y, z) = (claimed.x - a.x, claimed.y - a.y, claimed.z - a.z);
            x * x + y * y + z * z
        };
        if d2(moved) < d2(start) { moved } else { start }
    }

    /// What the frame says of the body before [`Movement::check`]: on the ground or in the
    /// air, and whether it may hover (a jetpack).
    pub fn airborne(&mut self, on_ground: bool, hover: bool, now: Duration) {
        self.hover = hover;
        if on_ground {
            self.air_since = None;
            self.ceiling = None;
        } else if self.air_since.is_none() {
            self.air_since = Some(now);
        }
    }

    /// The time in the air the body may still rise: 4 s at the game's gravity, 4 s /
    /// (g / 0.008) below it, unlimited at g <= 0.
    pub fn air_time(&self) -> Option<Duration> {
        (self.gravity > 0.0)
            .then(|| AIR_TIME.mul_f32((DEFAULT_GRAVITY / self.gravity).clamp(1.0, 1.0e6)))
    }

    /// Past the time in the air the body may not hold its height (a hover without a
    /// jetpack): its height is held under a ceiling that starts [`HOVER_SLACK`] above it
    /// and sinks at [`HOVER_SINK`]. A throw that still grants lifts the hold; the next
    /// one starts from the height then.
    fn hold_hover(&mut self, start: Vec3, taken: Vec3, now: Duration) -> Vec3 {
        if !self.grounded_rise(now) || self.throw_speed(now) > 0.0 {
            self.ceiling = None;
            return taken;
        }
        let (top, since) = *self.ceiling.get_or_insert((start.z + HOVER_SLACK, now));
        let limit = top - HOVER_SINK * now.saturating_sub(since).as_secs_f32();
        Vec3::new(taken.x, taken.y, taken.z.min(limit))
    }

    /// Whether the body has been in the air longer than it may rise.
    fn grounded_rise(&self, now: Duration) -> bool {
        !self.hover
            && self.air_since.is_some_and(|since| {
                self.air_time()
                    .is_some_and(|limit| now.saturating_sub(since) > limit)
            })
    }
}

fn horizontal(d: Vec3) -> f32 {
    (d.x * d.x + d.y * d.y).sqrt()
}

impl Movement {
    /// Records a SetVelocity / SetGravity sent at `now`; its revision goes on the wire.
    pub fn send(&mut self, command: PhysicsCommand, now: Duration) -> Result<Revision, QueueFull> {
        if self.pending.len() >= MAX_PENDING {
            return Err(QueueFull);
        }
        self.sent = self.sent.next();
        self.pending.push_back(Pending {
            rev: self.sent,
            sent: now,
            ack: None,
            event: None,
            command,
        });
        Ok(self.sent)
    }

    /// Commands sent and not echoed (nor counted as applied) yet; at most [`MAX_PENDING`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Throws not echoed yet: awaiting their echo, or counted applied by the ack or stall
    /// rule without one. A teleport, a respawn or entering a vehicle discards them all.
    pub fn throws_unechoed(&self) -> usize {
        let pending = self
            .pending
            .iter()
            .filter(|p| matches!(p.command, PhysicsCommand::Throw { .. }))
            .count();
        let echo = self.echo;
        pending
            + self
                .throws
                .iter()
                .filter(|t| t.rev.is_newer_than(echo))
                .count()
    }

    /// The gravity the gamemode set last: the newest one awaiting its echo, or the applied
    /// one.
    pub fn gravity_set(&self) -> f32 {
        self.pending
            .iter()
            .rev()
            .find_map(|p| match p.command {
                PhysicsCommand::Gravity(g) => Some(g),
                PhysicsCommand::Throw { .. } => None,
            })
            .unwrap_or(self.gravity)
    }

    /// The command `rev` went out as the lane event `event`; [`Movement::lane_acked`] then
    /// sees its ClientAck.
    pub fn sent_as(&mut self, rev: Revision, event: EventId) {
        if let Some(p) = self.pending.iter_mut().find(|p| p.rev == rev) {
            p.event = Some(event);
        }
    }

    /// The client acknowledged every lane event up to `last` (ClientAck, cumulative), seen
    /// at `now`: the commands those events carry are acked.
    pub fn lane_acked(&mut self, last: EventId, now: Duration) {
        for p in &mut self.pending {
            if p.ack.is_none() && p.event.is_some_and(|e| !e.is_newer_than(last)) {
                p.ack = Some(now);
            }
        }
    }

    /// The client acknowledged the event carrying `rev` at `now`.
    pub fn acked(&mut self, rev: Revision, now: Duration) {
        for p in &mut self.pending {
            if p.rev == rev && p.ack.is_none() {
                p.ack = Some(now);
            }
        }
    }

    /// A frame echoes `rev` at `now`: an echo newer than the previous one and not newer than
    /// the last sent applies, in order, every command up to it. Returns whether the gravity
    /// changed.
    pub fn echo(&mut self, rev: Revision, now: Duration) -> bool {
        if !rev.is_newer_than(self.echo) || rev.is_newer_than(self.sent) {
            return false;
        }
        self.echo = rev;
        let mut gravity = false;
        while let Some(p) = self.pending.front().copied() {
            if p.rev.is_newer_than(rev) {
                break;
            }
            self.pending.pop_front();
            gravity |= self.apply(p, now);
        }
        gravity
    }

    /// Commands without an echo count as applied 2 s after their ack or 15 s after sending.
    /// Returns whether the gravity changed.
    pub fn expire(&mut self, now: Duration) -> bool {
        let mut gravity = false;
        while let Some(p) = self.pending.front().copied() {
            let by_ack = p.ack.is_some_and(|a| now >= a + ACKED_APPLIED);
            if !(by_ack || now >= p.sent + STALL) {
                break;
            }
            self.pending.pop_front();
            let upper = p.ack.map_or(p.sent + STALL, |a| a + APPLY_WINDOW);
            gravity |= self.apply(p, upper);
        }
        gravity
    }

    fn apply(&mut self, p: Pending, upper: Duration) -> bool {
        match p.command {
            PhysicsCommand::Gravity(g) => {
                self.gravity = g;
                true
            }
            PhysicsCommand::Throw { speed } => {
                let speed = speed.max(0.0);
                // A throw sets the velocity: earlier throws end at its upper bound.
                for t in &mut self.throws {
                    t.end = t.end.min(upper);
                }
                if self.throws.len() >= MAX_THROWS {
                    self.throws.pop_front();
                }
                self.throws.push_back(Throw {
                    rev: p.rev,
                    speed,
                    start: p.sent,
                    end: upper + THROW_TAIL,
                    left: speed * THROW_TAIL.as_secs_f32(),
                });
                false
            }
        }
    }

    /// A teleport, a respawn or entering a vehicle: the check starts again at `pos`, and
    /// throws not echoed yet are discarded (player.md, physics_rev), both those still
    /// pending and those counted applied by the ack or stall rule without an echo.
    pub fn restart(&mut self, pos: Vec3, now: Duration) {
        let echo = self.echo;
        self.throws.retain(|t| !t.rev.is_newer_than(echo));
        self.last = Some((pos, now));
        self.fresh = true;
        self.carry_h = 0.0;
        self.carry_up = 0.0;
        self.carry_throw = 0.0;
        self.air_since = None;
        self.ceiling = None;
        self.pending
            .retain(|p| !matches!(p.command, PhysicsCommand::Throw { .. }));
    }

    /// New world bounds left the body outside: the check goes on from `to`, the edge, in
    /// place of `from`, the last position taken (player.md, Admission: "start the movement
    /// check from the edge"). Nothing else starts again: throws are discarded only by
    /// [`Movement::restart`].
    pub fn shift_start(&mut self, from: Vec3, to: Vec3) {
        if let Some((pos, _)) = &mut self.last
            && *pos == from
        {
            *pos = to;
        }
    }

    /// The throw allowance over `[from, to]`: at each moment the fastest throw still
    /// granting; each throw's grant is used up as it is given.
    fn throw_allowance(&mut self, from: Duration, to: Duration) -> f32 {
        let mut cuts: Vec<Duration> = vec![from, to];
        for t in &self.throws {
            for c in [t.start, t.end] {
                if c > from && c < to {
                    cuts.push(c);
                }
            }
        }
        cuts.sort();
        let mut total = 0.0;
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let secs = (b - a).as_secs_f32();
            let best = self
                .throws
                .iter_mut()
                .filter(|t| t.start <= a && t.end >= b && t.left > 0.0)
                .max_by(|x, y| x.speed.total_cmp(&y.speed));
            if let Some(t) = best {
                let grant = (t.speed * secs).min(t.left);
                t.left -= grant;
                total += grant;
            }
        }
        self.throws.retain(|t| t.left > 0.0 && t.end > to);
        total
    }

    /// The fastest throw still granting at `now`, m/s.
    fn throw_speed(&self, now: Duration) -> f32 {
        self.throws
            .iter()
            .filter(|t| t.start <= now && t.end > now && t.left > 0.0)
            .map(|t| t.speed)
            .fold(0.0, f32::max)
    }

    /// Holds `claimed` to what the body could have covered from the server's position
    /// `server` since the previous frame; returns the position to take. A server position
    /// other than the last one taken (a spawn, a teleport) starts the check anew there.
    pub fn check(&mut self, server: Vec3, claimed: Vec3, now: Duration) -> Vec3 {
        match self.last {
            Some((pos, _)) if pos == server => {}
            _ => self.restart(server, now),
        }
        let (start, then) = self.last.unwrap_or((server, now));
        let start = self.judged_start(start, claimed, now.saturating_sub(then).as_secs_f32(), now);
        let mut dt = now.saturating_sub(then).as_secs_f32();
        if std::mem::take(&mut self.fresh) {
            dt = dt.max(FRESH_START.as_secs_f32());
        }
        let l = self.limits;
        let (rise, rise_slack) = if self.grounded_rise(now) {
            // Past the time in the air: only falling (and throws) from here on.
            self.carry_up = 0.0;
            (0.0, 0.0)
        } else {
            (l.rise, l.slack)
        };
        let d = Vec3::new(
            claimed.x - start.x,
            claimed.y - start.y,
            claimed.z - start.z,
        );
        let h = horizontal(d);
        let up = if self.z_guess { 0.0 } else { d.z.max(0.0) };
        let allowed_h = l.horizontal * dt + l.slack + self.carry_h;
        let allowed_up = rise * dt + rise_slack + self.carry_up;
        let excess_h = (h - allowed_h).max(0.0);
        let excess_up = (up - allowed_up).max(0.0);
        let throw = self.throw_allowance(then, now) + self.carry_throw;
        let excess = excess_h.hypot(excess_up);

        let taken = if excess <= throw {
            self.carry_throw = (throw - excess).min(CARRY * self.throw_speed(now));
            claimed
        } else {
            self.carry_throw = 0.0;
            let k = if excess > 0.0 { throw / excess } else { 0.0 };
            let keep_h = allowed_h + excess_h * k;
            let keep_up = allowed_up + excess_up * k;
            let sh = if h > keep_h { keep_h / h } else { 1.0 };
            let z = if up > keep_up { keep_up } else { d.z };
            Vec3::new(start.x + d.x * sh, start.y + d.y * sh, start.z + z)
        };
        let taken = self.hold_hover(start, taken, now);
        self.carry_h = (allowed_h - h).clamp(0.0, CARRY * l.horizontal);
        self.carry_up = (allowed_up - up).clamp(0.0, CARRY * rise);
        self.last = Some((taken, now));
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: f32) -> Duration {
        Duration::from_secs_f32(secs)
    }

    fn started(at: Vec3, t: f32) -> Movement {
        Movement {
            last: Some((at, s(t))),
            ..Movement::default()
        }
    }

    #[test]
    fn walking_is_taken() {
        let mut m = started(Vec3::ZERO, 10.0);
        let p = Vec3::new(0.7, 0.0, 0.0);
        assert_eq!(m.check(Vec3::ZERO, p, s(10.1)), p);
    }

    #[test]
    fn a_jump_across_the_map_is_held_to_the_limit() {
        let mut m = started(Vec3::ZERO, 10.0);
        let p = m.check(Vec3::ZERO, Vec3::new(500.0, 0.0, 0.0), s(10.1));
        let limit = 16.0 * 0.1 + 0.5;
        assert!((p.x - limit).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn rising_is_held_and_falling_is_free() {
        let mut m = started(Vec3::ZERO, 10.0);
        let p = m.check(Vec3::ZERO, Vec3::new(0.0, 0.0, 50.0), s(10.1));
        assert!(p.z < 2.0, "{p:?}");
        let down = Vec3::new(0.0, 0.0, p.z - 40.0);
        assert_eq!(m.check(p, down, s(10.2)), down);
    }

    #[test]
    fn a_server_move_starts_the_check_anew() {
        let mut m = started(Vec3::ZERO, 10.0);
        let there = Vec3::new(1000.0, 0.0, 0.0);
        let p = Vec3::new(1005.0, 0.0, 0.0);
        assert_eq!(
            m.check(there, p, s(10.1)),
            p,
            "a second's worth from the new point"
        );
    }

    #[test]
    fn unused_allowance_carries_at_most_a_quarter_second() {
        let mut m = started(Vec3::ZERO, 10.0);
        m.check(Vec3::ZERO, Vec3::ZERO, s(20.0));
        // 10 s stood still; only 0.25 s of it carries over.
        let p = m.check(Vec3::ZERO, Vec3::new(100.0, 0.0, 0.0), s(20.1));
        let limit = 16.0 * 0.1 + 0.5 + 16.0 * 0.25;
        assert!((p.x - limit).abs() < 1e-3, "{p:?}");
    }

    #[test]
    fn an_echoed_throw_allows_its_path() {
        let mut m = started(Vec3::ZERO, 10.0);
        let rev = m
            .send(PhysicsCommand::Throw { speed: 50.0 }, s(10.0))
            .expect("room");
        assert!(!m.echo(rev, s(10.1)));
        let p = Vec3::new(0.0, 0.0, 5.0);
        assert_eq!(m.check(Vec3::ZERO, p, s(10.2)), p, "10 m/s over 0.2 s");
    }

    #[test]
    fn without_ack_or_echo_a_command_counts_as_applied_15_s_after_sending() {
        let mut m = Movement::default();
        m.send(PhysicsCommand::Gravity(0.004), s(1.0))
            .expect("room");
        assert!(!m.expire(s(15.9)));
        assert_eq!((m.gravity, m.pending()), (DEFAULT_GRAVITY, 1));
        assert!(m.expire(s(16.0)), "the stall limit of the lane");
        assert_eq!((m.gravity, m.pending()), (0.004, 0));
    }

    #[test]
    fn the_horizontal_and_vertical_excess_combine_as_the_legs_of_a_right_triangle() {
        // One second of a 10 m/s throw beyond 16.5 m across and 13 m up.
        let thrown = |claimed: Vec3| {
            let mut m = started(Vec3::ZERO, 10.0);
            let rev = m
                .send(PhysicsCommand::Throw { speed: 10.0 }, s(10.0))
                .expect("room");
            m.echo(rev, s(10.0));
            m.check(Vec3::ZERO, claimed, s(11.0))
        };
        let within = Vec3::new(22.0, 0.0, 20.5);
        assert_eq!(thrown(within), within, "5.5 and 7.5 m: 9.3 m of 10");
        let beyond = Vec3::new(23.5, 0.0, 21.5);
        let p = thrown(beyond);
        assert!(p.x < 23.5 && p.z < 21.5, "7 and 8.5 m: 11 m of 10: {p:?}");
    }

    #[test]
    fn a_later_throw_ends_the_earlier_ones_at_its_upper_bound() {
        let mut m = started(Vec3::ZERO, 10.0);
        let fast = m
            .send(PhysicsCommand::Throw { speed: 100.0 }, s(10.0))
            .expect("room");
        m.echo(fast, s(10.1));
        let slow = m
            .send(PhysicsCommand::Throw { speed: 1.0 }, s(10.2))
            .expect("room");
        m.echo(slow, s(10.3));
        // 16.5 m of walking, 100 m/s until 10.3 s, then 1 m/s: about 47 m, not 60.
        let p = m.check(Vec3::ZERO, Vec3::new(60.0, 0.0, 0.0), s(11.0));
        assert!(p.x > 45.0 && p.x < 48.0, "{p:?}");
    }

    #[test]
    fn at_most_8_throws_are_tracked_a_newer_one_evicting_the_earliest() {
        // A fast throw, then slow ones, all echoed at once: the fast one grants its path
        // only while it is among the 8 tracked.
        let flight = |throws: usize| {
            let mut m = started(Vec3::ZERO, 10.0);
            let mut rev = m
                .send(PhysicsCommand::Throw { speed: 100.0 }, s(10.0))
                .expect("room");
            for _ in 1..throws {
                rev = m
                    .send(PhysicsCommand::Throw { speed: 1.0 }, s(10.0))
                    .expect("room");
            }
            m.echo(rev, s(10.5));
            m.check(Vec3::ZERO, Vec3::new(40.0, 0.0, 0.0), s(10.5)).x
        };
        assert_eq!(flight(MAX_THROWS), 40.0, "the fast throw is tracked");
        assert!(flight(MAX_THROWS + 1) < 10.0, "the fast throw was evicted");
    }

    #[test]
    fn a_throw_is_not_allowed_before_it_counts_as_applied() {
        let mut m = started(Vec3::ZERO, 10.0);
        m.send(PhysicsCommand::Throw { speed: 50.0 }, s(10.0))
            .expect("room");
        let p = m.check(Vec3::ZERO, Vec3::new(0.0, 0.0, 5.0), s(10.2));
        assert!(p.z < 5.0);
    }

    #[test]
    fn a_throw_grants_at_most_four_seconds_of_its_speed() {
        let mut m = started(Vec3::ZERO, 10.0);
        let rev = m
            .send(PhysicsCommand::Throw { speed: 10.0 }, s(10.0))
            .expect("room");
        m.acked(rev, s(10.05));
        // No echo: applied 2 s after the ack, by ack + 1 s.
        assert!(!m.expire(s(11.0)));
        m.expire(s(12.1));
        // Over 10 s the throw grants at most 40 m beyond the base limits.
        let p = m.check(Vec3::ZERO, Vec3::new(0.0, 0.0, 1000.0), s(20.0));
        let base = 12.5 * 10.0 + 0.5;
        assert!(p.z <= base + 40.0 + 1e-3 && p.z > base + 39.0, "{p:?}");
    }

    #[test]
    fn echoes_must_be_newer_and_not_beyond_the_last_sent() {
        let mut m = Movement::default();
        let r1 = m
            .send(PhysicsCommand::Gravity(0.004), s(1.0))
            .expect("room");
        assert!(!m.echo(Revision(5), s(1.1)), "never sent");
        assert!(m.echo(r1, s(1.1)));
        assert_eq!(m.gravity, 0.004);
        assert!(!m.echo(r1, s(1.2)), "not newer");
    }

    #[test]
    fn past_the_time_in_the_air_the_body_may_not_rise() {
        let mut m = started(Vec3::ZERO, 10.0);
        m.airborne(false, false, s(10.0));
        let up = Vec3::new(0.0, 0.0, 1.0);
        m.airborne(false, false, s(10.1));
        assert_eq!(m.check(Vec3::ZERO, up, s(10.1)), up);
        m.airborne(false, false, s(14.2));
        let p = m.check(up, Vec3::new(0.0, 0.0, 3.0), s(14.2));
        assert_eq!(p, up, "held at its height");
        // A jetpack hovers; lower gravity lengthens the time.
        m.airborne(false, true, s(14.3));
        let p2 = Vec3::new(0.0, 0.0, p.z + 1.0);
        assert_eq!(m.check(p, p2, s(14.3)), p2);
        m.gravity = 0.004;
        assert_eq!(m.air_time(), Some(Duration::from_secs(8)));
        m.gravity = 0.0;
        assert_eq!(m.air_time(), None);
    }

    /// Frames every 100 ms from `t0` to `t1` s, in the air, at `z(t)`; the last taken.
    fn fly(m: &mut Movement, hover: bool, t0: f32, t1: f32, z: impl Fn(f32) -> f32) -> Vec3 {
        let mut server = m.last.map(|(p, _)| p).unwrap_or(Vec3::ZERO);
        let mut t = t0;
        while t <= t1 + 1e-3 {
            m.airborne(false, hover, s(t));
            server = m.check(server, Vec3::new(0.0, 0.0, z(t)), s(t));
            t += 0.1;
        }
        server
    }

    #[test]
    fn past_the_time_in_the_air_a_body_that_holds_its_height_is_brought_down() {
        let mut m = started(Vec3::ZERO, 10.0);
        let p = fly(&mut m, false, 10.0, 13.9, |_| 0.0);
        assert_eq!(p.z, 0.0, "within the time in the air");
        let p = fly(&mut m, false, 14.0, 20.0, |_| 0.0);
        // The ceiling started about 1 m above at 4 s and sank 1 m/s since.
        assert!(p.z < -4.0 && p.z > -6.0, "{p:?}");
        // Back on the ground the hold ends at once.
        m.airborne(true, false, s(20.1));
        let ground = Vec3::new(0.0, 0.0, p.z);
        assert_eq!(m.check(p, ground, s(20.1)), ground);
    }

    #[test]
    fn a_falling_body_and_a_jetpack_are_not_held() {
        let mut m = started(Vec3::new(0.0, 0.0, 100.0), 10.0);
        let p = fly(&mut m, false, 10.0, 20.0, |t| 100.0 - 2.0 * (t - 10.0));
        assert!((p.z - 80.0).abs() < 1e-3, "a slow parachute: {p:?}");
        let mut m = started(Vec3::new(0.0, 0.0, 100.0), 10.0);
        let p = fly(&mut m, true, 10.0, 20.0, |_| 100.0);
        assert_eq!(p.z, 100.0, "a jetpack hovers");
        let mut m = started(Vec3::new(0.0, 0.0, 100.0), 10.0);
        m.gravity = 0.0;
        let p = fly(&mut m, false, 10.0, 20.0, |_| 100.0);
        assert_eq!(p.z, 100.0, "no gravity: hovering is unlimited");
    }

    #[test]
    fn a_lane_ack_bounds_a_throw_without_echo() {
        let mut m = started(Vec3::ZERO, 10.0);
        let rev = m
            .send(PhysicsCommand::Throw { speed: 10.0 }, s(10.0))
            .expect("room");
        m.sent_as(rev, EventId(7));
        m.lane_acked(EventId(6), s(10.1));
        m.expire(s(12.2));
        assert_eq!(m.pending(), 1, "event 7 not acked yet");
        m.lane_acked(EventId(9), s(10.2));
        m.expire(s(12.2));
        assert_eq!(m.pending(), 0, "applied 2 s after the ack");
    }

    #[test]
    fn a_restart_discards_throws_counted_applied_without_an_echo_and_keeps_echoed_ones() {
        // Two throws at 50 m/s: the first echoed, the second applied by the stall rule.
        let mut m = started(Vec3::ZERO, 10.0);
        let first = m
            .send(PhysicsCommand::Throw { speed: 50.0 }, s(10.0))
            .expect("room");
        m.echo(first, s(10.1));
        let mut unechoed = m.clone();
        let second = unechoed
            .send(PhysicsCommand::Throw { speed: 50.0 }, s(10.2))
            .expect("room");
        unechoed.sent_as(second, EventId(3));
        unechoed.lane_acked(EventId(3), s(10.3));
        unechoed.expire(s(12.4));
        assert_eq!(unechoed.pending(), 0, "counted applied");
        // A teleport at 12.4 s: 20 m away 0.2 s later needs a throw.
        let far = Vec3::new(20.0, 0.0, 0.0);
        unechoed.restart(Vec3::ZERO, s(12.4));
        let p = unechoed.check(Vec3::ZERO, far, s(12.6));
        assert!(p.x < 20.0, "the unechoed throw is gone: {p:?}");
        // Without the second throw, the echoed first one still grants after the restart.
        m.restart(Vec3::ZERO, s(12.4));
        assert_eq!(m.check(Vec3::ZERO, far, s(12.6)), far);
    }

    #[test]
    fn the_gravity_set_is_the_newest_awaiting_its_echo() {
        let mut m = Movement::default();
        assert_eq!(m.gravity_set(), DEFAULT_GRAVITY);
        m.send(PhysicsCommand::Gravity(0.004), s(1.0))
            .expect("room");
        m.send(PhysicsCommand::Throw { speed: 1.0 }, s(1.0))
            .expect("room");
        assert_eq!(m.gravity_set(), 0.004);
        assert_eq!(m.gravity, DEFAULT_GRAVITY, "not applied yet");
    }

    #[test]
    fn a_z_guess_holds_only_the_horizontal_difference() {
        let mut m = started(Vec3::ZERO, 10.0);
        m.z_guess = true;
        let p = Vec3::new(1.0, 0.0, 80.0);
        assert_eq!(m.check(Vec3::ZERO, p, s(10.1)), p);
        m.z_guess = false;
        let q = m.check(p, Vec3::new(1.0, 0.0, 160.0), s(10.2));
        assert!(q.z < 90.0, "{q:?}");
    }

    #[test]
    fn at_most_32_commands_await_their_echo() {
        let mut m = Movement::default();
        for _ in 0..MAX_PENDING {
            m.send(PhysicsCommand::Gravity(0.008), s(0.0))
                .expect("room");
        }
        assert_eq!(
            m.send(PhysicsCommand::Gravity(0.008), s(0.0)),
            Err(QueueFull)
        );
    }
}
