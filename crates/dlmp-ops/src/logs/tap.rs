//! The log as it happens, for the admin panel's live console and chat log (ADR 0100): a
//! `tracing` layer keeps the last lines in two rings, every line and the chat/command log,
//! each line numbered so a reader asks for what came after the last one it saw. Writing
//! holds a lock for one push; readers copy what they asked for and go.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;

use super::CHAT_LOG;

/// Lines each ring keeps.
pub const KEPT: usize = 2000;

/// Which ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Every line the log shows.
    Server,
    /// The chat/command log: chat lines, player commands, console and admin commands.
    Chat,
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Rises by one per line of its ring.
    pub seq: u64,
    /// Milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// `ERROR`, `WARN`, `INFO`, `DEBUG` or `TRACE`.
    pub level: &'static str,
    pub target: String,
    /// The message, then its fields as `key=value`.
    pub text: String,
}

#[derive(Debug, Default)]
struct Ring {
    next: u64,
    lines: VecDeque<LogLine>,
}

impl Ring {
    fn push(&mut self, mut line: LogLine) {
        line.seq = self.next;
        self.next += 1;
        if self.lines.len() == KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

/// The two rings.
#[derive(Debug, Default)]
pub struct LogTap {
    server: Mutex<Ring>,
    chat: Mutex<Ring>,
}

/// What [`LogTap::since`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Since {
    pub lines: Vec<LogLine>,
    /// Lines after the one asked for that the ring no longer holds.
    pub lost: u64,
    /// The number to ask for next time.
    pub next: u64,
}

impl LogTap {
    fn ring(&self, stream: Stream) -> &Mutex<Ring> {
        match stream {
            Stream::Server => &self.server,
            Stream::Chat => &self.chat,
        }
    }

    /// At most `max` lines of `stream` numbered `from` and up, oldest first.
    #[must_use]
    pub fn since(&self, stream: Stream, from: u64, max: usize) -> Since {
        let ring = self.ring(stream).lock().unwrap_or_else(|p| p.into_inner());
        let first = ring.lines.front().map_or(ring.next, |l| l.seq);
        let lost = first.saturating_sub(from);
        let lines: Vec<LogLine> = ring
            .lines
            .iter()
            .filter(|l| l.seq >= from)
            .take(max)
            .cloned()
            .collect();
        let next = lines.last().map_or(from.max(first), |l| l.seq + 1);
        Since { lines, lost, next }
    }

    /// The last `n` lines of `stream`.
    #[must_use]
    pub fn last(&self, stream: Stream, n: usize) -> Since {
        let from = {
            let ring = self.ring(stream).lock().unwrap_or_else(|p| p.into_inner());
            ring.next.saturating_sub(n as u64)
        };
        let mut since = self.since(stream, from, n);
        since.lost = 0;
        since
    }

    /// Keeps a line.
    pub fn push(&self, stream: Stream, line: LogLine) {
        self.ring(stream)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(line);
    }
}

/// The process's tap, which [`TapLayer`] writes.
pub fn tap() -> &'static LogTap {
    static TAP: OnceLock<LogTap> = OnceLock::new();
    TAP.get_or_init(LogTap::default)
}

/// The layer that writes every event into [`tap`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TapLayer;

impl<S: Subscriber> Layer<S> for TapLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let mut text = Text::default();
        event.record(&mut text);
        let line = LogLine {
            seq: 0,
            at_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
            level: meta.level().as_str(),
            target: meta.target().to_owned(),
            text: text.finish(),
        };
        if meta.target() == CHAT_LOG {
            tap().push(Stream::Chat, line.clone());
        }
        tap().push(Stream::Server, line);
    }
}

/// An event's message and fields, as the console prints them.
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Text {
    fn finish(self) -> String {
        if self.fields.is_empty() {
            self.message
        } else if self.message.is_empty() {
            self.fields
        } else {
            format!("{} {}", self.message, self.fields)
        }
    }
}

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            if !self.fields.is_empty() {
                self.fields.push(' ');
            }
            let _ = write!(self.fields, "{}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.record_debug(field, &value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> LogLine {
        LogLine {
            seq: 0,
            at_ms: 0,
            level: "INFO",
            target: "t".into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_reader_gets_what_came_after_and_learns_what_it_lost() {
        let tap = LogTap::default();
        for i in 0..(KEPT + 10) {
            tap.push(Stream::Server, line(&i.to_string()));
        }
        let got = tap.since(Stream::Server, 0, 5);
        assert_eq!(got.lost, 10);
        assert_eq!(got.lines[0].text, "10");
        assert_eq!(got.next, 15);
        let got = tap.since(Stream::Server, got.next, usize::MAX);
        assert_eq!(got.lines.len(), KEPT - 5);
        assert_eq!(got.lost, 0);
        let got = tap.since(Stream::Server, got.next, 10);
        assert!(got.lines.is_empty());
        assert_eq!(got.next, (KEPT + 10) as u64);
        assert!(tap.since(Stream::Chat, 0, 10).lines.is_empty());
        let last = tap.last(Stream::Server, 3);
        let texts: Vec<&str> = last.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                &(KEPT + 7).to_string(),
                &(KEPT + 8).to_string(),
                &(KEPT + 9).to_string()
            ]
        );
    }
}
