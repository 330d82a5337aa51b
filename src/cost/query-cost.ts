/**
 * `createQueryCost`: computes each operation's cost before it runs (see `cost-model.ts`), rejects
 * one above `maxCost` with `MAX_COST_EXCEEDED`, charges the rest to the caller's budget (a token
 * bucket per credential, `RATE_LIMITED` with `retryAfter` when empty; shared by every replica
 * with Redis, `fleet`: `redis-cost-budget.ts`), refunds what the operation did not use, and
 * reports both in `extensions.cost`:
 *
 * ```json
 * { "requestedQueryCost": 151, "actualQueryCost": 37,
 *   "throttleStatus": { "maximumAvailable": 200000, "currentlyAvailable": 199963, "restoreRate": 5000 } }
 * ```
 *
 * Rejections happen before execution: a rejected operation makes no upstream request. An answer
 * served from the response cache is neither charged nor refused (see `QueryCost`). A shared
 * subscription execution (`shared-subscriptions.ts`) is not charged itself: each of its
 * subscribers is, through `admitSubscriber`, before it joins. A live query (`@live`) pays for each
 * of its runs, through `runCharged`. The yoga side, which charges and reports each operation, is
 * `use-query-cost.ts`.
 */
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
} from 'graphql';
import type { GatewayContext } from '../context.js';
import { CostBudget, memoryCostBudgets, type CostBudgets, type ThrottleStatus } from './cost-budget.js';
import type { FleetOptions } from '../execution/credential-places.js';
import { createRedisCostBudgets } from './redis-cost-budget.js';
import { actualCost, requestedCost, type CostInput, type CostModel } from './cost-model.js';

/** Items assumed for a plain list (a list embedded in a record, e.g. a VM's NICs). */
const DEFAULT_LIST_SIZE = 1;
/** Extra points for each mutation field: a write starts an upstream job. */
const DEFAULT_MUTATION_COST = 10;
/** Budgets (and the digests of their keys) kept at most. */
const DEFAULT_MAX_BUDGETS = 10_000;

export interface QueryCostOptions {
  /** Largest requested cost of one operation; above it the operation is rejected with `MAX_COST_EXCEEDED` (`MAX_COST`). */
  maxCost: number;
  /** Points a caller's budget holds when full; `0` turns budgets off (`COST_BUDGET`). */
  costBudget: number;
  /** Points a caller's budget regains per second (`COST_BUDGET_REFILL`). */
  costBudgetRefill: number;
  /** Points per upstream call a field may cause of its own (per id of `nodes`, per parent of a relation with no batch form) (`UPSTREAM_CALL_COST`). */
  upstreamCallCost: number;
  /** Items assumed for a connection page when `first` is omitted (the connections' own default). */
  defaultPageSize: number;
  /** `first` above this counts as this (the field rejects it anyway). */
  maxPageSize: number;
  /** Items assumed for a plain list (a list embedded in a record, e.g. a VM's NICs). @default DEFAULT_LIST_SIZE */
  listSize?: number | undefined;
  /** Extra points for each mutation field: a write starts an upstream job. @default DEFAULT_MUTATION_COST */
  mutationCost?: number | undefined;
  /** Budgets (and the digests of their keys) kept at most, least recently used forgotten first. @default DEFAULT_MAX_BUDGETS */
  maxBudgets?: number | undefined;
  /** Clock for the budgets, for tests. @default Date.now */
  now?: (() => number) | undefined;
  /** Hears every refusal, by its code (metrics). */
  onRefused?: ((code: 'MAX_COST_EXCEEDED' | 'RATE_LIMITED') => void) | undefined;
  /** With Redis: every replica charges the same budgets, kept there (this replica's own while it is unreachable). */
  fleet?: Pick<FleetOptions, 'connection' | 'logger'> | undefined;
}

/** What `extensions.cost` carries. */
export interface CostExtension {
  requestedQueryCost: number;
  actualQueryCost?: number;
  throttleStatus?: ThrottleStatus;
}

/** An operation admitted and charged, until its cost is settled. */
export interface CostCharge {
  readonly input: CostInput;
  /** The requested cost charged. */
  readonly cost: number;
  /** The budget charged. */
  readonly key: string;
  readonly throttle?: ThrottleStatus;
}

export interface QueryCost {
  /**
   * Checks and charges an operation: its charge, the result to answer instead when it may not run,
   * or null when it is not priced (execution rejects it itself).
   */
  admit(args: ExecutionArgs): Promise<CostCharge | ExecutionResult | null>;
  /** Refunds what an execution did not use; its `extensions.cost`. */
  settle(charge: CostCharge, data: ExecutionResult['data']): Promise<CostExtension>;
  /** Checks and charges a subscriber of a shared execution: the refusal to answer it, or null. */
  admitSubscriber(args: ExecutionArgs): Promise<ExecutionResult | null>;
  /** The key of the caller's budget: its `caller.key`, equal for every spelling of its credentials. */
  budgetKeyOf(context: GatewayContext): string;
  /**
   * Runs one execution of a live query (`use-live-query.ts`) as `use-query-cost.ts` runs a query:
   * refused (the refusal answered, `refused: true`, nothing run), or charged its requested cost,
   * run, and refunded what it did not read, with `extensions.cost`. The gate lets live queries
   * through, so that each run pays for itself.
   */
  runCharged(args: ExecutionArgs, execute: (args: ExecutionArgs) => Promise<ExecutionResult>): Promise<{ result: ExecutionResult; refused: boolean }>;
}

