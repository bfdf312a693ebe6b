// [PM-4] The series the Prometheus extension counts from the event bus, made in the service's registry.
// Names and labels are the ones docs/metrics.md lists; every label is low-cardinality [PM-2]: an event
// type, an outcome, a command op, a refusal reason, an HTTP method, route template and status, never a
// device id, an account or a URL.

import type { HotCounter, HotHistogram } from '../../events/hot-series.ts';
import type { LabelledCounter, Metrics } from '../../events/metrics.ts';

/** Seconds: a cached GET answers in well under a millisecond, a slow store write takes seconds. */
export const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds: a command round trip over a local broker is milliseconds; the default timeout is 10 s. */
export const COMMAND_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface BusSeries {
  /** Hot: moved by every event (children of plain numbers, hot-series.ts). */
  events: HotCounter;
  telemetryMessages: LabelledCounter<never>;
  telemetrySamples: LabelledCounter<never>;
  refused: LabelledCounter<'reason'>;
  /** Hot: moved by every command (a relay switched through the v2 API moves it twice). */
  commands: HotCounter;
  commandLatency: HotHistogram;
  /** Hot: moved by every HTTP request. */
  httpRequests: HotCounter;
  httpLatency: HotHistogram;
  rateLimited: LabelledCounter<never>;
  recharges: LabelledCounter<'outcome'>;
  meterConnections: LabelledCounter<never>;
  brokerRefused: LabelledCounter<'reason'>;
  clockAdvances: LabelledCounter<never>;
}

export function busSeries(m: Metrics): BusSeries {
  return {
    events: m.hotCounter('meterstack_events_total', 'Events emitted on the event bus, by type', ['type']),
    telemetryMessages: m.labelledCounter(
      'meterstack_telemetry_messages_total',
      'Telemetry messages the twins took in from meters',
      [],
    ),
    telemetrySamples: m.labelledCounter(
      'meterstack_telemetry_samples_total',
      'Telemetry samples the twins took in from meters',
      [],
    ),
    refused: m.labelledCounter(
      'meterstack_contract_refused_total',
      'Well-formed MQTT messages refused under the contract (samples one by one), by reason [MC-9.5]',
      ['reason'],
    ),
    commands: m.hotCounter(
      'meterstack_commands_total',
      'Commands to meters by operation and outcome: sent, acked, refused (by the meter), timeout',
      ['op', 'outcome'],
    ),
    commandLatency: m.hotHistogram(
      'meterstack_command_latency_seconds',
      'Time from a command sent to its reply (acked or refused), by operation',
      ['op', 'outcome'],
      COMMAND_BUCKETS,
    ),
    httpRequests: m.hotCounter(
      'meterstack_http_requests_total',
      'HTTP requests answered, by method, route template and status',
      ['method', 'route', 'status'],
    ),
    httpLatency: m.hotHistogram(
      'meterstack_http_request_duration_seconds',
      'Time to answer an HTTP request, by method and route template',
      ['method', 'route'],
      HTTP_BUCKETS,
    ),
    rateLimited: m.labelledCounter(
      'meterstack_http_rate_limited_total',
      'v2 API requests refused by the rate limit (429 rate_limit_exceeded)',
      [],
    ),
    recharges: m.labelledCounter(
      'meterstack_recharges_total',
      'Recharges by outcome: applied, duplicate (same transaction id), refused, pending (external meter)',
      ['outcome'],
    ),
    meterConnections: m.labelledCounter(
      'meterstack_meter_connections_total',
      "Meters' MQTT logins the broker accepted",
      [],
    ),
    brokerRefused: m.labelledCounter(
      'meterstack_broker_refused_total',
      'MQTT connections and logins the broker refused, by reason [MC-10.5]',
      ['reason'],
    ),
    clockAdvances: m.labelledCounter(
      'meterstack_clock_advances_total',
      'Jumps of the virtual clock (POST /sim/v1/clock/advance, scenarios)',
      [],
    ),
  };
}
