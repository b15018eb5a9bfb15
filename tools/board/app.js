// menagerie board: a client of the engine's text protocol (see protocol.md,
// "Writing a GUI"). The server only relays lines; everything here is done
// with protocol commands: games, newgame, position ... moves, d, legal,
// query, go, roll. Chance outcomes (rolls) are drawn by the engine.
'use strict';

// ------------------------------------------------------------------ app --

const $ = (id) => document.getElementById(id);

const state = {
  game: 'hat-diviyan-keliya',
  options: {},
  start: '',
  moves: [],
  history: [], // per prefix length: { side, chance, notation }
  view: null, // the ply shown while stepping back through the moves (null: the game now)
  resigned: null, // the seat that resigned
  paused: false, // engine-versus-engine play stopped
  stepOnce: false,
  undone: [], // moves taken back by Undo, for Redo, last undo last
  hintMove: null,
  hintFor: null,
  zoomed: false, // the phone's board drawn wider than the screen (Zoom)
  main: null, // the game kept while a variation is played (analysis.js)
  analysis: null, // the engine's view of each position of the game (analysis.js)
  notation: '',
  side: '',
  status: 'ongoing',
  chance: false,
  legal: [],
  human: new Set(),
  selection: [],
  busy: false,
  seats: [],
  catalogue: {},
};

let engine;

const SERVER_GONE = 'The server has stopped: start it again and reload this page.';

function message(text) {
  // Once the server is gone that is the one thing to say: what fails
  // after it (a fetch, a move unsent) only follows from it.
  if (state.serverGone && text !== SERVER_GONE) return;
  $('message').hidden = !text;
  $('message').textContent = text || '';
}

function setStatus(text) { $('status').textContent = text; }

/** Why a click did nothing (empty: clear it). */
function hint(text) { $('hint').textContent = text; }

/**
 * Reads the engine's `games` catalogue: seat names (in turn order), the
 * ruleset options with their values (default first), and the sentence for
 * each reason a game ends. Names and choices shown come from here.
 */
function parseCatalogue(lines) {
  const catalogue = {};
  for (const line of lines) {
    const m = line.match(/^game (\S+) (seat|end|option) (\S+) (.*)$/);
    if (!m) continue;
    const game = (catalogue[m[1]] ||= { seats: {}, ends: {}, options: {} });
    if (m[2] === 'seat') game.seats[m[3]] = m[4];
    else if (m[2] === 'end') game.ends[m[3]] = m[4];
    else {
      const o = m[4].match(/^default (\S+) values (.*)$/);
      if (o) game.options[m[3]] = [o[1], ...o[2].split(' ').filter((v) => v !== o[1])];
    }
  }
  for (const [id, entry] of Object.entries(catalogue)) {
    if (GAMES[id]) GAMES[id].seats = entry.seats;
  }
  return catalogue;
}

/** Why a game ended, in the person's words: the catalogue's sentence, or
 * for the no-progress limit what it counts in this game. */
function reasonInWords(reason) {
  const ends = (state.catalogue[state.game] || { ends: {} }).ends;
  if (reason === 'no-progress') {
    const limit = {
      'hat-diviyan-keliya': '100 plies (50 moves each) without a capture or drop',
      'awithlaknannai-mosona': '50 plies without a capture',
      'safari-dual': '100 plies without a capture',
      'kilkenny-cats': '200 plies without a capture or a landing on a mouse',
    }[state.game];
    if (limit && state.options.ending === 'count') return `${limit}: the side with more men wins`;
    if (limit) return limit;
  }
  return reason ? ends[reason] || reason : '';
}

/** "You lose: the tiger cannot move", or with nobody playing "The
 * leopards win: the tiger cannot move", from a `Status:` value. */
function resultInWords(status) {
  const m = status.match(/^(win (\S+)|draw)(?: \((\S+)\))?/);
  if (!m) return `Game over: ${status}`;
  const why = reasonInWords(m[3]);
  const because = why ? `: ${why}` : '';
  if (!m[2]) return `A draw${because}`;
  const many = state.seats.length > 2;
  // In the player's words when a person plays two seats' game: who won is
  // said once. At three and four seats the winner is named, and the
  // person's place follows.
  if (onePerson() && !many) return `${state.human.has(m[2]) ? 'You win' : 'You lose'}${because}`;
  if (onePerson() && state.human.has(m[2])) return `You win${because}`;
  const named = winnerNamed(m[2], because);
  if (!onePerson()) return named;
  const [seat] = state.human;
  const place = places(m[2]).find((p) => p.seats.includes(seat));
  return `${named}. You (${GAMES[state.game].seats[seat] || seat}) place ${ordinal(place.place)}`;
}

/** "West wins: ...", "The leopards win: ...". */
function winnerNamed(letter, because) {
  const winner = GAMES[state.game].seats[letter] || letter;
  const plural = /s$/.test(winner);
  // Animals take an article ("The tiger wins"); colours, shapes and
  // compass seats do not ("White wins", "Angular wins", "South wins").
  const subject = state.game === 'hat-diviyan-keliya' ? `The ${winner.toLowerCase()}` : winner;
  return `${subject} win${plural ? '' : 's'}${because}`;
}

/** The places at three and four seats: the winner first; the seats still
 * in play share the next place, and the seats that went out the one after
 * them (the rules rank no one but the winner). */
function places(winner) {
  const out = seatsOut();
  const rest = state.seats.filter((l) => l !== winner && !out.includes(l));
  const gone = state.seats.filter((l) => l !== winner && out.includes(l));
  const groups = [{ place: 1, seats: [winner] }];
  if (rest.length) groups.push({ place: 2, seats: rest });
  if (gone.length) groups.push({ place: 2 + rest.length, seats: gone, out: true });
  return groups;
}

function ordinal(n) {
  return n + ({ 1: 'st', 2: 'nd', 3: 'rd' }[n] || 'th');
}

/** The end panel's line, beside the result the status says: each seat's
 * place at three and four seats, then the moves and captures. */
function gameSummary() {
  const names = GAMES[state.game].seats;
  const parts = [];
  const m = (state.status || '').match(/^win (\S+)/);
  if (m && state.seats.length > 2 && !state.resigned) {
    const line = places(m[1]).map((g) => `${ordinal(g.place)} ${g.seats.map((l) => names[l] || l).join(', ')}${g.out ? ' (out)' : ''}`);
    parts.push(`Places: ${line.join(' · ')}.`);
  }
  const moves = state.moves.filter((_, i) => !(state.history[i] || {}).chance).length;
  const taken = (state.captures || []).reduce((n, c) => n + (c ? c.letters.length : 0), 0);
  parts.push(`${moves} move${moves === 1 ? '' : 's'}, ${taken} capture${taken === 1 ? '' : 's'}.`);
  return parts.join(' ');
}

