// The only module that talks to the server: it alone knows the paths, the token header and
// application/problem+json. Everything here is the public contract of ../shared/API.md.
import { lang, t } from './i18n.js';

/**
 * The API's shapes, generated from openapi/openapi.json (scripts/typecheck-pad.sh); a change to
 * the API that breaks the page fails that check.
 * @typedef {import('./types/api').components['schemas']} Schemas
 */

/** A refused request: the server's problem+json, with the field it names. */
export class ApiError extends Error {
  /** @param {number} status @param {any} problem */
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    /** @type {{type?: string, title?: string, status?: number, detail?: string, pointer?: string | null, event_index?: number | null, current_version?: number | null}} */
    this.problem = problem ?? {};
  }
}

/**
 * Whether a failed request never reached the server: no connection, no answer in time, the
 * server gave up waiting for the request itself (408: a dead spot held it past the server's
 * patience), or a proxy saying so. @param {unknown} err
 */
export function unreachable(err) {
  return err instanceof ApiError && [0, 408, 502, 503, 504].includes(err.status);
}

/**
 * Whether the server stored nothing and a later send may be stored: unreachable, or too many
 * requests for now (429, from this phone's address or club). @param {unknown} err
 */
export function sendLater(err) {
  return unreachable(err) || (err instanceof ApiError && err.status === 429);
}

/** @type {string | null} */
let token = null;

/** The token every call sends from now on (the club's, or a share link's). @param {string | null} t */
export function useToken(t) {
  token = t;
}

/** How long a request may wait for an answer before the page treats the server as unreachable. */
const ANSWER_MS = 15000;

/**
 * @param {string} method
 * @param {string} path
 * @param {{body?: any, query?: Record<string, any>, timeoutMs?: number, key?: string | null, signal?: AbortSignal}} [options]
 * `key`: a token to send with this request only, instead of the one in use; `signal`: the caller
 * gives up on the answer (a send taken back), as when the server cannot be reached.
 */
async function call(method, path, { body, query, timeoutMs = ANSWER_MS, key, signal } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  /** @type {Record<string, string>} */
  // The server's own words (refusals, score explanations) in the page's language.
  const headers = { accept: 'application/json, application/problem+json', 'accept-language': lang() };
  const bearer = key ?? token;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    // A dead spot often swallows packets rather than refusing them: give up after a while, as
    // when the server cannot be reached (a resend is harmless, the events carry their ids).
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), timeoutMs);
    signal?.addEventListener('abort', () => giveUp.abort());
    try {
      response = await fetch(url, { method, headers, signal: giveUp.signal, body: body === undefined ? undefined : JSON.stringify(body) });
    } finally {
      clearTimeout(timer);
    }
  } catch {
    throw new ApiError(0, { title: t('pad.api.no_connection'), detail: t('pad.api.unreachable') });
  }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) throw new ApiError(response.status, json ?? { detail: text || t('pad.api.no_reason', { status: response.status }) });
  return json;
}

/** `POST /v1/clubs` → `{id, name, token}`. @param {string} name @returns {Promise<Schemas['ClubCreated']>} */
export const createClub = (name) => call('POST', '/v1/clubs', { body: { name } });

/**
 * `GET /v1/club` → `{id, name}`: the club a key opens. With `key`, asked with that key alone (a
 * join link's, before this phone decides to keep it); else with the key in use.
 * @param {string} [key] @returns {Promise<Schemas['ClubView']>}
 */
export const getClub = (key) => call('GET', '/v1/club', { key });

/** `GET /v1/games` with filters. @param {{game?: string, player?: string, status?: string, from?: string, to?: string, limit?: number, cursor?: string}} [query] @returns {Promise<Schemas['GamePage']>} */
export const listGames = (query) => call('GET', '/v1/games', { query });

/** @param {string} id @returns {Promise<Schemas['GameSummary']>} */
export const getGame = (id) => call('GET', `/v1/games/${encodeURIComponent(id)}`);

