//! Transaction-control statements (`BEGIN ...`, `COMMIT`, `ROLLBACK`) as the workloads' timed
//! loops run them: prepared once where the engine allows it, as text where it does not.

use super::{Connection, EngineError, StmtId};

/// A transaction-control statement: prepared where the engine allows it, else run as text
/// (MySQL's server-side prepared statements do not take `START TRANSACTION`).
#[derive(Debug, Clone, Copy)]
pub enum Control {
    Prepared(StmtId),
    Text(&'static str),
}

impl Control {
    pub fn prepare(conn: &mut dyn Connection, sql: &'static str) -> Control {
        match conn.prepare(sql) {
            Ok(id) => Control::Prepared(id),
            Err(_) => Control::Text(sql),
        }
    }

    pub fn run(self, conn: &mut dyn Connection) -> Result<(), EngineError> {
        match self {
            Control::Prepared(id) => conn.run(id, &[]).map(|_| ()),
            Control::Text(sql) => conn.execute_batch(sql),
        }
    }
}