/** The ruleset choices of the game picked in the menu (not yet played). */
function fillOptions(gameId, current) {
  const box = $('options');
  box.innerHTML = '';
  const specs = (state.catalogue[gameId] || { options: {} }).options;
  for (const [key, values] of Object.entries(specs)) {
    const label = document.createElement('label');
    label.textContent = key + ' ';
    const select = document.createElement('select');
    select.id = 'opt-' + key;
    select.dataset.key = key;
    const help = (GAMES[gameId].optionHelp || {})[key] || {};
    for (const v of values) select.append(new Option(help[v] ? `${v}: ${help[v]}` : v, v));
    select.value = current[key] || values[0];
    label.append(select);
    box.append(label);
  }
}

function chosenOptions() {
  const options = {};
  for (const select of $('options').querySelectorAll('select')) options[select.dataset.key] = select.value;
  return options;
}

function fillHumanChoices() {
  const select = $('human');
  // The person keeps their seat within a game, and their place in the
  // turn order across games: a letter means another seat in another game
  // (w is White in one, West in another).
  const previous = { game: state.humanGame, seat: select.value, index: state.humanIndex };
  select.innerHTML = '';
  for (const seat of state.seats) select.append(new Option(GAMES[state.game].seats[seat], seat));
  select.append(new Option('nobody (engine vs engine)', ''));
  if (state.seats.length > 1) select.append(new Option('every seat (people at one board)', '*'));
  if (previous.game === state.game && (state.seats.includes(previous.seat) || previous.seat === '' || previous.seat === '*')) {
    select.value = previous.seat;
  } else if (state.wantedHuman !== undefined && (state.seats.includes(state.wantedHuman) || ['', '*'].includes(state.wantedHuman))) {
    select.value = state.wantedHuman;
  } else if (previous.seat === '' && previous.game) {
    select.value = '';
  } else {
    select.value = state.seats[Math.min(previous.index || 0, state.seats.length - 1)];
  }
  state.wantedHuman = undefined;
  rememberHuman();
}

/** The person's seat, from the menu. */
function rememberHuman() {
  const seat = $('human').value;
  state.human = new Set(seat === '*' ? state.seats : seat ? [seat] : []);
  state.paused = false;
  state.humanGame = state.game;
  state.humanIndex = Math.max(0, state.seats.indexOf(seat));
}

/** Parses the `d` reply into notation, side and status. */
function readDisplay(lines) {
  for (const line of lines) {
    if (line.startsWith('Notation: ')) state.notation = line.slice(10);
    if (line.startsWith('Side: ')) state.side = line.slice(6);
    if (line.startsWith('Status: ')) state.status = line.slice(8);
  }
}

const errorIn = (lines) => lines.find((l) => l.startsWith('info string error: '));

/** Sends the game so far and reads back position, status and legal moves. */
async function sync() {
  let command = `position fen ${state.start}`;
  if (state.moves.length) command += ' moves ' + state.moves.join(' ');
  const lines = await engine.exchange([command, 'd', 'query chance', 'legal'], (l) => l === 'legal' || l.startsWith('legal '));
  const error = errorIn(lines);
  if (error) throw new Error(error.slice(19));
  const before = state.notation;
  readDisplay(lines);
  noteCaptures(before, state.notation);
  state.chance = lines.includes('response true');
  state.legal = lines[lines.length - 1].split(/\s+/).slice(1);
  state.history[state.moves.length] = { side: state.side, chance: state.chance, notation: state.notation };
}

/** What the last move captured: pieces that left the board, and where
 * they stood if that point is now empty (drawn as ghosts). */
function noteCaptures(before, after) {
  const n = state.moves.length - 1;
  if (!state.captures) state.captures = [];
  // The same position read again (a refused Set position puts the game
  // back): the last move's captures stay.
  if (before && before === after) {
    state.captures.length = Math.min(state.captures.length, Math.max(0, n + 1));
    return;
  }
  state.captures.length = Math.max(0, n);
  if (n < 0 || !before || !after) return;
  const layout = GAMES[state.game].layout(state.options);
  const old = parsePosition(state.game, layout, before).pieces;
  const now = parsePosition(state.game, layout, after).pieces;
  const count = (pieces) => {
    const c = {};
    for (const letter of Object.values(pieces)) c[letter] = (c[letter] || 0) + 1;
    return c;
  };
  const [was, is] = [count(old), count(now)];
  const letters = [];
  for (const [letter, k] of Object.entries(was)) {
    for (let i = 0; i < k - (is[letter] || 0); i++) letters.push(letter);
  }
  if (letters.length === 0) return;
  const points = Object.keys(old).filter((p) => letters.includes(old[p]) && now[p] !== old[p]);
  state.captures[n] = { letters, points };
}

/** Whether the position awaits a chance outcome (a roll), as the engine says. */
function isChance() {
  return state.chance;
}

/** Whether the game goes on: not over by the rules, nobody resigned. */
function ongoing() {
  return state.status === 'ongoing' && !state.resigned;
}

function humanToMove() {
  return ongoing() && state.human.has(state.side);
}

/** Whether one person plays one seat against the engine. */
function onePerson() {
  return state.human.size === 1;
}

/** The engine's best play (its Skill option's top). */
const FULL_STRENGTH = 20;

/** The Skill of the strength chosen, for every engine move from now on. */
async function setStrength() {
  const lines = await engine.exchange([`setoption name Skill value ${$('strength').value}`, 'isready'], (l) => l === 'readyok');
  const error = errorIn(lines);
  if (error) throw new Error(error.slice(19));
}

/** A new game of the game and ruleset in the menus, at once: work in hand
 * (the engine thinking, a game being resumed) is stopped first. */
function newGame() {
  return start(newGameStep);
}

async function newGameStep() {
  state.game = $('game').value;
  state.options = chosenOptions();
  // Nothing of the previous game is drawn on the new game's board.
  Object.assign(state, { notation: '', moves: [], history: [], legal: [], selection: [], chance: false, view: null, resigned: null, paused: false, stepOnce: false, undone: [], hintMove: null, focusPoint: null, main: null });
  const words = rulesetWords(state.options);
  {
    const lines = await engine.exchange([`newgame ${state.game} ${words}`.trim(), 'query seats', 'd'], (l) => l.startsWith('Status: '));
    const error = errorIn(lines);
    if (error) throw new Error(error.slice(19));
    // The seats in play, in turn order, as the ruleset has them.
    state.seats = (lines.find((l) => l.startsWith('response ')) || 'response').split(' ').slice(1);
    fillHumanChoices();
    readDisplay(lines);
    state.start = state.notation;
    state.moves = [];
    state.history = [];
    $('thinking').textContent = '—';
    showHowTo();
    await sync();
  }
}

