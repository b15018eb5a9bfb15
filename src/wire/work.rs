//! The arguments of the long commands that take `key=value` words
//! (`tables`, `selfplay`, `dataset`), typed once here: the engine gets
//! them checked and never reads the words again. Words the command does
//! not know are ruleset options, kept for the rules to check. Each prints
//! back to words that parse to the same arguments.

use std::fmt;

/// What `tables` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablesAction {
    Build,
    Verify,
    Status,
    /// Probes per second against move generation, side by side.
    Bench,
    /// The pairs of slices a build of `men=N` makes, by number of men,
    /// with their sizes: what a cluster's job arrays run.
    Plan,
}

impl TablesAction {
    pub fn word(self) -> &'static str {
        match self {
            TablesAction::Build => "build",
            TablesAction::Verify => "verify",
            TablesAction::Status => "status",
            TablesAction::Bench => "bench",
            TablesAction::Plan => "plan",
        }
    }
}

/// A material slice as `tables` names one: `4v3`, four men for the side
/// to move against three; in a game with two kinds of piece counted,
/// the counts by kind joined by `+` (`2+1v1+2`, a second kind's 0 left
/// out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceArg {
    pub mover: [u8; 2],
    pub other: [u8; 2],
}

impl SliceArg {
    /// `4v3`, `2+1v0+2`; `None` unless written the one way `Display`
    /// writes it.
    fn parse(text: &str) -> Option<SliceArg> {
        let side = |text: &str| {
            let mut counts = [0u8; 2];
            let mut parts = text.split('+');
            for count in &mut counts {
                if let Some(part) = parts.next() {
                    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    *count = part.parse().ok()?;
                }
            }
            parts.next().is_none().then_some(counts)
        };
        let (mover, other) = text.split_once(['v', 'V'])?;
        let slice = SliceArg {
            mover: side(mover)?,
            other: side(other)?,
        };
        slice
            .to_string()
            .eq_ignore_ascii_case(text)
            .then_some(slice)
    }
}

impl fmt::Display for SliceArg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let side = |counts: [u8; 2]| match counts {
            [n, 0] => n.to_string(),
            [n, m] => format!("{n}+{m}"),
        };
        write!(f, "{}v{}", side(self.mover), side(self.other))
    }
}

/// Most men a table build may ask for: every man of both sides.
pub const MOST_MEN: u32 = 32;

/// `tables build|verify|status|bench <game> [ruleset words] [men=N]
/// [dir=PATH] [slice=MvO] [threads=N] [fresh]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TablesArgs {
    pub action: TablesAction,
    pub game: String,
    pub ruleset: Vec<String>,
    pub men: Option<u32>,
    pub dir: Option<String>,
    pub slice: Option<SliceArg>,
    pub threads: Option<usize>,
    /// `verify` checks every slice again, ignoring earlier records.
    pub fresh: bool,
}

/// `selfplay <game> [ruleset words] games=N out=PATH [nodes=N]
/// [openings=P] [seed=S] [shard=I/N] [join=N] [network=PATH]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfPlayArgs {
    pub game: String,
    pub ruleset: Vec<String>,
    pub games: u32,
    pub out: String,
    pub nodes: Option<u64>,
    pub openings: Option<u32>,
    pub seed: Option<u64>,
    pub shard: Option<(u32, u32)>,
    /// Joins the files of this many shards into `out` instead of playing.
    pub join: Option<u32>,
    pub network: Option<String>,
}

/// `dataset <self-play file> out=PATH [rescore=tables]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetArgs {
    pub input: String,
    pub out: String,
    /// Results from the endgame tables where the games reach them.
    pub rescore: bool,
}

