// Analysis: the engine's view of every position of the game as a graph,
// and variations: play on from an earlier position while the game (the
// main line) is kept, to come back to.
'use strict';

/** Nodes a position is searched for in the graph: a fixed count, so that
 * the graph is the same on any machine and under any load. */
const ANALYSIS_NODES = 3000;

/** The game's own moves and result, whether or not a variation is played. */
function mainLine() {
  if (state.main) {
    const m = state.main;
    const winner = m.resigned && m.seats.find((s) => s !== m.resigned);
    return { moves: m.moves, result: m.resigned ? `win ${winner} (resigned)` : m.status };
  }
  return { moves: state.moves, result: recordResult() };
}

/** How many moves the variation shares with the game. */
function branchPly() {
  if (!state.main) return state.moves.length;
  let n = 0;
  while (n < state.moves.length && n < state.main.moves.length && state.moves[n] === state.main.moves[n]) n++;
  return n;
}

const KEPT_FIELDS = ['moves', 'history', 'captures', 'status', 'notation', 'side', 'legal', 'chance', 'resigned', 'undone', 'seats'];

/** Plays on from the position shown, as a variation: the game is kept. */
function playFromHere() {
  if (state.view === null || state.busy) return;
  const ply = state.view;
  if (!state.main) {
    state.main = {};
    for (const key of KEPT_FIELDS) state.main[key] = Array.isArray(state[key]) ? [...state[key]] : state[key];
  }
  Object.assign(state, {
    moves: state.moves.slice(0, ply),
    history: state.history.slice(0, ply + 1),
    captures: (state.captures || []).slice(0, ply),
    view: null, resigned: null, undone: [], selection: [], hintMove: null, paused: false,
  });
  announce(`A variation from move ${movesBefore(ply)}: the game is kept`);
  start(sync);
}

/** Back to the game as it was before the variation. */
function backToGame() {
  if (!state.main) return;
  start(async () => {
    dropVariation();
    await sync();
  });
}

/** Puts the kept game back (no engine exchange). */
function dropVariation() {
  if (!state.main) return;
  for (const key of KEPT_FIELDS) state[key] = state.main[key];
  state.main = null;
  Object.assign(state, { view: null, selection: [], hintMove: null });
}

/** Moves (not rolls) among the first `ply` plies. */
function movesBefore(ply) {
  return state.moves.slice(0, ply).filter((_, i) => !(state.history[i] || {}).chance).length;
}

/** Kilkenny Cats: the network's chance for each seat (the search reports
 * only the mover's score). The other games: the search's score, from the
 * first seat's side, squeezed into -1..1 (a forced result at the edge). */
function analysisKind() {
  return state.game === 'kilkenny-cats' ? 'chance' : 'score';
}

/** Reads one position's values, per seat, from the engine's lines. */
function readValues(lines, seats, side) {
  const over = lines.map((l) => l.match(/^info string game over: (?:win (\S+)|draw)/)).find(Boolean);
  if (over) return Object.fromEntries(seats.map((s) => [s, over[1] ? (s === over[1] ? 1 : 0) : 0.5]));
  if (analysisKind() === 'chance') {
    const values = {};
    for (const l of lines) {
      const m = l.match(/^seat (\S+) chance (\S+)/);
      if (m) values[m[1]] = Number(m[2]);
    }
    return values;
  }
  const info = lines.filter((l) => / score /.test(l)).pop();
  if (!info) return null;
  const [, kind, n] = info.match(/ score (\S+) (\S+)/);
  const mover = kind === 'win' ? 1 : kind === 'loss' ? -1 : Math.tanh(Number(n) / 400);
  // The first seat's view, from 0 (lost) to 1 (won).
  const first = (side === seats[0] ? mover : -mover) / 2 + 0.5;
  return { [seats[0]]: first, [seats[1]]: 1 - first };
}

/** Searches every position of the game (the main line) and draws the
 * graph; New game or any other step stops it. */
