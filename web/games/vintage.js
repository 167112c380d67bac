// Vintage: either each player's collection at the end (`collections_recorded`), card by card
// with the attributes printed on it (the full card list is not published), or the game turn by
// turn: the deal (`showcases_dealt`), each turn (`turn_taken`: bank, steal or dig, draw two and
// keep one) and the last banks (`final_banked`). A card is described the first time it shows
// up and named by its id after that. The prizes are the game's options, set when it starts.
import { h, field, Incomplete, numberInput, numberOf } from '../ui.js';
import { num, plain, t } from '../i18n.js';
import { choiceOfWays, esc } from './forms.js';

const PERIODS = ['50s', '60s', '70s'];
/** A period as the page says it ("60s", "les années 60", "دههٔ ۶۰"). @param {string} period */
const periodName = (period) => {
  switch (period) {
    case '50s': return t('pad.vintage.period.50s');
    case '60s': return t('pad.vintage.period.60s');
    case '70s': return t('pad.vintage.period.70s');
    default: return period ?? '';
  }
};
const attributes = () => [['colour', t('pad.vintage.attribute.colour')], ['type', t('pad.vintage.attribute.type')], ['period', t('pad.vintage.attribute.period')]];
const TURN_EVENTS = ['showcases_dealt', 'turn_taken', 'final_banked'];
/** What a typed prize value looks like, per attribute (the field's hint), in the page's words. */
const examples = () => /** @type {Record<string, string>} */ ({ colour: t('pad.vintage.card.colour_example'), type: t('pad.vintage.card.object_example') });

/** The periods as a card form offers them: shown in the page's words, stored as the cards store them. @param {string} [chosen] */
const periodSelect = (chosen) => /** @type {HTMLSelectElement} */ (h('select', { name: 'value' },
  PERIODS.map((p) => h('option', { value: p, selected: p === chosen }, periodName(p)))));

/**
 * A prize's value a card form would never produce for its attribute: a period not among the
 * periods the card forms offer, or a period's name typed as a colour or an object (the card
 * forms give the period its own field). Null when a card form could produce it.
 * @param {string} attribute @param {string} value
 */
function unmatchable(attribute, value) {
  const periods = new Set(PERIODS.flatMap((p) => [p, periodName(p)].map((w) => w.toLocaleLowerCase())));
  if (attribute === 'period') return PERIODS.includes(value) ? null : t('pad.vintage.prize.unknown_period', { value });
  if (periods.has(value.toLocaleLowerCase())) return t('pad.vintage.prize.is_a_period', { value, period: t('pad.vintage.attribute.period') });
  return null;
}

/**
 * The prizes editor of the new-game form: rows of attribute, value and points. A period is
 * chosen from the periods the card forms offer (stored as "60s", shown as the page says it): a
 * prize typed as "années 60" would match no card. Colours and objects are typed, as the card
 * forms type them.
 */
