// The tablebase explorer's pages: the board explorer, the puzzle trainer, the fairness report.
// Every value shown comes from the JSON API (/api/...); this script only draws and asks.
"use strict";

const FIRST_PLAYER = { sparro: "R", smallholder: "B" };
const SIDE_NAMES = { R: "Red", B: "Black", W: "White" };
const SVG_NS = "http://www.w3.org/2000/svg";

// -- the API ---------------------------------------------------------------------------------

async function api(path, params = {}, method = "GET") {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, value);
  }
  const url = query.toString() ? `${path}?${query}` : path;
  const response = await fetch(url, { method });
  const type = response.headers.get("content-type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  return { ok: response.ok, status: response.status, data };
}

function $(id) { return document.getElementById(id); }

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

function valueText(value, remoteness, joint = " in ") {
  return value + (remoteness === null || remoteness === undefined ? "" : `${joint}${remoteness}`);
}

function flip(value) {
  return { win: "loss", loss: "win" }[value] || value;
}

// -- rules choices ---------------------------------------------------------------------------

let GAMES = null;

async function loadGames() {
  if (!GAMES) GAMES = (await api("/api/games")).data;
  return GAMES;
}

function fillSelect(select, names, chosen) {
  select.innerHTML = "";
  for (const name of names) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    select.appendChild(option);
  }
  select.value = chosen;
}

/** The rules of a stored puzzle or table ("standard", "nibbler@limping2", "territory=...@hex3"). */
function rulesFromLabel(game, label) {
  if (game === "sparro") return { variant: label };
  const at = label.lastIndexOf("@");
  const spec = label.slice(0, at), board = label.slice(at + 1);
  return GAMES.smallholder.rulesets.includes(spec) ? { board, ruleset: spec } : { board, rules: spec };
}

// -- the board -------------------------------------------------------------------------------

/** The element of a cell to colour: the pit or ring of a Sparro cell, the hexagon of a Smallholder one. */
function cellShape(svg, name) {
  return svg.querySelector(`circle.empty[data-cell="${name}"]:not(.face-cell)`)
    || svg.querySelector(`polygon.cell[data-cell="${name}"]`);
}

function centreOf(shape) {
  const box = shape.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/**
 * Draw the SVG picture into ``container`` and make the legal cells clickable, and playable
 * from the keyboard: each is a button in the tab order, named by the cell's name, that
 * Enter or Space plays.
 * ``moves``: [{cell, name, value, remoteness}] (value null: no colours); ``onPlay(move)``.
 */
function drawBoard(container, svgText, moves, onPlay) {
  // a board that had the focus (a cell played from the keyboard) keeps it: on the same
  // cell if it is still legal, else on the board itself, never lost to the page's body
  const focused = container.contains(document.activeElement) ? document.activeElement : null;
  const focusedMove = focused && focused.dataset ? focused.dataset.move : undefined;
  container.innerHTML = svgText;
  const svg = container.querySelector("svg");
  if (focused) {
    container.setAttribute("tabindex", "-1");
    container.focus({ preventScroll: true });
  }
  if (!svg) return;
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  for (const move of moves) {
    const shape = cellShape(svg, move.name);
    if (!shape) continue;
    shape.classList.add("legal", move.value || "plain");
    shape.dataset.value = move.value || "";
    shape.dataset.remoteness = move.remoteness === null || move.remoteness === undefined ? "" : move.remoteness;
    shape.dataset.move = move.name;
    if (move.value && move.remoteness !== null && move.remoteness !== undefined) {
      const [x, y] = centreOf(shape);
      const text = document.createElementNS(SVG_NS, "text");
      text.setAttribute("class", "remoteness");
      text.setAttribute("x", x);
      text.setAttribute("y", y + 15);
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("font-size", "12");
      text.textContent = move.remoteness;
      shape.parentNode.insertBefore(text, shape.nextSibling);
    }
    for (const label of svg.querySelectorAll("text.label")) {
      if (label.textContent === move.name) label.classList.add("on-legal");
    }
    shape.setAttribute("tabindex", "0");
    shape.setAttribute("role", "button");
    shape.setAttribute("aria-label", move.name);
    shape.addEventListener("click", () => onPlay(move));
    shape.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();  // Space would scroll the page
      onPlay(move);
    });
    if (focused && move.name === focusedMove) shape.focus({ preventScroll: true });
  }
}