/** Thrown where a step was stopped so that the next one can run. */
class Stopped extends Error {}

/** Stops at the next wait if the person asked for something else. */
function unlessStopped() {
  if (state.next) throw new Stopped('stopped');
}

/** Runs `step` now, or, while another step runs, stops that one (and the
 * engine's search) and runs `step` right after it: a request is never
 * dropped. */
function start(step) {
  if (!state.busy) return run(step);
  state.next = step;
  engine.send('stop');
  return Promise.resolve();
}

/** Runs a step of the game, showing errors, then lets the engine play;
 * then any step asked for meanwhile (see `start`). While a step runs, a
 * step that changes no turn (the strength) is only done, so that one loop
 * alone plays the engine's moves. */
async function run(step) {
  if (state.busy) {
    try {
      await step();
    } catch (e) {
      message(String(e.message || e));
    }
    return;
  }
  state.busy = true;
  try {
    while (step) {
      render();
      try {
        message('');
        await step();
        await engineTurns();
      } catch (e) {
        if (!(e instanceof Stopped)) message(String(e.message || e));
      }
      step = state.next;
      state.next = null;
      if (step && step !== resumeStep) $('resume').hidden = true;
    }
  } finally {
    state.busy = false;
    save();
    render();
  }
}

/** While it is not a human's turn: roll for the engine, or let it move. */
async function engineTurns() {
  while (ongoing() && !humanToMove() && !state.paused) {
    unlessStopped();
    if (isChance()) {
      const seat = state.side;
      const outcome = await engine.roll();
      unlessStopped();
      state.moves.push(outcome);
      announce(`${GAMES[state.game].seats[seat] || seat} rolled ${outcome.replace(/^r/, '')}`);
    } else {
      state.thinking = true;
      render();
      const movetime = Math.max(10, Number($('movetime').value) || 500);
      const seat = state.side;
      state.solvedSearch = false;
      let lines;
      try {
        lines = await engine.exchange([`go movetime ${movetime}`], (l) => l.startsWith('bestmove '), (l) => showThinking(l, seat));
      } finally {
        state.thinking = false;
      }
      const best = lines[lines.length - 1].split(/\s+/)[1];
      unlessStopped();
      if (!best || best === '(none)') throw new Error('the engine found no move');
      state.moves.push(best);
      const out = seatsOut();
      await sync();
      announce(moveInWords(seat, best, state.moves.length - 1, out));
      // Step in engine-versus-engine play: one move, then wait again.
      if (state.stepOnce) {
        state.stepOnce = false;
        state.paused = true;
      }
      // Engine moves in a row (the other seats of Kilkenny Cats) are
      // shown one at a time, each with its captures.
      if (ongoing() && !humanToMove() && !state.paused) {
        render();
        await new Promise((resolve) => setTimeout(resolve, ENGINE_MOVE_PAUSE_MS));
      }
      continue;
    }
    await sync();
  }
}

const ENGINE_MOVE_PAUSE_MS = 400;

/** The engine's score, said from the person's side: `kind` and `value`
 * as in `score <kind> <value>`, for the engine's `seat`. */
function scoreInWords(kind, value, seat, solved) {
  const game = GAMES[state.game];
  const engineName = game.seats[seat] || seat;
  const person = onePerson() ? [...state.human][0] : null;
  // With two seats the person's view is the engine's turned round.
  const against = person && person !== seat && state.seats.length === 2;
  const n = Number(value);
  if (kind === 'win') {
    if (!against) return `${engineName} ${solved ? 'wins' : 'can force a win'} in ${n} move${n === 1 ? '' : 's'}`;
    return solved ? `Solved: you cannot win from here (the engine wins in ${n} move${n === 1 ? '' : 's'})`
      : `The engine sees a forced win in ${n}: you are lost if it is right`;
  }
  if (kind === 'loss') {
    if (!against) return `${engineName} ${solved ? 'loses' : 'sees a forced loss'} in ${n} move${n === 1 ? '' : 's'}`;
    return solved ? 'Solved: you can win from here with best play' : 'The engine sees that you can force a win';
  }
  const pieces = Math.abs(n) / 100;
  const even = pieces < 0.3;
  if (!against) return even ? `${engineName}: about even` : `${engineName}: ${n > 0 ? 'ahead' : 'behind'} by about ${pieces.toFixed(1)}`;
  if (even) return 'About even';
  return n > 0 ? `The engine thinks you are behind by about ${pieces.toFixed(1)}` : `The engine thinks you are ahead by about ${pieces.toFixed(1)}`;
}

function showThinking(line, seat) {
  if (line.startsWith('info string solved')) state.solvedSearch = true;
  if (!line.startsWith('info depth ')) return;
  const words = line.split(/\s+/);
  const get = (key) => { const i = words.indexOf(key); return i >= 0 ? words[i + 1] : ''; };
  const s = words.indexOf('score');
  const verdict = s >= 0 ? scoreInWords(words[s + 1], words[s + 2], seat, state.solvedSearch) : '';
  const pv = words.indexOf('pv') >= 0 ? words.slice(words.indexOf('pv') + 1).join(' ') : '';
  $('thinking').replaceChildren();
  const head = document.createElement('div');
  head.className = 'verdict';
  head.textContent = verdict;
  $('thinking').append(head, `depth ${get('depth')}  nodes ${get('nodes')}\nexpects ${pv}`);
}

/** The rules in short, and what the letters mean, for the game shown. */
function showHowTo() {
  const game = GAMES[state.game];
  $('howto-title').textContent = `(${game.title})`;
  const box = $('howto-text');
  box.replaceChildren();
  const rules = typeof game.howto === 'function' ? game.howto(state.options) : game.howto;
  const entering = state.game === 'kilkenny-cats'
    ? 'To move: press Roll the die, then click the cat to move and the square it lands on.'
    : 'To move: click the piece, then each point it lands on (for a capture chain, every landing point in turn); to drop, click the empty point. Marked points show where a move can start or go on; from the keyboard, Tab to a point and press Enter.';
  for (const text of [...rules, entering]) {
    const p = document.createElement('p');
    p.textContent = text;
    box.append(p);
  }
  const legend = document.createElement('dl');
  for (const [letter, meaning] of Object.entries(game.legend)) {
    const dt = document.createElement('dt');
    dt.textContent = letter;
    const dd = document.createElement('dd');
    dd.textContent = meaning;
    legend.append(dt, dd);
  }
  box.append(legend);
  if (state.game === 'hat-diviyan-keliya') {
    const note = document.createElement('p');
    note.textContent = 'At full strength the engine plays this game perfectly, from a solved table: as the tiger you cannot win against it. Lower the strength to have a chance.';
    box.append(note);
  }
}

