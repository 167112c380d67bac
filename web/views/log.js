// The game's log: every stored event with when and by whom (the token's name) it was recorded,
// retracted and corrected ones marked, with one-tap `correct` and `retract` (each with a reason).
import { h, when } from '../ui.js';
import { joined, num, t } from '../i18n.js';

/** The events' names in the page's words (an unknown one as its type, spaced out). */
const EVENT_NAMES = /** @type {Record<string, string>} */ ({
  game_started: 'pad.event.game_started',
  retract: 'pad.event.retract',
  correct: 'pad.event.correct',
  abandon: 'pad.event.abandon',
  round_collected: 'pad.event.round_collected',
  round_started: 'pad.event.round_started',
  rows_recorded: 'pad.event.rows_recorded',
  cards_played: 'pad.event.cards_played',
  last_cards_placed: 'pad.event.last_cards_placed',
  bet_placed: 'pad.event.bet_placed',
  race_recorded: 'pad.event.race_recorded',
  round_ended: 'pad.event.round_ended',
  card_played: 'pad.event.card_played',
  collections_recorded: 'pad.event.collections_recorded',
  showcases_dealt: 'pad.event.showcases_dealt',
  turn_taken: 'pad.event.turn_taken',
  final_banked: 'pad.event.final_banked',
});

/** "round collected": an event's kind in the page's words. @param {string} type */
export function eventName(type) {
  const key = EVENT_NAMES[type];
  return key ? t(key) : type.replaceAll('_', ' ');
}

/** A one-line summary of an event's data, in the table's words. @param {any} e */
export function summary(e) {
  const d = e.data ?? {};
  const why = d.reason ? ` — ${d.reason}` : '';
  switch (e.type) {
    case 'game_started': return joined((d.players ?? []).map((/** @type {any} */ p) => p.name));
    case 'retract': return `${t('pad.log.takes_back', { seq: d.seq })}${why}`;
    case 'correct': return `${t('pad.log.corrects', { seq: d.seq })}${why}`;
    case 'abandon': return d.reason ?? '';
    default: return d.round ? t('pad.log.round', { round: d.round }) : '';
  }
}

/** The server's name for the club's own key, whose holder the log names in the page's words. */
const CLUB_TOKEN = 'club token';

/** Who recorded an event: a phone's key by its name, the club's own key in the page's words. @param {string} name */
export const recorder = (name) => (name === CLUB_TOKEN ? t('pad.log.club_key') : name);

/** "animal-kingdom" or {card: "animal-kingdom", …} → "animal-kingdom". @param {any} card */
const cardName = (card) => (typeof card === 'string' ? card : card?.card ?? card?.object ?? JSON.stringify(card));

/**
 * What an entry holds, player by player where it is a collection ("Ann: animal-kingdom ×3,
 * fine-wine ×1"), else its data in short: enough to compare two phones' entries side by side.
 * @param {any} data @returns {string[]}
 */
export function contents(data) {
  const collections = data?.collections;
  if (collections && typeof collections === 'object' && !Array.isArray(collections)) {
    return Object.entries(collections).map(([player, cards]) => {
      if (!Array.isArray(cards)) return `${player}: ${JSON.stringify(cards)}`;
      const counts = new Map();
      for (const card of cards) counts.set(cardName(card), (counts.get(cardName(card)) ?? 0) + 1);
      // In name order, so that two phones' entries read alike side by side.
      const list = joined([...counts].sort(([a], [b]) => a.localeCompare(b)).map(([card, n]) => `${card} ×${num(n)}`));
      return t('pad.log.collection', { player, cards: list || t('pad.log.nothing'), n: cards.length });
    });
  }
  const { round: _round, ...rest } = data ?? {};
  const text = JSON.stringify(rest);
  return text === '{}' ? [] : [text.length > 160 ? `${text.slice(0, 157)}…` : text];
}

/**
 * @param {any[]} events
 * @param {{readOnly: boolean, canCorrect: (e: any) => boolean, onCorrect: (e: any) => void, onRetract: (e: any, reason: string) => void}} actions
 */
export function render(events, actions) {
  const items = [...events].reverse().map((e) => {
    const marks = [
      e.retracted_by ? h('span', { class: 'mark' }, t('pad.log.taken_back_by', { seq: e.retracted_by })) : null,
      e.corrected_by ? h('span', { class: 'mark' }, t('pad.log.corrected_by', { seq: e.corrected_by })) : null,
    ];
    const reasonInput = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', required: true, placeholder: t('pad.log.reason_placeholder'), maxlength: 200 }));
    const retractForm = h('form', { class: 'inline', hidden: true, dataset: { pointer: '/events/0' } },
      h('label', null, `${t('pad.log.why')} `, reasonInput),
      h('button', { type: 'submit' }, t('pad.log.take_back_seq', { seq: e.seq })));
    retractForm.addEventListener('submit', (ev) => { ev.preventDefault(); actions.onRetract(e, reasonInput.value.trim()); });
    const canChange = !actions.readOnly && !e.retracted_by && e.type !== 'game_started';
    const buttons = canChange ? h('div', { class: 'log-actions' },
      actions.canCorrect(e) ? h('button', { type: 'button', class: 'small correct', onclick: () => actions.onCorrect(e) }, t('pad.log.correct')) : null,
      h('button', { type: 'button', class: 'small retract', onclick: () => { retractForm.hidden = !retractForm.hidden; if (!retractForm.hidden) reasonInput.focus(); } },
        e.type === 'abandon' ? t('pad.log.resume') : t('pad.log.take_back'))) : null;
    return h('li', { class: e.retracted_by ? 'event retracted' : 'event', dataset: { seq: e.seq, type: e.type } },
      h('div', { class: 'event-head' }, h('strong', null, `#${num(e.seq)} ${eventName(e.type)}`), ' ', h('span', null, summary(e))),
      h('small', { class: 'when' }, when(e.recorded_at), e.recorded_by ? h('span', { class: 'who' }, ` · ${t('pad.log.by', { who: recorder(e.recorded_by) })}`) : null),
      marks, buttons, retractForm);
  });
  return h('ol', { class: 'log', reversed: true }, items);
}
