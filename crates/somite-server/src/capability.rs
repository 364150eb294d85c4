//! Capabilities: the secret an MCP child presents on every call back into
//! the runtime.
//!
//! Each MCP child the runtime launches gets its own 256-bit random value,
//! handed over only through the child's environment
//! (`somite_api::EnvVars::SOMITE_MCP_CAPABILITY`) and presented on the
//! `somite_api::headers::CAPABILITY` header. The value never has a
//! `Debug` or `Display` form that shows it, is compared in constant time, and
//! can be revoked when its session ends. It authenticates the MCP adapter; it
//! is not a sandbox against other processes of the same user.

use std::sync::Mutex;
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// Bytes of randomness per capability (256 bits).
pub const CAPABILITY_BYTES: usize = 32;

/// One issued capability. Its text form is available only through
/// [`Capability::expose`], so it cannot reach a log line by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Capability(String);

impl Capability {
    fn generate() -> Capability {
        let mut bytes = [0u8; CAPABILITY_BYTES];
        getrandom::fill(&mut bytes).expect("the operating system's random source is available");
        Capability(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The secret value, for the one place that needs it: a child's environment.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Capability(<redacted>)")
    }
}

/// Every capability currently valid, one per live MCP child.
#[derive(Debug, Default)]
pub struct Capabilities {
    issued: Mutex<Vec<(u64, Capability)>>,
    next_id: Mutex<u64>,
}

/// Identifies an issued capability for revocation without holding the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapabilityId(u64);

impl Capabilities {
    /// Issues a fresh capability for one MCP child.
    pub fn issue(&self) -> (CapabilityId, Capability) {
        let capability = Capability::generate();
        let mut next = self.next_id.lock().unwrap_or_else(|p| p.into_inner());
        *next += 1;
        let id = *next;
        self.issued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, capability.clone()));
        (CapabilityId(id), capability)
    }

    /// Ends a capability when its child is gone.
    pub fn revoke(&self, id: CapabilityId) {
        self.issued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(i, _)| *i != id.0);
    }

    /// Whether `presented` is a live capability. Every candidate is compared
    /// in constant time, and all of them are compared, so timing reveals
    /// neither the value nor which child it belongs to.
    /// Which issued, unrevoked capability `presented` is. Every issued value
    /// is compared in constant time, so timing tells nothing about which one
    /// matched or how much of a guess was right.
    pub fn identify(&self, presented: &str) -> Option<CapabilityId> {
        let issued = self.issued.lock().unwrap_or_else(|p| p.into_inner());
        let mut found = subtle::Choice::from(0);
        let mut found_id = 0u64;
        for (id, capability) in issued.iter() {
            let candidate = capability.0.as_bytes();
            if candidate.len() == presented.len() {
                let equal = candidate.ct_eq(presented.as_bytes());
                found_id.conditional_assign(id, equal);
                found |= equal;
            }
        }
        bool::from(found).then_some(CapabilityId(found_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_256_bit_and_distinct() {
        let caps = Capabilities::default();
        let (_, a) = caps.issue();
        let (_, b) = caps.issue();
        assert_eq!(a.expose().len(), CAPABILITY_BYTES * 2);
        assert_ne!(a, b);
    }

    #[test]
    fn only_issued_unrevoked_values_verify() {
        let caps = Capabilities::default();
        let (id, cap) = caps.issue();
        assert_eq!(caps.identify(cap.expose()), Some(id));
        assert!(caps.identify("").is_none());
        assert!(caps.identify(&cap.expose()[1..]).is_none());
        let mut flipped = cap.expose().to_owned();
        flipped.replace_range(0..1, if flipped.starts_with('0') { "1" } else { "0" });
        assert!(caps.identify(&flipped).is_none());
        caps.revoke(id);
        assert!(caps.identify(cap.expose()).is_none());
    }

    #[test]
    fn debug_output_never_shows_the_value() {
        let caps = Capabilities::default();
        let (_, cap) = caps.issue();
        assert!(!format!("{cap:?}").contains(cap.expose()));
        assert!(!format!("{caps:?}").contains(cap.expose()));
    }
}
