// Mint Condition: per player, steppers for each card kind collected this round, with the
// count each player needs and what the deck still allows. One `round_collected` per round.
import { h, field, stepper, uid } from '../ui.js';
import { esc } from './forms.js';

/** Card kinds in the rulebook's order; `copies` null where the count is not published. */
const CARDS = [
  { id: 'be-careful', name: 'Be Careful!', copies: 15 },
  { id: 'animal-kingdom', name: 'Animal Kingdom', copies: 12 },
  { id: 'autographed', name: 'Autographed', copies: 10 },
  { id: 'fine-wine', name: 'Fine Wine', copies: 6 },
  { id: 'heavy-rotation', name: 'Heavy Rotation', copies: 15 },
  { id: 'legacy-edition', name: 'Legacy Edition', copies: 6 },
  { id: 'lost-pieces', name: 'Lost Pieces', copies: 5 },
  { id: 'memories', name: 'Memories', copies: 12 },
  { id: 'snack-fingers', name: 'Snack Fingers', copies: null },
  { id: 'sleeve-me-up', name: 'Sleeve Me Up!', copies: null },
  { id: 'smoking-kills', name: 'Smoking Kills', copies: 5, expert: true },
];

/** Cards each player collects per round, by player count (rules: 2 → 7, 3 → 9, 4 → 8, 5 → 6). */
const PER_ROUND = { 2: 7, 3: 9, 4: 8, 5: 6 };

/** The `smoking_kills` house rule: damage per copy to its holder and to every other player. */
function smokingKillsEditor() {
  const input = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (h('input', { name, type: 'number', inputmode: 'numeric', min: 0, max: 20 }));
  const holder = input('holder');
  const others = input('others');
  return {
    element: h('div', { class: 'row pair' }, field('to its holder', holder), field('to everyone else', others)),
    read: () => (holder.value === '' && others.value === '' ? null : { holder: Number(holder.value || 0), others: Number(others.value || 0) }),
  };
}

/** @param {any} card */
const kindOf = (card) => (typeof card === 'string' ? card : card.card);

