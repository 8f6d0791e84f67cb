//! docs/protocol.md is the code's: regenerated in memory, it must equal the file
//! (`cargo run --example protocol_doc` rewrites it).

use dlmp::protocol::doc::protocol_markdown;
use dlmp::protocol::{ClientPacket, ServerPacket};

#[test]
fn the_page_equals_the_declarations() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/protocol.md");
    let file = std::fs::read_to_string(&path).expect("docs/protocol.md exists");
    assert!(
        file == protocol_markdown(),
        "docs/protocol.md is stale: run `cargo run --example protocol_doc`"
    );
}

#[test]
fn every_packet_and_field_is_on_the_page() {
    let page = protocol_markdown();
    for p in ClientPacket::DOCS.iter().chain(ServerPacket::DOCS) {
        assert!(page.contains(&format!("\n### {}\n", p.name)), "{}", p.name);
        assert!(page.contains(&format!("| 0x{:02X} | [{}]", p.id, p.name)));
        for f in p.fields {
            assert!(
                page.contains(&format!("| `{}` |", f.name)),
                "{}.{}",
                p.name,
                f.name
            );
        }
    }
    assert!(
        page.contains("| 0x08 | [ChatMessage](#chatmessage) | reliable |"),
        "a reliable one"
    );
}
