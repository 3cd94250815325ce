//! What the operating system tells and does for a measurement: the clock, the VFS and device
//! I/O counters, /proc readers, the identity of a process (to tell a live owner from a dead
//! one), the confinement checks on paths, files only this user can have written, scratch
//! directories, whether a cached file may be loaded (its owner and modes, on the descriptor that
//! is loaded), and the stop signals. Nothing here knows an engine or a workload.

pub mod cachedir;
pub mod clock;
pub mod confine;
pub mod contain;
pub mod dbfiles;
pub mod deviceio;
pub mod elf;
pub mod heap;
pub mod iocount;
pub mod listener;
pub mod lock_wait;
pub mod own_file;
pub mod owner;
pub mod procstat;
pub mod proctree;
pub mod regular;
pub mod scratch;
pub mod sidecar;
pub mod signals;
pub mod storage_delay;
pub mod trusted;
pub mod valgrind;