/** The game's summary, asked quickly: whether the server answers at all. @param {string} id @returns {Promise<Schemas['GameSummary']>} */
export const checkGame = (id) => call('GET', `/v1/games/${encodeURIComponent(id)}`, { timeoutMs: 5000 });

/** `POST /v1/games`. @param {{game: string, players: {name?: string, player_id?: string, color?: string}[], options?: any, id?: string}} body @returns {Promise<Schemas['GameSummary']>} */
export const createGame = (body) => call('POST', '/v1/games', { body });

/** The whole log, page after page (`key`: asked with that club key). @param {string} id @param {string | null} [key] @returns {Promise<Schemas['EventPage']>} */
export async function listEvents(id, key) {
  /** @type {Schemas['EventPage']} */
  const page = await call('GET', `/v1/games/${encodeURIComponent(id)}/events`, { query: { limit: 1000 }, key: key ?? undefined });
  let after = page.next_after;
  while (after !== null && after !== undefined) {
    /** @type {Schemas['EventPage']} */
    const next = await call('GET', `/v1/games/${encodeURIComponent(id)}/events`, { query: { limit: 1000, after }, key: key ?? undefined });
    page.events.push(...next.events);
    page.version = next.version;
    after = next.next_after;
  }
  return page;
}

/**
 * Appends events; all or none are stored. `key`: the club key to send them with (an entry kept
 * on the phone goes with its own club's, whichever club is open now); `signal`: gives up.
 * @param {string} id @param {number | null} expectedVersion @param {{id: string, type: string, data: any}[]} events
 * @param {{key?: string | null, signal?: AbortSignal}} [options]
 * @returns {Promise<Schemas['AppendResult']>}
 */
export const appendEvents = (id, expectedVersion, events, { key, signal } = {}) =>
  call('POST', `/v1/games/${encodeURIComponent(id)}/events`, {
    body: expectedVersion === null ? { events } : { expected_version: expectedVersion, events },
    key: key ?? undefined, signal,
  });

/** @param {string} id @returns {Promise<Schemas['ScoreView']>} */
export const getScore = (id) => call('GET', `/v1/games/${encodeURIComponent(id)}/score`);

/** @param {{search?: string, limit?: number}} [query] @returns {Promise<Schemas['PlayerPage']>} */
export const listPlayers = (query) => call('GET', '/v1/players', { query: { limit: 200, ...query } });

/** @param {string} id @returns {Promise<Schemas['PlayerStats']>} */
export const getPlayerStats = (id) => call('GET', `/v1/players/${encodeURIComponent(id)}/stats`);

/** @param {string} id @returns {Promise<Schemas['PlayerGamePage']>} */
export const getPlayerGames = (id) => call('GET', `/v1/players/${encodeURIComponent(id)}/games`, { query: { limit: 100 } });

/** @param {{game?: string, variant?: string, sort?: string, min_games?: number}} [query] @returns {Promise<Schemas['Leaderboard']>} */
export const getLeaderboard = (query) => call('GET', '/v1/stats/leaderboard', { query });

/** @param {{game: string, to?: string, limit?: number}} query @returns {Promise<Schemas['Ratings']>} */
export const getRatings = (query) => call('GET', '/v1/stats/ratings', { query: { limit: 200, ...query } });

/** @param {string} id @param {string} game @returns {Promise<Schemas['PlayerRatingHistory']>} */
export const getPlayerRatings = (id, game) =>
  call('GET', `/v1/players/${encodeURIComponent(id)}/ratings`, { query: { game, limit: 200 } });

/** @param {string} id @returns {Promise<Schemas['GameRatings']>} */
export const getGameRatings = (id) => call('GET', `/v1/games/${encodeURIComponent(id)}/ratings`);

/** A read-only link token for one game (`POST /v1/games/{id}/shares`). @param {string} id @param {number} hours */
export const createShare = (id, hours) =>
  call('POST', `/v1/games/${encodeURIComponent(id)}/shares`, { body: { expires_in_hours: hours } });

