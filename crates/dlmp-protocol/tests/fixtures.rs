//! Every fixture in `fixtures/` decodes to its entry in the fixture table and re-encodes
//! byte for byte; every fixture file has an entry and every entry a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dlmp_protocol::query::QUERY_IDS;
use dlmp_protocol::sample;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[test]
fn every_fixture_decodes_to_its_table_entry_and_reencodes_byte_for_byte() {
    let mut failures = Vec::new();
    for s in sample::all() {
        let path = fixtures_dir().join(s.file());
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", s.file()));
                continue;
            }
        };
        if let Err(e) = s.check(&bytes) {
            failures.push(e);
        }
        match s.encode() {
            Ok(encoded) if encoded == bytes => {}
            Ok(encoded) => failures.push(format!(
                "{}: re-encoded {encoded:02x?}, file {bytes:02x?}",
                s.file()
            )),
            Err(e) => failures.push(format!("{}: {e}", s.file())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_file_has_a_table_entry_and_every_entry_a_file() {
    let table: BTreeSet<String> = sample::all().iter().map(|s| s.file().to_owned()).collect();
    assert_eq!(
        table.len(),
        sample::all().len(),
        "two entries share a file name"
    );
    let files: BTreeSet<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures/ exists")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".bin"))
        .collect();
    let no_entry: Vec<_> = files.difference(&table).collect();
    let no_file: Vec<_> = table.difference(&files).collect();
    assert!(
        no_entry.is_empty() && no_file.is_empty(),
        "files without entry: {no_entry:?}; entries without file: {no_file:?}"
    );
}

#[test]
fn every_packet_type_has_a_fixture_and_every_fixture_a_packet_type() {
    use dlmp_protocol::{ClientPacket, Direction, ServerPacket, bundle};
    let typed: BTreeSet<(Direction, u8, &str)> = ClientPacket::PACKETS
        .iter()
        .map(|&(id, name)| (Direction::ClientToServer, id, name))
        .chain(
            ServerPacket::PACKETS
                .iter()
                .map(|&(id, name)| (Direction::ServerToClient, id, name)),
        )
        // The bundle is a framing of several packets, not a dispatched type (connection.md §1).
        .chain([(Direction::ServerToClient, bundle::BUNDLE_ID, bundle::NAME)])
        .collect();
    // The query packets (query.md) are answered before the dispatch enums.
    let fixtured: BTreeSet<(Direction, u8, &str)> = sample::all()
        .iter()
        .filter(|s| !QUERY_IDS.contains(&s.id()))
        .map(|s| (s.direction(), s.id(), s.packet()))
        .collect();
    let no_fixture: Vec<_> = typed.difference(&fixtured).collect();
    let no_type: Vec<_> = fixtured.difference(&typed).collect();
    assert!(
        no_fixture.is_empty() && no_type.is_empty(),
        "packet types without a fixture: {no_fixture:?}; fixtures of no dispatched type: {no_type:?}"
    );
}

#[test]
fn every_fixture_decodes_through_its_direction_enum() {
    use dlmp_protocol::{ClientPacket, Direction, MAX_DATAGRAM, ServerPacket, bundle};
    for s in sample::all()
        .into_iter()
        .filter(|s| !QUERY_IDS.contains(&s.id()))
    {
        let bytes = std::fs::read(fixtures_dir().join(s.file())).expect("fixture file");
        if s.id() == bundle::BUNDLE_ID {
            // Not a packet of the enum: every inner packet decodes through it instead.
            let parsed = bundle::Bundle::parse(&bytes).expect("the bundle fixture parses");
            for inner in parsed.iter() {
                let p = ServerPacket::decode(inner).unwrap_or_else(|e| panic!("{}: {e}", s.file()));
                let mut buf = [0u8; MAX_DATAGRAM];
                let n = p.encode(&mut buf).expect("re-encodes");
                assert_eq!(&buf[..n], inner, "{}", s.file());
            }
            continue;
        }
        let mut buf = [0u8; MAX_DATAGRAM];
        let n = match s.direction() {
            Direction::ClientToServer => {
                let p =
                    ClientPacket::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", s.file()));
                assert_eq!(p.name(), s.packet());
                p.encode(&mut buf)
            }
            Direction::ServerToClient => {
                let p =
                    ServerPacket::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", s.file()));
                assert_eq!(p.name(), s.packet());
                p.encode(&mut buf)
            }
        };
        assert_eq!(&buf[..n.expect("re-encodes")], &bytes[..], "{}", s.file());
    }
}
