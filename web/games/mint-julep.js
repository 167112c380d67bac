// Mint Julep: per round, the bets placed (each player may bet or keep their bet), then either
// the race's finish (`race_recorded` + `round_ended`; round 3's recorded finish ends the game by
// itself, option `last_race_ends_game`, default true) or every card played in the race
// (`card_played`, its moves and a Mint Julep card), then `round_ended` once the race is over.
import { h, field, uid, Incomplete } from '../ui.js';
import { joined, num, t } from '../i18n.js';
import { choiceOfWays } from './forms.js';

/** The horses in their starting order (top of the group first), with their names' keys. */
const KEYS = [
  ['alaskan-justice', 'pad.mint_julep.horse.alaskan_justice'],
  ['maple-splendor', 'pad.mint_julep.horse.maple_splendor'],
  ['newtons-apple', 'pad.mint_julep.horse.newtons_apple'],
  ['whiskey-princess', 'pad.mint_julep.horse.whiskey_princess'],
  ['you-got-me', 'pad.mint_julep.horse.you_got_me'],
];
/** The horses, named in the page's language. */
const horses = () => KEYS.map(([id, key]) => [id, t(key)]);
const horseName = (/** @type {string} */ id) => {
  const key = KEYS.find(([x]) => x === id)?.[1];
  return key ? t(key) : id;
};

/** Whether recording round 3's finish ends the game (the option's default is true). */
const lastRaceEndsGame = (/** @type {any} */ game) => game.options?.last_race_ends_game !== false;

/** Rounds over: each `round_ended`, and round 3's recorded finish where it ends the game. */
const roundsOver = (/** @type {any} */ game, /** @type {any[]} */ effective) => {
  const ended = effective.filter((e) => e.type === 'round_ended').length;
  const finished = lastRaceEndsGame(game) && effective.some((e) => e.type === 'race_recorded' && e.data.round === 3);
  return finished ? 3 : ended;
};

/** The round to record and how its race has been recorded so far. @param {any} game @param {any[]} effective */
function standing(game, effective) {
  const round = Math.min(roundsOver(game, effective) + 1, 3);
  return {
    round,
    cardsThisRound: effective.filter((e) => e.type === 'card_played' && e.data.round === round).length,
    cardsBefore: effective.some((e) => e.type === 'card_played'),
    // After a recorded finish the groups are unknown: the rest of the game goes by finishes.
    finishes: effective.some((e) => e.type === 'race_recorded'),
  };
}

export default {
  id: 'mint-julep',
  get name() { return t('pad.mint_julep.name'); },
  players: { min: 2, max: 4 },
  get goal() { return t('pad.mint_julep.goal'); },
  get options() {
    return [
      { key: 'split', label: t('pad.mint_julep.option.split'), kind: 'choice', default: 'before_penalty', choices: [['before_penalty', t('pad.mint_julep.option.split.before_penalty')], ['after_penalty', t('pad.mint_julep.option.split.after_penalty')]], help: t('pad.mint_julep.option.split_help') },
    ];
  },
  colours: [],
  needsColours: () => false,
  /** Nothing more to show under the game's heading. @param {any} _game @returns {HTMLElement | null} */
  describe: (_game) => null,
  correctable: ['race_recorded'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const rounds = roundsOver(game, effective);
    const { cardsThisRound } = standing(game, effective);
    const round = Math.min(rounds + 1, 3);
    return { step: cardsThisRound ? t('pad.mint_julep.step.card', { round, card: cardsThisRound + 1 }) : t('pad.step.round_of', { round, rounds: 3 }), round: !cardsThisRound, done: rounds >= 3 };
  },

  /** @param {{game: any, effective: any[], details?: any, way?: string | null, onWay?: (w: string) => void, initial?: any}} ctx */
  form(ctx) {
    if (ctx.initial) return finishForm(ctx);
    const now = standing(ctx.game, ctx.effective);
    const open = !now.finishes && now.cardsThisRound === 0;
    const chosen = now.finishes ? 'finish' : now.cardsThisRound > 0 ? 'cards' : ctx.way ?? (now.cardsBefore ? 'cards' : 'finish');
    return choiceOfWays({
      finish: { label: t('pad.mint_julep.way.finish'), build: () => finishForm(ctx) },
      cards: { label: t('pad.mint_julep.way.cards'), build: () => cardForm(ctx, now) },
    }, chosen, open, ctx.onWay);
  },
};

