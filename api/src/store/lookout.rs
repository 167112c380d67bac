//! SQLite's writer looks at its queue for a while before it sleeps.
//!
//! On a virtual machine a sleeping CPU can be slow to wake: the host halts it, and the
//! request that wakes it waits for that. A table's next append often reaches the writer a few
//! hundred microseconds after its last commit. So after a batch the writer looks at its queue
//! for a while, yielding its CPU to any other thread that wants it, and sleeps only if nothing
//! came.
//!
//! How long it looks adapts, as the kernel's halt polling does. The look grows while the next
//! request comes within the longest look of the batch before, and shrinks when one comes
//! later. A writer whose requests come far apart (or not at all) soon does not look at all.
//!
//! For the same reason the writer's thread keeps to one CPU ([`keep_to_one_cpu`]), which its
//! connection's idle sqlx thread inherits: no hand-off between the two wakes a sleeping CPU.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{self, error::TryRecvError};

/// The shortest look; a shorter one is none.
const SHORTEST: Duration = Duration::from_micros(25);
/// The longest a request looks for its answer: about a lone commit's time here. A look that
/// lasts longer than the commit it waits for is CPU taken from the server's other work
/// (bench log 2026-12-07, "SQLite's writer looks before it sleeps").
const LONGEST_ANSWER_LOOK: Duration = Duration::from_micros(300);

/// What a look found.
pub(super) enum Looked<T> {
    Came(T),
    /// Nothing came; the writer sleeps, and tells [`Lookout::slept`] how long it waited.
    Nothing,
    /// The queue is closed: the store is gone.
    Closed,
}

pub(super) struct Lookout {
    /// How long the next look lasts.
    look: Duration,
    /// The longest look, and the wait past which a request counts as far apart.
    longest: Duration,
}

impl Lookout {
    /// `longest`: zero never looks.
    pub(super) fn new(longest: Duration) -> Self {
        Self {
            look: Duration::ZERO,
            longest,
        }
    }

    /// Looks at `queue` for the look's length.
    pub(super) fn look<T>(&self, queue: &mut mpsc::Receiver<T>) -> Looked<T> {
        let until = Instant::now() + self.look;
        loop {
            match queue.try_recv() {
                Ok(job) => return Looked::Came(job),
                Err(TryRecvError::Disconnected) => return Looked::Closed,
                Err(TryRecvError::Empty) if Instant::now() >= until => return Looked::Nothing,
                // A thread that wants this CPU (the HTTP worker bringing the request, say)
                // runs first.
                Err(TryRecvError::Empty) => std::thread::yield_now(),
            }
        }
    }

    /// The next request came `waited` after the batch before, once the writer had looked in
    /// vain and slept: the next look grows if it would have caught it, and shrinks if not.
    pub(super) fn slept(&mut self, waited: Duration) {
        self.look = if waited <= self.longest {
            (self.look * 2).clamp(SHORTEST, self.longest)
        } else if self.look / 2 < SHORTEST {
            Duration::ZERO
        } else {
            self.look / 2
        };
    }

    #[cfg(test)]
    fn length(&self) -> Duration {
        self.look
    }
}

/// The writer's requests in flight (queued, waiting for their club's turn or in a batch).
/// A request alone in flight looks for its answer (for up to 300 µs) before its task sleeps:
/// its worker has nothing else of the writer's to do, and the answer comes within a commit.
/// With others in flight it does not, for its worker is needed to bring them.
pub(super) struct InFlight {
    count: AtomicUsize,
    longest: Duration,
}

impl InFlight {
    /// `longest`: the writer's longest look; a request looks no longer than it.
    pub(super) fn new(longest: Duration) -> Self {
        Self {
            count: AtomicUsize::new(0),
            longest: longest.min(LONGEST_ANSWER_LOOK),
        }
    }

    /// Counts a request in until the returned guard is dropped.
    pub(super) fn enter(&self) -> Entered<'_> {
        let alone = self.count.fetch_add(1, Ordering::Relaxed) == 0;
        Entered {
            in_flight: self,
            look: if alone { self.longest } else { Duration::ZERO },
        }
    }
}

