//! Fixture values for query.md.

use super::packets::*;
use crate::connection::handshake::PROTOCOL_VERSION;
use crate::sample::{Sample, sample};
use crate::text::{FixedText, Text};

pub fn query_info() -> QueryInfo {
    QueryInfo {
        magic: QUERY_MAGIC,
        nonce: 0x0DDB_A11E,
        pad: [0; 184],
    }
}

pub fn server_info() -> ServerInfo {
    ServerInfo {
        nonce: 0x0DDB_A11E,
        protocol: PROTOCOL_VERSION,
        players: 2,
        max_players: 1000,
        tick_hz: 50,
        hours: 14,
        minutes: 30,
        weather: 10,
        flags: 0,
        name: FixedText::new("dlmp test server").expect("fits"),
        gamemode: FixedText::new("freeroam").expect("fits"),
        language: FixedText::new("English").expect("fits"),
        website: FixedText::new("https://example.org").expect("fits"),
    }
}

pub fn query_players() -> QueryPlayers {
    QueryPlayers {
        magic: QUERY_MAGIC,
        nonce: 0x0DDB_A11F,
        page: 0,
        pad: [0; 1189],
    }
}

pub fn player_list() -> PlayerList {
    PlayerList {
        nonce: 0x0DDB_A11F,
        page: 0,
        pages: 1,
        players: Entries(vec![
            PlayerEntry {
                player_id: 0,
                score: 12,
                ping_ms: 48,
                name: Text::new("Carl_Johnson").expect("fits"),
            },
            PlayerEntry {
                player_id: 7,
                score: -3,
                ping_ms: 65_535,
                name: Text::new("Big_Smoke").expect("fits"),
            },
        ]),
    }
}

pub fn query_rules() -> QueryRules {
    QueryRules {
        magic: QUERY_MAGIC,
        nonce: 0x0DDB_A120,
        page: 0,
        pad: [0; 1189],
    }
}

pub fn rules() -> Rules {
    Rules {
        nonce: 0x0DDB_A120,
        page: 0,
        pages: 1,
        rules: Entries(vec![
            RuleEntry {
                key: Text::new("mapname").expect("fits"),
                value: Text::new("San Andreas").expect("fits"),
            },
            RuleEntry {
                key: Text::new("version").expect("fits"),
                value: Text::new("0.1.0").expect("fits"),
            },
        ]),
    }
}

pub fn all() -> Vec<Box<dyn Sample>> {
    vec![
        sample("query_info.bin", query_info()),
        sample("server_info.bin", server_info()),
        sample("query_players.bin", query_players()),
        sample("player_list.bin", player_list()),
        sample("query_rules.bin", query_rules()),
        sample("rules.bin", rules()),
    ]
}
