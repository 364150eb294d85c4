//! The activity feed: one chronological record of everything that happened.
//!
//! Every transaction (human or agent), run change, compile and agent event
//! enters here with a cursor that only grows. The newest events are kept in
//! memory, at most [`FEED_CAPACITY`] of them and at most
//! [`FEED_BYTE_CAPACITY`] bytes of their JSON, whichever binds first: an event
//! is small (a transaction carries its operations and revisions, not the
//! graph; see `crate::revisions` for the documents), but a byte bound keeps
//! the memory of a long session flat whatever the events hold.
//!
//! A reader resumes from the last position it saw: it gets every later event
//! once, in order, and if the events it missed were already evicted (for
//! either bound) it is told so explicitly with a gap marker, instead of
//! silently skipping them.
//!
//! Cursors restart at 1 with every server process, so a position is only
//! meaningful together with the process that handed it out: every feed has a
//! random [`Epoch`], and a position a reader sends back is the one text form
//! `<epoch>:<cursor>` ([`Position`]). A position of another epoch (a reader
//! that outlived a restart) or one that cannot be parsed is not mistaken for
//! a cursor of this feed: the reader is told to reset (reload what it shows
//! and continue from the current position). `0` alone means "from the
//! beginning", which is the same in every epoch.

use serde::Serialize;
use serde_json::Value;
use somite_api::FeedKind;
pub use somite_api::feed::Epoch;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::broadcast;

/// Events kept in memory for the current server process.
pub const FEED_CAPACITY: usize = 4096;

/// Bytes of serialized events kept in memory (64 MiB); older events are
/// evicted first, and the newest event is always kept.
pub const FEED_BYTE_CAPACITY: usize = 64 * 1024 * 1024;

/// Random bytes in an epoch (64 bits: two server starts never share one).
const EPOCH_BYTES: usize = 8;

/// A fresh epoch for a feed.
fn generate_epoch() -> Epoch {
    let mut bytes = [0u8; EPOCH_BYTES];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    Epoch::from_bytes(&bytes)
}

/// A position in one feed: the text a reader sends back (`?after=`,
/// `Last-Event-ID`) and the SSE `id` of every streamed event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position<'a> {
    pub epoch: &'a Epoch,
    pub cursor: u64,
}

impl fmt::Display for Position<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.epoch, self.cursor)
    }
}

/// One feed event. `cursor` starts at 1 and increases by exactly one per event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct FeedEvent {
    pub cursor: u64,
    pub kind: FeedKind,
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub data: Value,
    /// The length of this event's JSON, for the byte bound.
    #[serde(skip)]
    bytes: usize,
}

/// Where a reader continues, given the position it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// A position of this feed (or `0`): continue after this cursor.
    After(u64),
    /// Not a position of this feed: the reader must reset, then continue
    /// after the current last cursor.
    Reset { cursor: u64 },
}

impl Resume {
    /// The cursor after which events are delivered.
    pub fn after(self) -> u64 {
        match self {
            Resume::After(cursor) | Resume::Reset { cursor } => cursor,
        }
    }
}

/// What a reader resuming from a position gets from the buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Backlog {
    pub resume: Resume,
    /// Set when events after the reader's cursor were evicted: the first
    /// cursor still held. The reader knows it missed `after+1 .. first`.
    pub gap_until: Option<u64>,
    pub events: Vec<Arc<FeedEvent>>,
}

#[derive(Debug)]
struct Inner {
    events: VecDeque<Arc<FeedEvent>>,
    /// The sum of `bytes` over `events`.
    bytes: usize,
    last_cursor: u64,
}

#[derive(Debug, Clone)]
pub struct Feed {
    inner: Arc<Mutex<Inner>>,
    live: broadcast::Sender<Arc<FeedEvent>>,
    epoch: Arc<Epoch>,
    capacity: usize,
    byte_capacity: usize,
}

