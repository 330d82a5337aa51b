/**
 * The `/__sim/*` control surface, for tests, demos and the bench: the request counts and journal
 * (`stats`, `requests`, `reset`), the behaviour adjustable at run time (`config`), more sessions of
 * a tenant (`sessions`) and the estate's own changes (`churn`). Not part of the upstream service:
 * never counted, never faulted, never authenticated.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TenantCredentials } from './authentication.js';
import { parseBody, readBody } from './body.js';
import { readChurnRequest, type Churn } from '../churn.js';
import { SimBadRequest } from '../errors.js';
import { sendJson, sendText } from './io.js';
import type { Journal } from './journal.js';
import type { Tenant } from '../model.js';
import type { SimulatorStore } from '../store.js';
import { isPlainObject } from '../writes/arguments.js';

/** Runtime-adjustable behaviour (`POST /__sim/config`). */
export interface SimulatorConfig {
  latencyMs: number;
  faultRate: number;
  asyncDelayMs: number;
  dropWebhooks: boolean;
  /**
   * Jobs that come due wait, still running when polled, until it is set false again: then they
   * finish at once, in the order they came due. A test (or a demo) decides when the upstream's
   * jobs finish instead of racing a delay.
   */
  holdJobs: boolean;
}

/** What the control surface reads and changes. */
export interface Controlled {
  readonly store: SimulatorStore;
  /** The first and the second tenant. */
  readonly tenants: readonly [Tenant, Tenant];
  readonly journal: Journal;
  readonly churn: Churn;
  config(): SimulatorConfig;
  configure(patch: Partial<SimulatorConfig>): void;
}

/** Answers one `/__sim/*` request: 404 for an unknown control, 405 for a wrong method, 400 for a bad body. */
export async function handleControl(controlled: Controlled, request: IncomingMessage, response: ServerResponse, requestUrl: URL): Promise<void> {
  const { journal, churn } = controlled;
  const method = request.method ?? 'GET';
  // `?operation=` narrows the journal to one operation: a caller polling it stays cheap.
  const operation = requestUrl.searchParams.get('operation');
  const raw = await readBody(request);
  /** A POST control whose body must be a JSON object (an empty body reads as `{}`): 400 otherwise. */
  const withObjectBody = (handle: (body: Record<string, unknown>) => void) => () => {
    const { body, error } = parseBody(raw);
    if (error !== null || !isPlainObject(body)) {
      sendText(response, 400, error ?? 'The body must be a JSON object');
      return;
    }
    handle(body);
  };
  const controls: Record<string, [string, () => void]> = {
    '/__sim/stats': ['GET', () => sendJson(response, 200, { ...journal.stats() })],
    '/__sim/reset': [
      'POST',
      () => {
        journal.reset();
        sendJson(response, 200, {});
      },
    ],
    '/__sim/requests': [
      'GET',
      () => {
        const entries = journal.entries();
        sendJson(response, 200, { requests: operation === null ? entries : entries.filter((entry) => entry.operation === operation) });
      },
    ],
    '/__sim/config': [
      'POST',
      withObjectBody((body) => {
        controlled.configure(readConfigPatch(body));
        sendJson(response, 200, { ...controlled.config() });
      }),
    ],
    '/__sim/sessions': ['POST', withObjectBody((body) => sendJson(response, 200, { credentials: addSessions(controlled, body) }))],
    '/__sim/churn': [
      'POST',
      withObjectBody((body) => {
        const { apply, spec } = readChurnRequest(body);
        if (spec !== null) churn.setSpec(spec);
        const changes = apply === null ? [] : churn.apply(apply);
        sendJson(response, 200, { changes, ...churn.spec() });
      }),
    ],
  };
  const control = controls[requestUrl.pathname];
  if (control === undefined) {
    sendText(response, 404, 'Not Found');
  } else if (control[0] !== method) {
    sendText(response, 405, 'Method Not Allowed');
  } else {
    control[1]();
  }
}

/**
 * `POST /__sim/sessions` `{count, tenant}`: `count` more sessions and bearer tokens of the first
 * (or second) tenant, as many logins of one account would hold: each a credential of its own.
 */
function addSessions({ store, tenants }: Controlled, body: Record<string, unknown>): TenantCredentials[] {
  const { count = 1, tenant: which = 'first' } = body;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000) throw new SimBadRequest('count must be an integer from 1 to 10000');
  if (which !== 'first' && which !== 'second') throw new SimBadRequest('tenant must be "first" or "second"');
  const tenant = which === 'first' ? tenants[0] : tenants[1];
  const added: TenantCredentials[] = [];
  for (let index = 0; index < count; index++) {
    const session = randomBytes(16).toString('hex');
    const token = `simtok-${randomBytes(20).toString('hex')}`;
    store.extraSessions.set(session, tenant);
    store.extraTokens.set(token, tenant);
    added.push({ session, token, tenantId: tenant.id });
  }
  return added;
}

/** The changes a `POST /__sim/config` body asks for; a `SimBadRequest` (400 text) for a value out of range. */
function readConfigPatch(body: Record<string, unknown>): Partial<SimulatorConfig> {
  const patch: Partial<SimulatorConfig> = {};
  const nonNegative = (name: 'latencyMs' | 'asyncDelayMs') => {
    const value = body[name];
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new SimBadRequest(`${name} must be a non-negative number`);
    }
    patch[name] = value;
  };
  nonNegative('latencyMs');
  nonNegative('asyncDelayMs');
  if (body.faultRate !== undefined) {
    if (typeof body.faultRate !== 'number' || !(body.faultRate >= 0 && body.faultRate <= 1)) {
      throw new SimBadRequest('faultRate must be a number between 0 and 1');
    }
    patch.faultRate = body.faultRate;
  }
  for (const name of ['dropWebhooks', 'holdJobs'] as const) {
    const value = body[name];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new SimBadRequest(`${name} must be true or false`);
    patch[name] = value;
  }
  return patch;
}
