/**
 * What the stores keep indexed of each book they hold, kept up to date at each write they see: the
 * settled positions by the UTC day they were settled on, each day's figures (worked out when first
 * asked, dropped when that day's positions, their closing lines or the de-vig method change), the
 * unsettled ones apart, and the services, bookmakers and sports the book names. /pnl and the Mini
 * App's /ledger then merge a figure per day instead of going over every position: at 20,000
 * positions the whole history is ~400 days. Positions settled on a day only partly inside the
 * asked range, and every position when the answer is filtered, are still taken one by one.
 */
import type { Position } from './model.js';
import { positionFigures } from './position-figures.js';
import { summaryPart, type ClvSource, type FiguresIndex, type SeriesBuilder, type SummaryBuilder, type SummaryPart } from './summary.js';

const DAY_MS = 86_400_000;

/** Counts of names, so that a name goes when its last position does. */
class Names {
  private readonly n = new Map<string, number>();
  add(name: string, by: 1 | -1): void {
    const left = (this.n.get(name) ?? 0) + by;
    if (left > 0) this.n.set(name, left);
    else this.n.delete(name);
  }
  sorted(): string[] {
    return [...this.n.keys()].filter((x) => x !== '').sort();
  }
}

export class LedgerIndex implements FiguresIndex {
  private readonly days = new Map<string, Map<string, Position>>();
  private readonly dayOf = new Map<string, string>();
  private readonly parts = new Map<string, SummaryPart>();
  private sortedDays: string[] | null = null;
  private readonly open = new Map<string, Position>();
  private readonly positions = new Map<string, Position>();
  private readonly services = new Names();
  private readonly bookmakers = new Names();
  private readonly sports = new Names();
  private devig: string | undefined;

  /** `book` gives the closing lines and the de-vig method as they are now. */
  constructor(private readonly book: () => ClvSource) {}

  /** The position stored under `id` (undefined: removed). */
  set(id: string, p: Position | undefined): void {
    const before = this.positions.get(id);
    if (before !== undefined) this.names(before, -1);
    const oldDay = this.dayOf.get(id);
    if (oldDay !== undefined) {
      this.dayOf.delete(id);
      this.parts.delete(oldDay);
      const members = this.days.get(oldDay)!;
      members.delete(id);
      if (members.size === 0) {
        this.days.delete(oldDay);
        this.sortedDays = null;
      }
    }
    this.open.delete(id);
    if (p === undefined) {
      this.positions.delete(id);
      return;
    }
    this.positions.set(id, p);
    this.names(p, 1);
    const f = positionFigures(p);
    if (f.open) this.open.set(id, p);
    if (f.day === null) return;
    let members = this.days.get(f.day);
    if (!members) {
      members = new Map();
      this.days.set(f.day, members);
      this.sortedDays = null;
    }
    members.set(id, p);
    this.dayOf.set(id, f.day);
    this.parts.delete(f.day);
  }

  /** A closing line of position `id` changed: its day's figures are worked out again. */
  closeChanged(id: string): void {
    const day = this.dayOf.get(id);
    if (day !== undefined) this.parts.delete(day);
  }

  /** The settings changed: every day's figures go when the de-vig method did. */
  settingsChanged(): void {
    const devig = this.book().settings.devig;
    if (devig !== this.devig) this.parts.clear();
    this.devig = devig;
  }

  openCount(): number {
    return this.open.size;
  }

  /** Unsettled positions with something placed or a hedge open, oldest first. */
  openPositions(): Position[] {
    return [...this.open.values()].sort((a, b) => a.placedAt - b.placedAt || parseInt(a.id, 36) - parseInt(b.id, 36));
  }

  choices(): { services: string[]; bookmakers: string[]; sports: string[] } {
    return { services: this.services.sorted(), bookmakers: this.bookmakers.sorted(), sports: this.sports.sorted() };
  }

  /**
   * The positions settled in [from, to) into the builders: whole days as their figures, days partly
   * inside position by position (the builders check the range). With `keeps`, only the positions
   * it keeps, each taken one by one (a filtered answer has no figures of its own kept).
   */
  fill(summary: SummaryBuilder, series: SeriesBuilder, from: number, to: number, keeps?: (p: Position) => boolean): void {
    for (const day of this.daysIn(from, to)) {
      const members = this.days.get(day)!;
      const start = Date.parse(`${day}T00:00:00Z`);
      if (keeps || start < from || start + DAY_MS > to) {
        for (const p of members.values()) {
          if (keeps && !keeps(p)) continue;
          summary.add(p);
          series.add(p);
        }
        continue;
      }
      const part = this.partOf(day, members);
      summary.merge(part);
      series.addDay(day, part);
    }
  }

  /**
   * The figures of the days in [from, to) worked out ahead, `slice` positions at a time with the
   * event loop let run between: the first /pnl over 20,000 positions does not hold the process.
   */
  async prepare(from: number, to: number, slice: number): Promise<void> {
    let done = 0;
    for (const day of this.daysIn(from, to)) {
      const members = this.days.get(day);
      if (!members || this.parts.has(day)) continue;
      if (done >= slice) {
        done = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      this.partOf(day, members);
      done += members.size;
    }
  }

  private partOf(day: string, members: ReadonlyMap<string, Position>): SummaryPart {
    if (this.devig !== this.book().settings.devig) this.settingsChanged();
    let part = this.parts.get(day);
    if (!part) {
      part = summaryPart(this.book(), members.values());
      this.parts.set(day, part);
    }
    return part;
  }

  /** Days with settled positions overlapping [from, to), oldest first. */
  private daysIn(from: number, to: number): string[] {
    if (this.sortedDays === null) this.sortedDays = [...this.days.keys()].sort();
    const first = Number.isFinite(from) ? new Date(Math.floor(from / DAY_MS) * DAY_MS).toISOString().slice(0, 10) : '';
    return this.sortedDays.filter((day) => day >= first && Date.parse(`${day}T00:00:00Z`) < to);
  }

  private names(p: Position, by: 1 | -1): void {
    this.services.add(p.service, by);
    this.sports.add(p.sport, by);
    for (const l of p.legs) this.bookmakers.add(l.bookmaker, by);
  }
}
