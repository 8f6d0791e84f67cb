//! The default gamemode's map (scripts/freeroam/maps) loads without a warning: its plates
//! are applied, and the editor's attributes the protocol has no field for are one debug
//! line (ADR 0094). Alone in its binary: tracing caches a log site's interest across
//! threads, so a test running beside it could hide the very lines this one reads.

use dlmp::harness::Harness;
use dlmp::vehicle::components::Vehicle;

/// The log lines written while `f` runs, at debug level, as the console shows them.
fn log_lines(f: impl FnOnce()) -> Vec<String> {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("the sink").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(sink.0.lock().expect("the sink").clone()).expect("UTF-8");
    text.lines().map(str::to_owned).collect()
}

#[test]
fn the_default_gamemodes_map_loads_without_a_warning_and_applies_its_plates() {
    use dlmp::vehicle::tuning::{Plate, Tuning};
    let mut plates = Vec::new();
    let lines = log_lines(|| {
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
