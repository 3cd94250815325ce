//! The records a run produces and everything they are made of: the manifest and trial records
//! ([`record`]), knob settings ([`knob`]), workload parameters ([`params`]), per-operation
//! results and their histograms ([`op`]), the metric a workload reports ([`metric`]) and what
//! identifies an engine build ([`engine_info`]), and whether a run's records add up
//! ([`consistency`]). These types are what the store keeps and what
//! `--format json` prints, so they import no engine, workload, report or command.

pub mod backoff;
pub mod cast;
pub mod clients;
pub mod consistency;
pub mod driver;
pub mod engine_info;
pub mod knob;
pub mod load;
pub mod measure;
pub mod metric;
pub mod op;
pub mod params;
pub mod quantity;
pub mod record;
pub mod role_op;
pub mod series;
pub mod stop_rule;
pub mod storage;
