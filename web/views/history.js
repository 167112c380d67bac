// History: the club's games (with filters), a player's page and the leaderboard, with small
// SVG charts.
import { listGames, listPlayers, getPlayerStats, getPlayerGames, getLeaderboard, getScore, ApiError } from '../api.js';
import { barChart, lineChart } from '../charts.js';
import { GAMES, gameById } from '../games/index.js';
import { h, field, replace, when } from '../ui.js';

const gameName = (/** @type {string} */ id) => gameById(id)?.name ?? id;

/** The filters in the address after `?` (so the back button and a shared link keep them). */
const filtersInAddress = () => new URLSearchParams(window.location.hash.split('?')[1] ?? '');

/**
 * Puts the filters in the address as a new history entry (no reload: the view already shows them).
 * @param {string} route e.g. `#/` @param {Record<string, string>} values
 */
function keepFilters(route, values) {
  const query = new URLSearchParams(Object.entries(values).filter(([, v]) => v)).toString();
  const hash = query ? `${route}?${query}` : route;
  if (hash !== window.location.hash) window.history.pushState(null, '', hash);
}

/** @param {unknown} err */
const failure = (err) => h('p', { class: 'field-error', role: 'alert' }, err instanceof ApiError ? err.message : String(err));

/** The club's games, newest first, filtered by game, status and player. @param {HTMLElement} root */
export function mountGames(root) {
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, h('option', { value: '' }, 'All games'), GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const status = /** @type {HTMLSelectElement} */ (h('select', { name: 'status' }, [['', 'Any'], ['in_progress', 'In progress'], ['finished', 'Finished'], ['abandoned', 'Abandoned']].map(([v, l]) => h('option', { value: v }, l))));
  const player = /** @type {HTMLSelectElement} */ (h('select', { name: 'player' }, h('option', { value: '' }, 'Anyone')));
  const list = h('ul', { class: 'games' });
  let cursor = null;
  const more = h('button', { type: 'button', hidden: true }, 'Older games');

  const wanted = filtersInAddress();
  game.value = wanted.get('game') ?? '';
  status.value = wanted.get('status') ?? '';

  const load = async (/** @type {boolean} */ append) => {
    try {
      const page = await listGames({ game: game.value, status: status.value, player: player.value, limit: 20, cursor: append ? cursor : undefined });
      cursor = page.next_cursor;
      more.hidden = !cursor;
      const items = page.games.map((/** @type {any} */ g) => {
        const result = h('span', { class: 'result' });
        // Each game's winners (or leaders) and totals, from its scoreboard.
        if (g.status !== 'abandoned') {
          getScore(g.id).then((score) => replace(result, resultLine(score))).catch(() => {});
        }
        return h('li', { dataset: { game: g.id } },
          h('a', { href: `#/game/${g.id}` }, h('strong', null, gameName(g.game)), ' — ', g.players.map((/** @type {any} */ p) => p.name).join(', ')),
          h('small', null, ` ${g.status.replace('_', ' ')} · ${when(g.started_at)}`), result);
      });
      if (append) list.append(...items);
      else replace(list, items.length ? items : h('li', null, 'No games yet. ', h('a', { href: '#/new' }, 'Start one.')));
    } catch (err) {
      replace(list, failure(err));
    }
  };
  listPlayers().then((page) => {
    player.append(...page.players.map((/** @type {any} */ p) => h('option', { value: p.id }, p.name)));
    const who = wanted.get('player');
    if (who && player.value !== who) { player.value = who; load(false); }
  }).catch(() => {});
  const filters = h('form', { class: 'filters' }, field('Game', game), field('Status', status), field('Player', player));
  filters.addEventListener('change', () => {
    keepFilters('#/', { game: game.value, status: status.value, player: player.value });
    load(false);
  });
  more.addEventListener('click', () => load(true));

  const players = h('ul', { class: 'chips' });
  listPlayers().then((page) => replace(players, page.players.map((/** @type {any} */ p) => h('li', null, h('a', { href: `#/player/${p.id}` }, p.name))))).catch(() => {});

  replace(root, h('h1', null, 'Games'), h('a', { class: 'button primary', href: '#/new' }, 'New game'), filters, list, more,
    h('h2', null, 'Players'), players);
  load(false);
  return () => {};
}

/** "Winner: Bo · Bo 37 · Ann 40" (or the leaders while the game goes on). @param {any} score */
function resultLine(score) {
  const first = score.final ? score.winners : score.leaders;
  const who = first.length ? `${score.final ? 'Winner' : 'Leading'}${first.length > 1 && score.final ? 's' : ''}: ${first.join(', ')}` : 'No points yet';
  return h('span', null, h('strong', null, who), ' · ',
    score.players.map((/** @type {any} */ p) => `${p.name} ${p.total}`).join(' · '));
}