/** Whether a key pressed on ``target`` is a control's own (a button, a link, a menu, a
 * text box, a board cell): the page's shortcuts leave such keys alone. */
function isControl(target) {
  return Boolean(target.closest && target.closest("input, select, textarea, button, a[href], [role=button]"));
}

// -- the explorer ----------------------------------------------------------------------------

const explorer = {
  game: "sparro",
  rules: {},          // variant | board, ruleset, rules
  plies: [],          // [{position, probe, moves, result, missing, move}] ply 0 = the start
  cursor: 0,
  searchJob: null,
  loading: 0,
  started: 0,         // the number of the latest startGame: only its answer is applied
};

function rulesFromControls() {
  if ($("game").value === "sparro") return { variant: $("variant").value };
  const rules = { board: $("board").value, ruleset: $("ruleset").value };
  if ($("rules").value.trim()) rules.rules = $("rules").value.trim();
  return rules;
}

function showRulesControls(game) {
  $("sparro-rules").hidden = game !== "sparro";
  $("smallholder-rules").hidden = game !== "smallholder";
}

function setControls(game, rules) {
  $("game").value = game;
  showRulesControls(game);
  if (game === "sparro") {
    $("variant").value = rules.variant || GAMES.sparro.default_variant;
  } else {
    $("board").value = rules.board || GAMES.smallholder.default_board;
    $("ruleset").value = rules.ruleset || GAMES.smallholder.default_ruleset;
    $("rules").value = rules.rules || "";
  }
}

/** One ply: the position reached from ``position`` by ``after`` (if any), with its values.
 * A position no table holds (``no_table`` says why) is answered from the rules alone: a
 * finished game's value, else "unknown" (``probe`` null: a search is started for it). */
async function loadPly(game, rules, position, after) {
  const probed = await api("/api/probe", { game, ...rules, position, after });
  if (!probed.ok) throw new Error(probed.data.error);
  const p = probed.data;
  return {
    position: p.position, rules: p.rules, probe: p.value === "unknown" ? null : p, missing: p.no_table || null,
    moves: p.moves, move: after,
  };
}

function urlOf(game, rules, plies, cursor) {
  const query = new URLSearchParams({ game, ...rules });
  query.set("position", plies[0].position);
  const moves = plies.slice(1, cursor + 1).map((p) => p.move);
  if (moves.length) query.set("moves", moves.join(","));
  return `/?${query}`;
}

function pushUrl(replace = false) {
  const url = urlOf(explorer.game, explorer.rules, explorer.plies, explorer.cursor);
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", url); else history.pushState(null, "", url);
}

async function loadFromUrl() {
  const params = new URLSearchParams(location.search);
  const game = params.get("game") || "sparro";
  const rules = {};
  for (const name of ["variant", "board", "ruleset", "rules"]) if (params.get(name)) rules[name] = params.get(name);
  // a game or a choice the page does not offer is an error, never silently the default
  // (an unknown board would have opened hex4 and started a search)
  const offered = { variant: GAMES.sparro.variants, board: GAMES.smallholder.boards, ruleset: GAMES.smallholder.rulesets };
  const unknown = !(game in GAMES) ? ["game", game]
    : Object.entries(rules).find(([name, value]) => name in offered && !offered[name].includes(value));
  if (unknown) {
    setControls(game in GAMES ? game : "sparro", {});
    showError(`the link's ${unknown[0]} is not one the explorer knows: '${unknown[1]}'; choose one above`);
    return;
  }
  setControls(game, rules);
  const moves = (params.get("moves") || "").split(",").filter((m) => m);
  await startGame(game, rulesFromControls(), params.get("position") || "", moves, true);
}

/** Start a game (from ``position``, then the ``moves`` of a link); true if it started.
 * A link's move that cannot be played stops the game before it, and the error names it. */