async function play(move) {
  if (state.busy || !humanToMove() || !state.legal.includes(move)) return;
  state.selection = [];
  state.hintMove = null;
  await run(async () => {
    await tryMoves([...state.moves, move]);
    state.undone = [];
  });
}

/** Makes `moves` the game's moves if the engine takes them; otherwise the
 * game stays as it was (a move that could not be sent is not shown). */
async function tryMoves(moves) {
  const saved = { moves: state.moves, history: [...state.history], captures: [...(state.captures || [])] };
  state.moves = moves;
  try {
    await sync();
  } catch (e) {
    Object.assign(state, saved);
    throw e;
  }
}

async function roll() {
  if (state.busy || !humanToMove() || !isChance()) return;
  await run(async () => {
    const outcome = await engine.roll();
    state.moves.push(outcome);
    // Said to the person rolling; at one board for several people, by seat.
    const roller = onePerson() ? 'You' : GAMES[state.game].seats[state.side] || state.side;
    announce(`${roller} rolled ${outcome.replace(/^r/, '')}`);
    await sync();
  });
  // The Roll button is gone now: the person goes on at the board, not at
  // the top of the page.
  if ($('roll').hidden && (document.activeElement === document.body || document.activeElement === $('roll'))) {
    const stop = document.querySelector('#board .target[tabindex="0"]');
    if (stop) stop.focus();
  }
}

/** Seats with no cat left on the board (Kilkenny Cats). */
function seatsOut() {
  if (state.game !== 'kilkenny-cats' || !state.notation) return [];
  const fields = state.notation.split(' ');
  return [...fields[3]].filter((l) => !fields[0].includes(l.toUpperCase()));
}

/** "West played e4e8, taking a North cat; North is out." */
function moveInWords(seat, move, index, outBefore) {
  const game = GAMES[state.game];
  const taken = (state.captures || [])[index];
  const capture = taken ? `, taking ${taken.letters.map((l) => game.legend[l] || l).join(', ')}` : '';
  const out = seatsOut().filter((l) => !outBefore.includes(l)).map((l) => `; ${game.seats[l] || l} is out`).join('');
  return `${game.seats[seat] || seat} played ${move}${capture}${out}`;
}

async function undo() {
  if (state.busy || state.moves.length === 0) return;
  // Back to the last position where a human chose a move; with nobody
  // playing (engine against engine), one move back, and the engines wait.
  const engines = state.human.size === 0;
  let n = state.moves.length - 1;
  while (n > 0) {
    const h = state.history[n];
    if (h && !h.chance && (engines || state.human.has(h.side))) break;
    n--;
  }
  if (engines) state.paused = true;
  state.undone.push(state.moves.slice(n));
  state.moves = state.moves.slice(0, n);
  Object.assign(state, { selection: [], resigned: null, view: null, hintMove: null });
  await run(sync);
}

/** Plays again the moves the last Undo took back, one by one (so that the
 * list knows who played each). */
async function redo() {
  if (state.busy || state.undone.length === 0) return;
  const again = state.undone.pop();
  Object.assign(state, { selection: [], view: null, hintMove: null });
  await run(async () => {
    for (const move of again) await tryMoves([...state.moves, move]);
  });
}

/** The person gives the game up (two seats, one person). */
function resign() {
  if (state.busy || !humanToMove() || !onePerson() || state.seats.length !== 2 || state.main) return;
  state.resigned = state.side;
  state.selection = [];
  save();
  render();
}

function resignedInWords() {
  const winner = state.seats.find((s) => s !== state.resigned);
  const name = GAMES[state.game].seats[winner] || winner;
  return onePerson() && state.human.has(state.resigned) ? `You resigned: ${name} wins` : `${GAMES[state.game].seats[state.resigned]} resigned: ${name} wins`;
}

/** The engine's move for the person, shown and not played. */
async function askHint() {
  if (state.busy || !humanToMove() || isChance()) return;
  await run(async () => {
    const movetime = Math.max(10, Number($('movetime').value) || 500);
    // A hint is the engine's best, whatever strength it plays at: full
    // strength for this search, then the chosen strength again.
    const lines = await engine.exchange(
      [`setoption name Skill value ${FULL_STRENGTH}`, `go movetime ${movetime}`],
      (l) => l.startsWith('bestmove '),
    );
    await setStrength();
    const best = lines[lines.length - 1].split(/\s+/)[1];
    if (!best || best === '(none)') throw new Error('the engine found no move');
    state.hintMove = best;
    state.hintFor = state.notation;
    state.selection = [];
  });
  if (state.hintMove) hint(`Hint (full strength): the engine would play ${state.hintMove} (marked on the board).`);
}

/** Engine-versus-engine play: stop after the move in hand, one move more,
 * or go on. */
function stopPlay() {
  state.paused = true;
  if (state.busy) engine.send('stop');
  render();
}

function stepPlay() {
  if (state.busy) return;
  state.paused = false;
  state.stepOnce = true;
  run(async () => {});
}

function playOn() {
  if (state.busy) return;
  state.paused = false;
  run(async () => {});
}

/** Shows the position before move `ply` (after the ply-th move); the game
 * itself goes on unchanged. */
function showPly(ply) {
  const last = state.moves.length;
  const target = Math.max(0, Math.min(last, ply));
  state.view = target === last ? null : target;
  state.selection = [];
  render();
}

async function flip() {
  if (state.busy) return;
  const others = state.seats.filter((s) => !state.human.has(s));
  $('human').value = others[0] || '';
  rememberHuman();
  state.selection = [];
  await run(async () => {});
}

/** Set position: a notation, a `position` line or a whole game record. */
function setPosition() {
  const text = $('paste').value.trim();
  if (!text || state.busy) return;
  openRecord(text).catch((e) => message(String(e.message || e)));
}

// ---------------------------------------------------------- keep a game --

// The game in progress is kept in the browser after every step, so that a
// reload or a tab closed by mistake can take it up again: in the tab's own
// sessionStorage (a reload offers this tab's game, whatever other tabs
// play) and in localStorage (a tab opened anew offers the last game kept).
const SAVED = 'menagerie-board-game';

