//! A transposition table shared by all search threads without locks.
//!
//! Each slot is two atomics: the key xor-ed with the data, and the data
//! (Hyatt's lockless scheme): a torn write by another thread shows up as a
//! key mismatch and is ignored. Moves are stored as their index in the
//! position's generation order, which is deterministic, so the table never
//! needs to know a game's move type.

use std::alloc::Layout;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use menagerie_os::memory::{self, Headroom};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub score: i32,
    pub depth: u8,
    pub bound: Bound,
    /// Index of the best move in generation order, if one is known.
    pub move_index: Option<u16>,
}

impl Entry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let index = self.move_index.map_or(0xFFFF, |i| i as u64);
        (self.score as u32 as u64)
            | (index << 32)
            | ((self.depth as u64) << 48)
            | (bound << 56)
            | (((generation & 0x3F) as u64) << 58)
    }

    fn unpack(data: u64) -> Option<Entry> {
        let bound = match (data >> 56) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        let index = ((data >> 32) & 0xFFFF) as u16;
        Some(Entry {
            score: data as u32 as i32,
            depth: (data >> 48) as u8,
            bound,
            move_index: (index != 0xFFFF).then_some(index),
        })
    }
}

fn generation_of(data: u64) -> u8 {
    (data >> 58) as u8 & 0x3F
}

