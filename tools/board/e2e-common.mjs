// What the browser tests share (tools/board/e2e.mjs, e2e-record.mjs): the
// verdicts, the server and browser they start, waits on the page's own
// state, axe-core and contrast measurements, screenshots.

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = process.env.MENAGERIE_BIN || path.join(root, 'target', 'release');
export const out = process.env.E2E_OUT || path.join(root, 'target', 'board-e2e');
mkdirSync(out, { recursive: true });

// A deadline against a hang, never what a verdict waits for: every wait
// here ends on the event it waits for (a move shown, a turn, a message),
// and only a page or engine that never gets there meets this. On a busy
// machine (a clean-clone CI beside four CPU hogs) a wait of 10 s was met
// by a page that was merely slow.
export const HANG = 120000;

let failures = 0;
export function check(condition, what) {
  if (condition) {
    console.log(`ok - ${what}`);
  } else {
    failures++;
    console.log(`FAILED - ${what}`);
  }
}

/** Ends the test: its verdict is every check's. */
export function finish() {
  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}

/** The points a person clicks for a move: its start and each landing. */
export function clickPath(move) {
  const points = move.match(/[a-q]\d+/g) || [];
  if (move.startsWith('@') || points.length <= 2) return points;
  return [points[0], ...points.filter((_, i) => i > 0 && i % 2 === 0)];
}

export const board = (page, attr) => page.getAttribute('#board', `data-${attr}`);

export async function waitForTurn(page) {
  await page.waitForFunction(() => ['human', 'over'].includes(document.querySelector('#board').dataset.turn), null, { timeout: HANG });
}

/** Starts menagerie-board on a free port (E2E_ENGINE: the engine it runs). */
export async function startServer(extra = []) {
  const engineArgs = process.env.E2E_ENGINE ? ['--engine', process.env.E2E_ENGINE] : [];
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = spawn(path.join(bin, 'menagerie-board'), ['--port', String(port), '--movetime', '40', ...engineArgs, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    server.stderr.on('data', (d) => { said += d; process.stderr.write(d); });
    const started = await new Promise((resolve, reject) => {
      server.stdout.on('data', (d) => { if (String(d).includes('open http://')) resolve(true); });
      server.on('exit', (code) => (/in use/i.test(said) ? resolve(false) : reject(new Error(`menagerie-board exited with ${code}`))));
      setTimeout(() => reject(new Error('menagerie-board did not start')), HANG);
    });
    if (started) return { server, port };
  }
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page of the board in `context`, opened and set up, with the script
 * errors it shows collected (the test fails on any). */
export async function openBoard(context, port) {
  context.setDefaultTimeout(HANG);
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`http://127.0.0.1:${port}/`);
  await waitForTurn(page);
  return { page, pageErrors };
}

/** axe-core (a well-kept accessibility checker) on the page as it is:
 * no serious or critical finding. */
export async function axeCheck(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ path: path.join(root, 'tools', 'board', 'node_modules', 'axe-core', 'axe.min.js') });
  }
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => ['serious', 'critical'].includes(v.impact))
      .map((v) => `${v.id} (${v.nodes.length}: ${v.nodes.slice(0, 2).map((n) => n.target.join(' ')).join(', ')})`);
  });
  check(found.length === 0, `${what}: axe-core finds nothing serious or critical ${found.join('; ')}`);
}

/** Every letter drawn on the board against what it stands on (the
 * pieces' letters on the pieces, the mice's on the mice, the coordinates
 * and the last move's ring on the board), as [what, ratio, needed]:
 * WCAG AA's 4.5:1 for a letter, 3:1 for a mark. */
export function letterContrasts(page) {
  return page.evaluate(() => {
    const luminance = (color) => {
      const [r, g, b] = color.match(/\d+(\.\d+)?/g).slice(0, 3).map((v) => Number(v) / 255)
        .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => {
      const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    const fill = (e) => getComputedStyle(e).fill;
    const found = [];
    for (const g of document.querySelectorAll('#board g[data-piece]')) {
      const text = g.querySelector('.piece-label');
      const shape = g.querySelector('circle:not(.point):not(.target), polygon');
      if (text && shape) found.push([`${document.querySelector('#board').dataset.game === 'kilkenny-cats' ? 'cat' : 'piece'} ${g.dataset.piece}`, ratio(fill(text), fill(shape)), 4.5]);
    }
    const mice = [...document.querySelectorAll('#board rect.mouse')];
    for (const label of document.querySelectorAll('#board .mouse-label')) found.push([`mouse ${label.dataset.mouse}`, ratio(fill(label), fill(mice[0])), 4.5]);
    const ground = getComputedStyle(document.querySelector('#board svg')).backgroundColor;
    const coord = document.querySelector('#board .coord');
    if (coord) found.push(['coordinate', ratio(fill(coord), ground), 4.5]);
    const ring = document.querySelector('#board .last-point');
    if (ring) found.push(['last-move ring', ratio(getComputedStyle(ring).stroke, ground), 3]);
    return found;
  });
}

/** Closes a page after freeing its engine as the page's own pagehide
 * beacon would (Playwright's close does not wait for it), so that the
 * server's places are not held by pages already gone. */
export async function closePage(page) {
  await page.evaluate(() => fetch(`/api/session/${window.menagerie.engine.id}/close`, { method: 'POST' }).then((r) => r.status));
  await page.close();
}

/** A screenshot kept as a test artefact; one per feature checked. */
export async function shot(page, name) {
  await page.screenshot({ path: path.join(out, `${name}.png`) });
}
