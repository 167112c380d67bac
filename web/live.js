// Keeps the open game's state fresh: the live stream when the server has it, else polling.
// Either way it only feeds the state; the views render from there. It also says honestly
// whether the page is in touch with the server: `live`, `reconnecting` (the stream broke or went
// quiet), `offline` (the server never answered since the game was opened) or `polling`.
import { checkGame, followClub, followGame, getGame, getScore, listEvents, unreachable } from './api.js';
import { getState, mergeEvents, update } from './state.js';
import { showNotice } from './ui.js';
import { t } from './i18n.js';


const POLL_MS = 4000;
/** How long to wait before opening a broken stream again. */
const RETRY_MS = 3000;
/**
 * The server's heartbeat (every 10 s) is an SSE comment, which EventSource does not show to the
 * page: after this long without a message the page asks the server whether it is still there,
 * with a 5 s limit, so a silent dead spot shows as "reconnecting…" within about 20 s.
 */
const QUIET_MS = 10000;
const CHECK_MS = 2500;

/** Reads the game, its log and its score again and puts them in the state. @param {string} id */
export async function reload(id) {
  const [game, page, score] = await Promise.all([getGame(id), listEvents(id), getScore(id)]);
  if (getState().route.params.id !== id) return;
  update({ game, events: page.events, score });
}

/**
 * Follows a game until the returned function is called. `onBack` runs each time the server
 * answers again after the page lost it (or first opened the game without it).
 * @param {string} id
 * @param {{onBack?: () => void}} [hooks]
 * @returns {() => void}
 */
export function follow(id, { onBack } = {}) {
  let stopped = false;
  /** @type {ReturnType<typeof setInterval> | null} */
  let poller = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let retry = null;
  let lastHeard = Date.now();
  let checking = false;
  /** Whether the stream ever opened (a server with the stream); then a failure is an outage. */
  let everOpened = false;
  /** Whether the page lost the server (or never had it) since the last snapshot. */
  let lost = false;
  let close = () => {};
  update({ live: 'connecting' });

  const heard = () => { lastHeard = Date.now(); };

  const open = () => {
    retry = null;
    if (stopped) return;
    close = followGame(id, {
      onOpen: heard,
      onSnapshot(data) {
        if (stopped) return;
        heard();
        everOpened = true;
        // The stream speaks the page's language (`?lang=`, see api.js): its score is shown as sent.
        update({ live: 'live', game: data.game, score: data.score });
        showNotice(null);
        const { events } = getState();
        // Back after an outage, or opened during one: the log and the marks come from a fresh read.
        if (lost || events.length === 0) reload(id).catch(() => {});
        if (lost) onBack?.();
        lost = false;
      },
      onAppended(data) {
        if (stopped) return;
        heard();
        const state = getState();
        const game = state.game ? { ...state.game, version: data.version } : state.game;
        update({ live: 'live', game, score: data.score, events: mergeEvents(state.events, data.events) });
        // The marks (retracted_by, corrected_by) and the status come from a fresh read.
        reload(id).catch(() => {});
      },
      onError: (opened) => { if (!stopped) broken(opened); },
    });
  };

  /** The stream broke or never opened: an outage (try again), or a server without the stream (poll). */
  const broken = async (/** @type {boolean} */ opened) => {
    close();
    if (opened || everOpened) {
      lost = true;
      update({ live: 'reconnecting' });
      retry = setTimeout(open, RETRY_MS);
      return;
    }
    try {
      await checkGame(id);
    } catch (err) {
      if (stopped) return;
      if (unreachable(err)) {
        lost = true;
        update({ live: getState().game ? 'reconnecting' : 'offline' });
        retry = setTimeout(open, RETRY_MS);
        return;
      }
    }
    if (!stopped) poll();
  };

  const poll = () => {
    if (poller) return;
    update({ live: 'polling' });
    showNotice(t('pad.live.polling'));
    poller = setInterval(async () => {
      try {
        const game = await getGame(id);
        if (!stopped && game.version !== getState().game?.version) await reload(id);
      } catch { /* offline for a moment: try again at the next tick */ }
    }, POLL_MS);
  };

  // A stream that went quiet may be dead without an error (a dead spot drops packets): ask.
  const watchdog = setInterval(async () => {
    if (stopped || checking || getState().live !== 'live' || Date.now() - lastHeard < QUIET_MS) return;
    checking = true;
    try {
      const game = await checkGame(id);
      heard();
      if (!stopped && game.version !== getState().game?.version) reload(id).catch(() => {});
    } catch (err) {
      if (!stopped && unreachable(err) && getState().live === 'live') broken(true);
    } finally {
      checking = false;
    }
  }, CHECK_MS);

  open();
  return () => {
    stopped = true;
    close();
    clearInterval(watchdog);
    if (poller) clearInterval(poller);
    if (retry) clearTimeout(retry);
    update({ live: 'off' });
  };
}

/**
 * Follows the club's games (the games list) until the returned function is called: `onChange`
 * runs for each game another phone starts, finishes, abandons or resumes. A broken stream is
 * opened again after a while; `onChange` then runs too (what changed meanwhile was missed).
 * @param {() => void} onChange
 * @returns {() => void}
 */
export function followGames(onChange) {
  let stopped = false;
  let broke = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let retry = null;
  let close = () => {};
  const open = () => {
    retry = null;
    if (stopped) return;
    if (broke) onChange();
    close = followClub({
      onChange: () => { if (!stopped) onChange(); },
      onError: () => {
        close();
        broke = true;
        if (!stopped) retry = setTimeout(open, RETRY_MS);
      },
    });
  };
  open();
  return () => {
    stopped = true;
    close();
    if (retry) clearTimeout(retry);
  };
}
