// The page's state, in one place. Views render from it; API answers and the live stream only
// feed it through `update`.

const TOKEN_KEY = 'tabletally.token';
const CLUB_KEY = 'tabletally.club';
/** The clubs this phone had open before (name and key), newest first: see `switchClub`. */
const EARLIER_KEY = 'tabletally.earlier';
const EARLIER_MAX = 5;

/**
 * @typedef {import('./api.js').Schemas} Schemas
 * @typedef {{seq: number, id: string, type: string, data: any, recorded_at: string, recorded_by?: string | null, retracted_by?: number, corrected_by?: number}} StoredEvent
 * @typedef {{
 *   token: string | null, clubName: string | null,
 *   share: {gameId: string, token: string} | null,
 *   route: {name: string, params: Record<string, string>},
 *   game: Schemas['GameSummary'] | null, score: Schemas['ScoreView'] | null, events: StoredEvent[],
 *   live: 'off' | 'connecting' | 'live' | 'reconnecting' | 'offline' | 'polling',
 *   way: string | null,
 *   waiting: import('./outbox.js').Entry[],
 * }} State
 */

/** @type {State} */
const state = {
  token: localStorage.getItem(TOKEN_KEY),
  clubName: localStorage.getItem(CLUB_KEY),
  share: null,
  route: { name: 'home', params: {} },
  game: null,
  score: null,
  events: [],
  live: 'off',
  // How the table records the open game (e.g. 'rows' or 'turns'), once someone chose.
  way: null,
  // The open game's entries kept on this phone until the server confirms them (outbox.js).
  waiting: [],
};

/** @type {Set<(s: State, changed: Set<string>) => void>} */
const listeners = new Set();

/** @returns {Readonly<State>} */
export function getState() {
  return state;
}

/** Changes some fields and tells every listener which ones. @param {Partial<State>} patch */
export function update(patch) {
  const changed = new Set(Object.keys(patch));
  Object.assign(state, patch);
  if (changed.has('token') || changed.has('clubName')) {
    if (state.token) localStorage.setItem(TOKEN_KEY, state.token);
    else localStorage.removeItem(TOKEN_KEY);
    if (state.clubName) localStorage.setItem(CLUB_KEY, state.clubName);
    else localStorage.removeItem(CLUB_KEY);
  }
  for (const listener of listeners) listener(state, changed);
}

/** @typedef {{name: string | null, token: string}} EarlierClub */

/** The clubs this phone had open before, newest first (at most 5). @returns {EarlierClub[]} */
export function earlierClubs() {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(EARLIER_KEY) ?? '[]');
  } catch {
    kept = [];
  }
  if (!Array.isArray(kept)) return [];
  return kept
    .filter((c) => c && typeof c.token === 'string' && c.token !== '')
    .map((c) => ({ name: typeof c.name === 'string' && c.name !== '' ? c.name : null, token: c.token }))
    .slice(0, EARLIER_MAX);
}

/**
 * Opens another club on this phone: `next` becomes the key in use, and the club open until now
 * (named `currentName`, when known) goes first in the list of earlier clubs, so that it stays
 * reachable; `next` leaves that list. The list keeps the last 5.
 * @param {EarlierClub} next @param {string | null} [currentName]
 */
export function switchClub(next, currentName = state.clubName) {
  const earlier = earlierClubs().filter((c) => c.token !== next.token && c.token !== state.token);
  if (state.token && state.token !== next.token) earlier.unshift({ name: currentName, token: state.token });
  localStorage.setItem(EARLIER_KEY, JSON.stringify(earlier.slice(0, EARLIER_MAX)));
  update({ token: next.token, clubName: next.name });
}

/** @param {(s: State, changed: Set<string>) => void} listener @returns {() => void} */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Merges events (from an append answer or the stream) into the log, keeping it ordered by seq
 * and without duplicates. Marks (`retracted_by`, `corrected_by`) come from a fresh read.
 * @param {StoredEvent[]} current @param {StoredEvent[]} incoming
 */
export function mergeEvents(current, incoming) {
  const bySeq = new Map(current.map((e) => [e.seq, e]));
  for (const e of incoming) bySeq.set(e.seq, { ...bySeq.get(e.seq), ...e });
  const merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  // Re-derive the marks so a live append that retracts or corrects shows at once.
  for (const e of merged) {
    if (e.type === 'retract' && !e.retracted_by) {
      const target = bySeq.get(e.data.seq);
      if (target && !target.retracted_by) target.retracted_by = e.seq;
    }
    if (e.type === 'correct' && !e.retracted_by) {
      const target = bySeq.get(e.data.seq);
      if (target && (target.corrected_by ?? 0) < e.seq) target.corrected_by = e.seq;
    }
  }
  return merged;
}

/**
 * The events that count, as the rule engine sees them: retracted ones left out, corrected ones
 * with their latest correction's data, the common events (retract, correct) themselves left out.
 * @param {StoredEvent[]} events
 */
export function effectiveEvents(events) {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  return events
    .filter((e) => !e.retracted_by && e.type !== 'retract' && e.type !== 'correct')
    .map((e) => (e.corrected_by ? { ...e, data: bySeq.get(e.corrected_by)?.data.data ?? e.data } : e));
}
