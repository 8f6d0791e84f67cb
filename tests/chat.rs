//! connection.md §4: chat lines, commands and the chat rate limit, in the harness.

use std::time::Duration;

use bevy_ecs::prelude::*;
use dlmp::chat::{ChatCommandsExt, CommandCall, notify};
use dlmp::harness::Harness;
use dlmp::protocol::connection::chat::ChatMessage;
use dlmp::session::Connection;

/// A command that answers its caller with its arguments.
fn echo(In(call): In<CommandCall>, mut connections: Query<&mut Connection>) {
    if let Ok(mut conn) = connections.get_mut(call.player) {
        notify(&mut conn, &format!("echo: {}", call.args));
    }
}

fn with_echo() -> Harness {
    Harness::with_app(Harness::config(), |app| {
        app.add_chat_command("echo", echo);
    })
}

#[test]
fn a_chat_line_goes_to_everyone_as_name_colon_text() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.chat(a, "hello there");
    h.step();
    assert_eq!(h.chat_lines(a), ["alice: hello there"]);
    assert_eq!(h.chat_lines(b), ["alice: hello there"]);
    assert_eq!(h.packets::<ChatMessage>(b)[0].color, dlmp::chat::CHAT_COLOR);
}

#[test]
fn a_long_line_is_cut_to_144_bytes_on_a_character_boundary() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let text = "é".repeat(72); // 144 bytes
    h.chat(a, &text);
    h.step();
    let got = &h.chat_lines(a)[0];
    assert!(got.len() <= 144 && got.starts_with("alice: é"));
}

#[test]
fn a_command_goes_to_its_handler_and_nobody_sees_it() {
    let mut h = with_echo();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.chat(a, "/ECHO  one two ");
    h.steps(2);
    assert_eq!(h.chat_lines(a), ["echo: one two"]);
    assert!(h.chat_lines(b).is_empty());
}

#[test]
fn an_unhandled_command_answers_unknown_command() {
    let mut h = with_echo();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.chat(a, "/fly");
    h.step();
    assert_eq!(h.chat_lines(a), ["Unknown command"]);
    assert!(h.chat_lines(b).is_empty());
}

#[test]
fn past_five_lines_at_once_a_line_is_dropped_and_the_player_told_once() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    for n in 0..8 {
        h.chat(a, &format!("line {n}"));
    }
    h.steps(2);
    let seen = h.chat_lines(b);
    assert_eq!(
        seen,
        (0..5)
            .map(|n| format!("alice: line {n}"))
            .collect::<Vec<_>>()
    );
    let told: Vec<_> = h
        .chat_lines(a)
        .into_iter()
        .filter(|t| !t.starts_with("alice:"))
        .collect();
    assert_eq!(told, ["You are sending messages too fast."]);
    // One line a second comes back.
    h.advance(Duration::from_millis(1_000));
    h.chat(a, "again");
    h.step();
    assert_eq!(
        h.chat_lines(b).last().map(String::as_str),
        Some("alice: again")
    );
}

#[test]
fn a_dropped_line_is_still_acknowledged() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    for n in 0..7 {
        h.chat(a, &format!("line {n}"));
    }
    h.steps(2);
    let acks: Vec<_> = h.packets::<dlmp::protocol::connection::lane::ServerAck>(a);
    assert_eq!(acks.last().map(|a| a.event_id.0), Some(7));
}

#[test]
fn a_duplicate_chat_event_is_applied_once() {
    let mut h = Harness::new();
    let a = h.connect("alice");
    let b = h.connect("bob");
    let chat = dlmp::protocol::connection::chat::ClientChat {
        session_token: h.token(a),
        event_id: dlmp::protocol::ids::EventId(1),
        text: dlmp::protocol::connection::chat::ChatText::new("once").expect("text"),
    };
    h.send(a, chat.clone());
    h.send(a, chat);
    h.steps(2);
    assert_eq!(h.chat_lines(b), ["alice: once"]);
}

/// connection.md §3 and ADR 0020: `dlmp.send_chat` to a full lane. To listed players the
/// line goes to all or none, and the call raises "queue full" naming the full one; to
/// everyone it goes to every lane with room and returns the players it did not reach.
mod full_lane {
    use dlmp::harness::{ClientId, Harness, TempScripts};
    use dlmp::lane::Delivery;

