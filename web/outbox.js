// Entries waiting to be sent. Every Record goes through here: the entry is kept on the phone
// (IndexedDB; in memory where the browser has none) with its event ids, then sent, one entry at a
// time in the order recorded. An entry the server did not answer stays and is sent again later
// (the ids make a resend harmless: the server answers with what it stored); one another phone
// beat (409) or the rules refused (422) stays too, paused, until the table decides what to do.
// Nothing here is shown as confirmed: the scoreboard only ever shows the server's answers.
// Each entry keeps its club's key and goes with it, whichever club the phone has open by then.
// The last entry can be taken back before it is stored; one that may already have reached the
// server (a dead spot can deliver a request long after the phone gave up on it) is checked
// against the log when the server answers, and taken back there if it was stored.
import { appendEvents, listEvents, ApiError, sendLater } from './api.js';
import { getState, update } from './state.js';
import { newId } from './ui.js';

/**
 * @typedef {{
 *   key?: number, gameId: string, club?: string | null,
 *   baseVersion: number | null,
 *   events: {id: string, type: string, data: any}[],
 *   label: string, queuedAt: string, round?: boolean,
 *   conflict?: {currentVersion: number | null} | null,
 *   refused?: {detail?: string, title?: string, pointer?: string | null} | null,
 *   tried?: boolean, takenBack?: boolean, takenBackReason?: string,
 * }} Entry
 * `baseVersion`: the game's version the entry was recorded at (the entries waiting before it
 * counted in), sent as `expected_version` so that another phone's entry is never silently
 * overwritten. `label`: the step in the words of the page that recorded it; `round`: whether
 * it is a whole round (the waiting box counts rounds then). `club`: the club key it is sent
 * with. `tried`: a send was started (it may have reached the server); `takenBack`: the table took
 * it back after that, so it is not sent but looked for in the log (and taken back there).
 */

const DATABASE = 'tabletally';
const STORE = 'outbox';

/** @type {Promise<IDBDatabase | null> | null} */
let opening = null;
/** Where entries live without IndexedDB (lost with the tab, but the page still works). */
const memory = new Map();
let memoryKey = 0;

