/**
 * How a setting is declared (`settings/` holds the table, a module per few sections): its
 * variable, section, parser, default and description, and the sections of the reference page.
 */
import type { Parser } from './parsers.js';

/**
 * The upstream section's introduction: the two families, and the three public names older than
 * their wording, said once here for operators.
 */
const UPSTREAM_ABOUT =
  'The infrastructure management service the gateway federates, and how it is called. It has two API families: the resource family (`svc/v1/...`, `Authorization: OAuth <session>`) and the cursor family (`/api/v1/resources/cursor-query` and `cursor-next`, a bearer token and `X-Tenant-ID`). The code calls them by those two names only. Three public names are older than that wording and stay as they are, because deployments and clients already use them: `UPSTREAM_URL` is the resource family\'s base URL, `RESOURCES_URL` the cursor family\'s origin, and a client sends its cursor-family token in `X-Resources-Authorization`.';

/** The simulator section's introduction: which command reads which of its settings. */
const SIMULATOR_ABOUT =
  'The simulator of the upstream service: `npm run simulator` reads all of these; `npm start` without `UPSTREAM_URL` reads them for its embedded demo, all but `PORT` and `SIM_HOST` (the demo listens on a free loopback port).';

/** The sections of the reference page, in its order: a title, and what the settings under it are about. */
export const SETTING_GROUPS = {
  server: { title: 'Server', about: 'Where the gateway listens, what it serves besides the API, and how it logs.' },
  connections: { title: 'Requests and connections', about: 'How long a client may take, how large its requests may be, and how the gateway stops.' },
  upstream: { title: 'Upstream', about: UPSTREAM_ABOUT },
  jobs: { title: 'Jobs', about: 'The upstream\'s asynchronous jobs behind mutations: waiting, polling, keeping.' },
  redis: { title: 'Redis', about: 'Shared state, so that several replicas act as one.' },
  limits: { title: 'Operation limits', about: 'The shape of an operation, checked before it runs: an operation over a limit makes no upstream request.' },
  cost: { title: 'Cost and budgets', about: 'What an operation may cost, and how much a credential may spend over time.' },
  callers: { title: 'Credentials and client addresses', about: 'Calls under credentials the upstream has not accepted, and how the client address is known.' },
  admission: { title: 'Admission', about: 'How many operations run at once, adapted to how busy the process is.' },
  subscriptions: { title: 'Subscriptions and WebSockets', about: 'Open subscriptions, and what a WebSocket may hold.' },
  live: { title: 'Live queries', about: '`@live` queries and the upstream change feed that wakes them.' },
  performance: { title: 'Performance', about: 'Caching, sharing and compiling work; each can be turned off.' },
  cursors: { title: 'Cursors', about: 'The sealed connection cursors, and the upstream cursors they stand for.' },
  tracing: { title: 'Tracing', about: 'OpenTelemetry, through the SDK\'s standard variables: tracing is off unless an exporter or endpoint is set.' },
  simulator: { title: 'Simulator', about: SIMULATOR_ABOUT },
} as const satisfies Record<string, { readonly title: string; readonly about: string }>;

export type SettingGroup = keyof typeof SETTING_GROUPS;

/** One setting: everything else about it derives from this declaration. */
export interface Setting<V> {
  /** Its environment variable: never renamed (docs/reference/api-promise.md#configuration fixes several). */
  readonly variable: string;
  /** Its section of the reference page. */
  readonly group: SettingGroup;
  /** Reads the variable's text (an unset or empty variable takes `default`). */
  readonly parser: Parser<V>;
  /** The value of an unset variable. */
  readonly default: V;
  /** What an unset variable means, when that is better said in words (nothing set, or derived from elsewhere). */
  readonly unset?: string | undefined;
  /** What it does, for an operator (Markdown, one paragraph). */
  readonly description: string;
}

/** A setting with a default value (of the type its parser reads). */
export function setting<T>(declaration: Omit<Setting<T>, 'default'> & { readonly default: NoInfer<T> }): Setting<T> {
  return Object.freeze(declaration);
}

/** A setting whose absence means something (`unset` says what): its value is `undefined` then. */
export function optional<T>(declaration: Omit<Setting<T>, 'default' | 'unset'> & { readonly unset: string }): Setting<T | undefined> {
  return Object.freeze({ ...declaration, default: undefined });
}

/** The default of a list setting that is empty unless set. */
export const none: readonly string[] = Object.freeze([]);
