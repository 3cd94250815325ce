//! Running a benchmark: the plan of configurations ([`plan`]), the session that runs a plan and
//! stores every trial ([`session`]), the trial loop itself ([`runner`]) with what it shares
//! with the plan and client processes below it ([`cold`], [`connect`]), sharding a plan over
//! machines ([`shard`]), a cast of roles read from its file ([`cast_file`]), comparing query answers between engines ([`answers`]), a whole run
//! inside the guest kernel ([`guest`]), and what the command that starts a run is told of it to
//! report ([`observer`]).

pub mod answers;
pub mod cast_file;
pub mod client_process;
pub mod cold;
pub mod connect;
pub mod driver_process;
pub mod flags;
pub mod guest;
pub mod guest_qualify;
pub mod instructions;
pub mod observer;
pub mod plan;
pub mod runner;
pub mod session;
pub mod settings;
pub mod shard;
