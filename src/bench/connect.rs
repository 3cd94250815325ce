//! A trial's further connections (more clients, cast roles, client processes) set up like its
//! first. Below both [`crate::bench::runner`] and [`crate::bench::client_process`], which open
//! them.

use crate::engines::{Connection, DbRef, Engine};
use crate::model::knob::{self, KnobSet, Stage};
use crate::workload::WorkloadError;

/// A further connection to `db`, its connect-time knobs set and read back like the trial's
/// first connection's.
pub fn connect_configured(
    engine: &dyn Engine,
    db: &DbRef,
    knobs: &KnobSet,
    allow_unverified: bool,
) -> Result<Box<dyn Connection>, WorkloadError> {
    let mut conn = engine.connect(db)?;
    engine.apply_knobs(conn.as_mut(), knobs, Stage::Connect)?;
    let readings = engine.read_knobs(conn.as_mut(), knobs)?;
    knob::verify(
        &readings,
        engine.label(),
        engine.passthrough_prefix(),
        allow_unverified,
        &|k| engine.knob_hint(k),
    )?;
    Ok(conn)
}
