import { describe, expect, it } from 'vitest';
import { clipText, escapeHtml, htmlToText } from '../../src/lib/html.js';

/** No lone surrogate (half an emoji) anywhere in `s`. */
const wellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('escapeHtml', () => {
  it('escapes the five characters HTML parse mode cares about, the apostrophe too', () => {
    expect(escapeHtml(`<b a="x">Tom & Jerry's</b>`)).toBe('&lt;b a=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;');
    expect(escapeHtml("O'Brien")).toBe('O&#39;Brien');
    expect(escapeHtml(42)).toBe('42');
  });

  it('round-trips through htmlToText', () => {
    const hostile = `</b><a href='x'>"&amp;"</a> 🎾`;
    expect(htmlToText(escapeHtml(hostile))).toBe(hostile);
  });
});

describe('htmlToText', () => {
  it('drops tags and decodes entities, &amp; last so escaped entities stay as written', () => {
    expect(htmlToText('<b>1 &lt; 2</b> &amp;lt; &#x27;x&#39;')).toBe("1 < 2 &lt; 'x'");
  });
});

describe('clipText', () => {
  it('leaves short text alone and marks a cut with an ellipsis', () => {
    expect(clipText('abc', 3)).toBe('abc');
    expect(clipText('abcdef', 4)).toBe('abc…');
    expect(clipText('abcdef', 1)).toBe('…');
  });

  it('never splits an emoji (a surrogate pair) in half', () => {
    const text = 'ab😀😀😀';
    // 'ab😀' is 4 UTF-16 units; a cut by units at 3 would leave half an emoji.
    const clipped = clipText(text, 4);
    expect(clipped).toBe('ab😀…');
    expect(wellFormed(clipped)).toBe(true);
    for (let max = 1; max <= 6; max++) expect(wellFormed(clipText('😀😀😀😀😀😀', max))).toBe(true);
  });

  it('a lone half of an emoji is what the check catches', () => {
    expect(wellFormed('ab\uD83D…')).toBe(false);
  });

  it('counts code points: an emoji-only text of max emoji is not cut', () => {
    expect(clipText('😀😀😀', 3)).toBe('😀😀😀');
  });
});
