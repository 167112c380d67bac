// Mint Condition: per player, steppers for each card kind collected this round, with the
// count each player needs and what the deck still allows. One `round_collected` per round.
import { h, field, stepper, uid, numberInput, numberOf } from '../ui.js';
import { num, plain, t } from '../i18n.js';
import { esc } from './forms.js';

/**
 * Card kinds in the rulebook's order; `copies` null where the count is not published. Snack
 * Fingers and Sleeve Me Up! share one count (`pair`): the box holds 15 of the two together.
 */
const CARDS = [
  { id: 'be-careful', key: 'pad.mint_condition.card.be_careful', copies: 15 },
  { id: 'animal-kingdom', key: 'pad.mint_condition.card.animal_kingdom', copies: 12 },
  { id: 'autographed', key: 'pad.mint_condition.card.autographed', copies: 10 },
  { id: 'fine-wine', key: 'pad.mint_condition.card.fine_wine', copies: 6 },
  { id: 'heavy-rotation', key: 'pad.mint_condition.card.heavy_rotation', copies: 15 },
  { id: 'legacy-edition', key: 'pad.mint_condition.card.legacy_edition', copies: 6 },
  { id: 'lost-pieces', key: 'pad.mint_condition.card.lost_pieces', copies: 5 },
  { id: 'memories', key: 'pad.mint_condition.card.memories', copies: 12 },
  { id: 'snack-fingers', key: 'pad.mint_condition.card.snack_fingers', copies: null, pair: true },
  { id: 'sleeve-me-up', key: 'pad.mint_condition.card.sleeve_me_up', copies: null, pair: true },
  { id: 'smoking-kills', key: 'pad.mint_condition.card.smoking_kills', copies: 5, expert: true },
];

/** Snack Fingers and Sleeve Me Up! in the box, the two together (as the server counts them). */
const PAIR_COPIES = 15;

/** Cards each player collects per round, by player count (rules: 2 → 7, 3 → 9, 4 → 8, 5 → 6). */
const PER_ROUND = { 2: 7, 3: 9, 4: 8, 5: 6 };

/** The `smoking_kills` house rule: damage per copy to its holder and to every other player. */
function smokingKillsEditor() {
  const input = (/** @type {string} */ name) => numberInput({ name, min: 0, max: 20 });
  const holder = input('holder');
  const others = input('others');
  return {
    element: h('div', { class: 'row pair' }, field(t('pad.mint_condition.smoking_kills.holder'), holder), field(t('pad.mint_condition.smoking_kills.others'), others)),
    read: () => (holder.value === '' && others.value === '' ? null : { holder: numberOf(holder), others: numberOf(others) }),
  };
}

/** A player's Lucky colour in the page's words. @param {string | undefined} colour */
const colourName = (colour) => {
  switch (colour) {
    case 'red': return t('pad.colour.red');
    case 'blue': return t('pad.colour.blue');
    case 'green': return t('pad.colour.green');
    case 'yellow': return t('pad.colour.yellow');
    case 'purple': return t('pad.colour.purple');
    default: return colour ?? t('pad.mint_condition.colour');
  }
};

/** @param {any} card */
const kindOf = (card) => (typeof card === 'string' ? card : card.card);

