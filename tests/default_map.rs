//! The default gamemode's map (scripts/freeroam/maps) loads without a warning: its plates
//! are applied, and the editor's attributes the protocol has no field for are one debug
//! line (ADR 0094). Alone in its binary: tracing caches a log site's interest across
//! threads, so a test running beside it could hide the very lines this one reads.

mod support;

use dlmp::harness::Harness;
use dlmp::vehicle::components::Vehicle;

#[test]
fn the_default_gamemodes_map_loads_without_a_warning_and_applies_its_plates() {
    use dlmp::vehicle::tuning::{Plate, Tuning};
    let mut plates = Vec::new();
    let lines = support::log_lines(tracing::Level::DEBUG, || {
        let mut h = Harness::with_config(dlmp::config::Config {
            scripts: "scripts".into(),
            resources: vec!["freeroam".into()],
            ..Harness::config()
        });
        h.steps(2);
        let mut q = h.world_mut().query::<(&Vehicle, &Tuning)>();
        plates = q.iter(h.world()).map(|(_, t)| t.plate).collect();
        assert_eq!(h.script_host().errors(), 0);
    });
    let warnings: Vec<&String> = lines.iter().filter(|l| l.contains(" WARN ")).collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    let unsupported: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("attributes the protocol has no field for"))
        .collect();
    assert_eq!(unsupported.len(), 1, "one debug line: {lines:#?}");
    assert!(unsupported[0].contains("DEBUG"), "{}", unsupported[0]);
    assert!(!plates.is_empty(), "the park's vehicles");
    assert!(
        plates.iter().all(|p| *p == Plate::parse("FREEROAM").ok()),
        "{plates:?}"
    );
}
