//! The bans in memory (ADR 0032): one record per IP with who was banned, by whom, when,
//! why and until when. The hello gate never waits on the database: this list (mirrored
//! into the session registry's ban set) decides, and the database is written behind it.

use std::collections::BTreeMap;
use std::net::IpAddr;

/// Seconds since the Unix epoch.
pub type UnixSeconds = i64;

/// One ban.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ban {
    /// The banned address (canonical: an IPv4-mapped IPv6 address is its IPv4 one).
    pub ip: IpAddr,
    /// The name of the player banned, or empty for an address banned as such.
    pub name: String,
    /// `console` or the resource that banned.
    pub by: String,
    pub reason: String,
    pub at: UnixSeconds,
    /// `None`: until lifted.
    pub until: Option<UnixSeconds>,
    /// The server it was made on (`server_id`; ADR 0104), or empty for a ban from before
    /// bans recorded it.
    pub server: String,
}

impl Ban {
    #[must_use]
    pub fn expired(&self, now: UnixSeconds) -> bool {
        self.until.is_some_and(|u| u <= now)
    }

    /// One line for `bans` and the logs: address, name, who, when, why and until.
    #[must_use]
    pub fn describe(&self) -> String {
        let name = if self.name.is_empty() {
            "-"
        } else {
            &self.name
        };
        let until = self
            .until
            .map_or_else(|| "permanent".to_owned(), |u| format!("until {}", utc(u)));
        let reason = if self.reason.is_empty() {
            "-"
        } else {
            &self.reason
        };
        format!(
            "{}  {name}  by {} at {}  {until}  reason: {reason}",
            self.ip,
            self.by,
            utc(self.at)
        )
    }
}

/// `YYYY-MM-DD HH:MM UTC` (civil-from-days, Howard Hinnant's algorithm).
#[must_use]
pub fn utc(t: UnixSeconds) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// The bans by address.
#[derive(Debug, Clone, Default)]
pub struct BanList {
    bans: BTreeMap<IpAddr, Ban>,
}

impl BanList {
    /// Records `ban` (replacing an earlier ban of its address).
    pub fn insert(&mut self, mut ban: Ban) -> &Ban {
        ban.ip = ban.ip.to_canonical();
        let ip = ban.ip;
        self.bans.insert(ip, ban);
        &self.bans[&ip]
    }

    #[must_use]
    pub fn get(&self, ip: IpAddr) -> Option<&Ban> {
        self.bans.get(&ip.to_canonical())
    }

    /// Lifts the bans `what` names: an address, else every ban of that player name
    /// (ignoring ASCII case).
    pub fn remove(&mut self, what: &str) -> Vec<Ban> {
        if let Ok(ip) = what.parse::<IpAddr>() {
            return self.bans.remove(&ip.to_canonical()).into_iter().collect();
        }
        let ips: Vec<IpAddr> = self
            .bans
            .values()
            .filter(|b| !b.name.is_empty() && b.name.eq_ignore_ascii_case(what))
            .map(|b| b.ip)
            .collect();
        ips.iter().filter_map(|ip| self.bans.remove(ip)).collect()
    }

    /// Removes and returns the bans whose time is up at `now`.
    pub fn expire(&mut self, now: UnixSeconds) -> Vec<Ban> {
        let ips: Vec<IpAddr> = self
            .bans
            .values()
            .filter(|b| b.expired(now))
            .map(|b| b.ip)
            .collect();
        ips.iter().filter_map(|ip| self.bans.remove(ip)).collect()
    }

    /// Every ban, oldest first.
    #[must_use]
    pub fn list(&self) -> Vec<&Ban> {
        let mut all: Vec<&Ban> = self.bans.values().collect();
        all.sort_by_key(|b| (b.at, b.ip));
        all
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.bans.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bans.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use super::*;

    fn ban(ip: [u8; 4], name: &str, until: Option<i64>) -> Ban {
        Ban {
            ip: IpAddr::from(ip),
            name: name.into(),
            by: "console".into(),
            reason: "cheating".into(),
            at: 1_000,
            until,
            server: "one".into(),
        }
    }

    #[test]
    fn unban_by_address_or_by_name() {
        let mut list = BanList::default();
        list.insert(ban([10, 0, 0, 1], "Smoke", None));
        list.insert(ban([10, 0, 0, 2], "smoke", None));
        list.insert(ban([10, 0, 0, 3], "", None));
        let mapped = IpAddr::V6(Ipv4Addr::new(10, 0, 0, 3).to_ipv6_mapped());
        assert!(list.get(mapped).is_some(), "addresses are canonical");
        assert_eq!(list.remove("SMOKE").len(), 2);
        assert!(
            list.remove("").is_empty(),
            "an empty name names no address ban"
        );
        assert_eq!(list.remove("10.0.0.3").len(), 1);
        assert!(list.is_empty());
        assert!(list.remove(&Ipv6Addr::LOCALHOST.to_string()).is_empty());
    }

    #[test]
    fn bans_expire_at_their_time() {
        let mut list = BanList::default();
        list.insert(ban([10, 0, 0, 1], "a", Some(2_000)));
        list.insert(ban([10, 0, 0, 2], "b", None));
        assert!(list.expire(1_999).is_empty());
        let gone = list.expire(2_000);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].name, "a");
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn a_ban_reads_who_when_why_and_until() {
        let b = Ban {
            at: 1_764_583_800,
            until: Some(1_764_587_400),
            ..ban([10, 0, 0, 1], "Smoke", None)
        };
        assert_eq!(
            b.describe(),
            "10.0.0.1  Smoke  by console at 2025-12-01 10:10 UTC  until 2025-12-01 11:10 UTC  reason: cheating"
        );
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
    }
}
