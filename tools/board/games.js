// The four games as the page draws them: layouts, pieces, letters, the
// rules in short; and the reading of a notation into pieces on points.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';

/** Points a move passes through: [{name}], drop flag. */
function movePoints(move) {
  return { drop: move.startsWith('@'), points: move.match(/[a-q]\d+/g) || [] };
}

/** Expands a board row ("3SS10") into cells (null = empty). */
function expandRow(row) {
  const cells = [];
  for (const m of row.matchAll(/(\d+)|([A-Za-z])/g)) {
    if (m[1]) for (let i = 0; i < Number(m[1]); i++) cells.push(null);
    else cells.push(m[2]);
  }
  return cells;
}

const name = (file, rank) => String.fromCharCode(97 + file) + rank;

const GAMES = {
  'hat-diviyan-keliya': {
    howto(options) {
      const large = options.board === 'large';
      const [tigers, leopards, captures] = large ? ['Two tigers', 'eight', 'three'] : ['One tiger', 'seven', 'four'];
      const start = options.start === 'apex'
        ? `The ${large ? 'tigers start on b1 and b2' : 'tiger starts on the apex, b1'}; the leopards move first, dropping one leopard per turn on an empty point, and once all ${leopards} are down they step along the lines.`
        : `The tiger player first places ${large ? 'both tigers, one per turn,' : 'the tiger'} on any point; the leopards are then dropped one per turn on empty points, and once all ${leopards} are down they step along the lines.`;
      return [
        `${tigers} against ${leopards} leopards. ${start}`,
        'A tiger steps along a line, or jumps a leopard next to it onto the empty point just beyond, in a straight line, capturing it. Capturing is never forced.',
        `The tigers win after ${captures} captures; the leopards win when no tiger can move. 100 plies (50 moves each) without a capture or drop end the game in a draw. @ in the move list is a drop.`,
      ];
    },
    optionHelp: {
      board: { small: 'ten points, one tiger, seven leopards', large: 'fifteen points, two tigers, eight leopards' },
      start: { ludovici: 'empty board: the tiger player places first', apex: 'a tiger on the apex: the leopards move first' },
    },
    legend: { T: 'the tiger', L: 'a leopard' },
    title: 'Hat Diviyan Keliya',
    seats: { t: 'Tiger', l: 'Leopards' },
    layout(options) {
      const rows = options.board === 'large' ? 5 : 4;
      const dx = 60, dy = 80, w = 2 * dx * (rows - 1) + 80, top = 40;
      const points = { b1: [w / 2, top] };
      const notationRows = [['b1']];
      for (let r = 2; r <= rows; r++) {
        const row = [];
        ['a', 'b', 'c'].forEach((f, i) => {
          points[f + r] = [w / 2 + (i - 1) * dx * (r - 1), top + (r - 1) * dy];
          row.push(f + r);
        });
        notationRows.push(row);
      }
      const lines = [];
      for (const f of ['a', 'b', 'c']) {
        let prev = 'b1';
        for (let r = 2; r <= rows; r++) { lines.push([prev, f + r]); prev = f + r; }
      }
      for (let r = 2; r <= rows; r++) lines.push(['a' + r, 'b' + r], ['b' + r, 'c' + r]);
      return { points, lines, notationRows, width: w, height: top * 2 + (rows - 1) * dy, radius: 20 };
    },
    piece(letter) {
      return letter === 'T' ? { fill: '#a8520c', text: 'T', color: '#fff' } : { fill: '#4a3b24', text: 'L', color: '#f2d36b' };
    },
    extra(fields) {
      const large = fields[0].split('/').length === 5;
      const onBoard = (fields[0].match(/L/g) || []).length;
      const captured = (large ? 8 : 7) - onBoard - Number(fields[3]);
      return `Tigers in hand: ${fields[2]}   Leopards in hand: ${fields[3]}   Leopards captured: ${captured} of ${large ? 3 : 4}`;
    },
  },

  'awithlaknannai-mosona': {
    howto(options) {
      const leap = options.leap === 'straight'
        ? 'Capture by leaping over an enemy neighbour to the empty point straight beyond it.'
        : 'Capture by leaping over an enemy neighbour to an empty point joined to it by a line, not back where you came from and not next to your start: the leap may turn, following the lines of the board.';
      const lines = options.board === 'plain' ? 'Only the middle row and the diagonals are lines.' : 'The three rows and the diagonals are lines.';
      const end = options.ending === 'count'
        ? '50 plies without a capture end the game: the side with more men wins (equal: a draw).'
        : '50 plies without a capture end the game in a draw.';
      return [
        `Twelve men each; only the centre point i2 is empty. A man steps to an empty neighbouring point along a line. ${lines}`,
        `${leap} A man that can leap again must, and the whole chain is one move. Capturing is forced${options.leap === 'straight' ? '.' : ": so White's only first move is f1g2i2, a leap over g2 onto the centre."}`,
        `Capture every enemy man to win; a side that cannot move loses. ${end}`,
      ];
    },
    optionHelp: {
      board: { lined: 'the outer rows are lines too', plain: 'the outer rows are not lines' },
      leap: { bent: 'a leap may turn along the lines', straight: 'a leap goes straight on' },
      ending: { draw: 'a draw after 50 plies without a capture', count: 'more men wins after 50 plies without a capture' },
    },
    legend: { W: 'a White man', B: 'a Black man' },
    title: 'Awithlaknannai Mosona',
    seats: { w: 'White', b: 'Black' },
    layout(options) {
      const dx = 34, ys = { 3: 40, 2: 110, 1: 180 }, points = {};
      const top = [], middle = [], bottom = [];
      for (let f = 0; f < 17; f++) {
        if (f % 2 === 0) { points[name(f, 2)] = [30 + f * dx, ys[2]]; middle.push(name(f, 2)); }
        else {
          points[name(f, 3)] = [30 + f * dx, ys[3]]; top.push(name(f, 3));
          points[name(f, 1)] = [30 + f * dx, ys[1]]; bottom.push(name(f, 1));
        }
      }
      const lines = [];
      for (let i = 0; i + 1 < middle.length; i++) lines.push([middle[i], middle[i + 1]]);
      for (let i = 0; i < 8; i++) {
        for (const outer of [top[i], bottom[i]]) lines.push([outer, middle[i]], [outer, middle[i + 1]]);
        if (options.board !== 'plain' && i + 1 < 8) lines.push([top[i], top[i + 1]], [bottom[i], bottom[i + 1]]);
      }
      return { points, lines, notationRows: [top, middle, bottom], width: 60 + 16 * dx, height: 220, radius: 14 };
    },
    piece(letter) {
      return letter === 'W' ? { fill: '#fbfaf5', text: '', color: '#000', stroke: '#333' } : { fill: '#222', text: '', color: '#fff' };
    },
    extra(fields) {
      const count = (letter) => (fields[0].match(new RegExp(letter, 'g')) || []).length;
      return `White pieces: ${count('W')}   Black pieces: ${count('B')}`;
    },
  },

  'safari-dual': {
    howto: [
      'Every piece steps one square in any direction to an empty square. The shaded corners are the lions\' bases.',
      'The piece that moves captures enemies caught in a line between it and a partner: elephant with elephant, giraffe with giraffe (even an enemy one), or its own lion with its own elephants and giraffes.',
      'Win by capturing the enemy lion or by moving your lion onto the enemy lion\'s base. 100 plies without a capture end the game in a draw.',
    ],
    legend: { L: 'Round\'s lion', E: 'Round\'s elephant', G: 'Round\'s giraffe', l: 'Angular\'s lion', e: 'Angular\'s elephant', g: 'Angular\'s giraffe' },
    title: 'Safari-Dual',
    seats: { r: 'Round', a: 'Angular' },
    layout() {
      const s = 70, points = {}, notationRows = [], squares = [];
      for (let rank = 5; rank >= 1; rank--) {
        const row = [];
        for (let f = 0; f < 5; f++) {
          const p = name(f, rank);
          points[p] = [20 + s / 2 + f * s, 20 + s / 2 + (5 - rank) * s];
          row.push(p);
          squares.push({ name: p, x: 20 + f * s, y: 20 + (5 - rank) * s, size: s, base: p === 'a1' || p === 'e5' });
        }
        notationRows.push(row);
      }
      return { points, lines: [], squares, notationRows, width: 40 + 5 * s, height: 40 + 5 * s, radius: 24 };
    },
    piece(letter) {
      const round = letter === letter.toUpperCase();
      return { fill: round ? '#c0392b' : '#2c6e99', text: letter.toUpperCase(), color: '#fff', shape: round ? 'circle' : 'diamond' };
    },
  },

  'kilkenny-cats': {
    howto: [
      'Roll the die, then move one cat exactly that many squares in a straight line, over empty squares only. Landing on an enemy cat captures it.',
      'Each seat races its cats to its two mice, the small squares beyond the opposite edge (marked with its initial); a mouse needs the exact roll.',
      'The first seat with cats on both of its mice wins; a seat that has lost all its cats is out, and the last seat in play wins. If no cat can move the roll, the move is a pass. 200 plies without a capture or a landing on a mouse end the game in a draw.',
    ],
    optionHelp: {
      players: { 2: 'South against North', 3: 'South, West and North', 4: 'all four seats' },
    },
    legend: { S: 'a South cat', W: 'a West cat', N: 'a North cat', E: 'an East cat' },
    title: 'Kilkenny Cats',
    seats: { s: 'South', w: 'West', n: 'North', e: 'East' },
    mice: ['h16', 'i16', 'h1', 'i1', 'p8', 'p9', 'a8', 'a9'],
    // RULES.md: South's mice are h16 i16, North's h1 i1, West's p8 p9, East's a8 a9.
    miceOwners: { h16: 's', i16: 's', h1: 'n', i1: 'n', p8: 'w', p9: 'w', a8: 'e', a9: 'e' },
    layout() {
      const s = 30, points = {}, squares = [], notationRows = [];
      const at = (f, rank) => [10 + s / 2 + f * s, 10 + s / 2 + (16 - rank) * s];
      for (let rank = 16; rank >= 1; rank--) {
        for (let f = 0; f < 16; f++) {
          const p = name(f, rank);
          const playable = f >= 1 && f <= 14 && rank >= 2 && rank <= 15;
          const mouse = this.mice.includes(p);
          if (!playable && !mouse) continue;
          points[p] = at(f, rank);
          squares.push({ name: p, x: 10 + f * s, y: 10 + (16 - rank) * s, size: s, mouse, owner: mouse ? this.miceOwners[p] : null });
        }
      }
      for (let rank = 15; rank >= 2; rank--) {
        const row = [];
        for (let f = 1; f <= 14; f++) row.push(name(f, rank));
        notationRows.push(row);
      }
      return { points, lines: [], squares, notationRows, width: 20 + 16 * s, height: 20 + 16 * s, radius: 11 };
    },
    piece(letter) {
      // Each 4.5:1 or more against the white letter.
      const colors = { S: '#c0392b', W: '#1e8449', N: '#2c6e99', E: '#8e44ad' };
      return { fill: colors[letter], text: letter, color: '#fff' };
    },
    extra(fields) {
      const names = this.seats;
      // A seat with no cat left on the board (cats on mice move no more) is out.
      const cats = fields[0];
      const seats = [...fields[3]];
      const out = seats.filter((l) => !cats.includes(l.toUpperCase()));
      const inPlay = seats.filter((l) => !out.includes(l)).map((l) => names[l] || l).join(', ');
      const roll = fields[2] === '-' ? 'must roll the die' : `rolled ${fields[2]}`;
      const gone = out.length ? `   ·   Out: ${out.map((l) => names[l] || l).join(', ')}` : '';
      return `${names[fields[1]] || fields[1]} ${roll}   ·   Seats in play: ${inPlay}${gone}`;
    },
  },
};

/** Pieces by point name from a notation. */
function parsePosition(gameId, layout, notation) {
  const fields = notation.trim().split(/\s+/);
  const pieces = {};
  fields[0].split('/').forEach((row, i) => {
    expandRow(row).forEach((cell, j) => {
      const point = layout.notationRows[i] && layout.notationRows[i][j];
      if (cell && point) pieces[point] = cell;
    });
  });
  if (gameId === 'kilkenny-cats' && fields[4]) {
    [...fields[4]].forEach((c, i) => { if (c !== '-') pieces[GAMES[gameId].mice[i]] = c; });
  }
  return { fields, pieces, side: fields[1] ? fields[1].toLowerCase() : '' };
}
