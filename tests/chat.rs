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
