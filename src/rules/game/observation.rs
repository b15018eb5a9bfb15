//! What a seat sees, as planes of numbers for a learner: OpenSpiel's
//! observation tensor (and, the games being of perfect information and
//! their positions Markov, their clock included, its information-state
//! tensor too).
//!
//! One plane is one number per point of the board, in the game's point
//! order as the seat sees it ([`Game::seen_from`]: turned so that where the
//! board allows, every seat sees its own side the same way, as the
//! engine's network inputs are). The planes, in order:
//! 1. men: for each piece kind ([`Game::PIECE_KINDS`]), for each seat
//!    place (0 the seat observing, 1 the next seat of the game's geometry
//!    in turn order, ...), 1 where such a man stands;
//! 2. to move: one plane per place, all ones on the place to move;
//! 3. in play: one plane per place, all ones for each place in play;
//! 4. roll due: all ones when a chance outcome (a roll) is due;
//! 5. clock: the no-progress clock over its limit, on every point;
//! 6. the game's own ([`Game::EXTRA_PLANES`]: men in hand, the roll in
//!    hand, the mice).
//!
//! The engine's networks read the men's planes of the side to move
//! (`Game::inputs`, sparse), so a model trained on these planes and the
//! engine see the board the same way round.

use super::{Game, Seat};

/// One man on the board: its point (the game's own numbering), owner and
/// kind (an index into [`Game::PIECE_KINDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Man {
    pub point: usize,
    pub owner: Seat,
    pub kind: usize,
}

/// The tensor's shape: planes of points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub planes: usize,
    pub points: usize,
}

impl Shape {
    pub fn len(&self) -> usize {
        self.planes * self.points
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Seat places of the game's geometry (every seat it can have).
fn places<G: Game>() -> usize {
    G::SEAT_LETTERS.len()
}

/// The shape of `position`'s tensor (the points depend on the ruleset's
/// board, so the position is asked).
pub fn shape<G: Game>(position: &G) -> Shape {
    let places = places::<G>();
    Shape {
        planes: G::PIECE_KINDS.len() * places + 2 * places + 2 + G::EXTRA_PLANES.len(),
        points: position.points(),
    }
}

/// The name of every plane, in order, for people and documents.
pub fn plane_names<G: Game>() -> Vec<String> {
    let places = places::<G>();
    let mut names = Vec::new();
    for kind in G::PIECE_KINDS {
        names.extend((0..places).map(|p| format!("{kind} of place {p}")));
    }
    names.extend((0..places).map(|p| format!("place {p} to move")));
    names.extend((0..places).map(|p| format!("place {p} in play")));
    names.push("roll due".to_string());
    names.push("no-progress clock".to_string());
    names.extend(G::EXTRA_PLANES.iter().map(|n| n.to_string()));
    names
}

/// The place of `seat` for an observer in `observer`'s seat.
pub fn place<G: Game>(seat: Seat, observer: Seat) -> usize {
    let places = places::<G>();
    (seat as usize + places - observer as usize) % places
}

/// Writes `position` as `observer` sees it into `out` (cleared first):
/// [`shape`]`.len()` numbers, planes one after another.
pub fn observe<G: Game>(position: &G, observer: Seat, out: &mut Vec<f32>) {
    let shape = shape(position);
    let points = shape.points;
    let places = places::<G>();
    out.clear();
    out.resize(shape.len(), 0.0);
    let mut men = Vec::new();
    position.men(&mut men);
    for man in men {
        let plane = man.kind * places + place::<G>(man.owner, observer);
        out[plane * points + position.seen_from(man.point, observer)] = 1.0;
    }
    let mut fill = |plane: usize, value: f32| {
        out[plane * points..(plane + 1) * points].fill(value);
    };
    let after_men = G::PIECE_KINDS.len() * places;
    fill(after_men + place::<G>(position.side(), observer), 1.0);
    for &seat in position.seats() {
        fill(after_men + places + place::<G>(seat, observer), 1.0);
    }
    let roll = after_men + 2 * places;
    if position.is_chance() {
        fill(roll, 1.0);
    }
    fill(
        roll + 1,
        position.clock() as f32 / G::NO_PROGRESS_LIMIT as f32,
    );
    position.extra_planes(observer, &mut out[(roll + 2) * points..]);
}
