//! The database worker (lua-api.md, "Persistence": queries never run on the simulation
//! thread): a small pool of threads, each owning one [`Backend`] connection and running
//! the operations of its queue one after the other, answering each on the reply channel
//! its client named (ADR 0031, the pool: ADR 0044).
//!
//! An operation carries an order key (a resource, the ban list): every operation of one
//! key goes to the same connection, so one resource's queries run in the order it made
//! them (an INSERT then a SELECT reads its own write) while other resources' run beside
//! them. The queue is bounded for the whole pool: clients ([`DbClient`]) never block, and
//! a query past the bound fails at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, unbounded};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use tracing::{error, warn};

use super::backend::Backend;
use super::value::{DbError, DbOp, DbResult};

/// An operation's number, unique per client, rising in the order of submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueryId(pub u64);

/// The worker's answer to one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub id: QueryId,
    pub result: DbResult,
}

enum Job {
    Run {
        id: QueryId,
        op: DbOp,
        reply: Sender<Reply>,
    },
    /// Ends the thread after everything queued before it ran.
    Stop,
}

/// What the pool's threads and clients share.
#[derive(Debug)]
struct Shared {
    /// Operations queued and not yet taken by a connection, all connections together.
    queued: AtomicUsize,
    /// The order key the next client gets.
    next_key: AtomicU64,
    /// Wall time of each operation on its connection (the metrics, issue 17).
    query_seconds: Histogram,
}

/// The worker threads: dropping it runs what is queued and joins them, so a write queued
/// before the server stops is not lost.
#[derive(Debug)]
pub struct DbWorker {
    shards: Arc<[Sender<Job>]>,
    capacity: usize,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl DbWorker {
    /// One thread running `backend` with room for `capacity` waiting operations.
    pub fn spawn(backend: Box<dyn Backend>, capacity: usize) -> std::io::Result<Self> {
        Self::spawn_pool(vec![backend], capacity)
    }

    /// A thread per connection of `backends` (at least one is needed; none spawns no
    /// thread and every query fails), with room for `capacity` waiting operations in all.
    pub fn spawn_pool(backends: Vec<Box<dyn Backend>>, capacity: usize) -> std::io::Result<Self> {
        let capacity = capacity.max(1);
        let shared = Arc::new(Shared {
            queued: AtomicUsize::new(0),
            next_key: AtomicU64::new(0),
            // 0.1 ms .. ~3 s, doubling.
            query_seconds: Histogram::new(exponential_buckets(0.000_1, 2.0, 16)),
        });
        let mut shards = Vec::with_capacity(backends.len());
        let mut threads = Vec::with_capacity(backends.len());
        for (i, backend) in backends.into_iter().enumerate() {
            let (jobs, queue) = unbounded();
            let shared = Arc::clone(&shared);
            let thread = std::thread::Builder::new()
                .name(format!("dlmp-db-{}-{i}", backend.engine()))
                .spawn(move || run(backend, &queue, &shared))?;
            shards.push(jobs);
            threads.push(thread);
        }
        Ok(DbWorker {
            shards: shards.into(),
            capacity,
            shared,
            threads,
        })
    }

    /// Operations waiting for a connection now (the metrics' queue depth).
    pub fn queued(&self) -> usize {
        self.shared.queued.load(Ordering::Relaxed)
    }

    /// Connections in the pool.
    pub fn connections(&self) -> usize {
        self.shards.len()
    }

    /// The histogram of operation times, shared with the threads that record it.
    pub fn query_seconds(&self) -> Histogram {
        self.shared.query_seconds.clone()
    }

    /// A client with its own reply channel and its own order key; clients share the
    /// pool's queue bound.
    #[must_use]
    pub fn client(&self) -> DbClient {
        let (replies_tx, replies) = unbounded();
        DbClient {
            shards: Arc::clone(&self.shards),
            capacity: self.capacity,
            shared: Arc::clone(&self.shared),
            key: self.shared.next_key.fetch_add(1, Ordering::Relaxed),
            replies_tx,
            replies,
            next: 0,
        }
    }
}

impl Drop for DbWorker {
    fn drop(&mut self) {
        for shard in self.shards.iter() {
            let _ = shard.send(Job::Stop);
        }
        for thread in self.threads.drain(..) {
            if thread.join().is_err() {
                error!("a database worker thread panicked");
            }
        }
    }
}

fn run(mut backend: Box<dyn Backend>, queue: &Receiver<Job>, shared: &Shared) {
    while let Ok(job) = queue.recv() {
        match job {
            Job::Run { id, op, reply } => {
                shared.queued.fetch_sub(1, Ordering::Relaxed);
                let started = Instant::now();
                let result = backend.run(&op);
                shared
                    .query_seconds
                    .observe(started.elapsed().as_secs_f64());
                if let Err(e) = &result {
                    warn!(engine = backend.engine(), "query failed: {e}");
                }
                // A client that went away (a stopped server part) needs no answer.
                let _ = reply.send(Reply { id, result });
            }
            Job::Stop => return,
        }
    }
}

/// One user of the worker (the scripts, the ban list): it submits operations and reads
/// their answers from its own channel. Operations of one order key (the client's own,
/// or one given per call) run in submission order and are answered in that order;
/// answers of different keys may come in any order ([`QueryId`] tells them apart).
#[derive(Debug)]
pub struct DbClient {
    shards: Arc<[Sender<Job>]>,
    capacity: usize,
    shared: Arc<Shared>,
    key: u64,
    replies_tx: Sender<Reply>,
    replies: Receiver<Reply>,
    next: u64,
}

impl DbClient {
    /// Queues `op` under the client's own order key. A full queue (or a worker that has
    /// stopped) fails at once, never blocking the caller.
    pub fn submit(&mut self, op: DbOp) -> Result<QueryId, DbError> {
        self.submit_keyed(self.key, op)
    }

