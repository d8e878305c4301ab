/**
 * The Prometheus text exposition format (0.0.4), written by hand: the bot exposes a dozen
 * numbers and needs no registry library for that.
 */
export interface MetricSample {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  value: number;
  labels?: Record<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** Renders samples grouped by name, with one HELP and TYPE line per metric. */
export function renderPrometheus(samples: readonly MetricSample[]): string {
  const byName = new Map<string, MetricSample[]>();
  for (const s of samples) {
    if (!NAME.test(s.name)) throw new Error(`invalid metric name: ${s.name}`);
    const list = byName.get(s.name) ?? [];
    list.push(s);
    byName.set(s.name, list);
  }
  const lines: string[] = [];
  for (const [name, list] of byName) {
    const first = list[0]!;
    lines.push(`# HELP ${name} ${first.help.replace(/\n/g, ' ')}`, `# TYPE ${name} ${first.type}`);
    for (const s of list) {
      const labels = s.labels && Object.keys(s.labels).length > 0
        ? `{${Object.entries(s.labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`
        : '';
      lines.push(`${name}${labels} ${formatValue(s.value)}`);
    }
  }
  return lines.join('\n') + '\n';
}
