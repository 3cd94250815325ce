//! The transaction mix as the specification's deck of cards (TPC-C 5.11 §5.2.4.2): each client
//! deals from its own shuffled deck of 23 cards, 10 New-Order, 10 Payment and one each of
//! Order-Status, Delivery and Stock-Level, and shuffles a new one when it is empty. Every 23
//! transactions therefore hold the minimum shares of §5.2.3 (Payment 43.5% ≥ 43%, the other
//! three 4.3% ≥ 4%), which a weighted random choice (go-tpc's) only holds on average.

use rand::seq::SliceRandom;
use rand::Rng;

/// The five transactions, in report order.
pub const TXNS: [&str; 5] = ["NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"];

/// Indices into [`TXNS`].
pub const NEW_ORDER: usize = 0;
pub const PAYMENT: usize = 1;
pub const ORDER_STATUS: usize = 2;
pub const DELIVERY: usize = 3;
pub const STOCK_LEVEL: usize = 4;

/// Cards of each transaction in one deck, in [`TXNS`] order.
pub const CARDS: [usize; 5] = [10, 10, 1, 1, 1];

/// One client's deck.
#[derive(Debug, Clone)]
pub struct Deck {
    cards: Vec<u8>,
    next: usize,
}

impl Default for Deck {
    fn default() -> Deck {
        let mut cards = Vec::with_capacity(CARDS.iter().sum());
        for (tx, &n) in CARDS.iter().enumerate() {
            cards.extend(std::iter::repeat_n(tx as u8, n));
        }
        let next = cards.len();
        Deck { cards, next }
    }
}

impl Deck {
    /// The next transaction's index into [`TXNS`].
    pub fn deal(&mut self, rng: &mut impl Rng) -> usize {
        if self.next == self.cards.len() {
            self.cards.shuffle(rng);
            self.next = 0;
        }
        self.next += 1;
        usize::from(self.cards[self.next - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_deck_holds_the_minimum_shares() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut deck = Deck::default();
        let mut seen = [0usize; 5];
        let decks = 100;
        for i in 1..=decks * 23 {
            seen[deck.deal(&mut rng)] += 1;
            if i % 23 == 0 {
                assert_eq!(seen, CARDS.map(|c| c * (i / 23)), "after {} decks", i / 23);
            }
        }
        assert!(seen[PAYMENT] * 100 >= 43 * decks * 23);
        for t in [ORDER_STATUS, DELIVERY, STOCK_LEVEL] {
            assert!(seen[t] * 100 >= 4 * decks * 23);
        }
    }
}
