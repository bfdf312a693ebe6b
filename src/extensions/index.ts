// The one list of extensions (rules EXT-1..EXT-5 in README.md): `serve`, `serve --api-only` and
// startMeterstack() each make it here and hand its `list` to the service, which starts it in this
// order and stops it in reverse.

import { DurableEventsExtension } from './durable/extension.ts';
import type { Extension } from './extension.ts';
import { HomeAssistantExtension, type HomeAssistantOptions } from './home-assistant/extension.ts';
import { JournalExtension } from './journal/extension.ts';
import { LoggerExtension, type LoggerExtensionOptions } from './log/extension.ts';
import { PrometheusExtension, type PrometheusExtensionOptions } from './prometheus/extension.ts';

export type { Extension, ExtensionContext, ServiceHandles } from './extension.ts';

export interface ServiceExtensionsOptions {
  /** The logger extension's pino logger and flood bounds; default silent. */
  log?: LoggerExtensionOptions;
  /** [HA-1] Home Assistant discovery (`serve --ha-discovery`); absent: off. */
  homeAssistant?: HomeAssistantOptions;
  /** [PM-6] GET /metrics and the bus's series; false: off (`--metrics off`). Default on, token-guarded. */
  metrics?: PrometheusExtensionOptions | false;
}

export class ServiceExtensions {
  /** Numbers the bus and keeps money and meter state in the store: first, before anything is emitted. */
  readonly durable = new DurableEventsExtension();
  /** Every event as a log line; before the journal, where the CLI's logger always subscribed. */
  readonly logger: LoggerExtension;
  /** The journal and the live streams: the HTTP API's views. */
  readonly journal: JournalExtension;
  /** Home Assistant discovery, when asked for; last, after the views. */
  readonly homeAssistant: HomeAssistantExtension | null;
  /** Counts the bus into the Prometheus series and serves GET /metrics's text; null when off. */
  readonly prometheus: PrometheusExtension | null;
  /** [EXT-1] In start order. A new extension (Prometheus, Home Assistant) is one more entry. */
  readonly list: readonly Extension[];

  constructor(opts: ServiceExtensionsOptions = {}) {
    this.logger = new LoggerExtension(opts.log);
    this.journal = new JournalExtension(this.durable);
    this.homeAssistant = opts.homeAssistant ? new HomeAssistantExtension(opts.homeAssistant) : null;
    this.prometheus = opts.metrics === false ? null : new PrometheusExtension(opts.metrics);
    // Prometheus after the views (it counts what they have seen), Home Assistant last.
    this.list = [
      this.durable,
      this.logger,
      this.journal,
      ...(this.prometheus ? [this.prometheus] : []),
      ...(this.homeAssistant ? [this.homeAssistant] : []),
    ];
  }
}
