/**
 * The minimal poller: the baseline the busy-world benchmark holds the bot against. Plain Node and
 * undici, no bot framework, no store: it reads each subscription every 2.5 s, renews a
 * subscription's token every 270 s while the hourly token limit allows (and goes dark when it is
 * spent), diffs each read against the last one, and paces one send or edit per chat every 1.1 s,
 * new alerts before edits (an item's pending edits fold into its latest text). After a 429 it
 * waits the whole retry_after before that chat's next request.
 *
 * With `shared` (the address scope, where every key shares one budget per address) it reads each
 * service once per interval with the first subscriber's key and fans the items out to every chat
 * subscribed to that service, filtering each chat's minimum profit itself.
 *
 * Runs in its own process (`bench/poller-process.ts`) so its CPU time and memory are its own.
 */
import { Agent, request } from 'undici';
import { z } from 'zod';
import { SERVICES } from '../../src/service/services.js';

export const pollerConfigSchema = z.object({
  authUrl: z.string().url(),
  /** The data base URL of each service, e.g. http://127.0.0.1:PORT/arbs-live. */
  dataUrls: z.record(z.string(), z.string().url()),
  telegram: z.object({ apiRoot: z.string().url(), token: z.string().min(1) }),
  users: z
    .array(
      z.object({
        chatId: z.number().int(),
        accessKey: z.string().min(1),
        secret: z.string().min(1),
        services: z.array(z.enum(SERVICES)).min(1),
        minProfit: z.number(),
      }),
    )
    .min(1),
  readEveryMs: z.number().int().positive().default(2_500),
  renewEveryMs: z.number().int().positive().default(270_000),
  sendEveryMs: z.number().int().positive().default(1_100),
  tokensPerHour: z.number().int().positive().default(20),
  shared: z.boolean().default(false),
  /** Source address of the service connections (the address scope tells clients apart by it). */
  localAddress: z.string().optional(),
});
export type PollerConfig = z.infer<typeof pollerConfigSchema>;

const envelopeSchema = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      event_id: z.string(),
      value: z.number(),
      odds: z.array(z.object({ value: z.number(), index: z.string() })),
    }),
  ),
  events: z.array(z.object({ id: z.string(), team_1: z.string(), team_2: z.string(), league: z.string() })),
});
type Envelope = z.infer<typeof envelopeSchema>;
type Item = Envelope['items'][number];

const tokenSchema = z.object({ access_token: z.string(), expires_in: z.number() });
const telegramSchema = z.object({
  ok: z.boolean(),
  result: z.object({ message_id: z.number() }).passthrough().optional(),
  parameters: z.object({ retry_after: z.number() }).optional(),
});

export interface PollerStats {
  reads: number;
  readErrors: number;
  tokenRequests: number;
  /** Reads skipped because the hour's tokens were spent. */
  darkReads: number;
  sends: number;
  edits: number;
  tooMany: number;
}

const HOUR_MS = 3_600_000;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One chat's queue: new alerts first, then the latest text of each moved item. */
class ChatQueue {
  private readonly fresh: { itemId: string; text: string }[] = [];
  private readonly edits = new Map<string, string>();
  private readonly sent = new Map<string, number>();
  private readonly queued = new Set<string>();
  private blockedUntil = 0;

  constructor(
    readonly chatId: number,
    readonly minProfit: number,
  ) {}

  alert(itemId: string, text: string): void {
    if (this.sent.has(itemId) || this.queued.has(itemId)) return;
    this.queued.add(itemId);
    this.fresh.push({ itemId, text });
  }

  change(itemId: string, text: string): void {
    if (this.sent.has(itemId)) this.edits.set(itemId, text);
    else if (this.queued.has(itemId)) for (const f of this.fresh) if (f.itemId === itemId) f.text = text;
  }

