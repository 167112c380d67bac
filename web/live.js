// Keeps the open game's state fresh: the live stream when the server has it, else polling.
// Either way it only feeds the state; the views render from there.
import { followGame, getGame, getScore, listEvents } from './api.js';
import { getState, mergeEvents, update } from './state.js';
import { showNotice } from './ui.js';

const POLL_MS = 4000;

/** Reads the game, its log and its score again and puts them in the state. @param {string} id */
export async function reload(id) {
  const [game, page, score] = await Promise.all([getGame(id), listEvents(id), getScore(id)]);
  if (getState().route.params.id !== id) return;
  update({ game, events: page.events, score });
}

/**
 * Follows a game until the returned function is called.
 * @param {string} id
 * @returns {() => void}
 */
export function follow(id) {
  let stopped = false;
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  update({ live: 'connecting' });
  const close = followGame(id, {
    onSnapshot(data) {
      if (stopped) return;
      update({ live: 'live', game: data.game, score: data.score });
      showNotice(null);
    },
    onAppended(data) {
      if (stopped) return;
      const state = getState();
      const game = state.game ? { ...state.game, version: data.version } : state.game;
      update({ live: 'live', game, score: data.score, events: mergeEvents(state.events, data.events) });
      // The marks (retracted_by, corrected_by) and the status come from a fresh read.
      reload(id).catch(() => {});
    },
    onUnavailable() {
      if (stopped || timer) return;
      update({ live: 'polling' });
      showNotice('Live updates are not available on this server: the page checks for new rounds every few seconds.');
      timer = setInterval(async () => {
        try {
          const game = await getGame(id);
          if (!stopped && game.version !== getState().game?.version) await reload(id);
        } catch { /* offline for a moment: try again at the next tick */ }
      }, POLL_MS);
    },
  });
  return () => {
    stopped = true;
    close();
    if (timer) clearInterval(timer);
    update({ live: 'off' });
  };
}