/// A table size the machine cannot give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    pub mib: u64,
    /// What the process could still have when it was asked for, and the
    /// limit that said so, where the system tells.
    pub headroom: Option<Headroom>,
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "cannot allocate {} MiB", self.mib)?;
        match self.headroom {
            Some(room) => write!(f, " ({room})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for TableError {}

pub struct Table {
    slots: Vec<[AtomicU64; 2]>,
    generation: std::sync::atomic::AtomicU8,
    /// Slots first written since the last clear, while there are few:
    /// clearing then zeroes only those (fast games touch a tiny part of
    /// the table, and a game must not see the last one's entries).
    touched: Vec<AtomicU32>,
    touched_count: AtomicUsize,
}

/// Slots remembered for a partial clear; past this a clear zeroes all.
const TOUCHED_MAX: usize = 1 << 14;

/// Tables up to this size are cleared by writing zeros, which keeps their
/// pages in place; larger ones hand their pages back to the system. A
/// page handed back costs a fault when the next search first touches it,
/// inside that search's time (two, as a probe reads it before a store
/// writes it): for the default 16 MiB table, 8,192 faults in the first
/// moves of every game, where writing zeros at `newgame` takes about a
/// millisecond off the clock.
const ZEROED_IN_PLACE_MAX: usize = 64 << 20;

impl Table {
    /// A table of about `mib` mebibytes (at least one slot).
    ///
    /// # Panics
    /// When the memory cannot be had; [`Table::try_new`] reports it instead.
    pub fn new(mib: usize) -> Table {
        Table::try_new(mib).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of about `mib` mebibytes, or why the machine cannot give it.
    ///
    /// Memory is asked for zeroed, which the system hands over lazily, so
    /// even a large table costs nothing until the search fills it. That is
    /// also why the size is checked against the memory available first:
    /// the allocation itself would succeed and the process be killed later.
    pub fn try_new(mib: usize) -> Result<Table, TableError> {
        memory::allocate_large_blocks_lazily();
        // A size past the address space is refused, not wrapped round.
        let Some(asked) = mib.max(1).checked_mul(1 << 20) else {
            return Err(TableError {
                mib: mib as u64,
                headroom: memory::headroom(),
            });
        };
        let count = asked / 16;
        let count =
            (count.next_power_of_two() / if count.is_power_of_two() { 1 } else { 2 }).max(1);
        let bytes = count as u64 * 16;
        let too_much = |headroom: Option<Headroom>| TableError {
            mib: mib as u64,
            headroom,
        };
        let headroom = memory::headroom();
        if headroom.is_some_and(|room| bytes > room.bytes / 10 * 9) {
            return Err(too_much(headroom));
        }
        let layout = Layout::array::<[AtomicU64; 2]>(count).map_err(|_| too_much(headroom))?;
        // SAFETY: the layout is that of `count` slots (count > 0), all-zero
        // bytes are a valid AtomicU64, and the pointer comes from the global
        // allocator with exactly the layout Vec uses for this capacity.
        let slots = unsafe {
            let ptr = std::alloc::alloc_zeroed(layout) as *mut [AtomicU64; 2];
            if ptr.is_null() {
                return Err(too_much(headroom));
            }
            Vec::from_raw_parts(ptr, count, count)
        };
        Ok(Table {
            slots,
            generation: std::sync::atomic::AtomicU8::new(0),
            touched: (0..TOUCHED_MAX).map(|_| AtomicU32::new(0)).collect(),
            touched_count: AtomicUsize::new(0),
        })
    }

    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        &self.slots[self.index(key)]
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let [k, d] = self.slot(key);
        let data = d.load(Ordering::Relaxed);
        if k.load(Ordering::Relaxed) ^ data != key {
            return None;
        }
        Entry::unpack(data)
    }

    /// Stores unless the slot holds a deeper entry of this search for
    /// another position.
    pub fn store(&self, key: u64, entry: Entry) {
        let [k, d] = self.slot(key);
        let generation = self.generation.load(Ordering::Relaxed);
        let old = d.load(Ordering::Relaxed);
        if old == 0 {
            let n = self.touched_count.fetch_add(1, Ordering::Relaxed);
            if n < TOUCHED_MAX {
                self.touched[n].store(self.index(key) as u32, Ordering::Relaxed);
            }
        }
        let same_key = k.load(Ordering::Relaxed) ^ old == key;
        let old_entry = Entry::unpack(old);
        if let Some(o) = old_entry {
            if !same_key && generation_of(old) == generation & 0x3F && o.depth > entry.depth + 2 {
                return;
            }
        }
        let mut entry = entry;
        if same_key && entry.move_index.is_none() {
            entry.move_index = old_entry.and_then(|o| o.move_index);
        }
        let data = entry.pack(generation);
        k.store(key ^ data, Ordering::Relaxed);
        d.store(data, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Empties the table (callers make sure no search is running).
    pub fn clear(&self) {
        let n = self.touched_count.swap(0, Ordering::Relaxed);
        if n <= TOUCHED_MAX {
            for t in &self.touched[..n] {
                zero(&self.slots[t.load(Ordering::Relaxed) as usize]);
            }
        } else if self.clears_in_place() {
            self.slots.iter().for_each(zero);
        } else {
            let handed_back = self.hand_back_pages();
            self.slots[..handed_back.start].iter().for_each(zero);
            self.slots[handed_back.end..].iter().for_each(zero);
        }
    }

    /// Whether [`Table::clear`] writes zeros in place (the table keeps its
    /// pages), rather than handing the pages back to the system.
    pub fn clears_in_place(&self) -> bool {
        std::mem::size_of_val(&self.slots[..]) <= ZEROED_IN_PLACE_MAX
    }

    /// Writes every slot once, so that the pages behind a fresh table are
    /// in place before a timed search: the system hands them over at their
    /// first touch, a cost that belongs to the allocation, not the search.
    pub fn touch_all(&self) {
        self.slots.iter().for_each(zero);
        self.touched_count.store(0, Ordering::Relaxed);
    }

    /// Gives the whole pages inside the table back to the system, which
    /// hands them out again zeroed when next touched: clearing a large
    /// table costs the kernel's page freeing instead of writing every
    /// byte (a 4 GiB table: a tenth of the time). Returns the slots it
    /// covered; the caller zeroes the rest.
    fn hand_back_pages(&self) -> std::ops::Range<usize> {
        const SLOT: usize = std::mem::size_of::<[AtomicU64; 2]>();
        // SAFETY: the table's own allocation, private anonymous memory
        // (heap or mmap) where zero is a valid value of every slot; no
        // search runs while it is cleared.
        let bytes = unsafe {
            menagerie_os::memory::hand_back(self.slots.as_ptr() as *mut u8, self.slots.len() * SLOT)
        };
        // Whole slots only: pages and slots both align to 16 bytes.
        bytes.start.div_ceil(SLOT)..bytes.end / SLOT
    }

    /// Permille of the first thousand slots used by the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed) & 0x3F;
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|[_, d]| {
                let data = d.load(Ordering::Relaxed);
                Entry::unpack(data).is_some() && generation_of(data) == generation
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// Empties one slot.
fn zero([key, data]: &[AtomicU64; 2]) {
    key.store(0, Ordering::Relaxed);
    data.store(0, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_clear_empties_every_slot() {
        let table = Table::new(1);
        let entry = Entry {
            score: 7,
            depth: 3,
            bound: Bound::Exact,
            move_index: Some(1),
        };
        for key in 0..table.len() as u64 * 4 {
            table.store(key.wrapping_mul(0x9E37_79B9_7F4A_7C15), entry);
        }
        assert!(table.touched_count.load(Ordering::Relaxed) > TOUCHED_MAX);
        table.clear();
        assert!(table
            .slots
            .iter()
            .all(|[k, d]| k.load(Ordering::Relaxed) == 0 && d.load(Ordering::Relaxed) == 0));
        // And it works as a table afterwards.
        table.store(12345, entry);
        assert_eq!(table.probe(12345), Some(entry));
    }

    #[test]
    fn a_large_table_hands_its_pages_back_and_is_empty_after_a_clear() {
        let table = Table::new(ZEROED_IN_PLACE_MAX / (1 << 20) * 2);
        assert!(!table.clears_in_place() && Table::new(1).clears_in_place());
        let entry = Entry {
            score: 7,
            depth: 3,
            bound: Bound::Exact,
            move_index: None,
        };
        for key in 0..3 * TOUCHED_MAX as u64 {
            table.store(key.wrapping_mul(0x9E37_79B9_7F4A_7C15), entry);
        }
        table.clear();
        assert!(table
            .slots
            .iter()
            .all(|[k, d]| k.load(Ordering::Relaxed) == 0 && d.load(Ordering::Relaxed) == 0));
    }

    #[test]
    fn entries_round_trip() {
        let table = Table::new(1);
        let entry = Entry {
            score: -123_456,
            depth: 17,
            bound: Bound::Lower,
            move_index: Some(42),
        };
        table.store(0xDEAD_BEEF, entry);
        assert_eq!(table.probe(0xDEAD_BEEF), Some(entry));
        assert_eq!(table.probe(0xDEAD_BEEE), None);
        table.clear();
        assert_eq!(table.probe(0xDEAD_BEEF), None);
    }

    #[test]
    fn clearing_forgets_everything_after_light_and_heavy_use() {
        let table = Table::new(1);
        let entry = Entry {
            score: 1,
            depth: 1,
            bound: Bound::Exact,
            move_index: None,
        };
        for count in [10u64, 3 * TOUCHED_MAX as u64] {
            for key in 1..=count {
                table.store(key.wrapping_mul(0x9E37_79B9_7F4A_7C15), entry);
            }
            table.clear();
            assert!((1..=count).all(|key| table
                .probe(key.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .is_none()));
            assert!(table
                .slots
                .iter()
                .all(|[k, d]| k.load(Ordering::Relaxed) == 0 && d.load(Ordering::Relaxed) == 0));
        }
    }

    #[test]
    fn more_than_the_machine_has_is_an_error_not_an_abort() {
        let Some(available) = memory::available_bytes() else {
            return;
        };
        let mib = (available >> 20) as usize * 2 + 1024;
        let e = Table::try_new(mib).err().expect("refused");
        assert_eq!(e.mib, mib as u64);
        assert!(e
            .to_string()
            .starts_with(&format!("cannot allocate {mib} MiB (about ")));
        assert!(e
            .to_string()
            .ends_with(&format!("{})", e.headroom.unwrap().source)));
    }

    #[test]
    fn size_follows_mebibytes() {
        assert_eq!(Table::new(1).len(), 65536);
        assert_eq!(Table::new(3).len(), 131072);
    }
}
