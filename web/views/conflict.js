// Two phones recorded the same step: what the other phone recorded (who, when) next to this
// phone's entry, and the table's choice — keep theirs, or record mine as a correction of theirs
// (or, when theirs was something else, send mine after it). Nothing is thrown away unasked.
import { h, when } from '../ui.js';
import { num, t } from '../i18n.js';
import { eventName, recorder, summary } from './log.js';
import { entryLines } from '../games/describe.js';

/** An event's kind in the page's words ("cards played"). @param {string} type */
export const kindName = (type) => eventName(type);

/** "round 1", or "card played (round 1)": an event in the table's words. @param {any} e */
export function describe(e) {
  const s = summary(e);
  if (s && e.type.includes('round')) return s;
  const kind = eventName(e.type);
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
  // The headline opens with who recorded: the club's key reads as a sentence's start.
  const named = first?.recorded_by ? recorder(first.recorded_by) : t('pad.conflict.another_phone');
  const who = named.charAt(0).toUpperCase() + named.slice(1);
  const headline = t('pad.conflict.headline', { who, what: first ? describe(first) : t('pad.conflict.something'), where: c.where });
  const theirs = h('div', { class: 'side theirs' },
    h('h4', null, t('pad.conflict.theirs')),
    c.theirs.map((e) => h('div', { class: 'their-entry', dataset: { seq: e.seq } },
      h('p', null, h('strong', null, `#${num(e.seq)} ${describe(e)}`)),
      h('ul', { class: 'contents' }, entryLines(e).map((line) => h('li', null, line))),
      h('small', { class: 'when' }, `${t('pad.log.by', { who: e.recorded_by ? recorder(e.recorded_by) : t('pad.conflict.another_phone_lower') })} · ${when(e.recorded_at)}`))));
  const mine = h('div', { class: 'side mine' },
    h('h4', null, t('pad.conflict.yours')),
    h('p', null, h('strong', null, c.mine.label)),
    c.mine.events
      ? h('ul', { class: 'contents' }, c.mine.events.flatMap(entryLines).map((line) => h('li', null, line)))
      : h('p', null, t('pad.conflict.being_filled')),
    h('small', { class: 'when' }, c.refusedMine ? t('pad.conflict.not_stored') : t('pad.conflict.not_sent')));
  return h('section', { class: 'conflict card', id: 'conflict', role: 'alert' },
    h('h3', null, headline),
    h('p', { class: 'help' }, t('pad.conflict.check')),
    h('div', { class: 'side-by-side' }, theirs, mine),
    h('div', { class: 'row conflict-actions' },
      h('button', { type: 'button', class: 'keep-theirs', onclick: c.onKeepTheirs }, t('pad.conflict.keep_theirs')),
      c.onCorrect ? h('button', { type: 'button', class: 'primary correct-mine', onclick: c.onCorrect }, t('pad.conflict.correct_mine')) : null,
      c.onSendAgain ? h('button', { type: 'button', class: 'primary send-mine', onclick: c.onSendAgain }, t('pad.conflict.send_mine')) : null));
}