/**
 * The round's new bets, one select per player (left empty: the player keeps their bet).
 * @param {any} game @param {any[]} effective @param {number} round
 */
function betsBox(game, effective, round) {
  const twoPlayers = game.players.length === 2;
  /** The active bets per player (horse ids), from the bets that count. */
  const active = new Map(game.players.map((/** @type {any} */ p) => [p.name, /** @type {string[]} */ ([])]));
  // Games stored before schema version 5 read "replaces" only with 2 players holding two bets.
  const oldReading = (effective.find((e) => e.type === 'game_started')?.schema_version ?? 5) < 5;
  for (const e of effective.filter((x) => x.type === 'bet_placed')) {
    const bets = active.get(e.data.player) ?? [];
    // As the server rules: a bet naming one of the player's bets in "replaces" replaces it;
    // without it, with 3–4 players a new bet replaces the one held, with 2 holding one it is
    // added (two bets on one horse: the earlier goes).
    const full = bets.length >= (twoPlayers ? 2 : 1);
    const named = !oldReading && bets.includes(e.data.replaces) ? e.data.replaces : null;
    const replaced = named ?? (!full ? null : twoPlayers ? (e.data.replaces ?? bets[0]) : bets[0]);
    const at = replaced ? bets.indexOf(replaced) : -1;
    const kept = at >= 0 ? [...bets.slice(0, at), ...bets.slice(at + 1)] : bets;
    active.set(e.data.player, [...kept, e.data.horse]);
  }
  const bets = game.players.map((/** @type {any} */ p) => {
    const current = active.get(p.name) ?? [];
    const horse = /** @type {HTMLSelectElement} */ (h('select', { name: 'bet', dataset: { player: p.name } },
      h('option', { value: '' }, current.length ? t('pad.mint_julep.bet.keep', { horses: joined(current.map(horseName)) }) : t('pad.mint_julep.bet.choose')),
      horses().map(([id, name]) => h('option', { value: id }, name))));
    // With 2 players: holding two, a new bet names the one it replaces; holding one, the
    // player chooses between a second bet and replacing it.
    const replaces = twoPlayers && current.length >= 1
      ? /** @type {HTMLSelectElement} */ (h('select', { name: 'replaces' },
        current.length === 1 ? h('option', { value: '' }, t('pad.mint_julep.bet.second')) : null,
        current.map((id) => h('option', { value: id }, horseName(id)))))
      : null;
    const wrap = h('div', { class: 'bet' },
      field(t('pad.mint_julep.bet.new', { player: p.name }), horse, round === 1 ? t('pad.mint_julep.bet.everyone') : t(round > 2 ? 'pad.mint_julep.bet.costs_other' : 'pad.mint_julep.bet.costs_one', { n: round - 1 })),
      replaces ? field(t('pad.mint_julep.bet.replaces'), replaces) : null);
    return { player: p.name, horse, replaces, wrap };
  });
  const element = h('fieldset', null, h('legend', null, t('pad.mint_julep.bets')), bets.map((b) => b.wrap));
  return {
    element,
    /** The bets chosen, as events from index `first` of the request on. @param {number} first */
    events(first) {
      /** @type {{type: string, data: any}[]} */
      const events = [];
      for (const b of bets) {
        if (!b.horse.value && round === 1 && !(active.get(b.player) ?? []).length) {
          // The rules' "everyone bets in round 1", said at the select of the player without one.
          b.horse.dataset.pointer = `/bets/${b.player}`;
          throw new Incomplete(t('pad.mint_julep.bet.missing', { player: b.player }), b.horse.dataset.pointer);
        }
        if (!b.horse.value) continue;
        b.wrap.dataset.pointer = `/events/${first + events.length}`;
        events.push({ type: 'bet_placed', data: { round, player: b.player, horse: b.horse.value, replaces: b.replaces?.value || null } });
      }
      // A refusal that names no bet (e.g. "every player must bet") lands on the bets.
      element.dataset.pointer = '/events';
      return events;
    },
  };
}