function save() {
  // The kept game stays kept while the page offers it.
  if (state.holdSaved || !$('resume').hidden) return;
  // The game, not a variation played from it.
  const line = state.main || state;
  const kept = {
    // A resigned game is over, though the rules say nothing of it: kept
    // as over, it is never offered to play on.
    game: state.game, options: state.options, start: state.start, moves: line.moves, status: line.resigned ? 'resigned' : line.status,
    human: $('human').value, strength: $('strength').value, movetime: $('movetime').value,
  };
  for (const store of [sessionStorage, localStorage]) {
    try {
      store.setItem(SAVED, JSON.stringify(kept));
    } catch (e) {
      // Storage refused (a private window, a full quota): nothing is kept.
    }
  }
}

function saved() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(SAVED) || localStorage.getItem(SAVED) || 'null');
    return kept && GAMES[kept.game] && Array.isArray(kept.moves) && typeof kept.start === 'string' ? kept : null;
  } catch (e) {
    return null;
  }
}

/** The menus as they were for the kept game: game, ruleset, seat, strength. */
function restoreSettings(kept) {
  $('game').value = kept.game;
  fillOptions(kept.game, kept.options || {});
  if ([...$('strength').options].some((o) => o.value === kept.strength)) $('strength').value = kept.strength;
  if (Number(kept.movetime) >= 10) $('movetime').value = kept.movetime;
  state.wantedHuman = kept.human;
}

/** Offers to take up the kept game, if it was going on. */
function offerResume(kept) {
  if (!kept || kept.moves.length === 0 || kept.status !== 'ongoing') return;
  const title = GAMES[kept.game].title;
  $('resume-text').textContent = `Your game of ${title} (${kept.moves.length} move${kept.moves.length === 1 ? '' : 's'} played) was kept.`;
  $('resume').hidden = false;
  $('resume-yes').onclick = () => {
    $('resume').hidden = true;
    state.resuming = kept;
    start(resumeStep);
  };
  $('resume-no').onclick = () => { $('resume').hidden = true; };
}

/** The kept game played again move by move (so that the list knows who
 * moved and what each move captured), then the engine goes on. */
async function resumeStep() {
  const kept = state.resuming;
  state.resuming = null;
  Object.assign(state, { start: kept.start, moves: [], history: [], captures: [], notation: '', selection: [] });
  for (let n = 0; n <= kept.moves.length; n++) {
    state.moves = kept.moves.slice(0, n);
    await sync();
  }
}

// --------------------------------------------------------------- clicks --

/** Points a player clicks for a move: the start and each landing point. */
function clickPath(move) {
  const { drop, points } = movePoints(move);
  if (drop || points.length <= 2) return points;
  return [points[0], ...points.filter((_, i) => i > 0 && i % 2 === 0)];
}

function candidates(selection) {
  const prefix = (path) => selection.every((p, i) => path[i] === p);
  return state.legal.filter((m) => m !== 'pass')
    .filter((m) => prefix(clickPath(m)) || prefix(movePoints(m).points));
}

function click(point) {
  const game = GAMES[state.game];
  if (state.busy) return hint('The engine is thinking: wait for its move.');
  if (state.view !== null) return hint('You are looking at an earlier position: press End (or click the last move) to go back to the game.');
  if (!ongoing()) return hint('The game is over: start a new game, or undo.');
  if (!humanToMove()) return hint(`It is ${game.seats[state.side] || state.side}'s turn, played by the engine.`);
  if (isChance()) return hint('Roll the die first.');
  let selection = [...state.selection, point];
  if (candidates(selection).length === 0) selection = candidates([point]).length ? [point] : [];
  if (selection.length === 0) {
    state.selection = [];
    render();
    return hint(`No move of ${game.seats[state.side] || state.side} starts or goes on at ${point}: the marked points can.`);
  }
  hint('');
  const complete = candidates(selection).filter((m) => {
    const same = (path) => path.length === selection.length && path.every((p, i) => p === selection[i]);
    return same(clickPath(m)) || same(movePoints(m).points);
  });
  state.selection = selection;
  $('choices').innerHTML = '';
  if (complete.length === 1) {
    play(complete[0]);
    return;
  }
  if (complete.length > 1) {
    // Chains that land on the same points over different pieces.
    for (const m of complete) {
      const b = document.createElement('button');
      b.textContent = m;
      b.onclick = () => { $('choices').innerHTML = ''; play(m); };
      $('choices').append(b);
    }
  }
  render();
}

// --------------------------------------------------------------- render --

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.append(e);
  return e;
}

/** The layout as the person sees it: turned round when the person plays
 * the seat whose side of the board is drawn at the top, so that their own
 * side is at the bottom (one person, two seats). */
