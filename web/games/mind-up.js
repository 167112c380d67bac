// Mind Up!: per round, the score cards' order (and the prizes in round 1, the objectives when
// played with them), then either each player's row at the end of the round (`rows_recorded`)
// or the round turn by turn: the card each player plays (`cards_played`; the server works out
// who takes which prize) and at last the card each one places (`last_cards_placed`).
import { h, field, uid } from '../ui.js';
import { choiceOfWays, esc, numbers } from './forms.js';

const COLUMNS = 5;
/** rules: a round-r hand holds 6 + r cards; all but the last are played, one per turn. */
const turnsIn = (/** @type {number} */ round) => 5 + round;
const ROUND_OVER = ['rows_recorded', 'last_cards_placed'];

/** Where the game stands: the round to record, whether it started, its turns so far. @param {any[]} effective */
function standing(effective) {
  const started = effective.filter((e) => e.type === 'round_started').length;
  const over = effective.filter((e) => ROUND_OVER.includes(e.type));
  const open = started > over.length;
  const round = open ? started : over.length + 1;
  const turns = effective.filter((e) => e.type === 'cards_played' && e.data.round === round).length;
  return { round, started: open, turns, lastOver: over.at(-1)?.type ?? null, roundsOver: over.length };
}

export default {
  id: 'mind-up',
  name: 'Mind Up!',
  players: { min: 3, max: 6 },
  goal: 'Highest total wins; a tie goes to the better round 3. 3 rounds.',
  options: [
    { key: 'objectives', label: 'Objective cards', kind: 'number', default: 0, min: 0, max: 5, help: '0 plays without them; 1–3 are renewed every round, 4–5 kept for the game.' },
    { key: 'still_tied', label: 'Tied on total and round 3', kind: 'choice', default: 'shared_win', choices: [['shared_win', 'share the win'], ['more_in_round_2', 'more points in round 2 wins']], help: 'House rule: the rules stop at round 3.' },
    { key: 'd1_without_green', label: 'Objective D1 without green', kind: 'choice', default: 'nothing', choices: [['nothing', 'scores nothing'], ['bonus', 'scores +2']], help: 'House rule: “nothing right of green” when a row has no green at all.' },
  ],
  colours: [],
  needsColours: () => false,
  /** Nothing more to show under the game's heading. @param {any} _game @returns {HTMLElement | null} */
  describe: (_game) => null,
  correctable: ['rows_recorded', 'cards_played', 'last_cards_placed'],

  /** @param {any} _game @param {any[]} effective */
  progress(_game, effective) {
    const { round, started, turns, roundsOver } = standing(effective);
    const shown = Math.min(round, 3);
    const step = started && turns > 0
      ? `Round ${shown} of 3, ${turns < turnsIn(round) ? `turn ${turns + 1} of ${turnsIn(round)}` : 'the last cards'}`
      : `Round ${shown} of 3`;
    return { step, done: roundsOver >= 3 };
  },

  /** @param {{game: any, effective: any[], details?: any, way?: string | null, onWay?: (w: string) => void, initial?: any}} ctx */
  form(ctx) {
    const { initial } = ctx;
    if (initial) return initial.cards ? turnForm(ctx, standing(ctx.effective)) : rowsForm(ctx, standing(ctx.effective));
    const now = standing(ctx.effective);
    // A round under way turn by turn goes on that way; between rounds the last round's way.
    const open = now.turns === 0;
    const chosen = !open ? 'turns' : ctx.way ?? (now.lastOver === 'last_cards_placed' ? 'turns' : 'rows');
    return choiceOfWays({
      rows: { label: 'the rows at the end of the round', build: () => rowsForm(ctx, now) },
      turns: { label: 'turn by turn', build: () => turnForm(ctx, now) },
    }, chosen, open, ctx.onWay);
  },
};

/**
 * The round's table when it has not started: score cards, prizes and objectives (event 0).
 * @param {any} game @param {number} round @param {boolean} prizes whether to ask for the prizes
 */
function roundSetup(game, round, prizes) {
  const objectives = Number(game.options?.objectives ?? 0);
  const columns = /** @type {HTMLInputElement} */ (h('input', { name: 'columns', inputmode: 'numeric', placeholder: '3 5 1 4 2', autocomplete: 'off' }));
  const prizeInput = /** @type {HTMLInputElement} */ (h('input', { name: 'prizes', inputmode: 'numeric', placeholder: '12 30 47', autocomplete: 'off' }));
  const objectiveInput = /** @type {HTMLInputElement} */ (h('input', { name: 'objectives', placeholder: 'A1 F2', autocomplete: 'off', autocapitalize: 'characters' }));
  const prizeHelp = round === 1 ? 'The numbers revealed as prizes at the start.' : 'The prizes on the table: a round recorded by its rows does not say which they are.';
  const element = h('fieldset', { class: 'round-setup' },
    h('legend', null, 'The table this round'),
    withPointer(field('Score cards 1–5, left to right', columns, 'The order of the five score cards above the columns.'), '/events/0/data/columns'),
    prizes ? withPointer(field(`Prize cards (${game.players.length})`, prizeInput, prizeHelp), '/events/0/data/prizes') : null,
    objectives > 0 ? withPointer(field(`Objectives (${objectives})`, objectiveInput, 'The active faces, e.g. A1 F2.'), '/events/0/data/objectives') : null);
  return {
    element,
    event() {
      /** @type {any} */
      const data = { round, columns: numbers(columns.value) };
      if (prizes) data.prizes = numbers(prizeInput.value);
      if (objectives > 0) data.objectives = objectiveInput.value.split(/[\s,]+/).filter(Boolean).map((s) => s.toUpperCase());
      return { type: 'round_started', data };
    },
  };
}

