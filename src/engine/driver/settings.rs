//! The engine's options and what they choose: the table, the threads,
//! the evaluation network of each game, the rulesets.

use std::sync::Arc;

use super::Engine;
use crate::answers;
use crate::options::{self, OptionError, Setting};
use crate::session::Entry;
use crate::task::Catalogue;
use menagerie_nnue::{Network, NetworkError};
use menagerie_rules::catalogue;
use menagerie_rules::game::Ruleset;
use menagerie_rules::rng::Rng;
use menagerie_search::{Settings, Shared};
use menagerie_wire::reply::Reply;

impl<C: Catalogue> Engine<C> {
    pub(super) fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), OptionError> {
        match options::parse(name, value, self.ugi, self.games)? {
            Setting::Hash(mib) => {
                let shared = Shared::try_with_stop(mib, Arc::clone(&self.stop))
                    .map_err(OptionError::NoMemory)?;
                self.shared = Arc::new(shared);
            }
            Setting::Threads(n) => self.settings.threads = n,
            Setting::Skill(n) => self.settings.skill = n,
            Setting::MultiSeat(m) => self.settings.multi_seat = m,
            Setting::TablePath(dir) => {
                if let Some(dir) = &dir {
                    // A folder, or none yet (`tables build` makes it).
                    menagerie_os::files::folder(dir, false).map_err(OptionError::TablePath)?;
                }
                self.settings.tables =
                    dir.unwrap_or_else(menagerie_tables::probe::default_directory);
            }
            Setting::UseTables(on) => self.settings.exact = on,
            Setting::UseNetwork(on) => {
                self.use_network = on;
                self.say_network();
            }
            Setting::EvalFile { game, path } => self.set_eval_file(game, path)?,
            Setting::Seed(n) => {
                self.settings.seed = n;
                self.chance = Rng::new(n);
            }
            Setting::MoveOverhead(ms) => self.move_overhead_ms = ms,
            Setting::Tuned => {}
            Setting::Variant(game) => self.switch_to(game, None),
            Setting::Rule {
                game,
                option,
                choice,
            } => self.switch_to(game, Some((option, choice))),
        }
        Ok(())
    }

    /// `EvalFile` or `<game>.EvalFile`: the network of `path` for its game
    /// (the one the option names, which the file must be of, or the one
    /// the file names), after it loads and fits that game and its ruleset
    /// as last chosen; `None`: the game's built-in network again.
    /// Anything wrong leaves every network as it was.
    pub(super) fn set_eval_file(
        &mut self,
        game: Option<&'static Entry>,
        path: Option<std::path::PathBuf>,
    ) -> Result<(), OptionError> {
        let Some(path) = path else {
            let id = game.map_or(self.session.game_id(), |g| g.id);
            self.networks.remove(id);
            if id == self.session.game_id() {
                self.say_network();
            }
            return Ok(());
        };
        let shown = path.display().to_string();
        let refuse = |e| OptionError::Network(shown.clone(), e);
        let net = Network::load(&path).map_err(refuse)?;
        let entry = match game {
            Some(entry) if entry.id != net.game => {
                return Err(refuse(NetworkError::Game(net.game.clone())))
            }
            Some(entry) => entry,
            None => catalogue::find(self.games, &net.game)
                .ok_or_else(|| refuse(NetworkError::Game(net.game.clone())))?,
        };
        if entry.id == self.session.game_id() {
            self.session.network_fits(&net).map_err(refuse)?;
        } else {
            let session = entry.session_of(&self.ruleset_of(entry));
            session.network_fits(&net).map_err(refuse)?;
        }
        let describe = net.describe();
        self.networks.insert(entry.id, Arc::new(net));
        if entry.id == self.session.game_id() {
            self.say_network();
        } else {
            self.reply(Reply::Remark(format!(
                "evaluation network {describe} for {}",
                entry.id
            )));
        }
        Ok(())
    }

    /// The network searches of the current game and ruleset use, if any.
    pub(super) fn network(&self) -> Option<Arc<Network>> {
        if !self.use_network {
            return None;
        }
        let loaded = self.networks.get(self.session.game_id());
        crate::session::choose_network(self.session.as_ref(), loaded)
    }

    /// The settings of a search of the current game: the network chosen.
    pub(super) fn search_settings(&self) -> Settings {
        Settings {
            network: self.network(),
            ..self.settings.clone()
        }
    }

    /// One line naming the evaluation searches of the current game use.
    pub(super) fn say_network(&mut self) {
        let text = answers::evaluation_in_use(self.network().as_deref(), self.use_network);
        self.reply(Reply::Remark(text));
    }

    /// Chooses `game` (after changing one ruleset option of it): a new
    /// game at its start, unless the option belongs to another game, which
    /// then only remembers it.
    pub(super) fn switch_to(&mut self, game: &'static Entry, choice: Option<(usize, usize)>) {
        let mut ruleset = self.ruleset_of(game);
        if let Some((option, value)) = choice {
            ruleset = ruleset.with_choice(option, value);
            self.rules.insert(game.id, ruleset.clone());
            if self.session.game_id() != game.id {
                return;
            }
        }
        let session = game.session_of(&ruleset);
        self.new_game(session, false);
    }

    /// The ruleset the options chose for `game`: its defaults until one
    /// is set.
    pub(super) fn ruleset_of(&self, game: &'static Entry) -> Ruleset {
        self.rules
            .get(game.id)
            .cloned()
            .unwrap_or_else(|| Ruleset::defaults(game.options))
    }
}
