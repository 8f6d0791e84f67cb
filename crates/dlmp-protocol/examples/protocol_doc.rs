//! Writes docs/protocol.md from the packet declarations (`dlmp_protocol::doc`).

fn main() -> std::io::Result<()> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md");
    std::fs::write(&path, dlmp_protocol::doc::protocol_markdown())?;
    println!("wrote {}", path.display());
    Ok(())
}
