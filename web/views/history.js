// History: the club's games (with filters), a player's page and the leaderboard, with small
// SVG charts.
import { listGames, listPlayers, getPlayerStats, getPlayerGames, getLeaderboard, getScore, ApiError } from '../api.js';
import { barChart, lineChart } from '../charts.js';
import { GAMES, gameById } from '../games/index.js';
import { h, field, replace, when } from '../ui.js';
import { joined, num, t } from '../i18n.js';
import { statusName } from './game.js';
import { followGames } from '../live.js';

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
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, h('option', { value: '' }, t('pad.history.all_games')), GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const status = /** @type {HTMLSelectElement} */ (h('select', { name: 'status' }, [['', t('pad.history.any')], ['in_progress', t('pad.history.in_progress')], ['finished', t('pad.history.finished')], ['abandoned', t('pad.history.abandoned')]].map(([v, l]) => h('option', { value: v }, l))));
  const player = /** @type {HTMLSelectElement} */ (h('select', { name: 'player' }, h('option', { value: '' }, t('pad.history.anyone'))));
  const list = h('ul', { class: 'games' });
  let cursor = null;
  const more = h('button', { type: 'button', hidden: true }, t('pad.history.older'));

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
          h('a', { href: `#/game/${g.id}` }, h('strong', null, gameName(g.game)), ' — ', joined(g.players.map((/** @type {any} */ p) => p.name))),
          h('small', null, ` ${statusName(g.status)} · ${when(g.started_at)}`), result);
      });
      if (append) list.append(...items);
      else replace(list, items.length ? items : h('li', null, `${t('pad.history.none')} `, h('a', { href: '#/new' }, t('pad.history.start_one'))));
    } catch (err) {
      replace(list, failure(err));
    }
  };
  listPlayers().then((page) => {
    player.append(...page.players.map((/** @type {any} */ p) => h('option', { value: p.id }, p.name)));
    const who = wanted.get('player');
    if (who && player.value !== who) { player.value = who; load(false); }
  }).catch(() => {});
  const filters = h('form', { class: 'filters' }, field(t('pad.history.game'), game), field(t('pad.history.status'), status), field(t('pad.history.player'), player));
  filters.addEventListener('change', () => {
    keepFilters('#/', { game: game.value, status: status.value, player: player.value });
    load(false);
  });
  more.addEventListener('click', () => load(true));

  const players = h('ul', { class: 'chips' });
  listPlayers().then((page) => replace(players, page.players.map((/** @type {any} */ p) => h('li', null, h('a', { href: `#/player/${p.id}` }, p.name))))).catch(() => {});

  replace(root, h('h1', null, t('pad.history.games')), h('a', { class: 'button primary', href: '#/new' }, t('pad.nav.new_game')), filters, list, more,
    h('h2', null, t('pad.history.players')), players);
  load(false);
  // A game another phone starts (or finishes) shows up without a reload.
  return followGames(() => load(false));
}

/** "Winner: Bo · Bo 37 · Ann 40" (or the leaders while the game goes on). @param {any} score */
function resultLine(score) {
  const first = score.final ? score.winners : score.leaders;
  const names = joined(first);
  const who = !first.length ? t('pad.score.no_points')
    : !score.final ? t('pad.score.leading', { names })
      : t(first.length > 1 ? 'pad.score.winners' : 'pad.score.winner', { names });
  return h('span', null, h('strong', null, who), ' · ',
    score.players.map((/** @type {any} */ p) => `${p.name} ${num(p.total)}`).join(' · '));
}

