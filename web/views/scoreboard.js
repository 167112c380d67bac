// The scoreboard: totals, ranks, winners, every breakdown line, the tie-break and house rules.
import { h } from '../ui.js';
import { joined, num, spoken, t } from '../i18n.js';

/**
 * @param {import('../api.js').Schemas['ScoreView'] | null} score
 * @param {{options: any[]}} [rules] the game's entry forms: their option labels word the house rules
 * @returns {HTMLElement}
 */
export function render(score, rules) {
  if (!score) return h('p', null, t('pad.score.loading'));
  const winners = new Set(score.winners ?? []);
  // While the game goes on the server names its leaders (winners is empty until the end).
  const leaders = new Set(score.final ? [] : score.leaders ?? []);
  const starred = score.final ? winners : leaders;
  const direction = score.lower_wins ? t('pad.score.lowest_wins') : t('pad.score.highest_wins');
  const heading = score.status === 'abandoned'
    ? t('pad.score.abandoned')
    : score.final
      ? t(winners.size > 1 ? 'pad.score.winners' : 'pad.score.winner', { names: joined([...winners]) || '—' })
      : leaders.size ? t('pad.score.leading', { names: joined([...leaders]) }) : t('pad.score.no_points');

  const totals = h('table', { class: 'totals' },
    h('caption', null, `${heading} (${direction})`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('pad.score.rank')), h('th', { scope: 'col' }, t('pad.score.player')), h('th', { scope: 'col', class: 'num' }, t('pad.score.total')))),
    h('tbody', null, score.players.map((p) => h('tr', { class: starred.has(p.name) ? 'winner' : null, dataset: { player: p.name, total: p.total } },
      h('td', null, num(p.rank)), h('th', { scope: 'row' }, p.name, starred.has(p.name) ? h('span', { class: 'crown', 'aria-label': score.final ? t('pad.score.winner_mark') : t('pad.score.leading_mark') }, ' ★') : null),
      h('td', { class: 'num total' }, num(p.total))))));

  const details = score.players.map((p) => h('details', { class: 'breakdown', dataset: { player: p.name } },
    h('summary', null, `${p.name}: ${num(p.total)}`),
    p.rounds.map((r) => h('section', null,
      h('h4', null, t('pad.score.round', { round: r.round, points: r.points })),
      h('ul', null, r.breakdown.map((line) => h('li', { class: 'line' },
        h('span', { class: 'label' }, spoken(line.label)), ' ', h('strong', { class: 'points' }, signed(line.points)),
        line.detail ? h('small', { class: 'detail' }, ` — ${spoken(line.detail)}`) : null))))),
    p.adjustments?.length ? h('section', null, h('h4', null, t('pad.score.adjustments')), h('ul', null, p.adjustments.map((a) =>
      h('li', { class: 'line' }, h('span', { class: 'label' }, spoken(a.label)), ' ', h('strong', { class: 'points' }, signed(a.points)),
        a.detail ? h('small', { class: 'detail' }, ` — ${spoken(a.detail)}`) : null)))) : null));

  const tiebreak = score.tiebreak
    ? h('p', { class: 'tiebreak' }, h('strong', null, `${t('pad.score.tiebreak')} `), spoken(`${score.tiebreak.rule} — ${score.tiebreak.detail}`))
    : null;
  const houseRules = score.house_rule_points?.length || score.house_rules?.length
    ? h('details', { class: 'house-rules' }, h('summary', null, t('pad.score.house_rules', { n: score.house_rules?.length ?? 0 })),
      h('ul', null, (score.house_rule_points?.length ? score.house_rule_points : score.house_rules).map((r) =>
        h('li', { dataset: { option: r.option } }, houseRule(r, rules), r.default === false ? h('em', null, ` (${t('pad.score.house_rule')})`) : null,
          r.note ? h('small', { class: 'detail' }, ` — ${r.note}`) : null))))
    : null;

  return h('div', { class: 'scoreboard' }, totals, tiebreak, h('h3', null, t('pad.score.explained')), details, houseRules);
}

/**
 * A house rule as the new-game form words it: the option's label and the chosen value's label
 * ("A tie for a prize: nobody scores it"); an option the form does not offer, as the server
 * names it.
 * @param {{option: string, value?: any}} rule @param {{options: any[]} | undefined} rules
 */
function houseRule({ option, value }, rules) {
  const o = rules?.options.find((x) => x.key === option);
  if (!o) return h('code', null, `${option} = ${JSON.stringify(value)}`);
  return t('pad.score.house_rule_value', { option: o.label, value: optionValue(o, value) });
}

/** An option's value in the form's words. @param {any} o the form's option @param {any} value */
function optionValue(o, value) {
  if (value === null || value === undefined) return t('pad.score.house_rule.unset');
  if (o.kind === 'toggle') return t(value ? 'pad.score.house_rule.on' : 'pad.score.house_rule.off');
  if (o.kind === 'choice') return o.choices.find((/** @type {[string, string]} */ [v]) => v === value)?.[1] ?? String(value);
  if (typeof value === 'number') return num(value);
  // Smoking Kills' damage: to its holder and to everyone else.
  if (typeof value === 'object' && 'holder' in value && 'others' in value) return t('pad.score.house_rule.smoking_kills', { holder: value.holder, others: value.others });
  return JSON.stringify(value);
}

/** "+3", "-2" (in the page's digits). @param {number} n */
function signed(n) {
  return n > 0 ? `+${num(n)}` : num(n);
}