function prizesEditor() {
  const list = h('ol', { class: 'prizes' });
  const add = (/** @type {{attribute?: string, value?: string, points?: number}} */ p = {}) => {
    const attribute = /** @type {HTMLSelectElement} */ (h('select', { name: 'attribute' }, attributes().map(([v, l]) => h('option', { value: v, selected: v === p.attribute }, l))));
    const typed = /** @type {HTMLInputElement} */ (h('input', { name: 'value', value: p.attribute === 'period' ? '' : p.value ?? '', autocomplete: 'off' }));
    const period = periodSelect(p.attribute === 'period' ? p.value : '60s');
    // A new prize starts empty: a prefilled number would take the digits typed after it.
    const points = numberInput({ name: 'points', min: 0, value: p.points ?? '' });
    const valueField = field(t('pad.vintage.prize.of'), typed);
    period.id = typed.id;
    // The value's field follows the attribute: the periods' list, or a typed colour or object
    // with its hint, marked as an example.
    const follow = () => {
      const want = attribute.value === 'period' ? period : typed;
      valueField.querySelector('[name="value"]')?.replaceWith(want);
      typed.placeholder = t('pad.vintage.prize.example', { value: examples()[attribute.value] ?? '' });
    };
    attribute.addEventListener('change', follow);
    follow();
    const li = h('li', { class: 'prize', dataset: { pointer: `/options/prizes/${list.children.length}` } },
      field(t('pad.vintage.prize.most'), attribute), valueField, field(t('pad.vintage.prize.points'), points),
      h('button', { type: 'button', class: 'small', 'aria-label': t('pad.vintage.prize.remove'), onclick: () => li.remove() }, '✕'));
    list.append(li);
    return li;
  };
  // The examples in the page's language: the table types its cards' colours in its own words.
  add({ attribute: 'colour', value: t('pad.vintage.card.colour_example'), points: 4 });
  add({ attribute: 'period', value: '60s', points: 3 });
  const element = h('div', null, list, h('button', { type: 'button', class: 'add-prize', onclick: () => /** @type {HTMLElement | null} */ (add().querySelector('[name="value"]'))?.focus() }, t('pad.vintage.prize.add')));
  return {
    element,
    read: () => [...list.querySelectorAll('li')].map((li) => {
      const get = (/** @type {string} */ n) => /** @type {HTMLInputElement} */ (li.querySelector(`[name="${n}"]`)).value.trim();
      const value = get('value');
      const attribute = get('attribute');
      const at = /** @type {HTMLElement} */ (li).dataset.pointer;
      // Left empty, the server's refusal names the prize's value or points.
      const unmatched = value === '' ? null : unmatchable(attribute, value);
      if (unmatched) throw new Incomplete(unmatched, at);
      const points = /** @type {HTMLInputElement} */ (li.querySelector('[name="points"]'));
      if (points.value.trim() !== '' && !Number.isInteger(numberOf(points))) {
        throw new Incomplete(t('pad.form.not_a_number', { text: points.value.trim() }), at);
      }
      const name = attribute === 'period' ? plain('pad.vintage.prize.name_period', { value: periodName(value) }) : plain('pad.vintage.prize.name', { value });
      return { id: prizeId(attribute, value), name, attribute, value, points: points.value.trim() === '' ? null : numberOf(points) };
    }),
  };
}

/** Every card the log has described so far, by id. @param {any[]} effective */
function described(effective) {
  /** @type {Map<string, any>} */
  const cards = new Map();
  const note = (/** @type {any} */ card) => { if (card && typeof card === 'object' && card.id) cards.set(String(card.id), card); };
  for (const e of effective) {
    for (const list of Object.values(e.data?.showcases ?? e.data?.collections ?? {})) (/** @type {any[]} */ (list)).forEach(note);
    (e.data?.drawn ?? []).forEach(note);
  }
  return cards;
}

/** A card as a player reads it: "c4 · blue lamp, 60s, 3". @param {Map<string, any>} cards @param {string} id */
function cardLabel(cards, id) {
  const c = cards.get(id);
  return c ? t('pad.vintage.card_label', { id, colour: c.colour, type: c.type, period: periodName(c.period), value: num(c.value) }) : id;
}

/** Fresh card ids c1, c2, … that the log does not use yet. @param {Map<string, any>} cards */
function idMaker(cards) {
  let n = cards.size;
  return () => {
    do n += 1; while (cards.has(`c${n}`));
    return `c${n}`;
  };
}

/** One card's printed attributes as fields, under `title` if given. @param {any} card @param {string} id @param {string} [title] */
function cardEditor(card, id, title) {
  const input = (/** @type {string} */ name, /** @type {any} */ attrs) => /** @type {HTMLInputElement} */ (h('input', { name, autocomplete: 'off', ...attrs }));
  return h('li', { class: 'vintage-card', dataset: { id } },
    title ? h('strong', { class: 'card-title' }, title) : null,
    field(t('pad.vintage.card.object'), input('type', { value: card.type ?? '', placeholder: t('pad.vintage.card.object_example') })),
    field(t('pad.vintage.card.colour'), input('colour', { value: card.colour ?? '', placeholder: t('pad.vintage.card.colour_example') })),
    field(t('pad.vintage.card.period'), Object.assign(periodSelect(card.period), { name: 'period' })),
    field(t('pad.vintage.card.value'), numberInput({ name: 'value', min: 0, value: card.value ?? 0 })));
}

