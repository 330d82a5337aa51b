/**
 * What kind of request or execution an operation is, told by the part that makes it so and read
 * by the plugins that treat it apart: one neutral module, so that no plugin imports another.
 *
 * - A live query's run (`live/use-live-query.ts` marks it): the cost gate lets it
 *   through (each run is charged on its own), and operation coalescing keys it with the
 *   invalidation generation it started at, so a run never joins one that started before the
 *   change that woke it.
 * - A request whose text may hold a live query: the response cache neither serves nor keeps it.
 * - A shared subscription's execution (`subscriptions/shared-subscriptions.ts`): its subscribers are
 *   counted one by one, so metrics, the cost gate and the subscription limits pass it by.
 * - A request asking for an answer that lasts as long as its subscription (SSE, Apollo's
 *   multipart): counted by the subscription limits, cut at shutdown.
 *
 * Each mark lives in a WeakMap or WeakSet keyed by the context (or the request), so it goes with
 * it; but for the shared execution's, a property of the context itself, because a graphql-ws
 * execution goes through the whole pipeline again with a copy of the context it was started with.
 */

const liveRuns = new WeakMap<object, string | undefined>();
const maybeLiveRequests = new WeakSet<Request>();
const SHARED_EXECUTION = Symbol('sharedExecution');

/** Marks `context` as a live query's: its runs are charged one by one. */
export function markLiveExecution(context: object): void {
  if (!liveRuns.has(context)) liveRuns.set(context, undefined);
}

/** Whether an execution is a live query's. */
export function isLiveExecution(context: unknown): boolean {
  return typeof context === 'object' && context !== null && liveRuns.has(context);
}

/** Records the invalidation generation the live query's run under way started at. */
export function setLiveRunGeneration(context: object, generation: string): void {
  liveRuns.set(context, generation);
}

/** The generation the live run of `context` started at; undefined outside live runs. */
export function liveRunGeneration(context: unknown): string | undefined {
  return typeof context === 'object' && context !== null ? liveRuns.get(context) : undefined;
}

/** Marks a request whose text may hold a live query (`@live`). */
export function markMaybeLiveRequest(request: Request): void {
  maybeLiveRequests.add(request);
}

/** Whether `request`'s operation may be a live query, for the response cache. */
export function mayBeLiveRequest(request: Request): boolean {
  return maybeLiveRequests.has(request);
}

/** Marks the context of a shared subscription execution. */
export function markSharedExecution(context: object): void {
  Object.assign(context, { [SHARED_EXECUTION]: true });
}

/** Whether a context is a shared execution's (its subscribers are counted one by one elsewhere). */
export function isSharedExecution(context: unknown): boolean {
  return typeof context === 'object' && context !== null && (context as { [SHARED_EXECUTION]?: true })[SHARED_EXECUTION] === true;
}

/** Whether an `Accept` header asks for Apollo's multipart subscriptions. */
export function acceptsMultipartSubscriptions(accept: string | null): boolean {
  if (accept === null) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    return type === 'multipart/mixed' && params.some((param) => param.replace(/"/g, '') === 'subscriptionspec=1.0');
  });
}

/**
 * Whether an `Accept` header asks for an answer that lasts as long as its subscription: SSE, or
 * Apollo's multipart. Such requests are counted by the subscription limits and cut at shutdown.
 */
export function acceptsSubscriptionStream(accept: string | null): boolean {
  return accept !== null && (accept.includes('text/event-stream') || acceptsMultipartSubscriptions(accept));
}
