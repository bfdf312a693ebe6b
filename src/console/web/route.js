// Where the console is, in its URL: `#/fleet`, `#/meter/MTR-B201`, `#/events`, `#/provision` (hash
// routing: a meter's page reloads, can be shared, and the back button leaves it). Pure: read and
// written by app.js on `hashchange`.

const TABS = { fleet: 'Fleet', events: 'Events', provision: 'Provision' };

/** `#/meter/MTR-B201` -> {tab: 'Fleet', meter: 'MTR-B201'}; the older `#Events` still reads. */
export function parseRoute(hash) {
  const path = hash.replace(/^#\/?/, '');
  const [head, ...rest] = path.split('/');
  if (head === 'meter' && rest.length > 0) {
    return { tab: 'Fleet', meter: decodeURIComponent(rest.join('/')) };
  }
  return { tab: TABS[head.toLowerCase()] ?? 'Fleet', meter: null };
}

/** The hash of a place: a meter's page, or a tab. */
export function routeHash({ tab, meter }) {
  if (meter) return `#/meter/${encodeURIComponent(meter)}`;
  return `#/${tab.toLowerCase()}`;
}
