// Entries waiting to be sent. Every Record goes through here: the entry is kept on the phone
// (IndexedDB; in memory where the browser has none) with its event ids, then sent, one entry at a
// time in the order recorded. An entry the server did not answer stays and is sent again later
// (the ids make a resend harmless: the server answers with what it stored); one another phone
// beat (409) or the rules refused (422) stays too, paused, until the table decides what to do.
// Nothing here is shown as confirmed: the scoreboard only ever shows the server's answers.
import { appendEvents, ApiError, unreachable } from './api.js';
import { getState, update } from './state.js';

/**
 * @typedef {{
 *   key?: number, gameId: string,
 *   baseVersion: number | null,
 *   events: {id: string, type: string, data: any}[],
 *   label: string, queuedAt: string, round?: boolean,
 *   conflict?: {currentVersion: number | null} | null,
 *   refused?: {detail?: string, title?: string, pointer?: string | null} | null,
 * }} Entry
 * `baseVersion`: the game's version the entry was recorded at (the entries waiting before it
 * counted in), sent as `expected_version` so that another phone's entry is never silently
 * overwritten. `label`: the step in the words of the page that recorded it; `round`: whether
 * it is a whole round (the waiting box counts rounds then).
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
async function publish(gameId) {
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
    for (const entry of await waitingFor(gameId)) {
      if (entry.conflict) return { status: 'conflict', entry, error: null };
      if (entry.refused) return { status: 'refused', entry, error: null };
      try {
        await appendEvents(gameId, entry.baseVersion, entry.events);
        await remove(entry);
      } catch (err) {
        const error = err instanceof ApiError ? err : new ApiError(0, { detail: String(err) });
        if (unreachable(error)) return { status: 'unreachable', entry, error };
        if (error.status === 409) {
          await save({ ...entry, conflict: { currentVersion: error.problem.current_version ?? null } });
          return { status: 'conflict', entry, error };
        }
        await save({ ...entry, refused: error.problem });
        return { status: 'refused', entry, error };
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
