// End-to-end test of the browser board: starts menagerie-board, plays a few
// moves of each game by clicking in headless Chromium, checks that the
// engine answered and that the board drawn matches the engine's own `d`
// for the same moves, restarts a stopped engine, and saves screenshots.
//
//   node tools/board/e2e.mjs      (after cargo build --release)
//
// Environment: MENAGERIE_BIN (directory of the binaries, default
// target/release), CHROMIUM (default /usr/bin/chromium), E2E_OUT (where
// screenshots go, default target/board-e2e), E2E_ENGINE (the engine the
// board runs, default its own; tools/board/slow-engine.py delays every
// `position` line, as a stalled machine does: the test must pass there).

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  HANG, bin, check, board, waitForTurn, clickPath, axeCheck, closePage, shot, openBoard, startServer, launchBrowser, letterContrasts, finish,
} from './e2e-common.mjs';

// The pieces a notation places, parsed here independently of the page.
const name = (f, r) => String.fromCharCode(97 + f) + r;
function notationRows(game, options) {
  if (game === 'hat-diviyan-keliya') {
    const rows = [['b1']];
    for (let r = 2; r <= (options.board === 'large' ? 5 : 4); r++) rows.push(['a', 'b', 'c'].map((f) => f + r));
    return rows;
  }
  if (game === 'awithlaknannai-mosona') {
    const odd = (r) => [1, 3, 5, 7, 9, 11, 13, 15].map((f) => name(f, r));
    return [odd(3), [0, 2, 4, 6, 8, 10, 12, 14, 16].map((f) => name(f, 2)), odd(1)];
  }
  if (game === 'safari-dual') {
    return [5, 4, 3, 2, 1].map((r) => [0, 1, 2, 3, 4].map((f) => name(f, r)));
  }
  const rows = [];
  for (let r = 15; r >= 2; r--) rows.push([...Array(14).keys()].map((i) => name(i + 1, r)));
  return rows;
}
function piecesOf(game, options, notation) {
  const fields = notation.split(' ');
  const rows = notationRows(game, options);
  const pieces = {};
  fields[0].split('/').forEach((row, i) => {
    let j = 0;
    for (const m of row.matchAll(/(\d+)|([A-Za-z])/g)) {
      if (m[1]) j += Number(m[1]);
      else pieces[rows[i][j++]] = m[2];
    }
  });
  if (game === 'kilkenny-cats') {
    ['h16', 'i16', 'h1', 'i1', 'p8', 'p9', 'a8', 'a9'].forEach((p, i) => {
      if (fields[4][i] !== '-') pieces[p] = fields[4][i];
    });
  }
  return pieces;
}

/** The engine's own view of start + moves, asked directly. */
function engineNotation(game, options, start, moves) {
  const words = Object.entries(options).map(([k, v]) => `${k}=${v}`).join(' ');
  const lines = [`newgame ${game} ${words}`, `position fen ${start}${moves ? ' moves ' + moves : ''}`, 'd'];
  const text = execFileSync(path.join(bin, 'menagerie'), lines, { encoding: 'utf8' });
  return text.split('\n').find((l) => l.startsWith('Notation: ')).slice(10);
}




async function playGame(page, game, options, humanMoves) {
  await page.selectOption('#game', game);
  for (const [key, value] of Object.entries(options)) await page.selectOption(`#opt-${key}`, value);
  await page.click('#new');
  await waitForTurn(page);
  if ((await board(page, 'turn')) === 'human' && !(await board(page, 'legal')).startsWith('r1')) {
    const marked = await page.$$eval('.target.movable', (els) => els.map((e) => e.parentNode.dataset.point));
    const legal = (await board(page, 'legal')).split(' ');
    const starts = new Set(legal.map((m) => clickPath(m)[0]));
    check(marked.length === starts.size && marked.every((p) => starts.has(p)), `${game}: the points a move can start from are marked`);
    await shot(page, `${game}-movable`);
    const dead = await page.$$eval('[data-point]', (els, marked) => els.map((e) => e.dataset.point).find((p) => !marked.includes(p)), marked);
    if (dead) {
      await page.click(`[data-point="${dead}"] .target`);
      check((await page.textContent('#hint')).includes(`at ${dead}`), `${game}: a click that does nothing says why`);
      await shot(page, `${game}-hint`);
    }
  }
  let engineAnswered = 0;
  const panel = async () => JSON.stringify(await page.$eval('aside', (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width]; }));
  const placed = await panel();
  let moved = null;
  for (let i = 0; i < humanMoves; i++) {
    if ((await board(page, 'turn')) === 'over') break;
    if (await clickMove(page, game, i)) engineAnswered++;
    if ((await panel()) !== placed) moved ??= `${placed} -> ${await panel()} after "${await page.textContent('#status')}"`;
  }
  check(engineAnswered > 0, `${game}: the engine answered`);
  check(moved === null, `${game}: the side panel stays where it is while the status changes ${moved ?? ''}`);
  await compareWithEngine(page, game, options);
}

/** Rolls if the die is due, clicks the i-th legal move (modulo), waits for
 * the engine; true if the engine moved (or the game ended) after it. */
async function clickMove(page, game, i) {
  // The board takes no move while the page talks to the engine (a
  // strength just chosen is sent first, late with a stalled engine): a
  // click then would be a click on a board that says it is not our turn.
  await waitForTurn(page);
  let legal = (await board(page, 'legal')).split(' ');
  if (legal.every((m) => /^r\d$/.test(m))) {
    await page.click('#roll');
    await page.waitForFunction(() => !document.querySelector('#board').dataset.legal.startsWith('r1'), null, { timeout: HANG });
    await waitForTurn(page);
    if (!(await board(page, 'legal')).startsWith('r1')) {
      check((await page.$$eval('.die', (els) => els.length)) === 1, `${game}: the die is drawn`);
      await shot(page, `${game}-die`);
    }
    legal = (await board(page, 'legal')).split(' ');
  }
  const before = (await board(page, 'moves')).split(' ').filter(Boolean).length;
  // A stale click on a point that starts no move changes nothing.
  const move = legal[i % legal.length];
  if (move === 'pass') {
    await page.click('#pass');
  } else {
    for (const point of clickPath(move)) await page.click(`[data-point="${point}"] .target`);
  }
  await page.waitForFunction((n) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length > n, before, { timeout: HANG });
  await waitForTurn(page);
  const after = (await board(page, 'moves')).split(' ').filter(Boolean);
  check(after[before] === move, `${game}: the move ${move} clicked was played`);
  return after.length > before + 1 || (await board(page, 'turn')) === 'over';
}