/**
 * The card a `cardEditor` describes. A value that is not a whole number (in Persian or Latin
 * digits) is refused on the page, at the card's value.
 * @param {Element} li
 */
function readCard(li) {
  const get = (/** @type {string} */ n) => /** @type {HTMLInputElement} */ (li.querySelector(`[name="${n}"]`)).value.trim();
  const valueInput = /** @type {HTMLInputElement} */ (li.querySelector('[name="value"]'));
  const value = numberOf(valueInput);
  if (!Number.isInteger(value)) {
    const at = /** @type {HTMLElement} */ (li).dataset.pointer;
    valueInput.dataset.pointer = at ? `${at}/value` : '';
    throw new Incomplete(t('pad.form.not_a_number', { text: valueInput.value.trim() }), valueInput.dataset.pointer || null);
  }
  return { id: /** @type {HTMLElement} */ (li).dataset.id, type: get('type'), colour: get('colour'), period: get('period'), value };
}

/** A prize's id from what it counts ("colour-blue"); kept in Latin letters where it can be. @param {string} attribute @param {string} value */
function prizeId(attribute, value) {
  const id = `${attribute}-${value}`.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '');
  return id || attribute;
}

/** @param {any[]} effective */
const turnByTurn = (effective) => effective.some((e) => TURN_EVENTS.includes(e.type));

export default {
  id: 'vintage',
  get name() { return t('pad.vintage.name'); },
  players: { min: 3, max: 6 },
  get goal() { return t('pad.vintage.goal'); },
  get options() {
    return [
      { key: 'prizes', label: t('pad.vintage.option.prizes'), kind: 'custom', editor: prizesEditor, help: t('pad.vintage.option.prizes_help') },
      { key: 'prize_tie', label: t('pad.vintage.option.prize_tie'), kind: 'choice', default: 'nobody', choices: [['nobody', t('pad.vintage.option.prize_tie.nobody')], ['all', t('pad.vintage.option.prize_tie.all')], ['split', t('pad.vintage.option.prize_tie.split')]], help: t('pad.vintage.option.prize_tie_help') },
      { key: 'winner_tie', label: t('pad.vintage.option.winner_tie'), kind: 'choice', default: 'shared', choices: [['shared', t('pad.vintage.option.winner_tie.shared')], ['most_prize_points', t('pad.vintage.option.winner_tie.most_prize_points')]], help: t('pad.vintage.option.winner_tie_help') },
    ];
  },
  colours: [],
  needsColours: () => false,
  correctable: ['collections_recorded'],
  /** The page's names for the card's fields the server's refusals name. */
  words: () => ({ type: t('pad.vintage.word.type'), colour: t('pad.vintage.word.colour'), period: t('pad.vintage.word.period'), value: t('pad.vintage.word.value') }),

  /** The prizes in play, under the game's heading. @param {any} game */
  describe(game) {
    const prizes = game.options?.prizes ?? [];
    if (!prizes.length) return null;
    const words = /** @type {Record<string, string>} */ (this.words());
    return h('div', { class: 'prizes-in-play' }, h('h2', null, t('pad.vintage.prizes')),
      h('ul', null, prizes.map((/** @type {any} */ p) => h('li', { dataset: { prize: p.id } },
        `${p.name} (${words[p.attribute] ?? p.attribute}: ${p.attribute === 'period' ? periodName(p.value) : p.value}) `, h('strong', null, t('pad.vintage.prize.points_n', { n: p.points }))))));
  },

  /** @param {any} _game @param {any[]} effective @param {any} [details] */
  progress(_game, effective, details) {
    const done = effective.some((e) => e.type === 'collections_recorded' || e.type === 'final_banked');
    if (!turnByTurn(effective)) return { step: t('pad.vintage.step.collections'), done };
    const turns = effective.filter((e) => e.type === 'turn_taken').length;
    return { step: details?.final_bank_due ? t('pad.vintage.step.last_banks') : t('pad.vintage.step.turn', { turn: turns + 1 }), done };
  },

  /** @param {{game: any, effective: any[], details?: any, way?: string | null, onWay?: (w: string) => void, initial?: any}} ctx */
  form(ctx) {
    if (ctx.initial) return collectionsForm(ctx);
    const started = turnByTurn(ctx.effective);
    return choiceOfWays({
      end: { label: t('pad.vintage.way.end'), build: () => collectionsForm(ctx) },
      turns: { label: t('pad.way.turns'), build: () => turnsForm(ctx) },
    }, started ? 'turns' : ctx.way ?? 'end', !started, ctx.onWay);
  },
};