function turned(layout) {
  const top = { 'awithlaknannai-mosona': 'b', 'safari-dual': 'a', 'kilkenny-cats': 'n' }[state.game];
  if (!top || !onePerson() || !state.human.has(top)) return layout;
  const points = {};
  for (const [p, [x, y]] of Object.entries(layout.points)) points[p] = [layout.width - x, layout.height - y];
  const squares = (layout.squares || []).map((sq) => ({ ...sq, x: layout.width - sq.x - sq.size, y: layout.height - sq.y - sq.size }));
  return { ...layout, points, squares: layout.squares ? squares : undefined, turned: true };
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** The nearest point from `from` in the direction [dx, dy] on the screen,
 * favouring points straight that way. */
function neighbour(points, from, [dx, dy]) {
  const [x0, y0] = points[from];
  let best = null, bestCost = Infinity;
  for (const [p, [x, y]] of Object.entries(points)) {
    const along = (x - x0) * dx + (y - y0) * dy;
    if (p === from || along <= 0) continue;
    const across = Math.abs((x - x0) * dy - (y - y0) * dx);
    const cost = along + 2 * across;
    if (cost < bestCost) { best = p; bestCost = cost; }
  }
  return best;
}

/** Said to screen readers (a polite live region): engine moves, captures,
 * rolls, seats going out. */
function announce(text) {
  $('announce').textContent = text;
}

/** A move just made slides its piece from where it came (once per move;
 * not while stepping back, and not for people who ask for less motion). */
let animatedPly = 0;
function animateLastMove(svg, layout, ply) {
  if (state.view !== null || ply === animatedPly) return;
  animatedPly = ply;
  const move = state.moves[ply - 1];
  if (!move || (state.history[ply - 1] || {}).chance) return;
  const { drop, points } = movePoints(move);
  if (drop || points.length < 2) return;
  const [from, to] = [points[0], points[points.length - 1]];
  if (!layout.points[from] || !layout.points[to]) return;
  const piece = svg.querySelector(`[data-point="${to}"][data-piece]`);
  if (!piece) return;
  const [[x0, y0], [x1, y1]] = [layout.points[from], layout.points[to]];
  piece.style.setProperty('--dx', `${x0 - x1}px`);
  piece.style.setProperty('--dy', `${y0 - y1}px`);
  piece.classList.add('moving');
}

/** The point whose button had the keyboard's focus before a render. */
let focusAfterRender = null;

function render() {
  let focused = null;
  const game = GAMES[state.game];
  const layout = turned(game.layout(state.options));
  // The ply shown: the game now, or an earlier position while stepping back.
  const ply = state.view ?? state.moves.length;
  const shown = state.view === null ? state.notation : (state.history[ply] || {}).notation || state.notation;
  const position = shown ? parsePosition(state.game, layout, shown) : { pieces: {}, fields: [] };
  const board = $('board');
  board.innerHTML = '';
  board.dataset.game = state.game;
  // The choice between chains belongs to a selection; New game, Undo,
  // Set position and a change of seat drop it.
  if (state.selection.length === 0 || state.busy) $('choices').innerHTML = '';
  board.dataset.notation = state.notation;
  board.dataset.shown = shown;
  board.dataset.turned = layout.turned ? 'yes' : 'no';
  board.dataset.start = state.start;
  board.dataset.moves = state.moves.join(' ');
  board.dataset.legal = state.legal.join(' ');
  board.dataset.turn = state.busy ? 'engine' : !ongoing() ? 'over' : humanToMove() ? 'human' : 'wait';
  const svg = el('svg', { width: layout.width, height: layout.height, viewBox: `0 0 ${layout.width} ${layout.height}`, role: 'group', 'aria-label': `${game.title} board` }, board);
  for (const sq of layout.squares || []) {
    const cls = sq.mouse ? 'mouse' : sq.base ? 'square base' : 'square';
    el('rect', { x: sq.x, y: sq.y, width: sq.size, height: sq.size, class: cls }, svg);
    if (sq.owner) {
      const label = el('text', { x: sq.x + sq.size / 2, y: sq.y + sq.size / 2 + 4, class: 'mouse-label', 'data-mouse': sq.owner }, svg);
      label.textContent = (game.seats[sq.owner] || sq.owner)[0];
      el('title', {}, label).textContent = `${game.seats[sq.owner] || sq.owner}'s mouse`;
    }
  }
  // The die as rolled, drawn with its pips in the corner.
  if (state.game === 'kilkenny-cats' && /^[1-6]$/.test(position.fields[2] || '')) {
    const n = Number(position.fields[2]), x = 12, y = 12, size = 26;
    const die = el('g', { class: 'die', 'data-die': n }, svg);
    el('rect', { x, y, width: size, height: size, rx: 5, class: 'die-face' }, die);
    const pips = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]],
      5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]] }[n];
    for (const [i, j] of pips) el('circle', { cx: x + 6 + i * 7, cy: y + 6 + j * 7, r: 2.3, class: 'die-pip' }, die);
  }
  for (const [a, b] of layout.lines) {
    const [x1, y1] = layout.points[a], [x2, y2] = layout.points[b];
    el('line', { x1, y1, x2, y2, class: 'line' }, svg);
  }
  // The last move, the whole path of a leap chain.
  const last = state.moves.slice(0, ply).filter((m, i) => !(state.history[i] || {}).chance && m !== 'pass').pop();
  if (last) {
    const path = movePoints(last).points.filter((p) => layout.points[p]);
    if (path.length > 1) {
      const points = path.map((p) => layout.points[p].join(',')).join(' ');
      el('polyline', { points, class: 'last-move' }, svg);
    }
    for (const p of path) {
      const [x, y] = layout.points[p];
      el('circle', { cx: x, cy: y, r: layout.radius + 2, class: 'last-point' }, svg);
    }
  }
  // What the last move captured, where it stood.
  const taken = (state.captures || [])[ply - 1];
  for (const p of taken ? taken.points : []) {
    // A point taken by landing on it is marked after its piece is drawn.
    if (!layout.points[p] || position.pieces[p]) continue;
    const [x, y] = layout.points[p];
    const ghost = el('g', { class: 'ghost', 'data-captured': p }, svg);
    el('circle', { cx: x, cy: y, r: layout.radius, class: 'ghost-piece' }, ghost);
    el('line', { x1: x - 8, y1: y - 8, x2: x + 8, y2: y + 8, class: 'ghost-cross' }, ghost);
    el('line', { x1: x - 8, y1: y + 8, x2: x + 8, y2: y - 8, class: 'ghost-cross' }, ghost);
  }
  // Where a click can go next: before any click, every piece that can
  // move and every drop point.
  const next = new Set();
  if (!state.busy && humanToMove() && !isChance() && state.view === null) {
    for (const m of candidates(state.selection)) {
      const path = clickPath(m);
      if (path[state.selection.length]) next.add(path[state.selection.length]);
    }
  }
  const names = Object.keys(layout.points);
  // The one Tab stop: where the person last was, else a point a move
  // starts from, else a piece (a mouse or an empty corner helps no one).
  const firstPiece = names.find((p) => position.pieces[p]);
  const rovingPoint = names.includes(state.focusPoint) ? state.focusPoint : [...next][0] || firstPiece || names[0];
  for (const [point, [x, y]] of Object.entries(layout.points)) {
    const g = el('g', { 'data-point': point }, svg);
    const letter = position.pieces[point];
    if (!layout.squares) el('circle', { cx: x, cy: y, r: 4, class: 'point' }, g);
    // Coordinates: each point's name, as moves and notation write it.
    const offset = layout.squares ? -layout.radius + 2 : layout.radius * 0.75;
    // Said by the point's button already: hidden from screen readers.
    const coordinate = el('text', { x: x + offset, y: y + offset + 8, class: 'coord', 'aria-hidden': 'true' }, g);
    coordinate.textContent = point;
    if (letter) {
      g.setAttribute('data-piece', letter);
      const look = game.piece(letter);
      const r = layout.radius;
      if (look.shape === 'diamond') {
        el('polygon', { points: `${x},${y - r} ${x + r},${y} ${x},${y + r} ${x - r},${y}`, fill: look.fill }, g);
      } else {
        el('circle', { cx: x, cy: y, r, fill: look.fill, stroke: look.stroke || 'none', 'stroke-width': 2 }, g);
      }
      if (look.text) {
        const t = el('text', { x, y, class: 'piece-label', fill: look.color, 'aria-hidden': 'true' }, g);
        t.textContent = look.text;
      }
    }
    const hit = el('circle', { cx: x, cy: y, r: layout.radius + 4, class: 'target' }, g);
    const hinted = state.hintMove && state.view === null && movePoints(state.hintMove).points.includes(point);
    if (state.selection.includes(point)) hit.setAttribute('class', 'target selected');
    else if (hinted) hit.setAttribute('class', 'target hinted');
    else if (next.has(point)) hit.setAttribute('class', state.selection.length ? 'target next' : 'target movable');
    hit.addEventListener('click', () => click(point));
    // Keyboard and screen readers: every point is a button named by its
    // coordinate and what stands on it; Tab moves between them, Enter or
    // Space clicks.
    const what = letter ? (game.legend[letter] || letter) : 'empty';
    const can = next.has(point) ? (state.selection.length ? ', a move can go here' : ', can move') : '';
    // The board is one Tab stop: the point last moved to (or the first
    // that can move) takes it, the arrow keys move between points.
    hit.setAttribute('tabindex', point === rovingPoint ? '0' : '-1');
    hit.setAttribute('role', 'button');
    hit.setAttribute('aria-label', `${point}: ${what}${can}`);
    hit.addEventListener('keydown', (e) => {
      // Looking back at an earlier position no move can be made: the keys
      // the status names step through the game, as off the board.
      const ply = state.view;
      const step = ply === null ? undefined : { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: state.moves.length }[e.key];
      if (step !== undefined) {
        e.preventDefault();
        focusAfterRender = point;
        showPly(step);
      } else if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        focusAfterRender = point;
        click(point);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        state.selection = [];
        focusAfterRender = point;
        $('choices').innerHTML = '';
        hint('');
        render();
      } else if (ARROWS[e.key]) {
        e.preventDefault();
        const to = neighbour(layout.points, point, ARROWS[e.key]);
        if (to) {
          state.focusPoint = to;
          hit.setAttribute('tabindex', '-1');
          const next = svg.querySelector(`[data-point="${to}"] .target`);
          next.setAttribute('tabindex', '0');
          next.focus();
        }
      }
    });
    hit.addEventListener('focus', () => { state.focusPoint = point; });
    if (focusAfterRender === point) focused = hit;
  }
  // A capture by landing (Kilkenny Cats): a badge on the piece that took,
  // drawn over it.
  for (const p of taken ? taken.points : []) {
    if (!layout.points[p] || !position.pieces[p]) continue;
    const [x, y] = layout.points[p];
    const r = Math.max(6, layout.radius * 0.5);
    const badge = el('g', { class: 'ghost', 'data-captured': p }, svg);
    el('circle', { cx: x + layout.radius * 0.7, cy: y - layout.radius * 0.7, r, class: 'ghost-badge' }, badge);
    const [bx, by, d] = [x + layout.radius * 0.7, y - layout.radius * 0.7, r * 0.5];
    el('line', { x1: bx - d, y1: by - d, x2: bx + d, y2: by + d, class: 'ghost-badge-cross' }, badge);
    el('line', { x1: bx - d, y1: by + d, x2: bx + d, y2: by - d, class: 'ghost-badge-cross' }, badge);
  }
  // Zoomed on a phone: every point's target at least 44 px across.
  // Forced, never flipped: a redraw must not change the zoom.
  board.classList.toggle('zoomed', state.zoomed === true);
  const targetSize = 2 * (layout.radius + 4);
  board.style.setProperty('--zoomed-width', `${Math.ceil(layout.width * Math.max(1, 44 / targetSize))}px`);
  // On a wide screen the board grows with the window (style.css).
  board.style.setProperty('--board-width', `${layout.width}px`);
  board.style.setProperty('--board-aspect', String(layout.width / layout.height));
  animateLastMove(svg, layout, ply);
  if (focused) focused.focus();
  $('notation').value = state.notation;
  const moves = $('moves');
  moves.innerHTML = '';
  const who = (seat) => game.seats[seat] || seat;
  let number = 0;
  state.moves.forEach((m, i) => {
    const before = state.history[i] || {};
    const li = document.createElement('li');
    if (state.main && i >= branchPly()) li.dataset.variation = 'yes';
    if (before.chance) {
      li.className = 'roll';
      // A die's outcome reads as its number ("South rolls 4"); others as written.
      li.textContent = `${who(before.side)} rolls ${/^r\d+$/.test(m) ? m.slice(1) : m}`;
    } else {
      number++;
      li.textContent = `${number}. ${who(before.side)}: ${m}`;
      // The whole line clicks; its button keeps it reachable by keyboard.
      li.onclick = () => showPly(i + 1);
      if (i + 1 === ply && state.view !== null) li.setAttribute('aria-current', 'step');
      const taken = (state.captures || [])[i];
      if (taken) {
        li.textContent += ` × ${taken.letters.map((l) => game.legend[l] || l).join(', ')}`;
        li.className = 'capture';
      }
      const show = document.createElement('button');
      show.className = 'show-move';
      show.textContent = 'show';
      show.setAttribute('aria-label', `show the position after move ${number}`);
      show.onclick = (e) => { e.stopPropagation(); showPly(i + 1); };
      li.append(' ', show);
    }
    moves.append(li);
  });
  if (state.view === null) moves.scrollTop = moves.scrollHeight;
  let status;
  if (ongoing()) {
    const extra = game.extra && position.fields.length ? '  ·  ' + game.extra(position.fields) : '';
    // "Engine thinking" only while it searches: the live region says it
    // once, not at every redraw of a step that thinks nothing.
    status = (state.thinking ? 'Engine thinking… ' : humanToMove() && !state.busy ? 'Your move: ' : '') + `${who(state.side)} to move${extra}`;
  } else {
    status = state.resigned ? resignedInWords() : resultInWords(state.status);
  }
  // Counted in moves, as the list numbers them: rolls are not moves.
  const movesIn = (n) => state.moves.slice(0, n).filter((_, i) => !(state.history[i] || {}).chance).length;
  if (state.view !== null) status = `Looking at the position after move ${movesIn(ply)} of ${movesIn(state.moves.length)} (← → to step, End for the ${state.main ? 'variation' : 'game'} now; Play from here tries another move)`;
  else if (state.main && !ongoing()) status = `In the variation: ${status}`;
  if (state.serverGone) status = 'The server has stopped: nothing can be played until it is started again and the page reloaded';
  setStatus(status);
  // The flow around the game: what a person can do now.
  const alone = onePerson() && state.seats.length === 2;
  $('resign').hidden = !(alone && humanToMove() && !state.busy && !state.main);
  $('play-here').hidden = !(state.view !== null && !state.busy);
  $('variation').hidden = !state.main;
  if (state.main) $('variation-text').textContent = `A variation from move ${movesIn(branchPly())}: the game (${movesIn(state.main.moves.length)} moves) is kept.`;
  $('hint-move').hidden = !(humanToMove() && !isChance() && !state.busy && state.view === null);
  const engines = state.human.size === 0 && ongoing();
  $('stop').hidden = !(engines && !state.paused);
  $('step').hidden = !(engines && state.paused && !state.busy);
  $('play-on').hidden = !(engines && state.paused && !state.busy);
  $('redo').hidden = state.undone.length === 0;
  $('redo').disabled = state.busy;
  // A hint belongs to the position it was asked in (a new game, a set
  // position or an undo leaves it behind).
  if (state.hintFor && state.hintFor !== state.notation) {
    Object.assign(state, { hintMove: null, hintFor: null });
    hint('');
  }
  const over = !ongoing() && !state.busy && state.notation !== '' && !state.main;
  $('over').hidden = !over;
  if (over) {
    // The result itself is the status line's, said once.
    $('over-text').textContent = gameSummary();
    $('game-text').value = gameRecord();
    $('switch').hidden = !onePerson();
  }
  if (state.notation) $('record').value = gameRecord();
  drawGraph();
  if (state.view === null) soundForPly(state.moves.length);
  $('roll').hidden = !(humanToMove() && isChance());
  $('pass').hidden = !(humanToMove() && state.legal.length === 1 && state.legal[0] === 'pass');
  if (state.serverGone) {
    for (const id of ['resign', 'hint-move', 'stop', 'step', 'play-on', 'redo', 'roll', 'pass', 'restart', 'play-here']) $(id).hidden = true;
  }
  // New game stays open: it stops the engine and starts at once.
  for (const id of ['undo', 'flip', 'set', 'analyse', 'over-analyse', 'back-to-game']) $(id).disabled = state.busy;
}

