//! What a query answer is built from: the server's facts and its players and rules at
//! the end of a tick, already cut into pages (query.md: "as many whole entries as fit").

use std::ops::Range;

use dlmp_protocol::MAX_DATAGRAM;
use dlmp_protocol::Wire;
use dlmp_protocol::connection::handshake::PROTOCOL_VERSION;
use dlmp_protocol::query::{FLAG_CLOSED, PlayerEntry, RuleEntry, ServerInfo};
use dlmp_protocol::text::FixedText;

/// PlayerList and Rules before their entries: id, nonce, page, pages, count.
const PAGE_HEADER: usize = 1 + 4 + 2 + 2 + 1;

/// The ServerInfo fields that are not the nonce.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerFacts {
    pub players: u16,
    pub max_players: u16,
    pub tick_hz: u16,
    pub hours: u8,
    pub minutes: u8,
    pub weather: u8,
    /// The server refuses new players (full or closed).
    pub closed: bool,
    pub name: FixedText<64>,
    pub gamemode: FixedText<32>,
    pub language: FixedText<16>,
    pub website: FixedText<64>,
}

impl Default for ServerFacts {
    fn default() -> Self {
        ServerFacts {
            players: 0,
            max_players: 1000,
            tick_hz: 50,
            hours: 12,
            minutes: 0,
            weather: 0,
            closed: false,
            name: FixedText::EMPTY,
            gamemode: FixedText::EMPTY,
            language: FixedText::EMPTY,
            website: FixedText::EMPTY,
        }
    }
}

/// The state a query is answered from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuerySnapshot {
    facts: ServerFacts,
    players: Vec<PlayerEntry>,
    player_pages: Vec<Range<usize>>,
    rules: Vec<RuleEntry>,
    rule_pages: Vec<Range<usize>>,
}

impl QuerySnapshot {
    /// Sorts `players` by id and `rules` by key, and cuts both into pages.
    pub fn new(
        facts: ServerFacts,
        mut players: Vec<PlayerEntry>,
        mut rules: Vec<RuleEntry>,
    ) -> Self {
        players.sort_by_key(|p| p.player_id);
        rules.sort_by(|a, b| a.key.as_str().cmp(b.key.as_str()));
        QuerySnapshot {
            player_pages: pages(&players),
            rule_pages: pages(&rules),
            facts,
            players,
            rules,
        }
    }

    pub fn facts(&self) -> &ServerFacts {
        &self.facts
    }

    /// ServerInfo for `nonce`.
    pub fn server_info(&self, nonce: u32) -> ServerInfo {
        let f = &self.facts;
        ServerInfo {
            nonce,
            protocol: PROTOCOL_VERSION,
            players: f.players,
            max_players: f.max_players,
            tick_hz: f.tick_hz,
            hours: f.hours,
            minutes: f.minutes,
            weather: f.weather,
            flags: if f.closed { FLAG_CLOSED } else { 0 },
            name: f.name,
            gamemode: f.gamemode,
            language: f.language,
            website: f.website,
        }
    }

    /// Page `page` of the players and how many pages there are (at least 1); past the
    /// last, no entries.
    pub fn player_page(&self, page: u16) -> (&[PlayerEntry], u16) {
        page_of(&self.players, &self.player_pages, page)
    }

    /// Page `page` of the rules, as [`QuerySnapshot::player_page`].
    pub fn rule_page(&self, page: u16) -> (&[RuleEntry], u16) {
        page_of(&self.rules, &self.rule_pages, page)
    }
}

fn page_of<'a, T>(entries: &'a [T], pages: &[Range<usize>], page: u16) -> (&'a [T], u16) {
    let count = u16::try_from(pages.len().max(1)).unwrap_or(u16::MAX);
    let entries = pages
        .get(usize::from(page))
        .and_then(|r| entries.get(r.clone()))
        .unwrap_or_default();
    (entries, count)
}

/// Cuts `entries` into runs whose encoding fits one datagram with the page header, at most
/// 255 a page (`count` is a u8). No pages for no entries.
fn pages<T: Wire>(entries: &[T]) -> Vec<Range<usize>> {
    let room = MAX_DATAGRAM - PAGE_HEADER;
    let mut pages = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, entry) in entries.iter().enumerate() {
        let len = entry.wire_len();
        if i > start && (used + len > room || i - start == 255) {
            pages.push(start..i);
            start = i;
            used = 0;
        }
        used += len;
    }
    if start < entries.len() {
        pages.push(start..entries.len());
    }
    pages
}
