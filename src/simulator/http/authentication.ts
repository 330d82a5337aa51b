/**
 * Who is calling, as each family of the service tells it: the resource family by a session
 * (`Authorization: OAuth <session>`), the cursor family by a bearer token and an optional
 * `X-Tenant-ID`. A caller not recognised gets the family's own answer, and no tenant.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorCode } from '../errors.js';
import { header, sendJson, sendText } from './io.js';
import type { Tenant } from '../model.js';
import type { SimulatorStore } from '../store.js';

/** What a tenant's caller authenticates with in each family. */
export interface TenantCredentials {
  /** Resource family: `Authorization: OAuth <session>`. */
  session: string;
  /** Cursor family: `Authorization: Bearer <token>`. */
  token: string;
  /** Cursor family: `X-Tenant-ID`. */
  tenantId: string;
}

/** Resource family: `Authorization: OAuth <session>`; answers and returns undefined when it is missing or unknown. */
export function authenticateResourceFamily(store: SimulatorStore, request: IncomingMessage, response: ServerResponse): Tenant | undefined {
  const authorization = header(request, 'authorization');
  if (authorization === undefined || authorization.trim() === '') {
    sendText(response, 400, 'Missing the Authorization header: Authorization: OAuth <session uuid>');
    return undefined;
  }
  const match = /^OAuth\s+(\S+)\s*$/i.exec(authorization);
  const tenant = match === null ? undefined : store.tenantBySession(match[1] ?? '');
  if (tenant === undefined) {
    sendJson(response, 503, {
      error: errorCode('ID.1001', 'The session is invalid, please login again', `Invalid session[${authorization}]`),
    });
  }
  return tenant;
}

/** Cursor family: `Authorization: Bearer <token>` and optional `X-Tenant-ID`; answers and returns undefined when they do not match. */
export function authenticateCursorFamily(store: SimulatorStore, request: IncomingMessage, response: ServerResponse): Tenant | undefined {
  const authorization = header(request, 'authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const tenant = match === null ? undefined : store.tenantByToken(match[1] ?? '');
  if (tenant === undefined) {
    sendJson(response, 401, {
      error: errorCode('ID.1001', 'Missing or invalid bearer token', 'Send Authorization: Bearer <token>'),
    });
    return undefined;
  }
  const tenantId = header(request, 'x-tenant-id');
  if (tenantId !== undefined && tenantId !== '' && tenantId !== tenant.id) {
    sendJson(response, 403, {
      error: errorCode('ID.1002', 'Permission denied', `The token does not belong to tenant ${tenantId}`),
    });
    return undefined;
  }
  return tenant;
}