/** Each player's collection at the end, card by card (`collections_recorded`). @param {{game: any, initial?: any}} ctx */
function collectionsForm({ game, initial }) {
  /** @type {Map<string, HTMLElement>} */
  const lists = new Map();
  let serial = 0;
  const addCard = (/** @type {string} */ player, /** @type {any} */ card = {}) => {
    const list = lists.get(player);
    if (!list) return null;
    serial += 1;
    const seat = game.players.findIndex((/** @type {any} */ p) => p.name === player) + 1;
    const li = cardEditor(card, card.id ?? `s${seat}c${serial}`);
    li.append(h('button', { type: 'button', class: 'small', 'aria-label': t('pad.vintage.card.remove'), onclick: () => li.remove() }, '✕'));
    list.append(li);
    return li;
  };
  const players = game.players.map((/** @type {any} */ p) => {
    const list = h('ol', { class: 'collection' });
    lists.set(p.name, list);
    const fieldset = h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: `/events/0/data/collections/${esc(p.name)}` } },
      h('legend', null, p.name), list,
      h('button', { type: 'button', class: 'add-card', onclick: () => addCard(p.name)?.querySelector('input')?.focus() }, t('pad.vintage.collection.add', { player: p.name })));
    for (const card of initial?.collections?.[p.name] ?? []) addCard(p.name, typeof card === 'string' ? { id: card } : card);
    return fieldset;
  });
  const element = h('div', { class: 'entry vintage' },
    h('p', { class: 'help' }, t('pad.vintage.collection.help')), players);
  return {
    element,
    events() {
      /** @type {Record<string, any[]>} */
      const collections = {};
      for (const [name, list] of lists) {
        collections[name] = [...list.querySelectorAll('li')].map((li, i) => {
          /** @type {HTMLElement} */ (li).dataset.pointer = `/events/0/data/collections/${esc(name)}/${i}`;
          return readCard(li);
        });
      }
      return [{ type: 'collections_recorded', data: { collections } }];
    },
  };
}

/** The step of a game recorded turn by turn: the deal, a turn, or the last banks. @param {{game: any, effective: any[], details?: any}} ctx */
function turnsForm(ctx) {
  if (!turnByTurn(ctx.effective)) return dealForm(ctx);
  if (ctx.details?.final_bank_due) return finalBankForm(ctx);
  return turnForm(ctx);
}

/** rules: Setup — 1 card to seat 1, 2 to seat 2, 3 to every other seat, face up. @param {{game: any, effective: any[]}} ctx */
function dealForm({ game, effective }) {
  const nextId = idMaker(described(effective));
  /** @type {[string, HTMLElement][]} */
  const lists = game.players.map((/** @type {any} */ p, /** @type {number} */ seat) => {
    const base = `/events/0/data/showcases/${esc(p.name)}`;
    const list = h('ol', { class: 'collection' }, Array.from({ length: Math.min(seat + 1, 3) }, (_, i) => {
      const id = nextId();
      const li = cardEditor({}, id, t('pad.vintage.deal.card', { id }));
      li.dataset.pointer = `${base}/${i}`;
      return li;
    }));
    return [p.name, h('fieldset', { class: 'player-entry', dataset: { player: p.name, pointer: base } }, h('legend', null, t('pad.vintage.showcase', { player: p.name })), list)];
  });
  const element = h('div', { class: 'entry vintage turns' }, h('h3', null, t('pad.vintage.deal.title')),
    h('p', { class: 'help' }, t('pad.vintage.deal.help')),
    lists.map(([, fieldset]) => fieldset));
  return {
    element,
    events() {
      /** @type {Record<string, any[]>} */
      const showcases = {};
      for (const [name, fieldset] of lists) showcases[name] = [...fieldset.querySelectorAll('li')].map(readCard);
      return [{ type: 'showcases_dealt', data: { showcases } }];
    },
  };
}