    /// Queues `op` under order key `key` (a resource): after every earlier operation of
    /// that key, on the same connection.
    pub fn submit_keyed(&mut self, key: u64, op: DbOp) -> Result<QueryId, DbError> {
        self.next += 1;
        let id = QueryId(self.next);
        let Some(shard) = self
            .shards
            .get((key % self.shards.len().max(1) as u64) as usize)
        else {
            return Err(DbError("the database worker has no connection".into()));
        };
        if self.shared.queued.fetch_add(1, Ordering::Relaxed) >= self.capacity {
            self.shared.queued.fetch_sub(1, Ordering::Relaxed);
            return Err(DbError(format!(
                "the database queue is full ({} queries waiting); try again later",
                self.capacity
            )));
        }
        let job = Job::Run {
            id,
            op,
            reply: self.replies_tx.clone(),
        };
        shard.send(job).map(|()| id).map_err(|_| {
            self.shared.queued.fetch_sub(1, Ordering::Relaxed);
            DbError("the database worker has stopped".into())
        })
    }

    /// The answers that arrived, without waiting.
    pub fn try_reply(&self) -> Option<Reply> {
        self.replies.try_recv().ok()
    }

    /// The next answer, waiting at most `timeout` (the harness's deterministic mode and
    /// the boot-time load; never the tick of a running server).
    pub fn wait_reply(&self, timeout: std::time::Duration) -> Option<Reply> {
        self.replies.recv_timeout(timeout).ok()
    }

    /// The operations the worker may take before the queue is full.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};
    use std::time::Duration;

    use super::*;
    use crate::db::value::{DbOutput, Statement};

    /// A backend that answers the number in the SQL and waits at a barrier first when
    /// told, so a test can hold the worker busy.
    struct Echo {
        hold: Option<Arc<Barrier>>,
    }

    impl Backend for Echo {
        fn run(&mut self, op: &DbOp) -> DbResult {
            if let Some(b) = self.hold.take() {
                b.wait();
            }
            match op {
                DbOp::Exec(s) => s
                    .sql
                    .parse()
                    .map(DbOutput::Changes)
                    .map_err(|_| DbError(format!("not a number: {}", s.sql))),
                _ => Ok(DbOutput::Committed),
            }
        }
        fn engine(&self) -> &'static str {
            "echo"
        }
    }

    fn exec(sql: &str) -> DbOp {
        DbOp::Exec(Statement::new(sql, vec![]))
    }

    const WAIT: Duration = Duration::from_secs(30);

    #[test]
    fn answers_come_in_submission_order_with_their_errors() {
        let worker = DbWorker::spawn(Box::new(Echo { hold: None }), 8).unwrap();
        let mut client = worker.client();
        let ids: Vec<QueryId> = ["1", "x", "3"]
            .iter()
            .map(|s| client.submit(exec(s)).unwrap())
            .collect();
        let replies: Vec<Reply> = (0..3).map(|_| client.wait_reply(WAIT).unwrap()).collect();
        assert_eq!(replies.iter().map(|r| r.id).collect::<Vec<_>>(), ids);
        assert_eq!(replies[0].result, Ok(DbOutput::Changes(1)));
        assert_eq!(replies[1].result, Err(DbError("not a number: x".into())));
        assert_eq!(replies[2].result, Ok(DbOutput::Changes(3)));
    }

