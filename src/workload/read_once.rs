//! Inputs a workload reads from the user's files once per process and keeps for its life: the
//! script and replay workloads' parsed files. Their operation types' names are borrowed from
//! what was read (`&'static str`, as every workload's are), so what is read is never freed; a
//! process reads each distinct set of files once, however many trials, configurations or
//! client processes use it.

use std::sync::{Mutex, OnceLock};

/// What was read, and the parameters that named it.
type Entries<T> = Mutex<Vec<(Vec<String>, &'static T)>>;

/// What was read, by the parameters that name it.
pub struct ReadOnce<T: 'static> {
    cache: OnceLock<Entries<T>>,
}

impl<T: Sync> ReadOnce<T> {
    pub const fn new() -> ReadOnce<T> {
        ReadOnce { cache: OnceLock::new() }
    }

    /// What `key` names, reading it with `read` the first time.
    pub fn get<E>(&self, key: Vec<String>, read: impl FnOnce() -> Result<T, E>) -> Result<&'static T, E> {
        let cache = self.cache.get_or_init(Default::default);
        let lock = || cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = lock().iter().find(|(k, _)| *k == key) {
            return Ok(t);
        }
        let read: &'static T = Box::leak(Box::new(read()?));
        lock().push((key, read));
        Ok(read)
    }
}

impl<T: Sync> Default for ReadOnce<T> {
    fn default() -> Self {
        ReadOnce::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_key_once() {
        static ONCE: ReadOnce<String> = ReadOnce::new();
        let reads = std::cell::Cell::new(0);
        let read = || -> Result<String, ()> {
            reads.set(reads.get() + 1);
            Ok("x".into())
        };
        let a = ONCE.get(vec!["a".into()], read).unwrap();
        let b = ONCE.get(vec!["a".into()], read).unwrap();
        assert!(std::ptr::eq(a, b));
        ONCE.get(vec!["b".into()], read).unwrap();
        assert_eq!(reads.get(), 2);
        assert_eq!(ONCE.get(vec!["c".into()], || Err::<String, _>("bad")), Err("bad"));
    }
}
