// The damas tablebase explorer: a board, the database's answer for it, every move coloured by
// its value. Everything it knows of the rules comes from the server (/api/probe lists the legal
// moves with the position after each); it only reads and writes FENs and draws the board.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  variants: [], variant: null, // the served variants and the one shown
  at: {}, label: {},           // label -> [row, col] on screen; "row,col" -> label
  pos: null,                   // {side: 'W' | 'B', pieces: {label: 'w' | 'W' | 'b' | 'B'}}
  answer: null,                // the last /api/probe answer, or null
  history: [], index: -1,      // FENs visited, and where we are
  from: null,                  // the square clicked first, in play mode
  last: null,                  // the squares of the move just played
  request: 0,                  // the newest request: older answers are dropped
};

function variantKey(v) { return v.name + (v.optional_capture ? '+optional' : ''); }

function setVariant(key) {
  const v = state.variants.find((x) => variantKey(x) === key) || state.variants[0];
  state.variant = v;
  state.at = {};
  state.label = {};
  for (const s of v.squares) {
    const col = s.at.charCodeAt(0) - 97, row = v.board - parseInt(s.at.slice(1), 10);
    state.at[s.label] = [row, col];
    state.label[row + ',' + col] = s.label;
  }
  $('variant').value = key;
}

// "W:W21-32,K5:B1-12" -> {side, pieces}, or null if it cannot be read.
function parseFen(text) {
  const parts = text.trim().replace(/^"|"$/g, '').replace(/\.$/, '').split(':');
  const side = parts[0].trim().toUpperCase();
  if (side !== 'W' && side !== 'B') return null;
  const pieces = {};
  for (const part of parts.slice(1)) {
    const colour = part.trim()[0];
    if (colour !== 'W' && colour !== 'B') return null;
    for (let item of part.trim().slice(1).split(',')) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === 'K';
      if (king) item = item.slice(1);
      let labels = [item];
      const range = item.match(/^(\d+)-(\d+)$/);
      if (range) {
        labels = [];
        for (let n = +range[1]; n <= +range[2]; n++) labels.push(String(n));
      }
      for (const l of labels) {
        const label = state.at[l] ? l : numericLabel(l);
        if (!label) return null;
        pieces[label] = colour === 'W' ? (king ? 'W' : 'w') : (king ? 'B' : 'b');
      }
    }
  }
  return { side, pieces };
}

// A square given by number in a variant that writes a1..h8 (the server accepts both).
function numericLabel(text) {
  if (!/^\d+$/.test(text)) return null;
  const s = state.variant.squares[+text - 1];
  return s ? s.label : null;
}

function writeFen(pos) {
  const list = (colour) => Object.keys(pos.pieces).filter((l) => pos.pieces[l].toUpperCase() === colour)
    .map((l) => (pos.pieces[l] === colour ? 'K' : '') + l).join(',');
  return pos.side + ':W' + list('W') + ':B' + list('B');
}

function drawBoard() {
  const v = state.variant, board = $('board');
  board.replaceChildren();
  board.style.gridTemplateColumns = board.style.gridTemplateRows = `repeat(${v.board}, 1fr)`;
  const moves = state.answer ? state.answer.moves : [];
  const targets = new Set(moves.filter((m) => m.from === state.from).map((m) => m.to));
  for (let row = 0; row < v.board; row++) {
    for (let col = 0; col < v.board; col++) {
      const cell = document.createElement('div');
      const label = state.label[row + ',' + col];
      cell.className = 'sq ' + (label ? 'dark' : 'light');
      if (label) {
        cell.dataset.square = label;
        const tag = document.createElement('span');
        tag.className = 'lbl';
        tag.textContent = label;
        cell.appendChild(tag);
        const p = state.pos && state.pos.pieces[label];
        if (p) {
          const piece = document.createElement('div');
          piece.className = 'pc ' + p.toLowerCase() + (p === p.toUpperCase() ? ' k' : '');
          piece.dataset.piece = p;
          cell.appendChild(piece);
        }
        if (label === state.from) cell.classList.add('from');
        if (targets.has(label)) cell.classList.add('target');
        if (state.last && state.last.includes(label)) cell.classList.add('last');
        cell.addEventListener('click', () => clickSquare(label));
      }
      board.appendChild(cell);
    }
  }
}

function valueText(wdl, dtw) {
  if (wdl === 'draw') return 'draw';
  return `${wdl} in ${dtw} ${dtw === 1 ? 'ply' : 'plies'} (${Math.ceil(dtw / 2)} ${Math.ceil(dtw / 2) === 1 ? 'move' : 'moves'})`;
}

