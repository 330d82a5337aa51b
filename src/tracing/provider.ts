/**
 * `createTracing(config)`: the OpenTelemetry SDK as the `OTEL_*` variables configure it, or
 * undefined when they leave tracing off (no endpoint and no `OTEL_TRACES_EXPORTER`, or
 * `OTEL_SDK_DISABLED=true`): then the app makes no span, no scope and no header.
 *
 * `src/config/index.ts` reads the variables that decide what is built (the exporter, its endpoint, the
 * sampler, the service name); the OTLP exporter reads the rest itself, as the specification
 * names them (`OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `_COMPRESSION`, the certificates), and
 * the resource takes `OTEL_RESOURCE_ATTRIBUTES`. The provider is the app's own, not registered
 * globally, and no context manager is installed (see `spans.ts`).
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { GatewayConfig, TracesSampler } from '../config/index.js';

export interface Tracing {
  readonly tracer: Tracer;
  /**
   * Exports the spans still buffered and stops the exporter (at `app.stop()`), waiting at most
   * `TRACES_FLUSH_TIMEOUT_MS`: resolves false when that passed first (the spans left are lost,
   * rather than the process outliving its grace period and being killed mid-write).
   */
  close(): Promise<boolean>;
}

/** The tracer name of the gateway's spans (their instrumentation scope). */
const SCOPE = 'infra-graphql-gateway';

/** Whether the configuration turns tracing on. */
export function tracingEnabled(config: Pick<GatewayConfig, 'otelSdkDisabled' | 'otelTracesExporter' | 'otelExporterOtlpEndpoint' | 'otelExporterOtlpTracesEndpoint'>): boolean {
  if (config.otelSdkDisabled || config.otelTracesExporter === 'none') return false;
  return config.otelTracesExporter !== undefined || config.otelExporterOtlpEndpoint !== undefined || config.otelExporterOtlpTracesEndpoint !== undefined;
}

/** The SDK, its exporter and sampler, when the configuration turns tracing on. */
export function createTracing(config: GatewayConfig): Tracing | undefined {
  if (!tracingEnabled(config)) return undefined;
  const exporter =
    config.otelTracesExporter === 'console'
      ? new ConsoleSpanExporter()
      : new OTLPTraceExporter({ url: tracesUrl(config) });
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.otelServiceName }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(config.otelTracesSampler, config.otelTracesSamplerArg),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  return {
    tracer: provider.getTracer(SCOPE),
    close: () => withinMs(provider.shutdown(), config.tracesFlushTimeoutMs),
  };
}

/** Whether `work` resolved within `ms` (its rejection passes through); it is left to run on, unawaited, when it did not. */
async function withinMs(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The OTLP/HTTP traces URL: the traces endpoint as given, or `v1/traces` under the endpoint; undefined: the SDK's default. */
function tracesUrl(config: Pick<GatewayConfig, 'otelExporterOtlpEndpoint' | 'otelExporterOtlpTracesEndpoint'>): string | undefined {
  if (config.otelExporterOtlpTracesEndpoint !== undefined) return config.otelExporterOtlpTracesEndpoint;
  if (config.otelExporterOtlpEndpoint === undefined) return undefined;
  return `${config.otelExporterOtlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** The specification's built-in sampler of that name (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`). */
function samplerOf(name: TracesSampler, ratio: number): Sampler {
  const root = name.endsWith('always_on') ? new AlwaysOnSampler() : name.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}