pub(super) struct Entered<'a> {
    in_flight: &'a InFlight,
    /// How long the request looks for its answer.
    pub(super) look: Duration,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        self.in_flight.count.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Waits for the writer's answer, looking for it for `look` first (yielding to the worker's
/// other tasks between looks) before the task sleeps on it.
pub(super) async fn answer<T>(
    mut answer: tokio::sync::oneshot::Receiver<T>,
    look: Duration,
) -> Result<T, tokio::sync::oneshot::error::RecvError> {
    let until = Instant::now() + look;
    while Instant::now() < until {
        match answer.try_recv() {
            Ok(value) => return Ok(value),
            Err(tokio::sync::oneshot::error::TryRecvError::Empty) => tokio::task::yield_now().await,
            Err(tokio::sync::oneshot::error::TryRecvError::Closed) => break,
        }
    }
    answer.await
}

/// Keeps the calling thread, and the threads it starts, to the last CPU it may run on. Nothing
/// to do with one CPU.
pub(super) fn keep_to_one_cpu() {
    let Some(cpus) = core_affinity::get_core_ids() else {
        return;
    };
    if cpus.len() < 2 {
        return;
    }
    if let Some(last) = cpus.last() {
        core_affinity::set_for_current(*last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(micros: u64) -> Duration {
        Duration::from_micros(micros)
    }

    #[test]
    fn the_look_grows_while_requests_come_soon_after_the_batch_before() {
        let mut lookout = Lookout::new(us(1_000));
        let mut lengths = Vec::new();
        for _ in 0..8 {
            lookout.slept(us(300));
            lengths.push(lookout.length().as_micros());
        }
        assert_eq!(lengths, [25, 50, 100, 200, 400, 800, 1_000, 1_000]);
    }

    #[test]
    fn the_look_shrinks_to_nothing_when_requests_come_far_apart() {
        let mut lookout = Lookout::new(us(1_000));
        for _ in 0..7 {
            lookout.slept(us(10));
        }
        let mut lengths = Vec::new();
        for _ in 0..7 {
            lookout.slept(us(2_000));
            lengths.push(lookout.length().as_micros());
        }
        assert_eq!(lengths, [500, 250, 125, 62, 31, 0, 0]);
    }

    #[test]
    fn a_writer_told_not_to_look_never_looks() {
        let mut lookout = Lookout::new(Duration::ZERO);
        lookout.slept(us(10));
        assert_eq!(lookout.length(), Duration::ZERO);
    }

    #[test]
    fn a_request_sent_while_the_writer_looks_is_taken_without_sleeping() {
        let mut lookout = Lookout::new(Duration::from_secs(5));
        for _ in 0..20 {
            lookout.slept(us(10));
        }
        let (send, mut queue) = mpsc::channel(1);
        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            send.blocking_send(7).unwrap();
            send
        });
        let started = Instant::now();
        let Looked::Came(7) = lookout.look(&mut queue) else {
            panic!("the look ended without the request");
        };
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(sender.join().unwrap());
        assert!(matches!(lookout.look(&mut queue), Looked::Closed));
    }

    #[test]
    fn only_a_request_alone_in_flight_looks_for_its_answer() {
        let in_flight = InFlight::new(us(1_000));
        let first = in_flight.enter();
        let second = in_flight.enter();
        assert_eq!((first.look, second.look), (us(300), Duration::ZERO));
        drop((first, second));
        assert_eq!(in_flight.enter().look, us(300));
        assert_eq!(InFlight::new(us(100)).enter().look, us(100));
    }

    #[test]
    fn a_look_that_finds_nothing_says_so_after_its_length() {
        let mut lookout = Lookout::new(us(1_000));
        lookout.slept(us(10));
        let (_send, mut queue) = mpsc::channel::<u8>(1);
        assert!(matches!(lookout.look(&mut queue), Looked::Nothing));
    }
}
