// Vintage: at the end, each player's collection, card by card with the attributes printed on
// it (the full card list is not published). Sent as `collections_recorded` (tables that log every
// turn use the API's turn events). The prizes are the game's options, set when it starts.
import { h, field } from '../ui.js';
import { esc } from './index.js';

const PERIODS = ['50s', '60s', '70s'];
const ATTRIBUTES = [['colour', 'colour'], ['type', 'type of object'], ['period', 'period']];

/** The prizes editor of the new-game form: rows of attribute, value and points. */
function prizesEditor() {
  const list = h('ol', { class: 'prizes' });
  const add = (/** @type {{attribute?: string, value?: string, points?: number}} */ p = {}) => {
    const attribute = /** @type {HTMLSelectElement} */ (h('select', { name: 'attribute' }, ATTRIBUTES.map(([v, l]) => h('option', { value: v, selected: v === p.attribute }, l))));
    const value = /** @type {HTMLInputElement} */ (h('input', { name: 'value', value: p.value ?? '', autocomplete: 'off', placeholder: 'blue' }));
    const points = /** @type {HTMLInputElement} */ (h('input', { name: 'points', type: 'number', inputmode: 'numeric', min: 0, value: p.points ?? 3 }));
    const li = h('li', { class: 'prize', dataset: { pointer: `/options/prizes/${list.children.length}` } },
      field('Most cards with', attribute), field('of', value), field('Points', points),
      h('button', { type: 'button', class: 'small', 'aria-label': 'remove this prize', onclick: () => li.remove() }, '✕'));
    list.append(li);
  };
  add({ attribute: 'colour', value: 'blue', points: 4 });
  add({ attribute: 'period', value: '60s', points: 3 });
  const element = h('div', null, list, h('button', { type: 'button', onclick: () => add() }, 'Add a prize'));
  return {
    element,
    read: () => [...list.querySelectorAll('li')].map((li) => {
      const get = (/** @type {string} */ n) => /** @type {HTMLInputElement} */ (li.querySelector(`[name="${n}"]`)).value.trim();
      const value = get('value');
      const attribute = get('attribute');
      return { id: `${attribute}-${value}`.toLowerCase().replace(/[^a-z0-9]+/g, '-'), name: `Most ${value} objects`, attribute, value, points: Number(get('points')) };
    }),
  };
}

export default {
  id: 'vintage',
  name: 'Vintage',
  players: { min: 3, max: 6 },
  goal: 'Highest total wins (collection values plus prizes); ties are shared.',
  options: [
    { key: 'prizes', label: 'Prize cards in play', kind: 'custom', editor: prizesEditor, help: 'Each prize goes to the player with the most collected cards matching it.' },
    { key: 'prize_tie', label: 'A tie for a prize', kind: 'choice', default: 'nobody', choices: [['nobody', 'nobody scores it'], ['all', 'each tied player scores it'], ['split', 'the points are split']], help: 'House rule: the published rules do not settle prize ties.' },
  ],
  colours: [],
  needsColours: () => false,
  correctable: ['collections_recorded'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const done = effective.some((e) => e.type === 'collections_recorded' || e.type === 'final_banked');
    return { step: 'The collections at the end', done };
  },

  /** @param {{game: any, effective: any[], initial?: any}} ctx */
  form({ game, initial }) {
    /** @type {Map<string, HTMLElement>} */
    const lists = new Map();
    let serial = 0;
    const addCard = (/** @type {string} */ player, /** @type {any} */ card = {}) => {
      const list = lists.get(player);
      if (!list) return null;
      serial += 1;
      const seat = game.players.findIndex((/** @type {any} */ p) => p.name === player) + 1;
      const id = card.id ?? `s${seat}c${serial}`;
      const input = (/** @type {string} */ name, /** @type {any} */ attrs) => /** @type {HTMLInputElement} */ (h('input', { name, autocomplete: 'off', ...attrs }));
      const li = h('li', { class: 'vintage-card', dataset: { id } },
        field('Object', input('type', { value: card.type ?? '', placeholder: 'lamp' })),
        field('Colour', input('colour', { value: card.colour ?? '', placeholder: 'blue' })),
        field('Period', /** @type {HTMLSelectElement} */ (h('select', { name: 'period' }, PERIODS.map((p) => h('option', { value: p, selected: p === card.period }, p))))),
        field('Value', input('value', { type: 'number', inputmode: 'numeric', min: 0, value: card.value ?? 0 })),
        h('button', { type: 'button', class: 'small', 'aria-label': 'remove this card', onclick: () => li.remove() }, '✕'));
      list.append(li);
      return li;
    };
    const players = game.players.map((/** @type {any} */ p) => {
      const list = h('ol', { class: 'collection' });
      lists.set(p.name, list);
      const fieldset = h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: `/events/0/data/collections/${esc(p.name)}` } },
        h('legend', null, p.name), list,
        h('button', { type: 'button', class: 'add-card', onclick: () => addCard(p.name)?.querySelector('input')?.focus() }, `Add a card to ${p.name}’s collection`));
      for (const card of initial?.collections?.[p.name] ?? []) addCard(p.name, typeof card === 'string' ? { id: card } : card);
      return fieldset;
    });
    const element = h('div', { class: 'entry vintage' },
      h('p', { class: 'help' }, 'Only the face-down collections count; showcases do not.'), players);
    return {
      element,
      events() {
        /** @type {Record<string, any[]>} */
        const collections = {};
        for (const [name, list] of lists) {
          collections[name] = [...list.querySelectorAll('li')].map((li, i) => {
            const el = /** @type {HTMLElement} */ (li);
            el.dataset.pointer = `/events/0/data/collections/${esc(name)}/${i}`;
            const get = (/** @type {string} */ n) => /** @type {HTMLInputElement} */ (li.querySelector(`[name="${n}"]`)).value.trim();
            return { id: el.dataset.id, type: get('type'), colour: get('colour'), period: get('period'), value: Number(get('value')) };
          });
        }
        return [{ type: 'collections_recorded', data: { collections } }];
      },
    };
  },
};
