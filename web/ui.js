// Small DOM helpers shared by every view: building elements without innerHTML (no injection,
// no inline styles), and showing a refused request next to the field its `pointer` names.
import { lang, num, ownDigits, readNumber, spoken, t } from './i18n.js';

/**
 * Builds an element. `attrs` keys starting with `on` become listeners; `true`/`false` toggle
 * boolean attributes; `dataset` and `class` are supported.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...any} children strings, nodes, arrays, null/false (skipped)
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else if (key === 'value' && 'value' in el) {
      /** @type {HTMLInputElement} */ (el).value = String(value);
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/** @param {Element} el @param {any[]} children */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** An SVG element (charts). @param {string} tag @param {Record<string, any>} [attrs] @param {...any} children */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs ?? {})) el.setAttribute(key, String(value));
  append(el, children);
  return el;
}

/** Replaces an element's children. @param {Element} el @param {...any} children */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let uniqueCounter = 0;
/** A fresh element id. @param {string} prefix */
export function uid(prefix) {
  uniqueCounter += 1;
  return `${prefix}-${uniqueCounter}`;
}

/** A labelled field: label above, control, optional one-line help. */
export function field(labelText, control, help) {
  const id = control.id || uid('f');
  control.id = id;
  const helpEl = help ? h('small', { class: 'help', id: `${id}-help` }, help) : null;
  if (helpEl) control.setAttribute('aria-describedby', helpEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, labelText), control, helpEl);
}

/**
 * A field for a whole number. In a language written with its own digits (Persian) it is a text
 * field with the numeric keyboard, its value shown in those digits, that takes Persian or Latin
 * digits (a `type=number` field takes Latin digits only); else a number field. Read it with
 * `numberOf`.
 * @param {Record<string, any>} attrs
 * @returns {HTMLInputElement}
 */
export function numberInput(attrs) {
  const { value, ...rest } = attrs;
  const type = ownDigits() ? 'text' : 'number';
  const input = /** @type {HTMLInputElement} */ (h('input', { ...rest, type, inputmode: 'numeric', autocomplete: 'off', class: ['number', rest.class].filter(Boolean).join(' ') }));
  input.value = value === undefined || value === null || value === '' ? '' : num(value);
  return input;
}

/** A number field's value (Persian or Latin digits); `fallback` when it is empty. @param {HTMLInputElement | HTMLSelectElement} input @param {number} [fallback] */
export function numberOf(input, fallback = 0) {
  return input.value.trim() === '' ? fallback : readNumber(input.value);
}

/**
 * A number stepper: − [n] +, with a label. Returns the wrapper; `.input` is the number input.
 * @param {string} shownText
 * `note`: a line under the label (say what the deck still holds); `onplus`: after a "+" tap;
 * `lead`: words of the label read out but not shown (a row under its card shows only "protected").
 * @param {{min?: number, max?: number, value?: number, onchange?: () => void, onplus?: () => void, dataset?: Record<string, string>, note?: HTMLElement | null, lead?: string}} [options]
 */
