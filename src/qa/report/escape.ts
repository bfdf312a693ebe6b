// [RP-2] Everything a run supplies (a meter id, a scenario name, a body seen, a file name) can hold
// markup such as `</script>`: text and attributes are escaped, data goes in as JSON that cannot end
// its script element, and inlined code is checked for the one sequence that would end it.

const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element's content or a quoted attribute. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML[c]!);
}

/**
 * JSON to sit inside `<script type="application/json">`: `<` written as \u003c, so neither
 * `</script>` nor `<!--` can appear; U+2028/2029 escaped for older parsers. JSON.parse reads it back.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Code or CSS inlined as is: it must not close its own element. */
export function inlined(code: string, element: 'script' | 'style'): string {
  const close = new RegExp(`</${element}`, 'gi');
  return code.replace(close, `<\\/${element}`);
}
