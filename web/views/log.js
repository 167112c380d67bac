// The game's log: every stored event with when and by whom (the token's name) it was recorded,
// retracted and corrected ones marked, with one-tap `correct` and `retract` (each with a reason).
import { h, when } from '../ui.js';

/** A one-line summary of an event's data, in the table's words. @param {any} e */
export function summary(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'game_started': return `${(d.players ?? []).map((/** @type {any} */ p) => p.name).join(', ')}`;
    case 'retract': return `takes back #${d.seq}${d.reason ? ` — ${d.reason}` : ''}`;
    case 'correct': return `corrects #${d.seq}${d.reason ? ` — ${d.reason}` : ''}`;
    case 'abandon': return d.reason ?? '';
    default: return d.round ? `round ${d.round}` : '';
  }
}

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
      const list = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([card, n]) => `${card} ×${n}`).join(', ');
      return `${player}: ${list || 'nothing'} (${cards.length} cards)`;
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
      e.retracted_by ? h('span', { class: 'mark' }, `taken back by #${e.retracted_by}`) : null,
      e.corrected_by ? h('span', { class: 'mark' }, `corrected by #${e.corrected_by}`) : null,
    ];
    const reasonInput = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', required: true, placeholder: 'typo', maxlength: 200 }));
    const retractForm = h('form', { class: 'inline', hidden: true, dataset: { pointer: '/events/0' } },
      h('label', null, 'Why take it back? ', reasonInput),
      h('button', { type: 'submit' }, `Take back #${e.seq}`));
    retractForm.addEventListener('submit', (ev) => { ev.preventDefault(); actions.onRetract(e, reasonInput.value.trim()); });
    const canChange = !actions.readOnly && !e.retracted_by && e.type !== 'game_started';
    const buttons = canChange ? h('div', { class: 'log-actions' },
      actions.canCorrect(e) ? h('button', { type: 'button', class: 'small correct', onclick: () => actions.onCorrect(e) }, 'Correct') : null,
      h('button', { type: 'button', class: 'small retract', onclick: () => { retractForm.hidden = !retractForm.hidden; if (!retractForm.hidden) reasonInput.focus(); } },
        e.type === 'abandon' ? 'Resume' : 'Take back')) : null;
    return h('li', { class: e.retracted_by ? 'event retracted' : 'event', dataset: { seq: e.seq, type: e.type } },
      h('div', { class: 'event-head' }, h('strong', null, `#${e.seq} ${e.type.replaceAll('_', ' ')}`), ' ', h('span', null, summary(e))),
      h('small', { class: 'when' }, when(e.recorded_at), e.recorded_by ? h('span', { class: 'who' }, ` · by ${e.recorded_by}`) : null),
      marks, buttons, retractForm);
  });
  return h('ol', { class: 'log', reversed: true }, items);
}