async function startGame(game, rules, position, moves = [], replace = false) {
  stopSearch();
  showError("");
  // games started one after another (a menu changed twice) may be answered out of order:
  // only the latest one's answer is applied, a slower earlier one is dropped
  const asked = ++explorer.started;
  explorer.loading++;
  let started = false;
  try {
    const plies = [await loadPly(game, rules, position, undefined)];
    let failed = null;
    for (const [index, move] of moves.entries()) {
      try {
        plies.push(await loadPly(game, rules, plies[plies.length - 1].position, move));
      } catch (error) {
        failed = `move ${index + 1} of the link cannot be played, the game stops before it: ${error.message}`;
        break;
      }
    }
    if (asked !== explorer.started) return false;  // a later game was asked for meanwhile
    Object.assign(explorer, { game, rules, plies, cursor: plies.length - 1 });
    pushUrl(replace);
    if (failed) showError(failed);
    started = true;
  } catch (error) {
    if (asked === explorer.started) showError(error.message);
  }
  try {
    // (no move is played until the new board is drawn, as in play)
    if (asked === explorer.started) await render();
  } finally {
    explorer.loading--;
  }
  return started && asked === explorer.started;
}

async function play(move) {
  // one move at a time: a second click or key (a double-click, Enter pressed twice, a
  // quick second cell) while a move or a game loads is ignored, and so until the new
  // board is drawn (the old board's cells would play their move in the new position), so
  // that the game never holds a move twice
  if (explorer.loading) return;
  const here = explorer.plies[explorer.cursor];
  explorer.loading++;
  try {
    try {
      const next = await loadPly(explorer.game, explorer.rules, here.position, move.name);
      if (explorer.plies[explorer.cursor] !== here) return;  // the user went elsewhere meanwhile
      explorer.plies = explorer.plies.slice(0, explorer.cursor + 1);
      explorer.plies.push(next);
      explorer.cursor++;
      showError("");
      pushUrl();
    } catch (error) {
      showError(error.message);
    }
    await render();
  } finally {
    explorer.loading--;
  }
}

function undo() {
  if (explorer.cursor > 0) { explorer.cursor--; pushUrl(); render(); }
}

function redo() {
  if (explorer.cursor < explorer.plies.length - 1) { explorer.cursor++; pushUrl(); render(); }
}

/** The move known to be best at ``ply``, or null: the first listed, when the position's
 * value is known and that move is settled with that value. A search that ran out of its
 * budget answers "unknown": its first move is only the best of those it settled (or any
 * move, when it settled none), so there is no best move to play. */
function bestMove(ply) {
  if (!ply || !ply.probe || ply.probe.value === "unknown" || !ply.moves.length) return null;
  const first = ply.moves[0];
  return first.value === ply.probe.value ? first : null;
}

function playBest() {
  const best = bestMove(explorer.plies[explorer.cursor]);
  if (best) play(best);
}

function statusText(ply) {
  if (!ply) return "";
  if (!ply.moves.length && ply.probe) {  // a finished game's value is the rules' (no table needed)
    const { value, to_move: mover } = ply.probe;
    return value === "draw" ? "Game over: a draw" : `Game over: ${SIDE_NAMES[mover]} ${value === "win" ? "wins" : "loses"}`;
  }
  if (ply.probe) {
    // (a position no table holds has a value from the rules only when the game is over)
    const by = ply.probe.source === "search" ? " (by search)" : "";
    return `${SIDE_NAMES[ply.probe.to_move]} to move: ${valueText(ply.probe.value, ply.probe.remoteness)}${by}`;
  }
  return `No table holds this position (${ply.missing})`;
}

/** Each ply's value seen by the first player, and whether the move into it changed that value. */
function valueHistory() {
  const first = FIRST_PLAYER[explorer.game];
  const points = [];
  explorer.plies.slice(0, explorer.cursor + 1).forEach((ply, index) => {
    const known = ply.probe && ply.probe.value !== "unknown";
    const toMove = ply.probe ? ply.probe.to_move : null;
    const forFirst = known ? (toMove === first ? ply.probe.value : flip(ply.probe.value)) : "unknown";
    const before = points[index - 1];
    const changed = Boolean(before && before.value !== "unknown" && forFirst !== "unknown" && before.value !== forFirst);
    points.push({
      ply: index, move: ply.move || null, position: ply.position, to_move: toMove, value: forFirst,
      remoteness: known ? ply.probe.remoteness : null, changed,
      // for the mover: what the move threw away ("win in 19 -> loss in 2")
      change: changed ? `${valueText(explorer.plies[index - 1].probe.value, explorer.plies[index - 1].probe.remoteness)}` +
        ` -> ${valueText(flip(ply.probe.value), ply.probe.remoteness === null ? null : ply.probe.remoteness + 1)}` : null,
    });
  });
  return points;
}

