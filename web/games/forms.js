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
 * A refusal in the players' words, in any language: the server's detail comes in the page's
 * language and stands; only the game's identifiers in it (option keys such as strict_counts, a
 * card's field) become the page's own labels for them ("“Check card counts”"). Identifiers are
 * the same in every language, so nothing here reads the server's wording; the refusal's kind
 * comes from its machine fields (`pointer`). Quoted text (ids, names the table typed) is kept.
 * @template {{detail?: string, pointer?: string}} P
 * @param {P} problem @param {{options: any[], words?: () => Record<string, string>} | undefined} rules
 * @returns {P}
 */
export function inPlayersWords(problem, rules) {
  if (!problem.detail || !rules) return problem;
  const words = rules.words?.() ?? {};
  const pointer = problem.pointer ?? '';
  /** `\bkey\b` outside quotes. @param {string} key */
  const named = (key) => new RegExp(`(?<![\\w"])${key}(?![\\w"])`, 'g');
  /** `text` with `replace` applied outside its quoted parts. @param {string} text @param {(part: string) => string} replace */
  const outsideQuotes = (text, replace) =>
    text.split(/("[^"]*")/).map((part, i) => (i % 2 ? part : replace(part))).join('');
  // A prize without the value it counts (the only refusal at a prize's value): the page's own
  // sentence, naming its own fields.
  if (/^\/options\/prizes\/\d+\/value$/.test(pointer)) {
    const unquoted = problem.detail.replace(/"[^"]*"/g, '');
    const key = Object.keys(words).find((k) => named(k).test(unquoted));
    if (key) return { ...problem, detail: t('pad.refusal.prize_value', { field: words[key], of: t('pad.vintage.prize.of') }) };
  }
  let detail = outsideQuotes(problem.detail, (part) => rules.options.reduce(
    (text, o) => (o.label ? text.replace(named(o.key), t('pad.refusal.option', { label: o.label })) : text), part));
  // A card's field the refusal points at, by the page's name for it.
  const field = pointer.split('/').pop() ?? '';
  if (Object.hasOwn(words, field)) detail = outsideQuotes(detail, (part) => part.replace(named(field), words[field]));
  return { ...problem, detail };
}
