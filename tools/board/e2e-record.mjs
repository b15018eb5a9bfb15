// End-to-end test of the board's game record, links, analysis and comfort:
// a record exported, replayed by `menagerie` as it is, imported from a
// paste and a file (all or nothing), a link to a game and to a position,
// the evaluation graph, a variation played and left, sounds (and their
// default under reduced motion), dark mode at 4.5:1 for every letter, and
// a larger board on a wide screen that keeps its size from move to move.
//
//   node tools/board/e2e-record.mjs      (after cargo build --release)
//
// Environment as tools/board/e2e.mjs.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  HANG, bin, check, board, waitForTurn, clickPath, axeCheck, closePage, shot, openBoard, startServer, launchBrowser, letterContrasts, finish,
} from './e2e-common.mjs';

const moveCount = async (page) => (await board(page, 'moves')).split(' ').filter(Boolean).length;

/** The engine's own answer to a record piped in as it is. */
function replay(record) {
  return execFileSync(path.join(bin, 'menagerie'), [], { input: `${record}\nd\nquit\n`, encoding: 'utf8' });
}

/** Opens a text (record, position line or notation) through the page's
 * field, and waits until the page has set it up. */
async function openText(page, text) {
  await page.fill('#paste', text);
  // The page is busy from the click until the game is set up (or refused).
  await page.click('#set');
  await page.waitForFunction(() => !window.menagerie.state.busy, null, { timeout: HANG });
}

/** Waits for the page to show `n` moves with nothing in hand. */
async function waitForMoves(page, n) {
  try {
    await page.waitForFunction((k) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length === k
      && !window.menagerie.state.busy, n, { timeout: HANG });
  } catch (e) {
    const seen = await page.evaluate(() => ({ ...document.querySelector('#board').dataset, status: document.querySelector('#status').textContent,
      message: document.querySelector('#message').textContent, hint: document.querySelector('#hint').textContent, busy: window.menagerie.state.busy,
      paused: window.menagerie.state.paused, human: [...window.menagerie.state.human], menu: document.querySelector('#human').value }));
    throw new Error(`waiting for ${n} moves: ${JSON.stringify(seen)}`);
  }
}

const HDK_END = [
  '# menagerie game record 1',
  '# result: win l (tiger-trapped)',
  'newgame hat-diviyan-keliya start=ludovici board=small',
  'position fen 1/L2/L2/T1L l 0 1 3 moves @b4',
].join('\n');

