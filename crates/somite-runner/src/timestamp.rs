//! RFC 3339 UTC timestamps for run records and receipts.
//!
//! Records need a time a person can read and a machine can sort: UTC with
//! exactly three fractional digits, so the text sorts as the instant does.

use jiff::Timestamp;

/// Now, as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn now() -> String {
    format(Timestamp::now())
}

fn format(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: i64) -> String {
        format(Timestamp::from_millisecond(millis).unwrap())
    }

    #[test]
    fn known_instants_format_exactly() {
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(at(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
    }
}