function drawChart(points) {
  const width = 800, height = 200, pad = 24;
  const longest = Math.max(1, ...points.map((p) => p.remoteness || 0)) + 1;
  const plies = Math.max(points.length - 1 + (points.length ? points[points.length - 1].remoteness || 0 : 0), 10);
  const x = (ply) => pad + (ply / plies) * (width - 2 * pad);
  const middle = height / 2;
  const y = (p) => {
    if (p.value === "draw" || p.value === "unknown") return middle;
    const reach = (longest - (p.remoteness || 0)) / longest;  // nearer the end: further from the middle
    const offset = (0.15 + 0.85 * reach) * (middle - pad);
    return p.value === "win" ? middle - offset : middle + offset;
  };
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "value-history");
  const first = SIDE_NAMES[FIRST_PLAYER[explorer.game]];
  svg.innerHTML =
    `<rect x="0" y="0" width="${width}" height="${middle}" fill="#eef7f0"/>` +
    `<rect x="0" y="${middle}" width="${width}" height="${middle}" fill="#fbeeed"/>` +
    `<line x1="${pad}" x2="${width - pad}" y1="${middle}" y2="${middle}" stroke="#bbb"/>` +
    `<text x="4" y="14" font-size="11" fill="#2e6b3c">${first} wins</text>` +
    `<text x="4" y="${height - 5}" font-size="11" fill="#8b2a22">${first} loses</text>`;
  const path = points.filter((p) => p.value !== "unknown").map((p) => `${x(p.ply)},${y(p)}`).join(" ");
  if (path) {
    const line = document.createElementNS(SVG_NS, "polyline");
    line.setAttribute("points", path);
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", "#555");
    line.setAttribute("stroke-width", "1.5");
    svg.appendChild(line);
  }
  for (const p of points) {
    if (p.changed) {
      const ring = document.createElementNS(SVG_NS, "circle");
      Object.entries({ class: "changed-ring", cx: x(p.ply), cy: y(p), r: 9 }).forEach(([k, v]) => ring.setAttribute(k, v));
      svg.appendChild(ring);
    }
    const dot = document.createElementNS(SVG_NS, "circle");
    Object.entries({ class: `point ${p.value}`, cx: x(p.ply), cy: y(p), r: 5 }).forEach(([k, v]) => dot.setAttribute(k, v));
    dot.dataset.ply = p.ply;
    dot.dataset.value = p.value;
    dot.dataset.remoteness = p.remoteness === null ? "" : p.remoteness;
    dot.dataset.changed = p.changed;
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = `ply ${p.ply}${p.move ? " after " + p.move : ""}: ${valueText(p.value, p.remoteness)} for ${first}` +
      (p.changed ? ` (the move changed the value: ${p.change})` : "");
    dot.appendChild(title);
    dot.addEventListener("click", () => { explorer.cursor = p.ply; pushUrl(); render(); });
    svg.appendChild(dot);
  }
  const chart = $("chart");
  chart.innerHTML = "";
  chart.appendChild(svg);
  chart.dataset.points = JSON.stringify(points);
  window.tablebaseHistory = points;
}

/** Custom rules extend the ruleset chosen (the keys they leave out keep its values): the
 * menu is then named as their base, and the rules in effect, as the service read them, are
 * shown beside it; the page never claims a named ruleset it is not using. */
function showRulesInEffect(ply) {
  const custom = explorer.game === "smallholder" && Boolean(explorer.rules.rules);
  $("ruleset-label").textContent = custom ? "Base ruleset" : "Ruleset";
  $("rules-in-effect").hidden = !custom;
  $("rules-in-effect").textContent = custom ? `rules in effect: custom, ${ply.rules.replace(/@[^@]*$/, "")}` : "";
}