/// What is wrong with the words of a long command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WordsError {
    /// A word that does not say what it must: the word, and what it must.
    Word {
        word: String,
        expected: &'static str,
    },
    /// Something the command cannot go without, said whole.
    Needs(&'static str),
    /// `dataset`'s words in another shape.
    Shape(&'static str),
}

impl WordsError {}

impl fmt::Display for WordsError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            WordsError::Word { word, expected } => {
                write!(f, "'{}': expected {expected}", crate::text::Clipped(word))
            }
            WordsError::Needs(what) | WordsError::Shape(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for WordsError {}

/// `key=value` with the key matched without regard to case.
fn key_value(word: &str) -> Option<(String, &str)> {
    word.split_once('=')
        .map(|(k, v)| (k.to_ascii_lowercase(), v))
}

fn number<T: std::str::FromStr>(
    word: &str,
    value: &str,
    ok: impl Fn(&T) -> bool,
    expected: &'static str,
) -> Result<T, WordsError> {
    value.parse().ok().filter(ok).ok_or(WordsError::Word {
        word: word.to_string(),
        expected,
    })
}

impl TablesArgs {
    /// The words after the action and the game.
    pub fn from_words(
        action: TablesAction,
        game: &str,
        words: &[&str],
    ) -> Result<TablesArgs, WordsError> {
        let mut args = TablesArgs {
            action,
            game: game.to_string(),
            ruleset: Vec::new(),
            men: None,
            dir: None,
            slice: None,
            threads: None,
            fresh: false,
        };
        for &word in words {
            match key_value(word) {
                Some((key, value)) if key == "men" => {
                    let ok = |m: &u32| (2..=MOST_MEN).contains(m);
                    args.men = Some(number(word, value, ok, "men=N with N from 2 to 32")?);
                }
                Some((key, value)) if key == "dir" && !value.is_empty() => {
                    args.dir = Some(value.to_string())
                }
                Some((key, value)) if key == "threads" => {
                    let ok = |n: &usize| (1..=256).contains(n);
                    args.threads = Some(number(word, value, ok, "threads=N with N from 1 to 256")?);
                }
                Some((key, value)) if key == "slice" => {
                    // Whether the game has such a slice is the build's
                    // to say (Safari-Dual's 0v0 is its two lions).
                    let slice = SliceArg::parse(value);
                    args.slice = Some(slice.ok_or(WordsError::Word {
                        word: word.to_string(),
                        expected: "slice=MvO, as slice=4v3 or slice=2+1v1+2",
                    })?);
                }
                None if word.eq_ignore_ascii_case("fresh") => args.fresh = true,
                _ => args.ruleset.push(word.to_string()),
            }
        }
        if action == TablesAction::Plan && args.men.is_none() {
            return Err(WordsError::Needs(
                "tables plan needs men=N (the most men of the tables, 2 or more)",
            ));
        }
        if action == TablesAction::Build && args.men.is_none() && args.slice.is_none() {
            return Err(WordsError::Needs(
                "tables build needs men=N (the most men of the tables, 2 or more)",
            ));
        }
        Ok(args)
    }
}

impl fmt::Display for TablesArgs {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "tables {} {}", self.action.word(), self.game)?;
        for word in &self.ruleset {
            write!(f, " {word}")?;
        }
        if let Some(men) = self.men {
            write!(f, " men={men}")?;
        }
        if let Some(dir) = &self.dir {
            write!(f, " dir={dir}")?;
        }
        if let Some(s) = self.slice {
            write!(f, " slice={s}")?;
        }
        if let Some(n) = self.threads {
            write!(f, " threads={n}")?;
        }
        if self.fresh {
            f.write_str(" fresh")?;
        }
        Ok(())
    }
}

impl SelfPlayArgs {
    /// The words after the game.
    pub fn from_words(game: &str, words: &[&str]) -> Result<SelfPlayArgs, WordsError> {
        let mut args = SelfPlayArgs {
            game: game.to_string(),
            ruleset: Vec::new(),
            games: 0,
            out: String::new(),
            nodes: None,
            openings: None,
            seed: None,
            shard: None,
            join: None,
            network: None,
        };
        for &word in words {
            let Some((key, value)) = key_value(word) else {
                args.ruleset.push(word.to_string());
                continue;
            };
            match key.as_str() {
                "games" => args.games = number(word, value, |&n| n > 0, "games=N with N from 1")?,
                "nodes" => {
                    args.nodes = Some(number(word, value, |&n| n > 0, "nodes=N with N from 1")?)
                }
                "openings" => {
                    let ok = |&n: &u32| n <= 100;
                    args.openings =
                        Some(number(word, value, ok, "openings=P with P from 0 to 100")?)
                }
                "seed" => args.seed = Some(number(word, value, |_| true, "seed=S, a number")?),
                "shard" => {
                    let shard = value
                        .split_once('/')
                        .and_then(|(i, n)| Some((i.parse().ok()?, n.parse().ok()?)))
                        .filter(|&(i, n): &(u32, u32)| i >= 1 && i <= n);
                    args.shard = Some(shard.ok_or(WordsError::Word {
                        word: word.to_string(),
                        expected: "shard=I/N with I from 1 to N",
                    })?);
                }
                "out" if !value.is_empty() => args.out = value.to_string(),
                "join" => {
                    args.join = Some(number(word, value, |&n| n >= 1, "join=N with N from 1")?)
                }
                "network" if !value.is_empty() => args.network = Some(value.to_string()),
                _ => args.ruleset.push(word.to_string()),
            }
        }
        if args.games == 0 {
            return Err(WordsError::Needs("selfplay needs games=N"));
        }
        if args.out.is_empty() {
            return Err(WordsError::Needs("selfplay needs out=PATH (the data file)"));
        }
        if args.join.is_some() && args.shard.is_some() {
            return Err(WordsError::Shape(
                "join= is not given with shard= (a join makes the whole run's file)",
            ));
        }
        Ok(args)
    }
}

