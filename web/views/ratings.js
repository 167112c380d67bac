// Ratings: the club's players of one game ranked by their skill rating, and a player's rating
// game by game as a small chart; the favourite of a game about to start, and what a finished
// game did to its players' ratings (shown on the game's page).
import { getRatings, getPlayerRatings, getGameRatings, ApiError } from '../api.js';
import { lineChart } from '../charts.js';
import { GAMES } from '../games/index.js';
import { h, field, replace } from '../ui.js';
import { num, t } from '../i18n.js';

/** A rating as shown: one decimal, in the page's digits. @param {number} r */
const rating = (r) => num(Math.round(r * 10) / 10, 1);

/** A chance as a whole percentage. @param {number} p */
const percent = (p) => t('pad.history.percent', { n: num(Math.round(p * 100)) });

/** @param {unknown} err */
const failure = (err) => h('p', { class: 'field-error', role: 'alert' }, err instanceof ApiError ? err.message : String(err));

/** The ratings table of one game (#/ratings?game=…). @param {HTMLElement} root */
export function mountRatings(root) {
  const wanted = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('game');
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, GAMES.map((g) => h('option', { value: g.id }, g.name))));
  game.value = GAMES.some((g) => g.id === wanted) ? /** @type {string} */ (wanted) : GAMES[0].id;
  const box = h('div');
  const chartBox = h('div', { class: 'rating-history' });
  /** A player's rating game by game. @param {string} id @param {string} name */
  const showHistory = async (id, name) => {
    try {
      const history = await getPlayerRatings(id, game.value);
      replace(chartBox, lineChart(history.points.map((p) => ({ value: Math.round(p.ordinal * 10) / 10, won: p.rank === 1, label: new Date(p.played_at).toLocaleDateString() })),
        t('pad.ratings.history', { name })));
      // Below the table: on a phone, out of sight until brought into view.
      chartBox.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      replace(chartBox, failure(err));
    }
  };
  const load = async () => {
    replace(chartBox);
    try {
      const table = await getRatings({ game: game.value });
      replace(box, table.ratings.length
        ? h('table', { class: 'ratings' },
          h('caption', null, t('pad.ratings.caption')),
          h('thead', null, h('tr', null,
            h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('pad.score.player')),
            h('th', { scope: 'col', class: 'ranked', 'aria-sort': 'descending' }, t('pad.ratings.rating')),
            h('th', { scope: 'col' }, t('pad.history.games')))),
          h('tbody', null, table.ratings.map((p, i) => h('tr', { dataset: { player: p.name } },
            h('td', null, num(i + 1)),
            h('th', { scope: 'row' }, h('button', { type: 'button', class: 'link', onclick: () => showHistory(p.player_id, p.name) }, p.name)),
            h('td', { class: 'ranked' }, rating(p.ordinal)),
            h('td', null, num(p.games))))))
        : h('p', null, t('pad.ratings.none')));
    } catch (err) {
      replace(box, failure(err));
    }
  };
  game.addEventListener('change', () => {
    load();
    const hash = `#/ratings?game=${game.value}`;
    if (hash !== window.location.hash) window.history.pushState(null, '', hash);
  });
  replace(root, h('h1', null, t('pad.nav.ratings')), h('form', { class: 'filters' }, field(t('pad.history.game'), game)),
    h('p', { class: 'hint' }, t('pad.ratings.explained')), box, chartBox);
  load();
  return () => {};
}

/**
 * A game's ratings on its page: before the first round, the favourite and each seat's chance;
 * once finished, each player's rating before and after. Nothing while it goes on.
 * @param {string} id @param {{status: string, version: number}} game
 * @returns {Promise<HTMLElement | null>}
 */
export async function gameRatings(id, game) {
  const starting = game.status === 'in_progress' && game.version === 1;
  if (!starting && game.status !== 'finished') return null;
  let ratings;
  try {
    ratings = await getGameRatings(id);
  } catch {
    return null;
  }
  if (starting) {
    const favourite = ratings.players.find((p) => p.seat === ratings.favourite);
    return h('section', { class: 'game-ratings', 'aria-label': t('pad.ratings.chances') },
      favourite ? h('p', { class: 'favourite' }, t('pad.ratings.favourite', { name: favourite.name, chance: percent(favourite.chance) })) : null,
      h('ul', null, ratings.players.map((p) => h('li', { dataset: { player: p.name } }, `${p.name}: ${percent(p.chance)}`))));
  }
  return h('section', { class: 'game-ratings', 'aria-label': t('pad.ratings.changes') },
    h('h3', null, t('pad.ratings.changes')),
    h('ul', null, ratings.players.map((p) => {
      const change = p.after ? p.after.ordinal - p.before.ordinal : 0;
      return h('li', { dataset: { player: p.name } }, p.after
        ? t('pad.ratings.change', { name: p.name, before: rating(p.before.ordinal), after: rating(p.after.ordinal), change: `${change >= 0 ? '+' : ''}${rating(change)}` })
        : p.name);
    })));
}
