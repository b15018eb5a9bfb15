//! The engine's commands, each carried out in its turn: the state
//! commands here, long work handed to its command's module as a task.

use std::sync::Arc;

use super::{Busy, Engine, Flow, AUTHOR, NAME, VERSION};
use crate::answers;
use crate::error::EngineError;
use crate::options::{self, OptionError};
use crate::session::EngineSession;
use crate::task::{Catalogue, Context, Made, Refused};
use crate::worker::Job;
use menagerie_rules::catalogue;
use menagerie_rules::game::session::PositionError;
use menagerie_rules::game::Status;
use menagerie_search::time::{Clock, Request};
use menagerie_search::Limits;
use menagerie_wire::command::{Command, GoParams};
use menagerie_wire::reply::{IdField, Reply};

impl<C: Catalogue> Engine<C> {
    pub(super) fn execute(&mut self, command: Command) -> Flow {
        let name = command.name();
        match command {
            Command::Uci => self.identify(false),
            Command::Ugi => self.identify(true),
            Command::IsReady => self.reply(Reply::ReadyOk),
            Command::SetOption {
                name: option,
                value,
            } => match self.set_option(&option, value.as_deref()) {
                Err(e @ OptionError::NoMemory(_)) => self.out.refuse(name, &e),
                Err(e) => self.error(name, e),
                Ok(()) => {}
            },
            Command::NewGame { game, options } => {
                match catalogue::new_session_named(self.games, &game, &options) {
                    Ok(session) => self.new_game(session, true),
                    Err(e) => self.error(name, e),
                }
            }
            Command::UciNewGame | Command::UgiNewGame => self.setup(true),
            Command::Position { notation, moves } => self.position(notation, moves),
            Command::Move { moves } => match self.session.play_moves(&moves) {
                Ok(()) => self.announce_end(),
                Err(e) => self.error(name, e),
            },
            Command::Go(params) => self.go(&params),
            Command::Stop => {}
            Command::Quit => return Flow::Quit,
            Command::Display => {
                self.out.replies(&answers::display(self.session.as_ref()));
            }
            Command::Legal => {
                let reply = answers::legal(self.session.as_ref());
                self.reply(reply);
            }
            Command::Query(question) => match answers::query(self.session.as_ref(), question) {
                Ok(reply) => self.reply(reply),
                Err(e) => self.error(name, e),
            },
            Command::Games => self.out.replies(&answers::catalogue(self.games)),
            Command::Eval => {
                let net = self.network();
                let replies = answers::eval(self.session.as_ref(), net.as_ref(), self.use_network);
                self.out.replies(&replies);
            }
            Command::Roll => match self.session.play_chance(&mut self.chance) {
                Some(outcome) => {
                    self.reply(Reply::Rolled(outcome));
                    self.announce_end();
                }
                None => self.error(name, EngineError::NoChance),
            },
            Command::Help => self.out.replies(&answers::help(self.games)),
            // Long work: each command's module makes its task.
            Command::Perft { depth, via_go } => {
                let made = crate::perft::task(depth, via_go, &self.context());
                self.start_task(made)
            }
            Command::Bench(kind) => self.start_task(crate::bench::task(kind, &self.context())),
            Command::Solve(args) => self.start_task(crate::solve::task(args, &self.context())),
            Command::Tables(args) => {
                let made = crate::tables_command::task::<C>(args, &self.context());
                self.start_task(made)
            }
            Command::SelfPlay(args) => {
                let made = crate::selfplay::task::<C>(args, &self.context());
                self.start_task(made)
            }
            Command::Dataset(args) => {
                let made = crate::dataset::task::<C>(args, &self.context());
                self.start_task(made)
            }
        }
        Flow::Continue
    }

