// Small SVG charts drawn from data (no library): a line of scores over time, a win-rate bar.
import { svg } from './ui.js';

/**
 * Points over time as a line with dots; `won` points are marked.
 * @param {{value: number, won?: boolean, label: string}[]} points oldest first
 * @param {string} title
 */
export function lineChart(points, title) {
  const width = 320;
  const height = 120;
  const pad = 16;
  const values = points.map((p) => p.value);
  const min = Math.min(0, ...values);
  const max = Math.max(1, ...values);
  const x = (/** @type {number} */ i) => pad + (points.length <= 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (/** @type {number} */ v) => height - pad - ((v - min) * (height - 2 * pad)) / (max - min || 1);
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title },
    svg('title', {}, title),
    svg('line', { x1: pad, x2: width - pad, y1: y(0), y2: y(0), class: 'axis' }),
    svg('path', { d: path, class: 'series' }),
    points.map((p, i) => svg('circle', { cx: x(i), cy: y(p.value), r: 4, class: p.won ? 'dot won' : 'dot' },
      svg('title', {}, `${p.label}: ${p.value}${p.won ? ' (won)' : ''}`))));
}

/**
 * Horizontal bars, one per row, 0–1 (win rates).
 * @param {{label: string, value: number}[]} rows
 * @param {string} title
 */
export function barChart(rows, title) {
  const width = 320;
  const bar = 22;
  const height = rows.length * (bar + 6) + 6;
  const labelWidth = 110;
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': title },
    svg('title', {}, title),
    rows.map((r, i) => [
      svg('text', { x: 0, y: 6 + i * (bar + 6) + bar * 0.7, class: 'bar-label' }, r.label),
      svg('rect', { x: labelWidth, y: 6 + i * (bar + 6), width: Math.max(1, r.value * (width - labelWidth - 40)), height: bar, class: 'bar' }),
      svg('text', { x: labelWidth + Math.max(1, r.value * (width - labelWidth - 40)) + 4, y: 6 + i * (bar + 6) + bar * 0.7, class: 'bar-value' }, `${Math.round(r.value * 100)}%`),
    ]));
}
