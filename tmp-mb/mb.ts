import { EventBus } from '../src/events/bus.ts';
import { Metrics } from '../src/events/metrics.ts';
import { Journal } from '../src/extensions/journal/journal.ts';
import { EventCounter } from '../src/extensions/prometheus/count-events.ts';
import { busSeries } from '../src/extensions/prometheus/series.ts';
import { secretRedactor } from '../src/log/redact.ts';

const metrics = new Metrics();
const bus = new EventBus({ now: () => performance.now(), redact: secretRedactor(['bench-admin-token']), metrics });
const journal = new Journal({ firstSeq: 1 });
bus.onRequest((s, v, w, d, a) => journal.pushRequest(s, v, w, d, a));
const counter = new EventCounter(busSeries(metrics));
bus.onRequest((_s, _v, _w, d) => counter.request(d));
let lastVt = 0;
bus.onRequest((_s, vt, _w, d) => { lastVt = vt; if (d.status >= 400) throw new Error('x'); });
bus.onRequest((_s, _v, _w, d) => { if (d.method !== 'PUT') return; });
bus.onRequest(() => {});
bus.onRequest((seq) => { if (seq > 1e12) throw new Error(); });
const N = 2_000_000;
function run(label: string, f: (i: number) => void) {
  for (let i = 0; i < 200_000; i++) f(i);
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) f(i);
  const d = process.cpuUsage(t);
  console.log(label, (((d.user + d.system) * 1000) / N).toFixed(0), 'ns/req');
}
const urls = Array.from({ length: 64 }, () => '/api/v2/devices/MTR-A101/');
run('bus.request', (i) => {
  const url = `/api/v2/devices/MTR-A10${i & 1}/`;
  bus.request({ method: 'GET', route: '/api/v2/devices/:device_id/', url, status: 200, latency_ms: 0.3, account_id: 1 }, 1);
});
run('baseline (object+string only)', (i) => {
  const url = `/api/v2/devices/MTR-A10${i & 1}/`;
  const d = { method: 'GET', route: '/api/v2/devices/:device_id/', url, status: 200, latency_ms: 0.3, account_id: 1 };
  if (d.url.length === 0) console.log(urls.length, lastVt);
});
