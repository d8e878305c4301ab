/**
 * Counts events in the last minute in 60 one-second buckets: constant memory however many
 * events come in (reads, errors and alerts per minute for /stats and /metrics).
 */
export class MinuteCounter {
  private readonly counts = new Array<number>(60).fill(0);
  private readonly seconds = new Array<number>(60).fill(-1);

  /** Records `n` events at `now` (ms). */
  add(now: number, n = 1): void {
    const second = Math.floor(now / 1000);
    const slot = second % 60;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.counts[slot] = 0;
    }
    this.counts[slot]! += n;
  }

  /** Events in the 60 seconds up to `now`. */
  total(now: number): number {
    const second = Math.floor(now / 1000);
    let sum = 0;
    for (let i = 0; i < 60; i++) {
      const s = this.seconds[i]!;
      if (s > second - 60 && s <= second) sum += this.counts[i]!;
    }
    return sum;
  }
}