/** The share link's QR code, drawn by the server as SVG (no network beyond this origin). @param {string} text */
export const qrCodeUrl = (text) => `/pad/qr.svg?text=${encodeURIComponent(text)}`;

/**
 * A token for one phone (`POST /v1/tokens`, admin only): the log then names who recorded what.
 * @param {string} name @param {'write' | 'read'} scope
 */
export const createToken = (name, scope) => call('POST', '/v1/tokens', { body: { name, scope } });

/**
 * The addresses to build links for other phones on, best first: the server's public address
 * when it has one (`TABLETALLY_PUBLIC_URL`); on a page opened on this computer (127.0.0.1,
 * localhost), the computer's LAN addresses; else the page's own. `localOnly`: the only address
 * is one that no other phone can open.
 * @returns {Promise<{bases: string[], localOnly: boolean}>}
 */
export async function linkBases() {
  /** @type {{public_url: string | null, lan: string[]}} */
  let links = { public_url: null, lan: [] };
  try { links = await call('GET', '/pad/links.json'); } catch { /* the page's own address */ }
  if (links.public_url) return { bases: [links.public_url], localOnly: false };
  const host = window.location.hostname;
  const loopback = host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  if (loopback && links.lan.length) return { bases: links.lan, localOnly: false };
  return { bases: [window.location.origin], localOnly: loopback };
}

/**
 * Follows a game live (`GET /v1/games/{id}/stream`, server-sent events). EventSource cannot send
 * headers, so the token goes as `?access_token=`. `onError` fires once when the stream breaks or
 * cannot be opened (`opened` says whether it ever was); the caller decides whether to reopen it
 * or to poll. The browser's own reconnection is not used: the caller reopens with a fresh
 * snapshot, which also tells it the server is back.
 * @param {string} id
 * @param {{onOpen: () => void, onSnapshot: (d: any) => void, onAppended: (d: any) => void, onError: (opened: boolean) => void}} handlers
 * @returns {() => void} closes the stream
 */
export function followGame(id, { onOpen, onSnapshot, onAppended, onError }) {
  const url = new URL(`/v1/games/${encodeURIComponent(id)}/stream`, window.location.origin);
  if (token) url.searchParams.set('access_token', token);
  // EventSource cannot send Accept-Language: the stream's scores are asked for in the page's language.
  url.searchParams.set('lang', lang());
  let opened = false;
  let source;
  try {
    source = new EventSource(url);
  } catch {
    onError(false);
    return () => {};
  }
  source.addEventListener('open', () => { opened = true; onOpen(); });
  source.addEventListener('snapshot', (e) => onSnapshot(JSON.parse(/** @type {MessageEvent} */ (e).data)));
  source.addEventListener('appended', (e) => onAppended(JSON.parse(/** @type {MessageEvent} */ (e).data)));
  source.addEventListener('error', () => {
    source.close();
    onError(opened);
  });
  return () => source.close();
}

/**
 * Follows the club's lobby (`GET /v1/stream`, server-sent events): `onChange` gets each game
 * started, finished, abandoned or resumed (its summary); `onError` fires once when the stream
 * breaks or cannot be opened, and the caller decides whether to open it again.
 * @param {{onChange: (type: string, game: any) => void, onError: () => void}} handlers
 * @returns {() => void} closes the stream
 */
export function followClub({ onChange, onError }) {
  const url = new URL('/v1/stream', window.location.origin);
  if (token) url.searchParams.set('access_token', token);
  let source;
  try {
    source = new EventSource(url);
  } catch {
    onError();
    return () => {};
  }
  for (const type of ['game_created', 'game_finished', 'game_abandoned', 'game_resumed']) {
    source.addEventListener(type, (e) => onChange(type, JSON.parse(/** @type {MessageEvent} */ (e).data)));
  }
  source.addEventListener('error', () => {
    source.close();
    onError();
  });
  return () => source.close();
}
