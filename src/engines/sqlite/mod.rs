//! SQLite: the bundled build, builds loaded at run time, and the I/O-counting VFS.

pub mod api;
pub mod build;
pub mod conn;
pub mod engine;
pub mod guard;
pub mod vfs;
