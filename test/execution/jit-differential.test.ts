/**
 * Differential test of the execution engine: documents generated from the schema itself (read by
 * introspection at run time, so it follows every change of a field's type or nullability) are
 * sent to two gateways over the same simulator, one with the default engine and one with
 * `GRAPHQL_JIT=false` (graphql-js alone), and must get the same status, data and errors.
 *
 * The generator is seeded (`ENGINE_DIFF_SEED`, `ENGINE_DIFF_RUNS` reproduce or widen a run). It
 * writes queries and `jobCompleted` subscriptions (over SSE); mutations are left out, since each
 * changes the simulator both gateways read, and a comparison needs both to see the same estate.
 */
import fc from 'fast-check';
import {
  buildClientSchema,
  getNamedType,
  getNullableType,
  GraphQLNonNull,
  introspectionFromSchema,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  parse,
  validate,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLSchema,
} from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig, type GatewayConfig } from '../../src/config/index.js';
import { graphqlJsReason } from '../../src/execution/use-jit.js';
import { schema as builtSchema } from '../../src/schema/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { credentialHeaders, type CredentialHeaders } from '../support/harness.js';

const SEED = Number(process.env.ENGINE_DIFF_SEED ?? 20_251_125);
const RUNS = Number(process.env.ENGINE_DIFF_RUNS ?? 300);
/** Stands for the id of a job that finished; each gateway knows its own job by it. */
const JOB_ID = 'JOB_ID_PLACEHOLDER';

interface Pools {
  ids: string[];
  uuids: string[];
  strings: string[];
}

interface Request {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

interface GeneratedDocument {
  kind: 'query' | 'subscription';
  requests: Request[];
}

type Gen = fc.GeneratorValue;

/** Writes one document: its operations, fragments and variables. */
class DocumentWriter {
  private variableCount = 0;
  private aliasCount = 0;
  private readonly definitions: string[] = [];
  readonly fragments: string[] = [];
  readonly variables: Record<string, unknown> = {};

  constructor(
    private readonly g: Gen,
    private readonly schema: GraphQLSchema,
    private readonly pools: Pools,
    private readonly withVariables: boolean,
    private readonly fragmentPrefix = 'F',
  ) {}

  private chance(percent: number): boolean {
    return this.g(fc.integer, { min: 0, max: 99 }) < percent;
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.g(fc.integer, { min: 0, max: items.length - 1 })]!;
  }

  variableDefinitions(): string {
    return this.definitions.length === 0 ? '' : `(${this.definitions.join(', ')})`;
  }

  operation(kind: 'query' | 'subscription', name: string): string {
    const root = (kind === 'query' ? this.schema.getQueryType() : this.schema.getSubscriptionType())!;
    let selection: string;
    if (kind === 'subscription') {
      // jobCompleted ends by itself; jobEvents waits for jobs nobody starts here.
      selection = this.field(root.getFields().jobCompleted!, 0, false, new Set());
    } else {
      const fields = Object.values(root.getFields());
      // Mostly one root field, as clients write them; several with a non-null one run on graphql-js.
      const count = this.pick([1, 1, 1, 1, 2, 2, 3]);
      const used = new Set<string>();
      selection = Array.from({ length: count }, () => this.field(this.pick(fields), 0, true, used)).join(' ');
    }
    return `${kind} ${name}${this.variableDefinitions()} { ${selection} }`;
  }

  /** A field; `used` holds the names already selected beside it, which take an alias when they have arguments. */
  private field(field: GraphQLField<unknown, unknown>, depth: number, directives: boolean, used: Set<string>): string {
    const args = field.args.map((arg) => this.argument(arg)).filter((text) => text !== '');
    const argText = args.length > 0 ? `(${args.join(', ')})` : '';
    // A cursor's alias says so: cursors hold their expiry, so the comparison leaves their values out.
    const aliased = this.chance(20) || (argText !== '' && used.has(field.name));
    const alias = aliased ? `${/cursor/i.test(field.name) ? 'cursor' : 'a'}${++this.aliasCount}: ` : '';
    if (!aliased) used.add(field.name);
    const directive = directives && this.chance(15) ? ` ${this.directive()}` : '';
    const type = getNamedType(field.type);
    const selection = isCompositeType(type) ? ` { ${this.selectionSet(type, depth + 1)} }` : '';
    return `${alias}${field.name}${argText}${directive}${selection}`;
  }

