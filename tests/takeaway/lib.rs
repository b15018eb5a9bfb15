//! Take-away, a game that exists only to show what adding a game costs:
//! this one file implements the shared `Game` trait, and [`catalogue`]
//! is the one line that registers it. The test suite then runs it
//! through the generic checks every game gets (random play, perft, the
//! protocol contract, the pipeline matrix, the referee, the catalogue)
//! with an engine and a referee built over that catalogue
//! (`examples/takeaway_engine.rs`, `examples/takeaway_referee.rs`).
//!
//! The rules: a pile of stones (10 or 13, option `stones`); the two seats,
//! First (`f`) and Second (`s`), take turns removing 1 to 3 stones (1 or 2
//! with `take=2`); whoever takes the last stone wins. Notation:
//! `<stones> <side> [<clock>]`; moves `t1`, `t2`, `t3`.

use std::fmt;

use menagerie_rules::catalogue::{self, Attach, GameEntry};
use menagerie_rules::game::{Game, OptionSpec, Outcome, Ruleset, Seat};
use menagerie_rules::notation::{MoveSyntaxError, NotationError};
use menagerie_rules::rng::zobrist_table;

/// The standard games and take-away, as a catalogue.
pub struct WithTakeAway;

impl catalogue::Catalogue for WithTakeAway {
    fn games<A: Attach>() -> Vec<GameEntry<A>> {
        catalogue::<A>()
    }
}

/// The standard games and take-away, as sessions attached by `A`.
pub fn catalogue<A: Attach>() -> Vec<GameEntry<A>> {
    let mut games: Vec<GameEntry<A>> = catalogue::games::<A>().into_iter().collect();
    games.push(GameEntry::of::<TakeAway>());
    games
}

/// The rules a ruleset chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub stones: u8,
    pub take: u8,
}

/// Taking 1 to 3 stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Take(pub u8);

impl fmt::Display for Take {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakeAway {
    rules: Rules,
    stones: u8,
    side: Seat,
    hash: u64,
}

const KEYS: [u64; 64] = zobrist_table(0x7A6E);
const SIDE_KEY: u64 = KEYS[63];

fn key(stones: u8, side: Seat) -> u64 {
    KEYS[stones as usize % 63] ^ if side == 1 { SIDE_KEY } else { 0 }
}

impl fmt::Display for TakeAway {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{} {} 0",
            self.stones,
            Self::SEAT_LETTERS[self.side as usize]
        )
    }
}

impl Game for TakeAway {
    type Move = Take;
    type Undo = ();
    type Rules = Rules;

