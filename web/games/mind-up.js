// Mind Up!: per round, the score cards' order (and the prizes in round 1, the objectives when
// played with them), then each player's row as its columns left to right. Sent as
// `round_started` + `rows_recorded` (tables that log every turn use the API's turn events).
import { h, field, uid } from '../ui.js';
import { esc, numbers } from './index.js';

const COLUMNS = 5;

export default {
  id: 'mind-up',
  name: 'Mind Up!',
  players: { min: 3, max: 6 },
  goal: 'Highest total wins; a tie goes to the better round 3. 3 rounds.',
  options: [
    { key: 'objectives', label: 'Objective cards', kind: 'number', default: 0, min: 0, max: 5, help: '0 plays without them; 1–3 are renewed every round, 4–5 kept for the game.' },
    { key: 'd1_without_green', label: 'Objective D1 without green', kind: 'choice', default: 'nothing', choices: [['nothing', 'scores nothing'], ['bonus', 'scores +2']], help: 'House rule: “nothing right of green” when a row has no green at all.' },
  ],
  colours: [],
  needsColours: () => false,
  correctable: ['rows_recorded'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const rounds = effective.filter((e) => e.type === 'rows_recorded' || e.type === 'last_cards_placed').length;
    return { step: `Round ${Math.min(rounds + 1, 3)} of 3`, done: rounds >= 3 };
  },

  /** @param {{game: any, effective: any[], initial?: any}} ctx */
  form({ game, effective, initial }) {
    const finished = effective.filter((e) => e.type === 'rows_recorded' || e.type === 'last_cards_placed').length;
    const round = initial?.round ?? finished + 1;
    const started = effective.some((e) => e.type === 'round_started' && e.data.round === round);
    const objectives = Number(game.options?.objectives ?? 0);
    // Correcting a stored row sends only `rows_recorded`: its pointers are those of event 0.
    const rowsEvent = started || initial ? 0 : 1;

    const columns = /** @type {HTMLInputElement} */ (h('input', { name: 'columns', inputmode: 'numeric', placeholder: '3 5 1 4 2', autocomplete: 'off' }));
    const prizes = /** @type {HTMLInputElement} */ (h('input', { name: 'prizes', inputmode: 'numeric', placeholder: '12 30 47', autocomplete: 'off' }));
    const objectiveInput = /** @type {HTMLInputElement} */ (h('input', { name: 'objectives', placeholder: 'A1 F2', autocomplete: 'off', autocapitalize: 'characters' }));
    const setup = started || initial ? null : h('fieldset', { class: 'round-setup' },
      h('legend', null, 'The table this round'),
      withPointer(field('Score cards 1–5, left to right', columns, 'The order of the five score cards above the columns.'), '/events/0/data/columns'),
      round === 1 ? withPointer(field(`Prize cards (${game.players.length})`, prizes, 'The numbers revealed as prizes at the start.'), '/events/0/data/prizes') : null,
      objectives > 0 ? withPointer(field(`Objectives (${objectives})`, objectiveInput, 'The active faces, e.g. A1 F2.'), '/events/0/data/objectives') : null);

    /** @type {Map<string, HTMLInputElement[]>} */
    const rowInputs = new Map();
    const players = game.players.map((/** @type {any} */ p) => {
      const given = initial?.rows?.[p.name] ?? [];
      const base = `/events/${rowsEvent}/data/rows/${esc(p.name)}`;
      const inputs = Array.from({ length: COLUMNS }, (_, i) => /** @type {HTMLInputElement} */ (h('input', {
        id: uid('col'), inputmode: 'numeric', autocomplete: 'off', 'aria-label': `${p.name}, column ${i + 1}`,
        value: (given[i] ?? []).join(' '), dataset: { column: i + 1, pointer: `${base}/${i}` },
      })));
      rowInputs.set(p.name, inputs);
      return h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: base } },
        h('legend', null, p.name),
        h('p', { class: 'help' }, `Card numbers in each column, left to right (${6 + round} cards in all).`),
        h('div', { class: 'rows-grid' }, inputs));
    });

    const element = h('div', { class: 'entry mind-up' }, h('h3', null, `Round ${round}`), setup, players);
    return {
      element,
      round,
      events() {
        /** @type {Record<string, number[][]>} */
        const rows = {};
        for (const [name, inputs] of rowInputs) {
          const cols = inputs.map((i) => numbers(i.value));
          while (cols.length && cols[cols.length - 1].length === 0) cols.pop();
          rows[name] = cols;
        }
        const events = [];
        if (!started && !initial) {
          /** @type {any} */
          const data = { round, columns: numbers(columns.value) };
          if (round === 1) data.prizes = numbers(prizes.value);
          if (objectives > 0) data.objectives = objectiveInput.value.split(/[\s,]+/).filter(Boolean).map((s) => s.toUpperCase());
          events.push({ type: 'round_started', data });
        }
        events.push({ type: 'rows_recorded', data: { round, rows } });
        return events;
      },
    };
  },
};

/** @param {HTMLElement} el @param {string} pointer */
function withPointer(el, pointer) {
  el.dataset.pointer = pointer;
  return el;
}
