//! Log output (issue 17): the console always, and with `log_dir` two daily-rotated files
//! beside it: `dlmp.log.YYYY-MM-DD` with everything the console shows, and
//! `chat.log.YYYY-MM-DD` with every chat line, player command and console command (who,
//! when, what) for moderation. Files are written by `tracing-appender`'s background
//! writer, so the tick never waits on the disk. The admin panel reads the last lines from
//! [`tap`].

mod tap;

pub use tap::{KEPT, LogLine, LogTap, Since, Stream, TapLayer, tap};

use std::path::Path;

use tracing::Subscriber;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{EnvFilter, Targets, filter_fn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

pub use dlmp_player::chat::CHAT_LOG;

/// Keeps the file writers flushing; drop it last (at exit, it writes what is buffered).
#[must_use]
pub struct LogGuards(#[allow(dead_code, reason = "held for its Drop")] Vec<WorkerGuard>);

/// The file layers for `dir`: the server log (everything `filter` lets through except the
/// chat log) and the chat log.
pub fn file_layers<S>(dir: &Path, filter: &str) -> (impl Layer<S>, LogGuards)
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let (server, server_guard) =
        tracing_appender::non_blocking(tracing_appender::rolling::daily(dir, "dlmp.log"));
    let (chat, chat_guard) =
        tracing_appender::non_blocking(tracing_appender::rolling::daily(dir, "chat.log"));
    let server_layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(server)
        .with_filter(EnvFilter::new(filter))
        .with_filter(filter_fn(|meta| meta.target() != CHAT_LOG));
    let chat_layer = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_target(false)
        .with_writer(chat)
        .with_filter(Targets::new().with_target(CHAT_LOG, tracing::Level::INFO));
    (
        server_layer.and_then(chat_layer),
        LogGuards(vec![server_guard, chat_guard]),
    )
}

/// Installs the global subscriber: the console (`RUST_LOG`, default `info`), the panel's
/// [`tap`] and, with `log_dir`, the files. The folder is created if missing.
pub fn init(log_dir: Option<&Path>) -> std::io::Result<LogGuards> {
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into());
    // No colour codes when stdout is not a terminal (a file, a journal).
    let console = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_filter(EnvFilter::new(&filter));
    let tap = TapLayer.with_filter(EnvFilter::new(&filter));
    // A subscriber set before (a config error logged at start) stays: `try_init`.
    match log_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            let (files, guards) = file_layers(dir, &filter);
            let _ = tracing_subscriber::registry()
                .with(console)
                .with(tap)
                .with(files)
                .try_init();
            Ok(guards)
        }
        None => {
            let _ = tracing_subscriber::registry()
                .with(console)
                .with(tap)
                .try_init();
            Ok(LogGuards(Vec::new()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_log_and_the_chat_log_are_written_apart() {
        let dir = std::env::temp_dir().join(format!("dlmp-logs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (files, guards) = file_layers(&dir, "info");
        let subscriber = tracing_subscriber::registry().with(files);
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("server started");
            tracing::info!(target: CHAT_LOG, player_id = 3, name = "Carl", "chat: hello all");
        });
        drop(guards);
        let read = |prefix: &str| {
            let entry = std::fs::read_dir(&dir)
                .expect("the folder")
                .flatten()
                .find(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .unwrap_or_else(|| panic!("no {prefix} file"));
            std::fs::read_to_string(entry.path()).expect("readable")
        };
        let server = read("dlmp.log.");
        let chat = read("chat.log.");
        assert!(server.contains("server started"), "{server}");
        assert!(!server.contains("hello all"), "{server}");
        assert!(chat.contains("chat: hello all"), "{chat}");
        assert!(chat.contains("name=\"Carl\""), "{chat}");
        assert!(chat.contains("player_id=3"), "{chat}");
        assert!(!chat.contains("server started"), "{chat}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
