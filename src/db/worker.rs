//! The database worker (lua-api.md, "Persistence": queries never run on the simulation
//! thread): one thread that owns the [`Backend`] and runs the operations of a bounded
//! queue one after the other, in the order they were queued, answering each on the
//! reply channel its client named. Clients ([`DbClient`]) never block: a full queue is an
//! error at once.

use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded, unbounded};
use tracing::{error, warn};

use super::backend::Backend;
use super::value::{DbError, DbOp, DbResult};

/// An operation's number, unique per worker, rising in the order of submission.
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

/// The worker thread: dropping it runs what is queued and joins the thread, so a write
/// queued before the server stops is not lost.
#[derive(Debug)]
pub struct DbWorker {
    jobs: Sender<Job>,
    capacity: usize,
    thread: Option<JoinHandle<()>>,
}

impl DbWorker {
    /// Starts a thread running `backend` with room for `capacity` waiting operations.
    pub fn spawn(backend: Box<dyn Backend>, capacity: usize) -> std::io::Result<Self> {
        let capacity = capacity.max(1);
        let (jobs, queue) = bounded(capacity);
        let thread = std::thread::Builder::new()
            .name(format!("dlmp-db-{}", backend.engine()))
            .spawn(move || run(backend, &queue))?;
        Ok(DbWorker {
            jobs,
            capacity,
            thread: Some(thread),
        })
    }

    /// A client with its own reply channel; clients share the worker's queue.
    #[must_use]
    /// Operations waiting for the worker now (the metrics' queue depth).
    pub fn queued(&self) -> usize {
        self.jobs.len()
    }

    pub fn client(&self) -> DbClient {
        let (replies_tx, replies) = unbounded();
        DbClient {
            jobs: self.jobs.clone(),
            capacity: self.capacity,
            replies_tx,
            replies,
            next: 0,
        }
    }
}

impl Drop for DbWorker {
    fn drop(&mut self) {
        if self.jobs.send(Job::Stop).is_err() {
            return;
        }
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            error!("the database worker panicked");
        }
    }
}

fn run(mut backend: Box<dyn Backend>, queue: &Receiver<Job>) {
    while let Ok(job) = queue.recv() {
        match job {
            Job::Run { id, op, reply } => {
                let result = backend.run(&op);
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
/// their answers, in submission order, from its own channel.
#[derive(Debug)]
pub struct DbClient {
    jobs: Sender<Job>,
    capacity: usize,
    replies_tx: Sender<Reply>,
    replies: Receiver<Reply>,
    next: u64,
}

impl DbClient {
    /// Queues `op`. A full queue (or a worker that has stopped) fails at once, never
    /// blocking the caller.
    pub fn submit(&mut self, op: DbOp) -> Result<QueryId, DbError> {
        self.next += 1;
        let id = QueryId(self.next);
        let job = Job::Run {
            id,
            op,
            reply: self.replies_tx.clone(),
        };
        match self.jobs.try_send(job) {
            Ok(()) => Ok(id),
            Err(TrySendError::Full(_)) => Err(DbError(format!(
                "the database queue is full ({} queries waiting); try again later",
                self.capacity
            ))),
            Err(TrySendError::Disconnected(_)) => {
                Err(DbError("the database worker has stopped".into()))
            }
        }
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