export function stepper(shownText, { min = 0, max = 99, value = 0, onchange, onplus, dataset, note = null, lead = '' } = {}) {
  const labelText = `${lead}${shownText}`;
  const id = uid('s');
  const input = numberInput({ id, min, max, value, class: 'stepper-value', dataset });
  const bump = (/** @type {number} */ d) => {
    const next = Math.max(min, Math.min(max, (numberOf(input) || 0) + d));
    input.value = num(next);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  if (onchange) input.addEventListener('input', onchange);
  const wrap = h('div', { class: 'stepper' },
    h('span', { class: 'stepper-label' }, h('label', { for: id }, lead ? h('span', { class: 'visually-hidden' }, lead) : null, shownText), note),
    h('button', { type: 'button', class: 'step', 'aria-label': t('pad.stepper.less', { what: labelText }), onclick: () => bump(-1) }, '−'),
    input,
    h('button', { type: 'button', class: 'step', 'aria-label': t('pad.stepper.more', { what: labelText }), onclick: () => { bump(1); onplus?.(); } }, '+'));
  return Object.assign(wrap, { input });
}

/** A form not filled in enough to send: shown like a refusal, next to the field `pointer` names. */
export class Incomplete extends Error {
  /** @param {string} detail @param {string | null} [pointer] */
  constructor(detail, pointer = null) {
    super(detail);
    this.detail = detail;
    this.pointer = pointer;
  }
}

/** Removes every error message a previous refusal left in `root`. @param {Element} root */
export function clearErrors(root) {
  for (const el of root.querySelectorAll('.field-error')) el.remove();
  for (const el of root.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

/**
 * Shows a refused request's message next to the field its JSON pointer names: the element with
 * the longest `data-pointer` that is a prefix of the pointer (the form marks its fields with the
 * pointer each one fills), else at the top of the form.
 * @param {Element} root
 * @param {{detail?: string, title?: string, pointer?: string | null}} problem
 */
export function showProblem(root, problem) {
  clearErrors(root);
  const message = spoken(problem.detail || problem.title || t('pad.problem.refused'));
  let target = null;
  let best = -1;
  if (problem.pointer) {
    for (const el of root.querySelectorAll('[data-pointer]')) {
      const p = /** @type {HTMLElement} */ (el).dataset.pointer ?? '';
      // An element with no pointer (a stepper at 0 produced no card) answers for nothing.
      const matches = p.split(' ').some((one) => one !== '' && (problem.pointer === one || problem.pointer?.startsWith(`${one}/`)));
      if (matches && p.length > best) { best = p.length; target = el; }
    }
  }
  const note = h('p', { class: 'field-error', role: 'alert' }, message);
  if (target) {
    target.setAttribute('aria-invalid', 'true');
    // A form showing one part at a time (a player's tab) opens the part the refusal is about.
    target.dispatchEvent(new CustomEvent('problem', { bubbles: true }));
    // Under a group's legend, after a single control, else at the end of the field.
    const legend = target.querySelector(':scope > legend');
    if (legend) legend.after(note);
    else if (target.matches('input, select, textarea, .stepper')) target.after(note);
    else target.append(note);
  } else {
    root.prepend(note);
  }
  note.scrollIntoView({ block: 'center' });
}

/** A new client event id (so a retry after a lost answer is recognised by the server). */
export function newId() {
  // randomUUID exists only in secure contexts; a phone on http://192.168.… is not one.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** "2026-11-30T19:00:00Z" → a short local date and time. @param {string} iso */
export function when(iso) {
  const d = new Date(iso);
  return d.toLocaleString(lang(), { dateStyle: 'medium', timeStyle: 'short' });
}

/** A short message under the header (e.g. "live updates unavailable"). @param {string | null} text */
export function showNotice(text) {
  const notice = document.getElementById('notice');
  if (!notice) return;
  notice.hidden = !text;
  notice.textContent = text ?? '';
}

/**
 * A "Copy" button for `text()` that says whether it worked. The Clipboard API exists only in
 * secure contexts (not on http://192.168.…), so it falls back to copying a selected text field.
 * @param {() => string} text @param {string} label
 */
export function copyButton(text, label) {
  const status = h('span', { class: 'copy-status', role: 'status' });
  const copy = async () => {
    const value = text();
    let copied = false;
    if (navigator.clipboard && window.isSecureContext) {
      copied = await navigator.clipboard.writeText(value).then(() => true, () => false);
    }
    if (!copied) copied = copyBySelection(value);
    status.textContent = copied ? t('pad.copy.done') : t('pad.copy.failed');
  };
  return h('span', { class: 'copy' }, h('button', { type: 'button', onclick: copy }, label), status);
}

/** The copy of plain-http pages: a selected, off-screen text field. @param {string} value */
function copyBySelection(value) {
  const area = /** @type {HTMLTextAreaElement} */ (h('textarea', { readonly: true, class: 'offscreen' }));
  area.value = value;
  document.body.append(area);
  area.select();
  let copied = false;
  try { copied = document.execCommand('copy'); } catch { copied = false; }
  area.remove();
  return copied;
}

/**
 * A link handed to another phone at the table: the address (a choice when the computer has
 * several), its QR code and a copy button.
 * @param {{bases: string[], localOnly: boolean}} where from `linkBases()`
 * @param {string} path what follows the address, e.g. `/#/share/…`
 * @param {{id: string, alt: string, qr: (text: string) => string}} options
 */
export function handOut(where, path, { id, alt, qr }) {
  let base = where.bases[0];
  const link = () => `${base}${path}`;
  const anchor = /** @type {HTMLAnchorElement} */ (h('a', { class: 'share-link', id }));
  const image = /** @type {HTMLImageElement} */ (h('img', { alt, class: 'qr', width: 200, height: 200 }));
  const show = () => {
    anchor.href = link();
    anchor.textContent = link();
    image.src = qr(link());
  };
  show();
  const addresses = /** @type {HTMLSelectElement} */ (h('select', { name: 'address' },
    where.bases.map((b) => h('option', { value: b }, b))));
  addresses.addEventListener('change', () => { base = addresses.value; show(); });
  return h('div', { class: 'hand-out' },
    where.bases.length > 1 ? field(t('pad.handout.address'), addresses, t('pad.handout.address_help')) : null,
    h('p', null, anchor),
    image,
    copyButton(link, t('pad.handout.copy')),
    where.localOnly
      ? h('p', { class: 'help' }, t('pad.handout.local_only'))
      : null);
}
