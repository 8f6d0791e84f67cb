//! Fixture values for chat.

use crate::connection::chat::*;
use crate::ids::*;
use crate::sample::{Sample, sample};

pub fn client_chat() -> ClientChat {
    ClientChat {
        session_token: SessionToken(0x8F3A_11C0_7D2E_9B45),
        event_id: EventId(57),
        text: ChatText::new("anyone up for a race to Mount Chiliad? meet at the Café")
            .expect("a chat line"),
    }
}

pub fn chat_message() -> ChatMessage {
    ChatMessage {
        event_id: EventId(1_288),
        color: Color::rgb(0xFF, 0xA5, 0x00),
        text: ChatText::new(
            "Carl_Johnson: anyone up for a race to Mount Chiliad? meet at the Café",
        )
        .expect("a chat line"),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("client_chat.bin", client_chat()),
        sample("chat_message.bin", chat_message()),
    ]
}
