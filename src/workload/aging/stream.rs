//! One client's stream of `aging` transactions, drawn before each is timed: which operation
//! comes next (an expire after every `expire_every` inserts, the rest by weight), and each
//! insert's event: its logical time and its payload.
//!
//! The logical clock is the event's number: the template's pre-aged events are `1..=pre_age`,
//! and client `i` of `n` inserts `pre_age + 1 + i`, then every `n`-th after it, so clients
//! never insert the same event and together fill the clock without gaps. An expire keeps the
//! newest `retention` events by that clock (`ts > max(ts) - retention`), whichever client or
//! cast role runs it, so no client needs to know another's position.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An operation type, as an index into [`super::OPS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Insert = 0,
    Expire = 1,
    Read = 2,
}

/// Distinct values of the indexed `kind` column.
pub const KINDS: i64 = 16;
/// Distinct values of the indexed `source` column.
pub const SOURCES: i64 = 1000;

/// What a stream draws from: the parameters that shape it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    /// An expire after this many of the stream's inserts (0: only by `expire_weight`).
    pub expire_every: u64,
    pub insert_weight: u64,
    pub expire_weight: u64,
    pub read_weight: u64,
    /// Bytes of each event's payload.
    pub payload: usize,
}

/// One inserted event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its number on the logical clock, also its `id`.
    pub ts: i64,
    pub kind: i64,
    pub source: i64,
    pub payload: Vec<u8>,
}

/// A client's stream.
#[derive(Debug, Clone)]
pub struct Stream {
    mix: Mix,
    rng: ChaCha8Rng,
    /// The next event this stream inserts, and how far apart its events are.
    next_ts: i64,
    step: i64,
    /// Inserts since this stream's last expire.
    since_expire: u64,
    /// The last insert drawn.
    event: Event,
}

impl Stream {
    /// Client `index` of `clients` after a template of `pre_aged` events, drawing from `seed`.
    pub fn new(mix: Mix, pre_aged: u64, index: u32, clients: u32, seed: u64) -> Stream {
        Stream {
            mix,
            rng: ChaCha8Rng::seed_from_u64(seed),
            next_ts: pre_aged as i64 + 1 + i64::from(index),
            step: i64::from(clients.max(1)),
            since_expire: 0,
            event: Event {
                ts: 0,
                kind: 0,
                source: 0,
                payload: Vec::with_capacity(mix.payload),
            },
        }
    }

    /// The next operation; an insert's event is then [`Stream::event`].
    pub fn draw(&mut self) -> Op {
        let m = self.mix;
        let op = if m.expire_every > 0 && self.since_expire >= m.expire_every {
            Op::Expire
        } else {
            let total = m.insert_weight + m.expire_weight + m.read_weight;
            let x = self.rng.random_range(0..total.max(1));
            if x < m.insert_weight {
                Op::Insert
            } else if x < m.insert_weight + m.expire_weight {
                Op::Expire
            } else {
                Op::Read
            }
        };
        match op {
            Op::Expire => self.since_expire = 0,
            Op::Insert => {
                self.since_expire += 1;
                self.fill();
            }
            Op::Read => {}
        }
        op
    }

    /// The event the last insert drawn inserts.
    pub fn event(&self) -> &Event {
        &self.event
    }

    fn fill(&mut self) {
        let e = &mut self.event;
        e.ts = self.next_ts;
        self.next_ts += self.step;
        e.kind = self.rng.random_range(0..KINDS);
        e.source = self.rng.random_range(0..SOURCES);
        e.payload.resize(self.mix.payload, 0);
        self.rng.fill_bytes(&mut e.payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIX: Mix = Mix {
        expire_every: 3,
        insert_weight: 1,
        expire_weight: 0,
        read_weight: 0,
        payload: 10,
    };

    #[test]
    fn an_expire_follows_every_expire_every_inserts_and_events_count_on_from_the_template() {
        let mut s = Stream::new(MIX, 100, 0, 1, 7);
        let mut ops = Vec::new();
        let mut ts = Vec::new();
        for _ in 0..8 {
            let op = s.draw();
            if op == Op::Insert {
                ts.push(s.event().ts);
                assert_eq!(s.event().payload.len(), 10);
            }
            ops.push(op);
        }
        use Op::{Expire as E, Insert as I};
        assert_eq!(ops, [I, I, I, E, I, I, I, E]);
        assert_eq!(ts, [101, 102, 103, 104, 105, 106]);
    }

    #[test]
    fn two_clients_interleave_their_events_without_a_gap() {
        let mut all = Vec::new();
        for i in 0..2 {
            let mut s = Stream::new(MIX, 10, i, 2, 7);
            for _ in 0..4 {
                if s.draw() == Op::Insert {
                    all.push(s.event().ts);
                }
            }
        }
        all.sort();
        assert_eq!(all, [11, 12, 13, 14, 15, 16]);
    }

    #[test]
    fn weights_pick_the_operations_and_a_zero_weight_never_comes() {
        let mix = Mix {
            expire_every: 0,
            insert_weight: 0,
            expire_weight: 1,
            read_weight: 3,
            payload: 0,
        };
        let mut s = Stream::new(mix, 0, 0, 1, 1);
        let drawn: Vec<Op> = (0..4000).map(|_| s.draw()).collect();
        let reads = drawn.iter().filter(|o| **o == Op::Read).count();
        assert!(!drawn.contains(&Op::Insert));
        assert!((2800..3200).contains(&reads), "about 3 in 4 reads: {reads}");
    }
}