async function render() {
  const ply = explorer.plies[explorer.cursor];
  if (!ply) return;
  showRulesInEffect(ply);
  $("position").value = ply.position;
  $("status").textContent = statusText(ply);
  $("undo").disabled = explorer.cursor === 0;
  $("redo").disabled = explorer.cursor >= explorer.plies.length - 1;
  $("best").disabled = !bestMove(ply);
  $("pv").textContent = !ply.moves.length ? "(game over)"
    : ply.probe && ply.probe.pv && ply.probe.pv.length ? ply.probe.pv.join(" ") : "unknown";
  const body = $("moves").querySelector("tbody");
  body.innerHTML = "";
  for (const move of ply.moves) {
    const row = document.createElement("tr");
    row.dataset.move = move.name;
    row.innerHTML = `<td>${move.name}</td><td><span class="value ${move.value}">${move.value}</span></td>` +
      `<td>${move.remoteness === null ? "" : move.remoteness}</td>`;
    row.addEventListener("click", () => play(move));
    body.appendChild(row);
  }
  const history = valueHistory();
  const played = $("played");
  played.innerHTML = "";
  explorer.plies.slice(1).forEach((p, index) => {
    const item = document.createElement("li");
    const point = history[index + 1];
    item.textContent = p.move;
    if (point && point.changed) {
      const change = document.createElement("span");
      change.className = "changed";
      change.textContent = ` (${point.change})`;
      item.appendChild(change);
    }
    item.className = index + 1 === explorer.cursor ? "current" : index + 1 > explorer.cursor ? "future" : "";
    played.appendChild(item);
  });
  drawChart(history);
  const picture = await api("/api/svg", { game: explorer.game, ...explorer.rules, position: ply.position });
  if (explorer.plies[explorer.cursor] !== ply) return;  // the user moved on meanwhile
  drawBoard($("picture"), picture.ok ? picture.data : "", ply.moves, play);
  $("picture").dataset.position = ply.position;
  if (!ply.probe && ply.missing && ply.moves.length) {
    startSearch(ply);
  } else {
    if (explorer.searchJob && explorer.searchJob.ply !== ply) stopSearch();
    // the search line is the shown ply's own (its last search's answer), or none
    if (ply.searchText) showSearch(ply.searchText, false); else $("search").hidden = true;
  }
  document.body.dataset.ready = "true";
}

// -- searching positions no table holds -----------------------------------------------------

async function startSearch(ply) {
  if (explorer.searchJob && explorer.searchJob.ply === ply) return;
  stopSearch();
  const started = await api("/api/search", { game: explorer.game, ...explorer.rules, position: ply.position }, "POST");
  if (!started.ok) { showSearch(`search not started: ${started.data.error}`, false); return; }
  const job = { id: started.data.job, ply, timer: null };
  explorer.searchJob = job;
  showSearch("searching...", true);
  const poll = async () => {
    if (explorer.searchJob !== job) return;
    const state = (await api(`/api/search/${job.id}`)).data;
    if (explorer.searchJob !== job) return;
    if (state.status === "searching") {
      showSearch(`searching... ${state.seconds} s`, true);
      job.timer = setTimeout(poll, 400);
      return;
    }
    explorer.searchJob = null;
    if (state.status === "done") {
      ply.probe = state.answer;
      ply.moves = state.answer.moves;
      const settled = state.answer.moves.filter((m) => m.value !== "unknown").length;
      const bound = state.answer.at_least;
      const within = !bound ? "" : bound.value === "win" ? `; a win in at most ${bound.remoteness}` :
        bound.value === "draw" ? "; at least a draw" : "";
      ply.searchText = state.answer.value === "unknown" ? `search: unknown (the search ran out of its budget; it settled ${settled} of the ${state.answer.moves.length} moves${within})` :
        `search: ${valueText(state.answer.value, state.answer.remoteness)} (exact, ${state.seconds} s)`;
      showSearch(ply.searchText, false);
      if (explorer.plies[explorer.cursor] === ply) render();
    } else {
      ply.searchText = `search ${state.status}: ${state.error || "unknown"}`;
      showSearch(ply.searchText, false);
    }
  };
  job.timer = setTimeout(poll, 300);
}

function stopSearch() {
  const job = explorer.searchJob;
  if (!job) return;
  explorer.searchJob = null;
  clearTimeout(job.timer);
  api(`/api/search/${job.id}`, {}, "DELETE");
  job.ply.searchText = "search stopped: unknown (come back to this position to search again)";
  showSearch(job.ply.searchText, false);
}

function showSearch(text, running) {
  $("search").hidden = false;
  $("search-status").textContent = text;
  $("search-stop").hidden = !running;
}

