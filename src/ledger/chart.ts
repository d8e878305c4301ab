/**
 * /pnl's picture: cumulative P&L as a line (from zero) over turnover bars by settlement day, each axis
 * titled (P&L on the left, turnover on the right) (and, when there
 * are valuebets with a closing line, their mean CLV per day on a second axis), drawn by Apache
 * ECharts' server-side SVG renderer (no browser) and rasterized to PNG by resvg (a binary shipped
 * inside its npm package), with the DejaVu Sans font that the `dejavu-fonts-ttf` package ships. The picture has its own opaque light background and dark text, so it
 * reads the same in Telegram's light and dark themes; 1280 × 800 stays sharp on a phone. Labels
 * come in the user's language; amounts carry the currency when there is one.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resvg, renderAsync } from '@resvg/resvg-js';
import * as echarts from 'echarts';
import type { DayPoint } from './summary.js';

export interface ChartLabels {
  title: string;
  pnl: string;
  turnover: string;
  clv: string;
}

const WIDTH = 1280;
const HEIGHT = 800;
const COLORS = { background: '#ffffff', text: '#111827', grid: '#e5e7eb', pnl: '#16a34a', loss: '#dc2626', turnover: '#93c5fd', clv: '#9333ea' };

/**
 * DejaVu Sans (Latin and Cyrillic) from the `dejavu-fonts-ttf` package, so the picture has its text
 * wherever the bot runs (the slim Docker image has no fonts at all); Debian's copy as a fallback.
 */
function fontFiles(): string[] {
  const candidates: string[] = [];
  try {
    candidates.push(join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf'));
  } catch {
    // Not installed: the system's fonts below.
  }
  candidates.push('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf');
  return candidates.filter((f) => existsSync(f)).slice(0, 1);
}
const FONT_FILES = fontFiles();

/**
 * The days drawn: the running P&L starts from zero on the day before the first settlement, so
 * even one day's data is a line from 0 to its P&L (not a lone dot over a lone bar).
 */
export function withStart(days: readonly DayPoint[]): DayPoint[] {
  const first = days[0];
  if (!first) return [];
  const before = new Date(Date.parse(`${first.day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  return [{ day: before, pnl: 0, cumulative: 0, turnover: 0, clvPct: null }, ...days];
}

/** The chart as SVG text. */
export function chartSvg(daysIn: readonly DayPoint[], labels: ChartLabels, currency: string): string {
  const days = withStart(daysIn);
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    const unit = currency ? ` (${currency})` : '';
    const withClv = days.some((d) => d.clvPct !== null);
    const last = days.at(-1)?.cumulative ?? 0;
    const textStyle = { color: COLORS.text, fontFamily: 'DejaVu Sans', fontSize: 22 };
    // Each value axis titled along its side (P&L left, turnover right), so the two scales are never confused.
    const axisTitle = { nameLocation: 'middle', nameRotate: 90, nameGap: 80 } as const;
    chart.setOption({
      animation: false,
      backgroundColor: COLORS.background,
      textStyle,
      title: { text: `${labels.title}${unit}`, left: 24, top: 16, textStyle: { ...textStyle, fontSize: 32 } },
      legend: { top: 22, right: 24, textStyle, itemWidth: 28, itemHeight: 16, itemGap: 28 },
      grid: { left: 130, right: withClv ? 220 : 130, top: 100, bottom: 80 },
      xAxis: { type: 'category', data: days.map((d) => d.day), axisLabel: { ...textStyle, fontSize: 18, hideOverlap: true }, axisLine: { lineStyle: { color: COLORS.text } } },
      // P&L on the left; turnover (much larger numbers) on its own axis on the right, so the P&L line is not flattened.
      yAxis: [
        { type: 'value', name: `${labels.pnl}${unit}`, ...axisTitle, nameTextStyle: { ...textStyle, fontSize: 20 }, axisLabel: { ...textStyle, fontSize: 18 }, splitLine: { lineStyle: { color: COLORS.grid } } },
        { type: 'value', position: 'right', name: `${labels.turnover}${unit}`, ...axisTitle, nameTextStyle: { ...textStyle, fontSize: 20, color: '#2563eb' }, axisLabel: { ...textStyle, fontSize: 16, color: '#2563eb' }, splitLine: { show: false } },
        ...(withClv ? [{ type: 'value', position: 'right', offset: 90, axisLabel: { ...textStyle, fontSize: 16, color: COLORS.clv, formatter: '{value}%' }, splitLine: { show: false } }] : []),
      ],
      series: [
        { name: labels.turnover, type: 'bar', yAxisIndex: 1, data: days.map((d) => round(d.turnover)), itemStyle: { color: COLORS.turnover }, barMaxWidth: 40 },
        { name: labels.pnl, type: 'line', data: days.map((d) => round(d.cumulative)), symbol: days.length > 60 ? 'none' : 'circle', symbolSize: 10, lineStyle: { width: 5, color: last >= 0 ? COLORS.pnl : COLORS.loss }, itemStyle: { color: last >= 0 ? COLORS.pnl : COLORS.loss } },
        ...(withClv
          ? [{ name: labels.clv, type: 'line', yAxisIndex: 2, data: days.map((d) => (d.clvPct === null ? null : round(d.clvPct))), connectNulls: true, symbol: 'diamond', symbolSize: 10, lineStyle: { width: 3, type: 'dashed', color: COLORS.clv }, itemStyle: { color: COLORS.clv } }]
          : []),
      ],
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;

const renderOptions = () => ({
  font: FONT_FILES.length > 0 ? { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: 'DejaVu Sans' } : { loadSystemFonts: true },
  fitTo: { mode: 'width' as const, value: WIDTH },
});

/** The chart as PNG bytes. */
export function chartPng(days: readonly DayPoint[], labels: ChartLabels, currency: string): Buffer {
  return new Resvg(chartSvg(days, labels, currency), renderOptions()).render().asPng();
}

/**
 * The same, rasterized on libuv's thread pool (resvg's async render), so a /pnl never holds the
 * event loop for the 0.1–0.2 s a 1280 × 800 raster takes; only the SVG is made on the main thread.
 */
export async function chartPngAsync(days: readonly DayPoint[], labels: ChartLabels, currency: string): Promise<Buffer> {
  return (await renderAsync(chartSvg(days, labels, currency), renderOptions())).asPng();
}