impl Default for Feed {
    fn default() -> Self {
        Feed::with_capacity(FEED_CAPACITY, FEED_BYTE_CAPACITY)
    }
}

impl Feed {
    /// A feed of a fresh epoch keeping at most `capacity` events and
    /// `byte_capacity` bytes of them.
    pub fn with_capacity(capacity: usize, byte_capacity: usize) -> Feed {
        let (live, _) = broadcast::channel(1024);
        Feed {
            inner: Arc::new(Mutex::new(Inner {
                events: VecDeque::with_capacity(capacity.min(FEED_CAPACITY)),
                bytes: 0,
                last_cursor: 0,
            })),
            live,
            epoch: Arc::new(generate_epoch()),
            capacity,
            byte_capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn epoch(&self) -> &Epoch {
        &self.epoch
    }

    /// The position of `cursor` in this feed.
    pub fn position(&self, cursor: u64) -> Position<'_> {
        Position {
            epoch: &self.epoch,
            cursor,
        }
    }

    /// Appends an event and announces it. Returns its cursor.
    pub fn publish(&self, kind: FeedKind, data: Value) -> u64 {
        let mut inner = self.lock();
        inner.last_cursor += 1;
        let mut event = FeedEvent {
            cursor: inner.last_cursor,
            kind,
            time_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            data,
            bytes: 0,
        };
        event.bytes = json_len(&event);
        let event = Arc::new(event);
        inner.bytes += event.bytes;
        inner.events.push_back(event.clone());
        while inner.events.len() > 1
            && (inner.events.len() > self.capacity || inner.bytes > self.byte_capacity)
        {
            if let Some(evicted) = inner.events.pop_front() {
                inner.bytes -= evicted.bytes;
            }
        }
        // Sent under the lock, so live subscribers see cursor order.
        let _ = self.live.send(event);
        inner.last_cursor
    }

    pub fn last_cursor(&self) -> u64 {
        self.lock().last_cursor
    }

    /// Bytes of serialized events held now.
    pub fn held_bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Events after a cursor of this feed, oldest first (`after` is trusted:
    /// it comes from this process, e.g. a reader's own last delivered cursor).
    pub fn since(&self, after: u64) -> Backlog {
        backlog(&self.lock(), Resume::After(after))
    }

    /// Events after the position a reader sent (`None`: from the beginning).
    pub fn since_position(&self, position: Option<&str>) -> Backlog {
        let inner = self.lock();
        let resume = self.resume(&inner, position);
        backlog(&inner, resume)
    }

    /// Subscribes to live events and returns the backlog after the reader's
    /// position, atomically: no event falls between the two.
    pub fn subscribe(
        &self,
        position: Option<&str>,
    ) -> (Backlog, broadcast::Receiver<Arc<FeedEvent>>) {
        let inner = self.lock();
        let receiver = self.live.subscribe();
        let resume = self.resume(&inner, position);
        (backlog(&inner, resume), receiver)
    }

    /// Parses a reader's position: `0`, or `<epoch>:<cursor>` of this epoch
    /// with a cursor this feed has reached. Anything else resets.
    fn resume(&self, inner: &Inner, position: Option<&str>) -> Resume {
        let reset = Resume::Reset {
            cursor: inner.last_cursor,
        };
        let Some(position) = position.map(str::trim) else {
            return Resume::After(0);
        };
        if position == "0" {
            return Resume::After(0);
        }
        match position.split_once(':') {
            Some((epoch, cursor)) if epoch == self.epoch.as_str() => match cursor.parse::<u64>() {
                Ok(cursor) if cursor <= inner.last_cursor => Resume::After(cursor),
                _ => reset,
            },
            _ => reset,
        }
    }
}

fn backlog(inner: &Inner, resume: Resume) -> Backlog {
    let after = resume.after();
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
    Backlog {
        resume,
        gap_until,
        events,
    }
}

/// The length of a value's JSON, counted without building it.
fn json_len(value: &impl Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).expect("feed events serialize");
    counter.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cursors_increase_by_one() {
        let feed = Feed::default();
        assert_eq!(feed.publish(FeedKind::Run, json!(1)), 1);
        assert_eq!(feed.publish(FeedKind::Rebind, json!(2)), 2);
        let cursors: Vec<_> = feed.since(0).events.iter().map(|e| e.cursor).collect();
        assert_eq!(cursors, vec![1, 2]);
        assert_eq!(feed.since(1).events.len(), 1);
        assert!(feed.since(2).events.is_empty());
    }

    #[test]
    fn only_the_newest_events_are_kept_and_a_gap_is_reported() {
        let feed = Feed::default();
        for i in 0..FEED_CAPACITY + 10 {
            feed.publish(FeedKind::Run, json!(i));
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
    fn the_byte_bound_evicts_and_a_gap_is_reported() {
        let text = "x".repeat(1000);
        let one = json_len(&FeedEvent {
            cursor: 1,
            kind: FeedKind::Run,
            time_ms: 0,
            data: json!(text),
            bytes: 0,
        });
        // Room for three events of this size, well under the count bound.
        let feed = Feed::with_capacity(FEED_CAPACITY, 3 * one + one / 2);
        for _ in 0..10 {
            feed.publish(FeedKind::Run, json!(text));
        }
        let all = feed.since(0);
        let cursors: Vec<_> = all.events.iter().map(|e| e.cursor).collect();
        assert_eq!(cursors, vec![8, 9, 10]);
        assert_eq!(all.gap_until, Some(8));
        assert!(feed.held_bytes() <= 3 * one + one / 2);
        assert_eq!(feed.since(7).gap_until, None);
    }

    #[test]
    fn an_event_over_the_byte_bound_is_still_kept_as_the_newest() {
        let feed = Feed::with_capacity(FEED_CAPACITY, 10);
        feed.publish(FeedKind::Run, json!("more than ten bytes"));
        feed.publish(FeedKind::Run, json!("more than ten bytes, again"));
        let cursors: Vec<_> = feed.since(0).events.iter().map(|e| e.cursor).collect();
        assert_eq!(cursors, vec![2]);
    }

    #[test]
    fn subscribing_misses_nothing_between_backlog_and_live() {
        let feed = Feed::default();
        feed.publish(FeedKind::Run, json!(1));
        let (backlog, mut live) = feed.subscribe(Some("0"));
        feed.publish(FeedKind::Run, json!(2));
        assert_eq!(backlog.events.len(), 1);
        assert_eq!(live.try_recv().unwrap().cursor, 2);
    }

    #[test]
    fn positions_of_this_epoch_resume_and_all_others_reset() {
        let feed = Feed::default();
        for i in 0..3 {
            feed.publish(FeedKind::Run, json!(i));
        }
        let own = feed.position(1).to_string();
        assert_eq!(own, format!("{}:1", feed.epoch()));
        assert_eq!(feed.since_position(Some(&own)).resume, Resume::After(1));
        assert_eq!(feed.since_position(Some(&own)).events.len(), 2);
        assert_eq!(feed.since_position(None).resume, Resume::After(0));
        assert_eq!(feed.since_position(Some("0")).resume, Resume::After(0));
        let other = Feed::default();
        assert_ne!(other.epoch(), feed.epoch(), "every feed has its own epoch");
        for foreign in [
            other.position(1).to_string(),
            "2".to_owned(),
            format!("{}:99", feed.epoch()),
            format!("{}:x", feed.epoch()),
            "garbage".to_owned(),
        ] {
            let backlog = feed.since_position(Some(&foreign));
            assert_eq!(backlog.resume, Resume::Reset { cursor: 3 }, "{foreign}");
            assert!(backlog.events.is_empty(), "{foreign}");
            assert_eq!(backlog.gap_until, None, "{foreign}");
        }
    }
}