async function initExplorer() {
  const games = await loadGames();
  fillSelect($("variant"), games.sparro.variants, games.sparro.default_variant);
  fillSelect($("board"), games.smallholder.boards, games.smallholder.default_board);
  fillSelect($("ruleset"), games.smallholder.rulesets, games.smallholder.default_ruleset);
  const restart = () => { showRulesControls($("game").value); startGame($("game").value, rulesFromControls(), ""); };
  for (const id of ["game", "variant", "board", "ruleset"]) $(id).addEventListener("change", restart);
  $("rules").addEventListener("change", restart);
  $("position-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const typed = $("position").value.trim();
    // a position refused keeps what was typed, to be corrected (the error says what is wrong)
    if (!(await startGame($("game").value, rulesFromControls(), typed))) $("position").value = typed;
  });
  $("start-position").addEventListener("click", () => startGame($("game").value, rulesFromControls(), ""));
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("best").addEventListener("click", playBest);
  $("search-stop").addEventListener("click", stopSearch);
  document.addEventListener("keydown", (event) => {
    // a key on a control (a button, a menu, a text box, a cell) is the control's: Space
    // presses a focused button or plays a focused cell, arrows change a menu; only
    // elsewhere do they play and move
    if (isControl(event.target)) return;
    if (event.key === "ArrowLeft") undo();
    else if (event.key === "ArrowRight") redo();
    else if (event.key === " ") { event.preventDefault(); playBest(); }
  });
  window.addEventListener("popstate", loadFromUrl);
  // a closed or left page stops its search (the server would only notice after a while)
  window.addEventListener("pagehide", () => {
    if (explorer.searchJob) fetch(`/api/search/${explorer.searchJob.id}`, { method: "DELETE", keepalive: true });
  });
  await loadFromUrl();
}

// -- the puzzle trainer ----------------------------------------------------------------------

const SOLVED_KEY = "tablebase-solved-puzzles";

function solvedIds() {
  try { return new Set(JSON.parse(localStorage.getItem(SOLVED_KEY) || "[]")); } catch { return new Set(); }
}

function markSolved(id) {
  const ids = solvedIds();
  ids.add(id);
  localStorage.setItem(SOLVED_KEY, JSON.stringify([...ids]));
}

// ``listing``, ``ruling`` and ``shown`` number the latest puzzle list, rules menu and puzzle
// asked for: an answer to an earlier request (a slower one, after the game was switched or
// another puzzle opened) is dropped, never drawn over the latest one
const trainer = {
  puzzle: null, rules: {}, position: null, moves: [], previous: [], hinted: false, busy: false,
  listing: 0, ruling: 0, shown: 0,
};

function feedback(text, kind = "") {
  $("feedback").textContent = text;
  $("feedback").className = `feedback ${kind}`;
}

/** List the puzzles the filters choose. The puzzle shown is always one of them: one the
 * filters leave out (another game, say) is replaced by the first listed, or cleared when
 * none is. */
async function listPuzzles() {
  const game = $("puzzle-game").value;
  const asked = ++trainer.listing;
  const found = await api("/api/puzzles", { game, rules: $("puzzle-rules").value, grade: $("puzzle-grade").value });
  if (asked !== trainer.listing) return;  // the filters changed meanwhile: a later list is coming
  const list = $("puzzle-list");
  list.innerHTML = "";
  if (!found.ok) { showError(found.data.error); return; }
  const solved = solvedIds();
  for (const p of found.data) {
    const item = document.createElement("li");
    item.dataset.id = p.id;
    item.textContent = `#${p.id} ${p.rules}, win within ${p.depth} plies (grade ${p.grade})`;
    if (solved.has(p.id)) item.classList.add("solved");
    item.addEventListener("click", () => openPuzzle(p.id));
    list.appendChild(item);
  }
  $("puzzle-count").textContent = found.data.length ? "" : "No puzzles match; run 'tablebase puzzles generate'.";
  $("solved-count").textContent = solved.size;
  if (!trainer.puzzle || !found.data.some((p) => p.id === trainer.puzzle.id)) {
    if (found.data.length) await openPuzzle(found.data[0].id); else clearPuzzle();
  }
}

/** No puzzle shown: an empty board, no title, task or feedback. */
function clearPuzzle() {
  trainer.shown++;
  Object.assign(trainer, { puzzle: null, rules: {}, position: null, moves: [], previous: [], hinted: false });
  for (const id of ["puzzle-title", "puzzle-task", "refutation"]) $(id).textContent = "";
  feedback("");
  $("retry").hidden = true;
  $("picture").innerHTML = "";
  delete $("picture").dataset.position;
  document.body.dataset.ready = "true";
}

