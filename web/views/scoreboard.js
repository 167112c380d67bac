// The scoreboard: totals, ranks, winners, every breakdown line, the tie-break and house rules.
import { h } from '../ui.js';

/** @param {import('../api.js').Schemas['ScoreView'] | null} score @returns {HTMLElement} */
export function render(score) {
  if (!score) return h('p', null, 'Loading the score…');
  const winners = new Set(score.winners ?? []);
  // While the game goes on the server names its leaders (winners is empty until the end).
  const leaders = new Set(score.final ? [] : score.leaders ?? []);
  const starred = score.final ? winners : leaders;
  const direction = score.lower_wins ? 'lowest total wins' : 'highest total wins';
  const heading = score.status === 'abandoned'
    ? 'Abandoned: no winner'
    : score.final
      ? `Winner${winners.size > 1 ? 's' : ''}: ${[...winners].join(', ') || '—'}`
      : leaders.size ? `Leading: ${[...leaders].join(', ')}` : 'No points yet';

  const totals = h('table', { class: 'totals' },
    h('caption', null, `${heading} (${direction})`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Rank'), h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col', class: 'num' }, 'Total'))),
    h('tbody', null, score.players.map((p) => h('tr', { class: starred.has(p.name) ? 'winner' : null, dataset: { player: p.name } },
      h('td', null, p.rank), h('th', { scope: 'row' }, p.name, starred.has(p.name) ? h('span', { class: 'crown', 'aria-label': score.final ? 'winner' : 'leading' }, ' ★') : null),
      h('td', { class: 'num total' }, p.total)))));

  const details = score.players.map((p) => h('details', { class: 'breakdown', dataset: { player: p.name } },
    h('summary', null, `${p.name}: ${p.total}`),
    p.rounds.map((r) => h('section', null,
      h('h4', null, `Round ${r.round}: ${r.points}`),
      h('ul', null, r.breakdown.map((line) => h('li', { class: 'line' },
        h('span', { class: 'label' }, line.label), ' ', h('strong', { class: 'points' }, signed(line.points)),
        line.detail ? h('small', { class: 'detail' }, ` — ${line.detail}`) : null))))),
    p.adjustments?.length ? h('section', null, h('h4', null, 'Adjustments'), h('ul', null, p.adjustments.map((a) =>
      h('li', { class: 'line' }, h('span', { class: 'label' }, a.label), ' ', h('strong', { class: 'points' }, signed(a.points)),
        a.detail ? h('small', { class: 'detail' }, ` — ${a.detail}`) : null)))) : null));

  const tiebreak = score.tiebreak
    ? h('p', { class: 'tiebreak' }, h('strong', null, 'Tie-break: '), `${score.tiebreak.rule} — ${score.tiebreak.detail}`)
    : null;
  const houseRules = score.house_rule_points?.length || score.house_rules?.length
    ? h('details', { class: 'house-rules' }, h('summary', null, `House rules (${score.house_rules?.length ?? 0} differ from the book)`),
      h('ul', null, (score.house_rule_points?.length ? score.house_rule_points : score.house_rules).map((r) =>
        h('li', null, h('code', null, r.option), ` = ${JSON.stringify(r.value)}`, r.default === false ? h('em', null, ' (house rule)') : null,
          r.note ? h('small', { class: 'detail' }, ` — ${r.note}`) : null))))
    : null;

  return h('div', { class: 'scoreboard' }, totals, tiebreak, h('h3', null, 'Every point explained'), details, houseRules);
}

/** @param {number} n */
function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}
