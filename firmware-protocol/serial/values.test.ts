// [SP-2.8] [SP-3.4] Text the sender writes about hostile input (ERR/NAK msg) is always writable.

import { describe, expect, it } from 'vitest';
import { tryFormatFrame } from './codec.ts';
import { MAX_LINE_BYTES } from './frames.ts';
import { escapeString, isText, quotableText } from './values.ts';

describe('[SP-2.8] [SP-3.4] quotableText', () => {
  it('shortens to the wire budget between characters: 😀 is 12 escaped bytes, so 600 bytes hold 50', () => {
    const clipped = quotableText('😀'.repeat(150), 600);
    expect(clipped).toBe('😀'.repeat(50));
    expect(escapeString(clipped).length).toBeLessThanOrEqual(600);
    expect(isText(clipped)).toBe(true);
  });

  it('shows a lone surrogate it quotes as U+FFFD, and leaves pairs and plain text alone', () => {
    expect(quotableText('a\ud800b\udc00c😀', 600)).toBe('a\ufffdb\ufffdc😀');
    expect(quotableText('checksum-0000', 600)).toBe('checksum-0000');
  });

  it('an ERR quoting a hostile emoji line always formats within the line limit (issue 8 item 9)', () => {
    const hostile = `[SP-5.10] not: ${'😀'.repeat(400)}\ud800`;
    const formatted = tryFormatFrame({ type: 'ERR', code: 'rejected', msg: quotableText(hostile, 600) });
    expect(formatted.ok && formatted.line.length <= MAX_LINE_BYTES).toBe(true);
    // What the bridge did before: 200 UTF-16 units cut mid-pair, 1,104 bytes once escaped: refused.
    expect(tryFormatFrame({ type: 'ERR', code: 'rejected', msg: hostile.slice(0, 200) }).ok).toBe(false);
  });
});