/** A player's page: wins, win rate, streaks, per-game figures, score over time. @param {HTMLElement} root @param {string} id */
export function mountPlayer(root, id) {
  const box = h('div', null, h('p', null, t('pad.loading')));
  root.append(box);
  Promise.all([getPlayerStats(id), getPlayerGames(id)]).then(([stats, page]) => {
    const finished = page.games.filter((/** @type {any} */ g) => g.total !== null && g.total !== undefined).reverse();
    const byGame = new Map();
    for (const g of finished) byGame.set(g.game, [...(byGame.get(g.game) ?? []), g]);
    replace(box,
      h('h1', null, stats.name),
      h('dl', { class: 'figures' },
        h('dt', null, t('pad.history.games')), h('dd', null, num(stats.games_played)),
        h('dt', null, t('pad.history.wins')), h('dd', null, num(stats.wins)),
        h('dt', null, t('pad.history.win_rate')), h('dd', null, percent(stats.win_rate)),
        h('dt', null, t('pad.history.streak_now')), h('dd', null, num(stats.current_win_streak)),
        h('dt', null, t('pad.history.streak_longest')), h('dd', null, num(stats.longest_win_streak)),
        h('dt', null, t('pad.history.average_rank')), h('dd', null, num(stats.average_rank, 2))),
      stats.per_game.length ? barChart(stats.per_game.map((/** @type {any} */ f) => ({ label: `${gameName(f.game)}${f.variant ? ` (${f.variant})` : ''}`, value: f.win_rate, text: percent(f.win_rate) })), t('pad.history.win_rate_per_game')) : null,
      h('table', { class: 'per-game' },
        h('caption', null, t('pad.history.per_game')),
        h('thead', null, h('tr', null, [t('pad.history.game'), t('pad.history.played'), t('pad.history.wins'), t('pad.history.average'), t('pad.history.best')].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', null, stats.per_game.map((/** @type {any} */ f) => h('tr', null,
          h('th', { scope: 'row' }, gameName(f.game), f.variant ? ` (${f.variant})` : ''), h('td', null, num(f.games_played)), h('td', null, num(f.wins)),
          h('td', null, num(f.average_score, 1)), h('td', null, num(f.best_score)))))),
      [...byGame.entries()].map(([g, games]) => h('figure', null,
        lineChart(games.map((/** @type {any} */ x) => ({ value: x.total, won: x.won, label: when(x.started_at) })), t('pad.history.over_time', { game: gameName(g) })),
        h('figcaption', null, t('pad.history.over_time_caption', { game: gameName(g) })))),
      h('h2', null, t('pad.history.games')),
      h('ul', { class: 'games' }, page.games.map((/** @type {any} */ g) => h('li', null,
        h('a', { href: `#/game/${g.game_id}` }, gameName(g.game)), ` ${when(g.started_at)} · ${statusName(g.status)}`,
        g.total !== null && g.total !== undefined ? ` · ${t('pad.history.points_rank', { total: g.total, rank: g.rank })}${g.won ? ' ★' : ''}` : ''))));
  }).catch((err) => replace(box, failure(err)));
  return () => {};
}

/** A rate as a percentage in the page's digits ("67%", "۶۷٪"). @param {number} rate */
function percent(rate) {
  return t('pad.history.percent', { n: Math.round(rate * 100) });
}

/** What a leaderboard can rank by: the figure's column, its name and the caption it gives. */
const sorts = () => /** @type {const} */ ([
  ['win_rate', t('pad.history.win_rate'), t('pad.history.ranked_win_rate')],
  ['wins', t('pad.history.wins'), t('pad.history.ranked_wins')],
  ['average_score', t('pad.history.average_score'), t('pad.history.ranked_average_score')],
]);

/** The leaderboard, per game or over all games, ranked by the figure it shows. @param {HTMLElement} root */
export function mountLeaderboard(root) {
  const game = /** @type {HTMLSelectElement} */ (h('select', { name: 'game' }, h('option', { value: '' }, t('pad.history.all_games')), GAMES.map((g) => h('option', { value: g.id }, g.name))));
  const SORTS = sorts();
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
      const shown = (p) => (by === 'wins' ? num(p.wins) : by === 'average_score' ? num(p.average_score ?? 0, 1) : percent(p.win_rate));
      const heads = [['rank', '#'], ['player', t('pad.score.player')], ['games', t('pad.history.games')], ['wins', t('pad.history.wins')], ['win_rate', t('pad.history.win_rate')], ['average_score', t('pad.history.avg_score')]];
      const caption = SORTS.find(([v]) => v === by)?.[2] ?? '';
      replace(box,
        board.players.length && by !== 'average_score'
          ? barChart(board.players.slice(0, 8).map((/** @type {any} */ p) => ({ label: p.name, value: by === 'wins' ? p.wins : p.win_rate, text: shown(p) })), caption, by === 'wins' ? Math.max(1, ...board.players.map((/** @type {any} */ p) => p.wins)) : 1)
          : null,
        h('table', { class: 'leaderboard' },
          h('caption', null, caption),
          h('thead', null, h('tr', null, heads.map(([key, t]) => h('th', { scope: 'col', class: key === by ? 'ranked' : null, 'aria-sort': key === by ? 'descending' : null }, t)))),
          h('tbody', null, board.players.map((/** @type {any} */ p) => h('tr', { dataset: { player: p.name } },
            h('td', null, num(p.rank)), h('th', { scope: 'row' }, h('a', { href: `#/player/${p.player_id}` }, p.name)),
            h('td', null, num(p.games_played)), h('td', { class: by === 'wins' ? 'ranked' : null }, num(p.wins)),
            h('td', { class: by === 'win_rate' ? 'ranked' : null }, percent(p.win_rate)),
            h('td', { class: by === 'average_score' ? 'ranked' : null }, p.average_score == null ? '–' : num(p.average_score, 1)))))));
    } catch (err) {
      replace(box, failure(err));
    }
  };
  const filters = h('form', { class: 'filters' }, field(t('pad.history.game'), game), field(t('pad.history.rank_by'), sort));
  filters.addEventListener('change', () => {
    load().then(() => keepFilters('#/leaderboard', { game: game.value, sort: sort.value === 'win_rate' ? '' : sort.value }));
  });
  replace(root, h('h1', null, t('pad.nav.leaderboard')), filters, box);
  load();
  return () => {};
}
