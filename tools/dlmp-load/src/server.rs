//! `--spawn-server`: the tool starts a dlmp-server on a free loopback port and stops it
//! (SIGTERM, so it says Disconnect to the bots) when the run ends.

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::cli::Args;

pub struct Spawned {
    child: Child,
    pub addr: SocketAddr,
    pub pid: u32,
}

impl Spawned {
    pub fn start(path: &Path, args: &Args) -> io::Result<Spawned> {
        // A free port: bound, read, released (a tiny race with other programs).
        let addr = UdpSocket::bind("127.0.0.1:0")?.local_addr()?;
        // At least 256 slots: a quarter of them may be unproven at once (ADR 0018), and a
        // server behind its ticks takes the proofs of a burst's hellos only in the step
        // whose deadline they arrived before (ADR 0043), so a few slots would refuse a
        // smoke run's 20 hellos as server full.
        let max_players = (args.bots + 8).clamp(256, usize::from(u16::MAX));
        let server_args = [
            "--bind".to_string(),
            addr.to_string(),
            "--max-players".to_string(),
            max_players.to_string(),
            "--scripts".to_string(),
            args.scripts.display().to_string(),
        ];
        let mut command = match args.server_core {
            Some(core) => {
                let mut c = Command::new("taskset");
                c.arg("-c").arg(core.to_string()).arg(path);
                c
            }
            None => Command::new(path),
        };
        let child = command
            .args(&server_args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()?;
        let pid = child.id();
        // Give it a moment to bind; the bots resend their hellos anyway.
        thread::sleep(Duration::from_millis(300));
        Ok(Spawned { child, addr, pid })
    }

    /// SIGTERM, then at most 5 s for a clean exit, then kill.
    pub fn stop(mut self) {
        let _ = kill(Pid::from_raw(self.pid as i32), Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