  private argument(arg: GraphQLArgument): string {
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    if (!required && this.chance(50)) return '';
    return `${arg.name}: ${this.value(arg.type, true)}`;
  }

  /** A literal of `type`, or (when allowed) a variable standing where the literal would. */
  private value(type: GraphQLInputType, allowVariable: boolean): string {
    if (allowVariable && this.withVariables && this.chance(35)) return this.variable(type);
    if (!isNonNullType(type) && this.chance(5)) return 'null';
    const nullable = getNullableType(type) as GraphQLInputType;
    if (isListType(nullable)) {
      if (this.chance(20)) return this.value(nullable.ofType, allowVariable);
      const count = this.g(fc.integer, { min: 0, max: 3 });
      return `[${Array.from({ length: count }, () => this.value(nullable.ofType, allowVariable)).join(', ')}]`;
    }
    if (isInputObjectType(nullable)) {
      const fields = Object.values(nullable.getFields()).filter(
        (field) => (isNonNullType(field.type) && field.defaultValue === undefined) || this.chance(50),
      );
      return `{ ${fields.map((field) => `${field.name}: ${this.value(field.type, allowVariable)}`).join(', ')} }`;
    }
    if (isEnumType(nullable)) return this.pick(nullable.getValues()).name;
    return JSON.stringify(this.scalar(nullable.name));
  }

  /** A JSON value of `type`, as a client sends it in `variables`. */
  private json(type: GraphQLInputType): unknown {
    if (!isNonNullType(type) && this.chance(5)) return null;
    const nullable = getNullableType(type) as GraphQLInputType;
    if (isListType(nullable)) {
      if (this.chance(20)) return this.json(nullable.ofType);
      return Array.from({ length: this.g(fc.integer, { min: 0, max: 3 }) }, () => this.json(nullable.ofType));
    }
    if (isInputObjectType(nullable)) {
      const entries = Object.values(nullable.getFields())
        .filter((field) => (isNonNullType(field.type) && field.defaultValue === undefined) || this.chance(50))
        .map((field) => [field.name, this.json(field.type)]);
      return Object.fromEntries(entries);
    }
    if (isEnumType(nullable)) return this.pick(nullable.getValues()).name;
    return this.scalar(nullable.name);
  }

  private scalar(name: string): unknown {
    switch (name) {
      case 'Int':
        return this.pick([0, 1, 2, 3, 5, -1, 101]);
      case 'Long':
        return this.pick([0, 1, 1024]);
      case 'Float':
        return this.pick([0, 1.5, -2]);
      case 'Boolean':
        return this.chance(50);
      case 'ID':
        // The finished job often: `job(id:)` and `jobCompleted(id:)` then answer with data.
        return this.chance(30) ? JOB_ID : this.pick([...this.pools.ids, 'garbage', '0123456789abcdef0123456789abcdef']);
      case 'Uuid':
        return this.pick([...this.pools.uuids, '0123456789abcdef0123456789abcdef']);
      case 'DateTime':
        return this.pick(['2024-01-01T00:00:00Z', '2030-06-15T12:30:00.000Z']);
      case 'JSON':
        return this.pick([{ a: 1 }, [1, 'two'], 'text']);
      default:
        return this.pick(this.pools.strings);
    }
  }