  /** Sends or edits one message, when the chat may take one. */
  async step(poller: Poller, now: number): Promise<void> {
    if (now < this.blockedUntil) return;
    const job = this.fresh.shift();
    if (job) {
      this.queued.delete(job.itemId);
      const answer = await poller.telegram('sendMessage', { chat_id: this.chatId, text: job.text, parse_mode: 'HTML' });
      if (answer.messageId !== undefined) this.sent.set(job.itemId, answer.messageId);
      else if (answer.retryAfter !== undefined) {
        this.fresh.unshift(job);
        this.queued.add(job.itemId);
      }
      this.afterCall(answer.retryAfter);
      return;
    }
    const next = this.edits.entries().next();
    if (next.done) return;
    const [itemId, text] = next.value;
    this.edits.delete(itemId);
    const messageId = this.sent.get(itemId);
    if (messageId === undefined) return;
    const answer = await poller.telegram('editMessageText', { chat_id: this.chatId, message_id: messageId, text, parse_mode: 'HTML' });
    if (answer.retryAfter !== undefined && !this.edits.has(itemId)) this.edits.set(itemId, text);
    this.afterCall(answer.retryAfter);
  }

  private afterCall(retryAfter: number | undefined): void {
    if (retryAfter !== undefined) this.blockedUntil = Date.now() + retryAfter * 1000;
  }
}

/** One read loop: a key, a service, and the chats its items go to. */
interface Reader {
  accessKey: string;
  secret: string;
  service: string;
  /** Whose token ledger this reader spends (the key, or the address when shared). */
  ledger: string;
  chats: ChatQueue[];
  token?: { value: string; at: number; expiresAt: number };
  last: Map<string, string>;
}

