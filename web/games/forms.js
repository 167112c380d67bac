// What the four games' entry forms share: a JSON pointer token for a refusal's field, the
// numbers a thumb types, and the switch between the ways a table may record a step.
import { h, uid, Incomplete } from '../ui.js';
import { latinDigits, t } from '../i18n.js';

/** A JSON pointer token (RFC 6901): `~` → `~0`, `/` → `~1`. @param {string | number} s */
export function esc(s) {
  return String(s).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** "12 30, 47" or "۱۲ ۳۰، ۴۷" → [12, 30, 47] (what a thumb types). @param {string} text */
export function numbers(text) {
  return latinDigits(text).split(/[\s,;،]+/).filter(Boolean).map(Number);
}

/**
 * The whole numbers typed in `input`; a word that is not one is refused on the page, next to
 * the field (`pointer`), before anything is sent.
 * @param {HTMLInputElement} input @param {string} pointer
 */
export function typedNumbers(input, pointer) {
  const words = latinDigits(input.value).split(/[\s,;،]+/).filter(Boolean);
  const wrong = words.find((w) => !/^-?\d+$/.test(w));
  if (wrong !== undefined) throw new Incomplete(t('pad.form.not_a_number', { text: wrong }), pointer);
  return words.map(Number);
}

/**
 * @typedef {{element: HTMLElement, events: () => any[]}} EntryForm
 * @typedef {{label: string, build: () => EntryForm}} Way
 */

/**
 * The ways a table may record the next step (say the rows at the end of a round, or every turn):
 * a switch on top while the log still leaves the choice open, the chosen way's form under it.
 * @param {Record<string, Way>} ways
 * @param {string} chosen the way shown first
 * @param {boolean} open whether the table may still choose (else only `chosen`)
 * @param {((way: string) => void) | undefined} onWay keeps the choice for the next step
 * @returns {EntryForm}
 */
export function choiceOfWays(ways, chosen, open, onWay) {
  let current = ways[chosen].build();
  const body = h('div', { class: 'way' }, current.element);
  const name = uid('way');
  const choose = (/** @type {string} */ id) => {
    current = ways[id].build();
    body.replaceChildren(current.element);
    onWay?.(id);
  };
  const switcher = open
    ? h('fieldset', { class: 'ways' }, h('legend', null, t('pad.game.record')),
      Object.entries(ways).map(([id, way]) => h('label', { class: 'way-choice' },
        h('input', { type: 'radio', name, value: id, checked: id === chosen, onchange: () => choose(id) }), ' ', way.label)))
    : null;
  return { element: h('div', null, switcher, body), events: () => current.events() };
}

/**
 * A refusal in the players' words: the server names option keys and event fields
 * ("set option strict_counts to false", "a card's type is non-empty text"); the page shows its
 * own labels for them ("switch off “Check card counts”", "a card's object must be filled in").
 * The server's words stay as they are for API clients.
 * @template {{detail?: string}} P
 * @param {P} problem @param {{options: any[], words?: () => Record<string, string>} | undefined} rules
 * @returns {P}
 */
export function inPlayersWords(problem, rules) {
  if (!problem.detail || !rules) return problem;
  const label = (/** @type {string} */ key) => rules.options.find((o) => o.key === key)?.label;
  const word = (/** @type {string} */ key) => rules.words?.()[key] ?? key;
  const detail = problem.detail
    .replace(/set option (\w+) to (true|false)\b/g, (all, key, on) =>
      (label(key) ? t(on === 'true' ? 'pad.refusal.switch_on' : 'pad.refusal.switch_off', { label: label(key) }) : all))
    .replace(/\boption (\w+)/g, (all, key) => (label(key) ? t('pad.refusal.option', { label: label(key) }) : all))
    .replace(/a card's (\w+) is non-empty text/g, (_all, key) => t('pad.refusal.card_field', { field: word(key) }))
    .replace(/prize "[^"]*" needs the (\w+) it counts, e\.g\. "[^"]*"/g, (_all, key) => t('pad.refusal.prize_value', { field: word(key), of: t('pad.vintage.prize.of') }));
  return { ...problem, detail };
}
