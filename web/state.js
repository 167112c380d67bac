// The page's state, in one place. Views render from it; API answers and the live stream only
// feed it through `update`.

const TOKEN_KEY = 'tabletally.token';
const CLUB_KEY = 'tabletally.club';

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