/**
 * rules: A turn — bank a showcase card, steal (from a showcase of two or more) or dig the top of
 * the discard pile, draw two and keep one. The player is the next seat, as the server counts.
 * @param {{game: any, effective: any[], details?: any}} ctx
 */
function turnForm({ game, effective, details }) {
  const cards = described(effective);
  const nextId = idMaker(cards);
  const names = game.players.map((/** @type {any} */ p) => p.name);
  const turns = effective.filter((e) => e.type === 'turn_taken').length;
  const player = details?.next_player ?? names[turns % names.length];
  const showcases = details?.showcases ?? {};
  const discard = details?.discard_pile ?? [];
  const label = (/** @type {string} */ id) => cardLabel(cards, id);

  const banked = /** @type {HTMLSelectElement} */ (h('select', { name: 'banked' }, (showcases[player] ?? []).map((/** @type {string} */ id) => h('option', { value: id }, label(id)))));
  /** What the player may take, as the option values index it. @type {{steal: {from: string, card: string} | null, dig: string | null}[]} */
  const takes = [];
  const top = discard.at(-1);
  const option = (/** @type {typeof takes[number]} */ t, /** @type {string} */ text) => h('option', { value: String(takes.push(t) - 1) }, text);
  const take = /** @type {HTMLSelectElement} */ (h('select', { name: 'take' },
    top ? option({ steal: null, dig: top }, t('pad.vintage.turn.dig', { card: label(top) })) : null,
    names.filter((n) => n !== player && (showcases[n] ?? []).length >= 2).flatMap((n) => showcases[n].map(
      (/** @type {string} */ id) => option({ steal: { from: n, card: id }, dig: null }, t('pad.vintage.turn.steal', { player: n, card: label(id) }))))));

  // After a reshuffle (5–6 players) a drawn card may be one already seen: name it instead.
  const seen = [...cards.keys()].filter((id) => !Object.values(showcases).flat().includes(id)
    && !Object.values(details?.collections ?? {}).flat().includes(id) && !(details?.reshuffled && discard.includes(id)));
  const reshuffling = Boolean(details?.reshuffled) || (details?.deck ?? 2) < 2;
  const drawn = [0, 1].map((i) => {
    const id = nextId();
    const li = cardEditor({}, id, t(i === 0 ? 'pad.vintage.turn.first_drawn' : 'pad.vintage.turn.second_drawn', { id }));
    li.dataset.pointer = `/events/0/data/drawn/${i}`;
    if (reshuffling && seen.length) {
      const known = /** @type {HTMLSelectElement} */ (h('select', { name: 'known' }, h('option', { value: '' }, t('pad.vintage.turn.new_card')), seen.map((id) => h('option', { value: id }, label(id)))));
      known.addEventListener('change', () => { for (const f of li.querySelectorAll('.field:not(.known)')) /** @type {HTMLElement} */ (f).hidden = Boolean(known.value); });
      const knownField = field(t('pad.vintage.turn.drawn'), known);
      knownField.classList.add('known');
      li.prepend(knownField);
    }
    return li;
  });
  const read = (/** @type {Element} */ li) => /** @type {HTMLSelectElement | null} */ (li.querySelector('[name="known"]'))?.value || readCard(li);
  const kept = /** @type {HTMLSelectElement} */ (h('select', { name: 'kept' }, h('option', { value: '0' }, t('pad.vintage.turn.keep_first')), h('option', { value: '1' }, t('pad.vintage.turn.keep_second'))));

  const element = h('div', { class: 'entry vintage turns' },
    h('h3', null, t('pad.vintage.turn.heading', { turn: turns + 1, player })),
    h('p', { class: 'help' }, details?.reshuffled ? t('pad.vintage.turn.deck_reshuffled', { n: details?.deck ?? '?' }) : t('pad.vintage.turn.deck', { n: details?.deck ?? '?' })),
    h('fieldset', { class: 'turn', dataset: { pointer: '/events/0', player } }, h('legend', null, t('pad.vintage.turn.legend', { player })),
      withPointer(field(t('pad.vintage.turn.banks'), banked), '/events/0/data/banked'),
      withPointer(field(t('pad.vintage.turn.takes'), take, t('pad.vintage.turn.takes_help')), '/events/0/data/steal /events/0/data/dig'),
      h('fieldset', { class: 'drawn', dataset: { pointer: '/events/0/data/drawn' } }, h('legend', null, t('pad.vintage.turn.draws')), h('ol', { class: 'collection' }, drawn)),
      withPointer(field(t('pad.vintage.turn.keeps'), kept, t('pad.vintage.turn.keeps_help')), '/events/0/data/kept')));
  return {
    element,
    events() {
      if (!banked.value) throw new Incomplete(t('pad.vintage.turn.empty_showcase', { player }), '/events/0/data/banked');
      if (!take.value) throw new Incomplete(t('pad.vintage.turn.nothing_to_take'), '/events/0/data/steal');
      const cardsDrawn = drawn.map(read);
      const keptCard = cardsDrawn[Number(kept.value)];
      return [{ type: 'turn_taken', data: {
        player, banked: banked.value, ...takes[Number(take.value)],
        drawn: cardsDrawn,
        kept: typeof keptCard === 'string' ? keptCard : keptCard.id,
      } }];
    },
  };
}