/** Fill the rules menu with the game's puzzles' rules; false if a later call overtook it. */
async function fillPuzzleRules() {
  const asked = ++trainer.ruling;
  const all = await api("/api/puzzles", { game: $("puzzle-game").value });
  if (asked !== trainer.ruling) return false;
  const labels = all.ok ? [...new Set(all.data.map((p) => p.rules))] : [];
  fillSelect($("puzzle-rules"), ["", ...labels], "");
  $("puzzle-rules").options[0].textContent = "any";
  return true;
}

async function openPuzzle(id) {
  const asked = ++trainer.shown;
  const found = await api(`/api/puzzles/${id}`);
  if (asked !== trainer.shown) return;  // another puzzle (or none) was asked for meanwhile
  if (!found.ok) { showError(found.data.error); return; }
  const puzzle = found.data;
  Object.assign(trainer, { puzzle, rules: rulesFromLabel(puzzle.game, puzzle.rules), previous: [], hinted: false });
  for (const item of $("puzzle-list").children) item.classList.toggle("active", Number(item.dataset.id) === id);
  feedback("");
  $("refutation").textContent = "";
  $("retry").hidden = true;
  if (!(await showPuzzlePosition(puzzle.position, puzzle.depth, asked))) return;
  // the title once the board is drawn: never the new title over the old board
  $("puzzle-title").textContent = `Puzzle #${puzzle.id} (${puzzle.game} ${puzzle.rules}, grade ${puzzle.grade})`;
  const mover = trainer.moves.length ? trainer.toMove : "";
  $("puzzle-task").textContent = `${SIDE_NAMES[mover] || ""} to move and win within ${puzzle.depth} plies.`;
}

/** Show ``position`` of the puzzle shown; false if another puzzle was asked for meanwhile
 * (``asked``: the puzzle's number in ``trainer.shown``) or the position was refused. */
async function showPuzzlePosition(position, pliesLeft, asked) {
  const { puzzle, rules } = trainer;
  const answer = await api("/api/moves", { game: puzzle.game, ...rules, position });
  if (asked !== trainer.shown) return false;
  if (!answer.ok) { showError(answer.data.error); return false; }
  const picture = await api("/api/svg", { game: puzzle.game, ...rules, position: answer.data.position });
  if (asked !== trainer.shown) return false;
  trainer.position = answer.data.position;
  trainer.toMove = answer.data.to_move;
  trainer.moves = answer.data.moves;
  trainer.pliesLeft = pliesLeft;
  drawBoard($("picture"), picture.data, trainer.moves.map((m) => ({ ...m, value: null })), puzzleMove);
  $("picture").dataset.position = trainer.position;
  document.body.dataset.ready = "true";
  return true;
}

async function puzzleMove(move) {
  // one move at a time: a click while the last one is judged would be judged against the
  // position it was made in, not the one shown by then
  if (trainer.busy) return;
  trainer.busy = true;
  try {
    await judgePuzzleMove(move);
  } finally {
    trainer.busy = false;
  }
}

async function judgePuzzleMove(move) {
  if ($("retry").hidden === false) return;  // read the refutation, then retry
  const { puzzle } = trainer;
  const asked = trainer.shown;  // the puzzle the move was made in: a later one drops the answer
  const expected = puzzle.tree[trainer.position];
  const probeArgs = { game: puzzle.game, ...trainer.rules, position: trainer.position, after: move.name };
  const after = await api("/api/probe", probeArgs);
  if (asked !== trainer.shown) return;
  if (!after.ok) { showError(after.data.error); return; }
  if (move.cell !== expected) {
    const reply = after.data;  // the opponent to move: its value and best line
    const line = reply.pv ? reply.pv : reply.moves.length ? [reply.moves[0].name] : [];
    const forMover = valueText(flip(reply.value), reply.remoteness === null ? null : reply.remoteness + 1);
    feedback(`Wrong: ${move.name} is a ${forMover}, not a win within ${trainer.pliesLeft} plies.`, "wrong");
    $("refutation").textContent = line.length ? `Refutation: ${move.name} ${line.join(" ")}` : "";
    $("retry").hidden = false;
    return;
  }
  trainer.previous.push(trainer.position);
  if (!after.data.moves.length) {
    feedback(`Right: ${move.name} wins. Solved!`, "right");
    markSolved(puzzle.id);
    $("solved-count").textContent = solvedIds().size;
    for (const item of $("puzzle-list").children) if (Number(item.dataset.id) === puzzle.id) item.classList.add("solved");
    await showPuzzlePosition(after.data.position, 0, asked);
    return;
  }
  const defence = after.data.moves[0];  // the slowest loss: the best defence
  feedback(`Right: ${move.name}. The opponent answers ${defence.name}.`, "right");
  const answered = await api("/api/moves", { game: puzzle.game, ...trainer.rules, position: after.data.position, after: defence.name });
  if (asked !== trainer.shown) return;
  if (!answered.ok) { showError(answered.data.error); return; }
  if (!(await showPuzzlePosition(answered.data.position, trainer.pliesLeft - 2, asked))) return;
  if (!trainer.moves.length) feedback(`The opponent's ${defence.name} ends the game.`, "wrong");
}

