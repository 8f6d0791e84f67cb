//! Signing in (ADR 0102): the accounts of the config, sessions held in memory behind a
//! random cookie (HttpOnly, SameSite=Strict, Secure under TLS, expiring), a CSRF token per
//! session that every POST carries, and a growing delay per address after failed
//! sign-ins.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dlmp_ops::accounts::{AdminRole, AdminUser};

/// The session cookie's name.
pub const COOKIE: &str = "dlmp_admin";
/// A session ends this long after it began.
pub const SESSION_LIFE: Duration = Duration::from_secs(8 * 3600);
/// ... or this long after its last request.
pub const SESSION_IDLE: Duration = Duration::from_secs(3600);
/// Sessions held at most; a new one past it ends the oldest.
const MAX_SESSIONS: usize = 256;
/// The first delay after a failed sign-in; each further failure doubles it.
pub const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest delay.
pub const MAX_DELAY: Duration = Duration::from_secs(300);
/// Addresses whose failures are remembered at most.
const MAX_ADDRESSES: usize = 4096;

/// A signed-in admin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub name: String,
    pub role: AdminRole,
    pub csrf: String,
    began: Instant,
    seen: Instant,
}

/// Failed sign-ins from one address.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    until: Instant,
}

/// The accounts, the sessions and the sign-in limit.
#[derive(Debug)]
pub struct Auth {
    users: Vec<AdminUser>,
    sessions: Mutex<HashMap<String, Session>>,
    failures: Mutex<HashMap<IpAddr, Failures>>,
    /// Checked against when the name is unknown, so a wrong name costs what a wrong
    /// password does.
    dummy_hash: String,
}

/// Why a sign-in was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Too soon after a failure: try again after this long.
    Wait(Duration),
    WrongNameOrPassword,
}

/// 32 random bytes as hex.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // No randomness means no safe session: refuse to make one rather than a guessable one.
    if getrandom::fill(&mut bytes).is_err() {
        return String::new();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares in time independent of where the strings differ.
#[must_use]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

impl Auth {
    #[must_use]
    pub fn new(users: Vec<AdminUser>) -> Self {
        Auth {
            users,
            sessions: Mutex::new(HashMap::new()),
            failures: Mutex::new(HashMap::new()),
            dummy_hash: dlmp_ops::password::hash_password("-").unwrap_or_default(),
        }
    }

    /// Whether `ip` must wait before it may try again, and how long.
    pub fn wait_for(&self, ip: IpAddr) -> Option<Duration> {
        let failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let until = failures.get(&ip)?.until;
        until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }

    /// Checks `name` and `password` (slow on purpose: call it off the async threads) and
    /// opens a session: its cookie value.
    pub fn sign_in(&self, ip: IpAddr, name: &str, password: &str) -> Result<String, Refused> {
        if let Some(wait) = self.wait_for(ip) {
            return Err(Refused::Wait(wait));
        }
        let user = self
            .users
            .iter()
            .find(|u| u.name.eq_ignore_ascii_case(name));
        let hash = user.map_or(self.dummy_hash.as_str(), |u| u.password_hash.as_str());
        let matches = dlmp_ops::password::verify_password(password, hash).unwrap_or(false);
        let (Some(user), true) = (user, matches) else {
            self.fail(ip);
            return Err(Refused::WrongNameOrPassword);
        };
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&ip);
        let token = random_token();
        let csrf = random_token();
        if token.is_empty() || csrf.is_empty() {
            return Err(Refused::WrongNameOrPassword);
        }
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|_, s| live(s, now));
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, s)| s.began)
                .map(|(k, _)| k.clone())
        {
            sessions.remove(&oldest);
        }
        sessions.insert(
            token.clone(),
            Session {
                name: user.name.clone(),
                role: user.role,
                csrf,
                began: now,
                seen: now,
            },
        );
        Ok(token)
    }

    fn fail(&self, ip: IpAddr) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if failures.len() >= MAX_ADDRESSES {
            failures.retain(|_, f| f.until > now);
        }
        let entry = failures.entry(ip).or_insert(Failures {
            count: 0,
            until: now,
        });
        entry.count = entry.count.saturating_add(1);
        let delay = FIRST_DELAY
            .saturating_mul(1u32 << (entry.count - 1).min(16))
            .min(MAX_DELAY);
        entry.until = now + delay;
    }

    /// The live session of cookie value `token`; seeing it keeps it alive.
    pub fn session(&self, token: &str) -> Option<Session> {
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let session = sessions.get_mut(token)?;
        if !live(session, now) {
            sessions.remove(token);
            return None;
        }
        session.seen = now;
        Some(session.clone())
    }

    pub fn sign_out(&self, token: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(token);
    }
}

fn live(s: &Session, now: Instant) -> bool {
    now.duration_since(s.began) < SESSION_LIFE && now.duration_since(s.seen) < SESSION_IDLE
}

/// The session cookie's value in a `Cookie` header.
#[must_use]
pub fn cookie_value(header: &str) -> Option<&str> {
    header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The `Set-Cookie` value of a new session.
#[must_use]
pub fn set_cookie(token: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        SESSION_LIFE.as_secs(),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that ends the session in the browser.
#[must_use]
pub fn clear_cookie(secure: bool) -> String {
    format!(
        "{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{}",
        if secure { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> Auth {
        Auth::new(vec![AdminUser {
            name: "ann".into(),
            password_hash: dlmp_ops::password::hash_password("pw").expect("a hash"),
            role: AdminRole::Owner,
        }])
    }

    #[test]
    fn failures_from_an_address_make_it_wait_longer_each_time() {
        let a = auth();
        let ip = IpAddr::from([10, 0, 0, 1]);
        assert_eq!(
            a.sign_in(ip, "ann", "nope"),
            Err(Refused::WrongNameOrPassword)
        );
        let Err(Refused::Wait(first)) = a.sign_in(ip, "ann", "pw") else {
            panic!("the right password too must wait");
        };
        assert!(first <= FIRST_DELAY && first > Duration::ZERO);
        let other = IpAddr::from([10, 0, 0, 2]);
        let token = a.sign_in(other, "ANN", "pw").expect("another address may");
        let session = a.session(&token).expect("live");
        assert_eq!(
            (session.name.as_str(), session.role),
            ("ann", AdminRole::Owner)
        );
        assert_eq!(session.csrf.len(), 64);
        a.sign_out(&token);
        assert!(a.session(&token).is_none());
        a.fail(ip);
        a.fail(ip);
        let wait = a.wait_for(ip).expect("waiting");
        assert!(wait > Duration::from_secs(3), "{wait:?}");
    }

    #[test]
    fn cookies_are_read_and_set_strictly() {
        assert_eq!(cookie_value("a=1; dlmp_admin=xyz; b=2"), Some("xyz"));
        assert_eq!(cookie_value("dlmp_adminx=1"), None);
        let set = set_cookie("t", true);
        for part in ["HttpOnly", "SameSite=Strict", "Secure", "Max-Age="] {
            assert!(set.contains(part), "{set}");
        }
        assert!(same("abc", "abc") && !same("abc", "abd") && !same("abc", "ab"));
    }
}
