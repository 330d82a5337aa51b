/**
 * The settings that decide what an operation may do before it runs: its shape (`limits`), its
 * cost and a credential's budget (`cost`), calls under credentials not yet accepted and the
 * client's address (`callers`), and how many operations run at once (`admission`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { fraction, integer, milliseconds, proxies } from '../parsers.js';
import { none, setting } from '../declaration.js';

export const admissionSettings = Object.freeze({
  maxDepth: setting({
    variable: 'MAX_DEPTH',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 12,
    description: 'Deepest field nesting of an operation (introspection\'s `__schema` excepted).',
  }),
  maxAliases: setting({
    variable: 'MAX_ALIASES',
    group: 'limits',
    parser: integer(0, 100_000),
    default: 30,
    description: 'Aliases in one operation, fragments included.',
  }),
  maxTokens: setting({
    variable: 'MAX_TOKENS',
    group: 'limits',
    parser: integer(10, 10_000_000),
    default: 1_000,
    description: 'Lexical tokens in one document (names, punctuation, values).',
  }),
  maxDirectives: setting({
    variable: 'MAX_DIRECTIVES',
    group: 'limits',
    parser: integer(0, 100_000),
    default: 50,
    description: 'Directives in one operation.',
  }),
  maxIntrospectionSchemas: setting({
    variable: 'MAX_INTROSPECTION_SCHEMAS',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 1,
    description: '`__schema` fields in one operation, fragments included (`__type` lookups are bounded by the cost limit).',
  }),
  maxMutations: setting({
    variable: 'MAX_MUTATIONS',
    group: 'limits',
    parser: integer(1, 1_000),
    default: 10,
    description: 'Mutations (root fields, aliases and fragments included) in one operation; more are refused with `BAD_USER_INPUT` before any upstream call.',
  }),

  maxCost: setting({
    variable: 'MAX_COST',
    group: 'cost',
    parser: integer(1, 1_000_000_000),
    default: 100_000,
    description: 'Largest requested cost (in records) of one operation; a costlier one is refused with `MAX_COST_EXCEEDED` before it runs.',
  }),
  costBudget: setting({
    variable: 'COST_BUDGET',
    group: 'cost',
    parser: integer(0, 1_000_000_000),
    default: 200_000,
    description: 'Cost points a credential\'s budget holds when full (one budget over every replica with `REDIS_URL`); `0` turns budgets off.',
  }),
  costBudgetRefill: setting({
    variable: 'COST_BUDGET_REFILL',
    group: 'cost',
    parser: integer(1, 1_000_000_000),
    default: 5_000,
    description: 'Cost points a credential\'s budget regains per second.',
  }),
  upstreamCallCost: setting({
    variable: 'UPSTREAM_CALL_COST',
    group: 'cost',
    parser: integer(0, 1_000_000),
    default: 10,
    description: 'Cost points of each upstream call a field may cause of its own (per id of `node`/`nodes`, per parent of a relation the spec gives no batch form).',
  }),

  rejectedCredentialTtlMs: setting({
    variable: 'REJECTED_CREDENTIAL_TTL_MS',
    group: 'callers',
    parser: milliseconds(0, 86_400_000),
    default: 60_000,
    description: 'How long calls under a credential the upstream rejected fail at once (`UNAUTHENTICATED`, no upstream request); `0` remembers none.',
  }),
  rememberedCredentials: setting({
    variable: 'REMEMBERED_CREDENTIALS',
    group: 'callers',
    parser: integer(1, 10_000_000),
    default: 10_000,
    description: 'Credentials remembered as accepted, and as rejected, at most (least recently used forgotten first).',
  }),
  unverifiedCallsPerAddress: setting({
    variable: 'UNVERIFIED_CALLS_PER_ADDRESS',
    group: 'callers',
    parser: integer(0, 1_000_000),
    default: 20,
    description: 'Upstream calls a client address may make in a burst under credentials the upstream has not accepted yet (more: `RATE_LIMITED`); `0` turns this budget off.',
  }),
  unverifiedCallsPerMinute: setting({
    variable: 'UNVERIFIED_CALLS_PER_MINUTE',
    group: 'callers',
    parser: integer(0, 1_000_000),
    default: 60,
    description: 'Such calls an address regains per minute.',
  }),
  trustedProxies: setting({
    variable: 'TRUSTED_PROXIES',
    group: 'callers',
    parser: proxies(),
    default: none,
    unset: 'the socket\'s peer is the client',
    description: 'Proxies whose `X-Forwarded-For` names the client address.',
  }),

  maxConcurrentOperations: setting({
    variable: 'MAX_CONCURRENT_OPERATIONS',
    group: 'admission',
    parser: integer(1, 100_000),
    default: 256,
    description: 'Ceiling of the GraphQL operations over HTTP admitted to run at once; the limit adapts below it.',
  }),
  maxQueuedOperations: setting({
    variable: 'MAX_QUEUED_OPERATIONS',
    group: 'admission',
    parser: integer(0, 1_000_000),
    default: 1_000,
    description: 'Operations that may wait for admission; more are refused with 503 `OVERLOADED`.',
  }),
  admissionTargetUtilization: setting({
    variable: 'ADMISSION_TARGET_UTILIZATION',
    group: 'admission',
    parser: fraction(),
    default: 0.9,
    description:
      'Event-loop utilization (the share of each 100 ms the loop runs code) at or above which the admission limit shrinks; `0` keeps the limit at `MAX_CONCURRENT_OPERATIONS`.',
  }),
});
