// MQTT topic filters, pure: whether a topic matches a filter [MQTT-4.7], and whether one filter
// covers another (every topic the second matches, the first matches too). The broker's scoped logins
// (access.ts) are lists of filters: a SUBSCRIBE is allowed when one of them covers its filter, so a
// login allowed `homeassistant/#` may subscribe to `homeassistant/+/x/config` but not to `#`.

/**
 * True when every topic `filter` matches is matched by `pattern`. A plain topic is a filter that
 * matches itself, so this is also the match of a topic. Wildcards in `filter` are covered only by
 * wildcards in `pattern`: `+` by `+` or `#`, `#` by `#`.
 */
export function covers(pattern: string, filter: string): boolean {
  // [MQTT-4.7.2-1] A filter starting with a wildcard does not match a `$` topic.
  if (filter.startsWith('$') && (pattern.startsWith('+') || pattern.startsWith('#'))) return false;
  const p = pattern.split('/');
  const f = filter.split('/');
  for (let i = 0; i < p.length; i++) {
    const level = p[i];
    if (level === '#') return true; // the rest, and the parent level itself (`a/#` matches `a`)
    if (i >= f.length) return false;
    const their = f[i];
    if (their === '#') return false;
    if (level === '+') continue;
    if (their === '+' || their !== level) return false;
  }
  return p.length === f.length;
}

/** A filter with wildcards only as whole levels, `#` last [MQTT-4.7.1-1, MQTT-4.7.1-2]; no empty filter. */
export function isValidFilter(filter: string): boolean {
  if (filter.length === 0 || filter.length > 65_535 || filter.includes('\u0000')) return false;
  const levels = filter.split('/');
  return levels.every((level, i) => {
    if (level === '#') return i === levels.length - 1;
    if (level === '+') return true;
    return !level.includes('+') && !level.includes('#');
  });
}