    /// What a long command may read of the engine.
    pub(super) fn context(&self) -> Context<'_> {
        Context {
            session: self.session.as_ref(),
            games: self.games,
            threads: self.settings.threads,
            tables: self.settings.tables.clone(),
            networks: &self.networks,
        }
    }

    /// Hands a long command's task to the worker, or prints its refusal.
    pub(super) fn start_task(&mut self, made: Made) {
        match made {
            Ok(task) => {
                self.arm_stop(false);
                let job = Job::Task {
                    task,
                    stop: Arc::clone(&self.stop),
                };
                self.start(job, Busy::Work);
            }
            Err(Refused(replies)) => self.out.replies(&replies),
        }
    }

    /// `uci` or `ugi`: identity, options, then `uciok` or `ugiok`.
    pub(super) fn identify(&mut self, ugi: bool) {
        self.ugi = ugi;
        let mut replies = vec![
            Reply::Id {
                field: IdField::Name,
                value: format!("{NAME} {VERSION}"),
            },
            Reply::Id {
                field: IdField::Author,
                value: AUTHOR.to_string(),
            },
        ];
        replies.extend(
            options::listed(ugi, self.games)
                .into_iter()
                .map(Reply::Option),
        );
        replies.push(if ugi { Reply::UgiOk } else { Reply::UciOk });
        self.out.replies(&replies);
    }

    /// Makes `session` the game, remembers its ruleset for the options,
    /// and sets it up on the worker; `prepare`: also starts building what
    /// its search wants (not for a game chosen by options alone, which a
    /// GUI may set in any order before the game it means).
    pub(super) fn new_game(&mut self, session: Box<dyn EngineSession>, prepare: bool) {
        self.rules
            .insert(session.game_id(), session.ruleset().clone());
        self.session = session;
        self.base = Some(None);
        self.setup(prepare);
    }

    /// Empties the table on the worker (`isready` answers once it is
    /// done) and, with `prepare`, starts building in the background what
    /// the current game's search wants (a solved table), so that set-up
    /// never waits for it.
    pub(super) fn setup(&mut self, prepare: bool) {
        let job = Job::Setup {
            session: prepare.then(|| self.session.boxed()),
            settings: self.search_settings(),
            shared: Arc::clone(&self.shared),
        };
        self.start(job, Busy::Setup);
    }

    /// After a `position` or `move` that ends the game: one line with the
    /// result and the reason.
    pub(super) fn announce_end(&mut self) {
        if let Some(over) = answers::game_over(self.session.as_ref()) {
            self.reply(over);
        }
    }

    pub(super) fn position(&mut self, notation: Option<String>, moves: Vec<String>) {
        let played = self.session.moves_played();
        let extends = self.base.as_ref() == Some(&notation)
            && played.len() <= moves.len()
            && played
                .iter()
                .zip(&moves)
                .all(|(a, b)| a.eq_ignore_ascii_case(b));
        let result = if extends {
            // Errors count moves from the start of the command.
            self.session
                .play_moves(&moves[played.len()..])
                .map_err(|e| match e {
                    PositionError::Move { index, error } => PositionError::Move {
                        index: index + played.len(),
                        error,
                    },
                    other => other,
                })
        } else {
            self.session.set_position(notation.as_deref(), &moves)
        };
        match result {
            Ok(()) => {
                self.base = Some(notation);
                self.announce_end();
            }
            Err(e) => self.error("position", e),
        }
    }

    pub(super) fn go(&mut self, params: &GoParams) {
        match self.session.status() {
            Status::Over(..) => {
                self.announce_end();
                self.reply(Reply::BestMove(None));
                return;
            }
            Status::Ongoing if self.session.awaiting_chance() => {
                self.error("go", EngineError::AwaitingRoll);
                self.reply(Reply::BestMove(None));
                return;
            }
            Status::Ongoing => {}
        }
        let request = match self.request(params) {
            Ok(request) => request,
            Err(e) => {
                self.error("go", e);
                self.reply(Reply::BestMove(None));
                return;
            }
        };
        let limits = Limits::plan(&request, self.move_overhead_ms);
        let unbounded = limits.infinite;
        // After the end of input nothing could stop an unbounded search.
        self.arm_stop(self.input_closed && unbounded);
        let job = Job::Search {
            session: self.session.boxed(),
            limits,
            shared: Arc::clone(&self.shared),
            settings: self.search_settings(),
        };
        self.start(job, Busy::Search { unbounded });
    }

    /// What `go` asks of the search, with the clock of the side to move:
    /// `time`/`inc` in any game, or in a two-seat game `wtime`/`winc` (UGI:
    /// `p1time`/`p1inc`) for the first seat of the seat order and
    /// `btime`/`binc` (`p2time`/`p2inc`) for the second.
    pub(super) fn request(&self, go: &GoParams) -> Result<Request, EngineError> {
        let either =
            |a: Option<u64>, b: Option<u64>, names: (&'static str, &'static str)| match (a, b) {
                (Some(_), Some(_)) => Err(EngineError::SameClockTwice(names.0, names.1)),
                (a, b) => Ok(a.or(b)),
            };
        let wtime = either(go.wtime, go.p1time, ("wtime", "p1time"))?;
        let btime = either(go.btime, go.p2time, ("btime", "p2time"))?;
        let winc = either(go.winc, go.p1inc, ("winc", "p1inc"))?;
        let binc = either(go.binc, go.p2inc, ("binc", "p2inc"))?;
        let (seat_order, seats) = self.session.seat_order();
        let two_seat_fields = [wtime, btime, winc, binc];
        let clock = match go.time {
            Some(time_ms) => Some((time_ms, go.inc.unwrap_or(0))),
            None if go.inc.is_some() => return Err(EngineError::IncWithoutTime),
            None if seats != 2 && two_seat_fields.iter().any(Option::is_some) => {
                return Err(EngineError::TwoSeatClocks(seats))
            }
            None => {
                // Advice in the words of the session's protocol.
                let field = match (seat_order == 0, self.ugi) {
                    (true, false) => "wtime",
                    (false, false) => "btime",
                    (true, true) => "p1time",
                    (false, true) => "p2time",
                };
                let (time, inc) = if seat_order == 0 {
                    (wtime, winc)
                } else {
                    (btime, binc)
                };
                match time {
                    Some(time_ms) => Some((time_ms, inc.unwrap_or(0))),
                    None if two_seat_fields.iter().any(Option::is_some) => {
                        return Err(EngineError::NoClockForSide {
                            side: self.session.side_letter(),
                            field,
                        })
                    }
                    None => None,
                }
            }
        };
        Ok(Request {
            depth: go.depth,
            nodes: go.nodes,
            movetime_ms: go.movetime,
            clock: clock.map(|(time_ms, inc_ms)| Clock {
                time_ms,
                inc_ms,
                moves_to_go: go.movestogo,
            }),
            infinite: go.infinite,
        })
    }
}
