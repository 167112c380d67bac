// History: the club's games (with filters), a player's page and the leaderboard, with small
// SVG charts.
import { listGames, listPlayers, getPlayerStats, getPlayerGames, getLeaderboard, ApiError } from '../api.js';
import { barChart, lineChart } from '../charts.js';
import { GAMES, gameById } from '../games/index.js';
import { h, field, replace, when } from '../ui.js';

const gameName = (/** @type {string} */ id) => gameById(id)?.name ?? id;

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

  const load = async (/** @type {boolean} */ append) => {
    try {
      const page = await listGames({ game: game.value, status: status.value, player: player.value, limit: 20, cursor: append ? cursor : undefined });
      cursor = page.next_cursor;
      more.hidden = !cursor;
      const items = page.games.map((/** @type {any} */ g) => h('li', null,
        h('a', { href: `#/game/${g.id}` }, h('strong', null, gameName(g.game)), ' — ', g.players.map((/** @type {any} */ p) => p.name).join(', ')),
        h('small', null, ` ${g.status.replace('_', ' ')} · ${when(g.started_at)}`)));
      if (append) list.append(...items);
      else replace(list, items.length ? items : h('li', null, 'No games yet. ', h('a', { href: '#/new' }, 'Start one.')));
    } catch (err) {
      replace(list, failure(err));
    }
  };
  listPlayers().then((page) => player.append(...page.players.map((/** @type {any} */ p) => h('option', { value: p.id }, p.name)))).catch(() => {});
  const filters = h('form', { class: 'filters' }, field('Game', game), field('Status', status), field('Player', player));
  filters.addEventListener('change', () => load(false));
  more.addEventListener('click', () => load(true));

  const players = h('ul', { class: 'chips' });
  listPlayers().then((page) => replace(players, page.players.map((/** @type {any} */ p) => h('li', null, h('a', { href: `#/player/${p.id}` }, p.name))))).catch(() => {});

  root.append(h('h1', null, 'Games'), h('a', { class: 'button primary', href: '#/new' }, 'New game'), filters, list, more,
    h('h2', null, 'Players'), players);
  load(false);
  return () => {};
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

/** The leaderboard, per game or over all games. @param {HTMLElement} root */
export function mountLeaderboard(root) {
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, h('option', { value: '' }, 'All games'), GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const box = h('div');
  const load = async () => {
    try {
      const board = await getLeaderboard({ game: game.value || undefined });
      replace(box,
        board.players.length ? barChart(board.players.slice(0, 8).map((/** @type {any} */ p) => ({ label: p.name, value: p.win_rate })), 'Win rate') : null,
        h('table', { class: 'leaderboard' },
          h('thead', null, h('tr', null, ['#', 'Player', 'Games', 'Wins', 'Win rate', 'Avg score'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', null, board.players.map((/** @type {any} */ p) => h('tr', null,
            h('td', null, p.rank), h('th', { scope: 'row' }, h('a', { href: `#/player/${p.player_id}` }, p.name)),
            h('td', null, p.games_played), h('td', null, p.wins), h('td', null, `${Math.round(p.win_rate * 100)}%`),
            // Over all games there is no average: it would mix lowest-wins and highest-wins totals.
            h('td', null, p.average_score == null ? '–' : p.average_score.toFixed(1)))))));
    } catch (err) {
      replace(box, failure(err));
    }
  };
  game.addEventListener('change', load);
  root.append(h('h1', null, 'Leaderboard'), h('form', { class: 'filters' }, field('Game', game)), box);
  load();
  return () => {};
}