/**
 * Each player's row as its columns left to right, at the end of the round (`rows_recorded`).
 * @param {{game: any, initial?: any}} ctx @param {ReturnType<typeof standing>} now
 */
function rowsForm({ game, initial }, now) {
  const round = initial?.round ?? now.round;
  const setup = now.started || initial ? null : roundSetup(game, round, round === 1);
  // Correcting a stored row sends only `rows_recorded`: its pointers are those of event 0.
  const rowsEvent = setup ? 1 : 0;

  /** @type {Map<string, HTMLInputElement[]>} */
  const rowInputs = new Map();
  const players = game.players.map((/** @type {any} */ p) => {
    const given = initial?.rows?.[p.name] ?? [];
    const base = `/events/${rowsEvent}/data/rows/${esc(p.name)}`;
    const inputs = Array.from({ length: COLUMNS }, (_, i) => /** @type {HTMLInputElement} */ (h('input', {
      // At 320 px the five columns wrap: the hint says which one each box is.
      id: uid('col'), inputmode: 'numeric', autocomplete: 'off', 'aria-label': `${p.name}, column ${i + 1}`, placeholder: `column ${i + 1}`,
      value: (given[i] ?? []).join(' '), dataset: { column: i + 1, pointer: `${base}/${i}` },
    })));
    rowInputs.set(p.name, inputs);
    return h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: base } },
      h('legend', null, p.name),
      h('p', { class: 'help' }, `Card numbers in each column, left to right (${6 + round} cards in all).`),
      h('div', { class: 'rows-grid' }, inputs));
  });

  const element = h('div', { class: 'entry mind-up' }, h('h3', null, `Round ${round}`), setup?.element, players);
  return {
    element,
    events() {
      /** @type {Record<string, number[][]>} */
      const rows = {};
      for (const [name, inputs] of rowInputs) {
        const cols = inputs.map((i) => numbers(i.value));
        while (cols.length && cols[cols.length - 1].length === 0) cols.pop();
        rows[name] = cols;
      }
      return [...(setup ? [setup.event()] : []), { type: 'rows_recorded', data: { round, rows } }];
    },
  };
}

/**
 * One turn: the card each player played (`cards_played`), or, once every turn is played, the
 * card each one places (`last_cards_placed`). Shows what the server worked out of the last turn.
 * @param {{game: any, details?: any, initial?: any}} ctx @param {ReturnType<typeof standing>} now
 */
function turnForm({ game, details, initial }, now) {
  const round = initial?.round ?? now.round;
  // A correction keeps its event's type; only its data is sent.
  const last = !initial && now.turns >= turnsIn(round);
  // A turn round after a round recorded by rows: nobody has told the server the prizes.
  const setup = now.started || initial ? null : roundSetup(game, round, round === 1 || now.lastOver === 'rows_recorded');
  const cardsEvent = setup ? 1 : 0;

  /** @type {[string, HTMLInputElement][]} */
  const inputs = game.players.map((/** @type {any} */ p) => [p.name, /** @type {HTMLInputElement} */ (h('input', {
    name: 'card', inputmode: 'numeric', autocomplete: 'off', maxlength: 2, class: 'card-number',
    value: initial?.cards?.[p.name] ?? '', dataset: { player: p.name, pointer: `/events/${cardsEvent}/data/cards/${esc(p.name)}` },
  }))]);
  const heading = initial ? 'The cards' : last ? `Round ${round}: the last cards, placed in the rows` : `Round ${round}, turn ${now.turns + 1} of ${turnsIn(round)}`;
  const turn = h('fieldset', { class: 'turn', dataset: { pointer: `/events/${cardsEvent}` } },
    h('legend', null, last ? 'The card each player has left' : 'The card each player played'),
    h('div', { class: 'cards-down' }, inputs.map(([name, input]) => field(name, input))));

  const element = h('div', { class: 'entry mind-up turns' }, h('h3', null, heading),
    initial ? null : table(details, round), setup?.element, turn);
  return {
    element,
    events() {
      /** @type {Record<string, number | null>} */
      const cards = {};
      for (const [name, input] of inputs) cards[name] = input.value.trim() === '' ? null : Number(input.value);
      const type = last ? 'last_cards_placed' : 'cards_played';
      return [...(setup ? [setup.event()] : []), { type, data: { round, cards } }];
    },
  };
}

/** The prizes on the table and who took what in the last turn, as the server worked it out. @param {any} details @param {number} round */
function table(details, round) {
  if (!details || details.round !== round || details.over) return null;
  const takes = (details.last_turn ?? []).map((/** @type {any} */ t) => `${t.player} played ${t.played}, took ${t.took}`);
  return h('div', { class: 'table-now', 'aria-live': 'polite' },
    details.prizes ? h('p', { class: 'prizes-now' }, h('strong', null, 'Prizes on the table: '), details.prizes.join(' ')) : null,
    takes.length ? h('p', { class: 'last-turn' }, h('strong', null, `Turn ${details.turns_played}: `), takes.join(' · ')) : null);
}

/** @param {HTMLElement} el @param {string} pointer */
function withPointer(el, pointer) {
  el.dataset.pointer = pointer;
  return el;
}
