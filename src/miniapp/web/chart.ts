/** The P&L curve (line) over the turnover (bars) with uPlot; drag to zoom, double-click resets (uPlot's own). */
import uPlot from 'uplot';
import { dayRange, legendDate, timeTicks } from './chart-range.js';
import { formatMoney } from './i18n.js';
import type { Day, Lang } from './types.js';

export interface ChartLabels { date: string; pnl: string; turnover: string; /** The page's language: the dates' and amounts' format. */ lang: Lang }

function cssVar(el: HTMLElement, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

export function drawChart(el: HTMLElement, series: Day[], labels: ChartLabels): () => void {
  const text = cssVar(el, '--text', '#222');
  const accent = cssVar(el, '--accent', '#2481cc');
  const muted = cssVar(el, '--hint', '#999');
  const xs = series.map((d) => Date.parse(d.day + 'T00:00:00Z') / 1000);
  const axis = { stroke: text, grid: { stroke: muted + '33', width: 1 }, ticks: { stroke: muted + '55' } };
  const width = Math.max(280, el.clientWidth);
  const ticks = timeTicks(labels.lang);
  const date = legendDate(labels.lang);
  // Amounts as the cards write them, without the currency (the axis has no room for it).
  const amounts = (_u: uPlot, values: number[]) => values.map((v) => formatMoney(labels.lang, v, null));
  const amountOf = (_u: uPlot, v: number | null) => (v === null ? '--' : formatMoney(labels.lang, v, null));
  const plot = new uPlot(
    {
      width,
      height: 220,
      cursor: { drag: { x: true, y: false } },
      legend: { show: true },
      scales: { x: { time: true, range: (u) => dayRange(u.data[0]) }, t: { range: (_u, _min, max) => [0, Math.max(1, max) * 3] } },
      axes: [{ ...axis, values: (_u, splits, _i, _space, incr) => ticks(splits, incr) }, { ...axis, size: 56, values: amounts }, { show: false, scale: 't' }],
      series: [
        { label: labels.date, value: (_u, s) => date(s) },
        { label: labels.pnl, stroke: accent, width: 2, fill: accent + '22', value: amountOf },
        { label: labels.turnover, value: amountOf, scale: 't', stroke: muted, fill: muted + '44', paths: uPlot.paths.bars!({ size: [0.6, 12] }) },
      ],
    },
    [xs, series.map((d) => d.cumulative), series.map((d) => d.turnover)],
    el,
  );
  const onResize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 });
  addEventListener('resize', onResize);
  return () => {
    removeEventListener('resize', onResize);
    plot.destroy();
  };
}
