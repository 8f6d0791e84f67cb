//! `dlmp-load --smoke` against the real server binary on 127.0.0.1: 20 bots in one city
//! join, spawn, are teleported by freeroam's `/tp`, walk for 2 s and acknowledge every
//! event; 4 of them get a vehicle with freeroam's `/v`, enter it and drive it, and 4
//! vehicles are left parked. The tool checks correctness (every bot walked, frames accepted and relayed,
//! relays delivered) and exits 1 otherwise; this test reads its JSON report too.
//! Correctness, not speed: no figure of time is asserted.

use std::path::PathBuf;
use std::process::Command;

/// The server binary the workspace's `cargo test` built beside this test's own folder
/// (target/debug/dlmp-server): the tool and the server are two packages, so cargo names
/// only the tool's own binary to this test.
fn server_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/PROFILE/deps/TEST");
    let server = profile_dir.join(format!("dlmp-server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        server.exists(),
        "{} is missing: run the workspace's tests (`cargo test` at the root), which build it",
        server.display()
    );
    server
}

#[test]
fn twenty_bots_join_walk_and_see_each_other() {
    let output = Command::new(env!("CARGO_BIN_EXE_dlmp-load"))
        .args(["--smoke", "--json", "--spawn-server"])
        .arg(server_binary())
        .arg("--scripts")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts"))
        .output()
        .expect("run dlmp-load");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "dlmp-load failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("a JSON report");
    let counts = &report["counts"];
    assert_eq!(counts["bots"], 20);
    assert_eq!(counts["walking"], 16, "{report:#}");
    assert_eq!(counts["driving"], 4, "{report:#}");
    assert_eq!(counts["gone"], 0, "{report:#}");
    assert!(counts["frames_sent"].as_u64() > Some(0), "{report:#}");
    // One city of 20: every bot is due every other bot's frames.
    assert_eq!(
        counts["relays_due"].as_u64(),
        counts["frames_sent"].as_u64().map(|f| f * 19),
        "{report:#}"
    );
    // The tool's bar: a quarter of the frames relayed (a debug server behind its ticks
    // still relays only the newer of two frames that reach one tick, issue 11), and each
    // relayed frame reaching its due viewers.
    assert!(report["relayed_ratio"].as_f64() >= Some(0.25), "{report:#}");
    assert!(report["fanout_ratio"].as_f64() >= Some(0.9), "{report:#}");
    // The drivers' frames: sent, accepted and relayed as RemoteVehicleFrame to every bot
    // of the city (16 walkers at least; the other drivers when their loops stay within
    // 200 m), with the same bar.
    assert!(
        counts["vehicle_frames_sent"].as_u64() > Some(0),
        "{report:#}"
    );
    assert!(
        counts["vehicle_relays_due"].as_u64()
            >= counts["vehicle_frames_sent"].as_u64().map(|f| f * 16),
        "{report:#}"
    );
    assert!(
        report["vehicle_relayed_ratio"].as_f64() >= Some(0.25),
        "{report:#}"
    );
    assert!(
        report["vehicle_fanout_ratio"].as_f64() >= Some(0.9),
        "{report:#}"
    );
    assert!(
        report["server"]["rss_mib"].as_f64() > Some(0.0),
        "{report:#}"
    );
}
