//! The activity feed: one chronological record of everything that happened.
//!
//! Every transaction (human or agent) and, later, every agent message, tool
//! call and permission prompt enters here with a cursor that only grows. The
//! newest [`FEED_CAPACITY`] events are kept in memory. A reader resumes from
//! the last cursor it saw: it gets every later event once, in order, and if
//! the events it missed were already evicted it is told so explicitly with a
//! gap marker, instead of silently skipping them.

use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

/// Events kept in memory for the current server process.
pub const FEED_CAPACITY: usize = 4096;

/// One feed event. `cursor` starts at 1 and increases by exactly one per event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedEvent {
    pub cursor: u64,
    pub kind: String,
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub data: Value,
}

/// What a reader resuming after `cursor` gets from the buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Backlog {
    /// Set when events after the reader's cursor were evicted: the first
    /// cursor still held. The reader knows it missed `after+1 .. first`.
    pub gap_until: Option<u64>,
    pub events: Vec<Arc<FeedEvent>>,
}

#[derive(Debug)]
struct Inner {
    events: VecDeque<Arc<FeedEvent>>,
    last_cursor: u64,
}

#[derive(Debug, Clone)]
pub struct Feed {
    inner: Arc<Mutex<Inner>>,
    live: broadcast::Sender<Arc<FeedEvent>>,
    capacity: usize,
}

impl Default for Feed {
    fn default() -> Self {
        Feed::with_capacity(FEED_CAPACITY)
    }
}

impl Feed {
    pub fn with_capacity(capacity: usize) -> Feed {
        let (live, _) = broadcast::channel(1024);
        Feed {
            inner: Arc::new(Mutex::new(Inner {
                events: VecDeque::with_capacity(capacity.min(FEED_CAPACITY)),
                last_cursor: 0,
            })),
            live,
            capacity,
        }
    }

    /// Appends an event and announces it. Returns its cursor.
    pub fn publish(&self, kind: &str, data: Value) -> u64 {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.last_cursor += 1;
        let event = Arc::new(FeedEvent {
            cursor: inner.last_cursor,
            kind: kind.to_owned(),
            time_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            data,
        });
        inner.events.push_back(event.clone());
        while inner.events.len() > self.capacity {
            inner.events.pop_front();
        }
        // Sent under the lock, so live subscribers see cursor order.
        let _ = self.live.send(event);
        inner.last_cursor
    }

    pub fn last_cursor(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last_cursor
    }

    /// Events after `after`, oldest first.
    pub fn since(&self, after: u64) -> Backlog {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        backlog(&inner, after)
    }

    /// Subscribes to live events and returns the backlog after `after`,
    /// atomically: no event falls between the two.
    pub fn subscribe(&self, after: u64) -> (Backlog, broadcast::Receiver<Arc<FeedEvent>>) {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let receiver = self.live.subscribe();
        (backlog(&inner, after), receiver)
    }
}

fn backlog(inner: &Inner, after: u64) -> Backlog {
    let first_held = inner
        .events
        .front()
        .map_or(inner.last_cursor + 1, |e| e.cursor);
    let gap_until = (after + 1 < first_held && after < inner.last_cursor).then_some(first_held);
    let events = inner
        .events
        .iter()
        .filter(|e| e.cursor > after)
        .cloned()
        .collect();
    Backlog { gap_until, events }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cursors_increase_by_one() {
        let feed = Feed::default();
        assert_eq!(feed.publish("a", json!(1)), 1);
        assert_eq!(feed.publish("b", json!(2)), 2);
        let cursors: Vec<_> = feed.since(0).events.iter().map(|e| e.cursor).collect();
        assert_eq!(cursors, vec![1, 2]);
        assert_eq!(feed.since(1).events.len(), 1);
        assert!(feed.since(2).events.is_empty());
    }

    #[test]
    fn only_the_newest_events_are_kept_and_a_gap_is_reported() {
        let feed = Feed::default();
        for i in 0..FEED_CAPACITY + 10 {
            feed.publish("e", json!(i));
        }
        let all = feed.since(0);
        assert_eq!(all.events.len(), FEED_CAPACITY);
        assert_eq!(all.events[0].cursor, 11);
        assert_eq!(all.gap_until, Some(11));
        let recent = feed.since(10);
        assert_eq!(recent.gap_until, None, "cursor 11 follows 10 directly");
        assert_eq!(feed.since(5).gap_until, Some(11));
    }

    #[test]
    fn subscribing_misses_nothing_between_backlog_and_live() {
        let feed = Feed::default();
        feed.publish("e", json!(1));
        let (backlog, mut live) = feed.subscribe(0);
        feed.publish("e", json!(2));
        assert_eq!(backlog.events.len(), 1);
        assert_eq!(live.try_recv().unwrap().cursor, 2);
    }
}