// ---------------------------------------------------------------- start --

async function main() {
  engine = new Engine(
    (why) => {
      message(`The engine stopped (${why}). Restart it to go on from the same moves.`);
      $('restart').hidden = false;
    },
    () => {
      // Nothing can be sent now: the page says so once, and offers nothing
      // that would need the engine.
      state.serverGone = true;
      message(SERVER_GONE);
      render();
    },
  );
  try {
    const config = await (await fetch('/api/config')).json();
    $('movetime').value = config.movetime;
    await engine.open();
    // This tab's own rolls: the engine's chance draws, seeded here.
    const seed = crypto.getRandomValues(new Uint32Array(2));
    // 53 random bits: a whole number JavaScript writes exactly.
    await engine.exchange([`setoption name Seed value ${(seed[0] & 0x1fffff) * 4294967296 + seed[1]}`, 'isready'], (l) => l === 'readyok');
    state.catalogue = parseCatalogue(await engine.exchange(['games'], (l) => l === 'gamesok'));
    await setStrength();
    for (const [id, g] of Object.entries(GAMES)) $('game').append(new Option(g.title, id));
    $('game').value = GAMES[config.game] ? config.game : 'hat-diviyan-keliya';
    fillOptions($('game').value, {});
    const kept = saved();
    if (kept) {
      restoreSettings(kept);
      await setStrength();
    }
    state.holdSaved = true;
    await newGame();
    state.holdSaved = false;
    // A link names a game: it is opened; otherwise the kept game is offered.
    if (!openLink()) offerResume(kept);
  } catch (e) {
    const why = String(e.message || e);
    message(why);
    // Never left saying "Starting…": the page says it did not start, and
    // offers nothing that needs an engine.
    if (!state.notation) {
      setStatus(`The board could not start: ${why}`);
      for (const button of document.querySelectorAll('button')) button.disabled = true;
    }
  }
  // A game or ruleset chosen is set up at once: board, seats and rules.
  $('game').onchange = () => {
    fillOptions($('game').value, {});
    newGame();
  };
  $('options').onchange = () => newGame();
  // Skill levels: 0 random moves, 1 greedy, 2-19 a shallow noisy search,
  // 20 full strength (protocol.md, setoption).
  $('strength').onchange = () => {
    // Kept at once: a reload right after the change keeps it.
    save();
    run(() => setStrength());
  };
  $('new').onclick = newGame;
  $('undo').onclick = undo;
  $('flip').onclick = flip;
  $('human').onchange = () => {
    rememberHuman();
    state.selection = [];
    // While the engine plays, its loop sees the new seat after the move in
    // hand; a second loop would play for both.
    if (state.busy) render();
    else run(async () => {});
  };
  // A closed or reloaded tab frees its engine and its place at once.
  window.addEventListener('pagehide', () => {
    if (engine.id) navigator.sendBeacon(`/api/session/${engine.id}/close`);
  });
  $('roll').onclick = roll;
  $('zoom').onclick = () => {
    state.zoomed = !state.zoomed;
    $('zoom').textContent = state.zoomed ? 'Fit the screen' : 'Zoom the board';
    render();
  };
  $('resign').onclick = resign;
  $('hint-move').onclick = askHint;
  $('stop').onclick = stopPlay;
  $('step').onclick = stepPlay;
  $('play-on').onclick = playOn;
  $('redo').onclick = redo;
  $('rematch').onclick = newGame;
  $('switch').onclick = () => {
    const others = state.seats.filter((s) => !state.human.has(s));
    state.wantedHuman = others[0];
    $('human').value = others[0];
    rememberHuman();
    newGame();
  };
  // Another game: the menus, to choose a game, ruleset and seat.
  $('over-new').onclick = () => { $('game').scrollIntoView({ block: 'nearest' }); $('game').focus(); };
  $('copy-game').onclick = () => copyText(gameRecord());
  setUpRecord();
  setUpAnalysis();
  setUpSounds();
  $('show-eval').onchange = () => { $('thinking').hidden = !$('show-eval').checked; };
  // Stepping through the moves: arrows, Home and End, outside text fields.
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, select, textarea, #board')) return;
    const ply = state.view ?? state.moves.length;
    const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: state.moves.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    showPly(to);
  });
  $('pass').onclick = () => play('pass');
  $('copy').onclick = () => navigator.clipboard && navigator.clipboard.writeText(state.notation);
  $('set').onclick = setPosition;
  $('restart').onclick = () => run(async () => {
    await engine.restart();
    $('restart').hidden = true;
    const words = rulesetWords(state.options);
    await engine.exchange([`newgame ${state.game} ${words}`.trim(), 'isready'], (l) => l === 'readyok');
    await setStrength();
    await sync();
  });
}

main();

// For tests and the curious: the page's state and engine connection.
window.menagerie = { state, get engine() { return engine; } };
