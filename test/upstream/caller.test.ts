/**
 * The caller, worked out once per request: every per-caller key the gateway keeps (budgets, the
 * response cache's session, live scopes, shared subscriptions, coalescing, job owners) reads it,
 * so two spellings of one session are one caller everywhere, and two callers never share a key.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callerOfRequest, webSocketCaller } from '../../src/context.js';
import { Caller, ownerOf } from '../../src/upstream/credentials.js';

const SESSION = 'OAuth 0123456789abcdef0123456789abcdef';

describe('the caller of a request', () => {
  it('is one key for every spelling of the same credentials, and another for another tenant', () => {
    const a = new Caller({ authorization: SESSION }, { authorization: 'Bearer t', tenantId: 'x' });
    const respelled = new Caller({ authorization: ` oauth   ${SESSION.slice(6)} ` }, { authorization: 'bearer t', tenantId: ' x ' });
    const otherTenant = new Caller({ authorization: SESSION }, { authorization: 'Bearer t', tenantId: 'y' });
    expect(respelled.key).toBe(a.key);
    expect(otherTenant.key).not.toBe(a.key);
    expect(a.key).toMatch(/^[0-9a-f]{64}$/);
    // The key is a digest: no credential in it.
    expect(a.key).not.toContain('0123456789abcdef0123456789abcdef');
  });

  it('keeps the job owner digest jobs were stored under, and has none without a resource credential', () => {
    const caller = new Caller({ authorization: SESSION }, undefined);
    expect(caller.owner).toBe(ownerOf({ authorization: SESSION }));
    expect(caller.owner).toBe(createHash('sha256').update(`svc oauth ${SESSION.slice(6)}`).digest('hex'));
    expect(new Caller(undefined, { authorization: 'Bearer t' }).owner).toBeUndefined();
    expect(new Caller(undefined, undefined).anonymous).toBe(true);
  });

  it('is one object per HTTP request, read from its headers, whoever asks first', () => {
    const request = new Request('http://gateway/graphql', { headers: { authorization: SESSION, 'x-resources-authorization': 'Bearer t', 'x-tenant-id': 'x' } });
    const first = callerOfRequest(request);
    expect(callerOfRequest(request)).toBe(first);
    expect(first.cursor).toEqual({ authorization: 'Bearer t', tenantId: 'x' });
    expect(callerOfRequest(new Request('http://gateway/graphql')).anonymous).toBe(true);
  });

  it('over WebSocket, comes from connectionParams, else from the upgrade request\'s headers, never a mix', () => {
    const fromParams = webSocketCaller({ Authorization: SESSION }, { 'x-resources-authorization': 'Bearer t' });
    expect([fromParams.resource, fromParams.cursor]).toEqual([{ authorization: SESSION }, undefined]);
    const fromHeaders = webSocketCaller({}, { authorization: SESSION, 'x-resources-authorization': 'Bearer t' });
    expect(fromHeaders.cursor).toEqual({ authorization: 'Bearer t', tenantId: undefined });
  });
});
