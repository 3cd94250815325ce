//! Keeps Rust panics out of C: every callback SQLite makes into litebench (the VFS shim's
//! methods) runs its body through [`callback`].
//!
//! A panic unwinding into SQLite's C frames would abort the process (or worse, skip SQLite's
//! cleanup), losing every result of the run. Instead the body's panic — or an unexpected state
//! it reports as [`Fault`] — becomes an error code handed to SQLite (an `SQLITE_IOERR_*` for I/O
//! methods), which fails the statement like any I/O error, and is recorded here so the run can
//! say that litebench itself, not the storage, failed ([`faults`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// An unexpected state found by a callback (a null pointer SQLite should never pass, a wrapped
/// VFS without a mandatory method, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault(pub String);

/// Failures recorded so far in this process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    /// How many callbacks failed.
    pub count: u64,
    /// The first failure, as `callback: message` (the first is the cause; later ones usually
    /// follow from it).
    pub first: Option<String>,
}

static COUNT: AtomicU64 = AtomicU64::new(0);
static FIRST: Mutex<Option<String>> = Mutex::new(None);

/// The callback failures recorded in this process.
pub fn faults() -> Faults {
    Faults {
        count: COUNT.load(Relaxed),
        first: FIRST.lock().unwrap_or_else(|p| p.into_inner()).clone(),
    }
}

fn record(callback: &str, message: &str) {
    COUNT.fetch_add(1, Relaxed);
    let mut first = FIRST.lock().unwrap_or_else(|p| p.into_inner());
    if first.is_none() {
        *first = Some(format!("{callback}: {message}"));
    }
}

/// Runs `body` for the C callback `name`; a panic or a [`Fault`] is recorded and `on_fault`
/// returned instead. Never unwinds.
pub fn callback<T>(name: &'static str, on_fault: T, body: impl FnOnce() -> Result<T, Fault>) -> T {
    let result = catch_unwind(AssertUnwindSafe(|| {
        #[cfg(test)]
        inject::maybe_panic(name);
        body()
    }));
    match result {
        Ok(Ok(v)) => v,
        Ok(Err(Fault(message))) => {
            record(name, &message);
            on_fault
        }
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            record(name, &format!("panicked: {message}"));
            on_fault
        }
    }
}

/// Test-only fault injection: make the next calls of one callback on this thread panic.
#[cfg(test)]
pub mod inject {
    use std::cell::RefCell;

    thread_local! {
        static TARGET: RefCell<Option<&'static str>> = const { RefCell::new(None) };
    }

    /// Callbacks named `name` panic on this thread until [`clear`].
    pub fn panic_in(name: &'static str) {
        TARGET.with(|t| *t.borrow_mut() = Some(name));
    }

    pub fn clear() {
        TARGET.with(|t| *t.borrow_mut() = None);
    }

    pub(super) fn maybe_panic(name: &str) {
        if TARGET.with(|t| *t.borrow() == Some(name)) {
            panic!("injected failure in {name}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fault_value_and_is_recorded() {
        let before = faults().count;
        let rc = callback("xTest", 10, || -> Result<i32, Fault> { panic!("boom") });
        assert_eq!(rc, 10);
        assert!(faults().count > before);
        assert!(faults().first.is_some());
    }

    #[test]
    fn a_fault_becomes_the_fault_value() {
        let before = faults().count;
        assert_eq!(callback("xTest", -1, || Err(Fault("null file".into()))), -1);
        assert!(faults().count > before);
        assert_eq!(callback("xTest", -1, || Ok(7)), 7);
    }
}