async function compareWithEngine(page, game, options) {
  const start = await board(page, 'start');
  const moves = await board(page, 'moves');
  const shown = await page.$$eval('[data-piece]', (els) => Object.fromEntries(els.map((e) => [e.dataset.point, e.dataset.piece])));
  const expected = piecesOf(game, options, engineNotation(game, options, start, moves));
  check(JSON.stringify(Object.entries(shown).sort()) === JSON.stringify(Object.entries(expected).sort()),
    `${game}: the board shown matches the engine's d`);
  check((await board(page, 'notation')) === engineNotation(game, options, start, moves), `${game}: the notation shown is the engine's`);
  const coordinates = await page.$$eval('[data-point]', (els) => els.every((e) => e.querySelector('.coord')?.textContent === e.dataset.point));
  check(coordinates, `${game}: every point shows its coordinate`);
  const last = moves.split(' ').filter((m) => m && !/^r\d$/.test(m) && m !== 'pass').pop();
  if (last) {
    const drawn = await page.$$eval('.last-point', (els) => els.length);
    check(drawn === (last.match(/[a-q]\d+/g) || []).length, `${game}: the last move ${last} is drawn, every point of it`);
  }
  const listed = await page.$$eval('#moves li', (els) => els.map((e) => e.textContent));
  const seats = await page.evaluate(() => Object.values(window.menagerie.state.catalogue[window.menagerie.state.game].seats));
  check(listed.length > 0 && listed.every((t) => seats.some((s) => t.includes(s))), `${game}: the move list says who moved`);
  if (game === 'kilkenny-cats') {
    check(listed.some((t) => / rolls [1-6]$/.test(t)), 'kilkenny-cats: rolls are listed as rolls');
    check((await page.$$eval('[data-mouse]', (els) => els.length)) === 8, 'kilkenny-cats: the eight mice are labelled by seat');
    const status = await page.textContent('#status');
    check(/Seats in play: [A-Z][a-z]+, [A-Z][a-z]+/.test(status), `kilkenny-cats: seats in words ("${status}")`);
  }
  if (game === 'hat-diviyan-keliya') {
    check(/Leopards captured: \d of [34]/.test(await page.textContent('#status')), 'hat-diviyan-keliya: captures counted');
  }
  await shot(page, [game, ...Object.values(options)].join('-'));
  await axeCheck(page, `${game} on a desktop`);
}

