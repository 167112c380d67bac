// Small SVG charts drawn from data (no library): scores over time, bars with their values.
// Right to left (Persian) they mirror: time runs from right to left, bars grow leftwards from
// their labels on the right; the numbers are in the page's digits.
import { svg } from './ui.js';
import { dir, num, t } from './i18n.js';

/**
 * Points over time: a stem from 0 up to each score (so one game is a bar, not a lone dot), a
 * line through them, and each score written above its dot; `won` points are filled.
 * @param {{value: number, won?: boolean, label: string}[]} points oldest first
 * @param {string} title
 */
export function lineChart(points, title) {
  const width = 320;
  const height = 140;
  const pad = 18;
  const values = points.map((p) => p.value);
  const min = Math.min(0, ...values);
  const max = Math.max(1, ...values);
  const rtl = dir() === 'rtl';
  const along = (/** @type {number} */ i) => pad + (points.length <= 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (points.length - 1));
  const x = (/** @type {number} */ i) => (rtl ? width - along(i) : along(i));
  const y = (/** @type {number} */ v) => height - pad - ((v - min) * (height - 2 * pad - 12)) / (max - min || 1);
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title },
    svg('title', {}, title),
    svg('line', { x1: pad, x2: width - pad, y1: y(0), y2: y(0), class: 'axis' }),
    points.map((p, i) => svg('line', { x1: x(i), x2: x(i), y1: y(0), y2: y(p.value), class: 'stem' })),
    points.length > 1 ? svg('path', { d: path, class: 'series' }) : null,
    points.map((p, i) => [
      svg('circle', { cx: x(i), cy: y(p.value), r: 4, class: p.won ? 'dot won' : 'dot' },
        svg('title', {}, `${p.label}: ${num(p.value)}${p.won ? ` (${t('pad.chart.won')})` : ''}`)),
      svg('text', { x: x(i), y: y(p.value) - 8, class: 'value', 'text-anchor': 'middle' }, num(p.value)),
    ]));
}

/**
 * Horizontal bars, one per row, each with its value written after it.
 * @param {{label: string, value: number, text?: string}[]} rows `text`: the value as shown (default a percentage)
 * @param {string} title
 * @param {number} [max] the value of a full bar (1 for rates)
 */
export function barChart(rows, title, max = 1) {
  const width = 320;
  const bar = 22;
  const height = rows.length * (bar + 6) + 6;
  const labelWidth = 110;
  const length = (/** @type {number} */ v) => Math.max(1, (v / (max || 1)) * (width - labelWidth - 40));
  const rtl = dir() === 'rtl';
  // Measured from the start side: the left, or the right when the page reads right to left.
  const at = (/** @type {number} */ from, /** @type {number} */ size = 0) => (rtl ? width - from - size : from);
  // `start` follows the text's direction: the right end of a Persian label sits at `x`.
  const anchor = 'start';
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title, direction: dir() },
    svg('title', {}, title),
    rows.map((r, i) => [
      svg('text', { x: at(0), y: 6 + i * (bar + 6) + bar * 0.7, class: 'bar-label', 'text-anchor': anchor }, r.label),
      svg('rect', { x: at(labelWidth, length(r.value)), y: 6 + i * (bar + 6), width: length(r.value), height: bar, class: 'bar' }),
      svg('text', { x: at(labelWidth + length(r.value) + 4), y: 6 + i * (bar + 6) + bar * 0.7, class: 'bar-value', 'text-anchor': anchor }, r.text ?? t('pad.history.percent', { n: Math.round(r.value * 100) })),
    ]));
}