    const GM: &str = r#"
local function names(list)
    local out = {}
    for _, p in ipairs(list) do out[#out + 1] = p:name() end
    return table.concat(out, ",")
end
dlmp.on("player_command", function(p, name, args)
    if name == "pair" then
        local ok, err = pcall(dlmp.send_chat, "to the pair", nil, dlmp.players())
        _G.E = ok and "sent" or tostring(err):match("^[^\n]*")
    elseif name == "all" then
        _G.E = "missed " .. names(dlmp.send_chat("to all"))
    elseif name == "flood" then
        local ok = 0
        for i = 1, 600 do
            if pcall(dlmp.send_chat, "line " .. i, nil, { dlmp.players()[1] }) then ok = ok + 1 end
        end
        _G.E = "queued " .. ok
    elseif name == "err" then
        dlmp.send_chat(_G.E, nil, { p })
    end
    return true
end)
"#;

    fn setup(test: &str) -> (TempScripts, Harness, ClientId, ClientId) {
        let s = TempScripts::new(test);
        s.resource("gm", GM);
        let mut h = s.harness();
        let a = h.connect("alice");
        let b = h.connect("bob");
        h.steps(2);
        h.set_auto_ack(a, false);
        h.fill_lane(a, Delivery::Normal, 0);
        h.clear(a);
        h.clear(b);
        (s, h, a, b)
    }

    /// What the gamemode kept, asked by `c` once every lane has room again.
    fn kept(h: &mut Harness, a: ClientId, c: ClientId) -> String {
        h.release_lane(a);
        h.take_chat_lines(c);
        h.chat(c, "/err");
        h.steps(2);
        h.take_chat_lines(c).join("|")
    }

    fn lines(h: &Harness, c: ClientId, text: &str) -> usize {
        h.chat_lines(c).iter().filter(|l| l.contains(text)).count()
    }

    #[test]
    fn to_listed_players_a_full_lane_raises_queue_full_and_nobody_gets_it() {
        let (_s, mut h, a, b) = setup("chat-pair-full");
        h.chat(b, "/pair");
        h.steps(2);
        assert_eq!(lines(&h, b, "to the pair"), 0, "all or none");
        let error = kept(&mut h, a, b);
        assert!(error.contains("send_chat: queue full"), "{error}");
        assert!(error.contains("alice"), "names the full lane: {error}");
        assert_eq!(lines(&h, a, "to the pair"), 0, "nothing went later");
    }

    #[test]
    fn to_everyone_the_line_skips_a_full_lane_and_returns_who_missed_it() {
        let (_s, mut h, a, b) = setup("chat-all-full");
        h.chat(b, "/all");
        h.steps(2);
        assert_eq!(lines(&h, b, "to all"), 1);
        assert_eq!(kept(&mut h, a, b), "missed alice");
        assert_eq!(lines(&h, a, "to all"), 0);
    }

    #[test]
    fn every_line_the_call_accepted_arrives() {
        let (_s, mut h, a, b) = setup("chat-flood");
        h.release_lane(a);
        h.set_auto_ack(a, false);
        h.clear(a);
        h.chat(b, "/flood");
        h.steps(2);
        let answer = kept(&mut h, a, b);
        let queued: usize = answer
            .strip_prefix("queued ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{answer}"));
        assert!(queued < 600, "the lane holds 512 at most: {queued}");
        h.steps(20);
        assert_eq!(lines(&h, a, "line "), queued, "no accepted line is lost");
    }
}

/// Every character that can make a line display as something else: the bidirectional
/// controls, the zero-width and invisible characters, a tag character.
const SPOOFING: [char; 24] = [
    '\u{061C}',
    '\u{00AD}',
    '\u{115F}',
    '\u{1160}',
    '\u{180E}',
    '\u{200B}',
    '\u{200C}',
    '\u{200D}',
    '\u{200E}',
    '\u{200F}',
    '\u{202A}',
    '\u{202B}',
    '\u{202C}',
    '\u{202D}',
    '\u{202E}',
    '\u{2060}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{3164}',
    '\u{FEFF}',
    '\u{FFA0}',
    '\u{E0041}',
];

#[test]
fn a_chat_line_loses_each_character_that_could_make_it_spoof() {
    let scripts = dlmp::harness::TempScripts::new("chat_spoof");
    scripts.resource(
        "gm",
        r#"dlmp.on("player_chat", function(p, text) dlmp.send_chat("heard: " .. text, nil, { p }) end)"#,
    );
    let mut h = scripts.harness();
    let a = h.connect("alice");
    let b = h.connect("bob");
    h.step();
    for (i, c) in SPOOFING.iter().enumerate() {
        // A line that would show "admin: ..." reversed, or hide a gap in a name.
        let text = format!("{c}nimda{c} says hi");
        h.chat(a, &text);
        h.step();
        h.advance(Duration::from_millis(1100));
        let lines = h.take_chat_lines(b);
        assert_eq!(
            lines,
            ["alice: nimda says hi"],
            "char {i}: U+{:04X}",
            *c as u32
        );
        let lines = h.take_chat_lines(a);
        assert!(
            lines.contains(&"heard: nimda says hi".to_owned()),
            "the gamemode heard it stripped (U+{:04X}): {lines:?}",
            *c as u32
        );
    }
    // A line of nothing but such characters says nothing.
    h.chat(a, "\u{202E}\u{200B}");
    h.steps(3);
    assert!(h.take_chat_lines(b).is_empty());
}

#[test]
fn a_gamemodes_line_is_stripped_unless_it_asks_for_it_raw() {
    let scripts = dlmp::harness::TempScripts::new("chat_spoof_gm");
    scripts.resource(
        "gm",
        r#"
        dlmp.add_command("say", function(p, args)
            dlmp.send_chat("\u{202E}plain\u{200B}", nil, { p })
            dlmp.send_chat("\u{202E}raw\u{200B}", nil, { p }, { raw = true })
        end)
        "#,
    );
    let mut h = scripts.harness();
    let a = h.connect("alice");
    h.chat(a, "/say");
    h.steps(3);
    assert_eq!(
        h.take_chat_lines(a),
        ["plain", "\u{202E}raw\u{200B}"],
        "stripped, then exactly as the gamemode asked"
    );
}