/**
 * The bets and the race's finish, 1st first (`race_recorded`), then `round_ended`.
 * @param {{game: any, effective: any[], initial?: any}} ctx
 */
function finishForm({ game, effective, initial }) {
  const round = initial?.round ?? roundsOver(game, effective) + 1;
  const bets = initial ? null : betsBox(game, effective, round);

  /** The finish, 1st first; reordered with ↑/↓ (a thumb-sized list instead of dragging). */
  // The last finish is the likeliest start: a few taps move the horses that changed places.
  const previous = effective.filter((e) => e.type === 'race_recorded' && e.data.round < round).at(-1)?.data.order;
  const order = initial?.order ? [...initial.order] : previous?.length === KEYS.length ? [...previous] : KEYS.map(([id]) => id);
  const list = h('ol', { class: 'race' });
  const renderRace = () => {
    list.replaceChildren(...order.map((id, i) => h('li', { dataset: { horse: id } },
      h('span', null, `${num(i + 1)}.`), h('span', null, horseName(id)),
      h('button', { type: 'button', class: 'small', 'aria-label': t('pad.mint_julep.race.up', { horse: horseName(id) }), disabled: i === 0, onclick: () => move(i, -1) }, '↑'),
      h('button', { type: 'button', class: 'small', 'aria-label': t('pad.mint_julep.race.down', { horse: horseName(id) }), disabled: i === order.length - 1, onclick: () => move(i, 1) }, '↓'))));
  };
  const move = (/** @type {number} */ i, /** @type {number} */ d) => {
    [order[i], order[i + d]] = [order[i + d], order[i]];
    renderRace();
    /** @type {HTMLElement | null} */ (list.querySelector(`[data-horse="${order[i + d]}"] button:${d < 0 ? 'first-of-type' : 'last-of-type'}`))?.focus();
  };
  renderRace();
  const raceBox = h('fieldset', { class: 'race-box' }, h('legend', null, t('pad.mint_julep.race.title')), list);
  const element = h('div', { class: 'entry mint-julep' }, h('h3', null, t('pad.step.round', { round })), bets?.element, raceBox);

  return {
    element,
    events() {
      const events = bets ? bets.events(0) : [];
      raceBox.dataset.pointer = initial ? '/events/0/data/order' : `/events/${events.length}/data/order`;
      events.push({ type: 'race_recorded', data: { round, order: [...order] } });
      if (!initial && !(round === 3 && lastRaceEndsGame(game))) events.push({ type: 'round_ended', data: { round } });
      return events;
    },
  };
}

/**
 * One card of the race as it is played: who played it, the moves it makes (horse, forward or
 * back, top horse or a named one) and whether it is the Mint Julep card; the round's bets
 * before its first card; "the race is over" ends the round.
 * @param {{game: any, effective: any[], details?: any}} ctx @param {ReturnType<typeof standing>} now
 */