function analyse() {
  const line = mainLine().moves;
  const game = state.game;
  const seats = (state.main || state).seats;
  // Said at once: the view of another game or an earlier analysis is gone.
  $('analysis-status').textContent = 'Analysing…';
  state.analysis = null;
  drawGraph();
  start(async () => {
    const values = [];
    state.analysis = { game, start: state.start, moves: line, seats, kind: analysisKind(), values };
    // The engine's best view, whatever strength it plays at.
    await engine.exchange([`setoption name Skill value ${FULL_STRENGTH}`, 'isready'], (l) => l === 'readyok');
    try {
      for (let ply = 0; ply <= line.length; ply++) {
        unlessStopped();
        $('analysis-status').textContent = `Analysing: position ${ply} of ${line.length}…`;
        const position = `position fen ${state.start}${ply ? ' moves ' + line.slice(0, ply).join(' ') : ''}`;
        const side = ((state.main || state).history[ply] || {}).side;
        let lines;
        if (analysisKind() === 'chance') {
          // A seat that is out has no line: isready closes the answer.
          lines = await engine.exchange([position, 'eval', 'isready'], (l) => l === 'readyok');
        } else {
          lines = await engine.exchange([position, `go nodes ${ANALYSIS_NODES}`], (l) => l.startsWith('bestmove '));
        }
        values.push(readValues(lines, seats, side) || values[values.length - 1] || null);
        drawGraph();
      }
      $('analysis-status').textContent = `The engine's view of ${line.length} move${line.length === 1 ? '' : 's'} (${analysisKind() === 'chance' ? "each seat's chance to win, from the network" : `a search of ${ANALYSIS_NODES} nodes a position`}). Click the graph to see a position.`;
    } finally {
      // The engine goes back to its strength and the position in play.
      await setStrength();
      if (!state.next) await sync();
    }
  });
}

/** The colours a seat's line takes: its piece's colour. */
function seatColour(seat, i) {
  const look = state.game === 'kilkenny-cats' ? GAMES[state.game].piece(seat.toUpperCase()) : null;
  return look ? look.fill : ['#1a5fb4', '#8a4b00'][i] || '#555';
}

/** Draws the analysis of the game in play (nothing if it was another). */
function drawGraph() {
  const box = $('graph');
  const a = state.analysis;
  const line = mainLine().moves;
  const fits = a && a.game === state.game && a.start === state.start && a.moves.every((m, i) => line[i] === m);
  box.replaceChildren();
  delete box.dataset.points;
  $('analysis-legend').replaceChildren();
  if (!fits || a.values.length < 1) return;
  const [w, h, pad] = [320, 120, 6];
  const n = Math.max(1, a.moves.length);
  const x = (ply) => pad + (ply / n) * (w - 2 * pad);
  const y = (v) => pad + (1 - v) * (h - 2 * pad);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('class', 'graph');
  svg.setAttribute('role', 'img');
  const shown = a.kind === 'chance' ? a.seats : [a.seats[0]];
  const names = GAMES[a.game].seats;
  svg.setAttribute('aria-label', `Evaluation graph over ${a.moves.length} plies: ${shown.map((s) => `${names[s] || s} ends at ${Math.round(100 * ((a.values[a.values.length - 1] || {})[s] ?? 0.5))}%`).join(', ')}`);
  const add = (tag, attrs) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.append(e);
    return e;
  };
  add('line', { x1: pad, x2: w - pad, y1: y(0.5), y2: y(0.5), class: 'graph-axis' });
  const ply = state.view ?? state.moves.length;
  if (ply <= a.moves.length && !state.main) add('line', { x1: x(ply), x2: x(ply), y1: pad, y2: h - pad, class: 'graph-now' });
  shown.forEach((seat, i) => {
    const points = a.values.map((v, p) => (v && v[seat] !== undefined ? `${x(p).toFixed(1)},${y(v[seat]).toFixed(1)}` : null)).filter(Boolean);
    add('polyline', { points: points.join(' '), class: 'graph-line', stroke: seatColour(seat, i), 'data-seat': seat });
    const key = document.createElement('span');
    key.className = 'graph-key';
    key.style.setProperty('--key', seatColour(seat, i));
    key.textContent = a.kind === 'chance' ? `${names[seat] || seat}'s chance` : `up: ${names[seat] || seat} ahead`;
    $('analysis-legend').append(key);
  });
  // A click shows the position under it.
  svg.addEventListener('click', (e) => {
    const r = svg.getBoundingClientRect();
    const at = Math.round(((e.clientX - r.left) / r.width * w - pad) / (w - 2 * pad) * n);
    if (!state.main) showPly(Math.max(0, Math.min(a.moves.length, at)));
  });
  box.dataset.points = String(a.values.length);
  box.append(svg);
}

/** Wires the analysis controls. */
function setUpAnalysis() {
  $('analyse').onclick = analyse;
  $('over-analyse').onclick = () => { analyse(); $('graph').scrollIntoView({ block: 'nearest' }); };
  $('play-here').onclick = playFromHere;
  $('back-to-game').onclick = backToGame;
}
