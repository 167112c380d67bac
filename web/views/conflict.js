// Two phones recorded the same step: what the other phone recorded (who, when) next to this
// phone's entry, and the table's choice — keep theirs, or record mine as a correction of theirs
// (or, when theirs was something else, send mine after it). Nothing is thrown away unasked.
import { h, when } from '../ui.js';
import { contents, summary } from './log.js';

/** "round 1", or "card played (round 1)": an event in the table's words. @param {any} e */
export function describe(e) {
  const s = summary(e);
  if (s && e.type.includes('round')) return s;
  const kind = e.type.replaceAll('_', ' ');
  return s ? `${kind} (${s})` : kind;
}

/**
 * @param {{
 *   theirs: any[],
 *   mine: {label: string, events: any[] | null},
 *   where: string,
 *   refusedMine: boolean,
 *   onKeepTheirs: () => void,
 *   onCorrect: (() => void) | null,
 *   onSendAgain: (() => void) | null,
 * }} c `theirs`: the other phones' stored events; `mine.events` null while the form is half filled
 * in; `where`: where this phone's entry is kept ("below", "on this phone"); `refusedMine`: the
 * server answered 409 to it (else the other entry arrived while it was being filled in).
 * @returns {HTMLElement}
 */
export function render(c) {
  const first = c.theirs[0];
  const who = first?.recorded_by ?? 'Another phone';
  const headline = `${who} recorded ${first ? describe(first) : 'something'} — your entry is kept ${c.where}.`;
  const theirs = h('div', { class: 'side theirs' },
    h('h4', null, 'Theirs'),
    c.theirs.map((e) => h('div', { class: 'their-entry', dataset: { seq: e.seq } },
      h('p', null, h('strong', null, `#${e.seq} ${describe(e)}`)),
      h('ul', { class: 'contents' }, contents(e.data).map((line) => h('li', null, line))),
      h('small', { class: 'when' }, `by ${e.recorded_by ?? 'another phone'} · ${when(e.recorded_at)}`))));
  const mine = h('div', { class: 'side mine' },
    h('h4', null, 'Yours'),
    h('p', null, h('strong', null, c.mine.label)),
    c.mine.events
      ? h('ul', { class: 'contents' }, c.mine.events.flatMap((e) => contents(e.data)).map((line) => h('li', null, line)))
      : h('p', null, 'Being filled in, below.'),
    h('small', { class: 'when' }, c.refusedMine ? 'not stored: theirs came first' : 'not sent yet'));
  return h('section', { class: 'conflict card', id: 'conflict', role: 'alert' },
    h('h3', null, headline),
    h('p', { class: 'help' }, 'Check both with the table, then choose.'),
    h('div', { class: 'side-by-side' }, theirs, mine),
    h('div', { class: 'row conflict-actions' },
      h('button', { type: 'button', class: 'keep-theirs', onclick: c.onKeepTheirs }, 'Keep theirs'),
      c.onCorrect ? h('button', { type: 'button', class: 'primary correct-mine', onclick: c.onCorrect }, 'Record mine as a correction') : null,
      c.onSendAgain ? h('button', { type: 'button', class: 'primary send-mine', onclick: c.onSendAgain }, 'Send mine after theirs') : null));
}