export class Poller {
  readonly stats: PollerStats = { reads: 0, readErrors: 0, tokenRequests: 0, darkReads: 0, sends: 0, edits: 0, tooMany: 0 };
  private readonly agent: Agent;
  private readonly readers: Reader[] = [];
  private readonly chats: ChatQueue[] = [];
  private readonly ledgers = new Map<string, number[]>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly config: PollerConfig) {
    this.agent = new Agent({ connections: 64, ...(config.localAddress ? { localAddress: config.localAddress } : {}) });
    const chatOf = new Map<number, ChatQueue>();
    for (const u of config.users) {
      const chat = new ChatQueue(u.chatId, u.minProfit);
      chatOf.set(u.chatId, chat);
      this.chats.push(chat);
    }
    for (const u of config.users) {
      for (const service of u.services) {
        const chat = chatOf.get(u.chatId) as ChatQueue;
        const shared = config.shared ? this.readers.find((r) => r.service === service) : undefined;
        if (shared) shared.chats.push(chat);
        else {
          const ledger = config.shared ? 'address' : u.accessKey;
          this.readers.push({ accessKey: u.accessKey, secret: u.secret, service, ledger, chats: [chat], last: new Map() });
        }
      }
    }
  }

  start(): void {
    // Reads spread evenly over the interval, so the host sees no bursts.
    this.readers.forEach((reader, i) => {
      const first = setTimeout(() => {
        void this.read(reader);
        this.timers.push(setInterval(() => void this.read(reader), this.config.readEveryMs));
      }, (i * this.config.readEveryMs) / this.readers.length);
      this.timers.push(first);
    });
    this.chats.forEach((chat, i) => {
      let busy = false;
      const tick = () => {
        if (busy || this.stopped) return;
        busy = true;
        void chat.step(this, Date.now()).finally(() => {
          busy = false;
        });
      };
      const first = setTimeout(() => {
        tick();
        this.timers.push(setInterval(tick, this.config.sendEveryMs));
      }, (i * this.config.sendEveryMs) / this.chats.length);
      this.timers.push(first);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await this.agent.close();
  }

  /** One Bot API call; the message id of a sent message, or the retry_after of a 429. */
  async telegram(method: string, payload: Record<string, unknown>): Promise<{ messageId?: number; retryAfter?: number }> {
    try {
      const res = await request(`${this.config.telegram.apiRoot}/bot${this.config.telegram.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        dispatcher: this.agent,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const parsed = telegramSchema.safeParse(await res.body.json());
      if (!parsed.success) return {};
      if (parsed.data.parameters?.retry_after !== undefined) {
        this.stats.tooMany += 1;
        return { retryAfter: parsed.data.parameters.retry_after };
      }
      if (parsed.data.ok) {
        if (method === 'sendMessage') this.stats.sends += 1;
        else this.stats.edits += 1;
      }
      return parsed.data.result ? { messageId: parsed.data.result.message_id } : {};
    } catch {
      return {};
    }
  }

  private async read(reader: Reader): Promise<void> {
    if (this.stopped) return;
    const now = Date.now();
    if (!reader.token || now - reader.token.at >= this.config.renewEveryMs || now >= reader.token.expiresAt) {
      if (!(await this.renew(reader, now)) && (!reader.token || now >= reader.token.expiresAt)) {
        this.stats.darkReads += 1;
        return;
      }
    }
    const token = reader.token;
    if (!token) return;
    const base = this.config.dataUrls[reader.service];
    try {
      const res = await request(`${base}/v1/users/${encodeURIComponent(reader.accessKey)}/filter/items`, {
        headers: { authorization: `Bearer ${token.value}` },
        dispatcher: this.agent,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      if (res.statusCode !== 200) {
        await res.body.dump();
        this.stats.readErrors += 1;
        if (res.statusCode === 401) reader.token = undefined;
        return;
      }
      const envelope = envelopeSchema.safeParse(await res.body.json());
      this.stats.reads += 1;
      if (!envelope.success) {
        this.stats.readErrors += 1;
        return;
      }
      this.diff(reader, envelope.data);
    } catch {
      this.stats.readErrors += 1;
    }
  }

  /** Asks for a new token when the hour's ledger allows; false when it does not (or the service refused). */
  private async renew(reader: Reader, now: number): Promise<boolean> {
    const spent = (this.ledgers.get(reader.ledger) ?? []).filter((t) => t > now - HOUR_MS);
    this.ledgers.set(reader.ledger, spent);
    if (spent.length >= this.config.tokensPerHour) return false;
    spent.push(now);
    this.stats.tokenRequests += 1;
    try {
      const res = await request(`${this.config.authUrl}/access_keys/${encodeURIComponent(reader.accessKey)}/access_tokens`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${reader.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service: reader.service }),
        dispatcher: this.agent,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const parsed = tokenSchema.safeParse(await res.body.json());
      if (res.statusCode !== 200 || !parsed.success) return false;
      reader.token = { value: parsed.data.access_token, at: now, expiresAt: now + parsed.data.expires_in * 1000 };
      return true;
    } catch {
      return false;
    }
  }

  private diff(reader: Reader, envelope: Envelope): void {
    const events = new Map(envelope.events.map((e) => [e.id, e]));
    const seen = new Map<string, string>();
    for (const item of envelope.items) {
      const signature = `${item.value}|${item.odds.map((o) => o.value).join(',')}`;
      seen.set(item.id, signature);
      const before = reader.last.get(item.id);
      if (before === signature) continue;
      const text = render(reader.service, item, events.get(item.event_id));
      for (const chat of reader.chats) {
        if (item.value < chat.minProfit) continue;
        if (before === undefined) chat.alert(item.id, text);
        else chat.change(item.id, text);
      }
    }
    reader.last = seen;
  }
}

function render(service: string, item: Item, event: { team_1: string; team_2: string; league: string } | undefined): string {
  const teams = event ? `${escapeHtml(event.team_1)} — ${escapeHtml(event.team_2)}` : escapeHtml(item.event_id);
  const legs = item.odds.map((o) => `${escapeHtml(o.index)} @ ${o.value}`).join('\n');
  return `<b>${service} +${item.value}%</b>\n${teams}${event ? `\n${escapeHtml(event.league)}` : ''}\n${legs}\n<code>${item.id}</code>`;
}
