// The board's engine: one engine process behind the server, spoken to
// line by line over a WebSocket (server-sent events as a fallback).
'use strict';

/** One engine process behind the server, spoken to line by line. */
class Engine {
  constructor(onExit, onGone) {
    this.onExit = onExit;
    this.onGone = onGone;
    this.waiters = [];
    this.queue = Promise.resolve();
  }

  async open() {
    const r = await fetch('/api/session', { method: 'POST' });
    if (!r.ok) throw new Error(await r.text());
    this.id = (await r.json()).id;
    this.listen();
  }

  /** The engine's lines over a WebSocket (a browser opens only six HTTP
   * connections to a host, and an event stream would hold one per tab);
   * after a dropped connection it resumes after the last event seen. */
  listen(after) {
    if (this.events) this.events.close();
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const query = after ? `after=${encodeURIComponent(after)}` : 'from=0';
    const socket = new WebSocket(`${scheme}://${location.host}/api/session/${this.id}/socket?${query}`);
    this.events = socket;
    socket.onmessage = (e) => {
      const event = JSON.parse(e.data);
      this.retries = 0;
      if (event.id) this.lastId = event.id;
      if (event.event === 'line') {
        this.line(event.data);
      } else if (event.event === 'restart') {
        // Lines before this event came from the engine that was replaced.
        this.exited = false;
        this.waiters = [];
        if (this.onRestarted) this.onRestarted();
      } else if (event.event === 'exit') {
        this.exited = true;
        this.fail(new Error(`the engine stopped (${event.data})`));
        this.onExit(event.data);
      }
    };
    // Whether the server is still there is found out by asking it; if it
    // is, the socket reconnects where it left off.
    socket.onclose = () => {
      if (this.events !== socket || this.exited) return;
      const gone = () => {
        this.fail(new Error('the server is gone'));
        this.onGone();
      };
      this.retries = (this.retries || 0) + 1;
      if (this.retries > 10) return gone();
      fetch('/api/config', { cache: 'no-store' })
        .then(() => setTimeout(() => { if (this.events === socket) this.listen(this.lastId); }, 300))
        .catch(gone);
    };
  }

  line(text) {
    const w = this.waiters[0];
    if (!w) return;
    w.lines.push(text);
    if (w.done(text)) {
      this.waiters.shift();
      w.resolve(w.lines);
    } else if (w.onLine) {
      w.onLine(text);
    }
  }

  fail(error) {
    for (const w of this.waiters) w.reject(error);
    this.waiters = [];
  }

  /** Sends lines and collects the replies up to the line `done` accepts. */
  exchange(lines, done, onLine) {
    const run = () => new Promise((resolve, reject) => {
      this.waiters.push({ lines: [], done, resolve, reject, onLine });
      fetch(`/api/session/${this.id}/send`, { method: 'POST', body: lines.join('\n') + '\n' })
        .then((r) => { if (!r.ok) return r.text().then((t) => { throw new Error(t); }); })
        .catch((e) => { this.fail(e); });
    });
    this.queue = this.queue.then(run, run);
    return this.queue;
  }

  /** Sends a control line (`stop`) at once, past the exchanges waiting:
   * the engine acts on it during a search (protocol.md, Order). */
  send(line) {
    return fetch(`/api/session/${this.id}/send`, { method: 'POST', body: line + '\n' }).catch(() => {});
  }

  /** Replaces the engine; resolves once the event stream has moved past
   * the old engine's lines, so no new exchange can be cleared by them. */
  async restart() {
    const restarted = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server did not restart the engine')), 10000);
      this.onRestarted = () => { clearTimeout(timer); this.onRestarted = null; resolve(); };
    });
    const r = await fetch(`/api/session/${this.id}/restart`, { method: 'POST' });
    if (!r.ok) throw new Error(await r.text());
    // A socket that closed after the engine stopped opens again.
    if (this.events.readyState !== WebSocket.OPEN) this.listen(this.lastId);
    await restarted;
    this.queue = Promise.resolve();
  }

  /** The engine draws a chance outcome and plays it; returns it. */
  async roll() {
    const lines = await this.exchange(['roll'], (l) => l.startsWith('rolled ') || l.startsWith('info string error: '));
    const last = lines[lines.length - 1];
    if (!last.startsWith('rolled ')) throw new Error(last.slice(19));
    return last.slice(7);
  }
}
