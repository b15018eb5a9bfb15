// The game record: one text that holds a whole game (the game, its
// ruleset, the start, every move and roll, the result with its reason),
// written as protocol lines so that `menagerie` replays it as it is, and
// a link (URL fragment) that opens the page at a position or a game.
// The format is named in docs/board.md and protocol.md ("Game records").
'use strict';

const RECORD_HEADER = '# menagerie game record 1';

/** The ruleset as `newgame` words: `key=value`, in the menu's order. */
function rulesetWords(options) {
  return Object.entries(options).map(([k, v]) => `${k}=${v}`).join(' ');
}

/** The result as the engine says it (`win n (mice-caught)`, `draw
 * (no-progress)`, `ongoing`), or a resignation in the same shape: a
 * resignation has no reason word in the rules, so the board names it. */
function recordResult() {
  if (state.resigned) {
    const winner = state.seats.find((s) => s !== state.resigned);
    return `win ${winner} (resigned)`;
  }
  return state.status || 'ongoing';
}

/** Who played which seat, for people reading the record. */
function recordSeats() {
  const strength = $('strength').selectedOptions[0]?.textContent || '';
  return state.seats.map((s) => `${s} ${state.human.has(s) ? 'person' : `engine (${strength.toLowerCase()})`}`).join(', ');
}

/** The game (the main line, when a variation is being played) as a
 * record. */
function gameRecord() {
  const line = mainLine();
  const moves = line.moves.length ? ` moves ${line.moves.join(' ')}` : '';
  return [
    RECORD_HEADER,
    `# date: ${new Date().toISOString().slice(0, 10)}`,
    `# seats: ${recordSeats()}`,
    `# result: ${line.result}`,
    `newgame ${state.game} ${rulesetWords(state.options)}`.trim(),
    `position fen ${state.start}${moves}`,
  ].join('\n');
}

/** Reads a record, a lone `position` line or a lone notation. A lone
 * line leaves the game and ruleset as they are (`game: null`). Throws
 * with what is wrong. */
function parseRecord(text) {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const tags = {};
  let game = null;
  let options = {};
  let position = null;
  for (const line of lines) {
    if (line.startsWith('#')) {
      const m = line.match(/^#\s*([\w-]+):\s*(.*)$/);
      if (m) tags[m[1].toLowerCase()] = m[2];
      continue;
    }
    const words = line.split(/\s+/);
    if (words[0] === 'newgame' && game === null && position === null) {
      game = words[1];
      if (!GAMES[game]) throw new Error(`the record's game '${game || ''}' is not one of ${Object.keys(GAMES).join(', ')}`);
      for (const word of words.slice(2)) {
        const [key, value] = word.split('=');
        if (!key || value === undefined) throw new Error(`the record's ruleset word '${word}' is not key=value`);
        options[key] = value;
      }
    } else if (words[0] === 'position' && position === null) {
      const m = line.match(/^position\s+(?:startpos|fen\s+(.+?))(?:\s+moves\s+(.*))?$/);
      if (!m) throw new Error(`the record's position line is not 'position fen <notation> [moves ...]'`);
      position = { start: m[1] || null, moves: (m[2] || '').split(/\s+/).filter(Boolean) };
    } else if (lines.length === 1 && !/^(newgame|position)$/.test(words[0])) {
      position = { start: line, moves: [] };
    } else {
      throw new Error(`a game record has one newgame line and one position line, not '${line.slice(0, 40)}'`);
    }
  }
  if (position === null) throw new Error('the record has no position line');
  const result = tags.result || null;
  return { game, options, start: position.start, moves: position.moves, result };
}

/** The link to the game (moves and all) or to the position shown. */
function gameLink(whole) {
  const params = new URLSearchParams();
  params.set('game', state.game);
  const rules = rulesetWords(state.options);
  if (rules) params.set('rules', rules);
  if (whole) {
    const line = mainLine();
    params.set('fen', state.start);
    if (line.moves.length) params.set('moves', line.moves.join(' '));
    if (/\(resigned\)$/.test(line.result)) params.set('result', line.result);
  } else {
    const ply = state.view ?? state.moves.length;
    params.set('fen', (state.history[ply] || {}).notation || state.notation);
  }
  return `${location.origin}${location.pathname}#${params}`;
}

/** A link's fragment as a record, or null when it names no game. */
function recordFromFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (!params.get('game') || !params.get('fen')) return null;
  const moves = params.get('moves');
  return [
    params.get('result') ? `# result: ${params.get('result')}` : '',
    `newgame ${params.get('game')} ${params.get('rules') || ''}`.trim(),
    `position fen ${params.get('fen')}${moves ? ` moves ${moves}` : ''}`,
  ].filter(Boolean).join('\n');
}

