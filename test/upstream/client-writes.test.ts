/**
 * The upstream client's writes and job polls over undici's MockAgent: the job headers and body,
 * the polling address from a 202's body or Location header, a synchronous 200, and polls moved
 * onto the configured base.
 */
import { describe, expect, it } from 'vitest';
import { CreateCbtTask, DeleteVolumeSnapshotGroup, UpdateHostNqn } from '../../src/upstream/operations/index.js';
import { JOB, SESSION, TEXT_HEADERS, U1, UP, failure, useMockUpstream } from './mock-upstream.js';

const upstream = useMockUpstream();

describe('writes and jobs', () => {
  it('submits with the job headers and a JSON body, and reads the 202 location from the body', async () => {
    const seen = upstream.capture(UP, 202, { location: `${UP}/svc/v1/api-jobs/${JOB}`, apiTimeout: 1800000 });
    const accepted = await upstream.client.submit(
      SESSION,
      {
        operation: UpdateHostNqn,
        params: { uuid: U1, nqn: 'nqn.2014-08.org:host' },
        jobUuid: JOB,
        webHook: 'http://gateway.test/webhooks/upstream',
      },
      { requestId: 'req-3' },
    );
    expect(accepted).toEqual({ location: `${UP}/svc/v1/api-jobs/${JOB}`, jobUuid: JOB, apiTimeout: 1800000 });
    const [request] = seen;
    expect(request?.method).toBe('PUT');
    expect(request?.path).toBe(`/svc/v1/hosts/nqn/${U1}/actions`);
    expect(request?.headers).toMatchObject({
      authorization: SESSION.authorization,
      'content-type': 'application/json;charset=UTF-8',
      'x-job-uuid': JOB,
      'x-web-hook': 'http://gateway.test/webhooks/upstream',
      'x-request-id': 'req-3',
    });
    expect(JSON.parse(request?.body ?? 'null')).toEqual({ updateHostNqn: { nqn: 'nqn.2014-08.org:host' } });
  });

  it('takes the polling address from a Location header, sends the query and no body when there is none', async () => {
    const seen = upstream.capture(UP, 202, '', { location: `${UP}/svc/v1/api-jobs/${JOB}` });
    const accepted = await upstream.client.submit(SESSION, {
      operation: DeleteVolumeSnapshotGroup,
      params: { uuid: U1, deleteMode: 'Enforcing' },
      jobUuid: JOB,
    });
    expect(accepted.location).toBe(`${UP}/svc/v1/api-jobs/${JOB}`);
    expect(seen[0]?.path).toBe(`/svc/v1/volume-snapshots/group/${U1}?deleteMode=Enforcing`);
    expect(seen[0]?.headers['content-type']).toBeUndefined();
    expect(seen[0]?.headers['x-web-hook']).toBeUndefined();
  });

  it('accepts a synchronous 200 as an already finished job', async () => {
    upstream.capture(UP, 200, { success: true, inventory: { uuid: U1, status: 'Created' } });
    const accepted = await upstream.client.submit(SESSION, { operation: CreateCbtTask, params: {}, jobUuid: JOB });
    expect(accepted.location).toBeNull();
    expect(accepted.result).toEqual({ success: true, inventory: { uuid: U1, status: 'Created' } });
    expect(upstream.client.decoder.cbtTask(accepted.result?.inventory).status).toBe('Created');
  });

  it('rejects a submitted duplicate job uuid as a bad request', async () => {
    upstream.capture(UP, 400, 'Duplicate job uuid', TEXT_HEADERS);
    const error = await failure(upstream.client.submit(SESSION, { operation: CreateCbtTask, params: {}, jobUuid: JOB }));
    expect(error.code).toBe('UPSTREAM_BAD_REQUEST');
    expect(error.message).toContain('Duplicate job uuid');
  });

  it('polls a job: 202 running, 200 succeeded, 503 failed, 404 expired', async () => {
    const location = `http://somewhere-else.test:9999/svc/v1/api-jobs/${JOB}`;
    const polls = [
      upstream.capture(UP, 202, {}),
      upstream.capture(UP, 200, { inventory: { uuid: U1 } }),
      upstream.capture(UP, 503, { error: { code: 'SYS.1006', cause: { code: 'VM.1010' } } }),
      upstream.capture(UP, 404, 'job expired', TEXT_HEADERS),
    ];
    expect(await upstream.client.pollJob(location)).toEqual({ status: 'running' });
    expect(await upstream.client.pollJob(location)).toEqual({ status: 'succeeded', body: { inventory: { uuid: U1 } } });
    const failed = await upstream.client.pollJob(location);
    expect(failed.status).toBe('failed');
    expect(failed.status === 'failed' && failed.error.cause?.code).toBe('VM.1010');
    expect((await failure(upstream.client.pollJob(location))).code).toBe('UPSTREAM_NOT_FOUND');
    // The address the service wrote is moved onto the configured base; no credential is needed.
    expect(polls.map((seen) => seen[0]?.path)).toEqual(Array(4).fill(`/svc/v1/api-jobs/${JOB}`));
    expect(polls[0]?.[0]?.headers.authorization).toBeUndefined();
  });

  it('gives the polling address of a job on the configured base, its path prefix kept, and polls it there', async () => {
    const prefixed = upstream.makeClient({ upstreamUrl: `${UP}/zstack` });
    const location = prefixed.jobLocation(JOB);
    expect(location).toBe(`${UP}/zstack/svc/v1/api-jobs/${JOB}`);
    const seen = upstream.capture(UP, 202, {});
    expect(await prefixed.pollJob(location)).toEqual({ status: 'running' });
    expect(seen[0]?.path).toBe(`/zstack/svc/v1/api-jobs/${JOB}`);
    await prefixed.close();
  });
});