/** @returns {Promise<IDBDatabase | null>} */
function database() {
  opening ??= new Promise((resolve) => {
    try {
      const request = indexedDB.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key', autoIncrement: true });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  return opening;
}

/**
 * One request in its own transaction, answered when the transaction is committed.
 * @param {IDBTransactionMode} mode @param {(store: IDBObjectStore) => IDBRequest} act
 * @returns {Promise<any>}
 */
async function inStore(mode, act) {
  const db = await database();
  if (!db) return undefined;
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = act(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** Every waiting entry, oldest first. @returns {Promise<Entry[]>} */
async function all() {
  const db = await database();
  if (!db) return [...memory.values()];
  /** @type {Entry[]} */
  const entries = await inStore('readonly', (store) => store.getAll());
  return entries.sort((a, b) => (a.key ?? 0) - (b.key ?? 0));
}

/** @param {string} gameId @returns {Promise<Entry[]>} */
export async function waitingFor(gameId) {
  return (await all()).filter((e) => e.gameId === gameId);
}

/** Keeps an entry on the phone; returns it with its key. @param {Entry} entry @returns {Promise<Entry>} */
export async function keep(entry) {
  const db = await database();
  if (!db) {
    memoryKey += 1;
    const kept = { ...entry, key: memoryKey };
    memory.set(memoryKey, kept);
    return kept;
  }
  const key = await inStore('readwrite', (store) => store.add(entry));
  return { ...entry, key };
}

/** @param {Entry} entry */
async function save(entry) {
  if (!(await database())) memory.set(entry.key, entry);
  else await inStore('readwrite', (store) => store.put(entry));
}

/** @param {Entry} entry */
async function remove(entry) {
  if (!(await database())) memory.delete(entry.key);
  else await inStore('readwrite', (store) => store.delete(/** @type {number} */ (entry.key)));
}

/** Puts the open game's waiting entries in the state. @param {string} gameId */
export async function publish(gameId) {
  const waiting = await waitingFor(gameId);
  if (getState().route.params.id === gameId) update({ waiting });
}

/**
 * Drops an entry (the table kept the other phone's, or gave up on a refused one). The entries
 * after it are now recorded after what the server holds (`version`), the table having seen it.
 * @param {Entry} entry @param {number} version the game's version now
 */
export async function drop(entry, version) {
  await remove(entry);
  await rebase(entry.gameId, (entry.key ?? 0) + 1, version);
}

/**
 * Sends an entry again after the table saw what another phone recorded: it and the entries after
 * it are now recorded at `version`.
 * @param {Entry} entry @param {number} version
 */
export async function retry(entry, version) {
  await rebase(entry.gameId, entry.key ?? 0, version);
}

/** Just forgets an entry (still in the form on screen, which keeps it). @param {Entry} entry */
export async function forget(entry) {
  await remove(entry);
  await publish(entry.gameId);
}

/** @param {string} gameId @param {number} fromKey @param {number} version */
async function rebase(gameId, fromKey, version) {
  let base = version;
  for (const later of await waitingFor(gameId)) {
    if ((later.key ?? 0) < fromKey) continue;
    await save({ ...later, baseVersion: base, conflict: null, refused: null });
    base += later.events.length;
  }
  await publish(gameId);
}

/** Sends are made one after the other, never two at once, so that entries keep their order. */
let sending = Promise.resolve();
/** The send under way, and how to give up on it (a take-back). */
/** @type {{key: number | undefined, giveUp: AbortController} | null} */
let inFlight = null;

/**
 * Takes an entry back before the server stored it: forgotten if no send of it ever started,
 * else (it may be on its way) marked, and looked for in the log at the next send.
 * @param {Entry} entry @param {string} reason what the log says if it has to take it back
 */
export async function takeBack(entry, reason) {
  if (inFlight?.key === entry.key) inFlight.giveUp.abort();
  const current = (await waitingFor(entry.gameId)).find((e) => e.key === entry.key);
  if (!current) return;
  if (current.tried) await save({ ...current, takenBack: true, takenBackReason: reason, conflict: null, refused: null });
  else await remove(current);
  await rebase(entry.gameId, (entry.key ?? 0) + 1, current.baseVersion ?? 0);
}

/**
 * A taken-back entry that may have reached the server: its stored events are taken back in the
 * log (a `retract` each); then it is forgotten and the entries after it follow what is stored.
 * @param {Entry} entry
 */
async function settleTakenBack(entry) {
  const log = await listEvents(entry.gameId, entry.club);
  const ids = new Set(entry.events.map((e) => e.id));
  const stored = log.events.filter((e) => ids.has(e.id) && !e.retracted_by);
  let version = log.version;
  if (stored.length) {
    const reason = entry.takenBackReason ?? 'taken back';
    const retractions = stored.map((e) => ({ id: newId(), type: 'retract', data: { seq: e.seq, reason } }));
    // No version check: what is taken back is named by its seq, whatever came after it.
    version = (await appendEvents(entry.gameId, null, retractions, { key: entry.club })).version;
  }
  await remove(entry);
  await rebase(entry.gameId, (entry.key ?? 0) + 1, version);
}

/**
 * @typedef {{status: 'sent'} | {status: 'unreachable' | 'conflict' | 'refused', entry: Entry, error: ApiError | null}} Outcome
 */

/**
 * Sends a game's waiting entries in order, stopping at the first that is not stored.
 * @param {string} gameId @returns {Promise<Outcome>}
 */
export function send(gameId) {
  const run = sending.then(() => sendNow(gameId));
  sending = run.then(() => {}, () => {});
  return run;
}

/** @param {string} gameId @returns {Promise<Outcome>} */
async function sendNow(gameId) {
  try {
    for (const waiting of await waitingFor(gameId)) {
      const entry = { ...waiting, tried: true };
      if (entry.conflict) return { status: 'conflict', entry, error: null };
      if (entry.refused) return { status: 'refused', entry, error: null };
      const giveUp = new AbortController();
      inFlight = { key: entry.key, giveUp };
      try {
        if (waiting.takenBack) {
          await settleTakenBack(waiting);
          continue;
        }
        if (!waiting.tried) await save(entry);
        await appendEvents(gameId, entry.baseVersion, entry.events, { key: entry.club, signal: giveUp.signal });
        // Stored, but taken back while its answer was on its way: taken back in the log too.
        const now = (await waitingFor(gameId)).find((e) => e.key === entry.key);
        if (now?.takenBack) await settleTakenBack(now);
        else await remove(entry);
      } catch (err) {
        const error = err instanceof ApiError ? err : new ApiError(0, { detail: String(err) });
        // Taken back while on its way: the next send looks for it in the log.
        if (giveUp.signal.aborted) return { status: 'unreachable', entry, error };
        if (sendLater(error)) return { status: 'unreachable', entry, error };
        if (waiting.takenBack) {
          // Its take-back refused in the log: the table decides (drop it) like any refusal.
          await save({ ...waiting, refused: error.problem });
          return { status: 'refused', entry: waiting, error };
        }
        if (error.status === 409) {
          await save({ ...entry, conflict: { currentVersion: error.problem.current_version ?? null } });
          return { status: 'conflict', entry, error };
        }
        await save({ ...entry, refused: error.problem });
        return { status: 'refused', entry, error };
      } finally {
        inFlight = null;
      }
    }
    return { status: 'sent' };
  } finally {
    await publish(gameId);
  }
}

/** Sends every game's waiting entries (the page was opened again, or the connection is back). */
export async function sendAll() {
  const games = new Set((await all()).map((e) => e.gameId));
  for (const gameId of games) await send(gameId);
}