/**
 * rules: End of the game — everyone banks one more showcase card; a player who had one turn
 * fewer may bank a second.
 * @param {{game: any, effective: any[], details?: any}} ctx
 */
function finalBankForm({ game, effective, details }) {
  const cards = described(effective);
  const names = details?.final_bank_order?.length ? details.final_bank_order : game.players.map((/** @type {any} */ p) => p.name);
  const turns = new Map(names.map((/** @type {string} */ n) => [n, effective.filter((e) => e.type === 'turn_taken' && e.data.player === n).length]));
  const most = Math.max(...turns.values());
  const choose = (/** @type {string} */ name, /** @type {string[]} */ showcase, /** @type {string} */ none, /** @type {number} */ index) =>
    /** @type {HTMLSelectElement} */ (h('select', { name: 'banked', dataset: { player: name } }, h('option', { value: '', selected: !showcase[index] }, none),
      showcase.map((id, i) => h('option', { value: id, selected: i === index }, cardLabel(cards, id)))));
  /** @type {[string, HTMLSelectElement[]][]} */
  const picks = names.map((/** @type {string} */ name) => {
    const showcase = details?.showcases?.[name] ?? [];
    const selects = [choose(name, showcase, t('pad.vintage.last.nothing'), 0)];
    if ((turns.get(name) ?? 0) < most) selects.push(choose(name, showcase, t('pad.vintage.last.no_second'), -1));
    return [name, selects];
  });
  const element = h('div', { class: 'entry vintage turns' }, h('h3', null, t('pad.vintage.step.last_banks')),
    h('p', { class: 'help' }, t('pad.vintage.last.help')),
    picks.map(([name, selects]) => h('fieldset', { class: 'player-entry', dataset: { player: name, pointer: `/events/0/data/banked/${esc(name)}` } },
      h('legend', null, name), selects.map((s, i) => field(i === 0 ? t('pad.vintage.last.banks') : t('pad.vintage.last.second'), s)))));
  return {
    element,
    events() {
      /** @type {Record<string, string[]>} */
      const banked = {};
      for (const [name, selects] of picks) banked[name] = selects.map((s) => s.value).filter(Boolean);
      return [{ type: 'final_banked', data: { banked } }];
    },
  };
}

/** @param {HTMLElement} el @param {string} pointer */
function withPointer(el, pointer) {
  el.dataset.pointer = pointer;
  return el;
}