  /**
   * A variable for a position of type `type`: of the same type, of its non-null form, or nullable
   * with a default where the position is non-null; sent, left out (to take its default), or null.
   */
  private variable(type: GraphQLInputType): string {
    const name = `v${++this.variableCount}`;
    const nullable = getNullableType(type) as GraphQLInputType;
    const nonNullPosition = isNonNullType(type);
    const shape = this.pick(nonNullPosition ? (['same', 'same', 'defaulted'] as const) : (['same', 'same', 'nonNull'] as const));
    const typeText = shape === 'defaulted' ? nullable.toString() : shape === 'nonNull' ? `${nullable.toString()}!` : type.toString();
    let defaultText = '';
    if (shape === 'defaulted' || this.chance(35)) defaultText = ` = ${this.value(shape === 'defaulted' || typeText.endsWith('!') ? new GraphQLNonNull(nullable) : nullable, false)}`;
    this.definitions.push(`$${name}: ${typeText}${defaultText}`);
    const send = defaultText === '' ? this.chance(90) : this.chance(50);
    if (send) this.variables[name] = !typeText.endsWith('!') && this.chance(10) ? null : this.json(nullable);
    return `$${name}`;
  }

  private directive(): string {
    const name = this.pick(['include', 'skip']);
    if (!this.withVariables || this.chance(40)) return `@${name}(if: ${this.chance(50)})`;
    return `@${name}(if: ${this.variable(new GraphQLNonNull(this.schema.getType('Boolean') as GraphQLScalarType))})`;
  }

  private selectionSet(type: GraphQLCompositeType, depth: number): string {
    const parts: string[] = [];
    if (isAbstractType(type)) {
      if (this.chance(60)) parts.push('__typename');
      if (isInterfaceType(type)) parts.push(...this.fields(type, depth, 2));
      const possible = this.schema.getPossibleTypes(type);
      const chosen = this.g(fc.integer, { min: 1, max: Math.min(3, possible.length) });
      for (let i = 0; i < chosen; i++) parts.push(this.fragment(this.pick(possible), depth));
      if (this.chance(30)) parts.push(...this.fields(type, depth, 2));
      return parts.join(' ');
    }
    parts.push(...this.fields(type, depth, 4));
    // Fragments anywhere among the fields: the answer keeps the document's order.
    const fragments = this.chance(25) ? this.g(fc.integer, { min: 1, max: 2 }) : 0;
    for (let i = 0; i < fragments; i++) parts.splice(this.g(fc.integer, { min: 0, max: parts.length }), 0, this.fragment(type, depth));
    if (this.chance(10)) parts.push('__typename');
    return parts.join(' ');
  }

  /** 1 to `max` fields of `type`; below depth 3 only leaves. */
  private fields(type: GraphQLCompositeType, depth: number, max: number): string[] {
    if (!('getFields' in type)) return [];
    const all = Object.values(type.getFields());
    const leaves = all.filter((field) => isLeafType(getNamedType(field.type)));
    const candidates = depth >= 3 || leaves.length === 0 ? (leaves.length > 0 ? leaves : all) : all;
    const count = this.g(fc.integer, { min: 1, max });
    const used = new Set<string>();
    return Array.from({ length: count }, () => {
      const chosen = this.chance(60) && leaves.length > 0 ? this.pick(leaves) : this.pick(candidates);
      return this.field(chosen, depth, true, used);
    });
  }

  /** A selection of `type` as an inline fragment or a named one, maybe under @include/@skip. */
  private fragment(type: GraphQLObjectType, depth: number): string {
    const directive = this.chance(20) ? ` ${this.directive()}` : '';
    const body = this.fields(type, depth, 3).join(' ');
    if (this.chance(60)) return `... on ${type.name}${directive} { ${body} }`;
    const name = `${this.fragmentPrefix}${this.fragments.length + 1}`;
    this.fragments.push(`fragment ${name} on ${type.name} { ${body} }`);
    return `...${name}${directive}`;
  }
}

function generateDocument(g: Gen, schema: GraphQLSchema, pools: Pools): GeneratedDocument {
  const writer = new DocumentWriter(g, schema, pools, true);
  const kind = g(fc.integer, { min: 0, max: 99 }) < 10 ? 'subscription' : 'query';
  const main = writer.operation(kind, 'Main');
  // A second operation in the same document: a request runs the one it names.
  if (kind === 'query' && g(fc.integer, { min: 0, max: 99 }) < 10) {
    const otherWriter = new DocumentWriter(g, schema, pools, false, 'G');
    const other = otherWriter.operation('query', 'Other');
    const query = [main, other, ...writer.fragments, ...otherWriter.fragments].join('\n');
    return {
      kind,
      requests: [
        { query, variables: writer.variables, operationName: 'Main' },
        { query, variables: {}, operationName: 'Other' },
      ],
    };
  }
  return { kind, requests: [{ query: [main, ...writer.fragments].join('\n'), variables: writer.variables }] };
}