function retryPuzzle() {
  feedback("");
  $("refutation").textContent = "";
  $("retry").hidden = true;
}

function hint() {
  const cell = trainer.puzzle && trainer.puzzle.tree[trainer.position];
  const move = trainer.moves.find((m) => m.cell === cell);
  if (!move) return;
  trainer.hinted = true;
  const shape = cellShape($("picture").querySelector("svg"), move.name);
  if (shape) shape.classList.add("hint");
  feedback(`Hint: look at ${move.name}.`);
}

async function initPuzzles() {
  await loadGames();
  $("puzzle-game").addEventListener("change", async () => { if (await fillPuzzleRules()) listPuzzles(); });
  $("puzzle-rules").addEventListener("change", listPuzzles);
  $("puzzle-grade").addEventListener("change", listPuzzles);
  $("retry").addEventListener("click", retryPuzzle);
  $("hint").addEventListener("click", hint);
  $("next").addEventListener("click", () => {
    const solved = solvedIds();
    const next = [...$("puzzle-list").children].find((item) => !solved.has(Number(item.dataset.id)));
    if (next) openPuzzle(Number(next.dataset.id));
  });
  await fillPuzzleRules();
  await listPuzzles();  // (shows the first puzzle listed)
}

// -- the fairness report ---------------------------------------------------------------------

function evidenceNode(value) {
  if (Array.isArray(value) && value.length && value.every((row) => row && typeof row === "object" && !Array.isArray(row))) {
    const table = document.createElement("table");
    const columns = [...new Set(value.flatMap((row) => Object.keys(row)))];
    table.innerHTML = `<tr>${columns.map((c) => `<th>${c}</th>`).join("")}</tr>`;
    for (const row of value) {
      const tr = document.createElement("tr");
      for (const c of columns) {
        const td = document.createElement("td");
        td.textContent = row[c] === undefined ? "" : typeof row[c] === "object" ? JSON.stringify(row[c]) : row[c];
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
    return table;
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const list = document.createElement("dl");
    for (const [key, inner] of Object.entries(value)) {
      const term = document.createElement("dt");
      term.textContent = key;
      const description = document.createElement("dd");
      description.appendChild(evidenceNode(inner));
      list.append(term, description);
    }
    return list;
  }
  const span = document.createElement("span");
  span.textContent = Array.isArray(value) ? value.join(" ") : String(value);
  return span;
}

async function initFairness() {
  const report = await api("/api/fairness");
  const box = $("claims");
  if (!report.ok) { showError(report.data.error); document.body.dataset.ready = "true"; return; }
  for (const claim of report.data.claims) {
    const section = document.createElement("section");
    section.className = "claim";
    section.dataset.id = claim.id;
    section.innerHTML = `<h2><span class="verdict ${claim.verdict}"></span> <code></code></h2><blockquote></blockquote><p class="summary"></p>`;
    section.querySelector(".verdict").textContent = claim.verdict;
    section.querySelector("code").textContent = claim.id;
    section.querySelector("blockquote").textContent = claim.claim;
    section.querySelector(".summary").textContent = claim.summary;
    const details = document.createElement("details");
    details.innerHTML = "<summary>Evidence</summary>";
    details.appendChild(evidenceNode(claim.evidence));
    section.appendChild(details);
    box.appendChild(section);
  }
  for (const missing of report.data.not_checked || []) {
    const item = document.createElement("p");
    item.className = "note not-checked";
    item.textContent = missing;
    box.appendChild(item);
  }
  document.body.dataset.ready = "true";
}

const PAGES = { explorer: initExplorer, puzzles: initPuzzles, fairness: initFairness };
PAGES[document.body.dataset.page]().catch((error) => showError(String(error)));
