/**
 * Generates one decoder per (record definition, demand): plain JavaScript that reads each field
 * itself (`o.name`), writes an object literal of one fixed shape, and holds `null` (or `[]`) for
 * what the demand leaves out without a branch at run time.
 *
 * Why generated code (as graphql-jit and fast-json-stringify do): a page of 50 VMs decodes about
 * 500 records on the gateway's hot path. A generic loop over the definition (`out[key] =
 * read(o[key])`) makes every read megamorphic and was measured a third slower than hand-written
 * decoders; the generated text is what one would write by hand, so V8 keeps each read monomorphic.
 * Only the definitions' own keys (checked as identifiers by `defineRecord`) and JSON-quoted strings
 * are spliced into the source; every function it calls is passed in, never looked up by name.
 */
import { UnrecognizedValue, type AnyRecordDefinition, type DecodeRuntime, type FieldSpec } from './define-record.js';
import { asObject, bool, int, json, listEach, requiredInt, requiredStr, str, strList, uuid } from './wire.js';

/** A field the demand left out was read: in tests, a starved `reads(...)` declaration. */
export class UndecodedFieldError extends Error {
  readonly code = 'UNDECODED_FIELD';
  constructor(
    readonly record: string,
    readonly field: string,
  ) {
    super(`${record}.${field} was not decoded: the query's record demand left it out (declare it with reads(...))`);
    this.name = 'UndecodedFieldError';
  }
}

/** A generated decoder: `parent` is what an embedded record receives from its parent (`records(def, passes)`). */
export type CompiledDecoder = (value: unknown, path?: string, parent?: string | null) => unknown;

export interface CompileOptions {
  /** Whether each field is decoded (`demand.ts`); undefined: all of them. */
  readonly mask: Readonly<Record<string, boolean>> | undefined;
  /** Undecoded fields throw `UndecodedFieldError` when read instead of answering null. */
  readonly strict: boolean;
  readonly runtime: DecodeRuntime;
  /** The decoder of an embedded record type (same demand, same runtime). */
  readonly decoderOf: (record: AnyRecordDefinition) => CompiledDecoder;
}

/** A closed set's value of `text`; one outside the set kept as its text; null for none. */
function closedSetValue<T>(normalize: (text: string) => T | null, text: string | null): T | UnrecognizedValue | null {
  return text === null ? null : (normalize(text) ?? new UnrecognizedValue(text));
}

const READERS = { asObject, bool, int, json, listEach, requiredInt, requiredStr, str, strList, uuid, closedSetValue };

export function compileDecoder(definition: AnyRecordDefinition, options: CompileOptions): CompiledDecoder {
  const { mask, strict, runtime } = options;
  const passed = new Set<string>();
  for (const key of definition.keys) {
    const passes = (definition.fields[key] as FieldSpec<unknown>).passes;
    if (passes !== undefined) passed.add(passes);
  }
  /** Values handed to the generated code by name: `v0`, `v1`, ... */
  const bound: unknown[] = [];
  const bind = (value: unknown): string => `v${bound.push(value) - 1}`;
  const date = bind(runtime.date);

  const locals: string[] = [];
  const entries: string[] = [];
  const hidden: string[] = [];
  for (const key of definition.keys) {
    const spec = definition.fields[key] as FieldSpec<unknown>;
    const wanted = spec.always || mask === undefined || mask[key] === true;
    const q = JSON.stringify(key);
    let expression: string;
    if (!wanted) {
      expression = spec.kind === 'records' || spec.kind === 'strings' ? '[]' : 'null';
      hidden.push(key);
    } else {
      const read = `(o.${key}, ${q}, path)`;
      switch (spec.kind) {
        case 'uuid': expression = `uuid${read}`; break;
        case 'text':
        case 'uuidRef': expression = `str${read}`; break;
        case 'requiredText':
        case 'requiredUuidRef': expression = `requiredStr${read}`; break;
        case 'int':
        case 'long': expression = `int${read}`; break;
        case 'requiredLong': expression = `requiredInt${read}`; break;
        case 'bool': expression = `bool${read}`; break;
        case 'timestamp': expression = `${date}${read}`; break;
        case 'strings': expression = `strList${read}`; break;
        case 'json': expression = `json${read}`; break;
        case 'normalized': expression = `closedSetValue(${bind(spec.normalize)}, str${read})`; break;
        case 'records': {
          const item = bind(options.decoderOf(spec.record as AnyRecordDefinition));
          const context = spec.passes === undefined ? '' : `, f_${spec.passes}`;
          // Each item stands alone: one the decoder cannot read fills its own slot, not the record's.
          expression = `listEach(o.${key}, ${q}, path, ${item}${context})`;
          break;
        }
        case 'fromParent': expression = 'parent'; break;
        case 'ownOrParent':
          // The wire's own value is read only when asked for, or when there is no parent to take.
          expression = mask === undefined || mask[key] === true ? `(str${read} ?? parent)` : `(parent !== null ? parent : str${read})`;
          break;
        case 'custom': expression = `${bind(spec.read)}(o, path, ${bind(runtime)})`; break;
      }
    }
    if (passed.has(key)) {
      locals.push(`const f_${key} = ${expression};`);
      expression = `f_${key}`;
    }
    entries.push(`${key}: ${expression}`);
  }
  const hide = strict && hidden.length > 0 ? bind(hiderOf(definition.name, hidden)) : undefined;
  const fromText = definition.fromText === undefined ? undefined : JSON.stringify(definition.fromText);
  const source = [
    `return function decode_${definition.name}(value, path, parent) {`,
    `  if (path === undefined) path = ${JSON.stringify(definition.defaultPath)};`,
    '  if (parent === undefined) parent = null;',
    fromText === undefined ? '  const o = asObject(value, path);' : `  const o = typeof value === 'string' ? { [${fromText}]: value } : asObject(value, path);`,
    ...locals.map((line) => `  ${line}`),
    `  const record = {\n    ${entries.join(',\n    ')}\n  };`,
    hide === undefined ? '' : `  ${hide}(record);`,
    '  return record;',
    '};',
  ].join('\n');
  // Everything the generated code calls comes in as a parameter, the readers by their own names.
  const names = [...Object.keys(READERS), ...bound.map((_, i) => `v${i}`)];
  const values = [...Object.values(READERS), ...bound];
  return new Function(...names, source)(...values) as CompiledDecoder;
}


/**
 * Turns the fields a demand left out into getters that throw. Non-enumerable, so spreading or
 * serializing a record (which reads every field) sees only what was decoded.
 */
function hiderOf(record: string, fields: readonly string[]): (target: object) => void {
  const descriptors: PropertyDescriptorMap = {};
  for (const field of fields) {
    descriptors[field] = {
      get() {
        throw new UndecodedFieldError(record, field);
      },
      enumerable: false,
      configurable: true,
    };
  }
  return (target) => Object.defineProperties(target, descriptors);
}