/** Status, data and errors (in a stable order: graphql-js's follows resolver timing) of an answer. */
interface Answer {
  status: number;
  body: unknown;
}

function normalize(text: string, job: FinishedJob, stream: boolean): unknown {
  const replaced = text.replaceAll(job.id, JOB_ID).replaceAll(job.createdAt, 'CREATED_AT').replaceAll(job.finishedAt, 'FINISHED_AT');
  if (stream && /^event: /m.test(replaced)) return sseEvents(replaced).map(sortErrors);
  return sortErrors(JSON.parse(replaced));
}

/**
 * What may differ between two answers of one engine too: the order of errors (graphql-js's follows
 * resolver timing), cursors (they hold their expiry) and the cost budget left (it refills by time).
 */
function sortErrors(result: unknown): unknown {
  const body = result as { errors?: unknown[]; extensions?: { cost?: { throttleStatus?: { currentlyAvailable?: unknown } } } };
  if (Array.isArray(body.errors)) body.errors = body.errors.map((error) => JSON.stringify(error)).sort();
  if (body.extensions?.cost?.throttleStatus) delete body.extensions.cost.throttleStatus.currentlyAvailable;
  return withoutCursors(body);
}

function withoutCursors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCursors);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, /cursor/i.test(key) && typeof field === 'string' ? 'CURSOR' : withoutCursors(field)]),
  );
}

interface FinishedJob {
  id: string;
  createdAt: string;
  finishedAt: string;
}

interface Gateway {
  app: App;
  url: string;
  job: FinishedJob;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  accept = 'application/graphql-response+json, application/json',
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** The results of a finished SSE stream (a `jobCompleted` subscription completes by itself). */
function sseEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((event) => /^event: next$/m.test(event))
    .map((event) => JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as unknown);
}

async function answer(gateway: Gateway, headers: CredentialHeaders, kind: GeneratedDocument['kind'], request: Request): Promise<Answer> {
  const withJob = JSON.parse(JSON.stringify(request).replaceAll(JOB_ID, gateway.job.id)) as Request;
  if (kind === 'subscription') {
    const { status, text } = await post(gateway.url, headers, withJob, 'text/event-stream');
    return { status, body: normalize(text, gateway.job, true) };
  }
  const { status, text } = await post(gateway.url, headers, withJob);
  return { status, body: normalize(text, gateway.job, false) };
}