/** Whether `admitted` is a charge (the operation may run), not a refusal. */
export function isCharge(admitted: CostCharge | ExecutionResult): admitted is CostCharge {
  return 'input' in admitted;
}

export function createQueryCost(options: QueryCostOptions): QueryCost {
  const { maxCost, costBudget } = options;
  const model: CostModel = {
    defaultPageSize: options.defaultPageSize,
    maxPageSize: options.maxPageSize,
    listSize: options.listSize ?? DEFAULT_LIST_SIZE,
    upstreamCallCost: options.upstreamCallCost,
  };
  const mutationCost = options.mutationCost ?? DEFAULT_MUTATION_COST;
  const maxBudgets = options.maxBudgets ?? DEFAULT_MAX_BUDGETS;
  const budgetKeyOf = (context: GatewayContext): string => context.caller.key;
  const budget = costBudget > 0 ? createBudgets(options, maxBudgets) : null;

  async function admit(args: ExecutionArgs): Promise<CostCharge | ExecutionResult | null> {
    const input = costInput(args);
    if (input === null) return null;
    let cost = requestedCost(input, model);
    if (input.operation.operation === 'mutation') cost += mutationCost * input.operation.selectionSet.selections.length;
    if (cost > maxCost) {
      options.onRefused?.('MAX_COST_EXCEEDED');
      return rejection(
        `This operation may cost ${cost} points, more than the ${maxCost} allowed. Ask for smaller pages (\`first\`) or fewer nested connections.`,
        { code: 'MAX_COST_EXCEEDED', cost: { requestedQueryCost: cost, maximumQueryCost: maxCost }, http: { status: 400 } },
      );
    }
    const key = budgetKeyOf(args.contextValue as GatewayContext);
    if (budget === null) return { input, cost, key };
    const charge = await budget.charge(key, cost);
    if (!charge.granted) {
      options.onRefused?.('RATE_LIMITED');
      return rejection(
        `Rate limited: this operation costs ${cost} points and your budget holds ${charge.status.currentlyAvailable}. Retry in ${charge.retryAfterSeconds} s.`,
        {
          code: 'RATE_LIMITED',
          retryAfter: charge.retryAfterSeconds,
          cost: { requestedQueryCost: cost, throttleStatus: charge.status },
          http: { status: 429, headers: { 'retry-after': String(charge.retryAfterSeconds) } },
        },
      );
    }
    return { input, cost, key, throttle: charge.status };
  }

  async function admitSubscriber(args: ExecutionArgs): Promise<ExecutionResult | null> {
    const admitted = await admit(args);
    return admitted !== null && !isCharge(admitted) ? admitted : null;
  }

  async function settle(admitted: CostCharge, data: ExecutionResult['data']): Promise<CostExtension> {
    let actual = actualCost(admitted.input, data, model);
    if (admitted.input.operation.operation === 'mutation') actual += mutationCost * Object.keys(data ?? {}).length;
    actual = Math.min(actual, admitted.cost);
    const throttle = budget === null ? undefined : await budget.refund(admitted.key, admitted.cost - actual);
    const cost: CostExtension = { requestedQueryCost: admitted.cost, actualQueryCost: actual };
    if (throttle !== undefined) cost.throttleStatus = throttle;
    return cost;
  }

  async function runCharged(args: ExecutionArgs, execute: (args: ExecutionArgs) => Promise<ExecutionResult>): Promise<{ result: ExecutionResult; refused: boolean }> {
    const admitted = await admit(args);
    if (admitted === null) return { result: await execute(args), refused: false };
    if (!isCharge(admitted)) return { result: admitted, refused: true };
    const result = await execute(args);
    return { result: { ...result, extensions: { ...result.extensions, cost: await settle(admitted, result.data) } }, refused: false };
  }

  return { admit, settle, admitSubscriber, budgetKeyOf, runCharged };
}

/** The budgets: in Redis with `fleet` (this process' own as the fallback), else in this process. */
function createBudgets(options: QueryCostOptions, maxBudgets: number): CostBudgets {
  const shape = { capacity: options.costBudget, refillPerSecond: options.costBudgetRefill };
  const local = new CostBudget({ ...shape, maxBuckets: maxBudgets, now: options.now });
  return options.fleet === undefined ? memoryCostBudgets(local) : createRedisCostBudgets({ ...shape, ...options.fleet, fallback: local });
}

function rejection(message: string, extensions: Record<string, unknown>): ExecutionResult {
  return { errors: [new GraphQLError(message, { extensions })] };
}

/**
 * The operation, fragments and coerced variables; null when execution will reject the request
 * itself (no such operation, or variables that do not coerce: `useVariableCoercion` answers
 * those before this plugin runs).
 */
function costInput(args: ExecutionArgs): CostInput | null {
  const operation = getOperationAST(args.document, args.operationName ?? undefined);
  if (!operation) return null;
  const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (coerced.errors !== undefined) return null;
  return { schema: args.schema, operation, fragments: fragmentsOf(args.document), variables: coerced.coerced };
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  }
  return fragments;
}
