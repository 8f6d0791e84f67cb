//! A server process's CPU time per thread and its memory, from /proc.

use std::collections::BTreeMap;
use std::fs;

/// CPU seconds of each thread, by thread name (threads of one name add up).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    pub threads: BTreeMap<String, f64>,
    /// Resident set, KiB.
    pub rss_kib: u64,
    /// Peak resident set, KiB.
    pub hwm_kib: u64,
}

impl Sample {
    /// `None` if the process is gone or /proc is not readable.
    pub fn take(pid: u32) -> Option<Sample> {
        let ticks = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .unwrap_or(100) as f64;
        let mut threads = BTreeMap::new();
        for task in fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
            let Ok(stat) = fs::read_to_string(task.path().join("stat")) else {
                continue;
            };
            if let Some((name, cpu)) = parse_stat(&stat) {
                *threads.entry(name).or_insert(0.0) += cpu / ticks;
            }
        }
        let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        Some(Sample {
            threads,
            rss_kib: field("VmRSS:"),
            hwm_kib: field("VmHWM:"),
        })
    }

    /// CPU seconds per thread name spent between `earlier` and `self`.
    pub fn since(&self, earlier: &Sample) -> BTreeMap<String, f64> {
        self.threads
            .iter()
            .map(|(name, &cpu)| {
                let before = earlier.threads.get(name).copied().unwrap_or(0.0);
                (name.clone(), (cpu - before).max(0.0))
            })
            .collect()
    }
}

/// `RcvbufErrors` of /proc/net/snmp: datagrams every UDP socket of the machine dropped for
/// a full receive buffer.
pub fn udp_rcvbuf_errors() -> Option<u64> {
    let snmp = fs::read_to_string("/proc/net/snmp").ok()?;
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp:"));
    let names = udp.next()?;
    let values = udp.next()?;
    let at = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(at)?.parse().ok()
}

/// The thread name and its utime + stime in clock ticks, from `/proc/PID/task/TID/stat`.
/// The name is in parentheses and may hold spaces; the fields after it are counted from
/// the closing one.
fn parse_stat(stat: &str) -> Option<(String, f64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((name, utime + stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_name_and_cpu_ticks() {
        let line = "4242 (dlmp net) S 1 2 3 4 5 6 7 8 9 10 120 30 0 0 20 0 9 0 1 2 3";
        assert_eq!(parse_stat(line), Some(("dlmp net".to_string(), 150.0)));
    }

    #[test]
    fn this_process_can_be_sampled() {
        let sample = Sample::take(std::process::id()).expect("/proc/self");
        assert!(sample.rss_kib > 0);
        assert!(!sample.threads.is_empty());
    }
}
