//! Every bound this crate enforces, in one place.
//!
//! The numbers come from the agent specification and Somite's documented
//! limits; a test beside each rule would fail without it.

use std::time::Duration;

/// The largest frame (one line of agent standard output, complete or not)
/// Somite decodes: the shared workflow transaction envelope. A larger frame
/// ends the session instead of growing memory.
pub const MAX_FRAME_BYTES: usize = somite_api::limits::MAX_DOCUMENT_BYTES as usize;

/// How long a permission request waits for the user before Somite answers it.
pub const PERMISSION_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// How many credential names `SOMITE_AGENT_CREDENTIAL_ENV_NAMES` may hold.
pub const MAX_CREDENTIAL_NAMES: usize = 32;

/// How many bytes `SOMITE_AGENT_CREDENTIAL_ENV_NAMES` may hold.
pub const MAX_CREDENTIAL_LIST_BYTES: usize = 4 * 1024;

/// How long a disconnecting agent may take to exit after its standard input
/// closes, before its process group receives `SIGTERM`.
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// How long the agent's process group may take to exit after `SIGTERM`,
/// before it receives `SIGKILL`.
pub const TERMINATE_GRACE: Duration = Duration::from_secs(2);

/// How much of the agent's standard error is kept to explain an exit.
pub const STDERR_TAIL_BYTES: usize = 4 * 1024;

/// How many argv tokens a custom agent command may have.
pub const MAX_CUSTOM_ARGV_TOKENS: usize = 64;

/// How long one argv token of a custom agent command may be.
pub const MAX_CUSTOM_ARGV_TOKEN_BYTES: usize = 4 * 1024;

/// How long one token of a command discovered in the registry may be.
pub const MAX_REGISTRY_TOKEN_BYTES: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_are_the_specifications() {
        assert_eq!(MAX_FRAME_BYTES, 64 * 1024 * 1024);
        assert_eq!(PERMISSION_TIMEOUT.as_secs(), 300);
        assert_eq!(
            (MAX_CREDENTIAL_NAMES, MAX_CREDENTIAL_LIST_BYTES),
            (32, 4096)
        );
    }
}
