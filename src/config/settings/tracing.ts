/**
 * The settings of OpenTelemetry tracing (`tracing`), through the SDK's standard variables.
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { boolean, choice, fraction, httpUrl, milliseconds, text } from '../parsers.js';
import { optional, setting } from '../declaration.js';

/** The values of `OTEL_TRACES_EXPORTER` the gateway knows. */
export const TRACES_EXPORTERS = ['otlp', 'console', 'none'] as const;
export type TracesExporter = (typeof TRACES_EXPORTERS)[number];

/** The values of `OTEL_TRACES_SAMPLER` the gateway knows (the specification's built-in samplers). */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

export const tracingSettings = Object.freeze({
  otelExporterOtlpEndpoint: optional({
    variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    group: 'tracing',
    parser: httpUrl(),
    unset: 'tracing off',
    description: 'Base URL of the OTLP/HTTP collector; spans go to `<it>/v1/traces`. Setting it turns tracing on.',
  }),
  otelExporterOtlpTracesEndpoint: optional({
    variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    group: 'tracing',
    parser: httpUrl(),
    unset: '`OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended',
    description: 'The OTLP/HTTP traces URL itself (no path appended); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`, and turns tracing on too.',
  }),
  otelTracesExporter: optional({
    variable: 'OTEL_TRACES_EXPORTER',
    group: 'tracing',
    parser: choice(TRACES_EXPORTERS),
    unset: '`otlp` when an endpoint is set, else tracing is off',
    description: '`otlp` (OTLP/HTTP with JSON, to the endpoint above or `http://localhost:4318/v1/traces`), `console` (spans on stdout) or `none` (off, whatever else is set).',
  }),
  otelServiceName: setting({
    variable: 'OTEL_SERVICE_NAME',
    group: 'tracing',
    parser: text(),
    default: 'infra-graphql-gateway',
    description: '`service.name` of the gateway\'s spans (`OTEL_RESOURCE_ATTRIBUTES` adds others).',
  }),
  otelTracesSampler: setting({
    variable: 'OTEL_TRACES_SAMPLER',
    group: 'tracing',
    parser: choice(TRACES_SAMPLERS),
    default: 'parentbased_always_on',
    description: 'Which traces are recorded; the `parentbased_` samplers follow the sampled flag of a caller\'s `traceparent`.',
  }),
  otelTracesSamplerArg: setting({
    variable: 'OTEL_TRACES_SAMPLER_ARG',
    group: 'tracing',
    parser: fraction(),
    default: 1,
    description: 'The ratio of the `traceidratio` samplers.',
  }),
  tracesFlushTimeoutMs: setting({
    variable: 'TRACES_FLUSH_TIMEOUT_MS',
    group: 'tracing',
    parser: milliseconds(0, 60_000),
    default: 3_000,
    description:
      'On shutdown, after the drain: how long the spans still buffered may take to reach the collector before the process exits without them. Keep `SHUTDOWN_TIMEOUT_MS` plus this below the pod\'s grace period ([health](../operations/health.md#how-the-grace-period-is-spent)).',
  }),
  otelSdkDisabled: setting({
    variable: 'OTEL_SDK_DISABLED',
    group: 'tracing',
    parser: boolean(),
    default: false,
    description: '`true` turns tracing off whatever else is set.',
  }),
});
