//! `GET /api/activity/stream`: the feed as server-sent events.
//!
//! Each event carries its position `<epoch>:<cursor>` as the SSE `id`, so a
//! reconnecting browser's `Last-Event-ID` (or an explicit `?after=`) resumes
//! exactly after the last event it processed. Backlog and live events are
//! joined without a seam (see [`Feed::subscribe`]); if the broadcast channel
//! overflows, the stream re-reads the buffer from the last cursor it sent.
//! Events that were evicted before a reader came back are announced with a
//! `gap` event naming the first cursor still available — never skipped
//! silently. A position this server did not hand out (one from before a
//! restart, or unparsable) is answered with a `reset` event `{epoch,
//! cursor}` first: the reader reloads what it shows, and the stream goes on
//! with every event after that cursor.

use crate::feed::{Backlog, Feed, FeedEvent, Resume};
use crate::routes::QueryParams;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::json;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::broadcast::{self, error::RecvError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamParams {
    /// A feed position `<epoch>:<cursor>`, or `0` for everything held.
    #[serde(default)]
    after: Option<String>,
}

pub async fn stream(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    QueryParams(params): QueryParams<StreamParams>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // A header that is present but not text is a position too, an unusable
    // one: it resets rather than silently falling back to `?after=`.
    let header = headers
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    let (backlog, live) = state.feed.subscribe(header.or(params.after).as_deref());
    let mut reader = Reader {
        feed: state.feed.clone(),
        live,
        pending: VecDeque::new(),
        last_sent: backlog.resume.after(),
    };
    if let Resume::Reset { cursor } = backlog.resume {
        reader.pending.push_back(Item::Reset { cursor });
    }
    reader.queue(backlog);
    let keepalive = state.sse_keepalive;
    Sse::new(futures_util::stream::unfold(reader, |mut r| async move {
        r.next().await.map(|event| (Ok(event), r))
    }))
    .keep_alive(KeepAlive::new().interval(keepalive))
}

enum Item {
    Reset { cursor: u64 },
    Gap { after: u64, first_available: u64 },
    Event(Arc<FeedEvent>),
}

struct Reader {
    feed: Feed,
    live: broadcast::Receiver<Arc<FeedEvent>>,
    pending: VecDeque<Item>,
    last_sent: u64,
}

impl Reader {
    fn queue(&mut self, backlog: Backlog) {
        if let Some(first_available) = backlog.gap_until {
            self.pending.push_back(Item::Gap {
                after: self.last_sent,
                first_available,
            });
        }
        self.pending
            .extend(backlog.events.into_iter().map(Item::Event));
    }

    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                match item {
                    Item::Reset { cursor } => {
                        return Some(
                            Event::default()
                                .event(somite_api::feed::SSE_RESET)
                                .id(self.feed.position(cursor).to_string())
                                .data(
                                    json!({"epoch": self.feed.epoch(), "cursor": cursor})
                                        .to_string(),
                                ),
                        );
                    }
                    Item::Gap {
                        after,
                        first_available,
                    } => {
                        self.last_sent = first_available - 1;
                        return Some(
                            Event::default()
                                .event(somite_api::feed::SSE_GAP)
                                .id(self.feed.position(self.last_sent).to_string())
                                .data(
                                    json!({"after": after, "first_available": first_available})
                                        .to_string(),
                                ),
                        );
                    }
                    Item::Event(event) if event.cursor > self.last_sent => {
                        self.last_sent = event.cursor;
                        return Some(
                            Event::default()
                                .event(event.kind.as_str())
                                .id(self.feed.position(event.cursor).to_string())
                                .data(serde_json::to_string(&*event).expect("events serialize")),
                        );
                    }
                    Item::Event(_) => continue,
                }
            }
            match self.live.recv().await {
                Ok(event) if event.cursor == self.last_sent + 1 => {
                    self.pending.push_back(Item::Event(event));
                }
                Ok(event) if event.cursor <= self.last_sent => {}
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    let backlog = self.feed.since(self.last_sent);
                    self.queue(backlog);
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }
}