function cardForm({ game, effective, details }, now) {
  const { round } = now;
  const bets = now.cardsThisRound === 0 ? betsBox(game, effective, round) : null;
  const names = game.players.map((/** @type {any} */ p) => p.name);
  // "Played by" remembers the last card's player: the phone is often in that player's hand.
  const lastCard = effective.filter((e) => e.type === 'card_played').at(-1);
  const next = lastCard && names.includes(lastCard.data.player) ? lastCard.data.player : names[0];

  const player = /** @type {HTMLSelectElement} */ (h('select', { name: 'player' }, names.map((n) => h('option', { value: n, selected: n === next }, n))));
  const playerField = field(t('pad.mint_julep.card.played_by'), player);
  const moves = h('ol', { class: 'moves' });
  const addMove = () => {
    const n = moves.children.length + 1;
    const horse = h('select', { name: 'horse', 'aria-label': t('pad.mint_julep.move.horse', { n }) }, h('option', { value: '' }, t('pad.mint_julep.move.none')), horses().map(([id, name]) => h('option', { value: id }, name)));
    const direction = h('select', { name: 'direction', 'aria-label': t('pad.mint_julep.move.direction', { n }) }, h('option', { value: 'forward' }, t('pad.mint_julep.move.forward')), h('option', { value: 'back' }, t('pad.mint_julep.move.back')));
    const kind = h('select', { name: 'kind', 'aria-label': t('pad.mint_julep.move.which', { n }) }, h('option', { value: 'named' }, t('pad.mint_julep.move.named')), h('option', { value: 'top' }, t('pad.mint_julep.move.top')));
    const li = h('li', { class: 'move' }, horse, direction, kind,
      h('button', { type: 'button', class: 'small', 'aria-label': t('pad.mint_julep.move.remove', { n }), onclick: () => li.remove() }, '✕'));
    moves.append(li);
    return horse;
  };
  addMove();
  const mintJulep = /** @type {HTMLSelectElement} */ (h('select', { name: 'mint_julep' }, h('option', { value: '' }, t('pad.mint_julep.card.not_played')), horses().map(([id, name]) => h('option', { value: id }, name))));
  const mintJulepField = field(t('pad.mint_julep.card.mint_julep'), mintJulep, t('pad.mint_julep.card.mint_julep_help'));
  const card = h('fieldset', { class: 'card-played' }, h('legend', null, t('pad.mint_julep.card.title')),
    playerField, h('p', { class: 'help', id: uid('moves') }, t('pad.mint_julep.card.moves')), moves,
    h('button', { type: 'button', class: 'add-move', onclick: () => addMove().focus() }, t('pad.mint_julep.card.add_move')),
    mintJulepField);
  const endRound = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', name: 'end', id: uid('end') }));
  const endField = h('div', { class: 'field toggle' }, endRound, h('label', { for: endRound.id }, t('pad.mint_julep.race.over', { round })),
    h('small', { class: 'help' }, t('pad.mint_julep.race.over_help')));

  const element = h('div', { class: 'entry mint-julep cards' }, h('h3', null, t('pad.mint_julep.race.heading', { round })),
    fieldNow(details), bets?.element, card, endField);
  return {
    element,
    events() {
      const events = bets ? bets.events(0) : [];
      const chosen = [...moves.querySelectorAll('li')].filter((li) => /** @type {HTMLSelectElement} */ (li.querySelector('[name="horse"]')).value);
      const at = events.length;
      card.dataset.pointer = `/events/${at}`;
      playerField.dataset.pointer = `/events/${at}/data/player`;
      mintJulepField.dataset.pointer = `/events/${at}/data/mint_julep`;
      const read = (/** @type {Element} */ li, /** @type {string} */ name) => /** @type {HTMLSelectElement} */ (li.querySelector(`[name="${name}"]`)).value;
      chosen.forEach((li, k) => { /** @type {HTMLElement} */ (li).dataset.pointer = `/events/${at}/data/moves/${k}`; });
      if (chosen.length || mintJulep.value) {
        events.push({ type: 'card_played', data: {
          round, player: player.value,
          moves: chosen.map((li) => ({ horse: read(li, 'horse'), direction: read(li, 'direction'), kind: read(li, 'kind') })),
          mint_julep: mintJulep.value ? { horse: mintJulep.value } : null,
        } });
      }
      if (endRound.checked) {
        endField.dataset.pointer = `/events/${events.length}`;
        events.push({ type: 'round_ended', data: { round } });
      }
      if (!events.length) throw new Incomplete(t('pad.mint_julep.card.empty'), `/events/${at}`);
      return events;
    },
  };
}

/** The field as the server worked it out: groups front to back, each top horse first. @param {any} details */
function fieldNow(details) {
  const groups = details?.race?.groups;
  if (!groups) return null;
  return h('div', { class: 'field-now' }, h('h4', null, t('pad.mint_julep.field.title')),
    h('ol', { class: 'groups' }, groups.map((/** @type {any[]} */ group) => h('li', null,
      group.map((x) => `${horseName(x.horse)}${x.flipped ? ` (${t('pad.mint_julep.field.flipped')})` : ''}`).join(' / ')))));
}
