import { describe, expect, it } from 'vitest';
import { checkTelegramHtml } from '../../src/fake-telegram/html.js';

describe('checkTelegramHtml', () => {
  it('accepts the tags Telegram supports and measures the visible text', () => {
    const text =
      '<b>B</b><strong>s</strong><i>i</i><u>u</u><s>s</s><tg-spoiler>x</tg-spoiler><span class="tg-spoiler">y</span>' +
      '<a href="https://example.com/?a=1&amp;b=2">link</a><code>c</code><pre><code class="language-ts">p</code></pre>' +
      '<blockquote expandable>q</blockquote> &lt;&gt;&amp;&quot;&#33;&#x1F600; AT&T';
    const check = checkTelegramHtml(text);
    expect(check).toEqual({ ok: true, visibleLength: 'BsiusxylinkcpQ'.length + ' <>&"!'.length + 2 + ' AT&T'.length });
  });

  it('rejects unknown, unbalanced and crossed tags with Telegram-like messages', () => {
    expect(checkTelegramHtml('<div>x</div>')).toEqual({
      ok: false,
      error: `Bad Request: can't parse entities: Unsupported start tag "div" at byte offset 0`,
    });
    expect(checkTelegramHtml('ß<b>x')).toMatchObject({ ok: false, error: expect.stringContaining(`corresponding to start tag "b"`) });
    expect(checkTelegramHtml('x</b>')).toMatchObject({ ok: false, error: expect.stringContaining('Unexpected end tag at byte offset 1') });
    expect(checkTelegramHtml('<b><i>x</b></i>')).toMatchObject({ ok: false, error: expect.stringContaining('Unmatched end tag') });
    expect(checkTelegramHtml('odds < 2')).toMatchObject({ ok: false, error: expect.stringContaining('Unclosed start tag') });
    expect(checkTelegramHtml('odds <2.5 or >3')).toMatchObject({ ok: false, error: expect.stringContaining('Unsupported start tag') });
    expect(checkTelegramHtml('<span>x</span>')).toMatchObject({ ok: false, error: expect.stringContaining('tg-spoiler') });
  });
});
