//! docs/protocol.md, generated from the packet declarations ([`ClientPacket::DOCS`],
//! [`ServerPacket::DOCS`]): every packet's id, name, direction, lane, size and fields,
//! nested structures' fields by their path, with the doc comments the declarations carry
//! and the values the decoder accepts ([`super::probe`], from the fixtures).
//! `cargo run -p dlmp-protocol --example protocol_doc` writes the file; `tests/protocol_doc.rs` keeps it
//! equal to the code.

use std::fmt::Write;

use super::dispatch::PacketDoc;
use super::packet::FieldDoc;
use super::probe::{At, accepted};
use super::sample::Sample;
use super::{ClientPacket, ServerPacket};

/// The page, in Markdown.
pub fn protocol_markdown() -> String {
    let mut out = String::from(
        "# The DLMP wire format, as this server declares it\n\n\
         Generated from the packet declarations in `crates/dlmp-protocol/src/` by \
         `cargo run -p dlmp-protocol --example protocol_doc`; `tests/protocol_doc.rs` fails when this page \
         and the code differ. Every datagram is one packet: `packet_id` (u8) first, then \
         the fields below in order, little-endian, at most 1200 bytes (connection.md §1). \
         *Lane*: `reliable` packets carry an `event_id` and ride a reliable event lane \
         (connection.md §3); the others are unreliable. *Size* counts the bytes after \
         `packet_id`; `≥ N` is the smallest encoding of a variable-size packet. A field's \
         range is its type's unless its description says more; the decoder enforces both \
         and the encoder checks the same. A structure's fields follow it as \
         `name.field` rows. *Accepts* is found by the decoder itself: the packet's \
         fixture (`fixtures/`) with that one field changed, every value of a byte and \
         the ends of the accepted interval of a wider number (an array: of its first \
         element), so it holds with the other fields as in the fixture; a rule that \
         depends on another field is in the description. Every `f32` must be finite.\n",
    );
    let samples = super::sample::all();
    for (title, docs) in [
        ("Client → Server", ClientPacket::DOCS),
        ("Server → Client", ServerPacket::DOCS),
    ] {
        let _ = write!(
            out,
            "\n## {title}\n\n| id | packet | lane | size |\n| --- | --- | --- | --- |\n"
        );
        let mut sorted: Vec<&PacketDoc> = docs.iter().collect();
        sorted.sort_by_key(|p| p.id);
        for p in &sorted {
            let _ = writeln!(
                out,
                "| 0x{:02X} | [{}](#{}) | {} | {} |",
                p.id,
                p.name,
                p.name.to_lowercase(),
                lane(p),
                size(p.size, p.fixed)
            );
        }
        for p in sorted {
            let sample = samples
                .iter()
                .find(|s| s.id() == p.id && s.direction() == p.direction)
                .map(|s| &**s);
            packet(&mut out, p, sample);
        }
    }
    out
}

fn lane(p: &PacketDoc) -> &'static str {
    if p.reliable { "reliable" } else { "unreliable" }
}

fn size(size: usize, fixed: bool) -> String {
    if fixed {
        size.to_string()
    } else {
        format!("≥ {size}")
    }
}

fn packet(out: &mut String, p: &PacketDoc, sample: Option<&dyn Sample>) {
    let _ = write!(
        out,
        "\n### {}\n\n0x{:02X}, {}, {}, {} bytes.",
        p.name,
        p.id,
        match p.direction {
            super::Direction::ClientToServer => "client → server",
            super::Direction::ServerToClient => "server → client",
        },
        lane(p),
        size(p.size, p.fixed)
    );
    let text = doc_text(p.attrs);
    if !text.is_empty() {
        let _ = write!(out, " {text}");
    }
    out.push('\n');
    if p.fields.is_empty() {
        out.push_str("\nNo fields after `packet_id`.\n");
        return;
    }
    if sample.is_none() {
        out.push_str("\nNo fixture: *accepts* is not probed.\n");
    }
    out.push_str(
        "\n| field | type | bytes | accepts | description |\n| --- | --- | --- | --- | --- |\n",
    );
    fields(out, "", p.fields, Some(1), sample);
}

/// Rows for `list`, the first starting `offset` bytes into the encoded packet (`None`
/// once a variable-size field came before), nested structures after their field.
fn fields(
    out: &mut String,
    prefix: &str,
    list: &[FieldDoc],
    mut offset: Option<usize>,
    sample: Option<&dyn Sample>,
) {
    for f in list {
        let name = format!("{prefix}{}", f.name);
        let probed = offset
            .zip(sample)
            .and_then(|(at, s)| accepted(s, At::of(f, at)))
            .map(|a| {
                if f.ty.trim_start().starts_with('[') {
                    format!("each: {a}")
                } else {
                    a
                }
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} | {} |",
            name,
            f.ty.replace(' ', ""),
            size(f.size, f.fixed),
            probed,
            doc_text(f.attrs).replace('|', "\\|")
        );
        if !f.nested.is_empty() {
            fields(out, &format!("{name}."), f.nested, offset, sample);
        }
        offset = offset.filter(|_| f.fixed).map(|at| at + f.size);
    }
}

/// The doc comment among `attrs` (`doc = "..."`, as `stringify!` gives them), one line.
fn doc_text(attrs: &[&str]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|a| {
            literal(
                a.strip_prefix("doc")?
                    .trim_start()
                    .strip_prefix('=')?
                    .trim(),
            )
        })
        .collect();
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A string literal's text: raw (`r"..."`, `r#"..."#`, what doc comments become) or
/// escaped.
fn literal(lit: &str) -> Option<String> {
    if let Some(raw) = lit.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body = raw.get(hashes..raw.len().checked_sub(hashes)?)?;
        return Some(body.strip_prefix('"')?.strip_suffix('"')?.to_owned());
    }
    Some(unescape(lit.strip_prefix('"')?.strip_suffix('"')?))
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push(' '),
            Some('t') => out.push(' '),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}