    #[test]
    fn a_full_queue_fails_at_once() {
        let barrier = Arc::new(Barrier::new(2));
        let worker = DbWorker::spawn(
            Box::new(Echo {
                hold: Some(barrier.clone()),
            }),
            2,
        )
        .unwrap();
        let mut client = worker.client();
        client.submit(exec("1")).unwrap();
        // The worker takes the first and waits; two more fill the queue.
        let mut queued = 1;
        let error = loop {
            match client.submit(exec("1")) {
                Ok(_) => queued += 1,
                Err(e) => break e,
            }
            assert!(queued <= 3, "the queue holds 2 besides the one running");
        };
        assert!(
            error.0.contains("queue is full (2 queries waiting)"),
            "{error}"
        );
        barrier.wait();
        for _ in 0..queued {
            assert_eq!(
                client.wait_reply(WAIT).unwrap().result,
                Ok(DbOutput::Changes(1))
            );
        }
    }

    #[test]
    fn one_key_runs_in_order_while_another_runs_beside_it() {
        let barrier = Arc::new(Barrier::new(2));
        let held = Box::new(Echo {
            hold: Some(barrier.clone()),
        });
        let worker = DbWorker::spawn_pool(vec![held, Box::new(Echo { hold: None })], 16).unwrap();
        assert_eq!(worker.connections(), 2);
        let mut client = worker.client();
        // Key 0's first operation holds its connection.
        let slow = client.submit_keyed(0, exec("1")).unwrap();
        let behind = client.submit_keyed(0, exec("2")).unwrap();
        let beside = client.submit_keyed(1, exec("3")).unwrap();
        let first = client.wait_reply(WAIT).unwrap();
        assert_eq!((first.id, first.result), (beside, Ok(DbOutput::Changes(3))));
        barrier.wait();
        let rest: Vec<QueryId> = (0..2)
            .map(|_| client.wait_reply(WAIT).unwrap().id)
            .collect();
        assert_eq!(
            rest,
            [slow, behind],
            "one key's answers in submission order"
        );
        assert_eq!(worker.queued(), 0);
    }

    #[test]
    fn the_queue_bound_is_for_the_whole_pool() {
        let barriers: Vec<_> = (0..2).map(|_| Arc::new(Barrier::new(2))).collect();
        let backends: Vec<Box<dyn Backend>> = barriers
            .iter()
            .map(|b| {
                Box::new(Echo {
                    hold: Some(b.clone()),
                }) as Box<dyn Backend>
            })
            .collect();
        let worker = DbWorker::spawn_pool(backends, 3).unwrap();
        let mut client = worker.client();
        let mut accepted = 0;
        for key in (0..2u64).cycle().take(12) {
            if client.submit_keyed(key, exec("1")).is_ok() {
                accepted += 1;
            }
        }
        // Two running (one per connection) at most, three waiting.
        assert!((3..=5).contains(&accepted), "{accepted}");
        for b in &barriers {
            b.wait();
        }
        for _ in 0..accepted {
            assert!(client.wait_reply(WAIT).is_some());
        }
    }

    #[test]
    fn query_times_are_recorded() {
        let worker = DbWorker::spawn(Box::new(Echo { hold: None }), 8).unwrap();
        let mut client = worker.client();
        for _ in 0..3 {
            client.submit(exec("1")).unwrap();
        }
        for _ in 0..3 {
            client.wait_reply(WAIT).unwrap();
        }
        let mut text = String::new();
        let mut registry = prometheus_client::registry::Registry::default();
        registry.register("q", "q", worker.query_seconds());
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        assert!(text.contains("q_count 3"), "{text}");
    }

    #[test]
    fn dropping_the_worker_runs_what_was_queued() {
        let worker = DbWorker::spawn(Box::new(Echo { hold: None }), 64).unwrap();
        let mut client = worker.client();
        for _ in 0..50 {
            client.submit(exec("2")).unwrap();
        }
        drop(worker);
        let mut answered = 0;
        while let Some(r) = client.try_reply() {
            assert_eq!(r.result, Ok(DbOutput::Changes(2)));
            answered += 1;
        }
        assert_eq!(answered, 50);
        assert!(client.submit(exec("1")).unwrap_err().0.contains("stopped"));
    }
}
