//! Certificates of proof searches: the positions of a proof written out so
//! that a program sharing nothing with the search can check it
//! (tools/reference/awithlaknannai_certificate.py and safari_certificate.py
//! do, each with its own move generator).
//!
//! A settled goal ("this seat wins", or "this seat cannot win") is shown
//! by a tree: where the side that the claim favours moves (the winner, or
//! the defender of a claim that the other cannot win) one move, its
//! chosen one; where the other side moves, every move; down to leaves the
//! rules decide or an endgame table values. Positions met again (the same
//! board with the same boards since the last capture) are one node.
//!
//! The file is text, one record a line:
//!
//! ```text
//! menagerie-certificate 1
//! game <id>
//! ruleset <key=value ...>
//! start <notation>
//! moves <move ...>          the moves from start to the proof's root
//! claim <seat letter> wins|cannot-win
//! <id> one <move> <child id>
//! <id> all <move> <child id> <move> <child id> ...
//! <id> leaf rules
//! <id> leaf table win|draw|loss   (for the side to move there)
//! claim ...                 a second claim for a draw, ids from 0 again
//! end
//! ```
//!
//! The root of each claim is node 0; nodes come in no particular order.
//! The file is written under a temporary name and renamed, so a
//! certificate on disk is always whole (and ends with `end`).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::value::Wdl;

/// Where a certificate goes, and what its header says about the root.
#[derive(Clone, Debug)]
pub struct CertificateRequest<'a> {
    pub path: &'a Path,
    pub game: &'static str,
    pub ruleset: String,
    /// The position the moves start from, in notation.
    pub start: String,
    /// The moves from `start` to the root of the proof.
    pub moves: Vec<String>,
}

/// What a certificate's claim says of a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    Wins(char),
    CannotWin(char),
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Claim::Wins(seat) => write!(f, "claim {seat} wins"),
            Claim::CannotWin(seat) => write!(f, "claim {seat} cannot-win"),
        }
    }
}

/// One node of a proof, as the walk over it meets it.
pub enum Node<'m> {
    /// Decided by the rules (`None`) or valued by a table, for the side
    /// to move.
    Leaf(Option<Wdl>),
    /// The chosen move and its child.
    One(String, u32),
    /// Every move and its child.
    All(&'m [(String, u32)]),
}

/// What a walk over a proof calls at each node, with its id.
pub type Visit<'v> = dyn FnMut(u32, Node<'_>) -> Result<(), CertificateError> + 'v;

/// Why no certificate was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertificateError {
    /// The file could not be written: its path, and the system's words.
    Io(PathBuf, String),
    /// The path cannot take a certificate: what is wrong, path included.
    Path(String),
    /// The search's stored positions do not hold a whole proof (a
    /// position of the proof that is not settled the claim's way).
    Incomplete,
    /// The search settled nothing: there is no claim to certify.
    NothingSettled,
}

impl fmt::Display for CertificateError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CertificateError::Io(path, e) => write!(f, "certificate {}: {e}", path.display()),
            CertificateError::Path(e) => write!(f, "certificate {e}"),
            CertificateError::Incomplete => {
                f.write_str("certificate: the stored positions do not hold a whole proof")
            }
            CertificateError::NothingSettled => {
                f.write_str("certificate: nothing was settled, so there is nothing to certify")
            }
        }
    }
}

impl std::error::Error for CertificateError {}

/// What was written: per claim, its nodes and leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub claims: Vec<(Claim, usize, usize)>,
}

/// Checks, before a search spends anything, that a certificate can be
/// written to `path`: a regular file or nothing (a symbolic link to one
/// is followed); a device, a FIFO or a folder is refused.
pub fn check_target(path: &Path) -> Result<(), CertificateError> {
    menagerie_os::files::write_target(path)
        .map(|_| ())
        .map_err(|e| CertificateError::Path(e.to_string()))
}

/// Writes a certificate: the header, then for each claim the nodes that
/// `walk` yields (it is called once per claim, in order), then `end`.
/// The file appears whole or not at all, over a regular file or nothing.
pub fn write(
    request: &CertificateRequest<'_>,
    claims: &[Claim],
    walk: &mut dyn FnMut(usize, &mut Visit<'_>) -> Result<(), CertificateError>,
) -> Result<Written, CertificateError> {
    let mut written = Written { claims: Vec::new() };
    // A walk's own error, carried out of the writer (which speaks io).
    let mut failed = None;
    let result = menagerie_os::files::write_replacing(request.path, |out| {
        writeln!(out, "menagerie-certificate 1")?;
        writeln!(out, "game {}", request.game)?;
        writeln!(out, "ruleset {}", request.ruleset)?;
        writeln!(out, "start {}", request.start)?;
        writeln!(out, "moves {}", request.moves.join(" "))?;
        for (index, claim) in claims.iter().enumerate() {
            writeln!(out, "{claim}")?;
            let (mut nodes, mut leaves) = (0, 0);
            let walked = walk(index, &mut |id, node| {
                nodes += 1;
                let line = match node {
                    Node::Leaf(None) => {
                        leaves += 1;
                        writeln!(out, "{id} leaf rules")
                    }
                    Node::Leaf(Some(wdl)) => {
                        leaves += 1;
                        let value = match wdl {
                            Wdl::Win => "win",
                            Wdl::Draw => "draw",
                            Wdl::Loss => "loss",
                        };
                        writeln!(out, "{id} leaf table {value}")
                    }
                    Node::One(mv, child) => writeln!(out, "{id} one {mv} {child}"),
                    Node::All(children) => {
                        let pairs: Vec<String> = children
                            .iter()
                            .map(|(mv, child)| format!(" {mv} {child}"))
                            .collect();
                        writeln!(out, "{id} all{}", pairs.concat())
                    }
                };
                line.map_err(|e| CertificateError::Io(request.path.to_path_buf(), e.to_string()))
            });
            if let Err(e) = walked {
                failed = Some(e);
                return Err(std::io::Error::other("the walk failed"));
            }
            written.claims.push((*claim, nodes - leaves, leaves));
        }
        writeln!(out, "end")
    });
    match (failed, result) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(CertificateError::Path(e.to_string())),
        (None, Ok(())) => Ok(written),
    }
}