/** A player's page: wins, win rate, streaks, per-game figures, score over time. @param {HTMLElement} root @param {string} id */
export function mountPlayer(root, id) {
  const box = h('div', null, h('p', null, 'Loading…'));
  root.append(box);
  Promise.all([getPlayerStats(id), getPlayerGames(id)]).then(([stats, page]) => {
    const finished = page.games.filter((/** @type {any} */ g) => g.total !== null && g.total !== undefined).reverse();
    const byGame = new Map();
    for (const g of finished) byGame.set(g.game, [...(byGame.get(g.game) ?? []), g]);
    replace(box,
      h('h1', null, stats.name),
      h('dl', { class: 'figures' },
        h('dt', null, 'Games'), h('dd', null, stats.games_played),
        h('dt', null, 'Wins'), h('dd', null, stats.wins),
        h('dt', null, 'Win rate'), h('dd', null, `${Math.round(stats.win_rate * 100)}%`),
        h('dt', null, 'Win streak now'), h('dd', null, stats.current_win_streak),
        h('dt', null, 'Longest win streak'), h('dd', null, stats.longest_win_streak),
        h('dt', null, 'Average rank'), h('dd', null, stats.average_rank.toFixed(2))),
      stats.per_game.length ? barChart(stats.per_game.map((/** @type {any} */ f) => ({ label: `${gameName(f.game)}${f.variant ? ` (${f.variant})` : ''}`, value: f.win_rate })), 'Win rate per game') : null,
      h('table', { class: 'per-game' },
        h('caption', null, 'Per game'),
        h('thead', null, h('tr', null, ['Game', 'Played', 'Wins', 'Average', 'Best'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, stats.per_game.map((/** @type {any} */ f) => h('tr', null,
          h('th', { scope: 'row' }, gameName(f.game), f.variant ? ` (${f.variant})` : ''), h('td', null, f.games_played), h('td', null, f.wins),
          h('td', null, f.average_score.toFixed(1)), h('td', null, f.best_score))))),
      [...byGame.entries()].map(([g, games]) => h('figure', null,
        lineChart(games.map((/** @type {any} */ x) => ({ value: x.total, won: x.won, label: when(x.started_at) })), `${gameName(g)}: score per game over time`),
        h('figcaption', null, `${gameName(g)}: score per game over time (filled dots: wins)`))),
      h('h2', null, 'Games'),
      h('ul', { class: 'games' }, page.games.map((/** @type {any} */ g) => h('li', null,
        h('a', { href: `#/game/${g.game_id}` }, gameName(g.game)), ` ${when(g.started_at)} · ${g.status.replace('_', ' ')}`,
        g.total !== null && g.total !== undefined ? ` · ${g.total} points, rank ${g.rank}${g.won ? ' ★' : ''}` : ''))));
  }).catch((err) => replace(box, failure(err)));
  return () => {};
}

/** What a leaderboard can rank by: the figure's column and how it is shown. */
const SORTS = /** @type {const} */ ([
  ['win_rate', 'Win rate'],
  ['wins', 'Wins'],
  ['average_score', 'Average score'],
]);

/** The leaderboard, per game or over all games, ranked by the figure it shows. @param {HTMLElement} root */
export function mountLeaderboard(root) {
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, h('option', { value: '' }, 'All games'), GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const sort = /** @type {HTMLSelectElement} */ (h('select', { name: 'sort' }, SORTS.map(([v, l]) => h('option', { value: v }, l))));
  const wanted = filtersInAddress();
  game.value = wanted.get('game') ?? '';
  sort.value = wanted.get('sort') ?? 'win_rate';
  const box = h('div');
  const load = async () => {
    // An average needs one game: over all games it would mix lowest-wins and highest-wins totals.
    const average = /** @type {HTMLOptionElement} */ (sort.querySelector('option[value="average_score"]'));
    average.disabled = !game.value;
    if (!game.value && sort.value === 'average_score') sort.value = 'win_rate';
    const by = /** @type {'win_rate' | 'wins' | 'average_score'} */ (sort.value);
    try {
      const board = await getLeaderboard({ game: game.value || undefined, sort: by });
      /** The figure the board ranks by, as shown. @param {any} p */
      const shown = (p) => (by === 'wins' ? String(p.wins) : by === 'average_score' ? (p.average_score ?? 0).toFixed(1) : `${Math.round(p.win_rate * 100)}%`);
      const heads = [['rank', '#'], ['player', 'Player'], ['games', 'Games'], ['wins', 'Wins'], ['win_rate', 'Win rate'], ['average_score', 'Avg score']];
      replace(box,
        board.players.length && by !== 'average_score'
          ? barChart(board.players.slice(0, 8).map((/** @type {any} */ p) => ({ label: p.name, value: by === 'wins' ? p.wins : p.win_rate, text: shown(p) })), `Ranked by ${by === 'wins' ? 'wins' : 'win rate'}`, by === 'wins' ? Math.max(1, ...board.players.map((/** @type {any} */ p) => p.wins)) : 1)
          : null,
        h('table', { class: 'leaderboard' },
          h('caption', null, `Ranked by ${SORTS.find(([v]) => v === by)?.[1].toLowerCase()}`),
          h('thead', null, h('tr', null, heads.map(([key, t]) => h('th', { scope: 'col', class: key === by ? 'ranked' : null, 'aria-sort': key === by ? 'descending' : null }, t)))),
          h('tbody', null, board.players.map((/** @type {any} */ p) => h('tr', { dataset: { player: p.name } },
            h('td', null, p.rank), h('th', { scope: 'row' }, h('a', { href: `#/player/${p.player_id}` }, p.name)),
            h('td', null, p.games_played), h('td', { class: by === 'wins' ? 'ranked' : null }, p.wins),
            h('td', { class: by === 'win_rate' ? 'ranked' : null }, `${Math.round(p.win_rate * 100)}%`),
            h('td', { class: by === 'average_score' ? 'ranked' : null }, p.average_score == null ? '–' : p.average_score.toFixed(1)))))));
    } catch (err) {
      replace(box, failure(err));
    }
  };
  const filters = h('form', { class: 'filters' }, field('Game', game), field('Rank by', sort));
  filters.addEventListener('change', () => {
    load().then(() => keepFilters('#/leaderboard', { game: game.value, sort: sort.value === 'win_rate' ? '' : sort.value }));
  });
  replace(root, h('h1', null, 'Leaderboard'), filters, box);
  load();
  return () => {};
}
