/**
 * What an upstream answer means, and what a call that got none failed of: pure functions of the
 * status, headers and body text (`answers.ts`) or of the failure (`failures.ts`), tested without
 * any server. Assertions are on `code`, never on message text.
 */
import { describe, expect, it } from 'vitest';
import { readAccepted, readJobPoll, readResult, readSuccess, type RawAnswer } from '../../src/upstream/answers.js';
import { DecodeError } from '../../src/upstream/decode.js';
import { UpstreamBusinessError, type UpstreamRequestError } from '../../src/upstream/errors.js';
import { failureOf } from '../../src/upstream/failures.js';
import { DeadlineExceededError } from '../../src/upstream/interceptors/deadline.js';
import { QueueFullError } from '../../src/upstream/limiter.js';

const JOB = 'cccccccccccccccccccccccccccccccc';
const LOCATION = `http://upstream.test/svc/v1/api-jobs/${JOB}`;

function answer(status: number, body: unknown, headers: RawAnswer['headers'] = {}): RawAnswer {
  return { status, headers, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

function thrown(read: () => unknown): UpstreamRequestError {
  try {
    read();
  } catch (error) {
    return error as UpstreamRequestError;
  }
  throw new Error('expected the answer to be read as an error');
}

describe('a successful answer', () => {
  it('is its JSON object, decoded by the operation', () => {
    const result = readResult('QueryCbtTask', answer(200, { inventories: [{ name: 'a' }] }), (body) => (body.inventories as unknown[]).length);
    expect(result).toBe(1);
  });

  it('is an empty object when its body is empty', () => {
    expect(readSuccess('GetHostSensors', answer(200, ''))).toEqual({});
  });

  it('is a failure when its error is not null, whatever the status', () => {
    const error = thrown(() => readSuccess('QueryCbtTask', answer(200, { success: false, error: { code: 'SYS.1006' } })));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.status).toBe(200);
  });

  it('is a protocol error when its body is malformed JSON or not JSON at all', () => {
    expect(thrown(() => readSuccess('QueryCbtTask', answer(200, '{"inventories": ['))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(thrown(() => readSuccess('QueryCbtTask', answer(200, 'this is not json'))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
  });

  it('is a protocol error, with its status, when the decoder refuses a record', () => {
    const error = thrown(() =>
      readResult('QueryCbtTask', answer(200, { inventories: [{}] }), () => {
        throw new DecodeError('body.inventories[0].uuid', 'expected a uuid');
      }),
    );
    expect(error.code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(error.status).toBe(200);
    expect(error.operation).toBe('QueryCbtTask');
  });
});

describe('the answer to a write', () => {
  it('takes a 202 polling address from the body, with its apiTimeout', () => {
    expect(readAccepted('UpdateHostNqn', JOB, answer(202, { location: LOCATION, apiTimeout: 1800000 }))).toEqual({
      location: LOCATION,
      jobUuid: JOB,
      apiTimeout: 1800000,
    });
  });

  it('takes a 202 polling address from the Location header when the body has none', () => {
    expect(readAccepted('DeleteVolumeSnapshotGroup', JOB, answer(202, '', { location: LOCATION }))).toEqual({ location: LOCATION, jobUuid: JOB, apiTimeout: null });
    expect(readAccepted('DeleteVolumeSnapshotGroup', JOB, answer(202, {}, { location: [LOCATION, 'ignored'] })).location).toBe(LOCATION);
  });

  it('refuses a 202 with no polling address as a protocol error', () => {
    expect(thrown(() => readAccepted('CreateCbtTask', JOB, answer(202, {}))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
    expect(thrown(() => readAccepted('CreateCbtTask', JOB, answer(202, 'accepted'))).code).toBe('UPSTREAM_PROTOCOL_ERROR');
  });

  it('reads a 200 as a write the service finished at once', () => {
    const accepted = readAccepted('CreateCbtTask', JOB, answer(200, { inventory: { uuid: JOB } }));
    expect(accepted).toEqual({ location: null, jobUuid: JOB, apiTimeout: null, result: { inventory: { uuid: JOB } } });
  });

  it('reads a 503 ErrorCode as the business error it is', () => {
    expect(thrown(() => readAccepted('CreateCbtTask', JOB, answer(503, { error: { code: 'SYS.1007' } }))).code).toBe('UPSTREAM_ERROR');
  });
});

describe('a job poll', () => {
  it('reads 202 as running, 200 as succeeded, an ErrorCode as failed with its cause chain', () => {
    expect(readJobPoll(answer(202, {}))).toEqual({ status: 'running' });
    expect(readJobPoll(answer(200, { inventory: { uuid: JOB } }))).toEqual({ status: 'succeeded', body: { inventory: { uuid: JOB } } });
    const failed = readJobPoll(answer(503, { error: { code: 'SYS.1006', cause: { code: 'VM.1010' } } }));
    expect(failed.status === 'failed' && [failed.error.code, failed.error.cause?.code]).toEqual(['SYS.1006', 'VM.1010']);
  });

  it('reads 404 (an unknown or expired job) as UPSTREAM_NOT_FOUND', () => {
    expect(thrown(() => readJobPoll(answer(404, 'job expired'))).code).toBe('UPSTREAM_NOT_FOUND');
  });
});

describe('an unsuccessful answer', () => {
  const chained = {
    error: {
      code: 'SYS.1006',
      description: 'operation failed',
      cause: { code: 'VM.1010', description: 'wrong VM state', cause: { code: 'SYS.1000', description: 'internal' } },
    },
  };

  it('with an ErrorCode under 503 is an UpstreamBusinessError with the whole cause chain', () => {
    const error = thrown(() => readSuccess('QueryCbtTask', answer(503, chained)));
    expect(error).toBeInstanceOf(UpstreamBusinessError);
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.status).toBe(503);
    expect([error.errorCode?.code, error.errorCode?.cause?.code, error.errorCode?.cause?.cause?.code]).toEqual(['SYS.1006', 'VM.1010', 'SYS.1000']);
    expect(error.errorCode?.cause?.cause?.cause).toBeNull();
  });

  it('keeps an ErrorCode whose members are malformed', () => {
    const error = thrown(() => readSuccess('QueryCbtTask', answer(503, { error: { code: 'SYS.1006', description: 42 } })));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.errorCode?.code).toBe('SYS.1006');
  });

  it.each([
    ['ID.1001', 'UNAUTHENTICATED'],
    ['ID.1002', 'FORBIDDEN'],
  ])('with ErrorCode %s is %s and keeps the ErrorCode', (code, expected) => {
    const error = thrown(() => readSuccess('GetHostSensors', answer(503, { error: { code, description: 'session' } })));
    expect(error.code).toBe(expected);
    expect(error.errorCode?.code).toBe(code);
  });

  it.each([
    [400, 'Unknown query field', 'UPSTREAM_BAD_REQUEST'],
    [401, '', 'UNAUTHENTICATED'],
    [403, 'Forbidden', 'FORBIDDEN'],
    [404, 'Not Found', 'UPSTREAM_NOT_FOUND'],
    [405, 'Method Not Allowed', 'UPSTREAM_PROTOCOL_ERROR'],
    [409, 'Conflict', 'UPSTREAM_BAD_REQUEST'],
    [500, 'Internal Server Error', 'UPSTREAM_UNAVAILABLE'],
    [502, 'Bad Gateway', 'UPSTREAM_UNAVAILABLE'],
    [503, '', 'UPSTREAM_UNAVAILABLE'],
    [302, '', 'UPSTREAM_PROTOCOL_ERROR'],
  ])('%s in plain text (no ErrorCode) is %s', (status, body, expected) => {
    const error = thrown(() => readSuccess('QueryHBADevice', answer(status, body, { 'content-type': 'text/plain' })));
    expect(error.code).toBe(expected);
    expect(error.status).toBe(status);
    expect(error.operation).toBe('QueryHBADevice');
  });
});

describe('a call that got no answer', () => {
  const none = { sent: false, callerSignal: undefined };

  it('whose deadline passed is UPSTREAM_TIMEOUT, delivered or not as it reached a connection or not', () => {
    const waited = failureOf('QueryCbtTask', new DeadlineExceededError(100), none) as UpstreamRequestError;
    expect([waited.code, waited.mayHaveBeenDelivered]).toEqual(['UPSTREAM_TIMEOUT', false]);
    const sent = failureOf('QueryCbtTask', new DeadlineExceededError(100), { ...none, sent: true }) as UpstreamRequestError;
    expect([sent.code, sent.mayHaveBeenDelivered]).toEqual(['UPSTREAM_TIMEOUT', true]);
  });

  it('refused by a full queue is UPSTREAM_UNAVAILABLE, surely not delivered', () => {
    const error = failureOf('QueryCbtTask', new QueueFullError('32 in flight'), none) as UpstreamRequestError;
    expect([error.code, error.mayHaveBeenDelivered]).toEqual(['UPSTREAM_UNAVAILABLE', false]);
    expect(error.cause).toBeInstanceOf(QueueFullError);
  });

  it.each([
    ['ECONNREFUSED', 'UPSTREAM_UNAVAILABLE', false],
    ['ECONNRESET', 'UPSTREAM_UNAVAILABLE', true],
    ['UND_ERR_SOCKET', 'UPSTREAM_UNAVAILABLE', true],
    ['UND_ERR_CONNECT_TIMEOUT', 'UPSTREAM_TIMEOUT', false],
    ['UND_ERR_HEADERS_TIMEOUT', 'UPSTREAM_TIMEOUT', true],
    ['UND_ERR_INVALID_ARG', 'UPSTREAM_BAD_REQUEST', false],
  ])('ended by %s is %s (delivered: %s)', (code, expected, delivered) => {
    const cause = Object.assign(new Error('transport'), { code });
    const error = failureOf('GetHostSensors', new Error('wrapped', { cause }), none) as UpstreamRequestError;
    expect([error.code, error.mayHaveBeenDelivered]).toEqual([expected, delivered]);
  });

  it("gives the caller that gave up its own reason back, and a deadline of the caller's own as a timeout", () => {
    const left = new AbortController();
    const reason = new Error('client went away');
    left.abort(reason);
    expect(failureOf('QueryCbtTask', reason, { sent: true, callerSignal: left.signal })).toBe(reason);
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('deadline', 'TimeoutError'));
    expect((failureOf('QueryCbtTask', timedOut.signal.reason, { sent: true, callerSignal: timedOut.signal }) as UpstreamRequestError).code).toBe('UPSTREAM_TIMEOUT');
  });
});
