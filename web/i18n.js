// The page's words in the player's language. Each language is one catalogue at the repository's
// root (i18n/<lang>.json: one flat object, key → text, `{name}` for what is filled in), served
// at /pad/i18n/<lang>.json. The language comes from the phone's own choice (kept in this
// browser), else from the browser's languages, else English. Persian reads right to left and
// shows Persian digits; numbers typed with Persian or Latin digits are both read.

/** The languages the pad speaks, each named in itself (the switch shows these names). */
export const LANGUAGES = /** @type {const} */ ({ en: 'English', fr: 'Français', fa: 'فارسی' });
/** Written right to left. */
const RTL = new Set(['fa']);
const LANG_KEY = 'tabletally.lang';
const FALLBACK = 'en';

/** @type {keyof typeof LANGUAGES} */
let current = FALLBACK;
/** @type {Record<string, string>} */
let words = {};
/** @type {Record<string, string>} */
let english = {};

/** @param {string} tag @returns {keyof typeof LANGUAGES | null} */
function known(tag) {
  const base = tag.toLowerCase().split('-')[0];
  return Object.hasOwn(LANGUAGES, base) ? /** @type {keyof typeof LANGUAGES} */ (base) : null;
}

/** The language to use: the one this phone chose, else the browser's first one we speak. */
export function chosenLanguage() {
  const kept = known(localStorage.getItem(LANG_KEY) ?? '');
  if (kept) return kept;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const lang = known(tag ?? '');
    if (lang) return lang;
  }
  return FALLBACK;
}

/** @param {string} lang @returns {Promise<Record<string, string>>} */
async function catalogue(lang) {
  // The one fetch outside api.js: a static file of the page, like its scripts.
  const response = await fetch(`/pad/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${lang}`);
  return response.json();
}

/**
 * Loads `lang` (with English behind it for a key a catalogue lacks) and sets the page's
 * `lang` and `dir`. Kept in this browser when `remember` (the switch on the page).
 * @param {string} lang @param {{remember?: boolean}} [how]
 */
export async function useLanguage(lang, { remember = false } = {}) {
  const next = known(lang) ?? FALLBACK;
  try {
    english = Object.keys(english).length ? english : await catalogue(FALLBACK);
    words = next === FALLBACK ? english : await catalogue(next);
    current = next;
  } catch {
    words = english;
    current = FALLBACK;
  }
  if (remember) localStorage.setItem(LANG_KEY, current);
  document.documentElement.lang = current;
  document.documentElement.dir = dir();
  for (const el of document.querySelectorAll('[data-i18n]')) {
    el.textContent = t(/** @type {HTMLElement} */ (el).dataset.i18n ?? '');
  }
  for (const el of document.querySelectorAll('[data-i18n-label]')) {
    el.setAttribute('aria-label', t(/** @type {HTMLElement} */ (el).dataset.i18nLabel ?? ''));
  }
  document.title = t('pad.page.title');
}

/** The language in use (a BCP 47 tag: en, fr, fa). */
export const lang = () => current;

/** `rtl` or `ltr`. */
export const dir = () => (RTL.has(current) ? 'rtl' : 'ltr');

const PERSIAN = '۰۱۲۳۴۵۶۷۸۹';

/** Whether the page shows numbers in digits of its own (Persian), not Latin ones. */
export const ownDigits = () => current === 'fa';
const ARABIC = '٠١٢٣٤٥٦٧٨٩';

/** Latin digits in text shown in Persian become Persian digits ("Round 2" → "… ۲"). @param {string | number} text */
export function digits(text) {
  const s = String(text);
  if (current !== 'fa') return s;
  return s.replace(/(\d)\.(\d)/g, '$1٫$2').replace(/[0-9]/g, (d) => PERSIAN[Number(d)]);
}

/**
 * A sentence the server wrote (a refusal, a breakdown's label or detail, a tie-break) as the page
 * shows it: in Persian its numbers in Persian digits, like the page's own. Digits that belong to
 * a Latin word or a path stay as they are (a card "c4", a period "60s", "/events/0").
 * @param {string} text
 */
export function spoken(text) {
  if (current !== 'fa') return text;
  return text.replace(/(?<![A-Za-z0-9_/.])\d+(?:\.\d+)?(?![A-Za-z0-9_/])/g, (n) => digits(n));
}

/** A number as the page shows it (Persian digits in Persian). @param {number | string | null | undefined} n @param {number} [fraction] digits after the point */
export function num(n, fraction) {
  if (n === null || n === undefined || n === '') return '';
  const value = typeof n === 'number' && fraction !== undefined ? n.toFixed(fraction) : String(n);
  return current === 'fa' ? digits(value).replace(/^-/, '−') : value;
}

/** Text typed with Persian, Arabic-Indic or Latin digits, with Latin digits (what the API reads). @param {string} text */
export function latinDigits(text) {
  return text
    .replace(/[۰-۹]/g, (d) => String(PERSIAN.indexOf(d)))
    .replace(/[٠-٩]/g, (d) => String(ARABIC.indexOf(d)))
    .replace(/[٫]/g, '.')
    .replace(/[−]/g, '-');
}

/** A typed number (Persian or Latin digits); `NaN` when it is none. @param {string} text */
export function readNumber(text) {
  return Number(latinDigits(text.trim()));
}

/**
 * A catalogue text with its `{name}` filled in (numbers in the page's digits), as stored: for
 * what the page sends (a prize's name, a phone's token name), not for what it shows.
 * @param {string} key @param {Record<string, string | number>} [params]
 */
export function plain(key, params) {
  return fill(key, params, (s) => s);
}

/**
 * A catalogue text with its `{name}` filled in, to show. A key missing from the language's
 * catalogue falls back to English, then to the key itself (a test keeps the catalogues
 * complete). Right to left, Latin text inside it (an English card name, a player's name, a card
 * id) is isolated so its punctuation stays where it belongs ("Be Careful!", not "!Be Careful").
 * @param {string} key @param {Record<string, string | number>} [params]
 */
export function t(key, params) {
  return isolated(fill(key, params, isolated));
}

/** @param {string} s */
function isolated(s) {
  return RTL.has(current) && /[A-Za-z]/.test(s) && !/[\u0600-\u06FF]/.test(s) ? `\u2068${s}\u2069` : s;
}

/** @param {string} key @param {Record<string, string | number> | undefined} params @param {(s: string) => string} wrap */
function fill(key, params, wrap) {
  const text = words[key] ?? english[key] ?? key;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (all, name) => {
    const v = params[name];
    if (v === undefined) return all;
    return typeof v === 'number' ? num(v) : wrap(v);
  });
}

/** The text for one or for several (`n` filled in as `{n}`). @param {number} n @param {string} one @param {string} other @param {Record<string, string | number>} [params] */
export function plural(n, one, other, params = {}) {
  const rule = new Intl.PluralRules(current).select(n);
  return t(rule === 'one' ? one : other, { n, ...params });
}

/** Names one after another ("Ann, Bo, Cy"; in Persian with its own comma). @param {string[]} items */
export function joined(items) {
  return items.join(current === 'fa' ? '، ' : ', ');
}