export default {
  id: 'mint-condition',
  name: 'Mint Condition',
  players: { min: 2, max: 5 },
  goal: 'Damage is bad: the lowest total wins (highest with Heavily Used). 3 rounds.',
  options: [
    { key: 'lucky', label: 'Lucky (expert)', kind: 'toggle', default: false, help: 'Each player has a colour; every card showing it (or a rainbow) takes 1 damage off at the end.' },
    { key: 'heavily_used', label: 'Heavily Used', kind: 'toggle', default: false, help: 'The highest total wins; ties go to the fewest Be Careful! cards.' },
    { key: 'expert_cards', label: 'Expert cards', kind: 'toggle', default: false, help: 'Allows Smoking Kills (it also needs a house rule for its damage).' },
    { key: 'strict_counts', label: 'Check card counts', kind: 'toggle', default: true, help: 'Refuse a round where a player has not collected exactly the cards the player count gives.' },
    { key: 'be_careful_when_none', label: 'Nobody holds Be Careful!', kind: 'choice', default: 'five', choices: [['five', 'everyone takes 5'], ['zero', 'nobody takes any']], help: 'House rule: the rulebook does not say what happens when no one holds one.' },
    { key: 'memories_over_three', label: 'Memories, 4 or more', kind: 'choice', default: 'free', choices: [['free', 'no damage'], ['multiples_of_three', '0 only for multiples of 3, else 7']], help: 'House rule: the rulebook stops at 3 Memories.' },
    { key: 'sleeve_protects', label: 'Cards one Sleeve Me Up! protects', kind: 'number', default: 1, min: 0, max: 10, help: 'House rule: how many of its owner’s cards one Sleeve Me Up! protects.' },
    { key: 'protected_be_careful', label: 'A protected Be Careful!', kind: 'choice', default: 'counts', choices: [['counts', 'still counts for the majority'], ['ignored', 'is left out of the majority']], help: 'House rule: Sleeve Me Up! protects only its owner, the majority decides others’ damage.' },
    { key: 'smoking_kills', label: 'Smoking Kills, damage per copy', kind: 'custom', editor: smokingKillsEditor, help: 'House rule for the expert card, whose rule is not published; left empty, a Smoking Kills is refused.' },
    { key: 'tiebreak_scope', label: 'Tie-break counts Be Careful! of', kind: 'choice', default: 'game', choices: [['game', 'the whole game'], ['last_round', 'the last round']], help: 'House rule: which Be Careful! cards break a tie.' },
  ],
  colours: ['red', 'blue', 'green', 'yellow', 'purple'],
  /** @param {any} options */
  needsColours: (options) => Boolean(options.lucky),
  /** Nothing more to show under the game's heading. @param {any} _game @returns {HTMLElement | null} */
  describe: (_game) => null,
  correctable: ['round_collected'],

  /** @param {any} game @param {any[]} effective */
  progress(game, effective) {
    const rounds = effective.filter((e) => e.type === 'round_collected').length;
    return { step: `Round ${Math.min(rounds + 1, 3)} of 3`, done: rounds >= 3 };
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

    const refresh = () => {
      for (const [, p] of byPlayer) {
        const total = kinds.reduce((n, c) => n + Number(p.counts.get(c.id).input.value || 0), 0);
        const left = need - total;
        p.status.textContent = `${total} of ${need} cards${left > 0 ? ` — ${left} to go` : left < 0 ? ` — ${-left} too many` : ' ✓'}`;
        p.status.className = left === 0 ? 'count ok' : 'count';
        /** @type {HTMLElement} */ (p.tab.querySelector('.tab-count')).textContent = `${total}/${need}`;
        p.tab.classList.toggle('done', left === 0);
        const sleeves = Number(p.counts.get('sleeve-me-up').input.value || 0);
        for (const [, s] of p.protectedCounts) s.hidden = sleeves === 0;
      }
      for (const c of kinds) {
        if (c.copies === null) continue;
        const thisRound = [...byPlayer.values()].reduce((n, p) => n + Number(p.counts.get(c.id).input.value || 0), 0);
        const left = c.copies - (used.get(c.id) ?? 0) - thisRound;
        for (const note of (root?.querySelectorAll(`[data-deck="${c.id}"]`) ?? [])) {
          note.textContent = left < 0 ? `${-left} more than the deck has` : `${left} left in the deck`;
          note.classList.toggle('over', left < 0);
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
      return p ? kinds.reduce((n, c) => n + Number(p.counts.get(c.id).input.value || 0), 0) : 0;
    };
    const moveOn = (/** @type {string} */ name) => {
      if (totalOf(name) !== need) return;
      const seat = players.findIndex((/** @type {any} */ p) => p.name === name);
      const next = [...players.slice(seat + 1), ...players.slice(0, seat)].find((/** @type {any} */ p) => totalOf(p.name) < need);
      if (next) show(next.name, { scroll: true });
    };

    const tabs = h('div', { class: 'player-tabs', role: 'tablist', 'aria-label': 'Whose cards' });
    const fieldsets = players.map((/** @type {any} */ player) => {
      const given = initial?.collections?.[player.name] ?? [];
      const count = (/** @type {string} */ kind, /** @type {(c: any) => boolean} */ pred = () => true) =>
        given.filter((/** @type {any} */ c) => kindOf(c) === kind && pred(c)).length;
      const counts = new Map();
      const protectedCounts = new Map();
      const rows = kinds.map((c) => {
        const s = stepper(c.name, {
          value: count(c.id), max: c.copies ?? 30, onchange: refresh, dataset: { card: c.id },
          note: c.copies !== null ? h('small', { class: 'deck', dataset: { deck: c.id } }) : null,
          onplus: () => moveOn(player.name),
        });
        counts.set(c.id, s);
        // Under its card: "protected" is enough to see, the card's name is read out.
        const prot = stepper('protected', { lead: `${c.name} `,
          value: count(c.id, (x) => typeof x === 'object' && x.protected), max: 30, onchange: refresh,
        });
        prot.classList.add('protected');
        prot.hidden = true;
        if (c.id !== 'sleeve-me-up') protectedCounts.set(c.id, prot);
        return h('li', { class: 'card-row' }, s, c.id !== 'sleeve-me-up' ? prot : null);
      });
      const lucky = options.lucky
        ? stepper(`${player.name}’s Lucky symbols (${player.color ?? 'colour'} or rainbow)`, {
          value: given.filter((/** @type {any} */ x) => typeof x === 'object' && x.symbol).length, max: 30,
        })
        : null;
      const status = h('p', { class: 'count', 'aria-live': 'polite' });
      const panelId = uid('cards');
      const tab = h('button', { type: 'button', role: 'tab', class: 'player-tab', 'aria-controls': panelId, dataset: { player: player.name }, onclick: () => show(player.name) },
        h('span', { class: 'tab-name' }, player.name), h('span', { class: 'tab-count' }));
      tabs.append(tab);
      const fieldset = h('fieldset', { class: 'player-entry', id: panelId, role: 'tabpanel', dataset: { pointer: `/events/0/data/collections/${esc(player.name)}`, player: player.name } },
        h('legend', null, player.name, player.color ? h('span', { class: `swatch swatch-${player.color}` }, ` ${player.color}`) : null),
        status,
        h('ul', { class: 'cards' }, rows),
        lucky);
      // A refusal about this player's cards opens this player's tab.
      fieldset.addEventListener('problem', () => show(player.name));
      byPlayer.set(player.name, { counts, protectedCounts, lucky, status, fieldset, tab });
      return fieldset;
    });

    const element = root = h('div', { class: 'entry mint-condition', dataset: { pointer: '/events/0/data/round' } },
      h('h3', null, `Round ${round}: cards collected`),
      h('p', { class: 'help' }, `Each player collects ${need} cards this round.`),
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
            const n = Number(p.counts.get(c.id).input.value || 0);
            const prot = Math.min(n, Number(p.protectedCounts.get(c.id)?.input.value || 0));
            const pointers = [];
            for (let i = 0; i < n; i += 1) {
              pointers.push(`${base}/${cards.length}`);
              cards.push(i < prot ? { card: c.id, protected: true } : c.id);
            }
            // The stepper answers for every card it produced (a refusal names one of them).
            p.counts.get(c.id).dataset.pointer = pointers.join(' ');
          }
          const symbols = Math.min(cards.length, Number(p.lucky?.input.value || 0));
          for (let i = 0; i < symbols; i += 1) {
            cards[i] = typeof cards[i] === 'string' ? { card: cards[i], symbol: player.color } : { ...cards[i], symbol: player.color };
          }
          collections[player.name] = cards;
        }
        return [{ type: 'round_collected', data: { round, collections } }];
      },
    };
  },
};