/** Opens a record (or sets a notation or a position line on the game in
 * play): all or nothing, the game before it comes back if the engine
 * refuses any of it. */
async function openRecord(text) {
  const record = parseRecord(text.trim());
  const before = { game: state.game, options: { ...state.options }, start: state.start, moves: [...state.moves], resigned: state.resigned, human: $('human').value };
  state.selection = [];
  // Engines held (Stop) stay held: opening a game plays nothing by itself.
  const paused = state.paused;
  await start(async () => {
    dropVariation();
    try {
      await loadGame(record);
    } catch (e) {
      if (e instanceof Stopped) throw e;
      await loadGame({ ...before, result: before.resigned ? `win ${state.seats.find((s) => s !== before.resigned)} (resigned)` : null });
      throw e;
    } finally {
      // Held only between engines: with a person at the board nothing
      // would let the engines go on again.
      state.paused = paused && state.human.size === 0;
    }
  });
}

/** Sets up a game from a parsed record, replaying it move by move so that
 * the list knows who played each move and what it took. */
async function loadGame(record) {
  if (record.human !== undefined) state.wantedHuman = record.human;
  if (record.game && (record.game !== state.game || rulesetWords(record.options) !== rulesetWords(state.options))) {
    $('game').value = record.game;
    fillOptions(record.game, record.options);
    const unknown = Object.keys(record.options).filter((k) => !document.getElementById(`opt-${k}`));
    if (unknown.length) throw new Error(`${GAMES[record.game].title} has no ruleset option ${unknown.join(', ')}`);
    const refused = Object.entries(record.options).filter(([k, v]) => document.getElementById(`opt-${k}`).value !== v);
    if (refused.length) throw new Error(`${GAMES[record.game].title}'s ${refused[0][0]} cannot be '${refused[0][1]}'`);
    await newGameStep();
  }
  Object.assign(state, { moves: [], history: [], captures: [], notation: '', selection: [], view: null, resigned: null, undone: [], hintMove: null, analysis: null });
  if (record.start) state.start = record.start;
  else await newGameStep();
  await sync();
  for (let n = 1; n <= record.moves.length; n++) {
    const move = record.moves[n - 1];
    if (!state.legal.includes(move)) {
      throw new Error(`move ${n} of the record, '${move}', is not legal there (${state.status !== 'ongoing' ? `the game is over: ${state.status}` : `legal: ${state.legal.slice(0, 8).join(' ')}${state.legal.length > 8 ? ' …' : ''}`})`);
    }
    state.moves = record.moves.slice(0, n);
    await sync();
  }
  // Set up, not played: no sound for the last move.
  soundedPly = state.moves.length;
  // A resignation is the record's word: the rules say nothing of it.
  const resigned = (record.result || '').match(/^win (\S+) \(resigned\)$/);
  if (resigned && state.status === 'ongoing' && state.seats.includes(resigned[1])) {
    state.resigned = state.seats.find((s) => s !== resigned[1]);
  } else if (record.result && !resigned && record.result !== state.status) {
    message(`The record says '${record.result}', the rules say '${state.status}': the rules' result is shown.`);
  }
}

/** Saves the record as a text file. */
function downloadRecord() {
  const url = URL.createObjectURL(new Blob([gameRecord() + '\n'], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `menagerie-${state.game}-${new Date().toISOString().slice(0, 10)}.txt`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function copyText(text) {
  if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
}

function showLink(whole) {
  const link = gameLink(whole);
  $('link').hidden = false;
  $('link').value = link;
  $('link').select();
  copyText(link);
  hint(`${whole ? 'A link to the game' : 'A link to this position'} is copied (and shown under the record).`);
}

/** Wires the record's controls; a link opened (or pasted into the
 * address bar) sets its game up. */
function setUpRecord() {
  $('copy-record').onclick = () => copyText(gameRecord());
  $('save-record').onclick = downloadRecord;
  $('link-game').onclick = () => showLink(true);
  $('link-position').onclick = () => showLink(false);
  $('open-file').onchange = async () => {
    const file = $('open-file').files[0];
    $('open-file').value = '';
    if (!file) return;
    if (file.size > 1 << 20) return message(`${file.name} is ${file.size} bytes: a game record is far smaller`);
    openRecord(await file.text()).catch((e) => message(String(e.message || e)));
  };
  window.addEventListener('hashchange', () => openLink());
}

/** Opens the game a link names, then forgets the fragment: a reload
 * offers the tab's own game, as always. True when there was one. */
function openLink() {
  const text = recordFromFragment(location.hash);
  if (!text) return false;
  history.replaceState(null, '', location.pathname + location.search);
  openRecord(text).catch((e) => message(`The link could not be opened: ${e.message || e}`));
  return true;
}
