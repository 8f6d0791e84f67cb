//! Regenerates `fixtures/` from the fixture table (`dlmp_protocol::sample::all`):
//! `cargo run -p dlmp-protocol --example fixtures`. A field change in the table is one edit, then this.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    std::fs::create_dir_all(&dir)?;
    for sample in dlmp_protocol::sample::all() {
        let bytes = sample.encode()?;
        std::fs::write(dir.join(sample.file()), &bytes)?;
        println!(
            "{:<36} {:>4} bytes  {}",
            sample.file(),
            bytes.len(),
            sample.packet()
        );
    }
    Ok(())
}