impl fmt::Display for SelfPlayArgs {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "selfplay {}", self.game)?;
        for word in &self.ruleset {
            write!(f, " {word}")?;
        }
        write!(f, " games={} out={}", self.games, self.out)?;
        if let Some(n) = self.nodes {
            write!(f, " nodes={n}")?;
        }
        if let Some(p) = self.openings {
            write!(f, " openings={p}")?;
        }
        if let Some(s) = self.seed {
            write!(f, " seed={s}")?;
        }
        if let Some((i, n)) = self.shard {
            write!(f, " shard={i}/{n}")?;
        }
        if let Some(n) = self.join {
            write!(f, " join={n}")?;
        }
        if let Some(path) = &self.network {
            write!(f, " network={path}")?;
        }
        Ok(())
    }
}

impl DatasetArgs {
    /// The words after `dataset`.
    pub fn from_words(words: &[&str]) -> Result<DatasetArgs, WordsError> {
        let (mut input, mut out, mut rescore) = (None, None, false);
        for &word in words {
            match word.split_once('=') {
                Some(("out", path)) if !path.is_empty() => out = Some(path.to_string()),
                Some(("rescore", "tables")) => rescore = true,
                Some(("rescore", _)) => {
                    return Err(WordsError::Shape("rescore takes one value: tables"))
                }
                None if input.is_none() => input = Some(word.to_string()),
                _ => {
                    return Err(WordsError::Shape(
                        "dataset takes a self-play file, out=PATH and optionally rescore=tables",
                    ))
                }
            }
        }
        match (input, out) {
            (Some(input), Some(out)) => Ok(DatasetArgs {
                input,
                out,
                rescore,
            }),
            (None, _) => Err(WordsError::Needs("dataset needs a self-play file")),
            (_, None) => Err(WordsError::Needs("dataset needs out=PATH")),
        }
    }
}

impl fmt::Display for DatasetArgs {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "dataset {} out={}", self.input, self.out)?;
        if self.rescore {
            f.write_str(" rescore=tables")?;
        }
        Ok(())
    }
}

/// When a proof search's positions share their numbers: the same board
/// with the same boards since the last capture (`history`), or the same
/// board at the same clock (`clock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveKeys {
    History,
    Clock,
}

impl fmt::Display for SolveKeys {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            SolveKeys::History => "history",
            SolveKeys::Clock => "clock",
        })
    }
}

/// `solve [nodes N] [memory MIB] [keys history|clock] [checkpoint PATH]
/// [certificate PATH]`: for positions that no table holds, a proof
/// search's node budget, the memory its stored positions may take, when
/// two positions share their numbers, the file it resumes from and saves
/// to, and the file its proof is written to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolveArgs {
    pub nodes: Option<u64>,
    pub memory: Option<u64>,
    pub keys: Option<SolveKeys>,
    pub checkpoint: Option<String>,
    pub certificate: Option<String>,
}

impl fmt::Display for SolveArgs {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("solve")?;
        if let Some(n) = self.nodes {
            write!(f, " nodes {n}")?;
        }
        if let Some(m) = self.memory {
            write!(f, " memory {m}")?;
        }
        if let Some(k) = self.keys {
            write!(f, " keys {k}")?;
        }
        if let Some(path) = &self.checkpoint {
            write!(f, " checkpoint {path}")?;
        }
        if let Some(path) = &self.certificate {
            write!(f, " certificate {path}")?;
        }
        Ok(())
    }
}