function drawAnswer() {
  const a = state.answer, side = state.pos ? (state.pos.side === 'W' ? 'White' : 'Black') : '';
  $('tomove').textContent = side ? side + ' to move' : '';
  $('value').textContent = a ? valueText(a.wdl, a.dtw) : '';
  $('value').className = 'value ' + (a ? a.wdl : '');
  const list = $('moves');
  list.replaceChildren();
  if (a) {
    if (a.moves.length === 0) {
      const li = document.createElement('li');
      li.textContent = 'no legal move: the side to move has lost';
      list.appendChild(li);
    }
    for (const m of a.moves) {
      const li = document.createElement('li');
      li.className = m.wdl;
      li.dataset.move = m.move;
      li.textContent = m.move + '  ' + (m.wdl === 'draw' ? 'draw' : `${m.wdl} ${m.dtw}`);
      li.title = valueText(m.wdl, m.dtw);
      li.addEventListener('click', () => play(m));
      list.appendChild(li);
    }
  }
  $('line').textContent = a ? (a.line.length ? a.line.join(' ') : '(a draw has no line)') : '';
  $('back').disabled = state.index <= 0;
  $('forward').disabled = state.index >= state.history.length - 1;
}

function showError(text) {
  $('error').hidden = !text;
  $('error').textContent = text || '';
}

async function show(fen) {
  const ticket = ++state.request;
  const v = state.variant;
  const parsed = parseFen(fen);
  if (parsed) state.pos = parsed;
  state.answer = null;
  state.from = null;
  $('fen').value = fen;
  const url = `/api/probe?variant=${encodeURIComponent(v.name)}${v.optional_capture ? '&optional-capture=1' : ''}` +
    `&fen=${encodeURIComponent(fen)}`;
  let reply, body;
  try {
    reply = await fetch(url);
    body = await reply.json();
  } catch (e) {
    body = { error: 'no answer from the server: ' + e.message };
  }
  if (ticket !== state.request) return;
  if (reply && reply.ok) {
    state.answer = body;
    state.pos = parseFen(body.fen) || state.pos;
    $('fen').value = body.fen;
    showError(null);
  } else {
    showError(body.error || 'error ' + (reply ? reply.status : ''));
  }
  const q = new URLSearchParams({ variant: variantKey(v), fen: $('fen').value });
  history.replaceState(null, '', '?' + q.toString());
  drawBoard();
  drawAnswer();
  document.body.dataset.ready = String(ticket);
}

// A new position: forget the positions after the present one, as an editor's undo does.
function visit(fen, last) {
  state.history = state.history.slice(0, state.index + 1);
  state.history.push(fen);
  state.index = state.history.length - 1;
  state.last = last || null;
  return show(fen);
}

function play(m) {
  visit(m.fen, [m.from, m.to]);
}

function clickSquare(label) {
  if ($('edit').checked) {
    const order = [undefined, 'w', 'W', 'b', 'B'];
    const pos = state.pos || { side: 'W', pieces: {} };
    const next = order[(order.indexOf(pos.pieces[label]) + 1) % order.length];
    if (next) pos.pieces[label] = next; else delete pos.pieces[label];
    state.pos = pos;
    visit(writeFen(pos));
    return;
  }
  const moves = state.answer ? state.answer.moves : [];
  if (state.from) {
    const m = moves.find((x) => x.from === state.from && x.to === label); // the best such move
    if (m) { play(m); return; }
  }
  state.from = moves.some((x) => x.from === label) ? label : null;
  drawBoard();
}

async function start() {
  const reply = await fetch('/api/variants');
  state.variants = (await reply.json()).variants;
  for (const v of state.variants) {
    const o = document.createElement('option');
    o.value = variantKey(v);
    o.textContent = `${v.name}${v.optional_capture ? ' (optional capture)' : ''} — up to ${v.pieces} pieces`;
    $('variant').appendChild(o);
  }
  const q = new URLSearchParams(location.search);
  setVariant(q.get('variant') || variantKey(state.variants[0]));
  $('variant').addEventListener('change', () => {
    setVariant($('variant').value);
    state.history = [];
    state.index = -1;
    visit(state.variant.example);
  });
  $('fenform').addEventListener('submit', (e) => { e.preventDefault(); visit($('fen').value.trim()); });
  $('back').addEventListener('click', () => { if (state.index > 0) { state.last = null; show(state.history[--state.index]); } });
  $('forward').addEventListener('click', () => {
    if (state.index < state.history.length - 1) { state.last = null; show(state.history[++state.index]); }
  });
  $('flipside').addEventListener('click', () => {
    if (!state.pos) return;
    state.pos.side = state.pos.side === 'W' ? 'B' : 'W';
    visit(writeFen(state.pos));
  });
  $('clear').addEventListener('click', () => visit((state.pos ? state.pos.side : 'W') + ':W:B'));
  $('edit').addEventListener('change', () => { $('edithint').hidden = !$('edit').checked; state.from = null; drawBoard(); });
  visit(q.get('fen') || state.variant.example);
}

start();
