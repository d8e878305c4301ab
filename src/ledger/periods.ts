/**
 * The periods /pnl and /export accept: the last 7 or 30 days, this month, all time, or one month
 * (`2026-11`). Months are calendar months in UTC, as the CSV's times are; a period is a half-open
 * range [from, to) of settlement times.
 */

export type Period =
  | { kind: 'days'; days: 7 | 30 }
  | { kind: 'this-month' }
  | { kind: 'all' }
  | { kind: 'month'; year: number; month: number };

/** `undefined` for anything but the accepted forms (empty text: all time). */
export function parsePeriod(raw: string): Period | undefined {
  const text = raw.trim().toLowerCase();
  if (text === '' || text === 'all') return { kind: 'all' };
  if (text === '7d' || text === '7') return { kind: 'days', days: 7 };
  if (text === '30d' || text === '30') return { kind: 'days', days: 30 };
  if (text === 'month') return { kind: 'this-month' };
  const m = /^(\d{4})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  if (year < 2000 || year > 2100 || month < 1 || month > 12) return undefined;
  return { kind: 'month', year, month };
}

/** The period's range in ms since the epoch ([from, to)), given now. */
export function periodRange(period: Period, now: number): { from: number; to: number } {
  switch (period.kind) {
    case 'all':
      return { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY };
    case 'days':
      return { from: now - period.days * 86_400_000, to: Number.POSITIVE_INFINITY };
    case 'this-month': {
      const d = new Date(now);
      return { from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), to: Number.POSITIVE_INFINITY };
    }
    case 'month':
      return { from: Date.UTC(period.year, period.month - 1, 1), to: Date.UTC(period.year, period.month, 1) };
  }
}

/** The canonical text of a period (what /pnl and the file name show). */
export function periodText(period: Period): string {
  switch (period.kind) {
    case 'all':
      return 'all';
    case 'days':
      return `${period.days}d`;
    case 'this-month':
      return 'month';
    case 'month':
      return `${period.year}-${String(period.month).padStart(2, '0')}`;
  }
}
