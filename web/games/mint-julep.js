// Mint Julep: per round, the bets placed (each player may bet or keep their bet) and the race's
// finish. Sent as `bet_placed`… + `race_recorded` + `round_ended`; round 3's recorded finish ends
// the game by itself (option `last_race_ends_game`, default true), so no `round_ended` follows it
// (tables that log every card use the API's `card_played`).
import { h, field } from '../ui.js';

/** The horses in their starting order (top of the group first). */
const HORSES = [
  ['alaskan-justice', 'Alaskan Justice'],
  ['maple-splendor', 'Maple Splendor'],
  ['newtons-apple', 'Newton’s Apple'],
  ['whiskey-princess', 'Whiskey Princess'],
  ['you-got-me', 'You Got Me'],
];
const horseName = (/** @type {string} */ id) => HORSES.find(([h]) => h === id)?.[1] ?? id;

/** Whether recording round 3's finish ends the game (the option's default is true). */
const lastRaceEndsGame = (/** @type {any} */ game) => game.options?.last_race_ends_game !== false;

/** Rounds over: each `round_ended`, and round 3's recorded finish where it ends the game. */
const roundsOver = (/** @type {any} */ game, /** @type {any[]} */ effective) => {
  const ended = effective.filter((e) => e.type === 'round_ended').length;
  const finished = lastRaceEndsGame(game) && effective.some((e) => e.type === 'race_recorded' && e.data.round === 3);
  return finished ? 3 : ended;
};

export default {
  id: 'mint-julep',
  name: 'Mint Julep',
  players: { min: 2, max: 4 },
  goal: 'Highest total wins; ties are shared. 3 rounds of draft, bet and race.',
  options: [
    { key: 'split', label: 'Backers of one horse share', kind: 'choice', default: 'before_penalty', choices: [['before_penalty', 'bonus + place, then each pays their own late penalty'], ['after_penalty', 'each one’s points after the penalty']], help: 'House rule: when the split happens.' },
  ],
  colours: [],
  needsColours: () => false,
  correctable: ['race_recorded'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const rounds = roundsOver(game, effective);
    return { step: `Round ${Math.min(rounds + 1, 3)} of 3`, done: rounds >= 3 };
  },

  /** @param {{game: any, effective: any[], initial?: any}} ctx */
  form({ game, effective, initial }) {
    const round = initial?.round ?? roundsOver(game, effective) + 1;
    const twoPlayers = game.players.length === 2;
    /** The active bets per player (horse ids), from the bets that count. */
    const active = new Map(game.players.map((/** @type {any} */ p) => [p.name, /** @type {string[]} */ ([])]));
    for (const e of effective.filter((x) => x.type === 'bet_placed')) {
      const bets = active.get(e.data.player) ?? [];
      const replaced = e.data.replaces ?? (!twoPlayers || bets.length >= 2 ? bets[0] : null);
      const kept = replaced ? bets.filter((b) => b !== replaced) : bets;
      active.set(e.data.player, [...kept, e.data.horse]);
    }

    /** @type {{player: string, horse: HTMLSelectElement, replaces: HTMLSelectElement | null, wrap: HTMLElement}[]} */
    const bets = initial ? [] : game.players.map((/** @type {any} */ p) => {
      const current = active.get(p.name) ?? [];
      const horse = /** @type {HTMLSelectElement} */ (h('select', { name: 'bet', dataset: { player: p.name } },
        h('option', { value: '' }, current.length ? `keep: ${current.map(horseName).join(', ')}` : '— choose —'),
        HORSES.map(([id, name]) => h('option', { value: id }, name))));
      const replaces = twoPlayers && current.length >= 2
        ? /** @type {HTMLSelectElement} */ (h('select', { name: 'replaces' }, current.map((id) => h('option', { value: id }, horseName(id)))))
        : null;
      const wrap = h('div', { class: 'bet' },
        field(`${p.name}’s new bet`, horse, round === 1 ? 'Everyone bets in round 1.' : `A new bet replaces the old one and costs ${round - 1} point${round > 2 ? 's' : ''}.`),
        replaces ? field('It replaces', replaces) : null);
      return { player: p.name, horse, replaces, wrap };
    });

    /** The finish, 1st first; reordered with ↑/↓ (a thumb-sized list instead of dragging). */
    const order = initial?.order ? [...initial.order] : HORSES.map(([id]) => id);
    const list = h('ol', { class: 'race' });
    const renderRace = () => {
      list.replaceChildren(...order.map((id, i) => h('li', { dataset: { horse: id } },
        h('span', null, `${i + 1}.`), h('span', null, horseName(id)),
        h('button', { type: 'button', class: 'small', 'aria-label': `${horseName(id)} one place up`, disabled: i === 0, onclick: () => move(i, -1) }, '↑'),
        h('button', { type: 'button', class: 'small', 'aria-label': `${horseName(id)} one place down`, disabled: i === order.length - 1, onclick: () => move(i, 1) }, '↓'))));
    };
    const move = (/** @type {number} */ i, /** @type {number} */ d) => {
      [order[i], order[i + d]] = [order[i + d], order[i]];
      renderRace();
      /** @type {HTMLElement | null} */ (list.querySelector(`[data-horse="${order[i + d]}"] button:${d < 0 ? 'first-of-type' : 'last-of-type'}`))?.focus();
    };
    renderRace();
    const raceBox = h('fieldset', { class: 'race-box' }, h('legend', null, 'The finish, 1st first'), list);

    const betsBox = bets.length ? h('fieldset', null, h('legend', null, 'Bets'), bets.map((b) => b.wrap)) : null;
    const element = h('div', { class: 'entry mint-julep' }, h('h3', null, `Round ${round}`), betsBox, raceBox);

    return {
      element,
      round,
      events() {
        const events = [];
        for (const b of bets) {
          if (!b.horse.value) continue;
          b.wrap.dataset.pointer = `/events/${events.length}`;
          events.push({ type: 'bet_placed', data: { round, player: b.player, horse: b.horse.value, replaces: b.replaces?.value ?? null } });
        }
        raceBox.dataset.pointer = initial ? '/events/0/data/order' : `/events/${events.length}/data/order`;
        events.push({ type: 'race_recorded', data: { round, order: [...order] } });
        if (!initial) {
          if (!(round === 3 && lastRaceEndsGame(game))) events.push({ type: 'round_ended', data: { round } });
          // A refusal that names no bet (e.g. "every player must bet") lands on the bets.
          if (betsBox) betsBox.dataset.pointer = '/events';
        }
        return events;
      },
    };
  },
};
