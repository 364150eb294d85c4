//! Time, injectable: a permission waits five minutes for the user, and a test
//! must be able to let those minutes pass at once.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::watch;
use tokio::time::Instant;

/// A source of time for deadlines.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;

    /// Completes once [`now`](Self::now) has reached `deadline`.
    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()>;
}

/// Real time (tokio's clock).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep_until(deadline))
    }
}

/// A clock that moves only when told to. Clones share one time line.
#[derive(Debug, Clone)]
pub struct ManualClock {
    origin: Instant,
    elapsed: Arc<watch::Sender<Duration>>,
}

impl ManualClock {
    /// A clock standing at the current instant.
    #[must_use]
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
            elapsed: Arc::new(watch::Sender::new(Duration::ZERO)),
        }
    }

    /// Moves the clock forward, waking every sleeper whose deadline passed.
    pub fn advance(&self, by: Duration) {
        self.elapsed.send_modify(|elapsed| *elapsed += by);
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.origin + *self.elapsed.borrow()
    }

    fn sleep_until(&self, deadline: Instant) -> BoxFuture<'static, ()> {
        let origin = self.origin;
        let mut elapsed = self.elapsed.subscribe();
        Box::pin(async move {
            while origin + *elapsed.borrow_and_update() < deadline {
                if elapsed.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;

    use super::*;

    #[tokio::test]
    async fn a_manual_sleeper_wakes_only_when_its_deadline_passes() {
        let clock = ManualClock::new();
        let deadline = clock.now() + Duration::from_secs(300);
        let mut sleeper = clock.sleep_until(deadline);
        assert!((&mut sleeper).now_or_never().is_none());
        clock.advance(Duration::from_secs(299));
        tokio::task::yield_now().await;
        assert!((&mut sleeper).now_or_never().is_none());
        clock.advance(Duration::from_secs(1));
        tokio::time::timeout(Duration::from_secs(1), sleeper)
            .await
            .expect("the deadline passed");
    }

    #[tokio::test]
    async fn a_deadline_already_passed_completes_at_once() {
        let clock = ManualClock::new();
        clock.advance(Duration::from_secs(10));
        let deadline = clock.now() - Duration::from_secs(1);
        assert!(clock.sleep_until(deadline).now_or_never().is_some());
    }
}
