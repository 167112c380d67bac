// Mind Up!: per round, the score cards' order (and the prizes in round 1, the objectives when
// played with them), then either each player's row at the end of the round (`rows_recorded`)
// or the round turn by turn: the card each player plays (`cards_played`; the server works out
// who takes which prize) and at last the card each one places (`last_cards_placed`).
import { h, field, uid } from '../ui.js';
import { num, t } from '../i18n.js';
import { choiceOfWays, esc, typedNumbers } from './forms.js';

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
  get name() { return t('pad.mind_up.name'); },
  players: { min: 3, max: 6 },
  get goal() { return t('pad.mind_up.goal'); },
  get options() {
    return [
      { key: 'objectives', label: t('pad.mind_up.option.objectives'), kind: 'number', default: 0, min: 0, max: 5, help: t('pad.mind_up.option.objectives_help') },
      { key: 'still_tied', label: t('pad.mind_up.option.still_tied'), kind: 'choice', default: 'shared_win', choices: [['shared_win', t('pad.mind_up.option.still_tied.shared_win')], ['more_in_round_2', t('pad.mind_up.option.still_tied.more_in_round_2')]], help: t('pad.mind_up.option.still_tied_help') },
      { key: 'd1_without_green', label: t('pad.mind_up.option.d1_without_green'), kind: 'choice', default: 'nothing', choices: [['nothing', t('pad.mind_up.option.d1_without_green.nothing')], ['bonus', t('pad.mind_up.option.d1_without_green.bonus')]], help: t('pad.mind_up.option.d1_without_green_help') },
    ];
  },
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
      ? (turns < turnsIn(round) ? t('pad.mind_up.step.turn', { round: shown, turn: turns + 1, turns: turnsIn(round) }) : t('pad.mind_up.step.last_cards', { round: shown }))
      : t('pad.step.round_of', { round: shown, rounds: 3 });
    return { step, round: !(started && turns > 0), done: roundsOver >= 3 };
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
      rows: { label: t('pad.mind_up.way.rows'), build: () => rowsForm(ctx, now) },
      turns: { label: t('pad.way.turns'), build: () => turnForm(ctx, now) },
    }, chosen, open, ctx.onWay);
  },
};

/**
 * The round's table when it has not started: score cards, prizes and objectives (event 0).
 * @param {any} game @param {number} round @param {boolean} prizes whether to ask for the prizes
 */
function roundSetup(game, round, prizes) {
  const objectives = Number(game.options?.objectives ?? 0);
  const columns = /** @type {HTMLInputElement} */ (h('input', { name: 'columns', inputmode: 'numeric', placeholder: num('3 5 1 4 2'), autocomplete: 'off' }));
  const prizeInput = /** @type {HTMLInputElement} */ (h('input', { name: 'prizes', inputmode: 'numeric', placeholder: num('12 30 47'), autocomplete: 'off' }));
  const objectiveInput = /** @type {HTMLInputElement} */ (h('input', { name: 'objectives', placeholder: 'A1 F2', autocomplete: 'off', autocapitalize: 'characters' }));
  const prizeHelp = round === 1 ? t('pad.mind_up.setup.prizes_help_first') : t('pad.mind_up.setup.prizes_help');
  const element = h('fieldset', { class: 'round-setup' },
    h('legend', null, t('pad.mind_up.setup.title')),
    withPointer(field(t('pad.mind_up.setup.columns'), columns, t('pad.mind_up.setup.columns_help')), '/events/0/data/columns'),
    prizes ? withPointer(field(t('pad.mind_up.setup.prizes', { n: game.players.length }), prizeInput, prizeHelp), '/events/0/data/prizes') : null,
    objectives > 0 ? withPointer(field(t('pad.mind_up.setup.objectives', { n: objectives }), objectiveInput, t('pad.mind_up.setup.objectives_help')), '/events/0/data/objectives') : null);
  return {
    element,
    event() {
      /** @type {any} */
      const data = { round, columns: typedNumbers(columns, '/events/0/data/columns') };
      if (prizes) data.prizes = typedNumbers(prizeInput, '/events/0/data/prizes');
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
      id: uid('col'), inputmode: 'numeric', autocomplete: 'off', 'aria-label': t('pad.mind_up.rows.column_of', { player: p.name, n: i + 1 }), placeholder: t('pad.mind_up.rows.column', { n: i + 1 }),
      value: (given[i] ?? []).join(' '), dataset: { column: i + 1, pointer: `${base}/${i}` },
    })));
    rowInputs.set(p.name, inputs);
    return h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: base } },
      h('legend', null, p.name),
      h('p', { class: 'help' }, t('pad.mind_up.rows.help', { n: 6 + round })),
      h('div', { class: 'rows-grid' }, inputs));
  });

  const element = h('div', { class: 'entry mind-up' }, h('h3', null, t('pad.step.round', { round })), setup?.element, players);
  return {
    element,
    events() {
      /** @type {Record<string, number[][]>} */
      const rows = {};
      // The table's setup first: a refusal of it comes before the rows'.
      const started = setup ? [setup.event()] : [];
      for (const [name, inputs] of rowInputs) {
        const cols = inputs.map((i) => typedNumbers(i, i.dataset.pointer ?? ''));
        while (cols.length && cols[cols.length - 1].length === 0) cols.pop();
        rows[name] = cols;
      }
      return [...started, { type: 'rows_recorded', data: { round, rows } }];
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
  // The step's heading above the form already names the turn; a correction names its cards.
  const heading = initial ? h('h3', null, t('pad.mind_up.turn.cards')) : null;
  const turn = h('fieldset', { class: 'turn', dataset: { pointer: `/events/${cardsEvent}` } },
    h('legend', null, last ? t('pad.mind_up.turn.left') : t('pad.mind_up.turn.played')),
    h('div', { class: 'cards-down' }, inputs.map(([name, input]) => field(name, input))));

  const element = h('div', { class: 'entry mind-up turns' }, heading,
    initial ? null : table(details, round), setup?.element, turn);
  return {
    element,
    events() {
      const started = setup ? [setup.event()] : [];
      /** @type {Record<string, number | null>} */
      const cards = {};
      for (const [name, input] of inputs) cards[name] = typedNumbers(input, input.dataset.pointer ?? '')[0] ?? null;
      const type = last ? 'last_cards_placed' : 'cards_played';
      return [...started, { type, data: { round, cards } }];
    },
  };
}

/** The prizes on the table and who took what in the last turn, as the server worked it out. @param {any} details @param {number} round */
function table(details, round) {
  if (!details || details.round !== round || details.over) return null;
  const takes = (details.last_turn ?? []).map((/** @type {any} */ x) => t('pad.mind_up.table.took', { player: x.player, played: x.played, took: x.took }));
  return h('div', { class: 'table-now', 'aria-live': 'polite' },
    details.prizes ? h('p', { class: 'prizes-now' }, h('strong', null, `${t('pad.mind_up.table.prizes')} `), num(details.prizes.join(' '))) : null,
    takes.length ? h('p', { class: 'last-turn' }, h('strong', null, `${t('pad.mind_up.table.turn', { turn: details.turns_played })} `), takes.join(' · ')) : null);
}

/** @param {HTMLElement} el @param {string} pointer */
function withPointer(el, pointer) {
  el.dataset.pointer = pointer;
  return el;
}