async function records(page) {
  // A finished game, pasted: the page shows the rules' result, and its own
  // record says the same as the one pasted; the engine agrees.
  await openText(page, HDK_END);
  await waitForMoves(page, 1);
  check((await board(page, 'turn')) === 'over' && (await page.textContent('#status')).includes('the tiger cannot move'),
    `a pasted record opens its game, over as the rules say: "${await page.textContent('#status')}"`);
  const exported = await page.inputValue('#record');
  const body = (text) => text.split('\n').filter((l) => !/^# (date|seats):/.test(l)).join('\n');
  check(body(exported) === HDK_END, `the page's record is the one opened (date and seats aside): ${JSON.stringify(exported)}`);
  const engine = replay(exported);
  check(engine.includes('info string game over: win l (tiger-trapped)') && !engine.includes('error'),
    'menagerie replays the record as it is and says the result the record names');
  await shot(page, 'record-opened');

  // A game with rolls, played on the page: its record replays to the same
  // position in the engine.
  await page.selectOption('#game', 'kilkenny-cats');
  await page.selectOption('#opt-players', '2');
  await page.selectOption('#human', '');
  await page.waitForFunction(() => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length >= 6, null, { timeout: HANG });
  await page.click('#stop');
  await page.waitForSelector('#play-on:not([hidden]), #over:not([hidden])', { timeout: HANG });
  const kc = await page.inputValue('#record');
  const kcMoves = (kc.match(/ moves (.*)$/m) || ['', ''])[1].split(' ');
  check(kcMoves.some((m) => /^r[1-6]$/.test(m)) && kc.includes('newgame kilkenny-cats players=2'),
    `the record of a game with dice holds its rolls and ruleset: ${kc.split('\n').slice(-1)[0].slice(0, 80)}…`);
  check(replay(kc).includes(`Notation: ${await board(page, 'notation')}`), 'menagerie replays it to the position on the page');

  // All or nothing: a record with an illegal move leaves the game as it was.
  const before = await board(page, 'moves');
  await openText(page, 'newgame safari-dual\nposition startpos moves c1d1 zz9');
  const said = await page.textContent('#message');
  check(said.includes("'zz9'") && (await board(page, 'moves')) === before && (await page.inputValue('#game')) === 'kilkenny-cats',
    `a record with a bad move is refused, naming it, and the game before stays: "${said}"`);
  await openText(page, 'newgame chess\nposition startpos');
  check((await page.textContent('#message')).includes("'chess'") && (await board(page, 'moves')) === before, 'a record of an unknown game is refused');

  // From a file: the game and ruleset change to the record's.
  await page.setInputFiles('#open-file', { name: 'game.txt', mimeType: 'text/plain', buffer: Buffer.from(`${kc}\n`) });
  await waitForMoves(page, kcMoves.length);
  check((await board(page, 'moves')) === kcMoves.join(' ') && (await page.inputValue('#opt-players')) === '2',
    'a record opened from a file sets up its game, moves and rolls');
}

async function links(browser, page) {
  await page.selectOption('#human', 's');
  await openText(page, 'newgame safari-dual\nposition startpos');
  for (let i = 0; i < 2; i++) {
    const legal = (await board(page, 'legal')).split(' ');
    const n = await moveCount(page);
    for (const point of clickPath(legal[0])) await page.click(`[data-point="${point}"] .target`);
    await waitForMoves(page, n + 2);
  }
  const game = { moves: await board(page, 'moves'), notation: await board(page, 'notation') };
  await page.click('#link-game');
  const gameLink = await page.inputValue('#link');
  // The position after the first move, chosen in the list.
  await page.click('#moves li >> nth=0');
  const shown = await board(page, 'shown');
  await page.click('#link-position');
  const positionLink = await page.inputValue('#link');
  await page.click('#moves li >> nth=-1');
  const other = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  await other.goto(gameLink);
  await waitForTurn(other);
  await other.waitForFunction((m) => document.querySelector('#board').dataset.moves === m, game.moves, { timeout: HANG });
  check((await board(other, 'notation')) === game.notation && !(await other.evaluate(() => location.hash)),
    `a link to the game opens it, moves and all, and leaves the address clean (${gameLink.slice(gameLink.indexOf('#'), gameLink.indexOf('#') + 40)}…)`);
  await other.goto(positionLink);
  await other.waitForFunction(() => document.querySelector('#board').dataset.moves === '' && document.querySelector('#board').dataset.start !== '', null, { timeout: HANG });
  await other.waitForFunction(() => !window.menagerie.state.busy, null, { timeout: HANG });
  const start = await board(other, 'start');
  check(start === shown && (await board(other, 'game')) === 'safari-dual', `a link to a position opens that position: ${start}`);
  await closePage(other);
}

async function analysis(page) {
  // Safari-Dual, four moves: one line (the first seat's view). At the
  // weakest strength the analysis is still the engine's best.
  await page.selectOption('#strength', '0');
  await page.evaluate(() => {
    const engine = window.menagerie.engine;
    const exchange = engine.exchange.bind(engine);
    window.sentLines = [];
    engine.exchange = (lines, ...rest) => { window.sentLines.push(...lines); return exchange(lines, ...rest); };
  });
  await page.click('#analyse');
  await page.waitForFunction(() => /The engine's view/.test(document.querySelector('#analysis-status').textContent), null, { timeout: HANG });
  const plies = await moveCount(page);
  check(Number(await page.getAttribute('#graph', 'data-points')) === plies + 1 && (await page.$$eval('#graph .graph-line', (e) => e.length)) === 1,
    `the graph has a value for each of the ${plies + 1} positions, one line at two seats`);
  const sent = await page.evaluate(() => window.sentLines.filter((l) => /^go |Skill/.test(l)));
  const firstGo = sent.findIndex((l) => l.startsWith('go '));
  const lastGo = sent.length - 1 - [...sent].reverse().findIndex((l) => l.startsWith('go '));
  check(firstGo > 0 && sent[firstGo - 1].endsWith('Skill value 20') && sent.slice(lastGo).some((l) => l.endsWith('Skill value 0')),
    `the analysis searches at full strength and gives the chosen strength back: ${sent.filter((l) => /Skill/.test(l)).join(', ')}`);
  await page.selectOption('#strength', '20');
  await page.waitForFunction(() => !window.menagerie.state.busy, null, { timeout: HANG });
  // A click through the locator: it scrolls the graph into view first.
  // The page's height follows the game's moves (a capture's line wraps),
  // and a click at raw page coordinates below the window hits nothing.
  const graph = page.locator('#graph svg');
  const r = await graph.boundingBox();
  await graph.click({ position: { x: 6, y: r.height / 2 } });
  check((await board(page, 'shown')) === (await board(page, 'start')), 'a click at the graph\'s left edge shows the start');
  await shot(page, 'analysis-graph');

  // Three seats, a game to its end: a line per seat, the winner's at the top.
  await openText(page, [
    'newgame kilkenny-cats players=3',
    'position fen 14/14/14/14/14/14/14/14/14/14/3N10/3S10/14/14 s 1 swn -------- 0',
  ].join('\n'));
  await page.selectOption('#human', '');
  await page.waitForSelector('#over:not([hidden])', { timeout: HANG });
  await page.click('#over-analyse');
  const plies3 = await moveCount(page);
  await page.waitForFunction((n) => /The engine's view/.test(document.querySelector('#analysis-status').textContent)
    && document.querySelector('#graph').dataset.points === String(n + 1), plies3, { timeout: HANG });
  const lines = await page.$$eval('#graph .graph-line', (e) => e.map((l) => [l.dataset.seat, l.getAttribute('points').split(' ').pop()]));
  const winner = (await page.evaluate(() => window.menagerie.state.status)).split(' ')[1];
  const top = lines.find(([s]) => s === winner);
  check(lines.length === 3 && top && Number(top[1].split(',')[1]) < 10, `a line per seat at three seats, the winner (${winner}) ending at the top: ${JSON.stringify(lines)}`);
  check(/Evaluation graph/.test(await page.getAttribute('#graph svg', 'aria-label')), 'the graph is labelled for screen readers');
  await axeCheck(page, 'the analysis panel');
}

async function variations(page) {
  // The first seat here, so the first seat (Round) in the next game.
  await page.selectOption('#human', 's');
  await openText(page, 'newgame safari-dual\nposition startpos');
  check((await page.inputValue('#human')) === 'r' && (await moveCount(page)) === 0, 'a record opened keeps the person\'s place in the turn order');
  for (let i = 0; i < 2; i++) {
    const n = await moveCount(page);
    const legal = (await board(page, 'legal')).split(' ');
    for (const point of clickPath(legal[i])) await page.click(`[data-point="${point}"] .target`);
    await waitForMoves(page, n + 2);
  }
  const main = await board(page, 'moves');
  // Back to the position after two moves, from the list.
  await page.click('#moves li >> nth=1');
  await page.click('#play-here');
  await waitForMoves(page, 2);
  check(!(await page.isHidden('#variation')) && (await board(page, 'moves')) === main.split(' ').slice(0, 2).join(' '),
    'Play from here starts a variation at the position shown, the game kept');
  const legal = (await board(page, 'legal')).split(' ');
  const other = legal.find((m) => m !== main.split(' ')[2]);
  for (const point of clickPath(other)) await page.click(`[data-point="${point}"] .target`);
  await waitForMoves(page, 4);
  check((await page.$$eval('#moves li[data-variation]', (e) => e.length)) === 2 && (await page.inputValue('#record')).includes(`moves ${main}`),
    `the variation's moves are marked in the list, and the record stays the game's (${other})`);
  await shot(page, 'variation');
  await page.click('#back-to-game');
  await page.waitForFunction((m) => document.querySelector('#board').dataset.moves === m, main, { timeout: HANG });
  check(await page.isHidden('#variation'), 'Back to the game puts the game back as it was');
}

async function sounds(browser, page, port) {
  // Sounds on by default here; a move and a capture each make theirs.
  check(await page.isChecked('#sounds'), 'sounds are on by default');
  await openText(page, '4l/5/Eg1E1/4G/L3G r 0');
  await page.evaluate(() => { document.body.dataset.sounds = ''; });
  for (const point of clickPath('d3c3')) await page.click(`[data-point="${point}"] .target`);
  await waitForMoves(page, 2);
  const heard = await page.getAttribute('body', 'data-sounds');
  check(/^capture( move| end)?$/.test(heard), `a capture and the engine's answer make their sounds: "${heard}"`);
  // Reduced motion: off by default, nothing played.
  const quiet = await browser.newContext({ viewport: { width: 1100, height: 800 }, reducedMotion: 'reduce' });
  const calm = await quiet.newPage();
  await calm.goto(`http://127.0.0.1:${port}/`);
  await waitForTurn(calm);
  check(!(await calm.isChecked('#sounds')), 'sounds are off by default where the system asks for reduced motion');
  const legal = (await board(calm, 'legal')).split(' ');
  for (const point of clickPath(legal[0])) await calm.click(`[data-point="${point}"] .target`);
  await waitForMoves(calm, 2);
  check(!(await calm.getAttribute('body', 'data-sounds')), 'and no sound is played there');
  // The person's choice is kept.
  await calm.check('#sounds');
  await calm.reload();
  await waitForTurn(calm);
  check(await calm.isChecked('#sounds'), 'a choice of sounds is kept after a reload');
  await closePage(calm);
  await quiet.close();
}

const GAMES = [
  ['hat-diviyan-keliya', { board: 'large' }],
  ['awithlaknannai-mosona', {}],
  ['safari-dual', {}],
  ['kilkenny-cats', { players: '4' }],
];

async function setUp(page, game, options) {
  await page.selectOption('#game', game);
  for (const [key, value] of Object.entries(options)) await page.selectOption(`#opt-${key}`, value);
  await page.waitForFunction((g) => document.querySelector('#board').dataset.game === g && !window.menagerie.state.busy, game, { timeout: HANG });
  await waitForTurn(page);
}

async function darkMode(browser, port) {
  for (const viewport of [{ width: 1100, height: 800 }, { width: 390, height: 844 }]) {
    const context = await browser.newContext({ viewport, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await waitForTurn(page);
    const ground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    check(ground !== 'rgb(244, 241, 234)', `dark mode follows the system (${ground})`);
    for (const [game, options] of GAMES) {
      await setUp(page, game, options);
      // A move on the board, so that the last move's ring is measured.
      if ((await board(page, 'turn')) === 'human' && !(await board(page, 'legal')).startsWith('r1')) {
        const n = await moveCount(page);
        for (const point of clickPath((await board(page, 'legal')).split(' ')[0])) await page.click(`[data-point="${point}"] .target`);
        await page.waitForFunction((k) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length > k, n, { timeout: HANG });
        await waitForTurn(page);
      }
      const measured = await letterContrasts(page);
      const faint = measured.filter(([, r, needed]) => r < needed).map(([what, r]) => `${what} ${r.toFixed(2)}:1`);
      check(measured.length >= 2 && faint.length === 0, `dark mode, ${game} at ${viewport.width} px: every letter and mark readable (${measured.length} measured; ${faint.join(', ') || 'none fainter'})`);
      await axeCheck(page, `dark mode, ${game} at ${viewport.width} px`);
      await shot(page, `dark-${game}-${viewport.width}`);
    }
    await closePage(page);
    await context.close();
  }
}

async function wideBoard(browser, port) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await waitForTurn(page);
  const size = () => page.evaluate(() => {
    const svg = document.querySelector('#board svg');
    return { drawn: Math.round(svg.getBoundingClientRect().width), layout: Number(svg.getAttribute('width')), page: document.documentElement.scrollWidth };
  });
  for (const [game, options] of GAMES) {
    await setUp(page, game, options);
    const first = await size();
    if ((await board(page, 'turn')) === 'human' && !(await board(page, 'legal')).startsWith('r1')) {
      const n = await moveCount(page);
      for (const point of clickPath((await board(page, 'legal')).split(' ')[0])) await page.click(`[data-point="${point}"] .target`);
      await page.waitForFunction((k) => document.querySelector('#board').dataset.moves.split(' ').filter(Boolean).length > k, n, { timeout: HANG });
      await waitForTurn(page);
    }
    const after = await size();
    check(first.drawn > first.layout && first.page <= 1600 && after.drawn === first.drawn,
      `a wide screen draws ${game}'s board larger (${first.drawn} px for ${first.layout}), within the page, the same after a move (${after.drawn})`);
    await shot(page, `wide-${game}`);
  }
  await closePage(page);
  await context.close();
}

async function main() {
  const { server, port } = await startServer();
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const { page, pageErrors } = await openBoard(context, port);
    const began = Date.now();
    const section = async (name, run) => {
      await run();
      console.log(`# ${name} done at ${((Date.now() - began) / 1000).toFixed(1)} s`);
    };
    await section('records', () => records(page));
    await section('links', () => links(browser, page));
    await section('analysis', () => analysis(page));
    await section('variations', () => variations(page));
    await section('sounds', () => sounds(browser, page, port));
    await section('dark mode', () => darkMode(browser, port));
    await section('wide board', () => wideBoard(browser, port));
    check(pageErrors.length === 0, `no script errors on the page ${pageErrors.join('; ')}`);
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
