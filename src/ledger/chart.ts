/**
 * /pnl's picture: cumulative P&L as a line over turnover bars by settlement day (and, when there
 * are valuebets with a closing line, their mean CLV per day on a second axis), drawn by Apache
 * ECharts' server-side SVG renderer (no browser) and rasterized to PNG by resvg (a binary shipped
 * inside its npm package), with the DejaVu Sans font that the `dejavu-fonts-ttf` package ships. The picture has its own opaque light background and dark text, so it
 * reads the same in Telegram's light and dark themes; 1280 × 800 stays sharp on a phone. Labels
 * come in the user's language; amounts carry the currency when there is one.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
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

/** The chart as SVG text. */
export function chartSvg(days: readonly DayPoint[], labels: ChartLabels, currency: string): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    const unit = currency ? ` (${currency})` : '';
    const withClv = days.some((d) => d.clvPct !== null);
    const last = days.at(-1)?.cumulative ?? 0;
    const textStyle = { color: COLORS.text, fontFamily: 'DejaVu Sans', fontSize: 22 };
    chart.setOption({
      animation: false,
      backgroundColor: COLORS.background,
      textStyle,
      title: { text: `${labels.title}${unit}`, left: 24, top: 16, textStyle: { ...textStyle, fontSize: 32 } },
      legend: { top: 22, right: 24, textStyle, itemWidth: 28, itemHeight: 16, itemGap: 28 },
      grid: { left: 110, right: withClv ? 200 : 110, top: 100, bottom: 80 },
      xAxis: { type: 'category', data: days.map((d) => d.day), axisLabel: { ...textStyle, fontSize: 18, hideOverlap: true }, axisLine: { lineStyle: { color: COLORS.text } } },
      // P&L on the left; turnover (much larger numbers) on its own axis on the right, so the P&L line is not flattened.
      yAxis: [
        { type: 'value', axisLabel: { ...textStyle, fontSize: 18 }, splitLine: { lineStyle: { color: COLORS.grid } } },
        { type: 'value', position: 'right', axisLabel: { ...textStyle, fontSize: 16, color: '#2563eb' }, splitLine: { show: false } },
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

/** The chart as PNG bytes. */
export function chartPng(days: readonly DayPoint[], labels: ChartLabels, currency: string): Buffer {
  const svg = chartSvg(days, labels, currency);
  const font = FONT_FILES.length > 0 ? { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: 'DejaVu Sans' } : { loadSystemFonts: true };
  return new Resvg(svg, { font, fitTo: { mode: 'width', value: WIDTH } }).render().asPng();
}
