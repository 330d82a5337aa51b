/**
 * Values the upstream sent from outside an enum's set (a newer upstream release's), which the
 * schema answers as the enum's fallback (`OTHER`/`UNKNOWN`) without an error: counted by enum and
 * value (`gateway_upstream_unrecognized_values_total`) and logged once per value, so operators
 * learn that the upstream grew a value while clients keep working. Labels stay bounded: past
 * `maxValuesPerEnum` distinct values of one enum, the others count under one label.
 */
import type { Counter } from 'prom-client';
import type { Logger } from 'pino';

/** Reports one value of `enumName` the upstream sent that the enum does not have. */
export type UnrecognizedValueObserver = (enumName: string, text: string) => void;

/** The `value` label of the values of an enum past its cap. */
export const VALUES_PAST_CAP = '(others)';

/** The longest value kept as a label; a longer one is cut (the log line keeps it whole). */
const MAX_LABEL_LENGTH = 64;

export interface UnrecognizedValuesOptions {
  readonly counter: Counter<'enum' | 'value'>;
  readonly logger: Pick<Logger, 'warn'>;
  /** Distinct values of one enum that get a label (and a log line) of their own. @default 20 */
  readonly maxValuesPerEnum?: number;
}

/** Values of one enum that get a label of their own; later ones count under `(others)`. */
const DEFAULT_MAX_VALUES_PER_ENUM = 20;

/** The observer of an app: one counter, and the values already seen per enum. */
export function createUnrecognizedValues(options: UnrecognizedValuesOptions): UnrecognizedValueObserver {
  const cap = options.maxValuesPerEnum ?? DEFAULT_MAX_VALUES_PER_ENUM;
  const seen = new Map<string, Set<string>>();
  return (enumName, text) => {
    const label = text.length > MAX_LABEL_LENGTH ? text.slice(0, MAX_LABEL_LENGTH) : text;
    let values = seen.get(enumName);
    if (values === undefined) seen.set(enumName, (values = new Set()));
    if (values.has(label)) return options.counter.inc({ enum: enumName, value: label });
    if (values.size >= cap) return options.counter.inc({ enum: enumName, value: VALUES_PAST_CAP });
    values.add(label);
    options.counter.inc({ enum: enumName, value: label });
    options.logger.warn(
      { enum: enumName, value: text },
      `the upstream sent ${JSON.stringify(text)} for ${enumName}, a value this API does not know: clients get its fallback and the text in the <field>Raw field`,
    );
    if (values.size === cap) options.logger.warn({ enum: enumName, cap }, `${enumName} has had ${cap} unknown values: further ones count under value="${VALUES_PAST_CAP}" and are not logged`);
  };
}

const OBSERVER = Symbol('unrecognizedValueObserver');

/** Hangs the app's observer on a request's context, where the schema's enum fields find it. */
export function withUnrecognizedValueObserver<C extends object>(context: C, observer: UnrecognizedValueObserver): C {
  return Object.assign(context, { [OBSERVER]: observer });
}

/** Reports an unknown value to the context's observer, when it carries one (a bare schema in a test does not). */
export function observeUnrecognizedValue(context: unknown, enumName: string, text: string): void {
  if (typeof context !== 'object' || context === null) return;
  (context as { [OBSERVER]?: UnrecognizedValueObserver })[OBSERVER]?.(enumName, text);
}
