import { EventBus } from '../src/events/bus.ts';
import { Metrics } from '../src/events/metrics.ts';
import { Journal } from '../src/extensions/journal/journal.ts';
import { EventCounter } from '../src/extensions/prometheus/count-events.ts';
import { busSeries } from '../src/extensions/prometheus/series.ts';
import { secretRedactor } from '../src/log/redact.ts';
const N = 2_000_000;
function run(label: string, setup: (bus: EventBus) => void) {
  const metrics = new Metrics();
  const bus = new EventBus({ now: () => performance.now(), redact: secretRedactor(['bench-admin-token']), metrics });
  setup(bus);
  const f = (i: number) => bus.request({ method: 'GET', route: '/api/v2/devices/:device_id/', url: `/api/v2/devices/MTR-A10${i & 1}/`, status: 200, latency_ms: 0.3, account_id: 1 }, 1);
  for (let i = 0; i < 200_000; i++) f(i);
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) f(i);
  const d = process.cpuUsage(t);
  console.log(label.padEnd(20), (((d.user + d.system) * 1000) / N).toFixed(0), 'ns/req');
}
run('none', () => {});
run('journal', (bus) => { const j = new Journal({ firstSeq: 1 }); bus.onRequest((s, v, w, d, a) => j.pushRequest(s, v, w, d, a)); });
run('prometheus', (bus) => { const c = new EventCounter(busSeries(new Metrics())); bus.onRequest((_s, _v, _w, d) => c.request(d)); });
run('none again', () => {});