describe('the default execution engine against graphql-js', () => {
  let simulator: Simulator;
  let headers: CredentialHeaders;
  let jit: Gateway;
  let js: Gateway;
  let schema: GraphQLSchema;
  let pools: Pools;

  async function startGateway(config: Partial<GatewayConfig>): Promise<Gateway> {
    const upstreamUrl = simulator.url;
    const app = createApp(
      // A budget no run of the test exhausts: a refusal would be the same on both sides, and compare nothing.
      { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl, costBudget: 1_000_000_000, costBudgetRefill: 1_000_000_000, ...config },
      { logger: pino({ level: 'silent' }) },
    );
    const url = await app.start();
    const job = await finishedJob(url);
    return { app, url, job };
  }

  /** A job finished on this gateway (each keeps its own): the same write, on the same host. */
  async function finishedJob(url: string): Promise<FinishedJob> {
    const host = [...simulator.store.hosts.list(simulator.credentials.tenantId)].find((candidate) => candidate.status === 'Connected')!;
    const { text } = await post(url, headers, {
      query: 'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id createdAt finishedAt } } }',
      variables: { input: { uuid: host.uuid, nqn: host.nqn ?? 'nqn.2014-08.org.nvmexpress:uuid:00000001-0000-4000-8000-000000000000' } },
    });
    return (JSON.parse(text) as { data: { updateHostNqn: { job: FinishedJob } } }).data.updateHostNqn.job;
  }

  /** Ids, uuids and names of the estate's records, read through each top-level connection. */
  async function collectPools(): Promise<Pools> {
    const found: Pools = { ids: [], uuids: [], strings: ['', 'abc', 'Connected', 'Running', 'Enabled'] };
    const queryType = schema.getQueryType()!;
    for (const field of Object.values(queryType.getFields())) {
      const nodes = (getNamedType(field.type) as GraphQLObjectType).getFields?.().nodes;
      if (!nodes) continue;
      const item = getNamedType(nodes.type) as GraphQLObjectType;
      const wanted = ['id', 'uuid', 'name'].filter((name) => item.getFields()[name]);
      const { text } = await post(js.url, headers, { query: `{ list: ${field.name}(first: 2) { nodes { ${wanted.join(' ')} } } }` });
      const records = (JSON.parse(text) as { data?: { list?: { nodes: Record<string, string>[] } | null } }).data?.list?.nodes ?? [];
      for (const record of records) {
        if (record.id) found.ids.push(record.id);
        if (record.uuid) found.uuids.push(record.uuid);
        if (record.name) found.strings.push(record.name);
      }
    }
    return found;
  }

  beforeAll(async () => {
    // A small estate: every kind of record, pages of a few, so a few hundred documents take seconds.
    simulator = createSimulator({ asyncDelayMs: 5, vms: 30, hosts: 4 });
    await simulator.start(0, '127.0.0.1');
    headers = credentialHeaders(simulator.credentials);
    schema = buildClientSchema(introspectionFromSchema(builtSchema));
    [jit, js] = await Promise.all([startGateway({}), startGateway({ graphqlJit: false })]);
    pools = await collectPools();
  });

  afterAll(async () => {
    await Promise.all([jit?.app.stop(), js?.app.stop()]);
    await simulator?.stop();
  });

  it('answers a few hundred generated documents exactly as graphql-js does', { timeout: 120_000 }, async () => {
    const documents = fc.sample(
      fc.gen().map((g) => generateDocument(g, schema, pools)),
      { seed: SEED, numRuns: RUNS },
    );
    const mismatches: { request: Request; jit: Answer; js: Answer }[] = [];
    let requests = 0;
    const onGraphqlJs = new Map<string, number>();
    let subscriptions = 0;
    let invalid = 0;
    let withData = 0;
    const queue = [...documents];
    const worker = async (): Promise<void> => {
      for (let generated = queue.shift(); generated; generated = queue.shift()) {
        if (generated.kind === 'subscription') subscriptions++;
        const first = generated.requests[0]!;
        const document = parse(first.query);
        if (validate(builtSchema, document).length > 0) {
          invalid++;
        } else {
          const reason = graphqlJsReason(builtSchema, document, first.operationName ?? null, first.variables);
          if (reason !== null) onGraphqlJs.set(reason, (onGraphqlJs.get(reason) ?? 0) + 1);
        }
        for (const request of generated.requests) {
          requests++;
          const [fromJit, fromJs] = await Promise.all([answer(jit, headers, generated.kind, request), answer(js, headers, generated.kind, request)]);
          if (JSON.stringify(fromJs).includes('"data":{')) withData++;
          if (JSON.stringify(fromJit) !== JSON.stringify(fromJs)) mismatches.push({ request, jit: fromJit, js: fromJs });
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const routed = [...onGraphqlJs.values()].reduce((sum, count) => sum + count, 0);
    const valid = documents.length - invalid;
    console.info(
      `engine differential (seed ${SEED}): compared ${documents.length} documents (${requests} requests, ${subscriptions} subscriptions, ` +
        `${withData} answers with data, ${invalid} documents refused by validation); of the ${valid} valid, ${routed} ` +
        `(${((100 * routed) / valid).toFixed(1)}%) run on graphql-js (${[...onGraphqlJs].map(([reason, count]) => `${reason}: ${count}`).join(', ')}); ` +
        `${mismatches.length} answered differently`,
    );
    expect(documents.length).toBe(RUNS);
    expect({ answeredDifferently: mismatches.length, first: mismatches.slice(0, 3) }).toEqual({ answeredDifferently: 0, first: [] });
  });
});