export default {
  id: 'mint-condition',
  get name() { return t('pad.mint_condition.name'); },
  players: { min: 2, max: 5 },
  get goal() { return t('pad.mint_condition.goal'); },
  get options() {
    return [
      { key: 'lucky', label: t('pad.mint_condition.option.lucky'), kind: 'toggle', default: false, help: t('pad.mint_condition.option.lucky_help') },
      { key: 'heavily_used', label: t('pad.mint_condition.option.heavily_used'), kind: 'toggle', default: false, help: t('pad.mint_condition.option.heavily_used_help') },
      { key: 'expert_cards', label: t('pad.mint_condition.option.expert_cards'), kind: 'toggle', default: false, help: t('pad.mint_condition.option.expert_cards_help') },
      { key: 'strict_counts', label: t('pad.mint_condition.option.strict_counts'), kind: 'toggle', default: true, help: t('pad.mint_condition.option.strict_counts_help') },
      { key: 'be_careful_when_none', label: t('pad.mint_condition.option.be_careful_when_none'), kind: 'choice', default: 'five', choices: [['five', t('pad.mint_condition.option.be_careful_when_none.five')], ['zero', t('pad.mint_condition.option.be_careful_when_none.zero')]], help: t('pad.mint_condition.option.be_careful_when_none_help') },
      { key: 'memories_over_three', label: t('pad.mint_condition.option.memories_over_three'), kind: 'choice', default: 'free', choices: [['free', t('pad.mint_condition.option.memories_over_three.free')], ['multiples_of_three', t('pad.mint_condition.option.memories_over_three.multiples_of_three')]], help: t('pad.mint_condition.option.memories_over_three_help') },
      { key: 'sleeve_protects', label: t('pad.mint_condition.option.sleeve_protects'), kind: 'number', default: 1, min: 0, max: 10, help: t('pad.mint_condition.option.sleeve_protects_help') },
      { key: 'protected_be_careful', label: t('pad.mint_condition.option.protected_be_careful'), kind: 'choice', default: 'counts', choices: [['counts', t('pad.mint_condition.option.protected_be_careful.counts')], ['ignored', t('pad.mint_condition.option.protected_be_careful.ignored')]], help: t('pad.mint_condition.option.protected_be_careful_help') },
      { key: 'smoking_kills', label: t('pad.mint_condition.option.smoking_kills'), kind: 'custom', editor: smokingKillsEditor, help: t('pad.mint_condition.option.smoking_kills_help') },
      { key: 'tiebreak_scope', label: t('pad.mint_condition.option.tiebreak_scope'), kind: 'choice', default: 'game', choices: [['game', t('pad.mint_condition.option.tiebreak_scope.game')], ['last_round', t('pad.mint_condition.option.tiebreak_scope.last_round')]], help: t('pad.mint_condition.option.tiebreak_scope_help') },
    ];
  },
  get colours() {
    return [['red', t('pad.colour.red')], ['blue', t('pad.colour.blue')], ['green', t('pad.colour.green')], ['yellow', t('pad.colour.yellow')], ['purple', t('pad.colour.purple')]];
  },
  /** @param {any} options */
  needsColours: (options) => Boolean(options.lucky),
  /** Nothing more to show under the game's heading. @param {any} _game @returns {HTMLElement | null} */
  describe: (_game) => null,
  correctable: ['round_collected'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const rounds = effective.filter((e) => e.type === 'round_collected').length;
    return { step: t('pad.step.round_of', { round: Math.min(rounds + 1, 3), rounds: 3 }), round: true, done: rounds >= 3 };
  },

  /**
   * @param {{game: any, effective: any[], initial?: any}} ctx
   * `initial`: a stored round's data, to correct it.
   */
  form({ game, effective, initial }) {
    const options = game.options ?? {};
    const players = game.players.map((/** @type {any} */ p) => p);
    const earlier = effective.filter((e) => e.type === 'round_collected' && e.data.round !== initial?.round);
    const round = initial?.round ?? earlier.length + 1;
    const need = PER_ROUND[/** @type {2|3|4|5} */ (players.length)];
    const kinds = CARDS.filter((c) => !c.expert || options.expert_cards);

    /** Copies of each kind already used in the other rounds, all players. */
    const used = new Map(kinds.map((c) => [c.id, 0]));
    for (const e of earlier) {
      for (const cards of Object.values(e.data.collections ?? {})) {
        for (const card of /** @type {any[]} */ (cards)) used.set(kindOf(card), (used.get(kindOf(card)) ?? 0) + 1);
      }
    }

    /** @type {Map<string, {counts: Map<string, any>, protectedCounts: Map<string, any>, lucky: any, status: HTMLElement, fieldset: HTMLElement, tab: HTMLElement}>} */
    const byPlayer = new Map();
    /** @type {HTMLElement | null} */
    let root = null;

    /** What the box holds: one count per kind, one for the pair (as the server checks it). */
    const decks = [
      ...kinds.filter((c) => c.copies !== null).map((c) => ({ kinds: [c], copies: /** @type {number} */ (c.copies) })),
      { kinds: kinds.filter((c) => c.pair), copies: PAIR_COPIES },
    ];
    /** Copies of a deck's kinds `name` holds this round. @param {{kinds: typeof kinds}} deck @param {string} name */
    const holds = (deck, name) => deck.kinds.reduce((n, c) => n + numberOf(byPlayer.get(name)?.counts.get(c.id).input), 0);
    /** What is left of a deck after the other rounds and this one (below 0: over the box). @param {typeof decks[number]} deck */
    const leftOf = (deck) => deck.copies
      - deck.kinds.reduce((n, c) => n + (used.get(c.id) ?? 0), 0)
      - players.reduce((/** @type {number} */ n, /** @type {any} */ p) => n + holds(deck, p.name), 0);

    const refresh = () => {
      for (const [, p] of byPlayer) {
        const total = kinds.reduce((n, c) => n + numberOf(p.counts.get(c.id).input), 0);
        const left = need - total;
        p.status.textContent = `${t('pad.mint_condition.count', { total, need })}${left > 0 ? ` — ${t('pad.mint_condition.to_go', { n: left })}` : left < 0 ? ` — ${t('pad.mint_condition.too_many', { n: -left })}` : ' ✓'}`;
        p.status.className = left === 0 ? 'count ok' : 'count';
        /** @type {HTMLElement} */ (p.tab.querySelector('.tab-count')).textContent = `${num(total)}/${num(need)}`;
        p.tab.classList.toggle('done', left === 0);
        const sleeves = numberOf(p.counts.get('sleeve-me-up').input);
        for (const [, s] of p.protectedCounts) s.hidden = sleeves === 0;
      }
      for (const deck of decks) {
        const left = leftOf(deck);
        const [over, under] = deck.kinds.length > 1
          ? ['pad.mint_condition.deck_pair_over', 'pad.mint_condition.deck_pair_left']
          : ['pad.mint_condition.deck_over', 'pad.mint_condition.deck_left'];
        for (const c of deck.kinds) {
          // The pair's note names the other kind: "3 left in the deck with Sleeve Me Up!".
          const other = plain(deck.kinds.find((k) => k !== c)?.key ?? c.key);
          for (const note of (root?.querySelectorAll(`[data-deck="${c.id}"]`) ?? [])) {
            note.textContent = left < 0 ? t(over, { n: -left, other }) : t(under, { n: left, other });
            note.classList.toggle('over', left < 0);
          }
        }
      }
    };

    // One player's cards at a time (a tab per player, in seat order): a 4-player round fits
    // about one screen. The 'need'-th card tapped in moves on to the next player still short.
    /** @param {string} name @param {{scroll?: boolean}} [how] */
    const show = (name, { scroll = false } = {}) => {
      for (const [n, p] of byPlayer) {
        p.fieldset.hidden = n !== name;
        p.tab.setAttribute('aria-selected', String(n === name));
        p.tab.tabIndex = n === name ? 0 : -1;
      }
      if (scroll) tabs.scrollIntoView({ block: 'start' });
    };
    const totalOf = (/** @type {string} */ name) => {
      const p = byPlayer.get(name);
      return p ? kinds.reduce((n, c) => n + numberOf(p.counts.get(c.id).input), 0) : 0;
    };
    const moveOn = (/** @type {string} */ name) => {
      if (totalOf(name) !== need) return;
      const seat = players.findIndex((/** @type {any} */ p) => p.name === name);
      const next = [...players.slice(seat + 1), ...players.slice(0, seat)].find((/** @type {any} */ p) => totalOf(p.name) < need);
      if (next) show(next.name, { scroll: true });
    };

    const tabs = h('div', { class: 'player-tabs', role: 'tablist', 'aria-label': t('pad.mint_condition.whose_cards') });
    const fieldsets = players.map((/** @type {any} */ player) => {
      const given = initial?.collections?.[player.name] ?? [];
      const count = (/** @type {string} */ kind, /** @type {(c: any) => boolean} */ pred = () => true) =>
        given.filter((/** @type {any} */ c) => kindOf(c) === kind && pred(c)).length;
      const counts = new Map();
      const protectedCounts = new Map();
      const rows = kinds.map((c) => {
        const s = stepper(t(c.key), {
          value: count(c.id), max: c.copies ?? (c.pair ? PAIR_COPIES : 30), onchange: refresh, dataset: { card: c.id },
          note: c.copies !== null || c.pair ? h('small', { class: 'deck', dataset: { deck: c.id } }) : null,
          onplus: () => moveOn(player.name),
        });
        counts.set(c.id, s);
        // Under its card: "protected" is enough to see, the card's name is read out.
        const prot = stepper(t('pad.mint_condition.protected'), { lead: `${t(c.key)} `,
          value: count(c.id, (x) => typeof x === 'object' && x.protected), max: 30, onchange: refresh,
        });
        prot.classList.add('protected');
        prot.hidden = true;
        if (c.id !== 'sleeve-me-up') protectedCounts.set(c.id, prot);
        return h('li', { class: 'card-row' }, s, c.id !== 'sleeve-me-up' ? prot : null);
      });
      const lucky = options.lucky
        ? stepper(t('pad.mint_condition.lucky_symbols', { player: player.name, colour: colourName(player.color) }), {
          value: given.filter((/** @type {any} */ x) => typeof x === 'object' && x.symbol).length, max: 30,
        })
        : null;
      const status = h('p', { class: 'count', 'aria-live': 'polite' });
      const panelId = uid('cards');
      const tab = h('button', { type: 'button', role: 'tab', class: 'player-tab', 'aria-controls': panelId, dataset: { player: player.name }, onclick: () => show(player.name) },
        h('span', { class: 'tab-name' }, player.name), h('span', { class: 'tab-count' }));
      tabs.append(tab);
      const fieldset = h('fieldset', { class: 'player-entry', id: panelId, role: 'tabpanel', dataset: { pointer: `/events/0/data/collections/${esc(player.name)}`, player: player.name } },
        h('legend', null, player.name, player.color ? h('span', { class: `swatch swatch-${player.color}` }, ` ${colourName(player.color)}`) : null),
        status,
        h('ul', { class: 'cards' }, rows),
        lucky);
      // A refusal about this player's cards opens this player's tab.
      fieldset.addEventListener('problem', () => show(player.name));
      byPlayer.set(player.name, { counts, protectedCounts, lucky, status, fieldset, tab });
      return fieldset;
    });

    const element = root = h('div', { class: 'entry mint-condition', dataset: { pointer: '/events/0/data/round' } },
      h('h3', null, t('pad.mint_condition.round_heading', { round })),
      h('p', { class: 'help' }, t('pad.mint_condition.need', { n: need })),
      tabs,
      fieldsets);
    refresh();
    show(players[0].name);

    return {
      element,
      round,
      events() {
        /** @type {Record<string, any[]>} */
        const collections = {};
        for (const player of players) {
          const p = byPlayer.get(player.name);
          if (!p) continue;
          const base = `/events/0/data/collections/${esc(player.name)}`;
          /** @type {any[]} */
          const cards = [];
          for (const c of kinds) {
            const n = numberOf(p.counts.get(c.id).input);
            const protCount = p.protectedCounts.get(c.id);
            const prot = Math.min(n, protCount ? numberOf(protCount.input) : 0);
            const pointers = [];
            for (let i = 0; i < n; i += 1) {
              pointers.push(`${base}/${cards.length}`);
              cards.push(i < prot ? { card: c.id, protected: true } : c.id);
            }
            // The stepper answers for every card it produced (a refusal names one of them).
            p.counts.get(c.id).dataset.pointer = pointers.join(' ');
          }
          const symbols = Math.min(cards.length, p.lucky ? numberOf(p.lucky.input) : 0);
          for (let i = 0; i < symbols; i += 1) {
            cards[i] = typeof cards[i] === 'string' ? { card: cards[i], symbol: player.color } : { ...cards[i], symbol: player.color };
          }
          collections[player.name] = cards;
        }
        // A refusal about the whole round's cards of a kind (more than the box holds, no player
        // alone to blame) points at the collections: it is shown at that kind, under the player
        // who holds the most of it.
        for (const deck of decks) {
          if (leftOf(deck) >= 0) continue;
          const most = players.reduce((/** @type {any} */ a, /** @type {any} */ b) => (holds(deck, b.name) > holds(deck, a.name) ? b : a));
          const counts = byPlayer.get(most.name)?.counts;
          const kind = deck.kinds.reduce((a, b) => (numberOf(counts.get(b.id).input) > numberOf(counts.get(a.id).input) ? b : a));
          const at = counts.get(kind.id);
          at.dataset.pointer = [at.dataset.pointer, '/events/0/data/collections'].filter(Boolean).join(' ');
        }
        return [{ type: 'round_collected', data: { round, collections } }];
      },
    };
  },
};
