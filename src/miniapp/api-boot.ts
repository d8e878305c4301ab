/**
 * The boot call (boot-contract.ts): `me` and the first screen's data in one request, so a cold
 * open waits for one API round trip after the page instead of two in a row. It runs the two routes
 * it stands for, as they are (the same auth check, per-user cap — a boot counts as two calls — and
 * errors), and joins their JSON bodies without parsing them again; the first refusal is the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX } from './contract.js';
import { sendText } from './api-http.js';
import { bootScreenSchema } from './boot-contract.js';

/** The API's handler (api.ts's MiniAppApi, spelled out here so the two files do not import each other). */
type Handler = (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) => void;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The part of ServerResponse the API's routes write through (writeHead, setHeader, end,
 * headersSent), keeping what they write instead of sending it.
 */
class Captured {
  headersSent = false;
  private status = 200;
  private headers: Record<string, string> = {};
  constructor(private readonly done: (a: Answer) => void) {}
  setHeader(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }
  writeHead(status: number, headers: Record<string, string> = {}): this {
    this.status = status;
    for (const [k, v] of Object.entries(headers)) this.setHeader(k, v);
    this.headersSent = true;
    return this;
  }
  end(body?: string | Buffer): this {
    this.done({ status: this.status, headers: this.headers, body: body === undefined ? '' : String(body) });
    return this;
  }
}

function run(api: Handler, req: IncomingMessage, route: string): Promise<Answer> {
  return new Promise((resolve) => {
    // The routes use only Captured's part of the response (the boot test checks every screen end to end).
    const res = new Captured(resolve) as unknown as ServerResponse;
    api(req, res, API_PREFIX + route, new URLSearchParams());
  });
}

/** `api` with GET /app/api/boot in front of it; every other path goes to `api` untouched. */
export function withBoot(api: Handler): Handler {
  return (req, res, path, query) => {
    if (path !== `${API_PREFIX}/boot`) return api(req, res, path, query);
    const screen = bootScreenSchema.parse(query.get('screen') ?? undefined);
    void Promise.all([run(api, req, '/me'), run(api, req, `/${screen}`)]).then(([me, data]) => {
      const refused = [me, data].find((a) => a.status !== 200);
      if (refused) return sendText(res, refused.status, refused.headers, refused.body);
      sendText(res, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, `{"me":${me.body},"${screen}":${data.body}}`);
    });
  };
}
