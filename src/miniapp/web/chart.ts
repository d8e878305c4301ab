/** The P&L curve (line) over the turnover (bars) with uPlot; drag to zoom, double-click resets (uPlot's own). */
import uPlot from 'uplot';
import { dayRange } from './chart-range.js';
import type { Day } from './types.js';

export interface ChartLabels { date: string; pnl: string; turnover: string }

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
  const plot = new uPlot(
    {
      width,
      height: 220,
      cursor: { drag: { x: true, y: false } },
      legend: { show: true },
      scales: { x: { time: true, range: (u) => dayRange(u.data[0]) }, t: { range: (_u, _min, max) => [0, Math.max(1, max) * 3] } },
      axes: [{ ...axis }, { ...axis, size: 56 }, { show: false, scale: 't' }],
      series: [
        { label: labels.date },
        { label: labels.pnl, stroke: accent, width: 2, fill: accent + '22' },
        { label: labels.turnover, scale: 't', stroke: muted, fill: muted + '44', paths: uPlot.paths.bars!({ size: [0.6, 12] }) },
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
