//! What a run is placed on: filesystems built fresh on loop devices ([`fsspec`], [`fsmount`]),
//! the I/O schedulers set on them or on a real device ([`scheduler`], [`scheduler_device`]),
//! and a throwaway user-mode Linux kernel for filesystems the host lacks ([`guest`]).

pub mod fsmount;
pub mod fsspec;
pub mod guest;
pub mod leftovers;
pub mod qualify;
pub mod scheduler;
pub mod scheduler_device;
pub mod throttle;