    /// No men: one point, the pile, and one plane, the stones left.
    const PIECE_KINDS: &'static [&'static str] = &[];
    const EXTRA_PLANES: &'static [&'static str] = &["stones left"];

    fn points(&self) -> usize {
        1
    }

    fn men(&self, _out: &mut Vec<menagerie_rules::game::observation::Man>) {}

    /// Every take is progress: at most one per stone.
    fn progress_left(&self) -> u32 {
        u32::from(self.stones)
    }

    fn point_name(&self, _point: usize) -> String {
        "pile".to_string()
    }

    fn extra_planes(&self, _seat: Seat, out: &mut [f32]) {
        out[0] = f32::from(self.stones) / f32::from(self.rules.stones);
    }

    const ID: &'static str = "take-away";
    const NAME: &'static str = "Take-away";
    const SEAT_NAMES: &'static [&'static str] = &["First", "Second"];
    const MOVE_SYNTAX: &'static str = "take t<n> (1 to 3 stones, or 2 with take=2)";
    const END_REASONS: &'static [(&'static str, &'static str)] =
        &[("last-stone", "a player took the last stone")];
    const ALIASES: &'static [&'static str] = &["nim"];
    const OPTIONS: &'static [OptionSpec] = &[
        OptionSpec {
            key: "stones",
            values: &["10", "13"],
        },
        OptionSpec {
            key: "take",
            values: &["3", "2"],
        },
    ];
    const SEAT_LETTERS: &'static [char] = &['f', 's'];
    const HAS_CHANCE: bool = false;
    const NO_PROGRESS_LIMIT: u32 = 100;
    const MOVE_KEYS: usize = 4;

    fn rules(ruleset: &Ruleset) -> Rules {
        Rules {
            stones: ruleset.value("stones").parse().expect("declared values"),
            take: ruleset.value("take").parse().expect("declared values"),
        }
    }

    fn start(rules: &Rules) -> TakeAway {
        TakeAway {
            rules: *rules,
            stones: rules.stones,
            side: 0,
            hash: key(rules.stones, 0),
        }
    }

    fn from_notation(rules: &Rules, text: &str) -> Result<TakeAway, NotationError> {
        let mut fields = text.split_whitespace();
        let stones = fields.next().ok_or(NotationError::Empty)?;
        let stones: u8 = stones
            .parse()
            .ok()
            .filter(|&n| n <= rules.stones)
            .ok_or_else(|| NotationError::BadField {
                field: "stones",
                text: stones.to_string(),
                expected: "a number of stones, at most the pile's",
            })?;
        let side = fields.next().ok_or(NotationError::MissingField("side"))?;
        let side = match side.to_ascii_lowercase().as_str() {
            "f" => 0,
            "s" => 1,
            _ => {
                return Err(NotationError::BadField {
                    field: "side",
                    text: side.to_string(),
                    expected: "f or s",
                })
            }
        };
        if let Some(clock) = fields.next() {
            if clock != "0" {
                return Err(NotationError::BadField {
                    field: "clock",
                    text: clock.to_string(),
                    expected: "0 (every move takes stones)",
                });
            }
        }
        if let Some(extra) = fields.next() {
            return Err(NotationError::ExtraField(extra.to_string()));
        }
        Ok(TakeAway {
            rules: *rules,
            stones,
            side,
            hash: key(stones, side),
        })
    }

    fn parse_move(text: &str) -> Result<Take, MoveSyntaxError> {
        let lower = text.to_ascii_lowercase();
        match lower.strip_prefix('t').and_then(|n| n.parse::<u8>().ok()) {
            Some(n @ 1..=3) if lower.len() == 2 => Ok(Take(n)),
            _ => Err(MoveSyntaxError::Unreadable(text.to_string())),
        }
    }

    fn seats(&self) -> &[Seat] {
        &[0, 1]
    }

    fn side(&self) -> Seat {
        self.side
    }

    fn generate(&self, moves: &mut Vec<Take>) {
        moves.extend((1..=self.rules.take.min(self.stones)).map(Take));
    }

    fn play(&mut self, mv: Take) {
        self.stones -= mv.0;
        self.side ^= 1;
        self.hash = key(self.stones, self.side);
    }

    fn undo(&mut self, mv: Take, _: ()) {
        self.stones += mv.0;
        self.side ^= 1;
        self.hash = key(self.stones, self.side);
    }

    fn outcome(&self) -> Option<Outcome> {
        // Whoever took the last stone (the side not to move) has won.
        (self.stones == 0).then_some(Outcome::Win(self.side ^ 1))
    }

    fn end_reason(&self) -> &'static str {
        "last-stone"
    }

    fn clock(&self) -> u32 {
        0
    }

    /// The game has no clock: nothing to set.
    fn set_clock(&mut self, _: u32) {}

    fn hash(&self) -> u64 {
        self.hash
    }

    fn draw(&self) -> String {
        format!(
            "Stones: {} ({})\n",
            "o".repeat(self.stones as usize),
            self.stones
        )
    }

    fn is_capture(&self, _: Take) -> bool {
        true
    }

    fn solver_key(&self) -> Option<u64> {
        Some(u64::from(self.stones) << 1 | u64::from(self.side))
    }

    fn move_key(mv: Take) -> usize {
        mv.0 as usize
    }
}
