//! The numbers of one goal's positions, shared by the threads that search
//! it: a hash map in shards, each behind its own lock, so that threads
//! seldom wait for each other; bounded, with open positions dropped at
//! the bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

const SHARDS: usize = 64;

pub(super) type Numbers = (u32, u32);

pub(super) struct Store {
    shards: Vec<Mutex<HashMap<u64, Numbers>>>,
    len: AtomicUsize,
    /// Most positions one shard may hold: its share of the bound.
    most_per_shard: usize,
    /// A collection is under way (one at a time).
    collecting: AtomicBool,
}

fn settled(n: &Numbers) -> bool {
    n.0 == 0 || n.1 == 0
}

impl Store {
    /// A store of at most about `most` positions.
    pub fn new(most: usize) -> Store {
        Store {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            len: AtomicUsize::new(0),
            most_per_shard: (most / SHARDS).max(1),
            collecting: AtomicBool::new(false),
        }
    }

    fn shard(&self, key: u64) -> MutexGuard<'_, HashMap<u64, Numbers>> {
        // The keys are mixed hashes: their top bits spread them evenly.
        let shard = &self.shards[(key >> 58) as usize % SHARDS];
        // A thread that panicked holding a lock left whole entries.
        shard
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn get(&self, key: u64) -> Option<Numbers> {
        self.shard(key).get(&key).copied()
    }

    /// Stores `numbers` for `key`; true when the store is at its bound
    /// (then an open position that would make its shard grow past the
    /// bound is not stored: a map grows by doubling, holding old and new
    /// at once, and the bound must hold at that peak too). Settled
    /// numbers are always stored.
    pub fn insert(&self, key: u64, numbers: Numbers) -> bool {
        let mut shard = self.shard(key);
        if let Some(slot) = shard.get_mut(&key) {
            *slot = numbers;
            return shard.len() >= self.most_per_shard;
        }
        let at_bound = shard.len() >= self.most_per_shard
            || (shard.len() == shard.capacity()
                && shard.capacity().saturating_mul(2) > self.most_per_shard);
        if !at_bound || settled(&numbers) {
            shard.insert(key, numbers);
            self.len.fetch_add(1, Ordering::Relaxed);
        }
        at_bound
    }

    pub fn remove(&self, key: u64) {
        if self.shard(key).remove(&key).is_some() {
            self.len.fetch_sub(1, Ordering::Relaxed);
        }
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Drops the open positions least worth keeping (the smaller half by
    /// their lesser number: the cheapest to find again); settled ones
    /// stay. False when settled positions leave no room to make. While
    /// another thread collects, true at once: room is being made.
    pub fn collect(&self) -> bool {
        if self.collecting.swap(true, Ordering::AcqRel) {
            return true;
        }
        let mut open: Vec<u32> = Vec::new();
        let mut total = 0;
        for i in 0..SHARDS {
            let shard = self.shards[i].lock().unwrap_or_else(|p| p.into_inner());
            total += shard.len();
            open.extend(shard.values().filter(|n| !settled(n)).map(|n| n.0.min(n.1)));
        }
        let made = if open.len() < total / 4 {
            false
        } else {
            let half = open.len() / 2;
            let threshold = *open.select_nth_unstable(half).1;
            for i in 0..SHARDS {
                let mut shard = self.shards[i].lock().unwrap_or_else(|p| p.into_inner());
                let before = shard.len();
                shard.retain(|_, n| settled(n) || n.0.min(n.1) > threshold);
                self.len.fetch_sub(before - shard.len(), Ordering::Relaxed);
            }
            true
        };
        self.collecting.store(false, Ordering::Release);
        made
    }

    /// The settled positions, sorted: key, and whether proved.
    pub fn settled(&self) -> Vec<(u64, bool)> {
        let mut keys = Vec::new();
        for i in 0..SHARDS {
            let shard = self.shards[i].lock().unwrap_or_else(|p| p.into_inner());
            keys.extend(
                shard
                    .iter()
                    .filter(|(_, n)| settled(n))
                    .map(|(&k, n)| (k, n.0 == 0)),
            );
        }
        keys.sort_unstable();
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_keeps_settled_positions_and_drops_open_ones() {
        let store = Store::new(640);
        let mut at_bound = false;
        for k in 0..2000u64 {
            // Spread over the shards as mixed hashes are.
            let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let numbers = if k % 10 == 0 {
                (0, u32::MAX)
            } else {
                (1 + k as u32 % 50, 7)
            };
            at_bound |= store.insert(key, numbers);
        }
        assert!(at_bound);
        // Every settled position is kept, past the bound; open ones stop
        // at about the bound.
        assert_eq!(store.settled().len(), 200);
        assert!(store.len() < 640 + 200 + SHARDS * 16, "{}", store.len());
        let before = store.len();
        assert!(store.collect());
        assert!(store.len() < before);
        assert_eq!(store.settled().len(), 200);
        store.remove(0);
        assert_eq!(store.settled().len(), 199);
        assert_eq!(store.get(0), None);
    }
}