async function main() {
  const { server, port } = await startServer();
  const browser = await launchBrowser();
  try {
    // One browser profile: a tab opened again sees what the page kept.
    const mainProfile = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const { page, pageErrors } = await openBoard(mainProfile, port);
    await playGame(page, 'hat-diviyan-keliya', { start: 'ludovici', board: 'small' }, 4);
    // Contrast (WCAG AA): text 4.5:1, marks 3:1, on the board's colour.
    const colours = await page.evaluate(() => {
      const style = (selector, property) => {
        const e = document.querySelector(selector);
        return e ? getComputedStyle(e)[property] : null;
      };
      return {
        board: style('#board svg', 'backgroundColor'),
        coord: style('.coord', 'fill'),
        lastPoint: style('.last-point', 'stroke'),
        tiger: document.querySelector('[data-piece="T"] circle[fill]')?.getAttribute('fill'),
        tigerLetter: document.querySelector('[data-piece="T"] text.piece-label')?.getAttribute('fill'),
      };
    });
    const luminance = (rgb) => {
      const [r, g, b] = rgb.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((c) => c / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    check(contrast(colours.coord, colours.board) >= 4.5, `coordinates readable: ${contrast(colours.coord, colours.board).toFixed(2)}:1`);
    check(contrast(colours.lastPoint, colours.board) >= 3, `the last move's ring visible: ${contrast(colours.lastPoint, colours.board).toFixed(2)}:1`);
    const rgb = (hex) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    const white = (c) => (c === '#fff' ? '#ffffff' : c);
    check(colours.tiger && contrast(rgb(white(colours.tigerLetter)), rgb(colours.tiger)) >= 4.5,
      `the tiger letter readable on the tiger (${colours.tigerLetter} on ${colours.tiger})`);
    await playGame(page, 'awithlaknannai-mosona', { board: 'lined', leap: 'bent', ending: 'draw' }, 3);
    // A capture in every game, played from the keyboard: the move list
    // says what was taken, and a point left empty shows the trace.
    const captures = [
      ['hat-diviyan-keliya', { start: 'ludovici', board: 'small' }, 'T/1L1/3/3 t 0 6 0', 'b1b2b3', 'a leopard', 'b2'],
      ['awithlaknannai-mosona', { board: 'lined', leap: 'bent', ending: 'draw' }, 'BBBBBBBB/BBBB1WWWW/WWWWWWWW w 0', 'f1g2i2', 'a Black man', 'g2'],
      ['safari-dual', {}, '4l/5/Eg1E1/4G/L3G r 0', 'd3c3', "Angular's giraffe", 'b3'],
      ['kilkenny-cats', { players: '2' }, '14/14/14/14/14/14/14/14/14/14/3N10/3S10/14/14 s 1 sn -------- 0', 'e4e5', 'a North cat', 'e5'],
      // The game's last move a capture: a refused position must keep it.
      ['awithlaknannai-mosona', { board: 'lined', leap: 'bent', ending: 'draw' }, '8/W8/B7 w 0', 'a2b1d1', 'a Black man', 'b1'],
    ];
    // The engine thinks long enough to see the trace of the person's move.
    await page.fill('#movetime', '1500');
    for (const [game, options, position, move, taken, emptied] of captures) {
      await page.selectOption('#game', game);
      for (const [key, value] of Object.entries(options)) await page.selectOption(`#opt-${key}`, value);
      await page.click('#new');
      await waitForTurn(page);
      await page.fill('#paste', position);
      await page.click('#set');
      // The position set, not the one before it: Awithlaknannai Mosona's
      // start has the same move, and a key pressed while the page still
      // sets up is (rightly) refused.
      await page.waitForFunction(([p, m]) => {
        const b = document.querySelector('#board').dataset;
        return b.start === p && b.turn === 'human' && b.legal.split(' ').includes(m);
      }, [position, move], { timeout: HANG });
      // Watched from inside the page: a solved game's engine answers at once.
      await page.evaluate((p) => {
        window.sawTrace = false;
        if (window.traceWatch) window.traceWatch.disconnect();
        // The trace must be seen: drawn over a piece that stands there.
        window.traceWatch = new MutationObserver(() => {
          const trace = document.querySelector(`[data-captured="${p}"]`);
          const piece = document.querySelector(`[data-point="${p}"][data-piece]`);
          if (trace && (!piece || piece.compareDocumentPosition(trace) & Node.DOCUMENT_POSITION_FOLLOWING)) window.sawTrace = true;
        });
        window.traceWatch.observe(document.querySelector('#board'), { childList: true, subtree: true });
      }, emptied);
      for (const point of clickPath(move)) {
        await page.focus(`[data-point="${point}"] .target`);
        await page.keyboard.press('Enter');
      }
      await page.waitForFunction((m) => document.querySelector('#board').dataset.moves.split(' ')[0] === m, move, { timeout: HANG });
      await shot(page, `${game}-capture`);
      await waitForTurn(page);
      if (emptied) check(await page.evaluate(() => window.sawTrace), `${game}: the captured piece's point shows its trace`);
      const list = await page.textContent('#moves');
      check(list.includes(`× ${taken}`), `${game}: a capture from the keyboard, listed as taking ${taken}`);
      // A refused position puts the game back as it was, captures included.
      await page.fill('#paste', 'not a position');
      await page.click('#set');
      await page.waitForFunction(() => document.querySelector('#message').textContent.length > 0 && document.querySelector('#board').dataset.turn !== 'engine', null, { timeout: HANG });
      check((await page.textContent('#moves')) === list, `${game}: a refused position keeps the list and its captures`);
    }
    await page.fill('#movetime', '40');
    // Keyboard play: a move chosen with Tab-focus and Enter.
    await page.selectOption('#game', 'safari-dual');
    await page.click('#new');
    await waitForTurn(page);
    const kbMove = (await board(page, 'legal')).split(' ')[0];
    const kbBefore = (await board(page, 'moves')).split(' ').filter(Boolean).length;
    for (const point of clickPath(kbMove)) {
      await page.focus(`[data-point="${point}"] .target`);
      await page.keyboard.press('Enter');
    }
    await page.waitForFunction((n) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length > n, kbBefore, { timeout: HANG });
    check((await board(page, 'moves')).split(' ')[kbBefore] === kbMove, `a move played from the keyboard: ${kbMove}`);
    // The board is one Tab stop; arrows move between points, Escape
    // clears a choice; engine moves are announced.
    await waitForTurn(page);
    check((await page.$$eval('.target[tabindex="0"]', (els) => els.length)) === 1, 'the board is one Tab stop');
    check(/played /.test(await page.textContent('#announce')), `the engine's move is announced: "${await page.textContent('#announce')}"`);
    const slid = await page.evaluate(() => {
      const piece = document.querySelector('.moving');
      return piece ? { point: piece.dataset.point, dx: piece.style.getPropertyValue('--dx'), animation: getComputedStyle(piece).animationName } : null;
    });
    const lastMoved = (await board(page, 'moves')).split(' ').filter(Boolean).pop();
    check(slid && lastMoved.endsWith(slid.point) && slid.animation === 'arrive',
      `the last move slides its piece to ${slid && slid.point} (${lastMoved})`);
    await page.focus('.target[tabindex="0"]');
    const from = await page.evaluate(() => document.activeElement.parentNode.dataset.point);
    await page.keyboard.press('ArrowRight');
    const to = await page.evaluate(() => document.activeElement.parentNode.dataset.point);
    check(to && to !== from && (await page.$$eval('.target[tabindex="0"]', (els) => els.length)) === 1,
      `an arrow key moves the focus on the board (${from} -> ${to})`);
    const startPoint = clickPath((await board(page, 'legal')).split(' ')[0])[0];
    await page.focus(`[data-point="${startPoint}"] .target`);
    await page.keyboard.press('Enter');
    check((await page.$$eval('.target.selected', (els) => els.length)) === 1, 'Enter chooses a point');
    await page.keyboard.press('Escape');
    check((await page.$$eval('.target.selected', (els) => els.length)) === 0, 'Escape clears the choice');
    const label = await page.getAttribute(`[data-point="a1"] .target`, 'aria-label');
    check(/^a1: /.test(label || ''), `points are labelled for screen readers: "${label}"`);
    await waitForTurn(page);
    await playGame(page, 'safari-dual', {}, 3);
    await playGame(page, 'kilkenny-cats', { players: '2' }, 3);

    // A stopped engine: a clear message, a restart, and the game goes on.
    const moves = await board(page, 'moves');
    await page.evaluate(() => fetch(`/api/session/${window.menagerie.engine.id}/send`, { method: 'POST', body: 'quit\n' }));
    await page.waitForSelector('#restart:not([hidden])', { timeout: HANG });
    check((await page.textContent('#message')).includes('engine stopped'), 'a stopped engine is reported');
    await shot(page, 'engine-stopped');
    await page.click('#restart');
    await page.waitForSelector('#restart[hidden]', { state: 'attached', timeout: HANG });
    await waitForTurn(page);
    check((await board(page, 'moves')) === moves, 'after a restart the game goes on from the same moves');
    check(!(await page.textContent('#message')).includes('stopped'), 'the restart clears the message');
    if ((await board(page, 'turn')) === 'human') {
      check(await clickMove(page, 'kilkenny-cats', 0), 'the restarted engine answers a move');
      await compareWithEngine(page, 'kilkenny-cats', { players: '2' });
    }

    // The end in words, with its reason.
    await page.selectOption('#game', 'hat-diviyan-keliya');
    await page.selectOption('#opt-start', 'ludovici');
    await page.selectOption('#opt-board', 'small');
    await page.click('#new');
    await waitForTurn(page);
    await page.fill('#paste', 'T/LLL/LLL/3 t 0 1 0');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#board').dataset.turn === 'over', null, { timeout: HANG });
    const result = await page.textContent('#status');
    // The person plays the first seat, the tiger: the result in their words.
    check(result === 'You lose: the tiger cannot move', `the result in words: "${result}"`);
    await shot(page, 'result');
    await page.selectOption('#game', 'awithlaknannai-mosona');
    await page.click('#new');
    await waitForTurn(page);
    await page.fill('#paste', 'B7/9/8 w 0');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#board').dataset.turn === 'over', null, { timeout: HANG });
    const won = await page.textContent('#status');
    check(/^You lose: (every|the side)/.test(won) && !won.includes('wins'), `a colour wins, said once to the person playing White: "${won}"`);
    await page.selectOption('#human', '');
    check(/^Black wins: /.test(await page.textContent('#status')), 'with nobody playing, the winner is named');
    await page.selectOption('#human', 'w');

    // The person's seat follows the turn order across games, not the
    // letter (White, first in Awithlaknannai, is South in Kilkenny Cats,
    // not West).
    await page.selectOption('#game', 'kilkenny-cats');
    await page.selectOption('#opt-players', '4');
    await page.click('#new');
    await waitForTurn(page);
    check((await page.inputValue('#human')) === 's', `the first seat stays the first seat: ${await page.inputValue('#human')}`);
    // The three other seats' moves are shown one at a time, each for a
    // while, not all at once.
    await page.evaluate(() => {
      window.shown = [];
      const b = document.querySelector('#board');
      new MutationObserver(() => {
        const last = b.dataset.moves.split(' ').filter(Boolean).pop() || '';
        const seen = window.shown.length ? window.shown[window.shown.length - 1].moves : '';
        if (b.dataset.moves !== seen && !/^r\d$/.test(last)) window.shown.push({ moves: b.dataset.moves, at: performance.now() });
      }).observe(b, { attributes: true, attributeFilter: ['data-moves'] });
    });
    await clickMove(page, 'kilkenny-cats', 0);
    const shown = await page.evaluate(() => window.shown);
    const gaps = shown.slice(1).map((s, i) => s.at - shown[i].at);
    check(shown.length >= 3 && gaps.slice(1).every((g) => g >= 350),
      `4-player Kilkenny Cats: each engine move shown in turn (${shown.length} positions, gaps ${gaps.map(Math.round).join(' ')} ms)`);

    // Changing seats while the engine thinks: its move in hand is played
    // once, then the game goes on with the new seats, without an error.
    await page.fill('#movetime', '800');
    await page.selectOption('#game', 'safari-dual');
    await page.click('#new');
    await waitForTurn(page);
    await page.selectOption('#human', 'a');
    await page.waitForFunction(() => document.querySelector('#board').dataset.turn === 'engine', null, { timeout: HANG });
    await page.selectOption('#human', 'r');
    await waitForTurn(page);
    const played = (await board(page, 'moves')).split(' ').filter(Boolean);
    check(played.length >= 1 && !(await page.textContent('#moves')).includes('undefined')
      && (await board(page, 'turn')) === 'human',
      `a seat changed while the engine thinks: the game goes on (${played.join(' ')})`);
    check(!(await page.textContent('#message')), `and no error: "${await page.textContent('#message')}"`);
    await compareWithEngine(page, 'safari-dual', {});
    await page.fill('#movetime', '40');

    // The strength changed while the engine thinks: the engine plays its
    // one move and nothing for the person.
    await page.fill('#movetime', '1500');
    await page.selectOption('#human', 'r');
    await page.click('#new');
    await waitForTurn(page);
    const mine = (await board(page, 'legal')).split(' ')[0];
    for (const point of clickPath(mine)) await page.click(`[data-point="${point}"] .target`);
    check((await board(page, 'turn')) === 'engine', 'the engine thinks after the person moved');
    await page.selectOption('#strength', '6');
    await waitForTurn(page);
    // A second engine loop would move for the person within the next search.
    await page.waitForTimeout(2000);
    const afterStrength = (await board(page, 'moves')).split(' ').filter(Boolean);
    check(afterStrength.length === 2 && afterStrength[0] === mine && (await board(page, 'turn')) === 'human',
      `the strength changed while the engine thinks: one engine move, no move for the person (${afterStrength.join(' ')})`);
    await page.selectOption('#strength', '20');
    await page.fill('#movetime', '40');

    // A refused position changes nothing: the list still says who moved,
    // and Undo takes back one move of the person's.
    await clickMove(page, 'safari-dual', 0);
    const beforeRefusal = (await board(page, 'moves')).split(' ').filter(Boolean);
    const listBefore = await page.textContent('#moves');
    await page.fill('#paste', 'not a position');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#message').textContent.length > 0 && document.querySelector('#board').dataset.turn === 'human', null, { timeout: HANG });
    check((await page.textContent('#moves')) === listBefore && !listBefore.includes('undefined'),
      `a refused position leaves the move list as it was: "${(await page.textContent('#moves')).slice(0, 80)}"`);
    await page.click('#undo');
    await waitForTurn(page);
    const afterUndo = (await board(page, 'moves')).split(' ').filter(Boolean);
    check(afterUndo.length === beforeRefusal.length - 2 && afterUndo.every((m, i) => m === beforeRefusal[i]),
      `after a refused position Undo takes back the person's last move (${beforeRefusal.length} -> ${afterUndo.length} moves)`);

    // Choosing a game sets it up at once: board, rules and seats.
    await page.selectOption('#game', 'awithlaknannai-mosona');
    await waitForTurn(page);
    check((await board(page, 'game')) === 'awithlaknannai-mosona'
      && (await page.textContent('#howto-title')).includes('Awithlaknannai')
      && (await page.$$eval('#human option', (els) => els.map((e) => e.textContent))).includes('White'),
      'a game chosen in the menu is on the board, in How to play and in You play at once');
    check((await page.$$eval('[data-piece]', (els) => els.length)) === 24, 'its start position is drawn');

    // A reload, or the tab closed and opened again, offers the game kept.
    await clickMove(page, 'awithlaknannai-mosona', 0);
    await clickMove(page, 'awithlaknannai-mosona', 1);
    const kept = await board(page, 'moves');
    await page.selectOption('#strength', '12');
    await page.reload();
    await waitForTurn(page);
    check(!(await page.isHidden('#resume')) && (await page.textContent('#resume-text')).includes('Awithlaknannai Mosona'),
      `after a reload the kept game is offered: "${await page.textContent('#resume-text')}"`);
    check((await page.inputValue('#game')) === 'awithlaknannai-mosona' && (await page.inputValue('#strength')) === '12',
      'and its game and strength are chosen again');
    await shot(page, 'resume-offered');
    const again = await mainProfile.newPage();
    await again.goto(page.url());
    await waitForTurn(again);
    check(!(await again.isHidden('#resume')), 'a tab opened again offers the kept game too');
    // That tab plays a game of its own; the first tab's reload still
    // offers the first tab's game.
    await again.click('#resume-no');
    await again.selectOption('#game', 'safari-dual');
    await waitForTurn(again);
    await clickMove(again, 'safari-dual', 0);
    await waitForTurn(again);
    await closePage(again);
    // Reloading frees the old session: more reloads than the server has
    // places, and the board still opens, the game still kept.
    for (let i = 0; i < 10; i++) {
      await page.reload();
      await waitForTurn(page);
    }
    check(!(await page.textContent('#message')).includes('open already'), 'ten reloads leave the board usable');
    check((await page.textContent('#resume-text')).includes('Awithlaknannai Mosona'),
      `a reload offers this tab's game, not the one another tab played since: "${await page.textContent('#resume-text')}"`);
    await page.click('#resume-yes');
    await page.waitForFunction((m) => document.querySelector('#board').dataset.moves.startsWith(m), kept, { timeout: HANG });
    await waitForTurn(page);
    check((await board(page, 'moves')).startsWith(kept) && (await page.isHidden('#resume')),
      `resumed: the game goes on from its moves (${kept})`);
    const listed = await page.$$eval('#moves li', (els) => els.map((e) => e.textContent));
    check(listed.length >= kept.split(' ').length && listed.every((t) => /White|Black/.test(t)), 'the resumed list says who moved');
    await compareWithEngine(page, 'awithlaknannai-mosona', { board: 'lined', leap: 'bent', ending: 'draw' });
    await page.selectOption('#strength', '20');

    // How to play, the strength, and the engine's view in words.
    await page.selectOption('#game', 'hat-diviyan-keliya');
    await waitForTurn(page);
    check((await page.textContent('#howto-title')).includes('Hat Diviyan Keliya')
      && (await page.textContent('#howto-text')).includes('solved table'), 'how to play, and the solved game said plainly');
    check((await page.textContent('#howto-text')).includes('To move:'), 'how to enter a move is said');
    // At full strength the engine's view of a solved game says so.
    await page.selectOption('#human', 't');
    check(await clickMove(page, 'hat-diviyan-keliya', 0), 'the solved game answers');
    const solvedView = await page.textContent('#thinking .verdict');
    check(/^Solved/.test(solvedView), `the engine's view of a solved position says Solved: "${solvedView}"`);
    // How to play follows the ruleset chosen, and each option says what it does.
    await page.selectOption('#opt-board', 'large');
    await waitForTurn(page);
    const large = await page.textContent('#howto-text');
    check(large.includes('eight leopards') && large.includes('three captures') && !large.includes('seven'),
      'how to play on the large board: eight leopards, three captures');
    const boardChoices = await page.$$eval('#opt-board option', (els) => els.map((e) => e.textContent));
    check(boardChoices.some((t) => t.startsWith('large: ')), `each option explained where it is chosen: ${boardChoices.join(' / ')}`);
    await page.selectOption('#game', 'awithlaknannai-mosona');
    await waitForTurn(page);
    const serpent = await page.textContent('#howto-text');
    check(serpent.includes('may turn') && serpent.includes('f1g2i2'), 'the bent leap and the forced first capture explained');
    await page.selectOption('#opt-leap', 'straight');
    await waitForTurn(page);
    check((await page.textContent('#howto-text')).includes('straight beyond') && !(await page.textContent('#howto-text')).includes('f1g2i2'),
      'the straight leap explained when chosen');
    // A seat without cats is out, and said to be.
    await page.selectOption('#game', 'kilkenny-cats');
    await page.selectOption('#opt-players', '3');
    await waitForTurn(page);
    await page.fill('#paste', '14/14/14/14/14/14/14/14/14/14/3N10/3S10/14/14 s 1 swn -------- 0');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#board').dataset.notation.includes(' swn '), null, { timeout: HANG });
    await waitForTurn(page);
    const seatsSaid = await page.textContent('#status');
    check(/Seats in play: South, North/.test(seatsSaid) && seatsSaid.includes('Out: West'), `a seat that is out is shown as out: "${seatsSaid}"`);
    // Three seats: the winner named, the person's place, and each seat's
    // place in the end panel, the result said once (West has cats on both
    // its mice; South, the person, and North are still in play).
    await page.fill('#paste', '14/6N7/14/3S10/14/2N5S5/8N5/5N8/5S8/8SS2S1/14/14/11N2/14 n - swn ----WW-- 0');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#board').dataset.turn === 'over', null, { timeout: HANG });
    await page.waitForSelector('#over:not([hidden])');
    const manySaid = await page.textContent('#status');
    const manyPanel = await page.textContent('#over-text');
    check(/^West wins: .*\. You \(South\) place 2nd$/.test(manySaid), `at three seats the winner is named and the person's place given: "${manySaid}"`);
    check(manyPanel.startsWith('Places: 1st West · 2nd South, North.') && !manyPanel.includes('wins'), `the end panel gives each seat's place, not the result again: "${manyPanel}"`);
    await shot(page, 'result-three-seats');
    // Every letter on the board, 4.5:1 against what it is drawn on: the
    // cats of all four seats, and the mice's letters.
    await page.selectOption('#game', 'kilkenny-cats');
    await page.selectOption('#opt-players', '4');
    await page.click('#new');
    await page.waitForFunction(() => document.querySelector('#board').dataset.notation.includes(' swne '), null, { timeout: HANG });
    const contrasts = (await letterContrasts(page)).filter(([what]) => /^(cat|mouse) /.test(what));
    const faint = contrasts.filter(([, r]) => r < 4.5).map(([what, r]) => `${what} ${r.toFixed(2)}:1`);
    const kinds = new Set(contrasts.map(([what]) => what));
    check(kinds.size >= 8 && faint.length === 0, `every letter on the board at 4.5:1 or more (${kinds.size} kinds; ${faint.join(', ') || 'none fainter'})`);
    // The game flow: a hint, stepping back through the moves, redo,
    // resign, the end panel, switching sides, engine-versus-engine stop and
    // step, two people at one board.
    // (random engine moves: the game goes on long enough to resign it)
    await page.selectOption('#strength', '0');
    await page.selectOption('#game', 'safari-dual');
    await page.selectOption('#human', 'r');
    await waitForTurn(page);
    // The hint plays at full strength, whatever the Strength menu says:
    // here one move of 30 wins at once (the lion onto the empty enemy
    // base), and at "Random moves" the hint names it every time.
    await page.fill('#paste', 'l4/3L1/1GG2/1EEE1/5 r 0');
    await page.click('#set');
    await page.waitForFunction(() => document.querySelector('#board').dataset.notation.startsWith('l4/3L1/'), null, { timeout: HANG });
    await waitForTurn(page);
    for (let asked = 0; asked < 3; asked++) {
      await page.evaluate(() => { document.querySelector('#hint').textContent = ''; });
      await page.click('#hint-move');
      await page.waitForFunction(() => document.querySelector('#hint').textContent.startsWith('Hint'), null, { timeout: HANG });
      const said = await page.textContent('#hint');
      check(said.startsWith('Hint (full strength): ') && / play d4e5 /.test(said), `the hint is the full-strength move at Random moves: "${said}"`);
    }
    await page.click('#new');
    await waitForTurn(page);
    check((await page.textContent('#hint')) === '' && (await page.$$eval('.target.hinted', (els) => els.length)) === 0, 'a new game clears the last position\'s hint');
    const flowStart = await board(page, 'start');
    await page.click('#hint-move');
    await page.waitForFunction(() => document.querySelector('#hint').textContent.startsWith('Hint'), null, { timeout: HANG });
    const hinted = (await page.textContent('#hint')).match(/play (\S+)/)[1];
    check((await board(page, 'legal')).split(' ').includes(hinted) && (await board(page, 'moves')) === ''
      && (await page.$$eval('.target.hinted', (els) => els.length)) >= 2, `a hint shows the engine's move (${hinted}) and plays nothing`);
    // The engine's random replies (the tab seeds them afresh) end the
    // game within four plies now and then (40 of the 28,278 four-ply
    // lines do): start again until a game goes on, as a person would.
    for (let attempt = 1; ; attempt++) {
      await clickMove(page, 'safari-dual', 0);
      await clickMove(page, 'safari-dual', 1);
      await waitForTurn(page);
      if ((await board(page, 'turn')) !== 'over') break;
      check(attempt < 20, 'a game going on after four plies within 20 tries');
      if (attempt >= 20) break;
      await page.click('#new');
      await waitForTurn(page);
    }
    const four = (await board(page, 'moves')).split(' ');
    await page.click('#moves li:first-child');
    check((await board(page, 'shown')) === engineNotation('safari-dual', {}, flowStart, four[0]), 'a move clicked in the list shows the position after it');
    await page.keyboard.press('ArrowRight');
    check((await board(page, 'shown')) === engineNotation('safari-dual', {}, flowStart, four.slice(0, 2).join(' ')), 'the right arrow steps forward');
    await page.keyboard.press('Home');
    check((await board(page, 'shown')) === engineNotation('safari-dual', {}, flowStart, ''), 'Home shows the start');
    await shot(page, 'stepping-back');
    await page.keyboard.press('End');
    check((await board(page, 'shown')) === (await board(page, 'notation')) && (await board(page, 'moves')) === four.join(' '),
      'End returns to the game, which went on unchanged');
    await page.click('#undo');
    await waitForTurn(page);
    check((await board(page, 'moves')) === four.slice(0, 2).join(' '), 'undo takes back a move pair');
    await page.click('#redo');
    await page.waitForFunction((m) => document.querySelector('#board').dataset.moves === m, four.join(' '), { timeout: HANG });
    await waitForTurn(page);
    check((await board(page, 'moves')) === four.join(' ') && (await page.isHidden('#redo')), 'redo plays them again');
    await page.click('#resign');
    check((await page.textContent('#status')) === 'You resigned: Angular wins' && !(await page.isHidden('#over')),
      `resigning ends the game, in words, with the end panel: "${await page.textContent('#status')}"`);
    const keptStatus = await page.evaluate(() => JSON.parse(localStorage.getItem('menagerie-board-game')).status);
    check(keptStatus === 'resigned', `a resigned game is kept as over, never offered to play on (${keptStatus})`);
    const record = await page.inputValue('#game-text');
    const lines = record.split('\n');
    check(lines[0] === '# menagerie game record 1' && lines.includes('# result: win a (resigned)') && lines.includes('newgame safari-dual')
      && lines.includes(`position fen ${flowStart} moves ${four.join(' ')}`), `the end panel's game record names the game, its moves and the resignation: ${JSON.stringify(record)}`);
    // The record as it is, piped into the engine.
    const replayed = execFileSync(path.join(bin, 'menagerie'), [], { input: `${record}\nd\nquit\n`, encoding: 'utf8' });
    check(replayed.includes(`Notation: ${await board(page, 'notation')}`) && !replayed.includes('error'), `which the engine replays as it is to the same position: ${replayed.split('\n').slice(-4).join(' | ')}`);
    await shot(page, 'game-over-panel');
    await page.click('#over-new');
    check(await page.evaluate(() => document.activeElement.id === 'game'), 'Another game leads to the game menu');
    await page.click('#switch');
    await waitForTurn(page);
    check((await page.inputValue('#human')) === 'a' && (await board(page, 'turned')) === 'yes'
      && (await board(page, 'moves')).split(' ').filter(Boolean).length === 1 && (await board(page, 'turn')) === 'human',
      'switch sides: a new game, the person playing Angular with the board turned, the engine opened');
    await shot(page, 'turned-board');
    await page.click('#resign');
    await page.click('#rematch');
    await waitForTurn(page);
    check((await page.inputValue('#human')) === 'a' && (await board(page, 'moves')).split(' ').filter(Boolean).length === 1,
      'a rematch keeps the seats');
    // Engine versus engine: Stop, Step, Play on.
    await page.selectOption('#human', '');
    await page.waitForFunction(() => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length >= 3, null, { timeout: HANG });
    await page.click('#stop');
    await page.waitForSelector('#step:not([hidden])', { timeout: HANG });
    const stopped = (await board(page, 'moves')).split(' ').filter(Boolean).length;
    await page.click('#step');
    await page.waitForSelector('#step:not([hidden])', { timeout: HANG });
    const stepped = (await board(page, 'moves')).split(' ').filter(Boolean).length;
    check(stepped === stopped + 1 || (await board(page, 'turn')) === 'over', `Stop holds the engines, Step plays one move (${stopped} -> ${stepped})`);
    await page.click('#play-on');
    await page.waitForFunction((n) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length >= n + 2
      || document.querySelector('#board').dataset.turn === 'over', stepped, { timeout: HANG });
    check(true, 'Play on lets the engines go on');
    // Stop, unless the engines ended the game meanwhile (then it is gone):
    // looked at and clicked in one step inside the page.
    await page.evaluate(() => { const stop = document.querySelector('#stop'); if (!stop.hidden) stop.click(); });
    await page.waitForSelector('#step:not([hidden]), #over:not([hidden])', { timeout: HANG });
    // Undo between engines takes back one move, not the whole game, and
    // the engines wait.
    if (!(await page.isHidden('#step'))) {
      const played = (await board(page, 'moves')).split(' ').filter(Boolean);
      await page.click('#undo');
      await page.waitForFunction((n) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length < n, played.length, { timeout: HANG });
      await page.waitForSelector('#step:not([hidden])', { timeout: HANG });
      const left = (await board(page, 'moves')).split(' ').filter(Boolean);
      check(left.length === played.length - 1 && !(await page.isHidden('#step')),
        `Undo between engines takes back one move and the engines wait (${played.length} -> ${left.length})`);
    }
    // Two people at one board: every seat is a person's.
    await page.selectOption('#human', '*');
    await page.click('#new');
    await waitForTurn(page);
    // Every status the live region is given while a person moves: no
    // engine thinks at one board, so none may say so.
    await page.evaluate(() => {
      window.statusSeen = [];
      new MutationObserver(() => window.statusSeen.push(document.querySelector('#status').textContent))
        .observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true });
    });
    await clickMove(page, 'safari-dual', 0);
    const statusSeen = await page.evaluate(() => window.statusSeen);
    check(statusSeen.length > 0 && !statusSeen.some((t) => t.includes('thinking')), `at one board the status never says an engine thinks (${statusSeen.length} updates)`);
    check((await board(page, 'turn')) === 'human' && (await board(page, 'moves')).split(' ').filter(Boolean).length === 1,
      'people at one board: after one person\'s move it is the other person\'s turn, the engine plays nothing');
    // With dice, at one board: the roll is said by seat, focus goes on to
    // the board after Roll, the Tab stop is a piece, and stepping back
    // counts moves, not rolls, and steps from the board's keys too.
    await page.selectOption('#game', 'kilkenny-cats');
    await page.selectOption('#opt-players', '2');
    await page.selectOption('#human', '*');
    await page.click('#new');
    await waitForTurn(page);
    const stop = await page.$eval('#board .target[tabindex="0"]', (e) => e.closest('[data-point]').dataset.point);
    const stopPiece = await page.$eval(`[data-point="${stop}"]`, (g) => g.dataset.piece || '');
    check(stopPiece !== '', `the board's Tab stop is on a piece (${stop})`);
    for (let turn = 0; turn < 2; turn++) {
      const side = await page.evaluate(() => window.menagerie.state.side);
      await page.focus('#roll');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => !document.querySelector('#board').dataset.legal.startsWith('r1'), null, { timeout: HANG });
      await waitForTurn(page);
      const said = await page.textContent('#announce');
      const name = side === 's' ? 'South' : 'North';
      check(said.startsWith(`${name} rolled `), `at one board the roll is said by seat: "${said}"`);
      const focusedIn = await page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('#board')));
      check(focusedIn, 'after Roll the focus is on the board');
      await clickMove(page, 'kilkenny-cats', 0);
    }
    await page.click('#moves li:first-child');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const counted = await page.textContent('#status');
    check(/after move 1 of 2 /.test(counted), `stepping back counts moves, not rolls: "${counted}"`);
    await page.focus('#board .target[tabindex="0"]');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    check((await board(page, 'shown')) === (await board(page, 'start')), 'with the board focused, the left arrow steps back through the moves');
    await page.keyboard.press('End');
    check(!(await page.textContent('#status')).startsWith('Looking'), 'End at the board returns to the game');
    await page.selectOption('#game', 'safari-dual');
    await page.selectOption('#human', '*');
    await page.click('#new');
    await waitForTurn(page);
    await page.uncheck('#show-eval');
    check(await page.isHidden('#thinking'), "the engine's view can be hidden");
    await page.check('#show-eval');
    await page.selectOption('#human', 'r');
    await page.click('#new');
    await waitForTurn(page);

    await page.selectOption('#strength', '0');
    await page.selectOption('#game', 'safari-dual');
    await page.click('#new');
    await waitForTurn(page);
    check(await clickMove(page, 'safari-dual', 0), 'at random strength the engine answers');
    const verdict = await page.textContent('#thinking .verdict');
    check(/about even|ahead|behind|win|lose|lost|Solved/i.test(verdict) && !/score|cp /.test(await page.textContent('#thinking')),
      `the engine's view in words: "${verdict}"`);
    check((await page.textContent('#howto-text')).includes("Angular's giraffe"), 'the legend names the pieces');
    await page.selectOption('#strength', '20');
    check(!(await page.textContent('#message')), 'changing the strength raises no error');

    // A phone: the board fits the screen.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    phone.setDefaultTimeout(HANG);
    await phone.goto(`http://127.0.0.1:${port}/`);
    await waitForTurn(phone);
    for (const game of ['hat-diviyan-keliya', 'awithlaknannai-mosona', 'safari-dual', 'kilkenny-cats']) {
      await phone.selectOption('#game', game);
      await phone.click('#new');
      await waitForTurn(phone);
      // The board holds still: it fits when drawn and after every redraw
      // (a point chosen, the choice cleared), never waited into fitting.
      // Measured in one evaluation: a page redraw between finding the
      // board and measuring it (as $eval may do) would measure a detached
      // drawing, 0 px wide.
      const widthNow = () => phone.evaluate(() => {
        const box = document.querySelector('#board svg').getBoundingClientRect();
        return box.left >= 0 ? Math.round(box.width) : Infinity;
      });
      const widths = [await widthNow()];
      const starts = (await board(phone, 'legal')).split(' ').filter((m) => m && !m.startsWith('r') && m !== 'pass');
      if ((await board(phone, 'turn')) === 'human' && starts.length) {
        await phone.focus(`[data-point="${clickPath(starts[0])[0]}"] .target`);
        await phone.keyboard.press('Enter');
        widths.push(await widthNow());
        await phone.keyboard.press('Escape');
        widths.push(await widthNow());
      }
      const fits = widths.every((w) => w > 0 && w <= 390);
      if (!fits) await shot(phone, `phone-${game}-too-wide`);
      check(fits, `${game}: on a phone the board fits the screen and holds still (${widths.join(', ')} px wide)`);
      await phone.click('#zoom');
      const sizes = await phone.evaluate(() => [...document.querySelectorAll('#board .target')]
        .map((e) => [Number(e.getBoundingClientRect().width.toFixed(1)), e.closest('[data-point]').dataset.point])
        .sort((a, b) => a[0] - b[0]));
      const smallest = sizes.length ? sizes[0][0] : 0;
      check(sizes.length > 0 && smallest >= 44,
        `${game}: zoomed on a phone every point is a 44 px target (${sizes.length ? `${smallest} px at ${sizes[0][1]}` : 'no point drawn'})`);
      await shot(phone, `phone-${game}-zoomed`);
      await phone.click('#zoom');
      // No page scrolls sideways, whatever ruleset the menus show (their
      // choices carry long help texts).
      const choices = await phone.$$eval('#options select', (els) => els.map((e) => [e.id, [...e.options].map((o) => o.value)]));
      const wide = [];
      for (const [id, values] of choices) {
        for (const value of values) {
          await phone.selectOption(`#${id}`, value);
          const width = await phone.evaluate(() => document.documentElement.scrollWidth);
          if (width > 390) wide.push(`${id}=${value}: ${width} px`);
        }
        await phone.selectOption(`#${id}`, values[0]);
      }
      const pageWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
      if (wide.length || pageWidth > 390) await shot(phone, `phone-${game}-page-too-wide`);
      check(!wide.length && pageWidth <= 390, `${game}: at 390 px the page never scrolls sideways (${pageWidth} px${wide.length ? '; ' + wide.join(', ') : ''})`);
      const menuFont = await phone.$eval('#game', (e) => parseFloat(getComputedStyle(e).fontSize));
      check(menuFont >= 16, `${game}: menus in 16 px on a phone (${menuFont} px), so it does not zoom into them`);
      const legal = (await board(phone, 'legal')).split(' ');
      if ((await board(phone, 'turn')) === 'human' && !legal[0].startsWith('r')) {
        check(await clickMove(phone, game, 0), `${game}: a move played on a phone`);
      }
      await shot(phone, `phone-${game}`);
      await axeCheck(phone, `${game} on a phone`);
    }
    await closePage(phone);
    const icon = await page.evaluate(async () => (await fetch('/favicon.ico')).status);
    check(icon === 200, 'a favicon is served');

    // Seven tabs in one browser profile (the first page holds the eighth
    // of --max-sessions): each keeps one WebSocket, which the browser's
    // six HTTP connections to a host do not count, so every board stays
    // live, the first one included.
    const profile = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    profile.setDefaultTimeout(HANG);
    const tabs = [];
    for (let i = 0; i < 7; i++) {
      const tab = await profile.newPage();
      await tab.goto(`http://127.0.0.1:${port}/`);
      await waitForTurn(tab);
      tabs.push(tab);
    }
    check(tabs.length === 7, 'seven tabs of one browser, more than its six connections, each have a live board');
    for (const tab of tabs) {
      check(await clickMove(tab, 'hat-diviyan-keliya', 0), 'every one of the seven tabs plays a move and its engine answers');
    }
    await page.selectOption('#game', 'hat-diviyan-keliya');
    await page.click('#new');
    await waitForTurn(page);
    check(await clickMove(page, 'hat-diviyan-keliya', 0), 'with seven more tabs open the first page still plays');
    await shot(tabs[6], 'seventh-tab');
    await profile.close();

    // Ruleset options and the large board.
    await playGame(page, 'hat-diviyan-keliya', { start: 'apex', board: 'large' }, 2);
    check(pageErrors.length === 0, `no script errors on the page ${pageErrors.join('; ')}`);

    // A tab beyond the server's places never stays a dead "Starting…"
    // page: it says it could not start, and why.
    {
      const { server: small, port: smallPort } = await startServer(['--max-sessions', '1']);
      const first = await mainProfile.newPage();
      await first.goto(`http://127.0.0.1:${smallPort}/`);
      await waitForTurn(first);
      const extra = await mainProfile.newPage();
      await extra.goto(`http://127.0.0.1:${smallPort}/`);
      await extra.waitForFunction(() => !document.querySelector('#message').hidden, null, { timeout: HANG });
      const said = await extra.textContent('#status');
      check(said.startsWith('The board could not start: ') && (await extra.isDisabled('#new')), `a tab the server has no place for says so: "${said}"`);
      await shot(extra, 'refused-tab');
      await closePage(extra);
      await closePage(first);
      small.kill();
    }

    // The server goes away: the page says so.
    await page.selectOption('#game', 'safari-dual');
    await page.selectOption('#human', 'r');
    await waitForTurn(page);
    server.kill();
    await page.waitForFunction(() => document.querySelector('#message').textContent.includes('server'), null, { timeout: HANG });
    check(true, 'a stopped server is reported');
    await shot(page, 'server-gone');
    // A move that cannot be sent is not played on the page.
    const unsent = (await board(page, 'legal')).split(' ')[0];
    const movesBefore = await board(page, 'moves');
    for (const point of clickPath(unsent)) await page.click(`[data-point="${point}"] .target`);
    await waitForTurn(page);
    check((await board(page, 'moves')) === movesBefore && !(await page.textContent('#moves')).includes(unsent),
      `a move that could not be sent is not listed (${unsent})`);
    const goneSaid = await page.textContent('#message');
    check(goneSaid.includes('server has stopped') && !goneSaid.includes('Failed to fetch'), `the message stays the server's, not a fetch error: "${goneSaid}"`);
    check((await page.isHidden('#hint-move')) && (await page.isHidden('#resign')), 'with the server gone, Hint and Resign are not offered');
  } finally {
    await browser.close();
    server.kill();
  }
  finish();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
