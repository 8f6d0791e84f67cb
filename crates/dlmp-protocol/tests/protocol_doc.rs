//! docs/protocol.md is the code's: regenerated in memory, it must equal the file
//! (`cargo run -p dlmp-protocol --example protocol_doc` rewrites it).

use dlmp_protocol::doc::protocol_markdown;
use dlmp_protocol::{ClientPacket, FieldDoc, ServerPacket};

/// Every field of `list` under `prefix` has its row, nested ones by their path.
fn rows(page: &str, packet: &str, prefix: &str, list: &[FieldDoc]) {
    for f in list {
        let name = format!("{prefix}{}", f.name);
        assert!(page.contains(&format!("| `{name}` |")), "{packet}.{name}");
        rows(page, packet, &format!("{name}."), f.nested);
    }
}

#[test]
fn the_page_equals_the_declarations() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    let file = std::fs::read_to_string(&path).expect("docs/protocol.md exists");
    assert!(
        file == protocol_markdown(),
        "docs/protocol.md is stale: run `cargo run -p dlmp-protocol --example protocol_doc`"
    );
}

#[test]
fn every_packet_and_field_is_on_the_page() {
    let page = protocol_markdown();
    for p in ClientPacket::DOCS.iter().chain(ServerPacket::DOCS) {
        assert!(page.contains(&format!("\n### {}\n", p.name)), "{}", p.name);
        assert!(page.contains(&format!("| 0x{:02X} | [{}]", p.id, p.name)));
        rows(&page, p.name, "", p.fields);
    }
    assert!(
        page.contains("| 0x08 | [ChatMessage](#chatmessage) | reliable |"),
        "a reliable one"
    );
}

/// The *accepts* column is the decoder's: the pages' ranges come out of the fixtures with
/// one field changed.
#[test]
fn the_accepted_values_are_the_decoders_and_match_the_pages() {
    let page = protocol_markdown();
    for row in [
        // player.md, PlayerSync "Admission": |x|, |y| <= 6000, z in -200..=4000, parachute
        // stage <= 3, special action <= 8, jet thrust -1..=1.
        "| `frame.pos.x` | `f32` | 4 | -6000..=6000 |",
        "| `frame.pos.z` | `f32` | 4 | -200..=4000 |",
        "| `frame.parachute_stage` | `u8` | 1 | 0..=3 |",
        "| `frame.special_action` | `SpecialAction` | 1 | 0..=8 |",
        "| `frame.jet_thrust` | `i8` | 1 | -1..=1 |",
        "| `frame.ducked` | `bool` | 1 | 0, 1 |",
        // player.md, SetGravity: -0.1..0.1; SetWanted: 0..6.
        "| `gravity` | `f32` | 4 | -0.1..=0.1 |",
        "| `level` | `u8` | 1 | 0..=6 |",
        // player.md, SetPlayerStats: 0..1000 each.
        "| `stamina` | `u16` | 2 | 0..=1000 |",
    ] {
        assert!(page.contains(row), "{row}");
    }
}
