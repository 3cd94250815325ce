//! A cast role's operation names: `ROLE:OP` for each operation type a role's workload
//! records, `ROLE:all` for the role as a whole. Per-operation results ([`super::op`]) and the
//! cast ([`super::cast`]) both read them, so they sit below both.

/// The operation that stands for a whole role, `ROLE:all`: every one of its operation types
/// (a role's row in the tables, and its figures in the answer).
pub fn role_all(role: &str) -> String {
    format!("{role}:all")
}

/// The role of a `ROLE:all` operation.
pub fn role_total(operation: &str) -> Option<&str> {
    operation
        .strip_suffix(":all")
        .filter(|r| !r.is_empty() && !r.contains(':'))
}

/// The role of a `ROLE:OP` operation type.
pub fn role_of(operation: &str) -> Option<&str> {
    operation.split_once(':').map(|(r, _)| r)
}

/// `ROLE:OP`, one `&'static str` per distinct name for the life of the process (a recorder's
/// operation types are static names; a run has a handful of roles).
pub fn role_op(role: &str, op: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let name = format!("{role}:{op}");
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name.as_str()) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}
